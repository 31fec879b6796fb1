package calibrate

import (
	"fmt"
	"math"
	"strings"
	"testing"

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
// 1 µs, compute k passes k µs, and the waits excess 0.2·T in their median,
// with a long tail (every fifth 100 µs more) that the median does not see
// and the mean does.
func TestFitNoise(t *testing.T) {
	passes := []int64{1, 10, 100}
	m := &spmd.Measurement{Regions: []spmd.Timing{{Name: "NOISE exchange", SamplesUs: []float64{1, 1, 1, 1, 1}}}}
	for _, k := range passes {
		T := float64(k)
		ex := 0.2 * T
		m.Regions = append(m.Regions, spmd.Timing{Name: fmt.Sprintf("NOISE compute %d", k), SamplesUs: []float64{T, T, T, T, T}},
			spmd.Timing{Name: fmt.Sprintf("NOISE wait %d", k), SamplesUs: []float64{1 + ex, 1 + ex - 0.1, 1 + ex + 0.1, 1 + ex, 1 + ex + 100}})
	}
	f, err := fitNoise(m, passes)
	if err != nil {
		t.Fatal(err)
	}
	if f.a != 0 || math.Abs(f.b-0.2) > 1e-9 || f.rms > 1e-12 || f.exchange != 1e-6 {
		t.Errorf("law a = %g s, b = %g, rms %g, exchange %g; want 0, 0.2, 0, 1 µs", f.a, f.b, f.rms, f.exchange)
	}
	p := f.points[1]
	if math.Abs(p.quantile(0.9)-102e-6) > 1e-12 || math.Abs(p.mean-(2e-6+20e-6)) > 1e-12 {
		t.Errorf("T = 10 µs: p90 %g, mean %g; want the tail 102 µs and the mean 22 µs", p.quantile(0.9), p.mean)
	}
	src := f.section("2026-11-26").Source
	for _, want := range []string{"median 2us", "p90 102us", "rms 0us", "exchange alone (1us)", "excess = b·T"} {
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

// TestFitSlope checks the law's constraints and weights: a slope through
// the points is found exactly; a line with an intercept gets none (the
// excess after no segment is 0 by construction); a negative slope is 0; a
// point far off a long segment does not drag the short ones, where an
// absolute fit follows it.
func TestFitSlope(t *testing.T) {
	for _, tc := range []struct {
		name   string
		xs, ys []float64
		want   float64
	}{
		{"plain", []float64{1, 2, 3}, []float64{2, 4, 6}, 2},
		{"an intercept: still through the origin", []float64{1, 2, 3}, []float64{3, 5, 7},
			(1/3.0 + 2/5.0 + 3/7.0) / (1/9.0 + 4/25.0 + 9/49.0)},
		{"negative: 0", []float64{1, 2, 3}, []float64{-1, -2, -3}, 0},
	} {
		if b := fitSlope(tc.xs, tc.ys, 0); math.Abs(b-tc.want) > 1e-12 {
			t.Errorf("%s: b %g, want %g", tc.name, b, tc.want)
		}
	}
	// Excesses of 0.8 T at 1, 10 and 100 µs, but 2 T at 1 ms (a busy
	// host's shape): the relative fit stays near 0.8, the absolute one
	// follows the longest segment.
	xs := []float64{1e-6, 1e-5, 1e-4, 1e-3}
	ys := []float64{0.8e-6, 0.8e-5, 0.8e-4, 2e-3}
	if b := fitSlope(xs, ys, 0); b > 0.9 {
		t.Errorf("slope %g: the longest segment dragged the short ones", b)
	}
	var sxy, sxx float64
	for i := range xs {
		sxy, sxx = sxy+xs[i]*ys[i], sxx+xs[i]*xs[i]
	}
	if sxy/sxx < 1.9 {
		t.Errorf("the absolute fit's slope %g: this case no longer shows what the weights are for", sxy/sxx)
	}
}

// TestFitSlopeFloor: a median excess just below zero at the shortest
// segment (within the exchange's own time) does not pull the law to zero
// when every longer segment waits about 0.4 T (the quick calibration of
// 2026-11-26 04:20, with the floor the exchange alone's 1.07 µs).
func TestFitSlopeFloor(t *testing.T) {
	us := func(v ...float64) []float64 {
		for i := range v {
			v[i] *= 1e-6
		}
		return v
	}
	xs := us(1.0, 5.35, 16.3, 54.4, 87.9, 520, 1632)
	ys := us(-0.2, 1.43, 6.58, 24.3, 21.8, 212, 723)
	if b := fitSlope(xs, ys, 1.07e-6); b < 0.25 || b > 0.5 {
		t.Errorf("slope %g; want near 0.4", b)
	}
	if b0 := fitSlope(xs, ys, 0); b0 > 0.1 {
		t.Errorf("without the floor the slope is %g: this case no longer shows what the floor is for", b0)
	}
}
