package calibrate

import (
	"math"
	"strings"
	"testing"

	"perfc/codegen/spmd"
)

// TestFitStart works START's excess out by hand: a run of 30 µs with 8
// later barriers of 16 µs (2 µs each) and a clock of 100 ns a run and
// 50 ns a region entry leaves 30 − 0.1 − 0.1 − 9 × 2 = 11.8 µs; a run
// faster than its barriers leaves 0, and a measurement without the later
// barriers is an error.
func TestFitStart(t *testing.T) {
	clock := &clockFit{run: 100e-9, region: 50e-9}
	meas := func(total, more float64) *spmd.Measurement {
		return &spmd.Measurement{Total: spmd.Timing{MedianUs: total, MinUs: total * 0.9, MaxUs: total * 1.1},
			Regions: []spmd.Timing{{Name: startFirst, MedianUs: 1}, {Name: startMore, MedianUs: more}}}
	}
	for _, tc := range []struct {
		total, more, excess float64 // µs
	}{{30, 16, 11.8}, {10, 16, 0}} {
		f, err := fitStart(meas(tc.total, tc.more), clock, 2, 9)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(f.excess*1e6-tc.excess) > 1e-9 || f.ranks != 4 || f.cores != 2 || math.Abs(f.barrier*1e6-2) > 1e-12 {
			t.Errorf("run %g µs, later barriers %g µs: %+v, want an excess of %g µs", tc.total, tc.more, *f, tc.excess)
		}
	}
	if _, err := fitStart(&spmd.Measurement{Total: spmd.Timing{MedianUs: 30}}, clock, 2, 9); err == nil || !strings.Contains(err.Error(), "START") {
		t.Errorf("no later barriers: %v", err)
	}
}
