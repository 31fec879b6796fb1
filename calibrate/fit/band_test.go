package fit

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFastBand(t *testing.T) {
	for _, tc := range []struct {
		name    string
		samples []float64
		want    Band
	}{
		{"none", nil, Band{}},
		{"one", []float64{3}, Band{Min: 3, Median: 3, Max: 3, N: 1}},
		{"all within: the plain median", []float64{1.2, 1, 1.1}, Band{Min: 1, Median: 1.1, Max: 1.2, N: 3}},
		{"a slow moment set aside", []float64{1.9, 1, 1.1, 2, 1.05}, Band{Min: 1, Median: 1.05, Max: 1.1, N: 3}},
		{"mostly slow: the fast ones", []float64{1.9, 2, 1, 1.95, 1.1, 2.1}, Band{Min: 1, Median: 1.05, Max: 1.1, N: 2}},
		{"at the edge: kept", []float64{1, 1.5, 1.6}, Band{Min: 1, Median: 1.25, Max: 1.5, N: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := append([]float64(nil), tc.samples...)
			if diff := cmp.Diff(tc.want, FastBand(tc.samples, 1.5)); diff != "" {
				t.Errorf("FastBand (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(in, tc.samples); diff != "" {
				t.Errorf("FastBand changed its samples (-before +after):\n%s", diff)
			}
		})
	}
}
