package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfc/codegen"
	"perfc/machines"
)

func TestMPILaunchArgs(t *testing.T) {
	for _, tc := range []struct {
		args mpiLaunchArgs
		want codegen.Launch
		err  string
	}{
		{mpiLaunchArgs{}, codegen.Launch{}, ""},
		{mpiLaunchArgs{MPI: true}, codegen.Launch{Backend: codegen.BackendMPI}, ""},
		{mpiLaunchArgs{MPI: true, Hostfile: "hosts"}, codegen.Launch{Backend: codegen.BackendMPI, Hostfile: "hosts"}, ""},
		{mpiLaunchArgs{MPI: true, Mpirun: " srun  --mpi=pmix -p batch "}, codegen.Launch{Backend: codegen.BackendMPI, Mpirun: []string{"srun", "--mpi=pmix", "-p", "batch"}}, ""},
		{mpiLaunchArgs{MPI: true, Mpirun: "  "}, codegen.Launch{}, "--mpirun is empty"},
		{mpiLaunchArgs{Hostfile: "hosts"}, codegen.Launch{}, "--hostfile start MPI processes; add --mpi"},
		{mpiLaunchArgs{Hostfile: "hosts", Mpirun: "srun"}, codegen.Launch{}, "--hostfile and --mpirun start MPI processes; add --mpi"},
	} {
		got, err := tc.args.launch("calibrate")
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.HasPrefix(err.Error(), "calibrate: ") {
				t.Errorf("%+v: error %v, want one saying %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%+v: %v", tc.args, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%+v (-want +got):\n%s", tc.args, diff)
		}
	}
}

// The MPI options are refused, before any benchmark runs, where they make
// no sense: without --mpi, -n below 2, --mpi with --no-comms; and
// --comms-into with them, or with a base that is no table of this host.
func TestCalibrateMPIArgs(t *testing.T) {
	hosts := filepath.Join(t.TempDir(), "hosts")
	if err := os.WriteFile(hosts, []byte("localhost slots=2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-n", "4"}, "-n sets the ranks of an MPI calibration; add --mpi"},
		{[]string{"--hostfile", hosts}, "--hostfile start MPI processes; add --mpi"},
		{[]string{"--mpirun", "srun"}, "--mpirun start MPI processes; add --mpi"},
		{[]string{"--mpi", "-n", "1"}, "-n 1: the pingpong needs 2 ranks"},
		{[]string{"--mpi", "--no-comms"}, "cannot go with --no-comms"},
		{[]string{"--mpi", "--hostfile", filepath.Join(t.TempDir(), "nosuch")}, "nosuch"},
		// --comms-into measures the goroutine messages into a table of this
		// host, checked before any benchmark.
		{[]string{"--comms-into", hosts, "--mpi"}, "--comms-into measures the goroutine messages alone"},
		{[]string{"--comms-into", hosts, "--no-comms"}, "goes with neither --no-comms, --mpi nor --plot"},
		{[]string{"--comms-into", hosts}, "calibrate: --comms-into: "},
		{[]string{"--comms-into", hostTable}, "calibrate this host whole"},
	} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"calibrate", "--test-mode"}, tc.args...)
		if code := run(args, env{stdout: &stdout, stderr: &stderr}); code == 0 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("perfc %v: exit %d, stderr %q; want an error saying %q", args, code, stderr.String(), tc.want)
		}
	}
}

func TestValidateMPIArgs(t *testing.T) {
	code, _, errOut := runCLI(t, "", "validate", "-m", hostTable, "--mpirun", "srun")
	if code != 1 || !strings.Contains(errOut, "validate: --mpirun start MPI processes; add --mpi") {
		t.Errorf("validate --mpirun without --mpi: exit %d, %q", code, errOut)
	}
}

// TestCalibrateMPI runs perfc calibrate --mpi in its test mode through
// mpirun and checks that the table says it describes MPI (host: backend,
// library and launcher; every communication source) and loads; it skips
// where MPI is not installed.
func TestCalibrateMPI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and launches MPI programs")
	}
	if _, err := exec.LookPath("mpirun"); err != nil {
		t.Skip("MPI is not installed (no mpirun on PATH): apt-get install -y libopenmpi-dev openmpi-bin (README.md) to run the MPI tests")
	}
	if err := exec.Command("pkg-config", "--exists", "ompi-c").Run(); err != nil {
		t.Skip("MPI's development files are not installed (pkg-config ompi-c fails): apt-get install -y libopenmpi-dev (README.md) to run the MPI tests")
	}
	dir := t.TempDir()
	table := filepath.Join(dir, "host-mpi.yaml")
	var stdout, stderr bytes.Buffer
	code := run([]string{"calibrate", "--test-mode", "--mpi", "-o", table, "--cache-dir", filepath.Join(dir, "cache")}, env{stdout: &stdout, stderr: &stderr})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "messages: through MPI (") {
		t.Errorf("the summary does not say MPI:\n%s", stderr.String())
	}
	m, err := machines.Load(table)
	if err != nil {
		t.Fatal(err)
	}
	host := map[string]string{}
	for _, h := range m.Host() {
		host[h.Key] = h.Value
	}
	if host["backend"] != "mpi" || !strings.Contains(host["mpi"], "MPI") || !strings.Contains(host["launcher"], " -n 4") {
		t.Errorf("host: %v; want backend mpi, the library and the 4-rank launcher", host)
	}
	if !m.MeasuredThroughMPI() || m.Name() != "host-mpi" {
		t.Errorf("the table %q is not seen as MPI's", m.Name())
	}
	if src := m.Messages("").Source(); !strings.HasPrefix(src, "perfc calibrate --mpi COMMS1") {
		t.Errorf("messages source %q", src)
	}
}
