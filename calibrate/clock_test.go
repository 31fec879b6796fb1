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

// TestOutsideSlowMoments: a region's samples taken while a neighbour
// slowed the core (more than 1.5 × the fastest) are set aside; a region
// without samples, or with one that is not a positive time, keeps its
// timing.
func TestOutsideSlowMoments(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   spmd.Timing
		want spmd.Timing
	}{
		{"steady: as measured",
			spmd.Timing{Name: "r", MinUs: 10, MedianUs: 11, MaxUs: 12, SamplesUs: []float64{12, 10, 11}},
			spmd.Timing{Name: "r", MinUs: 10, MedianUs: 11, MaxUs: 12}},
		{"two of five in a slow moment",
			spmd.Timing{Name: "r", MinUs: 10, MedianUs: 11, MaxUs: 19, SamplesUs: []float64{19, 10, 18.5, 11, 10.5}},
			spmd.Timing{Name: "r", MinUs: 10, MedianUs: 10.5, MaxUs: 11}},
		{"no samples",
			spmd.Timing{Name: "r", MinUs: 10, MedianUs: 11, MaxUs: 12},
			spmd.Timing{Name: "r", MinUs: 10, MedianUs: 11, MaxUs: 12}},
		{"a zero sample",
			spmd.Timing{Name: "r", MinUs: 0, MedianUs: 11, MaxUs: 12, SamplesUs: []float64{0, 11, 12}},
			spmd.Timing{Name: "r", MinUs: 0, MedianUs: 11, MaxUs: 12, SamplesUs: []float64{0, 11, 12}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, outsideSlowMoments(tc.in)); diff != "" {
				t.Errorf("outsideSlowMoments (-want +got):\n%s", diff)
			}
		})
	}
}
