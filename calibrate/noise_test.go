package calibrate

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"

	"perfc/codegen/spmd"
)

// TestNoiseKernel checks that the NOISE benchmark's kernel checks and has
// the regions fitNoise reads.
func TestNoiseKernel(t *testing.T) {
	passes, _ := noiseSizes(Quick)
	k, err := checkText(kernelSpec{name: "calibrate_noise", text: noiseKernel(passes)})
	if err != nil {
		t.Fatal(err)
	}
	text := noiseKernel(passes)
	for _, want := range []string{`region "NOISE exchange"`, `region "NOISE compute 3"`, `region "NOISE wait 3000"`, "exchange buf[0:1] with rank ^ 1"} {
		if !strings.Contains(text, want) {
			t.Errorf("the kernel has no %q", want)
		}
	}
	if k.NumRanks() != 2 {
		t.Errorf("%d ranks, want 2", k.NumRanks())
	}
}

// TestFitNoise fits a hand-made measurement: the exchange alone takes
// 1 µs, compute k passes k µs, and the waits excess 0.5 µs + 0.2·T in
// their median, with a long tail (every fifth 100 µs more) that
// the median does not see and the mean does.
func TestFitNoise(t *testing.T) {
	passes := []int64{1, 10, 100}
	m := &spmd.Measurement{Regions: []spmd.Timing{{Name: "NOISE exchange", SamplesUs: []float64{1, 1, 1, 1, 1}}}}
	for _, k := range passes {
		T := float64(k)
		m.Regions = append(m.Regions, spmd.Timing{Name: fmt.Sprintf("NOISE compute %d", k), SamplesUs: []float64{T, T, T, T, T}})
		ex := 0.5 + 0.2*T
		m.Regions = append(m.Regions, spmd.Timing{Name: fmt.Sprintf("NOISE wait %d", k),
			SamplesUs: []float64{1 + ex, 1 + ex - 0.1, 1 + ex + 0.1, 1 + ex, 1 + ex + 100}})
	}
	f, err := fitNoise(m, passes)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(f.a-0.5e-6) > 1e-12 || math.Abs(f.b-0.2) > 1e-9 || f.rms > 1e-12 || f.exchange != 1e-6 {
		t.Errorf("law a = %g s, b = %g, rms %g, exchange %g; want 0.5 µs, 0.2, 0, 1 µs", f.a, f.b, f.rms, f.exchange)
	}
	p := f.points[1]
	if math.Abs(p.quantile(0.9)-102.5e-6) > 1e-12 || math.Abs(p.mean-(2.5e-6+20e-6)) > 1e-12 {
		t.Errorf("T = 10 µs: p90 %g, mean %g; want the tail 102.5 µs and the mean 22.5 µs", p.quantile(0.9), p.mean)
	}
	src := f.section("2026-11-26").Source
	for _, want := range []string{"median 2.5us", "p90 102.5us", "rms 0us", "exchange alone (1us)"} {
		if !strings.Contains(src, want) {
			t.Errorf("source %q has no %q", src, want)
		}
	}
	if _, err := fitNoise(&spmd.Measurement{}, passes); err == nil || !strings.Contains(err.Error(), "NOISE exchange") {
		t.Errorf("a measurement without the regions: %v", err)
	}
}

// TestNoiseRun checks that of several NOISE runs the law is the one of
// the run whose segments ran fastest, whatever its place, and that the
// source names every run's segments in all: a run whose segments took
// twice as long (the ranks on one core) waited 0.4 T at each
// synchronisation, the others 0.01 T.
func TestNoiseRun(t *testing.T) {
	passes := []int64{1, 10, 100}
	run := func(slow, perCompute float64) *spmd.Measurement {
		m := &spmd.Measurement{Regions: []spmd.Timing{{Name: "NOISE exchange", SamplesUs: []float64{1, 1, 1}}}}
		for _, k := range passes {
			T := float64(k) * slow
			m.Regions = append(m.Regions,
				spmd.Timing{Name: fmt.Sprintf("NOISE compute %d", k), SamplesUs: []float64{T, T, T}},
				spmd.Timing{Name: fmt.Sprintf("NOISE wait %d", k), SamplesUs: []float64{1 + perCompute*T, 1 + perCompute*T, 1 + perCompute*T}})
		}
		return m
	}
	for _, order := range [][]*spmd.Measurement{
		{run(2, 0.4), run(1, 0.01), run(1.1, 0.02)},
		{run(1, 0.01), run(2, 0.4), run(1.1, 0.02)},
		{run(1.1, 0.02), run(2, 0.4), run(1, 0.01)},
	} {
		f, err := noiseRun(order, passes)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(f.b-0.01) > 1e-9 || len(f.runs) != 3 {
			t.Errorf("per_compute %g of %d runs, want 0.01 of 3", f.b, len(f.runs))
		}
		if src := f.section("2026-11-28").Source; !strings.Contains(src, "fastest of 3 (their segments in all: ") || !strings.Contains(src, "222us") {
			t.Errorf("source %q does not name the runs' segments (222 µs for the slow one)", src)
		}
	}
	one, err := noiseRun([]*spmd.Measurement{run(1, 0.01)}, passes)
	if err != nil {
		t.Fatal(err)
	}
	if src := one.section("2026-11-28").Source; strings.Contains(src, "fastest") {
		t.Errorf("one run's source %q speaks of several", src)
	}
}

// TestFitLine checks the law's constraints and weights: a line through the
// points is found exactly; a negative intercept fits through the origin and
// a negative slope a constant, both on relative residuals (weights 1/y²);
// a point far off a long segment does not drag the short ones.
func TestFitLine(t *testing.T) {
	for _, tc := range []struct {
		name       string
		xs, ys     []float64
		wantA, wnB float64
	}{
		{"plain", []float64{1, 2, 3}, []float64{3, 5, 7}, 1, 2},
		{"negative intercept: through the origin", []float64{1, 2, 3}, []float64{1, 3, 5}, 0,
			(1 + 6/9.0 + 15/25.0) / (1 + 4/9.0 + 9/25.0)},
		{"negative slope: a constant", []float64{1, 2, 3}, []float64{5, 4, 3}, (5/25.0 + 4/16.0 + 3/9.0) / (1/25.0 + 1/16.0 + 1/9.0), 0},
	} {
		a, b := fitLine(tc.xs, tc.ys, 0)
		if math.Abs(a-tc.wantA) > 1e-12 || math.Abs(b-tc.wnB) > 1e-12 {
			t.Errorf("%s: a %g b %g, want %g %g", tc.name, a, b, tc.wantA, tc.wnB)
		}
	}
	// Excesses of 0.8 T at 1 µs, 10 µs and 1 ms, but 2 T at 100 µs (a busy
	// host's shape): the short segments keep an intercept well below their
	// own excess, where an absolute fit puts tens of µs.
	xs := []float64{1e-6, 1e-5, 1e-4, 1e-3}
	ys := []float64{0.8e-6, 0.8e-5, 2e-4, 0.8e-3}
	if a, _ := fitLine(xs, ys, 0); a > 0.4e-6 {
		t.Errorf("intercept %g s: the longest segment dragged the short ones", a)
	}
	if a, _ := stat.LinearRegression(xs, ys, nil, false); a < 10e-6 {
		t.Errorf("the absolute fit's intercept %g s: this case no longer shows what the weights are for", a)
	}
}

// TestFitLineFloor: a median excess just below zero at the shortest
// segment (within the exchange's own time) does not pull the law to zero
// when every longer segment waits about 0.4 T (the quick calibration of
// 2026-11-26 04:20, with the floor the exchange alone's 1.07 µs).
func TestFitLineFloor(t *testing.T) {
	us := func(v ...float64) []float64 {
		for i := range v {
			v[i] *= 1e-6
		}
		return v
	}
	xs := us(1.0, 5.35, 16.3, 54.4, 87.9, 520, 1632)
	ys := us(-0.2, 1.43, 6.58, 24.3, 21.8, 212, 723)
	a, b := fitLine(xs, ys, 1.07e-6)
	if b < 0.25 || b > 0.5 || a > 1e-6 {
		t.Errorf("law %g s + %g·T; want a slope near 0.4 and an intercept under 1 µs", a, b)
	}
	if _, b0 := fitLine(xs, ys, 0); b0 != 0 {
		t.Errorf("without the floor the slope is %g, not 0: this case no longer shows what the floor is for", b0)
	}
}
