package calibrate

import (
	"fmt"
	"math"

	"perfc/analyze"
	"perfc/calibrate/fit"
	"perfc/machines"
)

// The reorder window (compute.latency.window; docs/predict.md, "Chains
// that restart at every entry"). POLY1's Horner loop starts a chain of k
// multiply-adds afresh at every element; an out-of-order core runs the
// chains of several elements at once, as many as its reorder window holds.
// The pricing's bound for such a loop is, per entry of the chain's loop,
//
//	max(T_e, L_e/(1 + W/T_e))
//
// (a smooth maximum of exponent p with the code's window, which
// fitWindowAndExponent fits), with L_e the chain's latency and T_e the entry's throughput time, both
// priced from the fitted tables exactly as costmodel prices them, so the
// one unknown, the window W (a time), is fitted on the window benchmarks
// at several k: short chains hide in the window, long ones show.

// windowFit is the fitted reorder window.
type windowFit struct {
	window float64   // seconds
	rms    float64   // relative rms of the benchmarks' times against the law
	ks     []int64   // the chain lengths measured
	shown  int       // benchmarks whose latency shows (their chain outlasts T_e + W)
	fitted []float64 // the law's time of each benchmark, in pts' order
	pts    []point
}

// windowRow is what the law needs of one window benchmark, priced from
// the fitted tables: the region's throughput time, its restarting chain's
// entries, latency and body throughput (totals, seconds).
type windowRow struct {
	measured, region, entries, latency, body float64
}

// fitWindow fits the reorder window on the window benchmarks, with the
// throughput and latency fits already made. It returns nil when there are
// no window benchmarks (a run without f64).
func fitWindow(cf *coreFit, pts []point) (*windowFit, error) {
	var rows []windowRow
	wf := &windowFit{}
	for _, p := range pts {
		row, err := windowRowOf(cf, p)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
		wf.pts = append(wf.pts, p)
		wf.ks = append(wf.ks, int64(p.k))
	}
	if len(rows) == 0 {
		return nil, nil
	}
	w, rms, err := fit.Minimize1D(func(w float64) float64 { return windowRMS(rows, w, machines.CoreModel{}) }, 1e-11, 1e-5)
	if err != nil {
		return nil, fmt.Errorf("calibrate: window fit: %w", err)
	}
	wf.window, wf.rms = w, rms
	for _, r := range rows {
		wf.fitted = append(wf.fitted, r.law(w, machines.CoreModel{}))
		if r.latency/r.entries > r.body/r.entries+w {
			wf.shown++
		}
	}
	return wf, nil
}

// windowRowOf prices one window benchmark from the fitted tables.
func windowRowOf(cf *coreFit, p point) (windowRow, error) {
	var ch *analyze.Chain
	for i := range p.counts.Chains {
		if p.counts.Chains[i].Restarts {
			ch = &p.counts.Chains[i]
		}
	}
	if ch == nil || ch.Entries.Float() <= 0 {
		return windowRow{}, fmt.Errorf("calibrate: window benchmark %q: the analyzer finds no chain restarting at each entry (analyze.Chain.Restarts)", p.name)
	}
	row := windowRow{measured: p.seconds, region: predictLinear(cf.throughput, coreFeatures(p)), entries: ch.Entries.Float()}
	body := map[string]float64{featIteration: ch.Body.Iterations.Float(), featLoad: ch.Body.Loads.Float(), featStore: ch.Body.Stores.Float()}
	opFeatures(body, ch.Body.Ops, ch.Body.Madds)
	row.body = predictLinear(cf.throughput, body)
	// The chain's latency as the pricing sums it: each operation on the
	// chain at its own latency (a multiply-add as its mul and its add).
	for _, o := range ch.Ops {
		v, ok := cf.latency.Coefficient(opFeature(o.Op.String(), string(o.Type)))
		if !ok {
			return windowRow{}, fmt.Errorf("calibrate: window benchmark %q: no latency fitted for %s %s", p.name, o.Op, o.Type)
		}
		row.latency += v * o.Count.Float()
	}
	return row, nil
}

// predictLinear is a linear fit's value at a row of features; features the
// fit has no column for count nothing (their column was zero everywhere).
func predictLinear(l *fit.Linear, f map[string]float64) float64 {
	var t float64
	for k, v := range f {
		if c, ok := l.Coefficient(k); ok {
			t += c * max(v, 0)
		}
	}
	return t
}

// law is the pricing's time of the benchmark's region with window w: its
// throughput time, and the restarting chain's excess over its body's
// (costmodel's chainBound), whose maximum is m's
// (machines.CoreModel.WindowMax): the plain one for the zero CoreModel.
func (r windowRow) law(w float64, m machines.CoreModel) float64 {
	te, le := r.body/r.entries, r.latency/r.entries
	n := 1.0
	if te > 0 {
		n = 1 + w/te
	}
	return r.region + max(0, r.entries*m.WindowMax(te, le/n)-r.body)
}

// windowRMS is the relative rms of the law with window w and m's maximum
// over the rows.
func windowRMS(rows []windowRow, w float64, m machines.CoreModel) float64 {
	var ss float64
	for _, r := range rows {
		d := (r.law(w, m) - r.measured) / r.measured
		ss += d * d
	}
	return math.Sqrt(ss / float64(len(rows)))
}
