package codegen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"perfc/codegen/spmd"
)

// The MPI backend: the same kernel body and harness, with the runtime's
// MPI transport (codegen/spmd/mpi_*.go, build tag perfc_mpi) in place of
// the goroutine one, so that every rank is an MPI process started by
// mpirun (or srun …). The program binds the few MPI calls it makes
// itself, through cgo, against the Open MPI that pkg-config (or mpicc)
// finds when it is generated.

// Backend is the transport a generated program runs its ranks on.
type Backend uint8

const (
	// BackendGoroutine runs every rank as a goroutine of one process.
	BackendGoroutine Backend = iota
	// BackendMPI runs every rank as an MPI process.
	BackendMPI
)

// String names the backend as --backend does.
func (b Backend) String() string {
	if b == BackendMPI {
		return "mpi"
	}
	return "goroutine"
}

// ParseBackend reads a --backend value.
func ParseBackend(s string) (Backend, error) {
	switch s {
	case "goroutine", "goroutines", "":
		return BackendGoroutine, nil
	case "mpi":
		return BackendMPI, nil
	}
	return 0, fmt.Errorf("unknown backend %q: give goroutine (every rank a goroutine of one process) or mpi (every rank an MPI process)", s)
}

// InstallMPI says how to install what the MPI backend needs.
const InstallMPI = "install Open MPI with its development files: on Debian or Ubuntu `apt-get install -y libopenmpi-dev openmpi-bin`; " +
	"on Fedora, RHEL or Rocky `dnf install openmpi openmpi-devel` (then `module load mpi/openmpi-x86_64`); on Arch `pacman -S openmpi`; " +
	"on macOS `brew install open-mpi`; on a cluster, load its Open MPI module (`module load openmpi`)"

// cgoPkgConfig is the line of the runtime's binding that finds Open MPI's
// flags with pkg-config.
const cgoPkgConfig = "#cgo pkg-config: ompi-c"

// mpiTools runs the programs that locate MPI; tests substitute their own.
type mpiTools struct {
	lookPath func(string) (string, error)
	output   func(name string, args ...string) ([]byte, error)
}

// systemTools are the real ones.
func systemTools() mpiTools {
	return mpiTools{lookPath: exec.LookPath, output: func(name string, args ...string) ([]byte, error) {
		return exec.Command(name, args...).Output()
	}}
}

// cgoLines returns the #cgo lines that let the binding compile and link
// against MPI: the pkg-config line when pkg-config knows ompi-c, else the
// flags of `mpicc --showme`. It refuses, saying what to install, when
// neither finds MPI, or when there is no C compiler for cgo.
func (t mpiTools) cgoLines() (string, error) {
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "gcc"
	}
	if _, err := t.lookPath(strings.Fields(cc + " x")[0]); err != nil {
		if _, err2 := t.lookPath("cc"); err2 != nil || os.Getenv("CC") != "" {
			return "", fmt.Errorf("the MPI backend compiles its MPI binding with cgo, which needs a C compiler: %s not found; install gcc (Debian/Ubuntu: apt-get install -y gcc) or set CC", cc)
		}
	}
	if _, err := t.lookPath("pkg-config"); err == nil {
		if _, err := t.output("pkg-config", "--cflags", "--libs", "ompi-c"); err == nil {
			return cgoPkgConfig, nil
		}
	}
	if _, err := t.lookPath("mpicc"); err == nil {
		cflags, err1 := t.output("mpicc", "--showme:compile")
		ldflags, err2 := t.output("mpicc", "--showme:link")
		if err1 == nil && err2 == nil {
			return "#cgo CFLAGS: " + strings.TrimSpace(string(cflags)) + "\n#cgo LDFLAGS: " + strings.TrimSpace(string(ldflags)), nil
		}
	}
	return "", errors.New("the MPI backend needs Open MPI, and neither `pkg-config ompi-c` nor `mpicc --showme` finds it: " + InstallMPI)
}

// mpiRuntimeFile adapts the binding's source to this machine's MPI flags.
func mpiRuntimeFile(name string, data []byte, cgo string) []byte {
	if name == "mpi_cgo.go" && cgo != cgoPkgConfig {
		data = bytes.Replace(data, []byte(cgoPkgConfig), []byte(cgo), 1)
	}
	return data
}

// Launch says how to start a built program.
type Launch struct {
	Backend Backend
	// Ranks is mpirun's -n; 0 is the kernel's P (asked of the program).
	Ranks int
	// Hostfile is mpirun's --hostfile: the nodes and their slots.
	Hostfile string
	// Mpirun is a launcher to use instead of mpirun, with its arguments
	// (srun -n 64 …); nil is mpirun. mpirun's own switches (-n,
	// --hostfile, --allow-run-as-root, --oversubscribe) are added only
	// when the launcher is Open MPI's mpirun, mpiexec or orterun.
	Mpirun []string
}

// Command returns the command line that runs bin with args, and notes
// the report must mention: as root, Open MPI's allow-run-as-root switch;
// more ranks than cores, --oversubscribe.
func (l Launch) Command(bin string, args ...string) (argv []string, notes []string, err error) {
	if l.Backend != BackendMPI {
		return append([]string{bin}, args...), nil, nil
	}
	launcher := l.Mpirun
	if len(launcher) == 0 {
		launcher = []string{"mpirun"}
	}
	if _, err := exec.LookPath(launcher[0]); err != nil {
		return nil, nil, fmt.Errorf("running with MPI needs the launcher %s, which is not on PATH: %s", launcher[0], InstallMPI)
	}
	argv = append([]string(nil), launcher...)
	switch filepath.Base(launcher[0]) {
	case "mpirun", "mpiexec", "orterun":
	default:
		if l.Hostfile != "" {
			return nil, nil, fmt.Errorf("--hostfile is mpirun's; the launcher %s places the ranks itself (for Slurm's srun, with its -N and -n)", launcher[0])
		}
		notes = append(notes, fmt.Sprintf("launched with %s, whose own options place the ranks", strings.Join(launcher, " ")))
		return append(append(argv, bin), args...), notes, nil
	}
	ranks := l.Ranks
	if ranks == 0 {
		if ranks, err = kernelRanks(bin); err != nil {
			return nil, nil, err
		}
	}
	argv = append(argv, "-n", strconv.Itoa(ranks))
	if l.Hostfile != "" {
		argv = append(argv, "--hostfile", l.Hostfile)
	}
	if os.Geteuid() == 0 {
		argv = append(argv, "--allow-run-as-root")
		notes = append(notes, "run as root: mpirun was given --allow-run-as-root")
	}
	if cores := runtime.NumCPU(); l.Hostfile == "" && ranks > cores {
		argv = append(argv, "--oversubscribe")
		notes = append(notes, fmt.Sprintf("%d ranks on %d cores: mpirun was given --oversubscribe, and the ranks take turns on the cores", ranks, cores))
	}
	return append(append(argv, bin), args...), notes, nil
}

// kernelRanks asks an MPI program how many ranks its kernel has.
func kernelRanks(bin string) (int, error) {
	out, err := exec.Command(bin, "-kernel-ranks").Output()
	if err != nil {
		return 0, &startError{bin: bin, err: err}
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || n < 1 {
		return 0, fmt.Errorf("the program %s does not say its rank count (it printed %q): is it an MPI program of this perfc?", bin, out)
	}
	return n, nil
}

// RunWith runs a built program as l says and returns its standard output
// (rank 0's, under MPI) and the launch's notes. When it fails, the error
// carries the ranks' own error lines first.
func RunWith(ctx context.Context, l Launch, bin string, args ...string) ([]byte, []string, error) {
	if l.Backend != BackendMPI {
		out, err := Run(ctx, bin, args...)
		return out, nil, err
	}
	argv, notes, err := l.Command(bin, args...)
	if err != nil {
		return nil, nil, err
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	// mpirun, stopped with SIGTERM, stops the ranks; SIGKILL would leave
	// them running.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		return nil, notes, &startError{bin: argv[0], err: err}
	}
	if err := cmd.Wait(); err != nil {
		if ctx.Err() != nil {
			return nil, notes, fmt.Errorf("the generated program did not finish under %s: %w", argv[0], ctx.Err())
		}
		return nil, notes, fmt.Errorf("the generated program failed under %s (%v): %s", strings.Join(argv[:len(argv)-len(args)-1], " "), err, rankErrors(stderr.String()))
	}
	return stdout.Bytes(), notes, nil
}

// rankErrors returns the ranks' own error lines (with the lines that
// continue them) when there are any, else all of stderr: mpirun's banners
// around an abort say less than the rank that caused it.
func rankErrors(stderr string) string {
	var keep []string
	in := false
	for _, line := range strings.Split(stderr, "\n") {
		switch {
		case strings.HasPrefix(line, "error: "):
			keep, in = append(keep, line), true
		case in && (strings.HasPrefix(line, "  ") || strings.HasPrefix(line, "in the kernel body")):
			keep = append(keep, line)
		default:
			in = false
		}
	}
	if len(keep) == 0 {
		return strings.TrimSpace(stderr)
	}
	return strings.Join(keep, "\n")
}

// MeasureWith runs the timed build as l says, with -json (and args), and
// decodes its measurement; the launch's notes join the measurement's.
func MeasureWith(ctx context.Context, l Launch, bin string, args ...string) (*spmd.Measurement, error) {
	out, notes, err := RunWith(ctx, l, bin, append([]string{"-json"}, args...)...)
	if err != nil {
		return nil, err
	}
	m, err := decodeMeasurement(out)
	if err != nil {
		return nil, err
	}
	m.Notes = append(m.Notes, notes...)
	return m, nil
}

// CountWith runs the counting build as l says, with -count -json, and
// decodes what it counted.
func CountWith(ctx context.Context, l Launch, bin string) (*spmd.Executed, error) {
	out, _, err := RunWith(ctx, l, bin, "-count", "-json")
	if err != nil {
		return nil, err
	}
	var ex spmd.Executed
	if err := decode(out, &ex); err != nil {
		return nil, err
	}
	return &ex, nil
}
