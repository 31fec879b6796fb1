package codegen

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakeTools finds the programs named in have and prints out for them.
func fakeTools(have map[string]string) mpiTools {
	return mpiTools{
		lookPath: func(name string) (string, error) {
			if _, ok := have[name]; ok {
				return "/usr/bin/" + name, nil
			}
			return "", errors.New("not found")
		},
		output: func(name string, args ...string) ([]byte, error) {
			out, ok := have[name+" "+strings.Join(args, " ")]
			if !ok {
				return nil, errors.New("exit status 1")
			}
			return []byte(out), nil
		},
	}
}

// TestCgoLines checks how the MPI backend finds Open MPI's flags, and
// what it says when it cannot.
func TestCgoLines(t *testing.T) {
	t.Setenv("CC", "")
	tests := []struct {
		name string
		have map[string]string
		want string
		err  string
	}{
		{"pkg-config", map[string]string{"gcc": "", "pkg-config": "", "pkg-config --cflags --libs ompi-c": "-I/x -lmpi", "mpicc": ""}, cgoPkgConfig, ""},
		{"mpicc", map[string]string{"gcc": "", "mpicc": "", "mpicc --showme:compile": "-I/opt/ompi/include\n", "mpicc --showme:link": "-L/opt/ompi/lib -lmpi\n"},
			"#cgo CFLAGS: -I/opt/ompi/include\n#cgo LDFLAGS: -L/opt/ompi/lib -lmpi", ""},
		{"pkg-config without ompi-c", map[string]string{"cc": "", "pkg-config": ""}, "", "apt-get install -y libopenmpi-dev openmpi-bin"},
		{"no C compiler", map[string]string{"pkg-config": "", "pkg-config --cflags --libs ompi-c": ""}, "", "needs a C compiler"},
	}
	for _, tt := range tests {
		got, err := fakeTools(tt.have).cgoLines()
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want one saying %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}

// TestGenerateMPI checks the MPI program's files: the MPI transport
// without its build constraint, the flags mpicc gave, the header.
func TestGenerateMPI(t *testing.T) {
	t.Setenv("CC", "")
	k := checkExample(t, "pingpong", "n=16,reps=3")
	tools := fakeTools(map[string]string{"gcc": "", "mpicc": "", "mpicc --showme:compile": "-I/opt/ompi/include", "mpicc --showme:link": "-lmpi"})
	p, err := Generate(k, Options{Backend: BackendMPI, mpi: tools})
	if err != nil {
		t.Fatal(err)
	}
	binding := string(p.File("spmd_mpi_cgo.go"))
	if p.Backend != BackendMPI || p.Ranks != 2 || !strings.Contains(binding, "#cgo CFLAGS: -I/opt/ompi/include\n#cgo LDFLAGS: -lmpi") ||
		strings.Contains(binding, "go:build") || strings.Contains(binding, cgoPkgConfig) || !strings.HasPrefix(binding, generatedHeader) {
		t.Errorf("binding:\n%.600s", binding)
	}
	for _, f := range p.Files {
		if strings.Contains(string(f.Data), "//go:build perfc_mpi") || strings.Contains(string(f.Data), "//go:build !perfc_mpi") {
			t.Errorf("%s keeps a transport's build constraint", f.Name)
		}
	}
	if p.File("spmd_world.go") != nil || p.File("spmd_coll.go") != nil || p.File("spmd_requests.go") != nil || p.File("spmd_mpi_comm.go") == nil {
		t.Errorf("files %v: want the MPI transport, not the goroutine one", fileNames(p))
	}
	g, err := Generate(k, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g.File("spmd_mpi_cgo.go") != nil || g.File("spmd_world.go") == nil || g.Hash() == p.Hash() {
		t.Errorf("goroutine files %v", fileNames(g))
	}
	if !strings.Contains(string(p.File("main.go")), "mpirun -n 2 ./kernel") {
		t.Errorf("main.go does not say how to run it under mpirun")
	}
}

// fileNames lists a program's files.
func fileNames(p *Program) []string {
	var out []string
	for _, f := range p.Files {
		out = append(out, f.Name)
	}
	return out
}

// TestLaunchCommand checks the command lines and notes of a launch.
func TestLaunchCommand(t *testing.T) {
	dir := t.TempDir()
	mpirun := filepath.Join(dir, "mpirun")
	if err := os.WriteFile(mpirun, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	argv, notes, err := Launch{}.Command("/k", "-json")
	if err != nil || !cmp.Equal(argv, []string{"/k", "-json"}) || notes != nil {
		t.Errorf("goroutine launch: %q %q %v", argv, notes, err)
	}
	many := runtime.NumCPU() + 1
	argv, notes, err = Launch{Backend: BackendMPI, Ranks: many, Mpirun: []string{mpirun, "--mca", "btl", "self,vader"}}.Command("/k", "-json")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{mpirun, "--mca", "btl", "self,vader", "-n", strconv.Itoa(many)}
	if os.Geteuid() == 0 {
		want = append(want, "--allow-run-as-root")
	}
	want = append(want, "--oversubscribe", "/k", "-json")
	if !cmp.Equal(argv, want) {
		t.Errorf("mpirun launch: %q, want %q", argv, want)
	}
	if !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, "--oversubscribe") }) {
		t.Errorf("notes %q do not mention --oversubscribe", notes)
	}
	argv, _, err = Launch{Backend: BackendMPI, Ranks: 2, Hostfile: "nodes"}.withLauncher(mpirun).Command("/k")
	if err != nil || !slices.Contains(argv, "--hostfile") || slices.Contains(argv, "--oversubscribe") {
		t.Errorf("hostfile launch: %q %v", argv, err)
	}
	srun := filepath.Join(dir, "srun")
	if err := os.WriteFile(srun, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	argv, _, err = Launch{Backend: BackendMPI, Ranks: 4, Mpirun: []string{srun, "-n", "4"}}.Command("/k")
	if err != nil || !cmp.Equal(argv, []string{srun, "-n", "4", "/k"}) {
		t.Errorf("srun launch: %q %v", argv, err)
	}
	if _, _, err := (Launch{Backend: BackendMPI, Hostfile: "h", Mpirun: []string{srun}}).Command("/k"); err == nil || !strings.Contains(err.Error(), "--hostfile is mpirun's") {
		t.Errorf("srun with a hostfile: %v", err)
	}
	if _, _, err := (Launch{Backend: BackendMPI, Mpirun: []string{filepath.Join(dir, "nosuch")}}).Command("/k"); err == nil || !strings.Contains(err.Error(), "libopenmpi-dev") {
		t.Errorf("a missing launcher: %v", err)
	}
}

// withLauncher sets the launcher, for tests.
func (l Launch) withLauncher(path string) Launch {
	l.Mpirun = []string{path}
	return l
}

// TestRankErrors checks that a failed launch reports the ranks' own
// messages rather than mpirun's banners.
func TestRankErrors(t *testing.T) {
	stderr := "error: deadlock or stall: rank 1 has waited 1s to receive from rank 0 (d.spmd:3:3)\n  no rank can continue …\n" +
		"--------------------------------------------------------------------------\nMPI_ABORT was invoked on rank 1 in communicator MPI_COMM_WORLD\nwith errorcode 3.\n"
	want := "error: deadlock or stall: rank 1 has waited 1s to receive from rank 0 (d.spmd:3:3)\n  no rank can continue …"
	if got := rankErrors(stderr); got != want {
		t.Errorf("rankErrors = %q, want %q", got, want)
	}
	if got := rankErrors("mpirun: not enough slots\n"); got != "mpirun: not enough slots" {
		t.Errorf("without a rank's error: %q", got)
	}
}
