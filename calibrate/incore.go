package calibrate

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"perfc/analyze"
	"perfc/calibrate/fit"
)

// The in-core fits regress measured region times on the analyzer's counts
// of the same regions, so that every fitted cost means exactly what the
// pricing multiplies it by (docs/predict.md, "Pricing a modern core"):
//
//	T_core = iterations·loop.iteration + entries·loop.entry
//	       + loads·access.load + stores·access.store + Σ ops·cost(op, type)
//
// where a multiply-add pair is one madd (its mul and add are not counted
// again), and the latency of a loop-carried chain is Σ latency(op)·count
// over the chain's operations.

// Feature names of the fits besides the operations.
const (
	featIteration = "iteration"
	featEntry     = "entry"
	featLoad      = "load"
	featStore     = "store"
)

// opFeature names an operation column: "div f64".
func opFeature(op, t string) string { return op + " " + t }

// opFeatures adds the operations of ops and madds to f, one column per
// operation and type whatever the pattern, a multiply-add pair as one
// madd in place of its mul and its add (or sub). Operations the tables
// have no entry for (the negation in exp(−s), conversions) are left out:
// they only occur beside a timed operation, always in the same number,
// so no fit can tell them apart, and the timed operation's cost includes
// them.
func opFeatures(f map[string]float64, ops, madds []analyze.OpCount) {
	for _, o := range ops {
		if slices.Contains(opKinds, o.Op.String()) {
			f[opFeature(o.Op.String(), string(o.Type))] += o.Count.Float()
		}
	}
	for _, m := range madds {
		n := m.Count.Float()
		f[opFeature("mul", string(m.Type))] -= n
		f[opFeature(m.Op.String(), string(m.Type))] -= n
		f[opFeature("madd", string(m.Type))] += n
	}
}

// coreFeatures is a throughput benchmark's row: its counts by feature.
func coreFeatures(p point) map[string]float64 {
	c := p.counts
	f := map[string]float64{
		featIteration: c.Iterations.Float(),
		featEntry:     p.entries(),
		featLoad:      c.Loads.Float(),
		featStore:     c.Stores.Float(),
	}
	opFeatures(f, c.Ops, c.Madds)
	return f
}

// chainFeatures is a latency benchmark's row: the operations of its
// longest chain (the analyzer's chains, or every operation of the region
// when the analyzer lists none: each latency benchmark is one chain).
func chainFeatures(p point) map[string]float64 {
	f := map[string]float64{}
	if len(p.counts.Chains) == 0 {
		opFeatures(f, p.counts.Ops, p.counts.Madds)
		return f
	}
	best, bestN := -1, 0.0
	for i, ch := range p.counts.Chains {
		n := 0.0
		for _, o := range ch.Ops {
			n += o.Count.Float()
		}
		if n > bestN {
			best, bestN = i, n
		}
	}
	var madds []analyze.OpCount
	if best >= 0 {
		// A chain's pairs are the region's when the whole region is the chain.
		if len(p.counts.Chains) == 1 {
			madds = p.counts.Madds
		}
		opFeatures(f, p.counts.Chains[best].Ops, madds)
	}
	return f
}

// design turns rows of features into a matrix: the columns every row
// leaves zero are dropped, fixed columns first, then the rest sorted.
func design(rows []map[string]float64, fixed []string) ([][]float64, []string) {
	seen := map[string]bool{}
	for _, r := range rows {
		for k, v := range r {
			if v != 0 {
				seen[k] = true
			}
		}
	}
	var names []string
	for _, k := range fixed {
		if seen[k] {
			names = append(names, k)
		}
	}
	var rest []string
	for k := range seen {
		if !slices.Contains(fixed, k) {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	names = append(names, rest...)
	x := make([][]float64, len(rows))
	for i, r := range rows {
		x[i] = make([]float64, len(names))
		for j, k := range names {
			x[i][j] = max(r[k], 0)
		}
	}
	return x, names
}

// coreFit is the outcome of the in-core fits.
type coreFit struct {
	throughput *fit.Linear // loop, access and operation costs (s per count)
	latency    *fit.Linear // latencies per chained operation (s)
	tp, lat    []point     // the points of each fit
	window     *windowFit  // the reorder window (nil without window benchmarks)
	// forms compares additive and overlapping in-core compositions on
	// held-out benchmarks (overlap.go); the pricing stays additive.
	forms    []compositionResult
	loopRinf *fit.Rinf // empty loop: time per entry against length
	rinf1    *fit.Rinf // RINF1's A = B*C
	tick2    float64   // seconds per clock read (TICK2)
	tick1    float64   // seconds, the runtime's TICK1
	// core is compute.core fitted on the throughput regions' machine code
	// (core.go); nil, with coreErr, when the code could not be read or fitted.
	core    *coreModelFit
	coreErr error
}

// fitCore runs the in-core fits on the in-core kernel's points.
func fitCore(mk *measuredKernel) (*coreFit, error) {
	cf := &coreFit{tick1: mk.tick1}
	var tpRows, latRows []map[string]float64
	var windowPts []point
	var tpY, latY []float64
	var loopN, loopT, rinfN, rinfT []float64
	for _, p := range mk.points {
		switch p.group {
		case groupTick2:
			cf.tick2 = p.seconds / float64(p.reps)
		case groupLoop, groupRinf, groupAccess, groupOps:
			tpRows, tpY = append(tpRows, coreFeatures(p)), append(tpY, p.seconds)
			cf.tp = append(cf.tp, p)
			if p.group == groupLoop {
				loopN, loopT = append(loopN, float64(p.n)), append(loopT, p.seconds/float64(p.reps))
			}
			if p.group == groupRinf {
				rinfN, rinfT = append(rinfN, float64(p.n)), append(rinfT, p.seconds/float64(p.reps))
			}
		case groupLatency:
			latRows, latY = append(latRows, chainFeatures(p)), append(latY, p.seconds)
			cf.lat = append(cf.lat, p)
		case groupWindow:
			windowPts = append(windowPts, p)
		}
	}
	var err error
	x, names := design(tpRows, []string{featIteration, featEntry, featLoad, featStore})
	if cf.throughput, err = fit.NNLS(x, tpY, names); err != nil {
		return nil, fmt.Errorf("calibrate: in-core throughput fit: %w", err)
	}
	x, names = design(latRows, nil)
	if cf.latency, err = fit.NNLS(x, latY, names); err != nil {
		return nil, fmt.Errorf("calibrate: latency fit: %w", err)
	}
	if cf.window, err = fitWindow(cf, windowPts); err != nil {
		return nil, err
	}
	if cf.forms, err = studyCompositions(cf.tp); err != nil {
		return nil, err
	}
	if cf.loopRinf, err = fit.FitRinf(loopN, loopT); err != nil {
		return nil, fmt.Errorf("calibrate: empty-loop fit: %w", err)
	}
	if cf.rinf1, err = fit.FitRinf(rinfN, rinfT); err != nil {
		return nil, fmt.Errorf("calibrate: RINF1 fit: %w", err)
	}
	if mk.code == nil {
		cf.coreErr = mk.codeErr
	} else {
		rows, skipped := coreRows(cf.tp, mk.code)
		if cf.core, cf.coreErr = fitCoreModel(rows, coreCycleHint(cf.latency)); cf.core != nil {
			cf.core.skipped = skipped
			cf.core.divider, cf.core.dividerErr = fitDivider(dividerRows(cf.tp, mk.code), cf.core)
			cf.core.win, cf.core.windowErr = fitCoreWindow(cf, mk.code)
		}
	}
	return cf, nil
}

// coreCycleHint is the latency of an i64 add chain (s = s + x[i]), which
// every core we know runs at one add a cycle, and so one cycle of the
// host; 0 when the latency fit has none.
func coreCycleHint(lat *fit.Linear) float64 {
	if lat == nil {
		return 0
	}
	c, ok := lat.Coefficient(opFeature("add", "i64"))
	if !ok || !(c > 0) {
		return 0
	}
	return c
}

// rmsOf is the relative rms of the fit's residuals over the points of
// one group (and operation, when op is not ""), for that value's source.
func rmsOf(l *fit.Linear, pts []point, keep func(point) bool) float64 {
	var ss float64
	n := 0
	for i, p := range pts {
		if keep(p) {
			r := l.Residuals[i] / (l.Fitted[i] + l.Residuals[i])
			ss += r * r
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return math.Sqrt(ss / float64(n))
}
