package codegen

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"perfc/analyze"
	"perfc/examples"
	"perfc/lang"
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

// mpiParams are every example's small parameters for two rank counts,
// 2 and 4 where the kernel allows (cannon's grid is square: 1 and 4; a
// kernel without `on` has one rank and runs as one MPI process).
var mpiParams = map[string][]string{
	"broadcast":         {"m=1024,root=1,P=2", "m=1024,root=3,P=4"},
	"cannon":            {"N=16,Px=1", "N=16,Px=2"},
	"comms2":            {"n=16,reps=3,P=2", "n=16,reps=3,P=4"},
	"comms3":            {"n=16,reps=2,P=2", "n=16,reps=2,P=4"},
	"concat":            {"l=64,P=2", "l=64,P=4"},
	"gauss":             {"N=16,P=2", "N=16,P=4"},
	"halo2d":            {"nx=8,ny=8,iters=2,Px=2,Py=1", "nx=8,ny=8,iters=2,Px=2,Py=2"},
	"hypercube":         {"n=16,P=2", "n=16,P=4"},
	"halo2d_columns":    {"nx=8,ny=8,iters=2,Px=2,Py=1", "nx=8,ny=8,iters=2,Px=2,Py=2"},
	"jacobi_blocking":   {"nx=8,ny=6,iters=2,Px=2,Py=1", "nx=8,ny=6,iters=2,Px=2,Py=2"},
	"jacobi_overlap":    {"nx=8,ny=6,iters=2,Px=2,Py=1", "nx=8,ny=6,iters=2,Px=2,Py=2"},
	"matmul":            {"N=8"},
	"matmul_transposed": {"N=8"},
	"meshshift":         {"size=64,Px=2,Py=1", "size=64,Px=2,Py=2"},
	"permutation":       {"m=64,P=2", "m=64,P=4"},
	"pingpong":          {"n=16,reps=3,P=2", "n=16,reps=3,P=4"},
	"pipeline":          {"m=32,b=3,P=2", "m=32,b=3,P=4"},
	"poly1":             {"n=32,k=3,reps=2"},
	"poly2":             {"n=32,k=3"},
	"poly3":             {"n=32,k=3,reps=2,P=2", "n=32,k=3,reps=2,P=4"},
	"reductions":        {"reps=2,P=2", "reps=2,P=4"},
	"rinf1":             {"n=32,reps=3"},
	"procs":             {"nx=8,ny=8,iters=2,Px=2,Py=1", "nx=8,ny=8,iters=2,Px=2,Py=2"},
	"ring":              {"n=32,P=2", "n=32,P=4"},
	"scatter":           {"m=64,P=2,root=1", "m=64,P=4,root=2"},
	"stencil1d":         {"n=32,iters=3,P=2", "n=32,iters=3,P=4"},
	"stride":            {"N=32,S=3"},
	"sweep3d":           {"it=4,jt=4,kt=8,mk=4,mm=4,mmi=2,Px=2,Py=1", "it=4,jt=4,kt=8,mk=4,mm=4,mmi=2,Px=2,Py=2"},
	"sweep3d_abstract":  {"it=4,jt=4,kt=8,mk=4,mm=4,mmi=2,Px=2,Py=1", "it=4,jt=4,kt=8,mk=4,mm=4,mmi=2,Px=2,Py=2"},
	"synch1":            {"reps=3,P=2", "reps=3,P=4"},
	"triad":             {"N=100"},
	"wave":              {"sweeps=2,cells=8,Px=2,Py=1", "sweeps=2,cells=8,Px=2,Py=2"},
}

// mpiFailing are kernels whose MPI programs must stop with a clear
// error: the statements and ranks named, never a hang.
var mpiFailing = []struct {
	name, src string
	args      []string
	want      []string
}{
	{"deadlock", `kernel deadlock(n = 4) on P = 2 ranks {
  array a[n]: f64
  recv a[0:n] from 1 - rank
}
`, []string{"-stall", "1s"}, []string{"deadlock or stall", "rank 0 has waited", "rank 1 has waited", "to receive from rank 1 (deadlock.spmd:3:3)", "raise the program's -stall"}},
	{"mismatch", `kernel mismatch(n = 4) on P = 2 ranks {
  array a[n]: f64
  if rank == 0 {
    send a[0:n] to 1
  } else {
    recv a[0:2] from 0
  }
}
`, nil, []string{"error: rank 0 sends more than 16 B to rank 1 (mismatch.spmd:4:5), but rank 1 receives 16 B (mismatch.spmd:6:5)"}},
}

// mpiRun is one program of TestMPIExamples.
type mpiRun struct {
	name string
	k    *lang.Checked
	p    *Program // the MPI program
	g    *Program // the same kernel for goroutines, or nil
}

// writeModuleProgram writes p into root/dir without its go.mod, so that
// one go build builds every program of the module.
func writeModuleProgram(t *testing.T, root, dir string, p *Program) {
	t.Helper()
	if err := p.WriteDir(filepath.Join(root, dir)); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, dir, "go.mod")); err != nil {
		t.Fatal(err)
	}
}

// TestMPIExamples generates every example for the MPI backend at two rank
// counts, and for goroutines at the same parameters, builds their counting
// programs in one module (one go build for all), runs each MPI program
// under mpirun (4 ranks oversubscribe 2 cores) and compares what every
// rank executed with analyze.Analyze and with the goroutine program
// (counts and checksum: the same data). Two programs are also timed
// (the counting build's timing harness is the timed build's), and the
// failing kernels must stop with their messages.
func TestMPIExamples(t *testing.T) {
	needMPI(t)
	names := examples.Names()
	if len(names) != len(mpiParams) {
		t.Errorf("mpiParams has %d examples, the examples package %d: give every example its MPI parameters", len(mpiParams), len(names))
	}
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module perfckernels\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var runs []mpiRun
	for _, name := range names {
		for i, spec := range mpiParams[name] {
			k := checkExample(t, name, spec)
			p, err := Generate(k, Options{Backend: BackendMPI})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			g, err := Generate(k, Options{})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			dir := fmt.Sprintf("%s_%d", name, p.Ranks)
			writeModuleProgram(t, root, dir, p)
			if i == len(mpiParams[name])-1 {
				// One twin per example keeps the builds few.
				writeModuleProgram(t, root, dir+"_goroutines", g)
			} else {
				g = nil
			}
			runs = append(runs, mpiRun{dir, k, p, g})
		}
	}
	// The test kernels of non-blocking messages, at their own ranks.
	for _, name := range []string{"requests", "overlap_nonblocking"} {
		src, err := os.ReadFile(filepath.Join("testdata", "kernels", name+".spmd"))
		if err != nil {
			t.Fatal(err)
		}
		k := checkSource(t, name+".spmd", src, "")
		p, err := Generate(k, Options{Backend: BackendMPI})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		g, err := Generate(k, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		dir := fmt.Sprintf("test_%s_%d", name, p.Ranks)
		writeModuleProgram(t, root, dir, p)
		writeModuleProgram(t, root, dir+"_goroutines", g)
		runs = append(runs, mpiRun{dir, k, p, g})
	}
	for _, f := range mpiFailing {
		p, err := Generate(checkSource(t, f.name+".spmd", []byte(f.src), ""), Options{Backend: BackendMPI})
		if err != nil {
			t.Fatal(err)
		}
		writeModuleProgram(t, root, "failing_"+f.name, p)
	}
	bin := filepath.Join(root, "bin")
	start := time.Now()
	// -ldflags=-w: no DWARF, which shortens the link of every program (stack
	// traces keep their function names and lines).
	goCommand(t, root, "build", "-tags", "perfc_count", "-ldflags=-w", "-o", bin+string(filepath.Separator), "./...")
	t.Logf("built the programs in %v", time.Since(start).Round(time.Millisecond))
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) { checkMPIRun(t, r, filepath.Join(bin, r.name)) })
	}
	for _, name := range []string{"pingpong_2", "halo2d_4"} {
		t.Run("timed_"+name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			// Ranks 0: the kernel's, asked of the program.
			m, err := MeasureWith(ctx, Launch{Backend: BackendMPI}, filepath.Join(bin, name), "-reps", "2", "-samples", "3")
			if err != nil {
				t.Fatal(err)
			}
			if m.Backend != "mpi" || len(m.PerRank) != m.Ranks || len(m.PerRank[m.Ranks-1].Regions) != len(m.Regions) || m.Total.MedianUs <= 0 || m.Tick1Us <= 0 {
				t.Errorf("measurement: backend %q, %d ranks, per rank %+v, total %+v, TICK1 %g us", m.Backend, m.Ranks, m.PerRank, m.Total, m.Tick1Us)
			}
			for _, rt := range m.PerRank {
				if rt.Total.MedianUs > m.Total.MaxUs*1.0001 {
					t.Errorf("rank %d's median %g us is above the slowest rank's maximum %g us", rt.Rank, rt.Total.MedianUs, m.Total.MaxUs)
				}
			}
		})
	}
	for _, f := range mpiFailing {
		t.Run("failing_"+f.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_, err := MeasureWith(ctx, Launch{Backend: BackendMPI, Ranks: 2}, filepath.Join(bin, "failing_"+f.name), append([]string{"-reps", "1", "-samples", "1"}, f.args...)...)
			if err == nil {
				t.Fatal("the program did not fail")
			}
			for _, want := range f.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the error does not say %q:\n%v", want, err)
				}
			}
		})
	}
}

// checkMPIRun runs one counting program under mpirun and compares.
func checkMPIRun(t *testing.T, r mpiRun, bin string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ex, err := CountWith(ctx, Launch{Backend: BackendMPI, Ranks: r.p.Ranks}, bin)
	if err != nil {
		t.Fatal(err)
	}
	if !ex.Finite || ex.Ranks != r.p.Ranks {
		t.Errorf("checksum %s, %d ranks", ex.Checksum, ex.Ranks)
	}
	rep, err := analyze.Analyze(r.k, analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := CompareCounts(r.p, ex, rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range c.Diffs {
		t.Errorf("rank %d, region %q, %s: analyzer %s, executed %d", d.Rank, d.Region, d.Count, d.Analyzer, d.Executed)
	}
	if c.Compared == 0 {
		t.Error("no count was compared")
	}
	if r.g == nil {
		return
	}
	gex, err := Count(ctx, bin+"_goroutines")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(gex, ex); diff != "" {
		t.Errorf("the goroutine program executed otherwise (-goroutines +mpi):\n%s", diff)
	}
}
