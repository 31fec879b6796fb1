package costmodel

import (
	"fmt"
	"strings"

	"perfc/analyze"
	"perfc/internal/units"
	"perfc/machinecode"
	"perfc/machines"
)

// In-core time from the compiled code (docs/predict.md, "In-core time from
// the compiled code"). When the prediction is given the machine code of the
// program it predicts (Options.Code: the build perfc check and perfc
// validate run) and the table has compute.core, a region's throughput terms
// are its loops' code, not a sum of counts:
//
//	T_loop = iterations × max(blocks/b, instructions/w, loads/l, stores/s, FP/f) × cycle
//
// per kernel loop, over the code directly in its machine loop (the code of
// the loops nested in it is theirs; a loop's entry code is in its parent's
// body, run once per parent iteration), plus the calls (exp, log, sin, cos)
// at their table costs, which the code's instruction counts cannot time.
// Divides and square roots are one more resource of the max when the table
// gives compute.core.divider for their kind (the time each holds the
// divider: they overlap the loop's other work, as the calibration's divide
// loops measure), and otherwise added at their table costs too. A region
// whose loops cannot all be found in the code is priced by its counts,
// with a note.

// codeLoop is one kernel loop priced by its machine code.
type codeLoop struct {
	pos     string // the kernel loop's file:line:col
	iters   float64
	entries float64 // times the loop is entered (compute.core.entry cycles each)
	body    machinecode.Body
	cycles  float64 // per iteration
	bound   string  // what sets the cycles
}

// slowOps are the operations the compiled-code pricing keeps at their
// table costs: a divide or square root occupies its unit for many cycles
// (unless the table's compute.core.divider times it: dividerKind), and
// exp, log, sin and cos are calls.
var slowOps = [...]analyze.OpKind{analyze.OpDiv, analyze.OpRem, analyze.OpSqrt, analyze.OpExp, analyze.OpLog, analyze.OpSin, analyze.OpCos}

// isSlowOp reports whether op is one of slowOps.
func isSlowOp(op analyze.OpKind) bool {
	for _, s := range slowOps {
		if op == s {
			return true
		}
	}
	return false
}

// lineCol is the "line:col" of a "file:line:col" position, as codegen
// writes it in the generated program's comments.
func lineCol(pos string) string {
	i := strings.LastIndexByte(pos, ':')
	if i <= 0 {
		return pos
	}
	j := strings.LastIndexByte(pos[:i], ':')
	return pos[j+1:]
}

// coreCycles is the cycles per iteration of a machine loop's direct code
// and the resource that sets them (machinecode.Cycles).
func coreCycles(core machines.CoreModel, b machinecode.Body) (float64, string) {
	cycles, _, how := machinecode.Cycles(b, machinecode.Widths{Blocks: core.BlocksPerCycle.Value, Issue: core.Issue.Value,
		Loads: core.LoadPorts.Value, Stores: core.StorePorts.Value, FP: core.FPPorts.Value, Divider: core.DividerCycles()})
	return cycles, how
}

// dividerKind is the machinecode.DividerKind of a counted operation ("div
// f64" for a divide of f64, "div i64" for a remainder of u64), "" for an
// operation that holds no divider.
func dividerKind(op analyze.OpKind, typ analyze.OpType) string {
	elem := string(typ)
	switch elem {
	case "u64":
		elem = "i64"
	case "u32":
		elem = "i32"
	}
	switch op {
	case analyze.OpDiv, analyze.OpRem:
		return "div " + elem
	case analyze.OpSqrt:
		return "sqrt " + elem
	}
	return ""
}

// codeLoops prices every loop of a region's counts by its machine code;
// ok is false (with a note) when some loop that iterates more than once
// per entry has no machine loop of its own, or there is no code or core.
func (p *machinePricer) codeLoops(loops []analyze.LoopCount) ([]codeLoop, bool) {
	core, hasCore := p.m.Compute().Core()
	if p.code == nil || !hasCore || len(loops) == 0 {
		return nil, false
	}
	var out []codeLoop
	for _, l := range loops {
		iters := l.Iterations.Float()
		if iters == 0 {
			continue
		}
		i, ok := p.code.ByKernel[lineCol(l.Stmt)]
		if !ok {
			if iters <= l.Entries.Float() {
				continue // at most one iteration per entry: its code is straight-line code of its parent
			}
			p.note(fmt.Sprintf("no machine loop of the compiled program runs the loop at %s: its region is priced by its counts (compute.loop, access, ops)", l.Stmt))
			return nil, false
		}
		body := p.code.Loops[i].Body
		cycles, bound := coreCycles(core, body)
		out = append(out, codeLoop{pos: l.Stmt, iters: iters, entries: l.Entries.Float(), body: body, cycles: cycles, bound: bound})
	}
	return out, len(out) > 0
}

// codeTerms is the throughput time of a region priced by its compiled
// code (codeLoops) and its slow operations at their table costs; ok is
// false when the region must be priced by its counts.
func (p *machinePricer) codeTerms(w *workload) ([]Term, bool) {
	if !w.region {
		return nil, false
	}
	loops, ok := p.codeLoops(w.loops)
	if !ok {
		return nil, false
	}
	core, _ := p.m.Compute().Core()
	var terms []Term
	for _, l := range loops {
		b := l.body
		unit := l.cycles * core.Cycle.Value
		terms = append(terms, Term{Resource: "compute", What: "loop at " + l.pos + " (compiled code)", Count: l.iters, Unit: "iteration",
			UnitCost: unit, Time: l.iters * unit,
			How: fmt.Sprintf("%d B of code over %d 64-byte blocks, %d instructions, %d loads, %d stores, %d floating-point%s: %s cycles per iteration (%s) × %s cycle",
				b.Bytes, b.Blocks, b.Insts, b.Loads, b.Stores, b.FP, dividesSaid(b), units.Count(l.cycles), l.bound, core.Cycle.String()),
			Source: core.Cycle.Source})
		if t := l.entryTime(core); t > 0 {
			terms = append(terms, Term{Resource: "compute", What: "entries of the loop at " + l.pos + " (compiled code)", Count: l.entries, Unit: "entry",
				UnitCost: t / l.entries, Time: t,
				How:    fmt.Sprintf("%s cycles per entry of a machine loop × %s cycle", units.Count(core.Entry.Value), core.Cycle.String()),
				Source: core.Entry.Source})
		}
	}
	return append(terms, p.opTableTerms(slowPart(w, core))...), true
}

// entryTime is what entering the loop costs over the region: its entries
// × compute.core.entry cycles (zero when the table gives none). A loop
// that a short trip count enters often (Horner's k steps per element,
// RINF1 at small n) pays it once per entry; calibrate fits it on the loop
// sweep's lengths 1..512 (docs/calibrate.md).
func (l codeLoop) entryTime(core machines.CoreModel) float64 {
	return core.EntryTime(l.entries)
}

// dividesSaid says a body's divides and square roots for a term's How
// (", 1 divide or square root"), "" without any.
func dividesSaid(b machinecode.Body) string {
	switch b.Divides {
	case 0:
		return ""
	case 1:
		return ", 1 divide or square root"
	}
	return fmt.Sprintf(", %d divides or square roots", b.Divides)
}

// slowPart is the workload of w's slow operations only (slowOps), less
// the divides and square roots whose kind the core's divider times: the
// code's loops price those.
func slowPart(w *workload, core machines.CoreModel) *workload {
	s := &workload{}
	for _, o := range w.ops {
		if _, timed := core.Divider[dividerKind(o.op, o.typ)]; isSlowOp(o.op) && !timed {
			s.ops = append(s.ops, o)
		}
	}
	return s
}

// codeBodyTime is the throughput time of the body of the loop at pos (its
// code and that of the loops nested in it) when the region is priced by
// its code; ok is false otherwise.
func (p *machinePricer) codeBodyTime(w *workload, pos string, body analyze.LoopBody) (float64, bool) {
	if !w.region || p.code == nil {
		return 0, false
	}
	loops, ok := p.codeLoops(w.loops)
	if !ok {
		return 0, false
	}
	core, _ := p.m.Compute().Core()
	inside := map[string]bool{}
	for _, k := range p.code.Inside(lineCol(pos)) {
		inside[k] = true
	}
	var t float64
	for _, l := range loops {
		if !inside[lineCol(l.pos)] {
			continue
		}
		t += l.iters * l.cycles * core.Cycle.Value
		if lineCol(l.pos) != lineCol(pos) {
			t += l.entryTime(core) // the loop's own entries are its parent's work
		}
	}
	return t + sumTerms(p.opTableTerms(slowPart(bodyWorkload(body), core))), true
}
