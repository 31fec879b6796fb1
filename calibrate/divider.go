package calibrate

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"perfc/analyze"
	"perfc/machinecode"
	"perfc/machines"
)

// The divider (docs/calibrate.md, "The divider"): a divide or square root
// holds the core's divider for cycles of its own, and the rest of the
// loop goes on meanwhile. The in-core benchmarks' divide and square-root
// regions (y[i] = x[i] / z[i], one and two statements per iteration)
// measured this host's divider directly: per divide the same time with one
// or two per iteration (f64 4.6 and 4.4 cycles, i64 6.8 and 6.8), several
// times the 1–2 cycles of the loop's other work, so the loop is bound by
// the divider and the time per divide is its hold. The table gives that
// time per kind (compute.core.divider) and the pricing of compiled code
// takes it as one more resource of a loop's max, rather than adding each
// divide's operation cost to the loop's time: added, sweep3d_abstract's
// loop of 8 stores and one divide came to 8 + 3.7 cycles where it runs
// in 8.

// dividerFit is the divider's hold per kind with its quality.
type dividerFit struct {
	hold  map[string]float64 // seconds one instruction of the kind holds the divider
	rows  int                // regions it was fitted on
	rms   float64            // relative rms of the priced regions against their measurements
	worst string             // the region of the largest relative error, with it
}

// dividerRows pairs the regions whose only slow operations are divides,
// remainders and square roots with their code, as coreRows pairs the
// others: every loop must have its machine loop, and some loop must hold
// the divider.
func dividerRows(pts []point, code *machinecode.Code) []coreRow {
	var rows []coreRow
	for _, p := range pts {
		if !hasSlowOps(p.counts) || hasCalls(p.counts) {
			continue
		}
		row, ok := rowOf(p, code)
		if ok && slices.ContainsFunc(row.loops, func(l coreLoop) bool { return len(l.body.Dividers) > 0 }) {
			rows = append(rows, row)
		}
	}
	return rows
}

// hasCalls reports whether counts have operations the generated code
// calls a function for (exp, log, sin, cos).
func hasCalls(c analyze.Counts) bool {
	return slices.ContainsFunc(c.Ops, func(o analyze.OpCount) bool {
		switch o.Op {
		case analyze.OpExp, analyze.OpLog, analyze.OpSin, analyze.OpCos:
			return !o.Count.IsZero()
		}
		return false
	})
}

// fitDivider finds each kind's hold from the regions of that kind alone
// (one loop holding the divider, with one kind of divide): the region's
// time less its other loops' (priced by the fitted core) over the loop's
// divides, kept when it exceeds the loop's other resources (the region
// is then bound by the divider) and taken as the median of the regions of
// the kind. The rms is that of every row priced with the holds.
func fitDivider(rows []coreRow, core *coreModelFit) (*dividerFit, error) {
	if core == nil {
		return nil, fmt.Errorf("calibrate: no compute.core to fit the divider beside")
	}
	model := core.model()
	per := map[string][]float64{}
	for _, r := range rows {
		var rest float64
		var div *coreLoop
		for i := range r.loops {
			l := &r.loops[i]
			rest += l.entries * model.Entry.Value
			if len(l.body.Dividers) == 0 {
				cy, _ := coreCyclesOf(model, l.body)
				rest += l.iters * cy
				continue
			}
			if div != nil {
				div = nil
				break
			}
			div = l
		}
		if div == nil || len(div.body.Dividers) != 1 {
			continue
		}
		kind := slices.Collect(maps.Keys(div.body.Dividers))[0]
		n := float64(div.body.Dividers[kind])
		hold := (r.seconds/core.cycle - rest) / (div.iters * n) // cycles
		if others, _ := coreCyclesOf(model, div.body); hold*n <= others {
			continue // bound by the loop's other work: it does not time the divider
		}
		per[kind] = append(per[kind], hold)
	}
	if len(per) == 0 {
		return nil, fmt.Errorf("calibrate: no divide or square-root region was bound by the divider")
	}
	f := &dividerFit{hold: map[string]float64{}}
	model.Divider = map[string]machines.Number{}
	for kind, hs := range per {
		f.hold[kind] = median(hs) * core.cycle
		model.Divider[kind] = machines.Number{Quantity: machines.Quantity{Value: f.hold[kind]}, Given: true}
	}
	var ss, worst float64
	for _, r := range rows {
		e := cyclesWith(r, model)*core.cycle/r.seconds - 1
		ss += e * e
		f.rows++
		if math.Abs(e) >= math.Abs(worst) {
			worst = e
			f.worst = fmt.Sprintf("%s %+.1f%%", r.name, 100*e)
		}
	}
	f.rms = math.Sqrt(ss / float64(f.rows))
	return f, nil
}
