package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"perfc/internal/progress"
	"perfc/internal/safefile"
	"perfc/validate"
)

// validateCmd is `perfc validate`: predict a suite of kernels on a machine
// table, run each, and report the errors (docs/accuracy.md).
type validateCmd struct {
	Machine     string        `short:"m" default:"host.yaml" help:"Machine table of this host to validate (default host.yaml, which perfc calibrate -o host.yaml writes; a built-in name validates that machine against this host)." placeholder:"NAME|FILE.yaml"`
	Quick       bool          `help:"A small subset: about 8 cases (one per file when FILES are given), under a minute."`
	Tuning      []string      `sep:"," placeholder:"NAME" help:"Kernels the table was fitted on (base names): their cases are reported as tuning, all others as held-out."`
	JSON        string        `name:"json" type:"path" placeholder:"FILE" help:"Also write the report as JSON (schema perfc.validate/v1) to FILE."`
	Plot        string        `type:"path" placeholder:"FILE.svg" help:"Also draw predicted against measured (log-log, y = x and the ±15% band) to FILE (.svg or .png)."`
	Samples     int           `default:"5" placeholder:"N" help:"Measurements per case (default 5); the report gives their median and spread."`
	CaseTime    time.Duration `default:"1s" help:"How long the measurements of one case take together (the build comes on top)."`
	MaxRun      time.Duration `default:"250ms" help:"Longest predicted run of a case: longer ones are shrunk (repetitions halved) or skipped."`
	Timeout     time.Duration `default:"5m" help:"Stop a case that builds and runs longer than this."`
	CacheDir    string        `type:"path" placeholder:"DIR" help:"Where generated programs are built (default: the user cache directory, perfc/)."`
	MPI         bool          `name:"mpi" help:"Run the communicating cases through MPI (mpirun, or the launcher --mpirun names), each on its own rank count: validates a table of perfc calibrate --mpi (docs/mpi.md)."`
	Hostfile    string        `type:"existingfile" placeholder:"FILE" help:"With --mpi: mpirun's hostfile (the nodes and their slots)."`
	Mpirun      string        `placeholder:"'srun …'" help:"With --mpi: the launcher instead of mpirun, split at spaces (e.g. 'srun --mpi=pmix'); it is given the rank count and the program."`
	NoWitness   bool          `help:"Do not time the two witness kernels (a core, a copy between cores) before every case; the report then cannot say how fast the host ran."`
	Settle      time.Duration `help:"How long to wait, before each case, for the host's slow spell to end: for the witnesses to come within 15% (a core) and 30% (a copy between cores) of the table (docs/accuracy.md, \"Settling\")." default:"10s"`
	SettleTotal time.Duration `help:"How long to wait for the host in all, over the suite; once it is spent, cases wait no longer before they are measured (the report warns how many)." default:"5m"`
	NoSettle    bool          `help:"Time the witnesses once before each case and never wait for the host."`
	Replay      string        `type:"existingfile" placeholder:"REPORT.json" help:"Measure nothing: predict the cases of an earlier --json report again (with -m's table and this perfc's model) and compare with its measurements."`
	Report      string        `type:"existingfile" placeholder:"REPORT.json" help:"Measure and predict nothing: print an earlier --json report as it was written (with --against, beside other reports; with --plot, its figure)."`
	Against     []string      `type:"existingfile" placeholder:"REPORT.json" help:"Set the report beside other --json reports of this host (repeat the flag, or separate with commas): how far the host's own measurements move between runs, and which misses the other runs repeat (docs/accuracy.md, \"Against other runs\")."`
	Files       []string      `arg:"" optional:"" type:"path" help:"Kernel files to validate instead of the default suite (every example and validate's own kernels)."`
	outputArg
}

// Run plans the suite, measures it and prints the report.
func (c *validateCmd) Run(e env) error {
	if err := checkPlotName(c.Plot, "the accuracy plot"); err != nil {
		return err
	}
	if c.Report != "" {
		rep, err := c.stored()
		if err != nil {
			return err
		}
		return c.write(e, rep)
	}
	launch, err := mpiLaunchArgs{MPI: c.MPI, Hostfile: c.Hostfile, Mpirun: c.Mpirun}.launch("validate")
	if err != nil {
		return err
	}
	m, err := machineArgs{Machine: c.Machine}.load()
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: validate needs a table of this host; write one with perfc calibrate -o %s, or name one with -m", err, c.Machine)
	}
	if err != nil {
		return err
	}
	if c.MPI && !m.MeasuredThroughMPI() {
		fmt.Fprintf(e.stderr, "validate: the table %s was not calibrated through MPI (its host: has no backend: mpi), so its messages are another transport's; "+
			"perfc calibrate --mpi -o host-mpi.yaml writes one, then validate --mpi -m host-mpi.yaml\n", c.Machine)
	}
	others, err := c.others(launch.Backend.String())
	if err != nil {
		return err
	}
	kernels, err := c.kernels(e)
	if err != nil {
		return err
	}
	opts := validate.Options{Machine: m, MachineName: c.Machine, Model: validate.ModelOptions(), Quick: c.Quick, Samples: c.Samples,
		CaseTime: c.CaseTime, MaxRun: c.MaxRun, Timeout: c.Timeout, CacheDir: c.CacheDir, Launch: launch, NoWitness: c.NoWitness,
		Settle: c.Settle, SettleTotal: c.SettleTotal, NoSettle: c.NoSettle}
	var rep *validate.Report
	if c.Replay != "" {
		rep, err = c.replay(e, kernels, opts)
	} else {
		rep, err = c.measure(e, kernels, opts)
	}
	if err != nil {
		return err
	}
	if len(others) > 0 {
		if rep.Against, err = validate.Against(rep, others, c.Against); err != nil {
			return err
		}
	}
	return c.write(e, rep)
}

// write writes the report where the flags say: --json, --plot, and the
// standard output as -o asks.
func (c *validateCmd) write(e env, rep *validate.Report) error {
	if c.JSON != "" {
		if err := safefile.Write(c.JSON, 0o644, rep.WriteJSON); err != nil {
			return err
		}
	}
	if c.Plot != "" {
		if err := rep.SavePlot(c.Plot); err != nil {
			return fmt.Errorf("--plot: %w", err)
		}
	}
	if c.Output == "json" {
		return rep.WriteJSON(e.stdout)
	}
	return rep.WriteTable(e.stdout)
}

// measure plans the suite and measures it.
func (c *validateCmd) measure(e env, kernels []validate.Kernel, opts validate.Options) (*validate.Report, error) {
	bar := progress.New(e.stderr, "validate: planning", 0)
	cases, skipped, err := validate.Plan(kernels, opts)
	bar.Finish()
	if err != nil {
		return nil, err
	}
	bar = progress.New(e.stderr, "validate", int64(len(cases)))
	opts.Progress = func(name string, done, total int) {
		bar.Describe(strings.TrimSpace("validate " + name)) // the bar shows the count, the share and the time left
		bar.Set(int64(done))
	}
	err = validate.Run(context.Background(), cases, opts)
	bar.Finish()
	if err != nil {
		return nil, err
	}
	return validate.NewReport(cases, skipped, opts), nil
}

// replay predicts the cases of an earlier report again and compares them
// with its measurements (--replay): the report keeps the earlier one's
// host, backend and skipped cases, and names it.
func (c *validateCmd) replay(e env, kernels []validate.Kernel, opts validate.Options) (*validate.Report, error) {
	if c.Quick {
		return nil, errors.New("validate: --replay takes its cases from the report; leave out --quick")
	}
	prev, err := readReport(c.Replay, "--replay")
	if err != nil {
		return nil, err
	}
	if (prev.Backend == "mpi") != c.MPI {
		return nil, fmt.Errorf("validate --replay %s: the report's cases ran on the %s backend; replay them with%s --mpi", c.Replay, prev.Backend, map[bool]string{true: "out", false: ""}[c.MPI])
	}
	bar := progress.New(e.stderr, "validate --replay", int64(len(prev.Cases)))
	opts.Progress = func(name string, done, total int) {
		bar.Describe(strings.TrimSpace("replay " + name))
		bar.Set(int64(done))
	}
	cases, err := validate.Replay(context.Background(), prev, kernels, opts)
	bar.Finish()
	if err != nil {
		return nil, err
	}
	rep := validate.NewReport(cases, prev.Skipped, opts)
	rep.Replay, rep.Host, rep.Backend, rep.Quick = c.Replay, prev.Host, prev.Backend, prev.Quick
	return rep, nil
}

// readReport reads a report that validate --json wrote, for the flag
// named.
func readReport(file, flag string) (*validate.Report, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("validate %s: %w", flag, err)
	}
	defer f.Close()
	rep, err := validate.ReadReport(io.LimitReader(f, maxReportBytes))
	if err != nil {
		return nil, fmt.Errorf("validate %s %s: %w", flag, file, err)
	}
	return rep, nil
}

// others reads the reports of --against and checks, before anything is
// measured, that a report of the given backend can be set beside them;
// none without the flag.
func (c *validateCmd) others(backend string) ([]*validate.Report, error) {
	if len(c.Against) == 0 {
		return nil, nil
	}
	other := make([]*validate.Report, len(c.Against))
	for i, f := range c.Against {
		var err error
		if other[i], err = readReport(f, "--against"); err != nil {
			return nil, err
		}
	}
	return other, validate.CheckOthers(backend, other, c.Against)
}

// stored reads the report of --report and, with --against, sets it
// beside the others (which must share its backend). It stands for a run:
// nothing else may choose cases or measure.
func (c *validateCmd) stored() (*validate.Report, error) {
	if c.Replay != "" || c.Quick || len(c.Files) > 0 || c.MPI {
		return nil, errors.New("validate --report prints a report as it was written; leave out --replay, --quick, --mpi and kernel files")
	}
	rep, err := readReport(c.Report, "--report")
	if err != nil {
		return nil, err
	}
	others, err := c.others(rep.Backend)
	if err != nil || len(others) == 0 {
		return rep, err
	}
	rep.Against, err = validate.Against(rep, others, c.Against)
	return rep, err
}

// maxReportBytes bounds a report that --replay reads (the full suite's
// is about 1 MB).
const maxReportBytes = 64 << 20

// kernels returns the suite: the files given, or the default kernels.
func (c *validateCmd) kernels(e env) ([]validate.Kernel, error) {
	if len(c.Files) == 0 {
		return validate.DefaultKernels(c.Tuning)
	}
	var out []validate.Kernel
	for _, f := range c.Files {
		src, name, err := readSource(f, e.stdin)
		if err != nil {
			return nil, err
		}
		out = append(out, validate.FileKernel(name, src, c.Tuning))
	}
	return out, nil
}
