package analyze

import (
	"fmt"
	"math/big"

	"perfc/analyze/symbolic"
	"perfc/lang"
)

// This file builds the cache-line model's loop tree and reference groups:
// the nodes of the kernel's loops and repeats, the groups of references that
// differ by constant offsets, and what a group's chain decides (executions,
// average trip counts, bounding boxes, strides, the members' addresses at the
// first iteration).

// inside reports whether n is x or lies below it.
func (n *cacheNode) inside(x *cacheNode) bool {
	for ; n != nil; n = n.parent {
		if n == x {
			return true
		}
	}
	return false
}

// newCacheModel builds the loop tree and the reference groups from the plan.
func newCacheModel(ra *rankAnalysis) (*cacheModel, error) {
	m := &cacheModel{ra: ra, root: &cacheNode{name: "kernel"}, nodes: map[lang.Stmt]*cacheNode{}, share: ra.p.cacheShared()}
	for _, l := range ra.p.leaves {
		switch l.kind {
		case leafIter:
			m.addNode(l)
		case leafExec, leafCond, leafHoist:
			for _, r := range l.refs {
				if err := m.addRef(r, l.region); err != nil {
					return nil, err
				}
			}
		}
	}
	for _, g := range m.groups {
		if err := m.finishShared(g); err != nil {
			return nil, err
		}
	}
	m.collect(m.root)
	return m, nil
}

// addNode adds the loop or repeat of a leafIter leaf under its container.
func (m *cacheModel) addNode(l *leaf) {
	own := l.chain[len(l.chain)-1]
	n := &cacheNode{stmt: l.stmt, name: "repeat", chain: l.chain, parent: m.container(l.chain[:len(l.chain)-1])}
	if own.kind == loopLevel {
		n.name = own.index.Name
	}
	m.nodes[l.stmt] = n
	n.parent.items = append(n.parent.items, cacheItem{node: n})
}

// container returns the node of the innermost loop or repeat of chain.
func (m *cacheModel) container(chain []level) *cacheNode {
	for i := len(chain) - 1; i >= 0; i-- {
		switch chain[i].kind {
		case loopLevel:
			return m.nodes[chain[i].loop]
		case repeatLevel:
			return m.nodes[chain[i].repeat]
		}
	}
	return m.root
}

// collect fills the under lists of x and its descendants.
func (m *cacheModel) collect(x *cacheNode) []*refGroup {
	var out []*refGroup
	for _, it := range x.items {
		if it.node != nil {
			out = append(out, m.collect(it.node)...)
		} else if !it.group.empty {
			out = append(out, it.group)
		}
	}
	x.under = out
	x.arrays = byArray(out)
	return out
}

// addRef puts a reference into the group it belongs to, or a new one.
func (m *cacheModel) addRef(r *refInfo, region string) error {
	addr, strides, regular, err := m.refAddress(r)
	if err != nil {
		return err
	}
	mem := groupMember{ref: r, text: m.share.text(r), store: r.store}
	if regular {
		mem.addr = *addr
	}
	node := m.container(r.chain)
	if regular {
		for _, it := range node.items {
			g := it.group
			if g != nil && !g.irregular && g.array == r.array && g.region == region && sameChain(g.chain, r.chain) && samePolys(g.strides, strides) {
				g.members = append(g.members, mem)
				return nil
			}
		}
	}
	g := &refGroup{array: r.array, region: region, node: node, chain: r.chain, elem: int64(r.array.Elem.Size()),
		members: []groupMember{mem}, strides: strides, irregular: !regular, id: len(m.groups), share: -1}
	node.items = append(node.items, cacheItem{group: g})
	m.groups = append(m.groups, g)
	return nil
}

// strides returns the byte stride of an address per iteration of every
// loop of r's chain (the coefficient of the index times the loop's step;
// zero for a repeat), or false when the address is not affine in the loop
// indices with strides known at these parameters.
func (m *cacheModel) strides(r *refInfo, addr *symbolic.Poly) ([]symbolic.Poly, bool) {
	if addr == nil {
		return nil, false
	}
	var out []symbolic.Poly
	for _, l := range r.chain {
		switch l.kind {
		case repeatLevel:
			out = append(out, symbolic.Poly{})
		case loopLevel:
			a, _, ok := symbolic.Affine(*addr, l.index.Name)
			if !ok || !m.ra.onlySymbols(a) {
				return nil, false
			}
			if l.loop.Step != nil {
				step, err := m.ra.k.EvalInt(l.loop.Step, &lang.Env{Rank: m.ra.rank})
				if err != nil {
					return nil, false
				}
				a = a.Scale(new(big.Rat).SetInt64(step))
			}
			out = append(out, a)
		}
	}
	// Every loop index the address mentions must be one of the chain's.
	for _, v := range addr.Vars() {
		if _, ok := m.ra.env[v]; ok {
			continue
		}
		found := false
		for _, l := range r.chain {
			if l.kind == loopLevel && l.index.Name == v {
				found = true
			}
		}
		if !found {
			return nil, false
		}
	}
	return out, true
}

// sameChain reports whether two chains are the same constructs.
func sameChain(a, b []level) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.kind != y.kind || x.loop != y.loop || x.repeat != y.repeat || x.cond != y.cond || x.then != y.then || x.prob != y.prob {
			return false
		}
	}
	return true
}

// samePolys reports whether two lists of polynomials are equal.
func samePolys(a, b []symbolic.Poly) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Equal(b[i]) {
			return false
		}
	}
	return true
}

// finish computes a group's executions, average trip counts, strides and
// the members' addresses at the representative iteration (every loop at its
// first index).
func (m *cacheModel) finish(g *refGroup) error {
	info, err := m.chainInfo(g.chain)
	if err != nil {
		return err
	}
	g.count = info.count
	if info.empty {
		g.empty = true
		return nil
	}
	g.dims = append([]groupDim(nil), info.dims...)
	if g.irregular {
		return nil
	}
	for k := range g.dims {
		s, err := m.symValue(g.strides[k])
		if err != nil {
			g.irregular = true
			return nil
		}
		g.dims[k].stride = s
	}
	m.bases(g, info)
	return nil
}

// chainInfo is what a group's chain alone decides: its executions, and
// each loop's and repeat's trip counts and bounding box (strides left
// zero). The groups of one place share it.
type chainInfo struct {
	count Count
	empty bool // the chain never executes
	dims  []groupDim
	first *firstIteration // made when first wanted
}

// chainInfo returns the chain's information, computed once per chain of
// up to eight levels.
func (m *cacheModel) chainInfo(chain []level) (*chainInfo, error) {
	var key chainLevels
	memo := len(chain) <= len(key.levels)
	if memo {
		key.n = copy(key.levels[:], chain)
		if c, ok := m.chains[key]; ok {
			return c, nil
		}
	}
	c, err := m.newChainInfo(chain)
	if err != nil {
		return nil, err
	}
	if memo {
		if m.chains == nil {
			m.chains = map[chainLevels]*chainInfo{}
		}
		m.chains[key] = c
	}
	return c, nil
}

// newChainInfo computes a chainInfo.
func (m *cacheModel) newChainInfo(chain []level) (*chainInfo, error) {
	ra := m.ra
	count, err := m.chainCount(chain)
	if err != nil {
		return nil, err
	}
	c := &chainInfo{count: count}
	if c.count.IsZero() {
		c.empty = true
		return c, nil
	}
	var pos []int // chain positions of loops and repeats
	for i, l := range chain {
		if l.kind == loopLevel || l.kind == repeatLevel {
			pos = append(pos, i)
		}
	}
	prev := intEst(1)
	if len(pos) > 0 {
		if prev, err = m.executions(withoutProb(chain[:pos[0]])); err != nil {
			return nil, err
		}
	}
	for k, p := range pos {
		end := len(chain)
		if k+1 < len(pos) {
			end = pos[k+1]
		}
		// Static ifs narrow the range of the loop before them; data ifs
		// do not (they pick iterations all over it; see touch).
		cur, err := m.executions(withoutProb(chain[:end]))
		if err != nil {
			return nil, err
		}
		if prev.val.Sign() == 0 || cur.val.Sign() == 0 {
			c.empty = true
			return c, nil
		}
		d := groupDim{node: m.container(chain[:p+1]), trip: m.tripOf(chain[p], cur, prev)}
		d.n = roundTrip(d.trip.val)
		d.box = d.n
		if l := chain[p]; l.kind == loopLevel {
			d.index, d.loop = l.index.Name, l.loop
			for j, outer := range c.dims {
				if outer.loop == nil {
					continue
				}
				idx := ra.k.Info.Defs[outer.loop.Var]
				if dependsOn(ra.k.Info, l.loop.Lo, idx) || dependsOn(ra.k.Info, l.loop.Hi, idx) {
					d.deps = append(d.deps, j)
				}
			}
		}
		c.dims = append(c.dims, d)
		prev = cur
	}
	m.boxes(c.dims)
	return c, nil
}

// boxes computes the bounding box of every loop of a chain whose bounds
// read an outer index: the values its index takes over the whole iteration
// space, from its bounds at the corners of the outer indices' ranges. A
// bound that cannot be evaluated there leaves the average trip count.
func (m *cacheModel) boxes(dims []groupDim) {
	ranges := make([][2]int64, len(dims))
	env := &lang.Env{Rank: m.ra.rank, Index: make([]int64, m.ra.k.Info.NumSlots)}
	corners := func(j int) []int64 { return []int64{ranges[j][0], ranges[j][1]} }
	for k := range dims {
		d := &dims[k]
		if d.loop == nil {
			continue
		}
		lo, n, step, err := m.boundsOver(*d, dims, corners, env)
		if err != nil {
			return
		}
		ranges[k] = [2]int64{lo, lo + max(n-1, 0)*step}
		if len(d.deps) > 0 {
			d.box = max(n, 1)
		}
	}
}

// boundsOver evaluates a loop's bounds at every combination of the values
// choices offers for the outer indices they read, and returns the smallest
// lower bound, the number of iterations from it to the largest upper bound,
// and the step.
func (m *cacheModel) boundsOver(d groupDim, dims []groupDim, choices func(j int) []int64, env *lang.Env) (lo, n, step int64, err error) {
	k := m.ra.k
	step = 1
	if d.loop.Step != nil {
		if step, err = k.EvalInt(d.loop.Step, env); err != nil || step < 1 {
			return 0, 0, 1, fmt.Errorf("loop step of %s: %v", d.index, err)
		}
	}
	first := true
	var hi int64
	var walk func(i int) error
	walk = func(i int) error {
		if i == len(d.deps) {
			l, err := k.EvalInt(d.loop.Lo, env)
			if err != nil {
				return err
			}
			h, err := k.EvalInt(d.loop.Hi, env)
			if err != nil {
				return err
			}
			if first || l < lo {
				lo = l
			}
			if first || h > hi {
				hi = h
			}
			first = false
			return nil
		}
		j := d.deps[i]
		slot := k.Info.Defs[dims[j].loop.Var].Slot
		for _, x := range choices(j) {
			env.Index[slot] = x
			if err := walk(i + 1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(0); err != nil {
		return 0, 0, step, err
	}
	if hi > lo {
		n = (hi - lo + step - 1) / step
	}
	return lo, n, step, nil
}

// nonRectangular reports whether a loop at or below x has bounds that read
// the index of a loop above x: then x's footprint changes from one of its
// executions to the next.
func (m *cacheModel) nonRectangular(x *cacheNode) bool {
	for _, g := range x.under {
		for _, d := range g.dims {
			if !d.node.inside(x) {
				continue
			}
			for _, j := range d.deps {
				if !g.dims[j].node.inside(x) {
					return true
				}
			}
		}
	}
	return false
}

// executions counts the executions of a chain.
func (m *cacheModel) executions(chain []level) (est, error) {
	c, err := m.chainCount(chain)
	if err != nil {
		return est{}, err
	}
	return countEst(c), nil
}

// chainCount sums a chain (every level, prob levels too) once per model.
func (m *cacheModel) chainCount(chain []level) (Count, error) {
	var key chainLevels
	memo := len(chain) <= len(key.levels)
	if memo {
		key.n = copy(key.levels[:], chain)
		if c, ok := m.execs[key]; ok {
			return c, nil
		}
	}
	res, err := m.ra.sumChain(chain, oneWeight)
	if err != nil {
		return Count{}, err
	}
	c := Count{Value: res.value, Formula: res.formula, Symbolic: res.symbolic}
	if memo {
		if m.execs == nil {
			m.execs = map[chainLevels]Count{}
		}
		m.execs[key] = c
	}
	return c, nil
}

// chainLevels is a chain of up to eight levels by value: the model sums the
// prefixes of every group's chain, rebuilt without their prob levels, so the
// same chain arrives in different slices.
type chainLevels struct {
	n      int
	levels [8]level
}

// tripOf is the average trip count of level l: cur/prev executions, with the
// loop's own bounds as the formula when they give that value.
func (m *cacheModel) tripOf(l level, cur, prev est) est {
	val := new(big.Rat).Quo(cur.val, prev.val)
	out := est{val: val}
	if b := m.boundTrip(l); b.value != nil && b.value.Cmp(val) == 0 {
		out.p, out.poly, out.ok = b.formula, true, true
	}
	return out
}

// boundTrip is a loop's or repeat's trip count from its bounds, with its
// value (nil when there is no such formula), once per model: the chains of
// several groups share their outer loops.
type boundTrip struct {
	formula symbolic.Poly
	value   *big.Rat
}

// boundTrip returns level l's boundTrip.
func (m *cacheModel) boundTrip(l level) boundTrip {
	var stmt lang.Stmt
	switch l.kind {
	case repeatLevel:
		stmt = l.repeat
	case loopLevel:
		stmt = l.loop
	default:
		return boundTrip{}
	}
	if b, ok := m.trips[stmt]; ok {
		return b
	}
	var b boundTrip
	var ok bool
	if l.kind == repeatLevel {
		b.formula, ok = m.singlePiece(l.repeat.Count)
	} else {
		b.formula, ok = m.boundsTrip(l.loop)
	}
	if ok {
		if v, err := b.formula.Eval(m.ra.env); err == nil {
			b.value = v
		}
	}
	if m.trips == nil {
		m.trips = map[lang.Stmt]boundTrip{}
	}
	m.trips[stmt] = b
	return b
}

// boundsTrip is a loop's trip count from its bounds, when they are single
// polynomials in the symbols.
func (m *cacheModel) boundsTrip(f *lang.ForStmt) (symbolic.Poly, bool) {
	lo, ok := m.singlePiece(f.Lo)
	if !ok {
		return symbolic.Poly{}, false
	}
	hi, ok := m.singlePiece(f.Hi)
	if !ok {
		return symbolic.Poly{}, false
	}
	step := int64(1)
	if f.Step != nil {
		s, err := m.ra.k.EvalInt(f.Step, &lang.Env{Rank: m.ra.rank})
		if err != nil || s < 1 {
			return symbolic.Poly{}, false
		}
		step = s
	}
	return symbolic.TripCount(lo, hi, step)
}

// singlePiece converts a static integer expression without loop indices
// into one polynomial in the symbols.
func (m *cacheModel) singlePiece(e lang.Expr) (symbolic.Poly, bool) {
	if m.ra.k.Info.Deps[e]&lang.DepIndex != 0 {
		return symbolic.Poly{}, false
	}
	ps, err := m.ra.pieces(e)
	if err != nil || len(ps) != 1 || len(ps[0].guards) != 0 {
		return symbolic.Poly{}, false
	}
	return ps[0].val, true
}

// roundTrip rounds an average trip count to the nearest integer, keeping at
// least one iteration when there are any.
func roundTrip(r *big.Rat) int64 {
	half := new(big.Rat).Add(r, big.NewRat(1, 2))
	n := floorRat(half).Int64()
	if n < 1 && r.Sign() > 0 {
		n = 1
	}
	return n
}

// symValue evaluates a polynomial in the symbols to an integer.
func (m *cacheModel) symValue(p symbolic.Poly) (symInt, error) {
	v, err := p.Eval(m.ra.env)
	if err != nil {
		return symInt{}, err
	}
	if !v.IsInt() || !v.Num().IsInt64() {
		return symInt{}, fmt.Errorf("%s = %s is not a 64-bit integer", p, v.RatString())
	}
	return polySym(v.Num().Int64(), p, true), nil
}

// bases evaluates every member's address at the representative iteration,
// where every loop of the chain is at its first index, as a value and as a
// polynomial in the symbols. A group without one is counted by accesses.
func (m *cacheModel) bases(g *refGroup, c *chainInfo) {
	at := m.firstIteration(c, g.chain)
	if at.bad {
		g.irregular = true
		return
	}
	ra := m.ra
	for i := range g.members {
		mem := &g.members[i]
		v, err := mem.addr.Eval(at.vars)
		if err != nil || !v.IsInt() || !v.Num().IsInt64() {
			g.irregular = true
			return
		}
		p := mem.addr
		for j := len(g.chain) - 1; j >= 0; j-- {
			if l := g.chain[j]; l.kind == loopLevel {
				p = p.Substitute(l.index.Name, at.los[l.index.Name])
			}
		}
		mem.base = polySym(v.Num().Int64(), p, at.losOK && ra.onlySymbols(p))
	}
}

// firstIteration is where a chain's loops start: the symbols with every
// loop index at its first value, and the first values as polynomials in
// the symbols (losOK: every one is a single polynomial); bad when a lower
// bound cannot be evaluated. It is computed once per chain.
type firstIteration struct {
	vars  map[string]*big.Rat
	los   map[string]symbolic.Poly
	losOK bool
	bad   bool
}

// firstIteration returns chain's firstIteration, kept in c.
func (m *cacheModel) firstIteration(c *chainInfo, chain []level) *firstIteration {
	if c.first != nil {
		return c.first
	}
	ra := m.ra
	at := &firstIteration{vars: ra.cloneEnv(), los: map[string]symbolic.Poly{}, losOK: true}
	c.first = at
	env := &lang.Env{Rank: ra.rank, Index: make([]int64, ra.k.Info.NumSlots)}
	for _, l := range chain {
		if l.kind != loopLevel {
			continue
		}
		lo, err := ra.k.EvalInt(l.loop.Lo, env)
		if err != nil {
			at.bad = true
			return at
		}
		env.Index[l.index.Slot] = lo
		at.vars[l.index.Name] = new(big.Rat).SetInt64(lo)
		ps, err := ra.pieces(l.loop.Lo)
		if err != nil || len(ps) != 1 || len(ps[0].guards) != 0 {
			at.losOK = false
			continue
		}
		at.los[l.index.Name] = ps[0].val
	}
	return at
}

// strictlyInside selects the nodes below x (x's index stays fixed).
func (x *cacheNode) strictlyInside(n *cacheNode) bool { return n != x && n.inside(x) }

// insideOrSelf selects x and the nodes below it.
func (x *cacheNode) insideOrSelf(n *cacheNode) bool { return n.inside(x) }

// byArray splits groups by array, keeping program order.
func byArray(groups []*refGroup) [][]*refGroup {
	var out [][]*refGroup
	index := map[*lang.Object]int{}
	for _, g := range groups {
		i, ok := index[g.array]
		if !ok {
			i = len(out)
			index[g.array] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], g)
	}
	return out
}

// entries counts the executions of node x (1 for the root).
func (m *cacheModel) entries(x *cacheNode) (Count, error) {
	if x.entries != nil {
		return *x.entries, nil
	}
	c := Count{Value: big.NewRat(1, 1), Formula: symbolic.Int(1), Symbolic: true}
	if x.chain != nil {
		e, err := m.executions(x.chain[:len(x.chain)-1])
		if err != nil {
			return Count{}, err
		}
		c = e.count()
	}
	x.entries = &c
	return c, nil
}

// withoutProb returns chain without its data-if levels.
func withoutProb(chain []level) []level {
	var out []level
	for _, l := range chain {
		if l.kind != probLevel {
			out = append(out, l)
		}
	}
	return out
}
