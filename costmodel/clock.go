package costmodel

import (
	"fmt"

	"perfc/analyze"
	"perfc/internal/units"
)

// The program's clock (docs/predict.md, "The program's clock").
//
// A generated program measures a region from a clock read at its start to
// one at its end, and a run from a clock read before its first statement
// to one after its last. What those reads and the region bookkeeping cost
// is inside the measured times: TICK2 (about 48 ns on this project's host)
// per region entry, and about 80 ns per run outside every region. For a
// region of a microsecond that is several per cent, so a table that
// gives compute.clock has it priced: per region entry in the region, per
// run outside every region. It is not compute: it composes with nothing
// and no emulated segment carries it; it is added to the region's time and
// to the prediction's total as the last step.

// outsideRegions names the time of a run outside every region, as the
// analyzer and the generated programs do.
const outsideRegions = "(outside regions)"

// clockTerms prices the clock reads of one region: its entries times the
// table's cost per region entry, and as much again for every region
// entered directly inside it. A region's time runs from the clock read
// that enters it to the one that leaves it, except while a region inside
// it runs: each inner region splits it into one stretch more, from the
// clock read that leaves the inner region to the next, which holds one
// reading of the clock and the bookkeeping of one leave and one enter, as
// an empty region's time does (measured: an empty region entered k times
// inside another adds 49-50 ns per entry to it, clock.region 49.2 ns;
// halo2d 2 × 1 at nx = 32, 30 region entries a run, 2.2 µs outside every
// region against 76 ns priced). Outside every region the stretch before
// the run's first region is clock.run's, so it counts one fewer.
func (p *machinePricer) clockTerms(name string, c analyze.Counts) []Term {
	clock, ok := p.m.Compute().Clock()
	if !ok || !clock.Region.Given {
		return nil
	}
	var out []Term
	if n := c.RegionEntries.Float(); n > 0 {
		out = append(out, Term{Resource: "clock", What: "clock reads of the region (the program's timing)", Count: n, Unit: "entry",
			UnitCost: clock.Region.Value, Time: n * clock.Region.Value,
			How: "region entries × " + clock.Region.String(), Source: clock.Region.Source})
	}
	inner := c.InnerRegionEntries.Float()
	how := "entries of the regions inside it × " + clock.Region.String()
	if name == outsideRegions && inner > 0 {
		inner--
		how = "entries of the regions at the top level but the run's first (clock.run's) × " + clock.Region.String()
	}
	if inner > 0 {
		out = append(out, Term{Resource: "clock", What: "clock reads around the regions inside (the program's timing)", Count: inner, Unit: "entry",
			UnitCost: clock.Region.Value, Time: inner * clock.Region.Value, How: how, Source: clock.Region.Source})
	}
	return out
}

// addClock adds to every region of a class the clock reads of its entries
// and of the regions inside it (after the cores' sharing, which
// recomposes a region's time from its compute and memory) and returns
// what it added.
func (p *machinePricer) addClock(cl *analyze.Class, regions []RegionPrediction) float64 {
	var added float64
	for i, r := range cl.Regions {
		for _, t := range p.clockTerms(r.Name, r.Counts) {
			rp := &regions[i]
			rp.Clock += t.Time
			rp.Time += t.Time
			rp.Terms = append(rp.Terms, t)
			added += t.Time
		}
	}
	return added
}

// runClock is the table's cost per run outside every region, as a term of
// the region "(outside regions)"; ok is false when the table gives none.
func (p *machinePricer) runClock() (Term, bool) {
	clock, ok := p.m.Compute().Clock()
	if !ok || !clock.Run.Given || clock.Run.Value == 0 {
		return Term{}, false
	}
	t := Term{Resource: "clock", What: "clock reads of the run (the program's timing, outside every region)", Count: 1, Unit: "run",
		UnitCost: clock.Run.Value, Time: clock.Run.Value,
		How: fmt.Sprintf("one run × %s", units.Time(clock.Run.Value)), Source: clock.Run.Source}
	if st := clock.SharedStart; st.Given && st.Value > 0 && p.sharesCores() {
		// The harness wakes the ranks at its gate before every run, and
		// more ranks than cores take the cores in turn before the run's
		// first synchronisation completes (perfc calibrate's START).
		t.What = "clock reads and start of the run (the program's timing and gate, outside every region)"
		t.UnitCost += st.Value
		t.Time = t.UnitCost
		t.How = fmt.Sprintf("one run × (%s + %s to start %d ranks on %d cores: compute.clock.shared_start)",
			units.Time(clock.Run.Value), units.Time(st.Value), p.ranks, p.Cores())
	}
	return t, true
}

// addRunClock adds the run's clock reads to the region outside every
// region, adding that region when the kernel does nothing outside its
// regions, and returns what it added.
func (p *machinePricer) addRunClock(regions []RegionPrediction) ([]RegionPrediction, float64) {
	t, ok := p.runClock()
	if !ok {
		return regions, 0
	}
	for i := range regions {
		if regions[i].Name == outsideRegions {
			regions[i].Clock += t.Time
			regions[i].Time += t.Time
			regions[i].Terms = append(regions[i].Terms, t)
			return regions, t.Time
		}
	}
	r := RegionPrediction{Name: outsideRegions, Clock: t.Time, Time: t.Time, Terms: []Term{t}}
	r.Bottleneck = bottleneckOf(r)
	out := append([]RegionPrediction{r}, regions...)
	return out, t.Time
}
