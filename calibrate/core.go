package calibrate

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"perfc/analyze"
	"perfc/calibrate/fit"
	"perfc/internal/units"
	"perfc/machinecode"
	"perfc/machines"
)

// The fit of compute.core (docs/calibrate.md, "The core's code
// throughput"): the in-core benchmarks' own machine code, read from the
// binary that was timed (machinecode.Read), priced as the pricing prices
// compiled code (docs/predict.md, "In-core time from the compiled code"):
//
//	time = cycle × Σ over the region's loops of iterations ×
//	       max(blocks/b, instructions/w, loads/l, stores/s, FP/f)
//
// The front end's rate is fixed at one block per cycle (gridBlocks). The
// other widths are small whole numbers (a port count, a decode width), so
// they are found by a search over a grid, and for each the cycle time that
// minimises the relative squared error in closed form; the best of the grid
// wins, ties going to the widest widths (a width no region is bound by is
// not measured, and the widest assumes least).

// coreRow is one benchmark region seen through its code: each loop's
// iterations and direct code, and the measured time.
type coreRow struct {
	name    string
	seconds float64
	loops   []coreLoop
}

// coreLoop is one kernel loop of a region with its machine code.
type coreLoop struct {
	iters   float64
	entries float64 // times the region enters the loop
	body    machinecode.Body
}

// coreModelFit is the fitted compute.core with its quality.
type coreModelFit struct {
	cycle                            float64 // seconds
	entry                            float64 // cycles per loop entry
	blocks, issue, loads, stores, fp float64 // per cycle
	rms                              float64 // relative rms over the rows
	residuals                        []float64
	rows                             []coreRow
	bound                            map[string]int // rows by the resource that bound most of their time
	skipped                          int            // regions left out (slow operations, unmapped loops)
	win                              coreWindow     // the reorder window with entries priced by code (zero: none)
	windowErr                        error
	// oneCycle is the one-cycle time that chose among the near ties (0:
	// none given); byRMS the grid point of the lowest rms, which it may
	// have set aside.
	oneCycle float64
	byRMS    machines.CoreModel
	// divider is the divider's hold per kind (nil: none fitted, with
	// dividerErr saying why), fitted after the widths.
	divider    *dividerFit
	dividerErr error
}

// Grids of the widths searched.
var (
	// The front end's one 64-byte block per cycle is fixed, not fitted:
	// every width and the cycle scale together (twice every width and
	// twice the cycle time price alike), so one must be given, and the
	// block law is the one measured directly (docs/calibrate.md, "Code
	// placement": every placement of one loop, 1 or 2 cycles by blocks).
	gridBlocks = []float64{1}
	gridIssue  = []float64{8, 6, 5, 4, 3, 2}
	gridLoads  = []float64{4, 3, 2, 1}
	gridStores = []float64{2, 1}
	gridFP     = []float64{4, 2, 1}
)

// cyclesWith is a row's cycles with the given widths and entry cost.
func cyclesWith(r coreRow, core machines.CoreModel) float64 {
	it, en := rowCycles(r, core)
	return it + en*core.Entry.Value
}

// rowCycles is a row's cycles of loop iterations with the given widths,
// and the entries of its loops (each compute.core.entry cycles).
func rowCycles(r coreRow, core machines.CoreModel) (iterations, entries float64) {
	for _, l := range r.loops {
		cy, _ := coreCyclesOf(core, l.body)
		iterations += l.iters * cy
		entries += l.entries
	}
	return iterations, entries
}

// cycleAndEntry fits the cycle time c and the cycles per loop entry e of
// widths core to rows, minimising the relative squared error
// Σ ((c·I + c·e·E)/y − 1)² over the rows' iteration cycles I and entries
// E: linear least squares in c and d = c·e, with d held at 0 when its
// best value is negative (an entry costs nothing less than its code) or
// the rows cannot tell it apart (their entries in proportion to their
// iterations). ok is false when the widths price no row.
func cycleAndEntry(rows []coreRow, core machines.CoreModel) (c, e float64, ok bool) {
	var saa, sab, sbb, sa, sb float64
	for _, r := range rows {
		it, en := rowCycles(r, core)
		a, b := it/r.seconds, en/r.seconds
		saa, sab, sbb, sa, sb = saa+a*a, sab+a*b, sbb+b*b, sa+a, sb+b
	}
	if saa == 0 {
		return 0, 0, false
	}
	if det := saa*sbb - sab*sab; det > 1e-9*saa*sbb {
		c, d := (sa*sbb-sb*sab)/det, (saa*sb-sab*sa)/det
		if c > 0 && d >= 0 {
			return c, d / c, true
		}
	}
	c = sa / saa
	return c, 0, c > 0
}

// coreCyclesOf is the cycles per iteration of a body, as the pricing
// computes them (machinecode.Cycles), and the resource that sets them.
func coreCyclesOf(core machines.CoreModel, b machinecode.Body) (float64, string) {
	cycles, bound, _ := machinecode.Cycles(b, machinecode.Widths{Blocks: core.BlocksPerCycle.Value, Issue: core.Issue.Value,
		Loads: core.LoadPorts.Value, Stores: core.StorePorts.Value, FP: core.FPPorts.Value, Divider: core.DividerCycles()})
	return cycles, bound
}

// widths is a CoreModel with the given widths and cycle.
func widths(cycle, blocks, issue, loads, stores, fp float64) machines.CoreModel {
	n := func(v float64) machines.Number {
		return machines.Number{Quantity: machines.Quantity{Value: v}, Given: true}
	}
	return machines.CoreModel{Cycle: n(cycle), BlocksPerCycle: n(blocks), Issue: n(issue), LoadPorts: n(loads), StorePorts: n(stores), FPPorts: n(fp)}
}

// coreNearTies is how much worse than the best grid point's rms another
// point's may be and still count as fitting the rows as well: the grid's
// minima lie close together (issue 6 at a 0.281 ns cycle and issue 8 at
// 0.319 ns fitted this host's regions within a few points of rms, and one
// full calibration in four chose the second), so the rows alone do not
// decide between them.
const coreNearTies = 0.10

// fitCoreModel fits the cycle time and the widths to rows. oneCycle, when
// positive, is a time measured to be one cycle (an integer add chain, one
// add per cycle on every core: coreCycleHint): among the grid points whose
// rms is within coreNearTies of the best, the one whose cycle is nearest
// to it wins, so that the cycle agrees with the latency benchmarks'.
func fitCoreModel(rows []coreRow, oneCycle float64) (*coreModelFit, error) {
	if len(rows) < 3 {
		return nil, fmt.Errorf("calibrate: %d regions with their machine code, too few to fit compute.core", len(rows))
	}
	var cands []coreModelFit // every grid point with its least-squares cycle and rms
	for _, b := range gridBlocks {
		for _, w := range gridIssue {
			for _, l := range gridLoads {
				for _, s := range gridStores {
					for _, f := range gridFP {
						core := widths(1, b, w, l, s, f)
						c, e, ok := cycleAndEntry(rows, core)
						if !ok {
							continue
						}
						core.Entry = machines.Number{Quantity: machines.Quantity{Value: e}, Given: true}
						var ss float64
						for _, r := range rows {
							d := c*cyclesWith(r, core)/r.seconds - 1
							ss += d * d
						}
						cands = append(cands, coreModelFit{cycle: c, entry: e, blocks: b, issue: w, loads: l, stores: s, fp: f, rms: math.Sqrt(ss / float64(len(rows)))})
					}
				}
			}
		}
	}
	best := &coreModelFit{rms: math.Inf(1)}
	for _, c := range cands { // ties go to the widest widths, which the grids list first
		if c.rms < best.rms-1e-12 {
			*best = c
		}
	}
	if oneCycle > 0 && !math.IsInf(best.rms, 1) {
		bestRMS, off, byRMS := best.rms, math.Abs(best.cycle/oneCycle-1), best.model()
		for _, c := range cands {
			if d := math.Abs(c.cycle/oneCycle - 1); c.rms <= bestRMS*(1+coreNearTies)+1e-12 && d < off-1e-12 {
				*best = c
				off = d
			}
		}
		best.oneCycle, best.byRMS = oneCycle, byRMS
	}
	if math.IsInf(best.rms, 1) {
		return nil, errors.New("calibrate: the in-core regions' machine code has no instructions to fit compute.core to")
	}
	best.rows = rows
	best.bound = map[string]int{}
	core := best.model()
	for _, r := range rows {
		fitted := best.cycle * cyclesWith(r, core)
		best.residuals = append(best.residuals, fitted-r.seconds)
		most, what := 0.0, ""
		for _, l := range r.loops {
			cy, name := coreCyclesOf(core, l.body)
			if l.iters*cy > most {
				most, what = l.iters*cy, name
			}
		}
		best.bound[what]++
	}
	return best, nil
}

// tieNote says how the one-cycle time chose among near ties, for the
// table's source: "" when none was given.
func (f *coreModelFit) tieNote() string {
	if f.oneCycle <= 0 {
		return ""
	}
	s := fmt.Sprintf("; of the widths within %.0f %% of the lowest rms, those whose cycle is nearest the i64 add chain's latency %s (one cycle)", 100*coreNearTies, units.Time(f.oneCycle))
	if b := f.byRMS; b.Issue.Value != f.issue || b.LoadPorts.Value != f.loads || b.StorePorts.Value != f.stores || b.FPPorts.Value != f.fp {
		s += fmt.Sprintf(" (the lowest rms was issue %g, load ports %g, store ports %g, FP ports %g at a %s cycle)",
			b.Issue.Value, b.LoadPorts.Value, b.StorePorts.Value, b.FPPorts.Value, units.Time(b.Cycle.Value))
	}
	return s
}

// model is the fit as a CoreModel (values only), with the divider's holds
// once they are fitted.
func (f *coreModelFit) model() machines.CoreModel {
	m := widths(f.cycle, f.blocks, f.issue, f.loads, f.stores, f.fp)
	if f.entry > 0 {
		m.Entry = machines.Number{Quantity: machines.Quantity{Value: f.entry}, Given: true}
	}
	if f.win.exponent > 0 {
		m.WindowExponent = machines.Number{Quantity: machines.Quantity{Value: f.win.exponent}, Given: true}
	}
	if f.divider != nil {
		m.Divider = map[string]machines.Number{}
		for k, v := range f.divider.hold {
			m.Divider[k] = machines.Number{Quantity: machines.Quantity{Value: v}, Given: true}
		}
	}
	return m
}

// coreRows pairs the throughput benchmarks with their code: every loop of
// a region must have its machine loop (or iterate at most once per
// entry), and regions with slow operations (divides, square roots, calls)
// are left out: the calls keep their table costs, and the divides time
// the divider (dividerRows).
func coreRows(pts []point, code *machinecode.Code) (rows []coreRow, skipped int) {
	for _, p := range pts {
		if hasSlowOps(p.counts) {
			skipped++
			continue
		}
		row, ok := rowOf(p, code)
		if !ok || len(row.loops) == 0 {
			skipped++
			continue
		}
		rows = append(rows, row)
	}
	return rows, skipped
}

// rowOf is a region with each of its loops' machine code; ok is false when
// a loop that iterates more than once per entry has no machine loop (one
// that iterates at most once is straight-line code of its parent).
func rowOf(p point, code *machinecode.Code) (coreRow, bool) {
	row := coreRow{name: p.bench.name, seconds: p.seconds}
	for _, l := range p.counts.Loops {
		iters := l.Iterations.Float()
		if iters == 0 {
			continue
		}
		i, found := code.ByKernel[lineColOf(l.Stmt)]
		if !found {
			if iters <= l.Entries.Float() {
				continue
			}
			return coreRow{}, false
		}
		row.loops = append(row.loops, coreLoop{iters: iters, entries: l.Entries.Float(), body: code.Loops[i].Body})
	}
	return row, true
}

// hasSlowOps reports whether counts have operations the pricing of code
// keeps at their table costs.
func hasSlowOps(c analyze.Counts) bool {
	return slices.ContainsFunc(c.Ops, func(o analyze.OpCount) bool {
		switch o.Op {
		case analyze.OpDiv, analyze.OpRem, analyze.OpSqrt, analyze.OpExp, analyze.OpLog, analyze.OpSin, analyze.OpCos:
			return !o.Count.IsZero()
		}
		return false
	})
}

// lineColOf is the "line:col" of a "file:line:col" position.
func lineColOf(pos string) string {
	n := 0
	for i := len(pos) - 1; i >= 0; i-- {
		if pos[i] == ':' {
			n++
			if n == 2 {
				return pos[i+1:]
			}
		}
	}
	return pos
}

// coreYAML is compute.core as the table writes it.
type coreYAML struct {
	Cycle          string       `yaml:"cycle"`
	Issue          float64      `yaml:"issue"`
	LoadPorts      float64      `yaml:"load_ports"`
	StorePorts     float64      `yaml:"store_ports"`
	FPPorts        float64      `yaml:"fp_ports"`
	BlocksPerCycle float64      `yaml:"blocks_per_cycle"`
	Window         *numberYAML  `yaml:"window,omitempty,flow"`
	WindowExponent *numberYAML  `yaml:"window_exponent,omitempty,flow"`
	Entry          *numberYAML  `yaml:"entry,omitempty,flow"`
	Divider        *dividerYAML `yaml:"divider,omitempty"`
	Source         string       `yaml:"source"`
}

// dividerYAML is compute.core.divider as the table writes it.
type dividerYAML struct {
	Div    map[string]string `yaml:"div,omitempty,flow"`
	Sqrt   map[string]string `yaml:"sqrt,omitempty,flow"`
	Source string            `yaml:"source"`
}

// dividerSection writes compute.core.divider from the fit, nil without one.
func (r *Result) dividerSection(f *coreModelFit) *dividerYAML {
	d := f.divider
	if d == nil {
		return nil
	}
	out := &dividerYAML{Source: fmt.Sprintf("perfc calibrate ops div and sqrt regions' machine code (y[i] = x[i] OP z[i], one and two per iteration, in L1): "+
		"a region's time less its other loops' over its divides, the median per kind of the regions bound by the divider, %s; "+
		"the %d regions priced with them: fit rms %s, worst %s", r.Date, d.rows, pct(d.rms), d.worst)}
	for k, v := range d.hold {
		op, elem, _ := strings.Cut(k, " ")
		m := &out.Div
		if op == "sqrt" {
			m = &out.Sqrt
		}
		if *m == nil {
			*m = map[string]string{}
		}
		(*m)[elem] = ns(v)
	}
	return out
}

// coreSection writes compute.core from the fit, nil without one.
func (r *Result) coreSection() *coreYAML {
	f := r.Core.core
	if f == nil {
		return nil
	}
	var bound []string
	for _, k := range []string{"64-byte blocks", "instructions", "loads", "stores", "floating-point instructions"} {
		if n := f.bound[k]; n > 0 {
			bound = append(bound, fmt.Sprintf("%s %d", k, n))
		}
	}
	var window, exponent *numberYAML
	if w := f.win; w.window > 0 {
		window = &numberYAML{Value: ns(w.window), Source: fmt.Sprintf("perfc calibrate window benchmarks (as compute.latency.window) with each entry's work priced by its compiled code, %s, fit rms %s", r.Date, pct(w.rms))}
		if w.exponent > 0 {
			exponent = &numberYAML{Value: strconv.FormatFloat(w.exponent, 'g', -1, 64), Source: fmt.Sprintf("perfc calibrate window benchmarks: of the exponents p = %s, the one whose best window fits them with the lowest rms (%s), %s",
				w.exponentList(), pct(w.rms), r.Date)}
		}
	}
	var entry *numberYAML
	if f.entry > 0 {
		entry = &numberYAML{Value: strconv.FormatFloat(f.entry, 'g', 4, 64), Source: fmt.Sprintf("perfc calibrate in-core regions' machine code: cycles per entry of a machine loop, "+
			"fitted with the cycle by least squares on relative error (the loop sweep's lengths 1..512 and RINF1's 1..256 set it apart from the iterations), %s, fit rms %s", r.Date, pct(f.rms))}
	}
	return &coreYAML{Window: window, WindowExponent: exponent, Entry: entry, Divider: r.dividerSection(f), Cycle: ns(f.cycle), Issue: f.issue, LoadPorts: f.loads, StorePorts: f.stores, FPPorts: f.fp, BlocksPerCycle: f.blocks,
		Source: fmt.Sprintf("perfc calibrate in-core regions' machine code (go tool objdump of the timed binary), %d regions (%d left out: slow operations or unmapped loops), "+
			"time = cycle × Σ (iterations × max(blocks/%g, instructions/w, loads/l, stores/s, fp/f) + entries × entry), widths by grid search, cycle and entry by least squares on relative error%s, %s, fit rms %s; regions bound by: %s",
			len(f.rows), f.skipped, f.blocks, f.tieNote(), r.Date, pct(f.rms), strings.Join(bound, ", "))}
}

// coreResults adds to results: the compute.core fit's rms beside the
// counts' throughput fit's on the same regions, and its worst regions;
// or why there is no compute.core.
func (r *Result) coreResults(add func(name, value, src string)) {
	cf := r.Core
	f := cf.core
	if f == nil {
		if cf.coreErr != nil {
			add("compute.core", "not fitted", fmt.Sprintf("perfc calibrate, %s: %v", r.Date, cf.coreErr))
		}
		return
	}
	if f.windowErr != nil {
		add("compute.core window", "not fitted", fmt.Sprintf("perfc calibrate, %s: %v", r.Date, f.windowErr))
	}
	if f.dividerErr != nil {
		add("compute.core divider", "not fitted", fmt.Sprintf("perfc calibrate, %s: %v", r.Date, f.dividerErr))
	}
	// The counts' fit on the same regions, for comparison.
	byName := map[string]int{}
	for i, p := range cf.tp {
		byName[p.bench.name] = i
	}
	var ss float64
	for _, row := range f.rows {
		i := byName[row.name]
		e := cf.throughput.Residuals[i] / (cf.throughput.Fitted[i] + cf.throughput.Residuals[i])
		ss += e * e
	}
	add("compute.core fit: relative rms", strconv.FormatFloat(f.rms, 'f', 3, 64),
		fmt.Sprintf("perfc calibrate in-core regions with their machine code, %d regions, %s; the counts' fit (compute.loop, access, ops) misses the same regions by %s rms",
			len(f.rows), r.Date, pct(math.Sqrt(ss/float64(len(f.rows))))))
	order := make([]int, len(f.rows))
	for i := range order {
		order[i] = i
	}
	rel := func(i int) float64 { return f.residuals[i] / f.rows[i].seconds }
	slices.SortFunc(order, func(a, b int) int { return cmpAbs(rel(b), rel(a)) })
	for _, i := range order[:min(3, len(order))] {
		add("compute.core fit: |relative error| of region "+f.rows[i].name, strconv.FormatFloat(math.Abs(rel(i)), 'f', 3, 64),
			fmt.Sprintf("perfc calibrate, %s: measured %s, compiled code priced %s (%+.1f%%), one of the three worst", r.Date, ns(f.rows[i].seconds), ns(f.rows[i].seconds+f.residuals[i]), 100*rel(i)))
	}
}

// cmpAbs orders by absolute value.
func cmpAbs(a, b float64) int {
	switch x, y := math.Abs(a), math.Abs(b); {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// fitCoreWindow fits the reorder window again with every time priced by
// the code (compute.core.window): the law's T_e is an entry's work, and
// the code prices that work differently from the counts, so a window
// fitted beside the counts' T_e would overlap too many or too few entries
// when the pricing uses the code's. The rows are the window benchmarks of
// the counts' window fit, their chains' latencies the same.
func fitCoreWindow(cf *coreFit, code *machinecode.Code) (coreWindow, error) {
	if cf.window == nil || cf.core == nil {
		return coreWindow{}, nil
	}
	core := cf.core.model()
	var rows []windowRow
	for _, p := range cf.window.pts {
		row, err := windowRowOf(cf, p)
		if err != nil {
			return coreWindow{}, err
		}
		var ch *analyze.Chain
		for i := range p.counts.Chains {
			if p.counts.Chains[i].Restarts {
				ch = &p.counts.Chains[i]
			}
		}
		inside := map[string]bool{}
		for _, k := range code.Inside(lineColOf(ch.Loop)) {
			inside[k] = true
		}
		row.region, row.body = 0, 0
		for _, l := range p.counts.Loops {
			iters := l.Iterations.Float()
			i, ok := code.ByKernel[lineColOf(l.Stmt)]
			if !ok {
				if iters <= l.Entries.Float() {
					continue
				}
				return coreWindow{}, fmt.Errorf("calibrate: window benchmark %q: no machine loop runs the loop at %s", p.name, l.Stmt)
			}
			cy, _ := coreCyclesOf(core, code.Loops[i].Body)
			t := iters * cy * cf.core.cycle
			entries := core.EntryTime(l.Entries.Float())
			row.region += t + entries
			if inside[lineColOf(l.Stmt)] {
				row.body += t
				if lineColOf(l.Stmt) != lineColOf(ch.Loop) {
					row.body += entries // the chain's loop's own entries are its parent's work
				}
			}
		}
		rows = append(rows, row)
	}
	return fitWindowAndExponent(rows)
}

// coreWindow is the code's reorder window and the exponent of its law's
// smooth maximum (0: the plain maximum), with the fit's relative rms.
type coreWindow struct {
	window, exponent, rms float64
	rmsByExponent         []float64 // the best rms of each of windowExponents
}

// windowExponents are the smooth maximum's exponents fitted over: 0 (the
// plain maximum) first, then from sharp to smooth, so that a tie keeps the
// sharper law.
var windowExponents = []float64{0, 16, 12, 8, 6, 4, 3, 2}

// fitWindowAndExponent fits the window W and the exponent p of the law
// E·(T_e^p + (L_e/n)^p)^(1/p) to the window benchmarks: for each p of
// windowExponents the W of the lowest relative rms (fit.Minimize1D), and
// the p whose best rms is lowest. Where T_e and L_e/n are close the core
// hides neither (POLY1 on this host), which the plain maximum, n entries
// overlapping perfectly, cannot follow; the benchmarks' k from 1 to 128
// run from T_e-bound through the crossing to L_e-bound.
func fitWindowAndExponent(rows []windowRow) (coreWindow, error) {
	best := coreWindow{rms: math.Inf(1)}
	var rmsByExponent []float64
	for _, p := range windowExponents {
		law := machines.CoreModel{}
		if p > 0 {
			law.WindowExponent = machines.Number{Quantity: machines.Quantity{Value: p}, Given: true}
		}
		w, rms, err := fit.Minimize1D(func(w float64) float64 { return windowRMS(rows, w, law) }, 1e-11, 1e-5)
		if err != nil {
			return coreWindow{}, fmt.Errorf("calibrate: compute.core window fit: %w", err)
		}
		if rms < best.rms-1e-9 {
			best = coreWindow{window: w, exponent: p, rms: rms}
		}
		rmsByExponent = append(rmsByExponent, rms)
	}
	best.rmsByExponent = rmsByExponent
	return best, nil
}

// exponentList lists windowExponents with the best rms of each, for the
// source ("0 (the plain maximum; rms 4.1%), 16 (rms 4.1%), …").
func (w coreWindow) exponentList() string {
	parts := make([]string, len(windowExponents))
	for i, p := range windowExponents {
		name := strconv.FormatFloat(p, 'g', -1, 64)
		if p == 0 {
			name += " (the plain maximum; "
		} else {
			name += " ("
		}
		parts[i] = name + "rms " + pct(w.rmsByExponent[i]) + ")"
	}
	return strings.Join(parts, ", ")
}
