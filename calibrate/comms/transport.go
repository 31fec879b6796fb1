package comms

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// Transport says what carried the benchmarks' messages: the goroutine
// runtime of perfc check (memory copies between goroutines of one
// process), or MPI processes started by a launcher (perfc calibrate
// --mpi). It goes into the table's host: entries and into every source of
// the messages: and collectives: sections, so that a table says whether it
// describes MPI messages, and through which library and launcher.
type Transport struct {
	// Backend is "goroutine" or "mpi".
	Backend string
	// Library is the MPI library ("Open MPI 4.1.4"); "" for goroutines or
	// when it cannot be told.
	Library string
	// Launchers is the command line that started each rank count's
	// benchmarks, without the program and its arguments
	// ("mpirun --allow-run-as-root -n 2"), by rank count.
	Launchers map[int]string
	// Notes are what the launches had to add, said once each (running as
	// root needs Open MPI's allow-run-as-root switches; more ranks than
	// cores, --oversubscribe).
	Notes []string
	// Cores is the cores of the one host an MPI launch ran on (mpirun
	// without a hostfile or another launcher); 0 when the ranks may span
	// nodes, and for goroutines. The collective fits then try terms in
	// max(0, P − Cores), the ranks that oversubscribe the host.
	Cores int
}

// MPI reports whether the benchmarks ran as MPI processes.
func (t Transport) MPI() bool { return t.Backend == "mpi" }

// Command is the calibrating command as sources name it.
func (t Transport) Command() string {
	if t.MPI() {
		return "perfc calibrate --mpi"
	}
	return "perfc calibrate"
}

// Launcher is the command line that launched p ranks, or with p = 0 (or
// a rank count not run) the largest run's (the others differ in -n only);
// "" for goroutines.
func (t Transport) Launcher(p int) string {
	if l, ok := t.Launchers[p]; ok || len(t.Launchers) == 0 {
		return l
	}
	ps := make([]int, 0, len(t.Launchers))
	for q := range t.Launchers {
		ps = append(ps, q)
	}
	return t.Launchers[slices.Max(ps)]
}

// Describe says in a phrase what carried the messages of p ranks (0: of
// the largest run), for the sections' sources: "through MPI (Open MPI
// 4.1.4), launched by mpirun -n 2", or "between the goroutine ranks of one
// process".
func (t Transport) Describe(p int) string {
	if !t.MPI() {
		return "between the goroutine ranks of one process"
	}
	lib := t.Library
	if lib == "" {
		lib = "library not told"
	}
	s := fmt.Sprintf("through MPI (%s)", lib)
	if l := t.Launcher(p); l != "" {
		s += ", launched by " + l
	}
	return s
}

// launcherOf is the part of a launch's command line before the program:
// what a table records of how the ranks were started.
func launcherOf(argv []string, bin string) string {
	if i := slices.Index(argv, bin); i >= 0 {
		argv = argv[:i]
	}
	return strings.Join(argv, " ")
}

// mpiLibrary names the MPI library the generated programs build against,
// as pkg-config tells its version (the compiler flags come from the same
// place, codegen's MPI build), else as mpirun --version prints it; "" when
// neither answers. On a cluster the library the programs link is the one
// of the node that builds them, which is the one that launches them.
func mpiLibrary(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "pkg-config", "--modversion", "ompi-c").Output(); err == nil {
		if v := strings.TrimSpace(string(out)); v != "" {
			return "Open MPI " + v
		}
	}
	if out, err := exec.CommandContext(ctx, "mpirun", "--version").Output(); err == nil {
		return parseMpirunVersion(string(out))
	}
	return ""
}

// parseMpirunVersion reads the library from mpirun --version's first
// line: "mpirun (Open MPI) 4.1.4" is Open MPI 4.1.4, "HYDRA build
// details: …  Version: 4.0" (MPICH) is MPICH 4.0; "" when it is neither.
func parseMpirunVersion(out string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
	if open, ver, ok := strings.Cut(first, "(Open MPI)"); ok && strings.TrimSpace(open) != "" {
		return "Open MPI " + strings.TrimSpace(ver)
	}
	if strings.HasPrefix(first, "HYDRA") {
		for _, line := range strings.Split(out, "\n") {
			if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok && strings.TrimSpace(k) == "Version" {
				return "MPICH " + strings.TrimSpace(v)
			}
		}
		return "MPICH"
	}
	return ""
}
