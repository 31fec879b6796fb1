package main

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"perfc/codegen"
	"perfc/lang"
	"perfc/parser"
)

// needMPI skips a test where Open MPI is not installed (CI installs it).
func needMPI(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs programs under mpirun")
	}
	for _, tool := range []string{"go", "mpirun", "pkg-config"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: %v; %s", tool, err, codegen.InstallMPI)
		}
	}
}

// TestCheckMPI checks a kernel with --mpi -n 4 (which sets the grid) and
// its counts, and the same kernel with goroutines: the counts agree, and
// the report names the backend and what mpirun was given.
func TestCheckMPI(t *testing.T) {
	needMPI(t)
	cache := t.TempDir()
	args := []string{"check", "../../examples/halo2d.spmd", "-D", "nx=8", "-D", "ny=8", "-D", "iters=2", "--reps", "1", "--samples", "2",
		"--cache-dir", cache, "--counts"}
	code, out, errOut := runCLI(t, "", append(args, "--mpi", "-n", "4")...)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	for _, want := range []string{"4 ranks", "backend: mpi, every rank an MPI process: mpirun -n 4", "-n set Px = 2, Py = 2",
		"--oversubscribe", "note: ranks are MPI processes", "exact counts over 4 ranks:", "agree, 0 differ"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = runCLI(t, "", append(args, "--mpi", "-n", "4", "-o", "json")...)
	var mpi, gor checkResult
	if err := json.Unmarshal([]byte(out), &mpi); code != 0 || err != nil {
		t.Fatalf("exit %d, %v: %s %s", code, err, out, errOut)
	}
	code, out, errOut = runCLI(t, "", append(args, "-D", "Px=2", "-D", "Py=2", "-o", "json")...)
	if err := json.Unmarshal([]byte(out), &gor); code != 0 || err != nil {
		t.Fatalf("exit %d, %v: %s %s", code, err, out, errOut)
	}
	if mpi.Backend != "mpi" || gor.Backend != "goroutine" || len(mpi.Measurement.PerRank) != 4 {
		t.Errorf("backends %q and %q, %d ranks' times", mpi.Backend, gor.Backend, len(mpi.Measurement.PerRank))
	}
	if diff := cmp.Diff(gor.Counts, mpi.Counts); diff != "" || mpi.Counts == nil || mpi.Counts.Compared == 0 {
		t.Errorf("the backends' counts differ (-goroutine +mpi):\n%s", diff)
	}
}

// TestCheckMPIFails checks that a failing rank makes check exit non-zero
// with the rank's message, and that -n refuses what it cannot do.
func TestCheckMPIFails(t *testing.T) {
	needMPI(t)
	src := "kernel bad(n = 4) on P = 2 ranks {\n  array a[n]: f64\n  if rank == 0 {\n    send a[0:n] to 1\n  } else {\n    recv a[0:2] from 0\n  }\n}\n"
	code, out, errOut := runCLI(t, src, "check", "-", "--mpi", "--reps", "1", "--samples", "1", "--cache-dir", t.TempDir())
	if code != 1 || !strings.Contains(errOut, "failed under mpirun") || !strings.Contains(errOut, "error: rank 0 sends more than 16 B to rank 1") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1 and the rank's message", code, out, errOut)
	}
	// A deadlock ends with the ranks' stall reports after --stall, not after
	// the program's default of 20 s.
	deadlock := "kernel dl(n = 8) on P = 2 ranks {\n  array a[n]: f64\n  recv a[0:n] from 1 - rank\n  send a[0:n] to 1 - rank\n}\n"
	start := time.Now()
	code, out, errOut = runCLI(t, deadlock, "check", "-", "--mpi", "--stall", "1s", "--reps", "1", "--samples", "1", "--cache-dir", t.TempDir())
	if code != 1 || !strings.Contains(errOut, "deadlock or stall: rank") || !strings.Contains(errOut, "has waited 1s to receive") {
		t.Errorf("deadlock with --stall 1s: exit %d, stdout %q, stderr %q; want 1 and the stall report", code, out, errOut)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("deadlock with --stall 1s took %v to report", d)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-n", "3", "--mpi", "../../examples/cannon.spmd"}, "-n 3: kernel cannon cannot run on 3 ranks"},
		{[]string{"-n", "4", "--mpi", "-D", "P=2", "../../examples/pingpong.spmd"}, "-n 4, but -D P=2 gives kernel pingpong 2 ranks"},
		{[]string{"-n", "4", "../../examples/pingpong.spmd"}, "-n, --hostfile, --mpirun and --stall go with --mpi"},
		{[]string{"--stall", "1s", "../../examples/pingpong.spmd"}, "-n, --hostfile, --mpirun and --stall go with --mpi"},
		{[]string{"--mpi", "--stall=-1s", "../../examples/pingpong.spmd"}, "--stall -1s: the time before a deadlock is reported must be positive"},
	} {
		code, _, errOut := runCLI(t, "", append([]string{"check"}, tt.args...)...)
		if code != 1 || !strings.Contains(errOut, tt.want) {
			t.Errorf("check %v: exit %d, stderr %q; want 1 and %q", tt.args, code, errOut, tt.want)
		}
	}
}

// TestWithRanks checks how -n sets a kernel's ranks.
func TestWithRanks(t *testing.T) {
	tests := []struct {
		src  string
		n    int
		want []string
	}{
		{"kernel k() on P = 8 ranks {\n}\n", 3, []string{"P = 3"}},
		{"kernel k() on grid(Px = 4, Py = 4) {\n}\n", 6, []string{"Px = 3", "Py = 2"}},
		{"kernel k() on grid(Px = 4, Py = Px) {\n}\n", 9, []string{"Px = 3", "Py = 3"}},
		{"kernel k() on P = 2 ranks {\n}\n", 2, nil},
	}
	for _, tt := range tests {
		f, err := parser.ParseFile("k.spmd", []byte(tt.src))
		if err != nil {
			t.Fatal(err)
		}
		k, err := lang.Check(f, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		k2, set, err := withRanks(k, kernelArgs{}, tt.n)
		if err != nil {
			t.Fatal(err)
		}
		if k2.NumRanks() != int64(tt.n) || !cmp.Equal(set, tt.want) {
			t.Errorf("%q with -n %d: %d ranks, set %v; want %v", tt.src, tt.n, k2.NumRanks(), set, tt.want)
		}
	}
}
