package examples_test

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfc/analyze"
	"perfc/examples"
	"perfc/lang"
	"perfc/parser"
)

// TestProcsCountLikeInlined counts both kernels of procs.spmd, whose halo
// exchange is a proc, and of testdata/procs_inlined.spmd, where every call
// is written out by hand, and requires the same counts JSON once the
// source positions (which differ: a proc's statements are at its
// definition) are left out. smooth calls halo twice per iteration, so its
// region "halo exchange" accumulates both calls.
func TestProcsCountLikeInlined(t *testing.T) {
	withProcs, err := examples.Source("procs")
	if err != nil {
		t.Fatal(err)
	}
	inlined, err := os.ReadFile("testdata/procs_inlined.spmd")
	if err != nil {
		t.Fatal(err)
	}
	for _, kernel := range []string{"jacobi", "smooth"} {
		for _, ovs := range [][]lang.Override{
			{{Name: "nx", Value: "16"}, {Name: "ny", Value: "16"}, {Name: "iters", Value: "3"}},
			{{Name: "nx", Value: "24"}, {Name: "ny", Value: "40"}, {Name: "Px", Value: "3"}},
		} {
			got := countsJSON(t, "procs.spmd", withProcs, kernel, ovs)
			want := countsJSON(t, "procs_inlined.spmd", inlined, kernel, ovs)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("kernel %s %v: counts with procs differ from the inlined kernel (-inlined +procs):\n%s", kernel, ovs, diff)
			}
		}
	}
}

// countsJSON counts one kernel and returns its report as JSON values with
// every position (pos, stmt, loop), the per-loop list and the file name removed and every list sorted, so that
// two kernels that do the same work at different places compare equal.
func countsJSON(t *testing.T, name string, src []byte, kernel string, ovs []lang.Override) any {
	t.Helper()
	f, err := parser.ParseFile(name, src)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	k, err := lang.Check(f, kernel, ovs)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	rep, err := analyze.Analyze(k, analyze.Options{})
	if err != nil {
		t.Fatalf("%s: count: %v", name, err)
	}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return withoutPlaces(v)
}

// withoutPlaces drops the keys that name a place in a file and sorts
// every list by its elements' JSON.
func withoutPlaces(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			// loops lists the counts per loop by its place: a procedure's
			// loop called from two places is one entry, the inlined copies two.
			if k == "pos" || k == "file" || k == "stmt" || k == "loops" || k == "loop" {
				continue
			}
			out[k] = withoutPlaces(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = withoutPlaces(x)
		}
		slices.SortFunc(out, func(a, b any) int {
			ka, _ := json.Marshal(a)
			kb, _ := json.Marshal(b)
			return slices.Compare(ka, kb)
		})
		return out
	}
	return v
}
