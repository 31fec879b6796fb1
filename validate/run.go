package validate

import (
	"context"
	"fmt"
	"math"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"

	"perfc/codegen"
	"perfc/codegen/spmd"
	"perfc/costmodel"
	"perfc/internal/ctxtime"
	"perfc/machinecode"
)

// Run measures every case as perfc check does (codegen.RunKernel: the
// same program, the same build, the same harness) and compares it with
// its prediction. A case that fails keeps its Failure and the suite goes
// on; only a cancelled ctx stops it.
func Run(ctx context.Context, cases []Case, opts Options) error {
	opts = opts.withDefaults()
	if _, err := exec.LookPath("go"); err != nil && len(cases) > 0 {
		// Every case would fail alike: say it once.
		return fmt.Errorf("validate builds each case's generated program with the Go toolchain: put the go command on PATH (https://go.dev/dl): %w", err)
	}
	var witnesses []*witness
	if !opts.NoWitness && !opts.mpi() && len(cases) > 0 {
		var err error
		if witnesses, err = prepareWitnesses(ctx, opts); err != nil {
			return err
		}
	}
	wait := &suiteWait{left: opts.SettleTotal}
	for i := range cases {
		if opts.Progress != nil {
			opts.Progress(cases[i].Name, i, len(cases))
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		err := measureWithWitnesses(ctx, &cases[i], witnesses, opts, wait, func(what string) {
			if opts.Progress != nil {
				opts.Progress(what+cases[i].Name, i, len(cases))
			}
		})
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			cases[i].Failure = err.Error()
		}
	}
	if err := recheck(ctx, cases, opts); err != nil {
		return err
	}
	if opts.Progress != nil {
		opts.Progress("", len(cases), len(cases))
	}
	return nil
}

// measureWithWitnesses measures case c with the witnesses around it:
// settled (settle.go) unless Options.NoSettle, waiting at most
// Options.Settle and what is left of the suite's wait, or timed once
// before it; without witnesses, alone. say tells the progress what it
// waits for.
func measureWithWitnesses(ctx context.Context, c *Case, witnesses []*witness, opts Options, wait *suiteWait, say func(string)) error {
	if witnesses == nil {
		return measureCase(ctx, c, opts)
	}
	measure := func(ctx context.Context) (*WitnessTimes, error) { return measureWitnesses(ctx, witnesses) }
	if opts.NoSettle {
		// A witness that fails leaves the case without one: the case
		// itself is what the suite measures.
		c.Witness, _ = measure(ctx)
		return measureCase(ctx, c, opts)
	}
	sleep := func(ctx context.Context, d time.Duration) error {
		say("waiting for the host to settle: ")
		return ctxtime.Sleep(ctx, d)
	}
	s := settler{measure: measure, sleep: sleep, now: time.Now, budget: wait.budget(opts.Settle)}
	var err error
	c.Settle, c.Witness, err = s.measureSettled(ctx, func(first bool) error {
		if first {
			return measureCase(ctx, c, opts)
		}
		say("again (the host slowed while it ran): ")
		m, err := measureAgain(ctx, c, opts)
		if err != nil {
			return err
		}
		compare(c, m)
		return nil
	})
	wait.spend(c.Settle, s.budget, opts.Settle)
	return err
}

// recheck measures again, after the suite, the first compared case of one
// rank and the first of several ranks, the same way (Case.Again): on a
// shared host the speed of a core, or of a copy between cores, moves from
// one minute to the next (docs/accuracy.md), and a report whose witnesses
// moved by more than their spread says that its errors include the host's
// drift. A witness that fails the second time keeps no Again.
func recheck(ctx context.Context, cases []Case, opts Options) error {
	var one, many *Case
	for i := range cases {
		c := &cases[i]
		if c.Failure != "" || c.Total == nil || c.Runs == 0 {
			continue
		}
		switch {
		case c.Ranks == 1 && one == nil:
			one = c
		case c.Ranks > 1 && many == nil:
			many = c
		}
	}
	for _, c := range []*Case{one, many} {
		if c == nil {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if opts.Progress != nil {
			opts.Progress("again: "+c.Name, len(cases), len(cases))
		}
		if m, err := measureAgain(ctx, c, opts); err == nil {
			again := timing(m.Total, c.pred.Total)
			c.Again = &again
		}
	}
	return nil
}

// measureAgain runs a measured case's program again with the runs and
// measurements of its first measurement.
func measureAgain(ctx context.Context, c *Case, opts Options) (*spmd.Measurement, error) {
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	var m *spmd.Measurement
	launch := opts.Launch.WithRanks(int(c.Ranks))
	err := codegen.RunKernel(ctx, c.checked, codegen.Options{Backend: launch.Backend}, opts.CacheDir, nil, func(_ *codegen.Program, _, bin string) error {
		var err error
		m, err = codegen.MeasureWith(ctx, launch, bin, "-reps", fmt.Sprint(c.Runs), "-samples", fmt.Sprint(c.Samples))
		return err
	})
	return m, err
}

// measureCase builds and runs one case's program and compares.
func measureCase(ctx context.Context, c *Case, opts Options) error {
	if c.checked == nil || c.pred == nil {
		return fmt.Errorf("the case was not planned (validate.Plan makes cases)")
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	var m *spmd.Measurement
	launch := opts.Launch.WithRanks(int(c.Ranks))
	err := codegen.RunKernel(ctx, c.checked, codegen.Options{Backend: launch.Backend}, opts.CacheDir, nil, func(_ *codegen.Program, dir, bin string) error {
		if err := predictWithCode(ctx, c, opts, dir, bin); err != nil {
			return err
		}
		if launch.Backend == codegen.BackendMPI {
			argv, notes, err := launch.Command(bin)
			if err != nil {
				return err
			}
			if i := slices.Index(argv, bin); i >= 0 {
				argv = argv[:i]
			}
			c.Launch, c.LaunchNotes = strings.Join(argv, " "), notes
		}
		probe, err := codegen.MeasureWith(ctx, launch, bin, "-reps", "1", "-samples", "1")
		if err != nil {
			return err
		}
		reps := repsFor(probe, c.Footprint*int64(c.Ranks), c.Ranks, opts)
		m, err = codegen.MeasureWith(ctx, launch, bin, "-reps", fmt.Sprint(reps), "-samples", fmt.Sprint(opts.Samples))
		return err
	})
	if err != nil {
		if ctx.Err() != nil && context.Cause(ctx) == context.DeadlineExceeded {
			return fmt.Errorf("%w: the case did not finish within %s", err, opts.Timeout)
		}
		return err
	}
	compare(c, m)
	return nil
}

// predictWithCode predicts the case again with the machine code of the
// binary it is about to run, when the table prices compiled code
// (compute.core): the plan predicted it from its counts alone, before
// anything was built (docs/predict.md, "In-core time from the compiled
// code"). A binary whose code cannot be read keeps the plan's prediction,
// with a note.
func predictWithCode(ctx context.Context, c *Case, opts Options, dir, bin string) error {
	if _, ok := opts.Machine.Compute().Core(); !ok || opts.Model.Code != nil {
		return nil
	}
	code, err := machinecode.Read(ctx, dir, bin)
	if err != nil {
		c.pred.Notes = append(c.pred.Notes, "the program's machine code could not be read, so it is priced by its counts: "+err.Error())
		return nil
	}
	withCode := opts
	withCode.Model.Code = code
	pred, err := Predict(c.checked, withCode)
	if err != nil {
		return err
	}
	c.countsPred, c.pred = c.pred, pred
	return nil
}

// refillPerByte is what the generated program's refill of the arrays
// before every run costs per byte on one core (its fill computes a hash
// and a short polynomial per element; about 10 ns per f64 measured on the
// 2026 host). It is an estimate of the harness's own time, used only to
// choose how many runs fill a case's measuring time, never in a figure.
const refillPerByte = 1.25e-9

// maxReps bounds the runs per measurement.
const maxReps = 1_000_000

// repsFor chooses the runs per measurement so that the case's
// measurements take about CaseTime together: a run costs its own time
// (the probe's, one run measured alone) plus the refill of every rank's
// arrays, which the timing leaves out but the clock on the wall does not.
func repsFor(probe *spmd.Measurement, bytes, ranks int64, opts Options) int {
	run := probe.Total.MedianUs * 1e-6 // after the warm-up run, whose page faults and first touches do not repeat
	cores := int64(max(runtime.NumCPU(), 1))
	refill := float64(bytes) * refillPerByte / float64(max(min(ranks, cores), 1))
	// A run below the timer's resolution still costs the harness its clock
	// reads: count it as one tick (TICK1, or 50 ns when the probe has none).
	tick := probe.Tick1Us * 1e-6
	if !(tick > 0) {
		tick = 50e-9
	}
	perRun := math.Max(run, tick) + refill
	budget := opts.CaseTime.Seconds() / float64(opts.Samples)
	return int(math.Max(1, math.Min(maxReps, math.Floor(budget/perRun))))
}

// minRegionShare is the least share of the measured total that a region
// the prediction leaves out ("(outside regions)", the harness's own
// clock reads) must have to be listed among a case's regions.
const minRegionShare = 0.01

// compare fills a case's comparisons from its prediction and measurement.
func compare(c *Case, m *spmd.Measurement) {
	c.Runs, c.Samples = m.Runs, m.Samples
	predicted := map[string]float64{}
	for _, r := range c.pred.Regions {
		predicted[r.Name] = r.Time
	}
	total := timing(m.Total, c.pred.Total)
	c.Total = &total
	if c.countsPred != nil {
		byCounts := timing(m.Total, c.countsPred.Total)
		c.ByCounts = &byCounts
	}
	c.Regions = nil
	for _, t := range m.Regions {
		p, ok := predicted[t.Name]
		if (!ok || p == 0) && t.MedianUs < minRegionShare*m.Total.MedianUs {
			continue
		}
		c.Regions = append(c.Regions, timing(t, p))
	}
	c.Dominant = dominant(c.pred)
}

// timing compares one measured timing (µs) with a predicted time (s).
func timing(t spmd.Timing, predicted float64) Comparison {
	cmp := Comparison{Name: t.Name, Predicted: predicted, Measured: t.MedianUs * 1e-6, Min: t.MinUs * 1e-6, Max: t.MaxUs * 1e-6}
	e, s := Error(predicted, cmp.Measured), Spread(cmp.Min, cmp.Measured, cmp.Max)
	if !math.IsNaN(e) {
		cmp.Error = ptr(e)
	}
	if !math.IsNaN(s) {
		cmp.Spread = ptr(s)
	}
	cmp.Noisy = Noisy(e, s)
	return cmp
}

// dominant returns the largest term of a prediction's breakdown, or
// waiting when the emulated critical path exceeds the slowest rank's own
// costs by more than any term; nil for a prediction without terms.
func dominant(p *costmodel.Prediction) *Dominant {
	var best *Dominant
	for _, r := range p.Regions {
		for _, t := range r.Terms {
			if best == nil || t.Time > best.Time {
				best = &Dominant{Resource: t.Resource, What: t.What, Region: r.Name, Time: t.Time}
			}
		}
	}
	if p.Emulation != nil {
		if wait := p.Total - p.RankSum; wait > 0 && (best == nil || wait > best.Time) {
			best = &Dominant{Resource: "waiting", What: "emulated critical path beyond the slowest rank's own costs", Time: wait}
		}
	}
	if best != nil && p.Total > 0 {
		best.Share = best.Time / p.Total
	}
	return best
}
