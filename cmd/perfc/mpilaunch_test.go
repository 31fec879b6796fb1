package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfc/codegen"
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
// no sense: without --mpi, -n below 2, --mpi with --no-comms.
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
