package comms

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestFitWakeup checks the wake-up fit on synthetic points: gaps of 1 µs a
// block, a round trip of 0.4 µs that costs 10 µs more from 20 µs of gap on,
// so the fit finds time 10 µs and after between 16 and 32 µs; and that a
// host whose round trip does not grow with the gap, or too few gaps, give
// no wake-up cost.
func TestFitWakeup(t *testing.T) {
	const rt = 0.4e-6
	points := func(blocks []int64, extra func(gap float64) float64) []Point {
		var pts []Point
		for _, b := range blocks {
			g := float64(b) * 1e-6
			pts = append(pts,
				Point{Bench: Gap, Ranks: 2, Blocks: b, Time: g},
				Point{Bench: Wake, Ranks: 2, Blocks: b, Time: g + rt + extra(g)})
		}
		return pts
	}
	step := func(g float64) float64 {
		if g > 20e-6 {
			return 10e-6
		}
		return 0.05e-6
	}
	all := []int64{2, 4, 8, 16, 32, 64, 128}
	tests := []struct {
		name    string
		pts     []Point
		ok      bool
		time    float64
		after   float64
		nExcess int
	}{
		{"a step at 20 us", points(all, step), true, 10e-6, 24e-6, 7},
		{"no step", points(all, func(float64) float64 { return -0.01e-6 }), false, 0, 0, 0},
		{"one gap", points([]int64{64}, step), false, 0, 0, 0},
		{"every gap sleeps", points([]int64{32, 64, 128}, step), true, 10e-6, 0, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, ok := fitWakeup(tc.pts, rt)
			got := []any{ok, w.time, w.after, len(w.excess)}
			want := []any{tc.ok, tc.time, tc.after, tc.nExcess}
			if diff := cmp.Diff(want, got, cmpopts.EquateApprox(1e-9, 1e-15)); diff != "" {
				t.Errorf("fit (-want +got):\n%s", diff)
			}
		})
	}
}
