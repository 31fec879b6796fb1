package fit

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// within reports whether got is within rel of want.
func within(got, want, rel float64) bool {
	return math.Abs(got-want) <= rel*math.Abs(want)
}

// lengths are message lengths from 0 B to 4 MiB, powers of two and three
// times powers of two, as the calibration measures them.
func lengths() []float64 {
	out := []float64{0}
	for n := 8.0; n <= 4<<20; n *= 2 {
		out = append(out, n)
		if n >= 1024 && 3*n/2 < 4<<20 {
			out = append(out, 3*n/2)
		}
	}
	return out
}

// jitter is a deterministic relative disturbance of ±amp, alternating in
// sign with varying size, standing in for measurement noise.
func jitter(i int, amp float64) float64 {
	return 1 + amp*math.Sin(float64(i)*2.3)
}

func TestFitHockneyRecoversParameters(t *testing.T) {
	tests := []struct {
		name  string
		t0    float64
		rinf  float64
		noise float64
	}{
		{"exact", 0.135e-6, 170e9, 0},
		{"noisy 0.3%", 0.135e-6, 170e9, 0.003},
		{"slow network", 85e-6, 15e6, 0.003},
		{"no start-up", 0, 21e9, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := lengths()[:12] // 0 B .. 16 KiB
			ts := make([]float64, len(n))
			for i := range n {
				ts[i] = (tc.t0 + n[i]/tc.rinf) * jitter(i, tc.noise)
			}
			if tc.t0 == 0 {
				n, ts = n[1:], ts[1:] // a zero time is no measurement
			}
			h, err := FitHockney(n, ts)
			if err != nil {
				t.Fatal(err)
			}
			if !within(h.Rinf, tc.rinf, 0.01) {
				t.Errorf("rinf = %g B/s, want %g within 1 %%", h.Rinf, tc.rinf)
			}
			if tc.t0 == 0 && h.T0 > 1e-3*n[1]/tc.rinf || tc.t0 > 0 && !within(h.T0, tc.t0, 0.01) {
				t.Errorf("t0 = %g s, want %g within 1 %%", h.T0, tc.t0)
			}
			if h.T0 > 0 && !within(h.NHalf(), h.T0*h.Rinf, 1e-12) {
				t.Errorf("nhalf = %g, want t0*rinf", h.NHalf())
			}
			if h.MaxResidual() > 2*tc.noise+1e-9 {
				t.Errorf("max residual %g for noise %g", h.MaxResidual(), tc.noise)
			}
			if len(h.Residuals) != len(n) || h.Points != len(n) {
				t.Errorf("residuals %d, points %d; want %d", len(h.Residuals), h.Points, len(n))
			}
		})
	}
}

// TestFitHockneyNegativeInterceptGoesThroughOrigin: points whose free line
// would start below zero get a law through the origin, never a negative t0.
func TestFitHockneyNegativeInterceptGoesThroughOrigin(t *testing.T) {
	n := []float64{1 << 20, 2 << 20, 3 << 20, 4 << 20}
	ts := []float64{40e-6, 90e-6, 140e-6, 190e-6} // a = -10 us
	h, err := FitHockney(n, ts)
	if err != nil {
		t.Fatal(err)
	}
	if h.T0 != 0 || !(h.Rinf > 0) {
		t.Errorf("t0 = %g, rinf = %g; want 0 and positive", h.T0, h.Rinf)
	}
}

func TestFitHockneyErrors(t *testing.T) {
	tests := []struct {
		name string
		n, t []float64
		want string
	}{
		{"mismatch", []float64{1, 2}, []float64{1}, "2 lengths but 1 times"},
		{"one point", []float64{1}, []float64{1}, "needs at least 2"},
		{"zero time", []float64{1, 2}, []float64{0, 1}, "must be positive"},
		{"not increasing", []float64{2, 2}, []float64{1, 1}, "strictly increasing"},
		{"flat", []float64{1, 2, 3}, []float64{1, 1, 1}, "does not grow"},
		{"falling", []float64{1, 2, 3}, []float64{3, 2, 1}, "does not grow"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := FitHockney(tc.n, tc.t)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// threeRegimes is the host's pingpong shape (host-baseline.md): fast in L1
// and L2, slower to 256 KiB, out of cache beyond.
func threeRegimes() Piecewise {
	return Piecewise{
		Laws: []Hockney{
			{T0: 0.135e-6, Rinf: 170e9},
			{T0: 0.2e-6, Rinf: 79e9},
			{T0: 2e-6, Rinf: 21e9},
		},
		Below: []float64{16 << 10, 256 << 10},
	}
}

func TestFitPiecewiseRecoversRanges(t *testing.T) {
	want := threeRegimes()
	for _, noise := range []float64{0, 0.002} {
		n := lengths()
		ts := make([]float64, len(n))
		for i := range n {
			ts[i] = want.Time(n[i]) * jitter(i, noise)
		}
		p, ok, err := FitPiecewise(n, ts, PiecewiseOptions{Tolerance: 0.10})
		if err != nil || !ok {
			t.Fatalf("noise %g: ok %v, err %v", noise, ok, err)
		}
		if len(p.Laws) != 3 {
			t.Fatalf("noise %g: %d ranges, want 3: %+v", noise, len(p.Laws), p)
		}
		for i, h := range p.Laws {
			w := want.Laws[i]
			if !within(h.Rinf, w.Rinf, 0.01) || !within(h.T0, w.T0, 0.01) {
				t.Errorf("noise %g range %d: t0 %g rinf %g, want %g %g within 1 %%", noise, i, h.T0, h.Rinf, w.T0, w.Rinf)
			}
		}
		for i, b := range p.Below {
			// the range starts at the first measured length at or beyond the
			// true switch (the points cannot say more): 16 KiB and 256 KiB
			// are measured lengths.
			if !(b > want.Below[i]/1.5 && b <= want.Below[i]) {
				t.Errorf("noise %g: below[%d] = %g, want in (%g, %g]", noise, i, b, want.Below[i]/1.5, want.Below[i])
			}
		}
		for i := range n {
			if r := (p.Time(n[i]) - ts[i]) / ts[i]; math.Abs(r) > 0.10 {
				t.Errorf("noise %g: piecewise time at %g B off by %.1f %%", noise, n[i], 100*r)
			}
		}
	}
}

// TestFitPiecewiseOneLawWhenItFits: a single law is kept when it fits.
func TestFitPiecewiseOneLawWhenItFits(t *testing.T) {
	n := lengths()
	ts := make([]float64, len(n))
	for i := range n {
		ts[i] = 25e-6 + n[i]/50e6
	}
	p, ok, err := FitPiecewise(n, ts, PiecewiseOptions{Tolerance: 0.10})
	if err != nil || !ok || len(p.Laws) != 1 || len(p.Below) != 0 {
		t.Fatalf("ok %v err %v laws %d below %v; want one law", ok, err, len(p.Laws), p.Below)
	}
	if !within(p.Laws[0].T0, 25e-6, 0.01) || !within(p.Laws[0].Rinf, 50e6, 0.01) {
		t.Errorf("law %+v", p.Laws[0])
	}
}

// TestFitPiecewiseReportsMiss: points no split of two ranges can follow
// (a sawtooth) give the best split with ok = false.
func TestFitPiecewiseReportsMiss(t *testing.T) {
	n := lengths()
	ts := make([]float64, len(n))
	for i := range n {
		ts[i] = (1e-6 + n[i]/1e9) * (1 + 0.4*float64(i%2))
	}
	p, ok, err := FitPiecewise(n, ts, PiecewiseOptions{Tolerance: 0.10, MaxRanges: 2})
	if err != nil {
		t.Fatal(err)
	}
	if ok {
		t.Errorf("a sawtooth of ±20 %% fitted within 10 %%: %+v", p)
	}
	if len(p.Laws) != 2 || p.MaxResidual() <= 0.10 {
		t.Errorf("laws %d, max residual %g", len(p.Laws), p.MaxResidual())
	}
}

func TestEachSplitCountsSplits(t *testing.T) {
	// 7 points into 2 ranges of at least 3: starts 3 or 4.
	var got [][]int
	hkEachSplit(7, 2, 3, func(b []int) { got = append(got, append([]int(nil), b...)) })
	if len(got) != 2 || got[0][1] != 3 || got[1][1] != 4 {
		t.Errorf("splits %v", got)
	}
}

// TestFitPiecewiseMinT0: a range whose free line starts below zero gets
// the law through the origin, raised to MinT0, with its residuals.
func TestFitPiecewiseMinT0(t *testing.T) {
	n := []float64{1 << 20, 2 << 20, 3 << 20, 4 << 20}
	ts := make([]float64, len(n))
	for i := range n {
		ts[i] = -10e-6 + n[i]/20e9 // a free line starts below zero
	}
	free, _, err := FitPiecewise(n, ts, PiecewiseOptions{Tolerance: 0.5, MaxRanges: 1})
	if err != nil || len(free.Laws) != 1 || free.Laws[0].T0 != 0 {
		t.Fatalf("without MinT0: %+v, %v; want one law through the origin", free, err)
	}
	p, _, err := FitPiecewise(n, ts, PiecewiseOptions{Tolerance: 0.5, MaxRanges: 1, MinT0: 1e-9})
	if err != nil || len(p.Laws) != 1 {
		t.Fatalf("with MinT0: %+v, %v", p, err)
	}
	h := p.Laws[0]
	if h.T0 != 1e-9 || h.Rinf != free.Laws[0].Rinf {
		t.Errorf("with MinT0: t0 %g rinf %g, want 1e-9 and %g", h.T0, h.Rinf, free.Laws[0].Rinf)
	}
	for i, r := range h.Residuals {
		if want := (h.Time(n[i]) - ts[i]) / ts[i]; r != want {
			t.Errorf("residual %d = %g, want %g", i, r, want)
		}
	}
}

// TestNearMinimax checks the choice when no split fits: among the splits
// whose worst point is within minimaxMargin of the smallest, the smallest
// sum of squares. Nine points in two ranges of three or more; the laws are
// stand-ins with the residuals given, the second range of each split
// fitting exactly. The split at 6 has the smallest worst point (0.30,
// sum of squares 0.54) and is what pure minimax takes; the one at 4 a
// worst point 0.01 above it and a sum of squares of 0.20; the one at 5 the
// smallest sum (0.13) with a worst point 0.06 above; the one at 3 neither.
func TestNearMinimax(t *testing.T) {
	res := map[[2]int][]float64{
		{0, 3}: {0.3, 0.3, 0.5477}, {3, 9}: make([]float64, 6),
		{0, 4}: {0.31, 0.31, 0.1, 0}, {4, 9}: make([]float64, 5),
		{0, 5}: {0.36, 0.05, 0, 0, 0}, {5, 9}: make([]float64, 4),
		{0, 6}: {0.3, 0.3, 0.3, 0.3, 0.3, 0.3}, {6, 9}: make([]float64, 3),
	}
	law := func(i, j int) *Hockney {
		r, ok := res[[2]int{i, j}]
		if !ok {
			return nil
		}
		return &Hockney{T0: 1e-6, Rinf: 1e9, Residuals: r}
	}
	if got, want := hkNearMinimax(9, 2, 3, 0.3, law), []int{0, 4, 9}; !slices.Equal(got, want) {
		t.Errorf("split %v, want %v (worst 0.31 within %.2f of 0.30, the smaller sum of squares)", got, want, minimaxMargin)
	}
}

// TestPiecewiseTimeLinesTheGap checks that between a range's last point
// and the next range's first, where no law was fitted, the time goes in a
// straight line from the one law to the other (as a table's fitted_to has
// it priced), and that elsewhere each range keeps its own law.
func TestPiecewiseTimeLinesTheGap(t *testing.T) {
	lo := Hockney{T0: 1e-9, Rinf: 26.84e9, From: 1 << 20, To: 12 << 20, Points: 8}
	hi := Hockney{T0: 1e-9, Rinf: 20.87e9, From: 16 << 20, To: 32 << 20, Points: 3}
	p := Piecewise{Laws: []Hockney{lo, hi}, Below: []float64{16 << 20}}
	a, b := lo.Time(12<<20), hi.Time(16<<20)
	tests := []struct {
		n, want float64
	}{
		{8 << 20, lo.Time(8 << 20)},
		{12 << 20, a},
		{14 << 20, (a + b) / 2},
		{16 << 20, b},
		{24 << 20, hi.Time(24 << 20)},
	}
	for _, tt := range tests {
		if got := p.Time(tt.n); math.Abs(got-tt.want) > 1e-15 {
			t.Errorf("Time(%g) = %g, want %g", tt.n, got, tt.want)
		}
	}
}
