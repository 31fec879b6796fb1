package comms

import (
	"slices"
	"testing"
)

// TestLengthsStraddleTheCopysStep: the full run measures a length just
// below each step of the runtime's copy (nonTemporalCopy for one block,
// half of it for two) and the step itself, with nothing between them, so
// that the table's linear interpolation never draws a line across a step;
// every length is a whole number of f64 elements and the lists ascend.
func TestLengthsStraddleTheCopysStep(t *testing.T) {
	s := modeSizes(false, false)
	for _, tc := range []struct {
		name    string
		lengths []int64
		blocks  []int64
	}{
		{"collectives", s.coll, []int64{1, 2}},
		{"COMMS1", s.comms1, []int64{1}},
		{"COMMS2", s.comms2, []int64{1}},
	} {
		if !slices.IsSorted(tc.lengths) {
			t.Errorf("%s: lengths %v do not ascend", tc.name, tc.lengths)
		}
		for _, n := range tc.lengths {
			if n%8 != 0 {
				t.Errorf("%s: %d B is not a whole number of f64 elements", tc.name, n)
			}
		}
		for _, b := range tc.blocks {
			step, below := int64(nonTemporalCopy)/b, belowNonTemporal(b)
			i := slices.Index(tc.lengths, step)
			if i < 1 || tc.lengths[i-1] != below {
				t.Errorf("%s: %d block(s): want %d B just before the step at %d B in %v", tc.name, b, below, step, tc.lengths)
			}
			if below >= step || below < step-step/16 {
				t.Errorf("%s: %d block(s): %d B is not just below %d B", tc.name, b, below, step)
			}
		}
	}
}
