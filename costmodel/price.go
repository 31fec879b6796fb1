package costmodel

import (
	"fmt"
	"math"
	"sort"

	"perfc/analyze"
	"perfc/costmodel/emulate"
	"perfc/internal/units"
	"perfc/lang"
	"perfc/machinecode"
	"perfc/machines"
)

// Term is one line of a breakdown: count × unit cost = time.
type Term struct {
	Resource string  `json:"resource"` // compute, memory, message, collective, barrier, waiting (noise)
	What     string  `json:"what"`     // "sub f64 a&b&s", "send east", "allreduce max f64"
	Count    float64 `json:"count"`
	Unit     string  `json:"unit"`      // what Count counts: op, pair, message, call, B, line
	UnitCost float64 `json:"unit_cost"` // seconds per unit
	Time     float64 `json:"time"`      // seconds
	How      string  `json:"how,omitempty"`
	Source   string  `json:"source,omitempty"`
}

// machinePricer prices with a machine table. It implements Pricer.
type machinePricer struct {
	m     *machines.Machine
	k     *lang.Checked
	ranks int64
	px    int64 // grid width, 0 for a 1-D rank space
	notes map[string]bool
	// vectorUnits prices vector loops on the vector units (Options);
	// vectorPriced records that some loop was.
	vectorUnits, vectorPriced bool
	// unpricedCollectives records that a collective the table does not
	// list found no message model to price it by (used.go).
	unpricedCollectives bool
	// rules are the source paper's pricing rules (Options.PaperRules,
	// paperrules.go); the zero value prices the exact counts.
	rules paperRules
	// code is the machine code of the program predicted (Options.Code),
	// nil when not given.
	code *machinecode.Code
	// shares, when set, make compute segments cost their share of their
	// region's cost (shares.go); nil prices a segment on its own.
	shares *regionShares
	// schedules are the schedules walkMessages built, by rank, for the
	// emulation to use rather than build again (Schedule, for emulate.Scheduler).
	schedules map[int64]*analyze.Schedule
	// warm drops the lines of the cache levels that hold the working set
	// (Options.Warm, applyWarm).
	warm bool
	// mainNoted and warmNoted record that the notes of
	// noteMainBandwidthUnused and applyWarm are made: they are the same
	// for every region, and formatting them is most of their cost.
	mainNoted, warmNoted bool
	// copiers is how many ranks send or receive point-to-point messages
	// (copyingRanks), for messages.shared; 0: not known (every rank).
	copiers int64
	// localStmt and localPos are the statements whose payloads stay with
	// their sender, by statement and by position (local.go); nil when the
	// table has no messages.local.
	localStmt map[*lang.CommStmt]bool
	localPos  map[string]bool
	// crossStmt and crossPos are the message statements of a kernel that
	// computes with what it receives (local.go, crossingStmts); nil when
	// the table has no messages.local.
	crossStmt map[*lang.CommStmt]bool
	crossPos  map[string]bool
	// reqStmt and reqPos are the kernel's isend statements, by statement
	// and by position (requests.go); nil when the table has no cores.
	reqStmt map[*lang.CommStmt]bool
	reqPos  map[string]bool
	// atOnceStmt and atOncePos are the isend statements every rank posts
	// (requests.go, atOnceStmts); nil when the table has no
	// messages.sendrecv.
	atOnceStmt map[*lang.CommStmt]bool
	atOncePos  map[string]bool
	// aloneCopies leaves out the slowdown of copies at once beyond the
	// private caches (AloneCopies): the pricer the emulator prices each
	// such copy alone by.
	aloneCopies bool
}

// NewPricer builds the Pricer of machine m for kernel k.
func NewPricer(m *machines.Machine, k *lang.Checked) (emulate.Pricer, error) {
	return newMachinePricer(m, k), nil
}

// newMachinePricer returns the concrete pricer.
func newMachinePricer(m *machines.Machine, k *lang.Checked) *machinePricer {
	p := &machinePricer{m: m, k: k, ranks: k.NumRanks(), notes: map[string]bool{}}
	if px, _, ok := k.Grid(); ok {
		p.px = px
	}
	if m.LocalMessages() != nil {
		p.localStmt, p.localPos = localStmts(k)
		p.crossStmt, p.crossPos = crossingStmts(k)
	}
	if _, ok := m.Cores(); ok {
		p.reqStmt, p.reqPos = requestStmts(k)
	}
	if m.SendRecv() != nil {
		p.atOnceStmt, p.atOncePos = atOnceStmts(k)
	}
	return p
}

// newOptionsPricer returns the pricer of a prediction with options opts.
func newOptionsPricer(m *machines.Machine, k *lang.Checked, opts Options) *machinePricer {
	p := newMachinePricer(m, k)
	p.vectorUnits = opts.VectorUnits
	p.warm = opts.Warm
	p.rules = p.paperRulesFor(opts)
	p.code = opts.Code
	return p
}

// note records a pricing caveat once.
func (p *machinePricer) note(s string) { p.notes[s] = true }

// workload is what the pricing rules read, from Counts or from a Work.
type workload struct {
	ops, madds            []opN
	flop                  float64
	loads, stores         float64
	loadBytes, storeBytes float64
	lines                 map[string]float64 // lines brought in per cache level (from the cache model)
	writeBacks            map[string]float64 // dirty lines written back from each cache level to the next
	maxStride             float64            // largest stride in elements of a reference that moves in its innermost loop
	footprint             int64
	vectorRefs            float64 // array references (mrefs) for the bottleneck laws
	iterations            float64 // loop iterations: ecm's loop term, and a segment's share of its region (shares.go)
	loopEntries           float64 // loop entries (ecm's loop start-up term)
	chains                []analyze.Chain
	loops                 []analyze.LoopCount // every loop's iterations and entries (ecm, for pricing by compiled code)
	hasCache              bool
	region                bool // built from a region's counts (fromCounts), not a segment's work
}

// opN is a count of one operation kind, type and pattern.
type opN struct {
	op      analyze.OpKind
	typ     analyze.OpType
	pattern string
	n       float64
}

// fromCounts builds a workload from the counts of a region. The loop
// counts, chains and write-backs only compose: ecm prices are read only
// for it (ecm): a prediction reads the counts of every region.
func fromCounts(c analyze.Counts, footprint int64, ecm bool) *workload {
	w := &workload{flop: c.Flop.Float(), loads: c.Loads.Float(), stores: c.Stores.Float(),
		loadBytes: c.LoadBytes.Float(), storeBytes: c.StoreBytes.Float(), footprint: footprint,
		lines: map[string]float64{}, region: true}
	if ecm {
		w.iterations, w.loopEntries, w.chains, w.loops = c.Iterations.Float(), c.LoopEntries.Float(), c.Chains, c.Loops
		w.writeBacks = map[string]float64{}
	}
	for _, o := range c.Ops {
		w.ops = append(w.ops, opN{o.Op, o.Type, o.Pattern, o.Count.Float()})
	}
	for _, o := range c.Madds {
		w.madds = append(w.madds, opN{o.Op, o.Type, o.Pattern, o.Count.Float()})
	}
	for _, l := range c.Cache {
		w.lines[l.Level] = l.Lines.Float()
		if w.writeBacks != nil {
			w.writeBacks[l.Level] = l.WriteBacks.Float()
		}
		w.hasCache = true
	}
	for _, r := range c.Refs {
		w.vectorRefs += r.Count.Float()
		if r.Hoisted != "" || len(r.Strides) == 0 || r.Size == 0 {
			continue
		}
		inner := r.Strides[len(r.Strides)-1]
		if v, ok := inner.Bytes.Constant(); ok {
			f, _ := v.Float64()
			w.maxStride = math.Max(w.maxStride, math.Abs(f)/float64(r.Size))
		}
	}
	return w
}

// fromWork builds a workload from a schedule's compute segment.
func fromWork(x *analyze.Work) *workload {
	w := &workload{flop: x.Flop, loads: x.Loads, stores: x.Stores, loadBytes: x.LoadBytes, storeBytes: x.StoreBytes,
		vectorRefs: x.Loads + x.Stores, iterations: x.Iterations, loopEntries: x.LoopEntries}
	for _, o := range x.Ops {
		w.ops = append(w.ops, opN{o.Op, o.Type, o.Pattern, o.N})
	}
	for _, o := range x.Madds {
		w.madds = append(w.madds, opN{o.Op, o.Type, o.Pattern, o.N})
	}
	return w
}

// elemOf maps an operation type to the element type a table is keyed by;
// arithmetic on loop indices is priced as 64-bit integer arithmetic.
func elemOf(t analyze.OpType) string {
	if t == "int" {
		return "i64"
	}
	return string(t)
}

// tableOp maps an operation kind to the table's operation, or "".
func tableOp(k analyze.OpKind) machines.Op {
	switch k {
	case analyze.OpAdd:
		return machines.OpAdd
	case analyze.OpSub:
		return machines.OpSub
	case analyze.OpMul:
		return machines.OpMul
	case analyze.OpDiv:
		return machines.OpDiv
	case analyze.OpCmp:
		return machines.OpCmp
	case analyze.OpSqrt:
		return machines.OpSqrt
	case analyze.OpExp:
		return machines.OpExp
	case analyze.OpLog:
		return machines.OpLog
	case analyze.OpSin:
		return machines.OpSin
	case analyze.OpCos:
		return machines.OpCos
	case analyze.OpAbs:
		return machines.OpAbs
	case analyze.OpMin:
		return machines.OpMin
	case analyze.OpMax:
		return machines.OpMax
	}
	return ""
}

// hasOpTable reports whether the machine prices operations one by one.
func (p *machinePricer) hasOpTable() bool {
	_, ok := p.m.Compute().OpCost(machines.TwoArraysScalar, machines.OpAdd, "f64")
	return ok
}

// computeTerms prices the arithmetic of a workload.
func (p *machinePricer) computeTerms(w *workload) []Term {
	c := p.m.Compute()
	if c == nil || c.Free() {
		return nil
	}
	if p.isECM() {
		return p.coreTerms(w)
	}
	if p.hasOpTable() {
		return p.opTableTerms(w)
	}
	if _, ok := p.m.Memory().Bottleneck("poly1"); ok {
		return nil // the bottleneck law prices arithmetic and memory together (memoryTerms)
	}
	var terms []Term
	byElem := map[string]float64{}
	for _, o := range w.ops {
		if f := o.op.NominalFlop(); f > 0 && (o.typ == "f64" || o.typ == "f32") {
			byElem[string(o.typ)] += o.n * float64(f)
		}
	}
	elems := sortedKeys(byElem)
	for _, e := range elems {
		peak, ok := c.Peak(e)
		if !ok {
			if _, imh := c.IMH(); imh {
				p.note("compute is folded into the IMH processor-memory cost, as the IMH paper does ([000] L867)")
			} else {
				p.note("the machine gives no compute rate for " + e + "; arithmetic is not priced")
			}
			continue
		}
		unit := 1 / peak.Value
		terms = append(terms, Term{Resource: "compute", What: "nominal flop " + e, Count: byElem[e], Unit: "flop",
			UnitCost: unit, Time: byElem[e] * unit, How: "flop / peak " + peak.String(), Source: peak.Source})
	}
	return terms
}

// opTableTerms prices every operation from a per-operation table (CM-5
// Table 1): multiply-add pairs at the madd entry, the rest one by one;
// operations on register operands (pattern s&s&s) at the register rate.
func (p *machinePricer) opTableTerms(w *workload) []Term {
	w = p.applyPaperRules(w)
	c := p.m.Compute()
	left := map[opN]float64{}
	var order []opN
	for _, o := range w.ops {
		key := opN{op: o.op, typ: o.typ, pattern: o.pattern}
		if _, seen := left[key]; !seen {
			order = append(order, key)
		}
		left[key] += o.n
	}
	var terms []Term
	for _, m := range w.madds {
		if m.n == 0 {
			continue
		}
		// Each pair consumes one multiply and one add or subtract.
		left[opN{op: analyze.OpMul, typ: m.typ, pattern: m.pattern}] -= m.n
		left[opN{op: m.op, typ: m.typ, pattern: m.pattern}] -= m.n
		what := fmt.Sprintf("madd %s %s", m.typ, m.pattern)
		if m.pattern == "s&s&s" {
			if r, ok := c.RegisterMaddRate(); ok {
				unit := 2 / r.Value
				terms = append(terms, Term{Resource: "compute", What: what, Count: m.n, Unit: "pair", UnitCost: unit, Time: m.n * unit,
					How: "register operands, 2 flop at " + r.String(), Source: r.Source})
				continue
			}
		}
		pattern := machines.Pattern(m.pattern)
		if m.pattern == "s&s&s" {
			pattern = machines.ArrayScalarScalar
		}
		cost, ok := c.OpCost(pattern, machines.OpMadd, elemOf(m.typ))
		if !ok {
			// Price the pair as its two operations instead.
			left[opN{op: analyze.OpMul, typ: m.typ, pattern: m.pattern}] += m.n
			left[opN{op: m.op, typ: m.typ, pattern: m.pattern}] += m.n
			continue
		}
		terms = append(terms, Term{Resource: "compute", What: what, Count: m.n, Unit: "pair", UnitCost: cost.Value,
			Time: m.n * cost.Value, How: "Table madd " + cost.String(), Source: cost.Source})
	}
	for _, key := range order {
		n := left[key]
		if n <= 1e-9 {
			continue
		}
		op := tableOp(key.op)
		what := fmt.Sprintf("%s %s %s", key.op, key.typ, key.pattern)
		if op == "" {
			p.note(fmt.Sprintf("%s operations are not priced by the machine's operation table", key.op))
			continue
		}
		if key.pattern == "s&s&s" {
			if r, ok := c.RegisterRate(); ok {
				unit := 1 / r.Value
				terms = append(terms, Term{Resource: "compute", What: what, Count: n, Unit: "op", UnitCost: unit, Time: n * unit,
					How: "register operands at " + r.String(), Source: r.Source})
				continue
			}
		}
		pattern := machines.Pattern(key.pattern)
		if key.pattern == "s&s&s" {
			pattern = machines.ArrayScalarScalar
		}
		cost, ok := c.OpCost(pattern, op, elemOf(key.typ))
		if !ok {
			if p.isECM() {
				p.note(fmt.Sprintf("the operation table has no %s %s: with compose: ecm it costs nothing beyond its loop iteration and its accesses", op, elemOf(key.typ)))
				continue
			}
			p.note(fmt.Sprintf("the operation table has no %s %s %s", op, elemOf(key.typ), pattern))
			continue
		}
		terms = append(terms, Term{Resource: "compute", What: what, Count: n, Unit: "op", UnitCost: cost.Value,
			Time: n * cost.Value, How: "Table " + cost.String(), Source: cost.Source})
	}
	return terms
}

// memoryTerms prices the memory traffic of a workload.
func (p *machinePricer) memoryTerms(w *workload) []Term {
	mem := p.m.Memory()
	if mem == nil || p.m.Compute().Free() {
		return nil
	}
	if p.isECM() {
		return p.dataTerms(w)
	}
	caches := mem.Caches()
	if cost, ok := mem.Cost(); ok {
		elements := w.loads + w.stores
		if elements == 0 {
			return nil
		}
		lines := p.lines(w, caches)
		t := cost.Eval(machines.Vars{N: elements, Lines: lines, Stride: w.maxStride, Bytes: w.loadBytes + w.storeBytes})
		return []Term{{Resource: "memory", What: "processor-memory transfers", Count: elements, Unit: "element",
			UnitCost: safeDiv(t, elements), Time: t,
			How:    fmt.Sprintf("%s with n = %.6g elements, lines = %.6g, stride = %.6g", cost.String(), elements, lines, w.maxStride),
			Source: cost.Source()}}
	}
	if b, ok := p.bottleneck(w, caches); ok {
		// r = r̂∞/(1 + f½/f): time = (F + f½·M)/r̂∞, arithmetic and memory references.
		m := w.vectorRefs
		return []Term{
			{Resource: "compute", What: "nominal flop (" + b.Name + ")", Count: w.flop, Unit: "flop", UnitCost: 1 / b.Rhat.Value,
				Time: w.flop / b.Rhat.Value, How: "F / r̂∞, r̂∞ = " + b.Rhat.String(), Source: b.Rhat.Source},
			{Resource: "memory", What: "vector memory references (" + b.Name + ")", Count: m, Unit: "mref",
				UnitCost: b.Fhalf.Value / b.Rhat.Value, Time: m * b.Fhalf.Value / b.Rhat.Value,
				How: "f½ · M / r̂∞, f½ = " + b.Fhalf.String(), Source: b.Fhalf.Source},
		}
	}
	var terms []Term
	if w.hasCache {
		for _, c := range caches {
			n, ok := w.lines[c.Name]
			if !ok || n == 0 {
				continue
			}
			switch {
			case c.LineCost.Value > 0:
				terms = append(terms, Term{Resource: "memory", What: c.Name + " lines", Count: n, Unit: "line",
					UnitCost: c.LineCost.Value, Time: n * c.LineCost.Value, Source: c.Table.Source})
			case c.Bandwidth.Value > 0 && c.Table.Line.Value > 0:
				u := c.Table.Line.Value / c.Bandwidth.Value
				terms = append(terms, Term{Resource: "memory", What: c.Name + " lines", Count: n, Unit: "line",
					UnitCost: u, Time: n * u, How: "line / bandwidth " + c.Bandwidth.String(), Source: c.Table.Source})
			}
		}
	}
	if len(terms) == 0 && p.hasOpTable() {
		p.noteMainBandwidthUnused(w, caches)
	}
	if len(terms) == 0 && !p.hasOpTable() {
		if bw, ok := mem.MainBandwidth(); ok {
			bytes := w.loadBytes + w.storeBytes
			if len(caches) > 0 && int64(caches[len(caches)-1].Size) >= w.footprint && w.footprint > 0 {
				p.note("the working set fits in " + caches[len(caches)-1].Name + "; main-memory bandwidth is not charged")
				return nil
			}
			u := 1 / bw.Value
			terms = append(terms, Term{Resource: "memory", What: "bytes loaded and stored", Count: bytes, Unit: "B",
				UnitCost: u, Time: bytes * u, How: "bytes / main bandwidth " + bw.String(), Source: bw.Source})
		}
	}
	return terms
}

// noteMainBandwidthUnused says, for a working set beyond the last cache
// level, that a per-operation table's main_bandwidth is not charged: its
// operation costs are measured with operands in cache (CM-5 Table 1), and
// charging every byte at main_bandwidth on top would count the accesses
// twice. A table whose levels have bandwidths or line costs prices the
// lines instead; compose: ecm prices every level's transfers.
func (p *machinePricer) noteMainBandwidthUnused(w *workload, caches []machines.Cache) {
	bw, ok := p.m.Memory().MainBandwidth()
	if !ok || p.mainNoted || w.footprint <= 0 || len(caches) > 0 && int64(caches[len(caches)-1].Size) >= w.footprint {
		return
	}
	p.mainNoted = true
	p.note(fmt.Sprintf("main_bandwidth (%s) is not charged: the operation table's costs include their operands' accesses, measured in cache, so the memory traffic of a working set (%s) beyond the last cache level is not priced (docs/predict.md, \"Memory\")",
		bw.String(), units.Size(float64(w.footprint))))
}

// lines returns the cache lines the IMH cost charges: the first level's
// lines from the cache model when present, else the streaming estimate
// N·min(S, L)/L from the references' strides.
func (p *machinePricer) lines(w *workload, caches []machines.Cache) float64 {
	if len(caches) == 0 {
		return 0
	}
	if n, ok := w.lines[caches[0].Name]; ok {
		return n
	}
	line := caches[0].Table.Line.Value
	if line <= 0 {
		return 0
	}
	bytes := w.loadBytes + w.storeBytes
	elems := w.loads + w.stores
	if elems == 0 {
		return 0
	}
	size := bytes / elems
	perLine := line / size
	stride := math.Max(w.maxStride, 1)
	return elems * math.Min(stride, perLine) / perLine
}

// bottleneck chooses the POLY1 (in cache) or POLY2 (out of cache) law.
func (p *machinePricer) bottleneck(w *workload, caches []machines.Cache) (machines.Bottleneck, bool) {
	mem := p.m.Memory()
	b1, ok1 := mem.Bottleneck("poly1")
	b2, ok2 := mem.Bottleneck("poly2")
	inCache := len(caches) > 0 && w.footprint <= int64(caches[len(caches)-1].Size)
	switch {
	case ok1 && (inCache || !ok2):
		return b1, true
	case ok2:
		return b2, true
	}
	return machines.Bottleneck{}, false
}

// Compute implements Pricer for a schedule segment priced on its own,
// without the region's cache lines, vector loops or composition; a pricer
// built from an analysis prices segments with ComputeOn instead.
func (p *machinePricer) Compute(x *analyze.Work) float64 {
	w := fromWork(x)
	return composeTime(p.m.Compose(), sumTerms(p.computeTerms(w)), sumTerms(p.memoryTerms(w)))
}

// Message implements Pricer. It is on the emulator's hot path, so it
// builds no explanation.
func (p *machinePricer) Message(src, dst int64, bytes int64) float64 {
	mm, level := p.route(src, dst, "", float64(bytes), true)
	if mm == nil {
		if p.m.Compute().Free() {
			return 1
		}
		return 0
	}
	return p.lawTime(mm, level, src, dst, bytes)
}

// lawTime is a message's time under law mm at level, its bytes' part
// scaled by the slowdown of concurrent copies (messages.shared).
func (p *machinePricer) lawTime(mm *machines.MessageModel, level int, src, dst, bytes int64) float64 {
	t := mm.Time(float64(bytes), level)
	if f, _ := p.sharedFactor(mm, src, dst, float64(bytes)); f > 1 {
		t = withShared(t, mm.Time(0, level), f)
	}
	return t
}

// exchange prices one whole sendrecv or exchange event of rank `from`
// and `to` (the peers of its halves), moving bytes each way, with the
// table's exchange law (messages.exchange, COMMS2): on the goroutine
// runtime the rank that arrives second copies both directions itself, one
// after the other, so the halves do not overlap (docs/predict.md,
// "Messages"). It reports false when the table has no such law, when a
// half has no peer, or when a peer is on another node of a cluster (the
// law was measured inside one): then the halves overlap as before. When
// both peers take turns on rank's core and the table has
// messages.same_core, the event is two messages of that law.
func (p *machinePricer) exchange(rank, to, from int64, bytes float64) (float64, string, bool) {
	x := p.m.Exchange()
	if x == nil || to < 0 || from < 0 {
		return 0, "", false
	}
	if p.crossesNodes(rank, to) || p.crossesNodes(rank, from) {
		return 0, "", false
	}
	if sc := p.sameCoreLaw(rank, to); sc != nil && p.sameCore(rank, from) {
		// Both halves copied on the one core the ranks take turns on:
		// two messages of its law in series, as the runtime copies them.
		level := sc.Levels(int(rank), int(to))
		t, how := p.sharedCopies(sc, level, rank, to, bytes, sc.Time(bytes, level),
			fmt.Sprintf("two messages of messages.same_core in series (ranks %d and %d take turns on core %d)", rank, to, rank%int64(p.Cores())))
		return 2 * t, how, true
	}
	level := x.Levels(int(rank), int(to))
	t, how := p.sharedCopies(x, level, rank, to, bytes, x.Time(bytes, level), exchangeLawHow)
	return t, how, true
}

// exchangeLawHow and sendrecvLawHow name the laws of a whole event in the
// breakdown, for one event (exchange, sendrecvInto) and for a statement's
// walked events (walkMessages) alike.
const (
	exchangeLawHow = "exchange law (messages.exchange, both halves in series)"
	sendrecvLawHow = "sendrecv law (messages.sendrecv: both partners at once, the whole event)"
	selfLawHow     = "the sendrecv law (messages.sendrecv: two ranks copying at once)"
)

// sendrecvInto prices one whole sendrecv event into another buffer of
// rank, whose halves go to `to` and come from `from`, moving bytes each
// way, with the table's sendrecv law (messages.sendrecv, COMMS3 on two
// ranks): both partners post at once, each copies what it receives while
// the other copies its payload, and the event ends when both copies and
// both hand-overs are done (docs/predict.md, "Messages"). On this host a
// sendrecv of 512 B each way measured 0.43-0.64 µs where its two halves
// priced by messages.local in series made 0.23 µs: the ranks' signals
// cross the cores both ways, which neither pingpong law holds. COMMS3
// sends a buffer no one rewrites and never reads what it receives; in a
// kernel that computes with what it receives (crossing), whose sender
// rewrites its payload, each half's lines cross the cores once more, and
// the event costs that half's crossing beyond messages.local on top, as
// the two halves in series were charged it (crossLaw). A sendrecv with
// both halves to the rank itself is one copy on its core: one message of
// messages.local (or the top-level law), without the partners' signals;
// beyond the private caches, where the kernel's other ranks copy at the
// same time through the last-level cache and memory the cores share, it
// takes the sendrecv law's time (two ranks copying at once there too):
// meshshift on 2 × 1 ranks measured its copies to itself at 2 and 16 MiB
// 1.7–2.1 × one LOCAL copy, where messages.shared's 1.51 priced them
// 10–25 % short in every validation of 2026-11-27 (docs/predict.md).
// It reports false when the table has no sendrecv law, when ranks share
// cores (the emulator copies both halves on one core there, by the
// message laws), when a half has no peer or only one is the rank itself,
// or when a peer is on another node of a cluster (the law was measured
// inside one).
func (p *machinePricer) sendrecvInto(rank, to, from int64, bytes float64, crossing bool) (float64, string, bool) {
	sr := p.m.SendRecv()
	if sr == nil || p.sharesCores() || to < 0 || from < 0 {
		return 0, "", false
	}
	if to == rank && from == rank {
		if p.ranks > 1 && bytes >= p.privateCacheBytes() {
			// The other ranks copy at the same time, through the
			// last-level cache and memory the cores share: as the
			// partners of a sendrecv do.
			return sr.Time(bytes, 0), fmt.Sprintf("one copy on the rank's core (a sendrecv to and from itself) while the other ranks copy: %s, %s model", selfLawHow, sr.Kind()), true
		}
		mm := p.m.LocalMessages()
		if mm == nil {
			mm, _ = p.route(rank, rank, "", bytes, true)
		}
		if mm == nil {
			return 0, "", false
		}
		return mm.Time(bytes, 0), fmt.Sprintf("one copy on the rank's core (a sendrecv to and from itself), %s model", mm.Kind()), true
	}
	if to == rank || from == rank {
		return 0, "", false
	}
	if p.crossesNodes(rank, to) || p.crossesNodes(rank, from) {
		return 0, "", false
	}
	level := sr.Levels(int(rank), int(to))
	t := sr.Time(bytes, level)
	how := fmt.Sprintf("%s, %s model, %d network level(s)", sendrecvLawHow, sr.Kind(), level)
	if lm := p.m.LocalMessages(); crossing && lm != nil {
		if ct, _, ok := p.crossTime(from, rank, bytes, ""); ok {
			extra := 2 * max(0, ct-lm.Time(bytes, lm.Levels(int(from), int(rank))))
			t += extra
			how += fmt.Sprintf(", and %s for the payload's lines crossing the cores once more (the kernel computes with what it receives: each half's crossing law beyond messages.local)", units.Time(extra))
		}
	}
	return t, how, true
}

// wholeEvent prices a sendrecv or exchange event by a law of the whole
// event where the table has one: an exchange in place (or a sendrecv
// without into) by messages.exchange, a sendrecv into another buffer by
// messages.sendrecv. law names the table's section for the breakdown.
func (p *machinePricer) wholeEvent(rank, to, from int64, bytes float64, inPlace, crossing bool) (t float64, how, law string, ok bool) {
	if inPlace {
		t, how, ok = p.exchange(rank, to, from, bytes)
		return t, how, "exchange law", ok
	}
	t, how, ok = p.sendrecvInto(rank, to, from, bytes, crossing)
	return t, how, "sendrecv law", ok
}

// SendRecvMessage implements emulate.SerialSendRecv for a table with an
// exchange or a sendrecv law. A sendrecv into another buffer between
// ranks with a core each costs the sendrecv law where the table has one
// (sendrecvInto), each message the whole event as for an exchange in
// place. When every rank has a core, the emulator runs the two
// messages of a pair's sendrecvs at once and the event ends with the
// later: each message then costs the whole exchange in place, and the two
// halves' messages in series otherwise. When ranks share cores, the
// emulator already copies both messages on the core of the rank that
// arrives second, one after the other, as the runtime does: each message
// of an exchange in place then costs half the exchange law, and a
// sendrecv into another buffer keeps its message prices.
func (p *machinePricer) SendRecvMessage(src, dst, from, bytes, recvBytes int64, s *lang.CommStmt) (float64, bool) {
	if s == nil {
		return 0, false
	}
	if !isInPlace(s) {
		if t, _, ok := p.sendrecvInto(src, dst, from, float64(max(bytes, recvBytes)), p.crossStmt[s]); ok {
			return t, true
		}
	}
	if p.m.Exchange() == nil {
		return 0, false
	}
	t, _, ok := p.exchange(src, dst, from, float64(max(bytes, recvBytes)))
	switch {
	case !ok:
		return 0, false
	case p.sharesCores() && isInPlace(s):
		return t / 2, true
	case p.sharesCores():
		return 0, false
	case isInPlace(s):
		return t, true
	}
	return p.messageOf(s, src, dst, bytes) + p.messageOf(s, from, src, recvBytes), true
}

// messageOf is Message for a message of statement s: by messages.local
// when its payload stays with its sender (local.go).
func (p *machinePricer) messageOf(s *lang.CommStmt, src, dst, bytes int64) float64 {
	if t, ok := p.StmtMessage(s, src, dst, bytes); ok {
		return t
	}
	return p.Message(src, dst, bytes)
}

// message prices one message of the statement at stmt (a position, as
// analyze.Message.Stmt spells it) and says how.
func (p *machinePricer) message(src, dst int64, bytes float64, elem, stmt string) (float64, string) {
	if p.atOncePos[stmt] {
		if t, how, ok := p.atOnceTime(src, dst, bytes); ok {
			return t, how
		}
	}
	if p.crossPos[stmt] {
		if t, how, ok := p.crossTime(src, dst, bytes, elem); ok {
			return t, how
		}
	}
	if p.isLocalAt(stmt) {
		if lm := p.localLaw(src, dst); lm != nil {
			level := lm.Levels(int(src), int(dst))
			how := fmt.Sprintf("%s model, %d network level(s) (messages.local: the payload stays with its sender)", lm.Kind(), level)
			return p.sharedCopies(lm, level, src, dst, bytes, lm.Time(bytes, level), how)
		}
	}
	mm, level := p.route(src, dst, elem, bytes, !p.postedAt(stmt))
	if mm == nil {
		if p.m.Compute().Free() {
			return 1, "one step"
		}
		p.note("the machine has no message model; messages are not priced")
		return 0, ""
	}
	how := fmt.Sprintf("%s model, %d network level(s)", mm.Kind(), level)
	switch mm {
	case p.m.SharingMessages():
		how += fmt.Sprintf(" (messages.sharing: %d ranks share %d cores)", p.ranks, p.Cores())
	case p.m.SameCoreMessages():
		how += fmt.Sprintf(" (messages.same_core: ranks %d and %d take turns on core %d)", src, dst, src%int64(p.Cores()))
	}
	return p.sharedCopies(mm, level, src, dst, bytes, mm.Time(bytes, level), how)
}

// route returns the message model that prices a message of bytes from
// src to dst and the network levels it crosses: messages.sharing when the
// kernel's ranks outnumber the table's cores and either no more of them
// than cores send or receive messages (the regime it was measured in) or
// the message fits a core's own caches (its partners take turns on one
// core, whose caches hold the payload, however many ranks copy: comms3,
// meshshift and permutation at P = 4 in L2 measured 2–4 × faster than the
// top-level law; docs/predict.md, "Ranks sharing cores"); the inter-node
// model between the nodes of a cluster. handsOff false says that the
// message hands no core over when ranks share cores (an isend's between
// bound ranks, postedAt): messages.sharing does not apply. Between two
// ranks bound to one core (sameCore) a message that hands the core over
// costs messages.same_core when the table has it and no more ranks than
// cores copy, the regime it was measured in (sameCoreLaw), or, when every
// rank copies, when it is longer than the first-level cache: its bytes
// then cost what they do on one core (sharedFactor adds the other core's
// copies), not messages.sharing's, which crossed the cores (meshshift
// 2 × 2 at 256 KiB: 7.8 µs a one-core message measured, 31.8 by
// messages.sharing).
func (p *machinePricer) route(src, dst int64, elem string, bytes float64, handsOff bool) (*machines.MessageModel, int) {
	mm := p.m.Messages(elem)
	switch sc, sm := p.m.SameCoreMessages(), p.m.SharingMessages(); {
	case sc != nil && handsOff && p.sameCore(src, dst) && (p.fewCopiers() || bytes > p.firstCacheBytes()):
		mm = sc
	case sm != nil && handsOff && p.sharesCores() && (p.fewCopiers() || bytes < p.privateCacheBytes()):
		mm = sm
	}
	if p.crossesNodes(src, dst) {
		mm = p.m.Cluster().Inter()
	}
	if mm == nil {
		return nil, 0
	}
	return mm, mm.Levels(int(src), int(dst))
}

// sameCoreLaw is the table's messages.same_core when it prices a message
// between src and dst: two ranks bound to one core (sameCore), when no
// more ranks than cores send or receive messages (fewCopiers), the regime
// it was measured in (two of four ranks on two cores). nil otherwise.
//
// With every rank copying, the payload's lines move between the cores
// in the kernel's other messages, and a copy between the ranks of one
// core then reads or writes lines the other core holds: meshshift 2 × 2
// at 8 KiB measured 1.06 µs for its one-core exchange where this law
// gives 0.46 (the 01:02 validation, docs/accuracy.md, "Session 20"), and
// replayed on that validation, this law for every one-core message took
// the 4-rank cases from 10.2 to 12.6 % median |error|, L1 worst (halo2d,
// hypercube, comms3, wave: −15..−58 %), where the L2 ones gained. So with
// every rank copying route takes it only for messages longer than the
// first-level cache, with messages.shared (session 21).
func (p *machinePricer) sameCoreLaw(src, dst int64) *machines.MessageModel {
	sc := p.m.SameCoreMessages()
	if sc == nil || !p.fewCopiers() || !p.sameCore(src, dst) {
		return nil
	}
	return sc
}

// crossesNodes reports whether a message from src to dst goes between two
// nodes of a cluster with an inter-node law: the laws measured inside one
// node (local, sendrecv, shared copies) do not price it.
func (p *machinePricer) crossesNodes(src, dst int64) bool {
	cl := p.m.Cluster()
	return cl != nil && cl.Inter() != nil && p.differentNodes(cl, src, dst)
}

// differentNodes reports whether two ranks sit on different nodes; a
// kernel without a grid is a row of P ranks, as the emulator places it.
func (p *machinePricer) differentNodes(cl *machines.Cluster, a, b int64) bool {
	px := p.px
	if px <= 0 {
		px = max(p.ranks, 1)
	}
	ax, ay := cl.NodeOf(int(a%px), int(a/px))
	bx, by := cl.NodeOf(int(b%px), int(b/px))
	return ax != bx || ay != by
}

// Collective implements Pricer.
func (p *machinePricer) Collective(kind, op, elem string, bytes int64, participants int64) float64 {
	t, _, _ := p.collective(kind, op, elem, float64(bytes), participants, false)
	return t
}

// CollectiveAfterBarrier implements emulate.AfterBarrierPricer: the table's
// after_barrier: time of the call's entry, else its time:.
func (p *machinePricer) CollectiveAfterBarrier(kind, op, elem string, bytes int64, participants int64) float64 {
	t, _, _ := p.collective(kind, op, elem, float64(bytes), participants, true)
	return t
}

// collective prices one call and names the rule used: a call right after
// a barrier (analyze.AfterBarrier) at its entry's after_barrier: time when
// it has one, any other at its time:.
func (p *machinePricer) collective(kind, op, elem string, bytes float64, participants int64, afterBarrier bool) (float64, string, string) {
	if cost, ok := p.m.CollectiveAfterBarrier(kind, op, elem); ok && afterBarrier {
		t := cost.Eval(machines.Vars{Bytes: bytes, P: float64(participants)})
		return t, "table (after a barrier): " + cost.String(), cost.Source()
	}
	if cost, ok := p.m.Collective(kind, op, elem); ok {
		t := cost.Eval(machines.Vars{Bytes: bytes, P: float64(participants)})
		return t, "table: " + cost.String(), cost.Source()
	}
	params, src := p.mpichParams()
	alg := mpichCollective(kind, mpichSize(kind, bytes, participants), participants, params)
	return alg.time, "MPICH " + alg.name, src
}

// mpichParams returns α, β, γ from the table, or from its message model.
func (p *machinePricer) mpichParams() (mpichParams, string) {
	if c, ok := p.m.MPICH(); ok {
		return mpichParams{c.Alpha.Value, c.Beta.Value, c.Gamma.Value}, "MPICH α = " + c.Alpha.String() + ", β = " + c.Beta.String()
	}
	if mm := p.m.Messages(""); mm != nil {
		t0 := mm.Time(0, 1)
		beta := (mm.Time(1<<20, 1) - t0) / (1 << 20)
		return mpichParams{alpha: t0, beta: beta}, "MPICH with α, β from the message model [derived]"
	}
	if p.m.Compute().Free() {
		return mpichParams{alpha: 1}, "one step per message"
	}
	p.unpricedCollectives = true
	return mpichParams{}, "no message model: collectives are not priced"
}

// EagerLimit implements Pricer.
func (p *machinePricer) EagerLimit() int64 {
	if mm := p.m.Messages(""); mm != nil {
		if n, ok := mm.EagerLimit(); ok {
			return int64(n.Value)
		}
	}
	return -1
}

// Cluster implements Pricer.
func (p *machinePricer) Cluster() *emulate.Cluster {
	cl := p.m.Cluster()
	if cl == nil {
		return nil
	}
	sx, sy := cl.Node()
	lx, ly := cl.Links()
	out := &emulate.Cluster{Sx: int64(sx), Sy: int64(sy), Lx: int64(lx), Ly: int64(ly)}
	if inter := cl.Inter(); inter != nil {
		out.Inter = func(bytes int64) float64 { return inter.Time(float64(bytes), 1) }
	}
	return out
}

// composeTime combines compute and memory as the machine declares.
func composeTime(c machines.Compose, compute, memory float64) float64 {
	if c == machines.ComposeMax || c == machines.ComposeECM {
		return math.Max(compute, memory)
	}
	return compute + memory
}

// sumTerms adds the times of terms.
func sumTerms(ts []Term) float64 {
	var s float64
	for _, t := range ts {
		s += t.Time
	}
	return s
}

// safeDiv returns a/b, or 0 when b is 0.
func safeDiv(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// sortedKeys returns the keys of m in order.
func sortedKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// vectorTerms prices the vector loops of a region on the machine's vector
// units with Hockney's law, per entry t = q·(n + n½)/r∞, when their mean
// length reaches N_v (below it the scalar processor is faster, [004] L216),
// and removes their operations from w so that they are not priced twice.
func (p *machinePricer) vectorTerms(w *workload, loops []analyze.VectorLoop) []Term {
	if !p.vectorUnits {
		return nil
	}
	var terms []Term
	for _, v := range loops {
		vu, ok := p.m.Compute().Vector(v.Form, v.Elem)
		entries, iters := v.Entries.Float(), v.Iterations.Float()
		if !ok || entries == 0 {
			continue
		}
		mean := iters / entries
		if mean < vu.Nv.Value {
			p.note(fmt.Sprintf("the loop at %s runs %.4g iterations per entry, below N_v = %g: priced on the scalar processor", v.Stmt, mean, vu.Nv.Value))
			continue
		}
		t := vu.Work.Value * (iters + entries*vu.Nhalf.Value) / vu.Rinf.Value
		p.vectorPriced = true
		terms = append(terms, Term{Resource: "compute", What: fmt.Sprintf("vector %s %s (%s)", v.Form, v.Elem, v.Stmt),
			Count: iters, Unit: "element", UnitCost: safeDiv(t, iters), Time: t,
			How:    fmt.Sprintf("Hockney q(n + n½)/r∞ over %.6g entries of mean length %.4g; r∞ = %s, n½ = %s", entries, mean, vu.Rinf.String(), vu.Nhalf.String()),
			Source: vu.Rinf.Source})
		w.ops = subtractOps(w.ops, v.Ops)
		w.madds = subtractOps(w.madds, v.Madds)
		for _, o := range v.Ops {
			if f := o.Op.NominalFlop(); f > 0 && (o.Type == "f64" || o.Type == "f32") {
				w.flop -= o.Count.Float() * float64(f)
			}
		}
	}
	return terms
}

// subtractOps removes the counts of sub from ops.
func subtractOps(ops []opN, sub []analyze.OpCount) []opN {
	out := append([]opN(nil), ops...)
	for _, s := range sub {
		for i := range out {
			if out[i].op == s.Op && out[i].typ == s.Type && out[i].pattern == s.Pattern {
				out[i].n -= s.Count.Float()
			}
		}
	}
	return out
}
