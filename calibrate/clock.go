package calibrate

import (
	"fmt"
	"strings"
)

// The program's clock: what a generated program's own timing adds to what
// it measures (compute.clock, docs/predict.md "The program's clock").
//
// The kernel is the smallest a user can write: one empty region, entered
// once per run, as most kernels enter theirs. Its region's time is one
// region entry's clock reads and bookkeeping; its time outside every region
// is what a run costs beyond its regions (the clock reads that start and
// end it). Both are medians per run over the measurements, the statistic
// validate compares with. TICK2 (an empty region entered thousands of
// times in a loop) measures the first too, hot, and is kept in results.

// clockKernel generates the clock kernel.
func clockKernel() kernelSpec {
	text := "// perfc calibrate: the program's clock (one empty region per run).\n" +
		"kernel calib_clock() {\n  region \"empty\" {\n  }\n}\n"
	return kernelSpec{name: "calib_clock", text: text, benches: []bench{{name: "empty", group: groupTick2, reps: 1}}}
}

// clockFit is the clock's cost per region entry and per run, in seconds,
// with the spread of each over the measurements.
type clockFit struct {
	region, run             float64
	regionSpread, runSpread float64
	samples                 int
}

// fitClock reads the clock kernel's measurement.
func fitClock(mk *measuredKernel) (*clockFit, error) {
	if len(mk.points) != 1 {
		return nil, fmt.Errorf("calibrate: the clock kernel measured %d regions, want 1", len(mk.points))
	}
	f := &clockFit{region: mk.points[0].seconds, regionSpread: mk.points[0].spread}
	for _, t := range mk.m.Regions {
		if t.Name != "(outside regions)" {
			continue
		}
		if !(t.MedianUs > 0) {
			return nil, fmt.Errorf("calibrate: the clock kernel measured %g us outside its region per run; a time must be positive", t.MedianUs)
		}
		f.run, f.runSpread, f.samples = t.MedianUs*1e-6, (t.MaxUs-t.MinUs)/t.MedianUs, len(t.SamplesUs)
		return f, nil
	}
	return nil, fmt.Errorf("calibrate: the clock kernel's measurement has no time outside its region")
}

// clockSection is compute.clock of the table.
func (r *Result) clockSection() *clockYAML {
	c := r.Clock
	if c == nil {
		return nil
	}
	y := &clockYAML{Region: ns(c.region), Run: ns(c.run), Source: fmt.Sprintf(
		"perfc calibrate clock: a kernel of one empty region, entered once per run; region: its time per run (spread %s), "+
			"run: its time outside the region per run (spread %s), medians of %d measurements, %s",
		pct(c.regionSpread), pct(c.runSpread), c.samples, r.Date)}
	if st := r.Start; st != nil {
		y.SharedStart = ns(st.excess)
		y.Source += fmt.Sprintf("; shared_start: perfc calibrate START, %d ranks on %d cores: a run of one barrier %s "+
			"(spread %s, median of %d measurements) less the clock and one barrier of %s (a run of %d more took %s)",
			st.ranks, st.cores, fmtUs(st.one*1e6), pct(st.spread), st.samples, fmtUs(st.barrier*1e6), startLater, fmtUs(st.more*1e6))
		if len(st.excesses) > 1 {
			var each []string
			for _, e := range st.excesses {
				each = append(each, fmtUs(e*1e6))
			}
			y.Source += fmt.Sprintf("; the fastest of %d repeats, whose excesses were %s", len(st.excesses), strings.Join(each, ", "))
		}
	}
	return y
}

// clockYAML is compute.clock.
type clockYAML struct {
	Region      string `yaml:"region"`
	Run         string `yaml:"run"`
	SharedStart string `yaml:"shared_start,omitempty"`
	Source      string `yaml:"source"`
}
