package codegen

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"perfc/analyze"
)

// needMPI skips a test where Open MPI is not installed, saying how to
// install it; CI installs it (.ci/run), so there the tests run.
func needMPI(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs programs under mpirun")
	}
	if _, err := goTool(); err != nil {
		t.Skip(err)
	}
	if _, err := exec.LookPath("mpirun"); err != nil {
		t.Skip("Open MPI is not installed (no mpirun on PATH): " + InstallMPI)
	}
	if _, err := systemTools().cgoLines(); err != nil {
		t.Skip(err)
	}
}

// TestMPIPingpong runs the pingpong under mpirun -n 2: timed, with every
// rank's times in the JSON, and counted, with the analyzer's counts and
// the goroutine backend's checksum.
func TestMPIPingpong(t *testing.T) {
	needMPI(t)
	k := checkExample(t, "pingpong", "n=16,reps=3")
	p, err := Generate(k, Options{Backend: BackendMPI})
	if err != nil {
		t.Fatal(err)
	}
	if p.Ranks != 2 || p.File("spmd_mpi_cgo.go") == nil || p.File("spmd_world.go") != nil {
		t.Fatalf("the MPI program has %d ranks and files %v", p.Ranks, p.Files)
	}
	dir, err := p.Prepare(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	l := Launch{Backend: BackendMPI} // Ranks 0: the kernel's, asked of the program
	bin, err := Build(ctx, dir, false)
	if err != nil {
		t.Fatal(err)
	}
	m, err := MeasureWith(ctx, l, bin, "-reps", "2", "-samples", "3")
	if err != nil {
		t.Fatal(err)
	}
	if m.Backend != "mpi" || m.Ranks != 2 || len(m.PerRank) != 2 || len(m.PerRank[1].Regions) != len(m.Regions) || m.Total.MedianUs <= 0 {
		t.Errorf("measurement: backend %q, %d ranks, per rank %+v, total %+v", m.Backend, m.Ranks, m.PerRank, m.Total)
	}
	cbin, err := Build(ctx, dir, true)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := CountWith(ctx, l, cbin)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := analyze.Analyze(k, analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := CompareCounts(p, ex, rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range c.Diffs {
		t.Errorf("rank %d, region %q, %s: analyzer %s, executed %d", d.Rank, d.Region, d.Count, d.Analyzer, d.Executed)
	}
	if c.Compared == 0 || c.Ranks != 2 {
		t.Errorf("%d counts of %d ranks compared", c.Compared, c.Ranks)
	}
	// The goroutine backend computes the same data.
	gp, err := Generate(k, Options{})
	if err != nil {
		t.Fatal(err)
	}
	gdir, err := gp.Prepare(filepath.Dir(dir))
	if err != nil {
		t.Fatal(err)
	}
	gbin, err := Build(ctx, gdir, true)
	if err != nil {
		t.Fatal(err)
	}
	gex, err := Count(ctx, gbin)
	if err != nil {
		t.Fatal(err)
	}
	if gex.Checksum != ex.Checksum {
		t.Errorf("checksum %s under MPI, %s with goroutines", ex.Checksum, gex.Checksum)
	}
}
