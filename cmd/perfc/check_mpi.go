package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"perfc/codegen"
	"perfc/lang"
	"perfc/machines"
)

// mpiArgs are perfc check's flags of the MPI backend.
type mpiArgs struct {
	MPI      bool          `name:"mpi" help:"Run every rank as an MPI process under mpirun (Open MPI; docs/mpi.md) instead of as a goroutine."`
	Ranks    int           `short:"n" placeholder:"RANKS" help:"With --mpi: the ranks to start; the kernel's P (or its grid's Px, Py) is set to match unless -D sets it (default: the kernel's P)."`
	Hostfile string        `type:"path" placeholder:"FILE" help:"With --mpi: mpirun's --hostfile, the nodes to run on."`
	Mpirun   string        `placeholder:"'srun …'" help:"With --mpi: the launcher and its arguments, split at spaces, instead of mpirun (e.g. 'srun -N 2 -n 8')."`
	Stall    time.Duration `placeholder:"DURATION" help:"With --mpi: report a deadlock once a rank has waited this long in one MPI operation (the program's -stall; default 20s). Shorter finds a deadlock sooner; a rank that computes longer than this between messages is reported too."`
}

// programArgs are the generated program's flags that the MPI flags set.
func (a mpiArgs) programArgs() ([]string, error) {
	if a.Stall < 0 {
		return nil, fmt.Errorf("--stall %v: the time before a deadlock is reported must be positive", a.Stall)
	}
	if a.Stall == 0 {
		return nil, nil
	}
	return []string{"-stall", a.Stall.String()}, nil
}

// launch is the Launch the flags describe for a kernel of ranks ranks.
func (a mpiArgs) launch(ranks int) (codegen.Launch, error) {
	if !a.MPI {
		if a.Ranks != 0 || a.Hostfile != "" || a.Mpirun != "" || a.Stall != 0 {
			return codegen.Launch{}, fmt.Errorf("-n, --hostfile, --mpirun and --stall go with --mpi; the goroutine backend runs the kernel's P ranks in one process (set P with -D P=…), and its watchdog reports a deadlock as soon as no rank can move")
		}
		return codegen.Launch{}, nil
	}
	return codegen.Launch{Backend: codegen.BackendMPI, Ranks: ranks, Hostfile: a.Hostfile, Mpirun: strings.Fields(a.Mpirun)}, nil
}

// withRanks returns the kernel checked again so that it has n ranks: P =
// n for a kernel on P ranks, or the most square Px x Py = n for a grid
// (Px alone where Py follows from it). A -D of P, Px or Py wins: then the
// rank counts must agree.
func withRanks(k *lang.Checked, a kernelArgs, n int) (*lang.Checked, []string, error) {
	if n < 0 {
		return nil, nil, fmt.Errorf("-n %d: give the number of ranks, at least 1", n)
	}
	if n == 0 || k.NumRanks() == int64(n) {
		return k, nil, nil
	}
	for _, d := range a.Define {
		name, _, _ := strings.Cut(d, "=")
		if name = strings.TrimSpace(name); name == "P" || name == "Px" || name == "Py" {
			return nil, nil, fmt.Errorf("-n %d, but -D %s gives kernel %s %d ranks: leave out one of them", n, d, k.Kernel.Name.Name, k.NumRanks())
		}
	}
	ovs, err := overrides(a.Define)
	if err != nil {
		return nil, nil, err
	}
	var tries [][]lang.Override
	tries = append(tries, []lang.Override{{Name: "P", Value: fmt.Sprint(n)}})
	for py := 1; py*py <= n; py++ {
		if n%py == 0 {
			px := n / py
			// Most square first: the last py is the largest.
			tries = append([][]lang.Override{{{Name: "Px", Value: fmt.Sprint(px)}, {Name: "Py", Value: fmt.Sprint(py)}}}, tries...)
		}
		if py*py == n {
			tries = append(tries, []lang.Override{{Name: "Px", Value: fmt.Sprint(py)}})
		}
	}
	for _, try := range tries {
		k2, err := lang.Check(k.File, a.Kernel, append(append([]lang.Override(nil), ovs...), try...))
		if err == nil && k2.NumRanks() == int64(n) {
			var set []string
			for _, o := range try {
				set = append(set, o.Name+" = "+o.Value)
			}
			return k2, set, nil
		}
	}
	return nil, nil, fmt.Errorf("-n %d: kernel %s cannot run on %d ranks (it has %d; no P, or Px and Py, give %d): choose its ranks with -D and leave out -n",
		n, k.Kernel.Name.Name, n, k.NumRanks(), n)
}

// eagerLimit is the eager limit of the -m table when it is a table file
// (of this host or cluster) that gives one: the MPI program then sends
// smaller messages with MPI_Send, as the table's MPI does. A built-in
// table describes another machine, and a table without the limit says
// nothing: every send is then MPI_Ssend.
func eagerLimit(ma machineArgs) (int64, error) {
	if !strings.HasSuffix(ma.Machine, ".yaml") && !strings.HasSuffix(ma.Machine, ".yml") {
		return 0, nil
	}
	if _, err := os.Stat(ma.Machine); err != nil {
		return 0, nil // the prediction reports it
	}
	m, err := ma.load()
	if err != nil {
		return 0, err
	}
	return tableEager(m), nil
}

// tableEager is a table's eager limit in bytes, 0 when it has none.
func tableEager(m *machines.Machine) int64 {
	if mm := m.Messages(""); mm != nil {
		if n, ok := mm.EagerLimit(); ok && n.Value > 0 {
			return int64(n.Value)
		}
	}
	return 0
}
