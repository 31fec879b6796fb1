package validate

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"perfc/codegen"
)

// TestRunMPI validates one communicating case through MPI end to end:
// planned, built as an MPI program, launched by mpirun on its 2 ranks,
// measured and compared; the case says how it was launched. It skips
// where MPI is not installed.
func TestRunMPI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and launches an MPI program")
	}
	if _, err := exec.LookPath("mpirun"); err != nil {
		t.Skip("MPI is not installed (no mpirun on PATH): apt-get install -y libopenmpi-dev openmpi-bin (README.md) to run the MPI tests")
	}
	if err := exec.Command("pkg-config", "--exists", "ompi-c").Run(); err != nil {
		t.Skip("MPI's development files are not installed (pkg-config ompi-c fails): apt-get install -y libopenmpi-dev (README.md) to run the MPI tests")
	}
	opts := Options{Machine: hostTable(t), Model: ModelOptions(), Quick: true, Samples: 2, CaseTime: 200 * time.Millisecond,
		CacheDir: t.TempDir(), Launch: codegen.Launch{Backend: codegen.BackendMPI}}
	ring := FileKernel("ring.spmd", []byte("kernel ring(n = 64) on P = 8 ranks {\n  array b[n]: f64\n  region \"shift\" {\n    sendrecv b to (rank+1)%P from (rank+P-1)%P into b\n  }\n}\n"), nil)
	cases, _, err := Plan([]Kernel{ring}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 1 || cases[0].Ranks != 2 {
		t.Fatalf("planned %+v; want ring on 2 ranks", keys(cases))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := Run(ctx, cases, opts); err != nil {
		t.Fatal(err)
	}
	c := cases[0]
	if c.Failure != "" {
		t.Fatalf("the case failed: %s", c.Failure)
	}
	if !strings.HasPrefix(c.Launch, "mpirun ") || !strings.Contains(c.Launch, "-n 2") {
		t.Errorf("launch %q; want mpirun with -n 2", c.Launch)
	}
	if c.Total == nil || !(c.Total.Measured > 0) || len(c.Regions) == 0 {
		t.Errorf("no measurement: total %+v, regions %+v", c.Total, c.Regions)
	}
	rep := NewReport(cases, nil, opts)
	if rep.Backend != "mpi" {
		t.Errorf("report backend %q, want mpi", rep.Backend)
	}
}
