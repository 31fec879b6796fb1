package validate

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfc/codegen"
	"perfc/costmodel"
)

// TestPlanMPI: through MPI the plan keeps the communicating cases only
// (the quick suite's three that send, exchange or reduce), and a file's
// quick case is its fewest ranks that can communicate, not one rank.
func TestPlanMPI(t *testing.T) {
	mpi := codegen.Launch{Backend: codegen.BackendMPI}
	ks, err := DefaultKernels([]string{"pingpong"})
	if err != nil {
		t.Fatal(err)
	}
	cases, skips, err := Plan(ks, Options{Machine: hostTable(t), Model: ModelOptions(), Quick: true, Launch: mpi})
	if err != nil {
		t.Fatal(err)
	}
	want := []caseKey{
		{"pingpong", GroupTuning, "L1", 2},
		{"stencil1d", GroupHeldOut, "L2", 2},
		{"ddot", GroupHeldOut, "L1", 4},
	}
	if diff := cmp.Diff(want, keys(cases)); diff != "" {
		t.Errorf("quick MPI cases (-want +got):\n%s", diff)
	}
	if len(skips) != 0 {
		t.Errorf("quick MPI skips: %+v", skips)
	}
	files := []Kernel{
		FileKernel("sum.spmd", []byte("kernel sum(n = 1000) {\n  array x[n]: f64\n  var s: f64 = 0\n  for i in 0..n {\n    s = s + x[i]\n  }\n}\n"), nil),
		FileKernel("ring.spmd", []byte("kernel ring(n = 64) on P = 8 ranks {\n  array b[n]: f64\n  sendrecv b to (rank+1)%P from (rank+P-1)%P into b\n}\n"), nil),
		FileKernel("apart.spmd", []byte("kernel apart(n = 64) on P = 4 ranks {\n  array b[n]: f64\n  for i in 0..n { b[i] = 2.0 * b[i] }\n}\n"), nil),
	}
	cases, _, err = Plan(files, Options{Machine: hostTable(t), Model: ModelOptions(), Quick: true, Launch: mpi})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]caseKey{{"ring", GroupHeldOut, "L1", 2}}, keys(cases)); diff != "" {
		t.Errorf("quick MPI file cases (-want +got):\n%s", diff)
	}
	full, _, err := Plan(ks, Options{Machine: hostTable(t), Model: ModelOptions(), Launch: mpi})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range full {
		if c.Ranks < 2 || !communicates(c.pred) {
			t.Errorf("MPI case %s on %d ranks does not communicate", c.Name, c.Ranks)
		}
	}
	if len(full) < 10 {
		t.Errorf("the full MPI suite has %d cases; want every communicating kernel's", len(full))
	}
}

func TestCommunicates(t *testing.T) {
	pred := func(resources ...string) *costmodel.Prediction {
		var r costmodel.RegionPrediction
		for _, res := range resources {
			r.Terms = append(r.Terms, costmodel.Term{Resource: res})
		}
		return &costmodel.Prediction{Regions: []costmodel.RegionPrediction{r}}
	}
	for _, c := range []struct {
		p    *costmodel.Prediction
		want bool
	}{
		{nil, false},
		{pred(), false},
		{pred("compute", "memory"), false},
		{pred("compute", "message"), true},
		{pred("collective"), true},
		{pred("barrier"), true},
		{pred("cores", "memory"), false},
	} {
		if got := communicates(c.p); got != c.want {
			t.Errorf("communicates(%+v) = %t, want %t", c.p, got, c.want)
		}
	}
}
