package validate

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfc/machines"
)

// hostTable loads the hand-written table of this host.
func hostTable(t *testing.T) *machines.Machine {
	t.Helper()
	m, err := machines.Load("testdata/host-baseline.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// caseKey is what a plan test compares of a case.
type caseKey struct {
	Kernel, Group, Level string
	Ranks                int64
}

func keys(cases []Case) []caseKey {
	var out []caseKey
	for _, c := range cases {
		out = append(out, caseKey{c.Kernel, c.Group, c.Level, c.Ranks})
	}
	return out
}

// TestPlanQuick checks the quick suite on the default kernels: the eight
// picks, with their groups, levels and rank counts, each predicted and
// within the run-time cap.
func TestPlanQuick(t *testing.T) {
	ks, err := DefaultKernels([]string{"triad", "pingpong"})
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Machine: hostTable(t), Model: ModelOptions(), Quick: true}
	cases, skips, err := Plan(ks, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := []caseKey{
		{"matmul", GroupHeldOut, "L2", 1},
		{"pingpong", GroupTuning, "L1", 2},
		{"stencil1d", GroupHeldOut, "L2", 2},
		{"triad", GroupTuning, "L1", 1},
		{"triad", GroupTuning, "memory", 1},
		{"ddot", GroupHeldOut, "L1", 4},
		{"dot", GroupHeldOut, "L2", 1},
		{"stencil2d", GroupHeldOut, "L1", 1},
	}
	if diff := cmp.Diff(want, keys(cases)); diff != "" {
		t.Errorf("quick cases (-want +got):\n%s", diff)
	}
	if len(skips) != 0 {
		t.Errorf("quick skips: %+v", skips)
	}
	for _, c := range cases {
		if c.pred == nil || c.checked == nil || c.pred.Total <= 0 || c.pred.Total > opts.withDefaults().MaxRun.Seconds() {
			t.Errorf("case %s: prediction %+v", c.Name, c.pred)
		}
	}
}

// TestPlanKernel checks the full plan of kernels of each shape: one rank
// (every level), a 1-D rank space (2 and 4 ranks), a grid (2×1, 2×2), a
// kernel whose repetitions must shrink, and one without arrays.
func TestPlanKernel(t *testing.T) {
	opts := Options{Machine: hostTable(t), Model: ModelOptions()}
	all, err := DefaultKernels(nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Kernel{}
	for _, k := range all {
		byName[k.Name] = k
	}
	tests := []struct {
		kernel string
		want   []string // case names
	}{
		{"triad", []string{"triad N=704", "triad N=23226", "triad N=743232", "triad N=5946036"}},
		{"pingpong", []string{"pingpong P=2 n=2048", "pingpong P=2 n=65536", "pingpong P=2 n=2097152", "pingpong P=2 n=16777216 reps=12",
			"pingpong P=4 n=2048", "pingpong P=4 n=65536", "pingpong P=4 n=2097152", "pingpong P=4 n=16777216 reps=12"}},
		{"synch1", []string{"synch1 P=2", "synch1 P=4"}},
	}
	for _, tt := range tests {
		cases, _, err := Plan([]Kernel{byName[tt.kernel]}, opts)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, c := range cases {
			names = append(names, c.Name)
		}
		if diff := cmp.Diff(tt.want, names); diff != "" {
			t.Errorf("%s: cases (-want +got):\n%s", tt.kernel, diff)
		}
	}
	// A kernel whose peers need 4 ranks: its 2 ranks are one skip, with
	// the analyzer's reason, rather than one at every size.
	quad := FileKernel("quad.spmd", []byte("kernel quad(n = 64) on P = 4 ranks {\n  array b[n]: f64\n  region \"across\" {\n    if rank < 2 {\n      send b to rank + 2\n    } else {\n      recv b from rank - 2\n    }\n  }\n}\n"), nil)
	cases, skips, err := Plan([]Kernel{quad}, opts)
	if err != nil {
		t.Fatal(err)
	}
	var two []Skip
	for _, sk := range skips {
		if sk.Ranks == 2 {
			two = append(two, sk)
		}
	}
	if len(two) != 1 || two[0].Level != "" ||
		!strings.Contains(two[0].Reason, "no setting of its rank parameters gives 2 ranks it runs on: quad.spmd:5:") ||
		!strings.Contains(two[0].Reason, "is 2 on rank 0") {
		t.Errorf("quad skips at P=2 %+v, want one naming the peer", two)
	}
	if len(cases) == 0 {
		t.Error("quad: no cases on 4 ranks")
	}
	for _, c := range cases {
		if c.Ranks != 4 {
			t.Errorf("quad case %s on %d ranks, want 4", c.Name, c.Ranks)
		}
	}
	cases, _, err = Plan([]Kernel{byName["halo2d"]}, opts)
	if err != nil {
		t.Fatal(err)
	}
	grids := map[string]int{}
	for _, c := range cases {
		grids[c.Params[0].Value+"x"+c.Params[1].Value]++
	}
	if diff := cmp.Diff(map[string]int{"2x1": 4, "2x2": 4}, grids); diff != "" {
		t.Errorf("halo2d grids (-want +got):\n%s", diff)
	}
}

// TestPlanFiles checks the quick plan of files (one case each, the
// smallest size at the fewest ranks) and that a kernel that does not
// check is a positioned error.
func TestPlanFiles(t *testing.T) {
	opts := Options{Machine: hostTable(t), Model: ModelOptions(), Quick: true}
	ks := []Kernel{
		FileKernel("dir/sum.spmd", []byte("kernel sum(n = 1000) {\n  array x[n]: f64\n  var s: f64 = 0\n  for i in 0..n {\n    s = s + x[i]\n  }\n}\n"), []string{"sum"}),
		FileKernel("ring.spmd", []byte("kernel ring(n = 64) on P = 8 ranks {\n  array b[n]: f64\n  sendrecv b to (rank+1)%P from (rank+P-1)%P into b\n}\n"), nil),
	}
	cases, _, err := Plan(ks, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := []caseKey{{"sum", GroupTuning, "L1", 1}, {"ring", GroupHeldOut, "L1", 2}}
	if diff := cmp.Diff(want, keys(cases)); diff != "" {
		t.Errorf("file cases (-want +got):\n%s", diff)
	}
	_, _, err = Plan([]Kernel{FileKernel("bad.spmd", []byte("kernel bad(n = 4) {\n  array x[n]: f64\n  x[0] = y\n}\n"), nil)}, opts)
	if err == nil || !strings.Contains(err.Error(), "bad.spmd:3:") {
		t.Errorf("a kernel that does not check: %v; want an error at bad.spmd:3", err)
	}
}
