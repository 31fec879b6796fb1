package analyze

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAfterBarrier checks which collectives run right after a barrier:
// through regions, around a loop's body, and not after another
// collective, work, an if or a message. The collectives are named by
// their line in the kernel.
func TestAfterBarrier(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		want       map[int]bool // line of a collective: after a barrier
	}{
		{"a barrier, then a call (the IMH benchmarks')",
			"barrier\n  bcast x from 0\n  bcast x from 0", map[int]bool{4: true, 5: false}},
		{"the first statement: not", "bcast x from 0", map[int]bool{3: false}},
		{"after work: not",
			"barrier\n  x[0] = 1.0\n  allreduce sum x", map[int]bool{5: false}},
		{"regions are transparent",
			"region \"a\" {\n    barrier\n  }\n  region \"b\" {\n    allreduce max x\n  }", map[int]bool{7: true}},
		{"an empty region and a let between",
			"barrier\n  region \"e\" {\n  }\n  let two = 2\n  scan sum x", map[int]bool{7: true}},
		{"a loop of a call: not",
			"barrier\n  repeat 10 {\n    allreduce sum x\n  }", map[int]bool{5: false}},
		{"a loop that ends in a barrier: its first call is after it",
			"repeat 10 {\n    region \"r\" {\n      bcast x from 0\n    }\n    barrier\n  }", map[int]bool{5: true}},
		{"a barrier first in the loop",
			"repeat 10 {\n    barrier\n    region \"r\" {\n      scatter x from 0\n    }\n  }", map[int]bool{6: true}},
		{"after a loop that ends in a barrier",
			"for i in 0..4 {\n    x[i] = 1.0\n    barrier\n  }\n  gather x to 0", map[int]bool{7: true}},
		{"after an if: not",
			"barrier\n  if P == 2 {\n    bcast x from 0\n  }\n  bcast x from 0", map[int]bool{5: false, 7: false}},
		{"after a message: not",
			"barrier\n  exchange x with rank ^ 1\n  allgather x", map[int]bool{5: false}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := "kernel k() on P = 2 ranks {\n  array x[4]: f64\n  " + tt.body + "\n}\n"
			k := cursorKernel(t, "k.spmd", src)
			got := map[int]bool{}
			for s, after := range AfterBarrier(k.Kernel.Body) {
				got[k.File.Source.Position(s.Pos()).Line] = after
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("AfterBarrier (line: after a barrier) -want +got:\n%s\nkernel:\n%s", d, src)
			}
		})
	}
}

// TestAfterBarrierInCounts checks that the counts carry the
// classification.
func TestAfterBarrierInCounts(t *testing.T) {
	src := "kernel k() on P = 2 ranks {\n  array x[4]: f64\n  barrier\n  bcast x from 0\n  bcast x from 0\n}\n"
	k := cursorKernel(t, "k.spmd", src)
	rep, err := Analyze(k, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range rep.Classes[0].Total.Collectives {
		got = append(got, fmt.Sprintf("%s %s after_barrier=%v", c.Kind, c.Stmt, c.AfterBarrier))
	}
	want := []string{"bcast k.spmd:4:3 after_barrier=true", "bcast k.spmd:5:3 after_barrier=false"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("collectives -want +got:\n%s", d)
	}
}
