package analyze

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math/big"
	"slices"

	"perfc/lang"
)

// This file computes footprints: the distinct lines a set of groups touches
// while the loops of a node run, memoised by the loops that run
// (footprintKey), on average or at one execution of the outer loops
// (groupView), each group reduced to a lattice of segments (reduce) that
// cachemodel_lattice.go counts.
//
// A footprint is computed in two ways, written side by side: exactly, with
// its formula (footprintSum, reduce), and by value alone, in int64 and
// without formulas (footprintCount, reduceCount, right after their exact
// twins). The layer conditions compare most footprints with a capacity or
// with each other and print few, and building symInts, ests and their
// big.Rats for those was most of the model's cost. footprintCount follows
// footprintSum step by step on the values it computes, and
// TestFootprintCountMatches holds the two together.

// footprintKey identifies a footprint question: the groups (by their
// numbers, in order), for each group the set of its loops that run (a
// footprint depends on the node only through them, so the body of a loop
// and its inner loop with its own index running are one question), stores
// only, and the line size.
type footprintKey struct {
	one    *refGroup // a single group, without a string of numbers
	mask   uint64    // the single group's running loops, bit k for dims[k]
	groups string    // numbers and masks of several groups
	stores bool
	line   int64
	bare   bool // without the formula
}

// runMask is the set of g's dims that within selects, or false when g has
// more than 64.
func runMask(g *refGroup, within func(*cacheNode) bool) (uint64, bool) {
	if len(g.dims) > 64 {
		return 0, false
	}
	var mask uint64
	for k, d := range g.dims {
		if within(d.node) {
			mask |= 1 << k
		}
	}
	return mask, true
}

// footprint is the number of distinct lines a set of groups of one array
// touch while the loops inside x (and x's own when self) run over their
// ranges and the others stay at their first iteration; stores counts store
// members only.
// Groups whose lattices agree are united exactly; others are added, and the
// result is capped by the array's own lines.
func (m *cacheModel) footprint(groups []*refGroup, x *cacheNode, self, stores bool, line int64) est {
	return m.memoFootprint(groups, x, self, stores, line, false)
}

// footprintValue is footprint without its formula (a bare est): most
// footprints are only compared (with a capacity, or whole against each
// iteration), and building their formulas was most of the model's cost.
func (m *cacheModel) footprintValue(groups []*refGroup, x *cacheNode, self, stores bool, line int64) *big.Rat {
	return m.memoFootprint(groups, x, self, stores, line, true).val
}

// memoFootprint is footprint, with its formula unless bare; a footprint
// with its formula also answers for the bare one.
func (m *cacheModel) memoFootprint(groups []*refGroup, x *cacheNode, self, stores bool, line int64, bare bool) est {
	within := x.strictlyInside
	if self {
		within = x.insideOrSelf
	}
	key := footprintKey{stores: stores, line: line}
	skey := sharedFootprintKey{stores: stores, line: line}
	shared := true
	if len(groups) == 1 {
		g := groups[0]
		mask, ok := runMask(g, within)
		if !ok {
			return m.footprintIn(groups, within, stores, line, nil, bare)
		}
		key.one, key.mask = g, mask
		skey.one, skey.mask, shared = g.share+1, mask, g.share >= 0
	} else {
		ids := make([]byte, 0, 8*len(groups))
		sids := make([]byte, 0, 8*len(groups))
		for _, g := range groups {
			mask, ok := runMask(g, within)
			if !ok {
				return m.footprintIn(groups, within, stores, line, nil, bare)
			}
			ids = binary.AppendUvarint(binary.AppendUvarint(ids, uint64(g.id)), mask)
			sids = binary.AppendUvarint(binary.AppendUvarint(sids, uint64(g.share+1)), mask)
			shared = shared && g.share >= 0
		}
		key.groups, skey.groups = string(ids), string(sids)
	}
	shared = shared && !m.share.off
	if f, ok := m.footprints[key]; ok {
		return f
	}
	if bare {
		key.bare = true
		if f, ok := m.footprints[key]; ok {
			return f
		}
	}
	if shared {
		if f, ok := m.share.footprints[skey]; ok {
			return m.remember(key, f)
		}
		if bare {
			skey.bare = true
			if f, ok := m.share.footprints[skey]; ok {
				return m.remember(key, f)
			}
		}
	}
	f := m.footprintIn(groups, within, stores, line, nil, bare)
	if shared {
		if m.share.footprints == nil {
			m.share.footprints = make(map[sharedFootprintKey]est, min(16*len(m.groups), 1024))
		}
		m.share.footprints[skey] = f
	}
	return m.remember(key, f)
}

// remember memoises a footprint in the model.
func (m *cacheModel) remember(key footprintKey, f est) est {
	if m.footprints == nil {
		// Sized for the usual number of questions (a few per node and
		// group): growing the map was a tenth of the model's allocation.
		m.footprints = make(map[footprintKey]est, min(16*len(m.groups), 1024))
	}
	m.footprints[key] = f
	return f
}

// footprintIn is footprint on average (at == nil) or at the execution of
// the outer loops whose indices at holds; bare leaves out the formula.
func (m *cacheModel) footprintIn(groups []*refGroup, within func(*cacheNode) bool, stores bool, line int64, at *lang.Env, bare bool) est {
	if bare {
		if n, ok := m.footprintCount(groups, within, stores, line, at); ok {
			return est{val: big.NewRat(n, 1), bare: true}
		}
	}
	total := m.footprintSum(groups, within, stores, line, at, bare)
	if bare {
		return total.stripped()
	}
	return total
}

// footprintSum is footprintIn; bare computations may leave formulas of
// constants in its result.
func (m *cacheModel) footprintSum(groups []*refGroup, within func(*cacheNode) bool, stores bool, line int64, at *lang.Env, bare bool) est {
	type class struct {
		lat  []latDim
		segs []segment
	}
	var classes []*class
	total := zeroEst()
	hull := true
	for _, g := range groups {
		if g.empty {
			continue
		}
		if g.irregular {
			total = total.plus(g.irregularLines(within, stores))
			hull = false
			continue
		}
		view := g.averageView(within)
		if at != nil {
			v, ok, err := m.viewAt(g, within, at)
			if err != nil {
				total = total.plus(g.irregularLines(within, stores))
				hull = false
				continue
			}
			if !ok {
				continue
			}
			view = v
		}
		lat, segs := g.reduce(view, within, stores, line, bare)
		if len(segs) == 0 {
			continue
		}
		var into *class
		for _, c := range classes {
			if sameLattice(c.lat, lat) {
				into = c
			}
		}
		if into == nil {
			into = &class{lat: lat}
			classes = append(classes, into)
		}
		into.segs = append(into.segs, segs...)
	}
	var start, end int64
	for i, c := range classes {
		total = total.plus(latticeLines(c.lat, c.segs, line))
		lo, hi := extent(c.lat, c.segs)
		if i == 0 || lo < start {
			start = lo
		}
		if i == 0 || hi > end {
			end = hi
		}
	}
	if hull && len(classes) > 1 {
		// Lattices that differ are added, but never beyond the lines
		// between the lowest and the highest byte they touch.
		if n := floorQuo(end-1, line) - floorQuo(start, line) + 1; total.val.Cmp(big.NewRat(n, 1)) > 0 {
			total = intEst(n)
		}
	}
	if len(groups) > 0 {
		limit := arrayLines(groups[0].array, line)
		if total.val.Cmp(big.NewRat(limit, 1)) > 0 {
			return intEst(limit)
		}
	}
	return total
}

// footprintCount is the value of footprintIn (at == nil: on average), or
// false when a group is irregular, a view cannot be taken, or a count would
// not fit an int64: the caller then takes the general way.
func (m *cacheModel) footprintCount(groups []*refGroup, within func(*cacheNode) bool, stores bool, line int64, at *lang.Env) (int64, bool) {
	return countGroups(groups, line, func(g *refGroup) ([]valDim, []valSeg, bool) {
		if at != nil {
			v, ok, err := m.viewAt(g, within, at)
			if err != nil {
				return nil, nil, false
			}
			if !ok {
				return nil, nil, true
			}
			lat, segs := g.reduceCount(within, stores, line, func(k int) int64 { return v.trips[k].v }, func(i int) int64 { return v.bases[i].v })
			return lat, segs, true
		}
		lat, segs := g.reduceCount(within, stores, line, func(k int) int64 { return g.averageTrip(k, within) }, func(i int) int64 { return g.members[i].base.v })
		return lat, segs, true
	})
}

// countGroups is the int64 union count of footprintCount for the lattice
// and segments reduce gives each group (none when it does not execute), or
// false when a group is irregular, reduce fails or a count overflows.
// Windows of a loop's iterations (cachemodel_reuse.go) count with it too.
func countGroups(groups []*refGroup, line int64, reduce func(g *refGroup) ([]valDim, []valSeg, bool)) (int64, bool) {
	type class struct {
		lat  []valDim
		segs []valSeg
	}
	var classes []class
	for _, g := range groups {
		if g.empty {
			continue
		}
		if g.irregular {
			return 0, false
		}
		lat, segs, ok := reduce(g)
		if !ok {
			return 0, false
		}
		if len(segs) == 0 {
			continue
		}
		into := -1
		for i, c := range classes {
			if sameValLattice(c.lat, lat) {
				into = i
			}
		}
		if into < 0 {
			into = len(classes)
			classes = append(classes, class{lat: lat})
		}
		classes[into].segs = append(classes[into].segs, segs...)
	}
	var total, start, end int64
	for i, c := range classes {
		n, ok := latticeCount(c.lat, c.segs, line)
		if !ok {
			return 0, false
		}
		if total, ok = mulAdd64(total, n, 1); !ok {
			return 0, false
		}
		lo, hi := valExtent(c.lat, c.segs)
		if i == 0 || lo < start {
			start = lo
		}
		if i == 0 || hi > end {
			end = hi
		}
	}
	if len(classes) > 1 {
		// As footprintSum: lattices that differ are added, up to the span.
		if n := floorQuo(end-1, line) - floorQuo(start, line) + 1; total > n {
			total = n
		}
	}
	if len(groups) > 0 {
		if limit := arrayLines(groups[0].array, line); total > limit {
			return limit, true
		}
	}
	return total, true
}

// viewAt is a group's view at one execution of the loops outside within,
// whose indices at holds: loops inside take their bounds there (an index
// they read that moves the group at the middle of its range, which gives
// the average of an affine bound; one that does not, at both ends, as in
// averageView), and the members sit at the first iteration. ok is false
// when the group does not execute there.
func (m *cacheModel) viewAt(g *refGroup, within func(*cacheNode) bool, at *lang.Env) (groupView, bool, error) {
	info := m.ra.k.Info
	env := &lang.Env{Rank: at.Rank, Index: append([]int64(nil), at.Index...)}
	vars := m.ra.cloneEnv()
	ranges := make([][2]int64, len(g.dims))
	v := groupView{trips: make([]symInt, len(g.dims)), bases: make([]symInt, len(g.members))}
	choices := func(j int) []int64 {
		r := ranges[j]
		if within(g.dims[j].node) && g.dims[j].stride.v == 0 {
			return []int64{r[0], r[1]}
		}
		return []int64{floorQuo(r[0]+r[1], 2)}
	}
	for k, d := range g.dims {
		v.trips[k] = symInt{v: d.n}
		if d.loop == nil {
			continue
		}
		slot := info.Defs[d.loop.Var].Slot
		if !within(d.node) {
			x := env.Index[slot]
			ranges[k] = [2]int64{x, x}
			vars[d.index] = new(big.Rat).SetInt64(x)
			continue
		}
		lo, n, step, err := m.boundsOver(d, g.dims, choices, env)
		if err != nil {
			return groupView{}, false, err
		}
		if n == 0 {
			return groupView{}, false, nil
		}
		v.trips[k] = symInt{v: n}
		ranges[k] = [2]int64{lo, lo + (n-1)*step}
		env.Index[slot] = lo
		vars[d.index] = new(big.Rat).SetInt64(lo)
	}
	for i, mem := range g.members {
		x, err := mem.addr.Eval(vars)
		if err != nil || !x.IsInt() || !x.Num().IsInt64() {
			return groupView{}, false, fmt.Errorf("address of %s at one iteration: %v", mem.text, err)
		}
		v.bases[i] = symInt{v: x.Num().Int64()}
	}
	return v, true, nil
}

// arrayLines is the number of lines an array occupies (its start aligned).
func arrayLines(a *lang.Object, line int64) int64 {
	n := int64(a.Elem.Size())
	for _, d := range a.Dims {
		n *= d
	}
	return (n + line - 1) / line
}

// irregularLines is the footprint of a group whose addresses are not
// affine: every access is taken to touch a line of its own.
func (g *refGroup) irregularLines(within func(*cacheNode) bool, stores bool) est {
	n := int64(0)
	for _, mem := range g.members {
		if !stores || mem.store {
			n++
		}
	}
	out := intEst(n)
	for _, d := range g.dims {
		if within(d.node) && d.index != "" {
			out = out.times(d.trip)
		}
	}
	return out
}

// groupView is a group's trip counts and member addresses as one footprint
// sees them: on average (the default), or at one concrete execution of the
// loops outside the footprint.
type groupView struct {
	trips []symInt // per dimension
	bases []symInt // per member
	// avg marks averageView's trips, but for those boxed (bit k).
	avg   bool
	boxed uint64
}

// average reports whether trip k is the dimension's average (tripSym).
func (v groupView) average(k int) bool { return v.avg && k < 64 && v.boxed&(1<<k) == 0 }

// averageView is the view at the average trip counts, with the members at
// the representative iteration. A loop whose bounds read the index of a loop
// of the footprint that does not move the group (a stride of 0) sweeps its
// whole range over the footprint, so it counts with its bounding box: the
// union of LU's trailing rows over k is the whole matrix, not the average.
func (g *refGroup) averageView(within func(*cacheNode) bool) groupView {
	v := groupView{trips: make([]symInt, len(g.dims)), bases: make([]symInt, len(g.members)), avg: len(g.dims) <= 64}
	for k, d := range g.dims {
		v.trips[k] = tripSym(d)
		for _, j := range d.deps {
			if within(g.dims[j].node) && g.dims[j].stride.v == 0 && d.box != d.n {
				v.trips[k] = symInt{v: d.box}
				if k < 64 {
					v.boxed |= 1 << k
				}
			}
		}
	}
	for i, mem := range g.members {
		v.bases[i] = mem.base
	}
	return v
}

// averageTrip is the trip count of dimension k in averageView.
func (g *refGroup) averageTrip(k int, within func(*cacheNode) bool) int64 {
	d := g.dims[k]
	t := d.n
	for _, j := range d.deps {
		if within(g.dims[j].node) && g.dims[j].stride.v == 0 && d.box != d.n {
			t = d.box
		}
	}
	return t
}

// reduce turns a group's addresses under the loops selected by within into
// a lattice and one segment per member: loops are taken in order of
// increasing stride; while no lattice dimension exists, a loop whose stride
// leaves no whole line untouched (stride < segment + line) stretches the
// segment, and every other loop becomes a lattice dimension.
func (g *refGroup) reduce(view groupView, within func(*cacheNode) bool, stores bool, line int64, bare bool) ([]latDim, []segment) {
	type sdim struct {
		stride, n symInt
		k         int  // the dimension
		avg       bool // n is the dimension's average trip (tripSym)
	}
	var sel []sdim
	for k, d := range g.dims {
		if within(d.node) && d.stride.v != 0 && view.trips[k].v > 1 {
			if bare {
				sel = append(sel, sdim{d.stride.stripped(), view.trips[k].stripped(), k, false})
			} else {
				sel = append(sel, sdim{d.stride, view.trips[k], k, view.average(k)})
			}
		}
	}
	shift := constSym(0)
	for i, d := range sel {
		if d.stride.v < 0 {
			shift = shift.plus(d.stride.times(d.n.minus(constSym(1))))
			sel[i].stride = d.stride.neg()
		}
	}
	slices.SortStableFunc(sel, func(a, b sdim) int { return cmp.Compare(a.stride.v, b.stride.v) })
	length := constSym(g.elem)
	slack := constSym(0)
	var lat []latDim
	for _, d := range sel {
		if len(lat) == 0 && d.stride.v < length.v+line {
			if length.v == g.elem {
				slack = d.stride.minus(constSym(g.elem))
			}
			if d.avg && g.dims[d.k].stride.v > 0 { // not negated above
				length = length.plus(g.extent(d.k))
			} else {
				length = length.plus(d.stride.times(d.n.minus(constSym(1))))
			}
			continue
		}
		lat = append(lat, latDim{stride: d.stride, count: d.n})
	}
	var segs []segment
	for i, mem := range g.members {
		if stores && !mem.store {
			continue
		}
		base := view.bases[i]
		if bare {
			base = base.stripped()
		}
		s := segment{off: base.plus(shift), len: length, elem: g.elem, slack: slack}
		dup := false
		for _, t := range segs {
			dup = dup || (t.off.v == s.off.v && t.len.v == s.len.v)
		}
		if !dup {
			segs = append(segs, s)
		}
	}
	return lat, segs
}

// reduceCount is reduce by value, with the view's trip counts and member
// addresses given by trip and base.
func (g *refGroup) reduceCount(within func(*cacheNode) bool, stores bool, line int64, trip, base func(int) int64) ([]valDim, []valSeg) {
	var sel []valDim
	for k, d := range g.dims {
		if within(d.node) && d.stride.v != 0 {
			if n := trip(k); n > 1 {
				sel = append(sel, valDim{stride: d.stride.v, count: n})
			}
		}
	}
	shift := int64(0)
	for i, d := range sel {
		if d.stride < 0 {
			shift += d.stride * (d.count - 1)
			sel[i].stride = -d.stride
		}
	}
	slices.SortStableFunc(sel, func(a, b valDim) int {
		switch {
		case a.stride < b.stride:
			return -1
		case a.stride > b.stride:
			return 1
		}
		return 0
	})
	length := g.elem
	lat := sel[:0]
	for _, d := range sel {
		if len(lat) == 0 && d.stride < length+line {
			length += d.stride * (d.count - 1)
			continue
		}
		lat = append(lat, d)
	}
	var segs []valSeg
	for i, mem := range g.members {
		if stores && !mem.store {
			continue
		}
		s := valSeg{off: base(i) + shift, len: length}
		dup := false
		for _, t := range segs {
			dup = dup || (t.off == s.off && t.len == s.len)
		}
		if !dup {
			segs = append(segs, s)
		}
	}
	return lat, segs
}

// extent is stride·(n−1) of dimension k at its average trip count, the
// bytes its loop stretches a segment by, computed once per group: the
// footprints of several nodes stretch by the same loops.
func (g *refGroup) extent(k int) symInt {
	if g.extents == nil {
		g.extents = make([]*symInt, len(g.dims))
	}
	if e := g.extents[k]; e != nil {
		return *e
	}
	d := g.dims[k]
	e := d.stride.times(tripSym(d).minus(constSym(1)))
	g.extents[k] = &e
	return e
}

// tripSym is a dimension's integer trip count with its formula.
func tripSym(d groupDim) symInt {
	switch {
	case !d.trip.ok || !d.trip.val.IsInt():
		return symInt{v: d.n}
	case d.trip.poly:
		return polySym(d.n, d.trip.p, true)
	}
	return constSym(d.n) // an integer trip is n
}
