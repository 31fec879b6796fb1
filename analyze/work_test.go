package analyze

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfc/lang"
)

// TestWorkOpKindsAreCounted checks that the operation kinds a work item
// may name are the analyzer's, in its order, and flop.
func TestWorkOpKindsAreCounted(t *testing.T) {
	var want []string
	for _, k := range OpKinds() {
		want = append(want, k.String())
	}
	want = append(want, lang.WorkFlop)
	if diff := cmp.Diff(want, lang.WorkOpKinds()); diff != "" {
		t.Errorf("lang.WorkOpKinds differs from analyze.OpKinds and flop (-want +got):\n%s", diff)
	}
}

// TestWorkCountsItsOperations checks that `work COUNT KIND TYPE` counts
// exactly COUNT operations of that kind and type (flop as add) and nothing
// else, for every kind in every type it allows, alone (the operations in
// loops of their own) and beside a load of its type (the operations in
// the loops of the stream, on the values it loads), with counts below,
// at and above the eight accumulators and the host loop's capacity.
func TestWorkCountsItsOperations(t *testing.T) {
	types := []string{"f64", "f32", "i64", "i32"}
	for _, kind := range lang.WorkOpKinds() {
		for _, typ := range types {
			float := typ == "f64" || typ == "f32"
			if (kind == "rem" || kind == "bit") && float || (slices.Contains([]string{"sqrt", "exp", "log", "sin", "cos", "flop"}, kind) && !float) {
				continue
			}
			for _, n := range []int64{0, 3, 8, 29, 200} {
				for _, load := range []string{"", ", load 40 bytes from a"} {
					src := fmt.Sprintf("kernel k() {\n  array a[5]: %s\n  array b[10]: %s\n  work %d %s %s%s\n}\n", typ, typ, n, kind, typ, load)
					k := loadKernel(t, "k.spmd", []byte(src), nil)
					rep, err := Analyze(k, Options{})
					if err != nil {
						t.Fatalf("%s: %v", src, err)
					}
					want := map[string]string{}
					if n > 0 {
						counted := kind
						if kind == lang.WorkFlop {
							counted = "add"
						}
						want[counted+" "+typ] = fmt.Sprint(n)
					}
					got := map[string]string{}
					for _, op := range rep.Classes[0].Total.Ops {
						got[fmt.Sprintf("%s %s", op.Op, op.Type)] = op.Count.Exact()
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("%s(-want +got):\n%s", src, diff)
					}
					loads := "0"
					if load != "" {
						loads = fmt.Sprint(40 / lang.ElemTypeNamed(typ).Size())
					}
					if got := rep.Classes[0].Total.Loads.Exact(); got != loads {
						t.Errorf("%sloads %s, want %s", src, got, loads)
					}
				}
			}
		}
	}
}

// TestWorkCountsHaveNoFormulas checks that a kernel with work statements
// reports values without closed forms (its nests are built for the given
// parameters) and says so, while the same kernel without them keeps its
// formulas.
func TestWorkCountsHaveNoFormulas(t *testing.T) {
	const loops = "kernel k(N = 8) {\n  array a[N]: f64\n  for i in 0..N {\n    a[i] = a[i] * 2.0\n  }\n%s}\n"
	for _, tt := range []struct {
		work     string
		symbolic bool
	}{
		{"", true},
		{"  work 2*N mul f64, load 8*N bytes from a\n", false},
	} {
		k := loadKernel(t, "k.spmd", []byte(fmt.Sprintf(loops, tt.work)), nil)
		rep, err := Analyze(k, Options{})
		if err != nil {
			t.Fatal(err)
		}
		total := rep.Classes[0].Total
		for name, c := range map[string]Count{"flop": total.Flop, "loads": total.Loads, "iterations": total.Iterations,
			"ops": total.Ops[0].Count, "ref": total.Refs[0].Count} {
			if c.Symbolic != tt.symbolic {
				t.Errorf("work %q: %s symbolic %v, want %v", tt.work, name, c.Symbolic, tt.symbolic)
			}
		}
		if noted := slices.Contains(rep.Notes, workNote); noted == tt.symbolic {
			t.Errorf("work %q: noted %v; notes %q", tt.work, noted, rep.Notes)
		}
	}
}

// TestWorkLoopsAreNamedApart checks that the loops of a work statement's
// nest, which all carry the item's position, are counted as distinct
// loops (the first FILE:LINE:COL, the next FILE:LINE:COL#2, …), each with
// its own iterations, so that pricing can match each to its machine loop.
// Here both arrays' first sweeps share one nest of two loops (4 × 8, at
// the first item's position) and a's second sweep runs in a nest of its
// own at the same position.
func TestWorkLoopsAreNamedApart(t *testing.T) {
	src := "kernel k() {\n  array a[4][8], b[4][8]: f64\n  work load 512 bytes from a, store 256 bytes to b\n}\n"
	rep, err := Analyze(loadKernel(t, "k.spmd", []byte(src), nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, l := range rep.Classes[0].Total.Loops {
		got[l.Stmt] = l.Iterations.Exact() + " iterations, " + l.Entries.Exact() + " entries"
	}
	want := map[string]string{
		"k.spmd:3:8":   "4 iterations, 1 entries",
		"k.spmd:3:8#2": "32 iterations, 4 entries",
		"k.spmd:3:8#3": "4 iterations, 1 entries",
		"k.spmd:3:8#4": "32 iterations, 4 entries",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("loops (-want +got):\n%s", diff)
	}
}
