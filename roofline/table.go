package roofline

import (
	"fmt"
	"io"
	"text/tabwriter"

	"perfc/internal/units"
	"perfc/lang"
)

// WriteTable prints the roofline for people: the ceilings, then one row
// per region and level.
func (r *Roofline) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "roofline (a prediction, not a measurement) for kernel %s on %s (%s), ranks %s\n", r.Kernel, r.Machine, r.File, r.Ranks)
	fmt.Fprintln(w, "intensity at a level = nominal flop / ((lines in + lines written back) x line size), from the analytic cache-line model")
	fmt.Fprintln(w, "ceilings:")
	if r.Peak != nil {
		fmt.Fprintf(w, "  %s: %s\n", r.Peak.Name, units.Rate(r.Peak.Peak))
	} else {
		fmt.Fprintf(w, "  peak: %s\n", noPeak)
	}
	for _, c := range r.Ceilings {
		if c.BW > 0 {
			fmt.Fprintf(w, "  %s: %s\n", c.Name, units.Bandwidth(c.BW))
		} else {
			fmt.Fprintf(w, "  %s: %s\n", c.Name, noBandwidth)
		}
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "region\tlevel\tintensity flop/B\tpredicted\tceiling\tbound by")
	for _, p := range r.Points {
		in := "no traffic"
		if p.Bytes > 0 {
			in = units.Number(p.Intensity)
		}
		pred := "-"
		if p.Time > 0 {
			pred = units.Rate(p.Predicted)
		}
		bound := "-"
		if p.Bound > 0 {
			bound = units.Rate(p.Bound)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", lang.Printable(p.Region), p.Level, in, pred, bound, p.BoundBy)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	return nil
}
