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
// emulation alike: with bcast at 1 µs and 3 µs after a barrier, `barrier;
// bcast; bcast` costs 2 µs more than with time: alone, the first call
// after the barrier and the second not.
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
		name, extra string
		emulated    bool
	}{
		{"collectives alone: the rank's terms", "", false},
		{"with a message: the emulation", "    exchange y with rank ^ 1\n", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := "kernel k() on P = 2 ranks {\n  array x[16], y[16]: f64\n  region \"r\" {\n" +
				"    barrier\n    bcast x from 0\n    bcast x from 0\n" + tt.extra + "  }\n}\n"
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
				if len(units) != 2 || !sameTime(units[0], 3e-6) || !sameTime(units[1], 1e-6) {
					t.Errorf("bcast terms cost %v s a call, want [3e-06 1e-06] (after the barrier, then not)", units)
				}
			}
			if !sameTime(total[1]-total[0], 2e-6) {
				t.Errorf("total %g s with after_barrier:, %g s without: %g s apart, want 2e-06", total[1], total[0], total[1]-total[0])
			}
		})
	}
}
