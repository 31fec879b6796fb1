package costmodel

import (
	"fmt"
	"strings"

	"perfc/analyze"
	"perfc/internal/units"
	"perfc/machines"
)

// Pricing a modern core: compose: ecm (docs/predict.md, "Pricing a modern
// core"), after the Execution-Cache-Memory model of Hager, Treibig and
// Wellein (docs/references.md).
//
//	T_core = iterations·loop.iteration + loop entries·loop.entry
//	       + loads·access.load + stores·access.store
//	       + Σ ops·cost(op, type) + Σ madd pairs·cost(madd)  (or mul + add)
//	       + Σ over loops with chains of max(0, bound − throughput), the
//	         bound the chain's latency, or E·max(T_e, L_e/(1 + W/T_e))
//	         for a chain that restarts at each of E entries (chainBound)
//	T_data = max over levels of (lines brought in + write-backs) × line / bandwidth of the level below
//	T      = max(T_core, T_data)
//
// T_core's terms are the region's compute terms and T_data's its memory
// terms, so the breakdown shows each with its count, unit cost and source,
// and the region shares of the emulation (shares.go) work unchanged: a
// segment's weight is its throughput terms (linear in its counts), never
// the latency bound or the lines, which only regions carry.

// isECM reports whether the machine prices with compose: ecm.
func (p *machinePricer) isECM() bool { return p.m.Compose() == machines.ComposeECM }

// coreTerms is T_core of a workload: its throughput terms, then the
// latency bound of the loops that carry dependency chains.
func (p *machinePricer) coreTerms(w *workload) []Term {
	terms := p.throughputTerms(w)
	return append(terms, p.latencyTerms(w)...)
}

// throughputTerms prices what a workload does when nothing waits on a
// previous result: loop iterations and entries, accesses with their lines
// in L1, and the operations beyond them (an operation's ecm cost is what it
// adds to the loop and its accesses, docs/machines.md).
func (p *machinePricer) throughputTerms(w *workload) []Term {
	c := p.m.Compute()
	loop, _ := c.Loop()
	access, _ := c.Access()
	if len(w.ops) == 0 && w.loads+w.stores == 0 {
		// Loops that do nothing but iterate (around communication, most
		// often): the schedule the emulator runs keeps a loop that
		// communicates as a loop, with no compute segment to charge its
		// overhead to, and that overhead is nanoseconds per iteration.
		if w.region && w.iterations > 0 {
			p.note("compose: ecm does not price the loop overhead of a region whose loops do no operations, loads or stores (such as loops around communication)")
		}
		return nil
	}
	if terms, ok := p.codeTerms(w); ok {
		return terms // the region's compiled code (code.go)
	}
	var terms []Term
	add := func(what, unit string, n float64, cost machines.Number, how string) {
		if n == 0 || !cost.Given {
			return
		}
		terms = append(terms, Term{Resource: "compute", What: what, Count: n, Unit: unit, UnitCost: cost.Value,
			Time: n * cost.Value, How: how + " " + cost.String(), Source: cost.Source})
	}
	add("loop iterations", "iteration", w.iterations, loop.Iteration, "in-core loop overhead per iteration")
	add("loop entries", "entry", w.loopEntries, loop.Entry, "loop start-up per entry")
	add("loads (in-core)", "element", w.loads, access.Load, "per element loaded from L1")
	add("stores (in-core)", "element", w.stores, access.Store, "per element stored to L1")
	return append(terms, p.opTableTerms(w)...)
}

// latencyTerms is the latency bound: for every loop that carries chains
// (Counts.Chains grouped by Loop), the loop's body takes at least its
// longest chain's Σ latency(op)·count; the body's throughput time is
// already in T_core, so the loop adds max(0, latency − throughput).
func (p *machinePricer) latencyTerms(w *workload) []Term {
	if len(w.chains) == 0 {
		return nil
	}
	if !p.m.Compute().HasLatency() {
		p.note("the machine gives no operation latencies (compute.latency): the latency bound of loop-carried dependency chains is not priced")
		return nil
	}
	var terms []Term
	for _, loop := range chainsByLoop(w.chains) {
		throughput, byCode := p.codeBodyTime(w, loop[0].Loop, loop[0].Body)
		if !byCode {
			throughput = sumTerms(p.throughputTerms(bodyWorkload(loop[0].Body)))
		}
		var longest analyze.Chain
		var latency float64
		var source string
		for _, ch := range loop {
			if t, src := p.chainLatency(ch); t > latency {
				longest, latency, source = ch, t, src
			}
		}
		bound, how, wsrc := p.chainBound(longest, latency, throughput, byCode)
		extra := bound - throughput
		if extra <= 0 {
			continue
		}
		if wsrc != "" {
			source += "; window: " + wsrc
		}
		iters := longest.Iterations.Float()
		terms = append(terms, Term{Resource: "compute", What: fmt.Sprintf("latency bound of the loop at %s (chain %s)", longest.Loop, longest.Var),
			Count: iters, Unit: "iteration", UnitCost: safeDiv(extra, iters), Time: extra,
			How: how, Source: source})
	}
	return terms
}

// chainBound is the time a loop's chains allow its body, given the longest
// chain's Σ latency·count and the body's throughput time (both totals over
// the region), with a sentence saying how it was found and the window's
// source when it was used.
//
// A chain that runs on from entry to entry of its loop is one chain: the
// body takes at least its whole latency. A chain that restarts at every
// entry (Chain.Restarts: the location is set anew between entries) is E
// independent chains of latency L_e = latency/E each; an out-of-order core
// issues ahead of a waiting chain as far as its reorder window W (a time
// of in-core work, compute.latency.window) reaches, so the entry whose
// chain runs and the W/T_e entries behind it in the window, n = 1 + W/T_e,
// are in flight at once, T_e = throughput/E being one entry's work, and
// the bound is E·max(T_e, L_e/n). The latency shows only where one entry's
// chain is longer than its work and the window's together (L_e > T_e + W).
// Without a window the entries are taken one after another.
//
// When the throughput is the code's (byCode) the window is compute.core's,
// fitted with the entries' work priced the same way, if the table has one.
func (p *machinePricer) chainBound(ch analyze.Chain, latency, throughput float64, byCode bool) (float64, string, string) {
	whole := fmt.Sprintf("the chain's Σ latency·count %s exceeds the body's throughput time %s: charged the difference",
		units.Time(latency), units.Time(throughput))
	entries := ch.Entries.Float()
	if !ch.Restarts || entries <= 1 {
		return latency, whole, ""
	}
	w, ok := p.m.Compute().Window()
	var law machines.CoreModel // the plain maximum, unless the code's window gives its exponent
	if core, _ := p.m.Compute().Core(); byCode && core.Window.Given {
		w, ok, law = core.Window, true, core
	}
	if !ok {
		p.note("the machine gives no reorder window (compute.latency.window): chains that restart at every entry of their loop are priced one entry after another")
		return latency, whole + " (entries one after another: no compute.latency.window)", ""
	}
	le, te := latency/entries, throughput/entries
	inFlight := 1.0
	if te > 0 {
		inFlight = 1 + w.Value/te
	}
	bound := entries * law.WindowMax(te, le/inFlight)
	form, src := "max(T_e, L_e/n)", w.Source
	if law.WindowExponent.Given {
		form = fmt.Sprintf("(T_e^p + (L_e/n)^p)^(1/p), p = %s,", units.Count(law.WindowExponent.Value))
		src += "; window exponent: " + law.WindowExponent.Source
	}
	how := fmt.Sprintf("the chain restarts at each of %s entries: %s latency per entry, %s of work per entry, %s entries in a window of %s; "+
		"E·%s = %s exceeds the body's throughput time %s: charged the difference",
		units.Count(entries), units.Time(le), units.Time(te), units.Count(inFlight), w.String(), form, units.Time(bound), units.Time(throughput))
	return bound, how, src
}

// chainsByLoop groups chains by the loop that carries them, in the order
// the loops first appear.
func chainsByLoop(chains []analyze.Chain) [][]analyze.Chain {
	var out [][]analyze.Chain
	index := map[string]int{}
	for _, ch := range chains {
		i, ok := index[ch.Loop]
		if !ok {
			i = len(out)
			index[ch.Loop] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], ch)
	}
	return out
}

// bodyWorkload is the workload of a loop's body, for its throughput time.
func bodyWorkload(b analyze.LoopBody) *workload {
	w := &workload{iterations: b.Iterations.Float(), loads: b.Loads.Float(), stores: b.Stores.Float()}
	for _, o := range b.Ops {
		w.ops = append(w.ops, opN{o.Op, o.Type, o.Pattern, o.Count.Float()})
	}
	for _, o := range b.Madds {
		w.madds = append(w.madds, opN{o.Op, o.Type, o.Pattern, o.Count.Float()})
	}
	return w
}

// chainLatency is Σ latency(op)·count over a chain's operations, and the
// sources of the latencies used. An operation without a latency is noted
// and adds nothing.
func (p *machinePricer) chainLatency(ch analyze.Chain) (float64, string) {
	c := p.m.Compute()
	var t float64
	var sources []string
	for _, o := range ch.Ops {
		n := o.Count.Float()
		op := tableOp(o.Op)
		if n == 0 || op == "" {
			continue
		}
		lat, ok := c.Latency(tablePattern(o.Pattern), op, elemOf(o.Type))
		if !ok {
			p.note(fmt.Sprintf("the machine gives no latency for %s %s: it adds nothing to the dependency chains it is on", op, elemOf(o.Type)))
			continue
		}
		t += n * lat.Value
		if !containsString(sources, lat.Source) {
			sources = append(sources, lat.Source)
		}
	}
	return t, strings.Join(sources, "; ")
}

// tablePattern is the table pattern an operand pattern is priced by:
// register operands (s&s&s) as one array element and two scalars.
func tablePattern(pattern string) machines.Pattern {
	if pattern == "s&s&s" {
		return machines.ArrayScalarScalar
	}
	return machines.Pattern(pattern)
}

// containsString reports whether list holds s.
func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// dataTerms is T_data of a workload, one term per cache level: the lines
// the cache-line model counts as brought into the level and written back
// from it, moved at the bandwidth of the level below (the last level's at
// main_bandwidth). The levels' transfers overlap each other, so T_data is
// the largest term (ecmMemory), not their sum. A workload without cache
// lines (a schedule segment, or counts analysed without the machine's
// hierarchy) has no transfers to price.
func (p *machinePricer) dataTerms(w *workload) []Term {
	mem := p.m.Memory()
	if !w.hasCache {
		if w.region && w.loads+w.stores > 0 {
			p.note("the counts have no cache lines (analysed without the machine's cache hierarchy): compose: ecm prices no transfers between levels")
		}
		return nil
	}
	if wa, given := mem.WriteAllocate(); given && !wa {
		p.note("the table says stores do not allocate (write_allocate: false), but the cache-line model counts every stored line as brought in: those lines are charged")
	}
	caches := mem.Caches()
	main, _ := mem.MainBandwidth()
	var terms []Term
	for i, c := range caches {
		from, bw := "memory", main
		if i+1 < len(caches) {
			from, bw = caches[i+1].Name, caches[i+1].Bandwidth
		}
		in, out := w.lines[c.Name], w.writeBacks[c.Name]
		if bw.Value <= 0 || in+out == 0 {
			continue // a missing bandwidth is refused when the table loads (ecmMissing)
		}
		u := float64(c.Line) / bw.Value
		how := fmt.Sprintf("%s brought in + %s written back; %d B line / %s bandwidth %s", units.Count(in), units.Count(out), c.Line, from, bw.String())
		if i+1 == len(caches) {
			if f, r := p.memoryShared(); f > 1 {
				u *= f
				how += fmt.Sprintf(" x %.4g (memory.shared: %d ranks stream from memory at once)", f, r)
			}
		}
		terms = append(terms, Term{Resource: "memory", What: c.Name + " lines from and to " + from, Count: in + out, Unit: "line",
			UnitCost: u, Time: (in + out) * u, Source: bw.Source, How: how})
	}
	return terms
}

// memoryShared is the table's memory.shared factor and the ranks that
// stream at once (the kernel's ranks, at most the table's cores), when
// two or more do; 1 otherwise. The factor was measured with every core
// of the host streaming (the SHARED benchmark): on this 2-core host that
// is exactly two ranks; on a larger host it overstates the slowdown of
// fewer ranks than cores.
func (p *machinePricer) memoryShared() (float64, int64) {
	sh := p.m.Memory().Shared()
	if sh == nil {
		return 1, 0
	}
	r := p.ranks
	if c := p.Cores(); c > 0 {
		r = min(r, int64(c))
	}
	if r < 2 {
		return 1, r
	}
	return sh.Factor.Value, r
}

// ecmMemory is T_data of a region's memory terms (dataTerms): the largest
// of the levels' transfers, which overlap each other and the in-core time.
func ecmMemory(terms []Term) float64 {
	var t float64
	for _, x := range terms {
		if x.Resource == "memory" {
			t = max(t, x.Time)
		}
	}
	return t
}

// applyWarm removes, when caches are warm (Options.Warm), the lines and
// write-backs of every cache level that holds the rank's working set: in
// steady state nothing is brought into such a level, since the generated
// program refills its arrays before each timed run (docs/codegen.md,
// "Data"). It applies to every table, whatever its pricing.
func (p *machinePricer) applyWarm(w *workload) {
	if !p.warm || !w.hasCache || w.footprint <= 0 {
		return
	}
	var held []string
	for _, c := range p.m.Memory().Caches() {
		if int64(c.Size) < w.footprint {
			continue
		}
		held = append(held, c.Name)
		delete(w.lines, c.Name)
		delete(w.writeBacks, c.Name)
	}
	if len(held) > 0 && !p.warmNoted {
		p.warmNoted = true
		p.note(fmt.Sprintf("warm caches: the working set of one rank (%s) fits %s, so in steady state no lines are brought into %s and none are charged "+
			"(the generated program refills its arrays before each timed run; docs/predict.md, \"Warm caches\")",
			units.Size(float64(w.footprint)), held[0], strings.Join(held, ", ")))
	}
}

// applyRefill adds to w, on a table of the host the generated programs
// run on (a table with cores: perfc calibrate writes it), the write-backs
// of the harness's refill: before every timed run the program rewrites
// its arrays (docs/codegen.md, "Data"), so every cache level the rank's
// working set overflows starts the run full of dirty lines, which the run
// evicts and writes back, once. A rank's part of a level is the level
// over the ranks that share it: the last level (taken to be shared, as on
// this host) over the kernel's ranks, a private level over the ranks of
// one core. charged records the levels already charged in this run (the
// first region with lines at a level pays it). Without it, a single pass
// from memory missed an eighth to a quarter of its time (triad −29 %,
// stride −31 %: 8 MiB of the refill's dirty lines against 12 MiB of the
// triad's own traffic; docs/predict.md, "The harness's refill").
func (p *machinePricer) applyRefill(w *workload, charged map[string]bool) {
	if _, ok := p.m.Cores(); !ok || !w.hasCache || w.writeBacks == nil || w.footprint <= 0 {
		return
	}
	caches := p.m.Memory().Caches()
	for i, c := range caches {
		if int64(c.Size) >= w.footprint || charged[c.Name] || w.lines[c.Name] == 0 || c.Line <= 0 {
			continue
		}
		sharing := int64(1)
		switch {
		case i == len(caches)-1:
			sharing = max(p.ranks, 1)
		case p.sharesCores():
			sharing = (p.ranks + int64(p.Cores()) - 1) / int64(p.Cores())
		}
		charged[c.Name] = true
		w.writeBacks[c.Name] += float64(int64(c.Size)/sharing) / float64(c.Line)
	}
}

// ecmKeysNote says that the table's loop, access and latency costs price
// nothing because it does not compose with ecm (a -M compose=max, or a
// table written so): a key that is read and never charged would be a trap,
// as main_bandwidth with an operation table was. It is "" otherwise.
func (p *machinePricer) ecmKeysNote() string {
	c := p.m.Compute()
	_, loop := c.Loop()
	_, access := c.Access()
	if p.isECM() || !loop && !access && !c.HasLatency() {
		return ""
	}
	return fmt.Sprintf("the table's compute.loop, compute.access and compute.latency are priced only with compose: ecm; with compose: %s they are not charged", p.m.Compose())
}

// rereadApart is the distance, in bytes, from which two loads of one array
// that walk together are streams of their own for the core's prefetchers:
// a page (4 KiB), within which hardware stream prefetchers track an
// access pattern (docs/predict.md, "Streams read again").
const rereadApart = 4096

// reread finds in a region's references two loads of one array in one
// loop, with the same strides and at least rereadApart bytes apart: the
// leading one brings the lines from memory and the trailing one reads them
// again from cache, as a 2-D stencil's u[j+1][i] and u[j-1][i] do. It
// returns the two and their distance.
func reread(refs []analyze.RefCount) (lead, trail analyze.RefCount, apart int64, ok bool) {
	for i, a := range refs {
		if a.Store || !a.OffsetKnown || a.Loop == "" {
			continue
		}
		for _, b := range refs[i+1:] {
			if b.Store || !b.OffsetKnown || b.Loop != a.Loop || b.Array != a.Array || !sameStrides(a.Strides, b.Strides) {
				continue
			}
			d := b.Offset - a.Offset
			if d < 0 {
				d = -d
			}
			if d >= rereadApart && d > apart {
				lead, trail, apart, ok = a, b, d, true
				if b.Offset > a.Offset {
					lead, trail = b, a
				}
			}
		}
	}
	return lead, trail, apart, ok
}

// sameStrides reports whether two references move alike in every loop.
func sameStrides(a, b []analyze.Stride) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Loop != b[i].Loop || a[i].Invariant != b[i].Invariant || !a[i].Bytes.Equal(b[i].Bytes) {
			return false
		}
	}
	return true
}

// rereadTerm is, for a region that streams from memory and reads one of
// its arrays again at a distance (reread), the in-core time that does not
// overlap the memory transfer: measured on this project's host, such a
// loop takes its in-core time plus its memory transfer, where a loop of
// one stream per array takes the larger of the two (docs/predict.md,
// "Streams read again"). The caller adds the term's time to the memory
// transfer's. ok is false when the rule does not apply.
//
// shared is the memory.shared factor the transfer carries (1: one rank
// streams). While a rank computes without streaming, the other ranks have
// the memory to themselves, so the ranks' transfers interleave: a rank
// takes the larger of its in-core time plus its transfer alone (mem /
// shared) and the shared transfer (mem), and the term is what the first
// exceeds the second by (docs/predict.md, "Streams read again by ranks
// that share the memory"). A term of no time is dropped.
func rereadTerm(refs []analyze.RefCount, memory []Term, compute, shared float64) (Term, bool) {
	mem := memoryTransfer(memory)
	if mem == 0 || compute == 0 {
		return Term{}, false
	}
	lead, trail, apart, ok := reread(refs)
	if !ok {
		return Term{}, false
	}
	leads := fmt.Sprintf("%s (%s) leads %s (%s) by %s in one loop", lead.Text, lead.Pos, trail.Text, trail.Pos, units.Size(float64(apart)))
	how := fmt.Sprintf("%s: the trailing load reads from cache what the leading one brought from memory, and the loop's in-core time %s adds to its memory transfer %s instead of overlapping it",
		leads, units.Time(compute), units.Time(mem))
	t := compute
	if shared > 1 {
		alone := mem / shared
		t = compute + alone - mem
		if t <= 0 {
			return Term{}, false
		}
		how = fmt.Sprintf("%s, so the loop's in-core time %s adds to its memory transfer; the ranks that share the memory interleave, each taking max(in-core + its transfer alone %s, the shared transfer %s)",
			leads, units.Time(compute), units.Time(alone), units.Time(mem))
	}
	return Term{Resource: "memory", What: "in-core time not overlapped with the memory transfer (" + lead.Array + " read again " + units.Size(float64(apart)) + " behind)",
		Count: 1, Unit: "region", UnitCost: t, Time: t, How: how,
		Source: "docs/predict.md, \"Streams read again\" (measured on the project's host, session 16)"}, true
}

// memoryTransfer is the time of a region's transfer from main memory: the
// last cache level's term (dataTerms), or 0.
func memoryTransfer(terms []Term) float64 {
	for _, x := range terms {
		if x.Resource == "memory" && strings.HasSuffix(x.What, " lines from and to memory") {
			return x.Time
		}
	}
	return 0
}
