package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"perfc/analyze"
	"perfc/lang"
)

// steady works out the per-iteration figures when --per-iteration asks for
// them and keeps them in the report.
func (c *countCmd) steady(k *lang.Checked, opts analyze.Options, rep *analyze.Report) error {
	if !c.PerIteration {
		return nil
	}
	st, err := analyze.SteadyState(k, opts, rep, c.Rank)
	if err != nil {
		return err
	}
	rep.Steady = st
	return nil
}

// printSteady prints the lines and bytes per cache line of work of every
// region, whole run and steady state (docs/counts.md, "Per cache line of
// work").
func printSteady(w io.Writer, rep *analyze.Report) {
	if len(rep.Steady) == 0 {
		return
	}
	fmt.Fprintf(w, "\nper cache line of work (Kerncraft's unit: a line's worth of the innermost loop's most executed reference; rank %d):\n", rep.Steady[0].Rank)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "region\twork (lines)\tlevel\tlines: whole run\tsteady\tbytes: whole run\tsteady\twritten back: whole run\tsteady\t")
	for _, r := range rep.Steady {
		name, work := lang.Printable(r.Region), fmt.Sprintf("%.6g", r.Work)
		for _, l := range r.Levels {
			line := float64(l.LineBytes)
			fmt.Fprintf(tw, "%s\t%s\t%s\t%.2f\t%s\t%.1f B\t%s\t%.2f\t%s\t\n", name, work, l.Level, l.Lines, perWork(l.SteadyLines, 1, ""),
				l.Lines*line, perWork(l.SteadyLines, line, " B"), l.WriteBacks, perWork(l.SteadyWriteBacks, 1, ""))
			name, work = "", ""
		}
	}
	tw.Flush()
	printLimits(w, rep)
	for _, r := range rep.Steady {
		if r.TakenOff != "" {
			fmt.Fprintf(w, "  steady state of %s: the fewer of the lines a second, warm run of its outermost loops brings in and the lines %s add, per line of work\n", lang.Printable(r.Region), r.TakenOff)
		} else {
			fmt.Fprintf(w, "  steady state of %s: the lines a second, warm run of its outermost loops brings in, per line of work (%s)\n", lang.Printable(r.Region), r.Why)
		}
	}
}

// perWork prints a steady-state figure scaled by k, or "-" when there is
// none.
func perWork(v *float64, k float64, unit string) string {
	if v == nil {
		return "-"
	}
	if unit != "" {
		return fmt.Sprintf("%.1f%s", *v*k, unit)
	}
	return fmt.Sprintf("%.2f", *v*k)
}

// printLimits prints every layer condition once with where it changes.
func printLimits(w io.Writer, rep *analyze.Report) {
	seen := map[string]bool{}
	header := false
	for _, r := range rep.Steady {
		for _, l := range r.Levels {
			for _, c := range l.Conditions {
				if seen[c.Condition] {
					continue
				}
				seen[c.Condition] = true
				if !header {
					fmt.Fprintln(w, "layer conditions and the sizes at which they change:")
					header = true
				}
				lim := ""
				if len(c.Limits) > 0 {
					lim = "; " + strings.Join(c.Limits, ", ")
				}
				fmt.Fprintf(w, "  %s%s\n", c.Condition, lim)
			}
		}
	}
}
