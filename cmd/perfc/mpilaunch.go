package main

import (
	"errors"
	"fmt"
	"strings"

	"perfc/codegen"
)

// mpiLaunchArgs are the launch options perfc calibrate and perfc validate
// share with perfc check --mpi: whether to run through MPI, the hostfile
// and a launcher that replaces mpirun (Slurm's srun …).
type mpiLaunchArgs struct {
	MPI      bool
	Hostfile string
	Mpirun   string
}

// launch is the codegen.Launch of the options: the goroutine runtime
// without --mpi (and then --hostfile and --mpirun are refused, so that a
// forgotten --mpi does not silently measure goroutines), MPI otherwise.
// --mpirun is split at white space: 'srun --mpi=pmix -p batch' is the
// launcher srun with two options.
func (a mpiLaunchArgs) launch(verb string) (codegen.Launch, error) {
	if !a.MPI {
		var given []string
		if a.Hostfile != "" {
			given = append(given, "--hostfile")
		}
		if a.Mpirun != "" {
			given = append(given, "--mpirun")
		}
		if len(given) > 0 {
			return codegen.Launch{}, fmt.Errorf("%s: %s start MPI processes; add --mpi", verb, strings.Join(given, " and "))
		}
		return codegen.Launch{}, nil
	}
	l := codegen.Launch{Backend: codegen.BackendMPI, Hostfile: a.Hostfile}
	if a.Mpirun != "" {
		l.Mpirun = strings.Fields(a.Mpirun)
		if len(l.Mpirun) == 0 {
			return codegen.Launch{}, errors.New(verb + ": --mpirun is empty; give a launcher such as 'srun --mpi=pmix', or leave it out for mpirun")
		}
	}
	return l, nil
}
