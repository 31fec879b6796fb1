package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"perfc/analyze"
	"perfc/codegen"
	"perfc/codegen/spmd"
	"perfc/costmodel"
	"perfc/lang"
	"perfc/machinecode"
	"perfc/validate"
)

// checkCmd is `perfc check`: generate the kernel's program, build it, run
// it and print the measured times per region; with --counts also run the
// counting build and compare what ran with the analyzer's counts.
type checkCmd struct {
	kernelArgs
	budgetArgs
	machineArgs
	outputArg
	mpiArgs
	Counts   bool          `help:"Also build the counting program, run it once and compare what every rank executed with perfc count (exit status 1 on a difference)."`
	Reps     int           `placeholder:"N" help:"Runs per measurement (default: as many as make one measurement last --min-time)."`
	Samples  int           `default:"5" placeholder:"N" help:"Measurements; the report gives their minimum, median and maximum."`
	MinTime  time.Duration `default:"200ms" help:"The least duration of one measurement."`
	Timeout  time.Duration `default:"10m" help:"Stop the program if it runs longer than this."`
	CacheDir string        `type:"path" placeholder:"DIR" help:"Where generated programs are built (default: the user cache directory, perfc/)."`
	MemLimit int64         `placeholder:"BYTES" help:"Refuse a kernel that needs more memory than this (default: 80% of the memory available)."`
	Settle   time.Duration `help:"Before measuring, wait up to this long for a slow spell of the host to end: two witness kernels timed against -m's table, within 15% (a core) and 30% (a copy between cores), as perfc validate does (docs/accuracy.md, \"Settling\"); 0, the default, measures at once."`
}

// Predictor is the predicted column of perfc check: it prices a checked
// kernel per region (machinePredictor uses perfc predict's pricing; tests
// use fixed values).
type Predictor interface {
	// Machine names what the prediction is for.
	Machine() string
	// PredictRegions returns the predicted time of one run, in seconds, by
	// region name ("total" for the whole kernel).
	PredictRegions(k *lang.Checked) (map[string]float64, error)
}

// noPrediction is what check says in place of the predicted column.
const noPrediction = "prediction: none (no predictor was given)"

// machinePredictor predicts with perfc predict's pricing for a machine
// table; it implements Predictor.
type machinePredictor struct {
	e  env
	ba budgetArgs
	ma machineArgs
	// code is the machine code of the binary check ran, priced when the
	// table has compute.core (nil: by the counts).
	code *machinecode.Code
}

// Machine names the table.
func (p machinePredictor) Machine() string { return p.ma.Machine }

// PredictRegions predicts every region of the slowest rank class and the
// total (the emulated critical path for a kernel whose ranks wait), with
// warm caches: the generated program refills its arrays before each timed
// run, so what fits a cache level is resident there (docs/codegen.md,
// "Data"), and prediction and measurement mean the same repetition.
func (p machinePredictor) PredictRegions(k *lang.Checked) (map[string]float64, error) {
	pred, err := predict(p.e, k, p.ba, p.ma, costmodel.Options{Warm: true, Code: p.code})
	if err != nil {
		return nil, err
	}
	out := map[string]float64{"total": pred.Total}
	for _, r := range pred.Regions {
		out[r.Name] = r.Time
	}
	return out, nil
}

// CheckSchema names the JSON schema of `perfc check -o json`
// (docs/codegen.md).
const CheckSchema = "perfc.check/v1"

// checkResult is the JSON of perfc check.
type checkResult struct {
	Schema      string                   `json:"schema"` // CheckSchema
	Kernel      string                   `json:"kernel"`
	File        string                   `json:"file"`
	Measurement *spmd.Measurement        `json:"measurement"`
	Machine     string                   `json:"machine,omitempty"`
	Predicted   map[string]float64       `json:"predicted_s,omitempty"`
	Note        string                   `json:"note,omitempty"`
	Counts      *codegen.CountComparison `json:"counts,omitempty"`
	// Backend is how the ranks ran: "goroutine" or "mpi".
	Backend string `json:"backend"`
	// Launch is the command that started an MPI program.
	Launch []string `json:"launch,omitempty"`
	// Ranks names the parameters -n set, as "P = 4".
	Ranks []string `json:"ranks_set,omitempty"`
	// Settle and Witness are what --settle did and the witnesses' times
	// just before the measurement kept; absent without --settle.
	Settle  *validate.SettleRecord `json:"settle,omitempty"`
	Witness *validate.WitnessTimes `json:"witness,omitempty"`
}

// hostSettler builds the witness kernels of --settle and predicts them on
// -m's table.
func (c *checkCmd) hostSettler(ctx context.Context) (*validate.HostSettler, error) {
	m, err := c.machineArgs.load()
	if err != nil {
		return nil, err
	}
	opts := validate.Options{Machine: m, MachineName: c.Machine, Model: validate.ModelOptions(), CacheDir: c.CacheDir}
	h, err := validate.NewHostSettler(ctx, opts, c.Settle)
	if err != nil {
		return nil, fmt.Errorf("--settle: %w", err)
	}
	return h, nil
}

// Run checks the kernel against the prediction for -m's machine.
func (c *checkCmd) Run(e env) error {
	return c.check(e, machinePredictor{e: e, ba: c.budgetArgs, ma: c.machineArgs})
}

// check generates, builds and runs the kernel's program, and compares.
func (c *checkCmd) check(e env, pred Predictor) error {
	if c.MPI && c.Settle > 0 {
		return fmt.Errorf("--settle times witness kernels of goroutine ranks, not MPI processes: leave it out with --mpi")
	}
	k, err := loadKernel(e, c.kernelArgs)
	if err != nil {
		return err
	}
	var set []string
	if c.MPI {
		if k, set, err = withRanks(k, c.kernelArgs, c.Ranks); err != nil {
			return err
		}
	}
	launch, err := c.launch(int(k.NumRanks()))
	if err != nil {
		return err
	}
	nsteps := int64(3) // generate, build, run
	if c.Counts {
		nsteps++
	}
	if c.Settle > 0 {
		nsteps++
	}
	steps := newStepLine(e.stderr, nsteps)
	defer steps.finish()
	ctx, cancel := context.WithTimeout(context.Background(), c.Timeout)
	defer cancel()
	var settler *validate.HostSettler
	if c.Settle > 0 {
		steps.step("check: building the witness kernels")
		if settler, err = c.hostSettler(ctx); err != nil {
			return err
		}
	}
	args := []string{"-samples", fmt.Sprint(c.Samples), "-min-time", c.MinTime.String()}
	if c.Reps > 0 {
		args = append(args, "-reps", fmt.Sprint(c.Reps))
	}
	opts := codegen.Options{MemLimit: c.MemLimit, Backend: launch.Backend}
	if c.MPI {
		eager, err := eagerLimit(c.machineArgs)
		if err != nil {
			return err
		}
		if eager > 0 {
			args = append(args, "-eager-limit", fmt.Sprint(eager))
		}
		stall, err := c.programArgs()
		if err != nil {
			return err
		}
		args = append(args, stall...)
	}
	var (
		p       *codegen.Program
		dir     string
		m       *spmd.Measurement
		bin     string
		settle  *validate.SettleRecord
		witness *validate.WitnessTimes
	)
	step := func(s string) { steps.step("check: " + s) }
	var argv []string
	err = codegen.RunKernel(ctx, k, opts, c.CacheDir, step, func(prog *codegen.Program, d, b string) (err error) {
		p, dir, bin = prog, d, b
		if c.MPI {
			if argv, _, err = launch.Command(bin, args...); err != nil {
				return err
			}
		}
		measure := func(bool) (err error) {
			m, err = codegen.MeasureWith(ctx, launch, bin, args...)
			return err
		}
		if settler == nil {
			return measure(true)
		}
		settle, witness, err = settler.Measure(ctx, measure)
		return err
	})
	if err != nil {
		return c.timedOut(err)
	}
	res := checkResult{Schema: CheckSchema, Kernel: p.Kernel, File: k.File.Source.Name, Measurement: m, Note: noPrediction,
		Backend: launch.Backend.String(), Launch: argv, Ranks: set, Settle: settle, Witness: witness}
	if mp, ok := pred.(machinePredictor); ok {
		// The prediction prices the binary that ran: its machine code.
		code, err := machinecode.Read(ctx, dir, bin)
		if err != nil {
			fmt.Fprintf(e.stderr, "perfc check: the program's machine code is priced by its counts: %v\n", err)
		}
		mp.code = code
		pred = mp
	}
	if pred != nil {
		if res.Predicted, err = pred.PredictRegions(k); err != nil {
			return err
		}
		res.Machine, res.Note = pred.Machine(), ""
		if !strings.HasSuffix(res.Machine, ".yaml") && !strings.HasSuffix(res.Machine, ".yml") {
			res.Note = "the prediction is for the built-in table " + res.Machine + ", not for this computer: the error says how far this host is from that machine; give -m a table of this host for a validation"
		}
	}
	if c.Counts {
		steps.step("check: building and running the counting program")
		if res.Counts, err = compareCounts(ctx, launch, k, p, dir, c.options()); err != nil {
			return c.timedOut(err)
		}
	}
	steps.finish()
	if c.Output == "json" {
		if err := writeJSON(e.stdout, res); err != nil {
			return err
		}
	} else {
		printCheck(e.stdout, res)
	}
	if res.Counts != nil && !res.Counts.OK() {
		return exitError{1}
	}
	return nil
}

// compareCounts builds and runs the counting program and compares what it
// executed with the analyzer.
func compareCounts(ctx context.Context, l codegen.Launch, k *lang.Checked, p *codegen.Program, dir string, opts analyze.Options) (*codegen.CountComparison, error) {
	var ex *spmd.Executed
	err := codegen.WithBinary(ctx, dir, true, func(bin string) (err error) {
		ex, err = codegen.CountWith(ctx, l, bin)
		return err
	})
	if err != nil {
		return nil, err
	}
	rep, err := analyze.Analyze(k, opts)
	if err != nil {
		return nil, err
	}
	return codegen.CompareCounts(p, ex, rep)
}

// printCheck prints a check for people: measured times, the predicted
// column or why it is missing, and the count comparison.
func printCheck(w io.Writer, res checkResult) {
	m := res.Measurement
	var params []string
	for _, p := range m.Params {
		params = append(params, p.Name+" = "+p.Value)
	}
	fmt.Fprintf(w, "check of kernel %s (%s): %s; %s\n", m.Kernel, m.File, strings.Join(params, ", "), plural(int64(m.Ranks), "rank"))
	switch {
	case res.Backend == "mpi":
		fmt.Fprintf(w, "backend: mpi, every rank an MPI process: %s\n", strings.Join(res.Launch, " "))
	case res.Backend != "":
		fmt.Fprintf(w, "backend: %s, every rank a goroutine of one process\n", res.Backend)
	}
	if len(res.Ranks) > 0 {
		fmt.Fprintf(w, "-n set %s\n", strings.Join(res.Ranks, ", "))
	}
	fmt.Fprintf(w, "measured: wall clock per run of the slowest rank; %d measurements of %d runs each (TICK1 %.3f us)\n",
		m.Samples, m.Runs, m.Tick1Us)
	printSettle(w, res)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	header := "region\tmin us\tmedian us\tmax us\tspread\t"
	if res.Predicted != nil {
		header += "predicted us (" + res.Machine + ")\terror\t"
	}
	fmt.Fprintln(tw, header)
	row := func(t spmd.Timing) {
		spread := 0.0
		if t.MedianUs > 0 {
			spread = (t.MaxUs - t.MinUs) / t.MedianUs * 100
		}
		line := fmt.Sprintf("%s\t%.3f\t%.3f\t%.3f\t%.1f%%\t", lang.Printable(t.Name), t.MinUs, t.MedianUs, t.MaxUs, spread)
		if res.Predicted != nil {
			if s, ok := res.Predicted[t.Name]; ok && s > 0 {
				// (predicted - measured) / measured, as perfc validate
				// reports it (docs/accuracy.md): positive when perfc
				// predicts too long.
				line += fmt.Sprintf("%.3f\t%+.1f%%\t", s*1e6, (s-t.MedianUs*1e-6)/(t.MedianUs*1e-6)*100)
			} else if ok {
				line += fmt.Sprintf("%.3f\t-\t", s*1e6)
			} else {
				line += "-\t-\t"
			}
		}
		fmt.Fprintln(tw, line)
	}
	for _, t := range m.Regions {
		row(t)
	}
	row(m.Total)
	tw.Flush()
	if res.Note != "" {
		fmt.Fprintln(w, res.Note)
	}
	for _, n := range m.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if res.Counts != nil {
		printComparison(w, res.Counts)
	}
}

// maxListed bounds the lines of each list in the table output; -o json
// has them all.
const maxListed = 20

// printComparison prints the count comparison.
func printComparison(w io.Writer, c *codegen.CountComparison) {
	fmt.Fprintf(w, "\ncounts: what ran (counting build, one run) against perfc count (exact; expected values under prob)\n")
	fmt.Fprintf(w, "  %d exact counts over %s: %d agree, %d differ; %d depend on data (shown for one rank per class)\n",
		c.Compared, plural(int64(c.Ranks), "rank"), c.Compared-len(c.Diffs), len(c.Diffs), len(c.Data))
	list := func(title string, ds []codegen.CountDiff) {
		if len(ds) == 0 {
			return
		}
		fmt.Fprintf(w, "  %s:\n", title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "    rank\tregion\tcount\tperfc count\texecuted")
		for i, d := range ds {
			if i == maxListed {
				fmt.Fprintf(tw, "    …\t%d more (-o json lists them)\t\t\t\n", len(ds)-maxListed)
				break
			}
			fmt.Fprintf(tw, "    %d\t%s\t%s\t%s\t%d\n", d.Rank, lang.Printable(d.Region), d.Count, d.Analyzer, d.Executed)
		}
		tw.Flush()
	}
	list("DIFFERENCES", c.Diffs)
	list("counts that depend on data", c.Data)
	for _, b := range c.Branches {
		fmt.Fprintf(w, "  data condition %s (%s): assumed prob %g, observed %.3f (%d of %d evaluations true)\n",
			b.Stmt, lang.Printable(b.Region), b.Prob, b.Observed, b.Taken, b.Evaluated)
	}
}

// timedOut names the flag when err is check's own time limit running out,
// so that the user knows what stopped the build or the run and how to let
// it finish.
func (c *checkCmd) timedOut(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: check stops building and running after --timeout %s; raise it to let the program finish", err, c.Timeout)
	}
	return err
}

// printSettle says what --settle found: the host's speed by the
// witnesses before and after the measurement, against the table, and a
// warning when it was out of the settle bands.
func printSettle(w io.Writer, res checkResult) {
	st := res.Settle
	if st == nil {
		return
	}
	ratios := func(t *validate.WitnessTimes) string {
		if t == nil || !(t.CorePredicted > 0) || !(t.CopyPredicted > 0) {
			return "not timed"
		}
		core, cp := t.Ratios()
		return fmt.Sprintf("a core x%.2f, a copy between cores x%.2f", core, cp)
	}
	fmt.Fprintf(w, "host (witnesses, measured/predicted on %s): before the measurement %s, after it %s; waited %.0f s",
		res.Machine, ratios(res.Witness), ratios(st.WitnessAfter), st.Waited)
	if st.Remeasured {
		fmt.Fprint(w, "; measured again, the host having slowed during the first measurement")
	}
	fmt.Fprintln(w)
	if !st.Settled || !st.After {
		fmt.Fprintf(w, "warning: the host was outside the settle bands (%.0f%% a core, %.0f%% a copy) before or after the measurement: "+
			"the errors include its slow spell; check again, or give --settle longer\n", validate.SettleCoreBand*100, validate.SettleCopyBand*100)
	}
}
