package comms

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestFitWakeup checks the wake-up fit on synthetic points: gaps of 1 µs a
// block, a round trip of 0.4 µs in the kernel (its gap 0) that costs 10 µs
// more from 20 µs of gap on, so the fit finds time 10 µs and after between
// 16 and 32 µs; that the reference is the kernel's own round trip at no
// gap, however far it lies from COMMS1's; that when every gap pays, after
// lies between no gap and the first; and that a host whose round trip
// does not grow with the gap, too few gaps, or no point at gap 0 give no
// wake-up cost.
func TestFitWakeup(t *testing.T) {
	points := func(rt float64, blocks []int64, extra func(gap float64) float64) []Point {
		var pts []Point
		for _, b := range blocks {
			g := float64(b) * 1e-6
			wake := g + rt
			if b > 0 {
				wake += extra(g)
			}
			pts = append(pts,
				Point{Bench: Gap, Ranks: 2, Blocks: b, Time: g},
				Point{Bench: Wake, Ranks: 2, Blocks: b, Time: wake})
		}
		return pts
	}
	step := func(g float64) float64 {
		if g > 20e-6 {
			return 10e-6
		}
		return 0.05e-6
	}
	all := []int64{0, 2, 4, 8, 16, 32, 64, 128}
	tests := []struct {
		name    string
		pts     []Point
		ok      bool
		time    float64
		after   float64
		nExcess int
	}{
		{"a step at 20 us", points(0.4e-6, all, step), true, 10e-6, 24e-6, 7},
		{"a slower round trip in the kernel", points(1.1e-6, all, step), true, 10e-6, 24e-6, 7},
		{"no step", points(0.4e-6, all, func(float64) float64 { return -0.01e-6 }), false, 0, 0, 0},
		{"one gap", points(0.4e-6, []int64{0, 64}, step), false, 0, 0, 0},
		{"no gap 0", points(0.4e-6, all[1:], step), false, 0, 0, 0},
		{"every gap sleeps", points(0.4e-6, []int64{0, 32, 64, 128}, step), true, 10e-6, 16e-6, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, ok := fitWakeup(tc.pts)
			got := []any{ok, w.time, w.after, len(w.excess)}
			want := []any{tc.ok, tc.time, tc.after, tc.nExcess}
			if diff := cmp.Diff(want, got, cmpopts.EquateApprox(1e-9, 1e-15)); diff != "" {
				t.Errorf("fit (-want +got):\n%s", diff)
			}
		})
	}
}
