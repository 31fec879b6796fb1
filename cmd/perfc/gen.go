package main

import (
	"fmt"

	"perfc/codegen"
	"perfc/codegen/spmd"
)

// genCmd is `perfc gen`: write a kernel as a Go program that runs it.
type genCmd struct {
	kernelArgs
	Out      string `required:"" placeholder:"DIR" help:"Directory to write the program into (created; files perfc did not write are never overwritten or removed, nor written through a symbolic link; a failed write leaves it as it was)."`
	MemLimit int64  `placeholder:"BYTES" help:"Refuse a kernel that needs more memory than this (default: 80% of the memory this machine has available)."`
	Backend  string `default:"goroutine" enum:"goroutine,mpi" help:"How the program runs its ranks: goroutine (goroutines of one process) or mpi (MPI processes under mpirun; needs Open MPI, docs/mpi.md)."`
}

// Run generates the program and says how to run it.
func (c *genCmd) Run(e env) error {
	k, err := loadKernel(e, c.kernelArgs)
	if err != nil {
		return err
	}
	backend, err := codegen.ParseBackend(c.Backend)
	if err != nil {
		return err
	}
	p, err := codegen.Generate(k, codegen.Options{MemLimit: c.MemLimit, Backend: backend})
	if err != nil {
		return err
	}
	if err := p.WriteDir(c.Out); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s: kernel %s on %s, %d files; it needs %s of memory to run\n",
		c.Out, p.Kernel, plural(k.NumRanks(), "rank"), len(p.Files), spmd.FormatBytes(p.MemBytes))
	if backend == codegen.BackendMPI {
		fmt.Fprintf(e.stdout, "every rank is an MPI process; build it:  cd %s && go build -o kernel . && go build -tags perfc_count -o kernel-count .\n", c.Out)
		fmt.Fprintf(e.stdout, "time it:  mpirun -n %d ./kernel [-json] [-reps N] [-samples N] [-min-time 0.2s]\n", p.Ranks)
		fmt.Fprintf(e.stdout, "count it: mpirun -n %d ./kernel-count -count [-json]\n", p.Ranks)
		fmt.Fprintln(e.stdout, "(as root add --allow-run-as-root; with more ranks than cores, --oversubscribe)")
		return nil
	}
	fmt.Fprintf(e.stdout, "time it:  cd %s && go run . [-json] [-reps N] [-samples N] [-min-time 0.2s]\n", c.Out)
	fmt.Fprintf(e.stdout, "count it: cd %s && go run -tags perfc_count . -count [-json]\n", c.Out)
	return nil
}
