package comms

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"perfc/codegen"
)

// needMPI skips a test where MPI is not installed: the MPI backend builds
// with pkg-config's ompi-c flags and launches with mpirun.
func needMPI(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("mpirun"); err != nil {
		t.Skip("MPI is not installed (no mpirun on PATH): apt-get install -y libopenmpi-dev openmpi-bin (README.md) to run the MPI tests")
	}
	if err := exec.Command("pkg-config", "--exists", "ompi-c").Run(); err != nil {
		t.Skip("MPI's development files are not installed (pkg-config ompi-c fails): apt-get install -y libopenmpi-dev (README.md) to run the MPI tests")
	}
}

// TestRunMPI runs the tiny benchmarks through MPI end to end: every
// benchmark measured by MPI processes on 2 and 4 ranks (oversubscribed on
// a 2-core host), fitted, and written as sections that load and say MPI.
func TestRunMPI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and launches two MPI programs")
	}
	needMPI(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	r, err := Run(ctx, Options{Tiny: true, CacheDir: t.TempDir(), Launch: codegen.Launch{Backend: codegen.BackendMPI}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tiny mode through MPI: %v", time.Since(start).Round(time.Millisecond))
	tr := r.Transport()
	if !tr.MPI() || !strings.HasPrefix(tr.Library, "Open MPI ") && !strings.HasPrefix(tr.Library, "MPICH") {
		t.Errorf("transport %+v: want MPI with its library", tr)
	}
	for _, p := range []int{2, 4} {
		if l := tr.Launchers[p]; !strings.Contains(l, fmt.Sprintf(" %d", p)) {
			t.Errorf("the launch of %d ranks was %q; want its rank count", p, l)
		}
	}
	m, body := tableOf(t, r)
	if testing.Verbose() {
		t.Log(body)
	}
	if m.Messages("") == nil {
		t.Fatalf("no message law:\n%s", body)
	}
	for _, kind := range CollectiveKinds() {
		if _, ok := m.Collective(kind, "", ""); !ok {
			t.Errorf("no %s entry:\n%s", kind, body)
		}
	}
	if src := m.Messages("").Source(); !strings.Contains(src, "perfc calibrate --mpi COMMS1 pingpong through MPI (") {
		t.Errorf("the message law's source %q does not say MPI", src)
	}
}
