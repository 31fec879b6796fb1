package costmodel

import (
	"os"
	"strings"
	"testing"

	"perfc/machines"
)

// TestCollectiveAfterBarrier checks that a collective right after a
// barrier costs its entry's after_barrier: time and any other its time:
// (analyze.AfterBarrier), in the sum of a rank's terms and in the
// emulation alike: with bcast at 1 µs and 3 µs after a barrier, each call
// after the barrier costs 2 µs more than with time: alone, and the others
// nothing more.
func TestCollectiveAfterBarrier(t *testing.T) {
	base, err := os.ReadFile("testdata/cores.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const coll = "collectives:\n  source: test\n  entries:\n" +
		"    - {kind: barrier, time: 0.5us}\n" +
		"    - {kind: bcast, time: 1us%s}\n"
	plain := string(base) + strings.Replace(coll, "%s", "", 1)
	after := string(base) + strings.Replace(coll, "%s", ", after_barrier: 3us", 1)
	for _, tt := range []struct {
		name, body string
		emulated   bool
		units      []float64 // the bcast terms' unit costs with after_barrier:
	}{
		{"the rank's terms: after a barrier, then not",
			"barrier\n    bcast x from 0\n    bcast x from 0\n", false, []float64{3e-6, 1e-6}},
		{"the rank's terms: no barrier",
			"bcast x from 0\n    bcast x from 0\n", false, []float64{1e-6, 1e-6}},
		{"the emulation: after a barrier, then not",
			"barrier\n    bcast x from 0\n    bcast x from 0\n    exchange y with rank ^ 1\n", true, []float64{3e-6, 1e-6}},
		{"the emulation: once after a barrier",
			"barrier\n    bcast x from 0\n    exchange y with rank ^ 1\n", true, []float64{3e-6}},
		{"the emulation: no barrier",
			"bcast x from 0\n    exchange y with rank ^ 1\n    bcast x from 0\n", true, []float64{1e-6, 1e-6}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := "kernel k() on P = 2 ranks {\n  array x[16], y[16]: f64\n  region \"r\" {\n    " + tt.body + "  }\n}\n"
			k := checkSource(t, "k.spmd", src)
			var total [2]float64
			for i, table := range []string{plain, after} {
				m, err := machines.Parse("cores.yaml", []byte(table))
				if err != nil {
					t.Fatal(err)
				}
				pred := predictCached(t, k, m, Options{})
				if (pred.Emulation != nil) != tt.emulated {
					t.Fatalf("emulated: %v, want %v", pred.Emulation != nil, tt.emulated)
				}
				total[i] = pred.Total
				if i == 0 {
					continue
				}
				var units []float64
				for _, r := range pred.Regions {
					for _, term := range r.Terms {
						if strings.HasPrefix(term.What, "bcast") {
							units = append(units, term.UnitCost)
						}
					}
				}
				if len(units) != len(tt.units) {
					t.Fatalf("bcast terms cost %v s a call, want %v", units, tt.units)
				}
				for j := range units {
					if !sameTime(units[j], tt.units[j]) {
						t.Errorf("bcast terms cost %v s a call, want %v", units, tt.units)
						break
					}
				}
			}
			more := 0.0
			for _, u := range tt.units {
				more += u - 1e-6
			}
			if d := total[1] - total[0]; !sameTime(d, more) && !(more == 0 && d == 0) {
				t.Errorf("total %g s with after_barrier:, %g s without: %g s apart, want %g", total[1], total[0], d, more)
			}
		})
	}
}
