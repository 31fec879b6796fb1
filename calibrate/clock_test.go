package calibrate

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfc/codegen/spmd"
)

// TestFitClock checks that the clock's costs are the medians per run of
// the clock kernel's region and of its time outside the region, and that
// a measurement without the time outside is an error.
func TestFitClock(t *testing.T) {
	mk := &measuredKernel{
		points: []point{{bench: bench{name: "empty"}, seconds: 48e-9, spread: 0.1}},
		m: &spmd.Measurement{Regions: []spmd.Timing{
			{Name: "(outside regions)", MinUs: 0.07, MedianUs: 0.08, MaxUs: 0.09, SamplesUs: []float64{0.07, 0.08, 0.09}},
			{Name: "empty", MinUs: 0.046, MedianUs: 0.048, MaxUs: 0.0528},
		}},
	}
	f, err := fitClock(mk)
	if err != nil {
		t.Fatal(err)
	}
	want := clockFit{region: 48e-9, run: 80e-9, regionSpread: 0.1, runSpread: 0.25, samples: 3}
	if d := cmp.Diff(want, *f, cmp.AllowUnexported(clockFit{}), cmp.Comparer(func(a, b float64) bool { return a == b || (a-b)*(a-b) < 1e-30 })); d != "" {
		t.Errorf("fit (-want +got):\n%s", d)
	}
	mk.m.Regions = mk.m.Regions[1:]
	if _, err := fitClock(mk); err == nil || !strings.Contains(err.Error(), "no time outside") {
		t.Errorf("without the time outside the region: err = %v", err)
	}
}
