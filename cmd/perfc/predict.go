package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"perfc"
	"perfc/costmodel"
	"perfc/internal/progress"
	"perfc/internal/units"
	"perfc/lang"
	"perfc/machines"
)

// machineArgs choose and adjust a machine table. Without -m it is cm5-32:
// the most complete table of the source papers (operation costs,
// collectives, messages), on which the paper's own Gaussian-elimination
// prediction can be checked.
type machineArgs struct {
	Machine  string   `short:"m" default:"cm5-32" help:"Machine: a built-in name (perfc machines lists them) or a YAML file." placeholder:"NAME|FILE.yaml"`
	Override []string `short:"M" name:"set" sep:"none" help:"Override a machine parameter for a what-if study, e.g. -M t_send=0.0585us/B (repeatable)." placeholder:"NAME=VALUE"`
}

// load returns the machine with overrides applied (perfc.LoadMachine: a
// built-in name or a YAML file).
func (a machineArgs) load() (*machines.Machine, error) {
	return perfc.LoadMachine(a.Machine, a.Override)
}

// predictCmd is `perfc predict`.
type predictCmd struct {
	kernelArgs
	budgetArgs
	machineArgs
	outputArg
	PaperRules  bool `help:"Price the way the source paper did where it differs from the exact counts (docs/predict.md)."`
	VectorUnits bool `help:"Price innermost loops of a vector form on the machine's vector units (Hockney r-inf, n-half) when they are at least N_v long."`
	NoEmulation bool `help:"For a kernel whose ranks wait on each other, report the slowest rank's sum of costs instead of emulating the critical path."`
	Warm        bool `help:"Warm caches: a cache level that holds a rank's working set brings no lines in (a steady-state repetition, as perfc check measures; docs/predict.md)."`
	Terms       bool `help:"Show every term of the breakdown (count x unit cost = time)." default:"true" negatable:""`
	Code        bool `help:"Build the kernel's generated program (as perfc check does; needs the Go toolchain) and price its loops by their machine code, when the table has compute.core (docs/predict.md)."`
	limitArgs
}

// Run predicts and prints.
func (c *predictCmd) Run(e env) error {
	k, err := loadKernel(e, c.kernelArgs)
	if err != nil {
		return err
	}
	limits, err := c.limits()
	if err != nil {
		return err
	}
	opts := costmodel.Options{PaperRules: c.PaperRules, VectorUnits: c.VectorUnits, NoEmulation: c.NoEmulation,
		Warm: c.Warm, Limits: limits}
	if c.Code {
		if opts.Code, err = buildCode(context.Background(), k, ""); err != nil {
			return err
		}
	}
	bar := progress.New(e.stderr, "emulating (events)", 0)
	opts.Progress = bar.Set
	pred, err := predict(e, k, c.budgetArgs, c.machineArgs, opts)
	bar.Finish()
	if err != nil {
		return err
	}
	if c.Output == "json" {
		return writeJSON(e.stdout, pred)
	}
	printPrediction(e.stdout, pred, c.Terms)
	return nil
}

// predict analyses a checked kernel with the machine's caches and prices
// it, and says which -M overrides priced anything.
func predict(e env, k *lang.Checked, ba budgetArgs, ma machineArgs, opts costmodel.Options) (*costmodel.Prediction, error) {
	pred, m, err := predictOn(e, k, ba, ma, opts)
	if err != nil || len(ma.Override) == 0 {
		return pred, err
	}
	without := func(i int) (*costmodel.Prediction, *machines.Machine, error) {
		other := ma
		other.Override = append(append([]string(nil), ma.Override[:i]...), ma.Override[i+1:]...)
		return predictOn(e, k, ba, other, opts)
	}
	assignments, err := machines.ParseAssignments(ma.Override)
	if err != nil {
		return nil, err
	}
	if err := costmodel.MarkOverrides(pred, m, assignments, without); err != nil {
		return nil, err
	}
	return pred, nil
}

// predictOn loads the machine and predicts the kernel on it.
func predictOn(e env, k *lang.Checked, ba budgetArgs, ma machineArgs, opts costmodel.Options) (*costmodel.Prediction, *machines.Machine, error) {
	rep, m, err := ba.countOn(e, k, ma)
	if err != nil {
		return nil, nil, err
	}
	pred, err := costmodel.Predict(k, rep, m, opts)
	if err != nil {
		return nil, nil, positioned(e, err, k.File.Source)
	}
	return pred, m, nil
}

// formatTime prints seconds in the unit a reader uses, from ns to years
// with 4 significant digits (units.Time; docs/predict.md).
func formatTime(s float64) string { return units.Time(s) }

// printPrediction prints a prediction for people.
func printPrediction(w io.Writer, p *costmodel.Prediction, terms bool) {
	fmt.Fprintf(w, "prediction (not a measurement) for kernel %s on %s (%s)\n", p.Kernel, p.Machine, p.File)
	var params []string
	for _, q := range p.Params {
		params = append(params, q.Name+" = "+q.Value)
	}
	fmt.Fprintf(w, "parameters: %s; %s\n", strings.Join(params, ", "), plural(p.Ranks, "rank"))
	if len(p.Overrides) > 0 {
		fmt.Fprintf(w, "machine overrides: %s\n", overridesLine(p.Overrides))
	}
	fmt.Fprintf(w, "method: %s (ranks %s); compute and memory compose: %s\n\n", p.Method, p.Slowest.Ranks, p.Compose)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "region\tcompute\tmemory\tmessages\tcollectives\ttotal\tbottleneck\t")
	var sum costmodel.RegionPrediction
	for _, r := range p.Regions {
		if r.Time == 0 && len(r.Terms) == 0 {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", lang.Printable(r.Name), formatTime(r.Compute), formatTime(r.Memory),
			formatTime(r.Messages), formatTime(r.Collectives), formatTime(r.Time), r.Bottleneck)
		sum.Compute += r.Compute
		sum.Memory += r.Memory
		sum.Messages += r.Messages
		sum.Collectives += r.Collectives
	}
	fmt.Fprintf(tw, "total\t%s\t%s\t%s\t%s\t%s\t%s\t\n", formatTime(sum.Compute), formatTime(sum.Memory),
		formatTime(sum.Messages), formatTime(sum.Collectives), formatTime(p.Total), p.Bottleneck)
	tw.Flush()
	fmt.Fprintf(w, "\npredicted time: %s   R_B = %s (%s nominal flop, all ranks)   R_T = %s /s\n",
		formatTime(p.Total), units.Rate(p.RB*1e6), units.Count(p.NominalFlop), units.Number(p.RT))
	if em := p.Emulation; em != nil {
		if p.Total >= p.RankSum {
			fmt.Fprintf(w, "emulated: %s events, %s messages; the slowest rank's own costs add up to %s, the rest is waiting on the critical path\n",
				units.Int(em.Events), units.Int(em.Messages), formatTime(p.RankSum))
		} else {
			fmt.Fprintf(w, "emulated: %s events, %s messages; the slowest rank's own costs add up to %s as the regions price them (ranks that share cores all computing, and copying, at once), more than the emulated critical path\n",
				units.Int(em.Events), units.Int(em.Messages), formatTime(p.RankSum))
		}
		printLongCopies(w, em.LongCopies)
		if em.LinkWaits > 0 {
			fmt.Fprintf(w, "node-boundary links: %s messages waited %s in all\n", units.Int(em.LinkWaits), formatTime(em.LinkWait))
		}
		if p.Wavefront != nil {
			printWavefront(w, p.Wavefront)
		}
	}
	if len(p.Classes) > 1 {
		fmt.Fprintln(w, "rank classes (own costs, without waiting):")
		for _, c := range p.Classes {
			fmt.Fprintf(w, "  ranks %s: %s\n", c.Ranks, formatTime(c.Time))
		}
	}
	if terms {
		fmt.Fprintln(w, "\nbreakdown (count x unit cost = time):")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, r := range p.Regions {
			for _, t := range r.Terms {
				fmt.Fprintf(tw, "  %s\t%s\t%s %s x %s\t= %s\t%s\n", lang.Printable(r.Name), t.What, units.Count(t.Count), t.Unit,
					formatTime(t.UnitCost), formatTime(t.Time), t.How)
			}
		}
		tw.Flush()
	}
	for _, s := range p.Warnings {
		fmt.Fprintf(w, "warning: %s\n", s)
	}
	for _, s := range p.Notes {
		fmt.Fprintf(w, "note: %s\n", s)
	}
}

// overridesLine lists -M overrides for the header: "t_send = 0.0585us/B
// (not used)".
func overridesLine(os []costmodel.Override) string {
	var parts []string
	for _, o := range os {
		s := o.Name + " = " + o.Value
		if !o.Used {
			s += " (not used)"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// plural writes "1 rank" or "32 ranks".
func plural(n int64, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}
