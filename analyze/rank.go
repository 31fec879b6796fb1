package analyze

import (
	"cmp"
	"fmt"
	"math/big"
	"slices"

	"perfc/analyze/symbolic"
	"perfc/lang"
)

// rankAnalysis sums every leaf of a plan for one rank.
type rankAnalysis struct {
	p           *plan
	k           *lang.Checked
	rank        int64
	env         map[string]*big.Rat // the value of every symbol for this rank
	rankSymbols map[string]bool     // symbols whose value depends on the rank
	atoms       []atom
	decisions   []decision
	enumerated  bool
	notes       []string
	// traced holds the rank-dependent evaluations of enumerations, so that
	// another rank can be checked against them (engine.go); untraceable
	// marks an enumeration that cannot be replayed.
	traced      []traced
	tracedN     int // evaluations in traced, counting those of adopted lists
	untraceable bool
	rankFormula bool // some closed form mentions a rank-dependent symbol
	traceSeen   traceSet
	execMemo    map[chainKey]sumResult // executions per chain (exec)
	// peers logs the peer expression of every message added, in order
	// (nil for a varying peer), for runs kept for other ranks (leafrun.go).
	peers []lang.Expr
}

// newRankAnalysis binds the symbols for one rank: parameters, run-constant
// integer lets, rank and the grid coordinates.
func newRankAnalysis(p *plan, rank int64) *rankAnalysis {
	k := p.k
	if p.baseEnv == nil {
		p.baseEnv = baseSymbols(k)
	}
	env := make(map[string]*big.Rat, len(p.baseEnv)+16)
	for name, v := range p.baseEnv {
		env[name] = v
	}
	ra := &rankAnalysis{p: p, k: k, rank: rank, env: env, rankSymbols: map[string]bool{}}
	ra.bindRank(rank)
	return ra
}

// baseSymbols returns the values every rank shares: parameters, run-constant
// integer lets and P.
func baseSymbols(k *lang.Checked) map[string]*big.Rat {
	env := map[string]*big.Rat{}
	for _, obj := range k.Params {
		if r := obj.Value.Rat(); r != nil {
			env[obj.Name] = r
		}
	}
	lang.Inspect(k.Kernel.Body, func(n lang.Node) bool {
		if s, ok := n.(*lang.LetStmt); ok {
			if obj := k.Info.Defs[s.Name]; obj != nil && obj.Dep == 0 && obj.Value.Kind() == lang.IntValue {
				env[obj.Name] = obj.Value.Rat()
			}
		}
		return true
	})
	if _, ok := env["P"]; !ok {
		env["P"] = symbolic.NewInt64Rat(k.NumRanks())
	}
	return env
}

// bindRank sets rank, rx and ry.
func (ra *rankAnalysis) bindRank(rank int64) {
	ra.env["rank"] = symbolic.NewInt64Rat(rank)
	ra.rankSymbols["rank"] = true
	if px, _, ok := ra.k.Grid(); ok {
		ra.env["rx"] = symbolic.NewInt64Rat(rank % px)
		ra.env["ry"] = symbolic.NewInt64Rat(rank / px)
		ra.rankSymbols["rx"] = true
		ra.rankSymbols["ry"] = true
	}
}

// cloneEnv copies the symbol values (the enumerator adds loop indices).
func (ra *rankAnalysis) cloneEnv() map[string]*big.Rat {
	out := make(map[string]*big.Rat, len(ra.env)+8)
	for k, v := range ra.env {
		out[k] = v
	}
	return out
}

// regionTotals accumulates counts per region while a rank is analysed.
// The counts live in regions, in the plan's order, which becomes the
// class's report as it is (copying every region's counts into a report,
// and allocating each region apart, was a tenth of what an analysis
// allocated).
type regionTotals struct {
	order   []string
	counts  map[string]*Counts // the regions that have counts, into regions
	regions []Region
	// rankFree holds the regions whose counts were found free of
	// rank-dependent formulas while they were counted (cache lines
	// aside, which come later).
	rankFree map[string]bool
}

// newRegionTotals returns empty totals for the regions of order.
func newRegionTotals(order []string) *regionTotals {
	rt := &regionTotals{order: order, counts: make(map[string]*Counts, len(order)), regions: make([]Region, len(order))}
	for i, name := range order {
		rt.regions[i].Name = regionName(name)
	}
	return rt
}

// get returns the counts of region name, creating them.
func (rt *regionTotals) get(name string) *Counts {
	if c, ok := rt.counts[name]; ok {
		return c
	}
	var c *Counts
	if i := slices.Index(rt.order, name); i >= 0 {
		c = &rt.regions[i].Counts
	} else {
		c = &Counts{}
	}
	rt.counts[name] = c
	return c
}

// run sums every leaf and returns the counts per region.
func (ra *rankAnalysis) run() (*regionTotals, error) {
	rt := newRegionTotals(ra.p.regions)
	for _, s := range ra.p.runs {
		free, err := ra.countRun(s, rt.get(s.region))
		if err != nil {
			return nil, err
		}
		if free {
			if rt.rankFree == nil {
				rt.rankFree = map[string]bool{}
			}
			rt.rankFree[s.region] = true
		}
	}
	return rt, nil
}

// one is the weight of a leaf that counts executions.
var oneWeight = weight{poly: symbolic.Int(1)}

// exec sums a leaf's executions.
func (ra *rankAnalysis) exec(l *leaf, chain []level) (Count, error) {
	// Statements of one block share their chain (the same slice), so their
	// execution counts are summed once.
	var key chainKey
	if len(chain) > 0 {
		key = chainKey{&chain[0], len(chain)}
	}
	res, ok := ra.execMemo[key]
	if !ok {
		var err error
		if res, err = ra.sharedExec(chain, key); err != nil {
			return Count{}, err
		}
		if ra.execMemo == nil {
			ra.execMemo = map[chainKey]sumResult{}
		}
		ra.execMemo[key] = res
	}
	ra.note(res, l)
	return Count{Value: res.value, Formula: res.formula, Symbolic: res.symbolic}, nil
}

// note records why a leaf was counted by enumeration.
func (ra *rankAnalysis) note(res sumResult, l *leaf) {
	if res.enumerated == "" {
		return
	}
	ra.addNote(fmt.Sprintf("counted by enumerating outer loop levels: %s", res.enumerated))
}

// addNote appends a note once.
func (ra *rankAnalysis) addNote(msg string) {
	if !slices.Contains(ra.notes, msg) {
		ra.notes = append(ra.notes, msg)
	}
}

// leaf adds one leaf's contribution to c.
func (ra *rankAnalysis) leaf(l *leaf, c *Counts) error {
	switch l.kind {
	case leafIter:
		n, err := ra.exec(l, l.chain)
		if err != nil {
			return err
		}
		c.Iterations = c.Iterations.add(n)
		c.Loops = addLoopCount(c.Loops, LoopCount{Stmt: ra.place(l.stmt), Iterations: n})
		return nil
	case leafEntry:
		n, err := ra.exec(l, l.chain)
		if err != nil {
			return err
		}
		c.LoopEntries = c.LoopEntries.add(n)
		c.Loops = addLoopCount(c.Loops, LoopCount{Stmt: ra.place(l.stmt), Entries: n})
		return nil
	case leafRegion, leafInnerRegion:
		n, err := ra.exec(l, l.chain)
		if err != nil {
			return err
		}
		if l.kind == leafRegion {
			c.RegionEntries = c.RegionEntries.add(n)
		} else {
			c.InnerRegionEntries = c.InnerRegionEntries.add(n)
		}
		return nil
	case leafChain:
		return ra.chainLeaf(l, c)
	case leafComm:
		return ra.comm(l, c)
	case leafVector:
		return ra.vectorLeaf(l, c)
	}
	chain := l.chain
	n, err := ra.exec(l, chain)
	if err != nil {
		return err
	}
	if l.times > 1 {
		n = n.times(l.times)
	}
	for _, t := range l.ops {
		c.addOp(t.op, t.typ, l.pattern, n.times(t.n))
	}
	for _, t := range l.madd {
		m := n.times(t.n)
		c.MaddPairs = c.MaddPairs.add(m)
		c.Madds = addOpCount(c.Madds, OpCount{Op: t.op, Type: t.typ, Pattern: l.pattern, Count: m})
	}
	for _, r := range l.refs {
		if err := ra.ref(r, n, c); err != nil {
			return err
		}
	}
	return nil
}

// ref adds one array reference executed n times.
func (ra *rankAnalysis) ref(r *refInfo, n Count, c *Counts) error {
	size := int64(r.array.Elem.Size())
	bytes := n.times(size)
	if r.store {
		c.Stores = c.Stores.add(n)
		c.StoreBytes = c.StoreBytes.add(bytes)
	} else {
		c.Loads = c.Loads.add(n)
		c.LoadBytes = c.LoadBytes.add(bytes)
	}
	strides, err := ra.strides(r)
	if err != nil {
		return err
	}
	off, known, err := ra.offset(r)
	if err != nil {
		return err
	}
	c.Refs = append(c.Refs, RefCount{
		Array: r.array.Name, Pos: ra.place(r.ref), Text: ra.source(r.ref),
		Store: r.store, Elem: r.array.Elem, Size: int(size), Count: n, Strides: strides,
		Hoisted: r.hoisted, Pattern: r.pattern, Loop: ra.innermostLoop(r), Offset: off, OffsetKnown: known,
	})
	return nil
}

// innermostLoop is the place of the innermost for loop of the reference's
// statement, or "".
func (ra *rankAnalysis) innermostLoop(r *refInfo) string {
	for i := len(r.stmtChain) - 1; i >= 0; i-- {
		if l := r.stmtChain[i]; l.kind == loopLevel {
			return ra.place(l.loop)
		}
	}
	return ""
}

// offset is the reference's byte address with every loop index of its
// statement at 0, for this rank (RefCount.Offset); known is false when the
// address is not a polynomial or not an integer.
func (ra *rankAnalysis) offset(r *refInfo) (int64, bool, error) {
	base, ok := ra.p.offsetCache[r]
	if !ok {
		addr, err := ra.linearAddress(r)
		if err != nil {
			return 0, false, err
		}
		if addr != nil {
			b := *addr
			for _, l := range r.stmtChain {
				if l.kind == loopLevel {
					b = b.Substitute(l.index.Name, symbolic.Poly{})
				}
			}
			base = &b
		}
		if ra.p.offsetCache == nil {
			ra.p.offsetCache = map[*refInfo]*symbolic.Poly{}
		}
		ra.p.offsetCache[r] = base
	}
	if base == nil {
		return 0, false, nil
	}
	v, err := base.Eval(ra.env)
	if err != nil || !v.IsInt() || !v.Num().IsInt64() {
		return 0, false, nil
	}
	return v.Num().Int64(), true, nil
}

// strides computes the byte stride of a reference per iteration of every
// loop of its original statement's chain.
func (ra *rankAnalysis) strides(r *refInfo) ([]Stride, error) {
	// Strides are structural (the same on every rank): computed once.
	if s, ok := ra.p.strideCache[r]; ok {
		return s, nil
	}
	s, err := ra.computeStrides(r)
	if err != nil {
		return nil, err
	}
	if ra.p.strideCache == nil {
		ra.p.strideCache = map[*refInfo][]Stride{}
	}
	ra.p.strideCache[r] = s
	return s, nil
}

// computeStrides works the strides out from the reference's address.
func (ra *rankAnalysis) computeStrides(r *refInfo) ([]Stride, error) {
	addr, err := ra.linearAddress(r)
	if err != nil {
		return nil, err
	}
	var out []Stride
	for _, l := range r.stmtChain {
		if l.kind != loopLevel {
			continue
		}
		v := l.index.Name
		s := Stride{Loop: v}
		if addr != nil {
			a, _, ok := symbolic.Affine(*addr, v)
			if ok {
				// The address moves by a per unit of the index, so by
				// a·step per iteration of a loop with a step.
				if l.loop.Step != nil {
					if step, err := ra.k.EvalInt(l.loop.Step, &lang.Env{Rank: ra.rank}); err == nil {
						a = a.Scale(symbolic.NewInt64Rat(step))
					}
				}
				s.Bytes = a
				s.Invariant = a.IsZero()
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// linearAddress returns the byte offset of a reference as a polynomial in
// the symbols and loop indices, or nil when an index is not polynomial.
func (ra *rankAnalysis) linearAddress(r *refInfo) (*symbolic.Poly, error) {
	spec := ra.p.specs[r.array]
	if spec == nil || len(spec.Dims) != len(r.ref.Index) {
		return nil, nil
	}
	rows := ra.rowBytes(r.array, spec)
	if rows == nil {
		return nil, nil
	}
	addr := symbolic.Poly{}
	for i, ix := range r.ref.Index {
		ps, err := ra.pieces(ix)
		if err != nil || len(ps) != 1 {
			return nil, nil
		}
		addr = addr.Add(ps[0].val.Mul(rows[i]))
	}
	return &addr, nil
}

// rowBytes returns, per dimension of an array, the bytes one step of its
// index moves: the element size times the extents of the dimensions after
// it; nil when an extent is not a polynomial. Every reference to the array
// shares them, so they are kept in the plan unless working them out made a
// decision or an atom, which the rank must then record each time.
func (ra *rankAnalysis) rowBytes(a *lang.Object, spec *lang.ArraySpec) []symbolic.Poly {
	if rows, ok := ra.p.rowBytes[a]; ok {
		return rows
	}
	decisions, atoms := len(ra.decisions), len(ra.atoms)
	rows := make([]symbolic.Poly, len(spec.Dims))
	size := symbolic.Int(int64(a.Elem.Size()))
	for i := len(spec.Dims) - 1; i >= 0; i-- {
		rows[i] = size
		if i == 0 {
			break
		}
		ds, err := ra.pieces(spec.Dims[i])
		if err != nil || len(ds) != 1 {
			rows = nil
			break
		}
		size = size.Mul(ds[0].val)
	}
	if len(ra.decisions) == decisions && len(ra.atoms) == atoms {
		if ra.p.rowBytes == nil {
			ra.p.rowBytes = map[*lang.Object][]symbolic.Poly{}
		}
		ra.p.rowBytes[a] = rows
	}
	return rows
}

// addOp adds n operations of one kind, type and pattern, keeping the
// nominal flop and integer-op totals.
func (c *Counts) addOp(op OpKind, typ OpType, pattern string, n Count) {
	c.Ops = addOpCount(c.Ops, OpCount{Op: op, Type: typ, Pattern: pattern, Count: n})
	if isFloatType(typ) {
		if w := op.NominalFlop(); w != 0 {
			c.Flop = c.Flop.add(n.times(w))
		}
	} else if op != OpConv {
		c.IntOps = c.IntOps.add(n)
	}
}

// addOpCount adds x into a list of operation counts sorted by kind, type
// and pattern.
func addOpCount(list []OpCount, x OpCount) []OpCount {
	i, found := slices.BinarySearchFunc(list, x, compareOpKind)
	if found {
		list[i].Count = list[i].Count.add(x.Count)
		return list
	}
	return slices.Insert(list, i, x)
}

// addLoopCount adds x's iterations and entries to its loop's in list, kept
// ordered by loop position.
func addLoopCount(list []LoopCount, x LoopCount) []LoopCount {
	i, found := slices.BinarySearchFunc(list, x, func(a, b LoopCount) int { return cmp.Compare(a.Stmt, b.Stmt) })
	if found {
		list[i].Iterations = list[i].Iterations.add(x.Iterations)
		list[i].Entries = list[i].Entries.add(x.Entries)
		return list
	}
	return slices.Insert(list, i, x)
}

// compareOpKind orders operation counts by kind, type and pattern.
func compareOpKind(a, b OpCount) int {
	if a.Op != b.Op {
		return cmp.Compare(a.Op, b.Op)
	}
	if a.Type != b.Type {
		return cmp.Compare(a.Type, b.Type)
	}
	return cmp.Compare(a.Pattern, b.Pattern)
}

// chainKey identifies a chain by its backing array and length: leaves
// planned in one block share the slice.
type chainKey struct {
	first *level
	n     int
}

// sharedSum is a closed-form execution count computed for one rank, kept
// in the plan for the other ranks: the rank-dependent decisions it made
// and the atoms it created. Another rank that makes the same decisions has
// the same formula, evaluated with its own symbols. Ranks of different
// classes (a corner and an interior rank) share most of their leaves.
type sharedSum struct {
	res       sumResult
	decisions []decision
	atoms     []atom
}

// sharedExec sums the executions of a chain, reusing another rank's closed
// form when this rank makes the same decisions.
func (ra *rankAnalysis) sharedExec(chain []level, key chainKey) (sumResult, error) {
	variants := ra.p.shared[key]
	for _, s := range variants {
		if res, ok := ra.reuse(s); ok {
			return res, nil
		}
	}
	decisions, atoms := len(ra.decisions), len(ra.atoms)
	res, err := ra.sumChain(chain, oneWeight)
	if err != nil || !res.symbolic || len(variants) >= maxVariants {
		return res, err
	}
	if ra.p.shared == nil {
		ra.p.shared = map[chainKey][]*sharedSum{}
	}
	// Ranks that decide otherwise (the edge of a grid skipping a halo
	// loop, the interior running it) each leave their own variant.
	ra.p.shared[key] = append(variants, &sharedSum{res: res,
		decisions: append([]decision(nil), ra.decisions[decisions:]...),
		atoms:     append([]atom(nil), ra.atoms[atoms:]...)})
	return res, nil
}

// reuse evaluates a shared sum for this rank when the rank makes the same
// decisions; the decisions and atoms become this rank's too.
func (ra *rankAnalysis) reuse(s *sharedSum) (sumResult, bool) {
	if !ra.adopt(s.decisions, s.atoms) {
		return sumResult{}, false
	}
	v, err := s.res.formula.Eval(ra.env)
	if err != nil {
		return sumResult{}, false
	}
	ra.noteRankFormula(s.res.formula)
	res := s.res
	res.value = v
	return res, true
}

// noteRankFormula remembers that a closed form depends on the rank: the
// rank's counts then differ from another's that makes the same decisions,
// even after the form is lost in a sum with an enumerated count.
func (ra *rankAnalysis) noteRankFormula(p symbolic.Poly) {
	if !ra.rankFormula && ra.rankDependentPoly(p) {
		ra.rankFormula = true
	}
}

// adopt binds another rank's atoms for this rank and checks that this rank
// makes the same decisions; when it does they become this rank's too.
func (ra *rankAnalysis) adopt(decisions []decision, atoms []atom) bool {
	for _, a := range atoms {
		if _, ok := ra.env[a.name]; ok {
			continue
		}
		v, ok := ra.atomValue(a, ra.rank, ra.env)
		if !ok {
			return false
		}
		ra.env[a.name] = v
		ra.atoms = append(ra.atoms, a)
		if (a.expr != nil && ra.k.Info.Deps[a.expr]&lang.DepRank != 0) || (a.expr == nil && ra.rankDependentPoly(a.poly)) {
			ra.rankSymbols[a.name] = true
		}
	}
	lenv := &lang.Env{Rank: ra.rank}
	for _, d := range decisions {
		if !ra.decisionHolds(d, lenv, ra.env) {
			return false
		}
	}
	ra.decisions = append(ra.decisions, decisions...)
	return true
}

// sharedTrace is an enumerated sum kept for other ranks with the
// rank-dependent evaluations it traced: another rank that evaluates them
// alike has the same sum (a peer that depends on a loop index, like the
// octant's neighbour of a sweep, on an interior and a corner rank).
type sharedTrace struct {
	res       sumResult
	traced    []traced
	decisions []decision // rank-dependent decisions made while summing
	atoms     []atom
}

// maxVariants bounds the enumerations of one sum kept for other ranks: a
// neighbour in x has three (west edge, interior, east edge), the octants of
// a sweep on a 2-D grid nine; beyond a few dozen, trying them all costs
// more than enumerating.
const maxVariants = 16

// sharedTraceKey identifies an enumerated sum: the chain and the weight.
type sharedTraceKey struct {
	chain chainKey
	id    string
}

// sumShared is sumChain for a concrete weight with an id, reusing another
// rank's enumeration when this rank replays its traced evaluations alike.
func (ra *rankAnalysis) sumShared(chain []level, w weight) (sumResult, error) {
	var key sharedTraceKey
	if len(chain) > 0 {
		key = sharedTraceKey{chainKey{&chain[0], len(chain)}, w.id}
	}
	variants := ra.p.sharedTraces[key]
	for _, s := range variants {
		if ra.replayTraces(s.traced) && ra.adopt(s.decisions, s.atoms) {
			ra.adoptTraces(s.traced)
			ra.enumerated = ra.enumerated || s.res.enumerated != ""
			return s.res, nil
		}
	}
	// Whether this sum can be replayed is its own property: start clean and
	// restore the rank's flag afterwards.
	before, untraceable := len(ra.traced), ra.untraceable
	ra.untraceable = false
	decisions, atoms := len(ra.decisions), len(ra.atoms)
	// Trace afresh, so that every evaluation this sum depends on is in its
	// own list even when an earlier sum traced the same one (a guard both
	// enumerations pass through).
	seen := ra.traceSeen
	ra.traceSeen = traceSet{}
	res, err := ra.sumChain(chain, w)
	seen.merge(ra.traceSeen)
	ra.traceSeen = seen
	own := ra.untraceable
	ra.untraceable = untraceable || own
	if err != nil {
		return res, err
	}
	if own || len(variants) >= maxVariants {
		return res, nil
	}
	if ra.p.sharedTraces == nil {
		ra.p.sharedTraces = map[sharedTraceKey][]*sharedTrace{}
	}
	ra.p.sharedTraces[key] = append(variants, &sharedTrace{res: res, traced: append([]traced(nil), ra.traced[before:]...),
		decisions: append([]decision(nil), ra.decisions[decisions:]...),
		atoms:     append([]atom(nil), ra.atoms[atoms:]...)})
	return res, nil
}
