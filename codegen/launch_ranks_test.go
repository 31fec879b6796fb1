package codegen

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLaunchWithRanks(t *testing.T) {
	user := []string{"srun", "--mpi=pmix", "-n", "64"}
	for _, c := range []struct {
		l, want Launch
	}{
		{Launch{}, Launch{Ranks: 4}},
		{Launch{Backend: BackendMPI}, Launch{Backend: BackendMPI, Ranks: 4}},
		{Launch{Backend: BackendMPI, Hostfile: "h"}, Launch{Backend: BackendMPI, Ranks: 4, Hostfile: "h"}},
		{Launch{Backend: BackendMPI, Mpirun: []string{"mpirun", "--map-by", "node"}}, Launch{Backend: BackendMPI, Ranks: 4, Mpirun: []string{"mpirun", "--map-by", "node"}}},
		{Launch{Backend: BackendMPI, Mpirun: user}, Launch{Backend: BackendMPI, Ranks: 4, Mpirun: []string{"srun", "--mpi=pmix", "-n", "64", "-n", "4"}}},
		{Launch{Backend: BackendMPI, Mpirun: []string{"/usr/bin/srun"}}, Launch{Backend: BackendMPI, Ranks: 4, Mpirun: []string{"/usr/bin/srun", "-n", "4"}}},
	} {
		if diff := cmp.Diff(c.want, c.l.WithRanks(4)); diff != "" {
			t.Errorf("%+v.WithRanks(4) (-want +got):\n%s", c.l, diff)
		}
	}
	if len(user) != 4 {
		t.Errorf("WithRanks changed the launch it was called on: %q", user)
	}
}
