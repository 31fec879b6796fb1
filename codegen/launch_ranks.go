package codegen

import (
	"path/filepath"
	"strconv"
)

// WithRanks is the launch of p ranks, for callers that run programs of
// several rank counts with one launch (perfc calibrate --mpi, perfc
// validate --mpi): mpirun's -n is Ranks; Slurm's srun, which Command
// passes the rank count to only through its own options, gets -n p after
// the options the user gave (srun takes the last -n). Other launchers are
// left as they are: their options place the ranks.
func (l Launch) WithRanks(p int) Launch {
	l.Ranks = p
	if l.Backend == BackendMPI && len(l.Mpirun) > 0 && filepath.Base(l.Mpirun[0]) == "srun" {
		l.Mpirun = append(append([]string(nil), l.Mpirun...), "-n", strconv.Itoa(p))
	}
	return l
}
