package analyze

import (
	"os"
	"testing"
)

func TestZZDebug(t *testing.T) {
	for _, f := range []string{"triangular"} {
		src, _ := os.ReadFile("testdata/oracle/" + f + ".spmd")
		k := loadKernel(t, f, src, nil)
		rep, err := Analyze(k, Options{Rank: AllRanks})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d classes, notes %q", f, len(rep.Classes), rep.Notes)
		for _, cl := range rep.Classes {
			for _, r := range cl.Total.Refs {
				if r.Hoisted != "" {
					t.Logf("  %s %s hoisted %s count %s", r.Pos, r.Text, r.Hoisted, r.Count.Exact())
				}
			}
			t.Logf("  class %s: iterations %s formula %v sym %v", cl.Ranks, cl.Total.Iterations.Exact(), cl.Total.Iterations.Formula, cl.Total.Iterations.Symbolic)
		}
	}
}
