package analyze

import (
	"fmt"
	"math/big"
	"slices"
	"strings"
)

// This file refines a loop whose iteration does not fit a level (the layer
// condition of cachemodel_levels.go fails) by the rule an LRU cache follows:
// a line an iteration touches again hits iff the distinct lines touched
// since its previous touch are fewer than the level holds (its reuse
// distance), decided line by line, not by one condition for all rows.
//
// When one iteration of x does not fit, a reuse that spans two or more
// iterations misses (everything the iteration in between touches comes
// between the two touches), so only the lines the previous iteration
// touched can hit. The long-range stencil at N = 220 touches 514 lines per
// iteration of j against the 512 of a 32 KiB L1; its rows reused one
// iteration later are 498 to 516 distinct lines apart, depending on which
// references touch them and where in the row, so about half of them hit.
//
// It is counted for a two-loop nest, x and the innermost loop y directly in
// it (nothing else in x), rectangular, whose references move through
// consecutive lines with y (a step of at most a line): the lines a
// reference touches over a range of y's iterations are then a range of
// lines, and the lines between two touches are a union of ranges. Every
// line one iteration of x touches is examined, over the iterations of x
// after which its lines repeat their alignment (windowPeriod), so it is
// done only while an iteration touches at most twice the level's lines and
// at most maxPartialLines lines in all; beyond, an iteration's lines are
// all brought in again (every reuse of a row is then at least an
// iteration's footprint apart, but for the lines consecutive iterations
// share at their ends, which boundary counts).

// maxPartialLines bounds the lines partialReuse examines for one loop and
// level (the lines of an iteration times its alignment period), so that the
// model stays cheap.
const maxPartialLines = 1 << 16

// partialMember is one reference of a nest partialReuse counts.
type partialMember struct {
	g     *refGroup
	array int   // index into x.arrays
	order int   // its place in the body's accesses
	base  int64 // byte offset at the first iteration of x and y
	step  int64 // bytes per iteration of x
	inner int64 // bytes per iteration of y
	elem  int64
	store bool
	ny    int64 // iterations of y
}

// bytesAt is the byte range a member touches in iteration t of x over
// iterations [lo, hi] of y (lo <= hi).
func (p partialMember) bytesAt(t, lo, hi, shift int64) (first, last int64) {
	a := p.base + shift + p.step*t + p.inner*lo
	b := p.base + shift + p.step*t + p.inner*hi
	if a > b {
		a, b = b, a
	}
	return a, b + p.elem - 1
}

// partialNest returns the members of x's nest in body order and y's trip,
// or false when partialReuse does not apply to x.
func (m *cacheModel) partialNest(x *cacheNode, line, capacity int64) ([]partialMember, int64, int64, bool) {
	if x.stmt == nil || len(x.items) != 1 || x.items[0].node == nil {
		return nil, 0, 0, false
	}
	y := x.items[0].node
	for _, it := range y.items {
		if it.node != nil {
			return nil, 0, 0, false
		}
	}
	n, ok := loopTrip(x)
	if !ok || n < 2 {
		return nil, 0, 0, false
	}
	ny, ok := loopTrip(y)
	if !ok || m.nonRectangularBelow(x) {
		return nil, 0, 0, false
	}
	// y's iteration fits (visiting it charged each iteration of x with its
	// footprint): its condition holds at every level the model reaches y
	// from a failing x, but a cheap check keeps that an invariant here.
	if m.nodeFootprint(y, line, true).val.Cmp(big.NewRat(capacity, 1)) > 0 {
		return nil, 0, 0, false
	}
	order := map[*refInfo]int{}
	for _, lf := range m.ra.p.leaves {
		for _, r := range lf.refs {
			order[r] = len(order)
		}
	}
	var out []partialMember
	for ai, gs := range x.arrays {
		for _, g := range gs {
			if g.irregular || g.empty || underProb(g, x) || g.node != y {
				return nil, 0, 0, false
			}
			kx, ky := xDim(g, x), xDim(g, y)
			if kx < 0 || ky < 0 {
				return nil, 0, 0, false
			}
			inner := g.dims[ky].stride.v
			if absInt64(inner) > line {
				return nil, 0, 0, false
			}
			for _, mem := range g.members {
				o, ok := order[mem.ref]
				if !ok {
					return nil, 0, 0, false
				}
				out = append(out, partialMember{g: g, array: ai, order: o, base: mem.base.v, step: g.dims[kx].stride.v,
					inner: inner, elem: g.elem, store: mem.store, ny: ny})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b partialMember) int { return a.order - b.order })
	return out, n, ny, len(out) > 0
}

// partialPoint is a place in the body's accesses: an iteration of y and a
// member's place among the accesses of that iteration.
type partialPoint struct{ i, order int64 }

// before reports whether p comes before q.
func (p partialPoint) before(q partialPoint) bool {
	return p.i < q.i || (p.i == q.i && p.order < q.order)
}

// lineRange is a range of lines of one array.
type lineRange struct {
	array  int
	lo, hi int64
}

// touchRange is the lines member p touches in iteration t of x over the
// accesses strictly after from and strictly before to (points within the
// iteration), or false when there are none.
func (p partialMember) touchRange(t int64, from, to partialPoint, shift, line int64) (lineRange, bool) {
	lo, hi := from.i, to.i
	if from.order >= int64(p.order) {
		lo++
	}
	if to.order <= int64(p.order) {
		hi--
	}
	lo, hi = max(lo, 0), min(hi, p.ny-1)
	if lo > hi {
		return lineRange{}, false
	}
	a, b := p.bytesAt(t, lo, hi, shift)
	return lineRange{p.array, floorQuo(a, line), floorQuo(b, line)}, true
}

// distinctLines counts the lines of a union of ranges.
func distinctLines(rs []lineRange) int64 {
	slices.SortFunc(rs, func(a, b lineRange) int {
		if a.array != b.array {
			return a.array - b.array
		}
		return int(max(-1, min(1, a.lo-b.lo)))
	})
	var n int64
	for i := 0; i < len(rs); {
		cur := rs[i]
		j := i + 1
		for ; j < len(rs) && rs[j].array == cur.array && rs[j].lo <= cur.hi+1; j++ {
			cur.hi = max(cur.hi, rs[j].hi)
		}
		n += cur.hi - cur.lo + 1
		i = j
	}
	return n
}

// partialTouch is the first or last touch of a line in one iteration of x.
type partialTouch struct {
	at     partialPoint
	g      *refGroup // the first group (in x.arrays order) that touches it
	stored bool
}

// iterationTouches maps every line iteration t of x touches, per array, to
// its first touch (last false) or last touch (last true), the group that
// compulsory charged with it, and whether a member stores to it.
func iterationTouches(mems []partialMember, groups [][]*refGroup, t, shift, line int64, last bool) map[lineRange]*partialTouch {
	out := map[lineRange]*partialTouch{}
	rank := map[*refGroup]int{}
	for _, gs := range groups {
		for i, g := range gs {
			rank[g] = i
		}
	}
	for _, p := range mems {
		a, b := p.bytesAt(t, 0, p.ny-1, shift)
		for l := floorQuo(a, line); l <= floorQuo(b, line); l++ {
			// The iterations of y at which p touches line l.
			i0, i1 := p.iterationsIn(l, t, shift, line)
			if i0 > i1 {
				continue
			}
			at := partialPoint{i0, int64(p.order)}
			if last {
				at = partialPoint{i1, int64(p.order)}
			}
			key := lineRange{p.array, l, l}
			cur := out[key]
			if cur == nil {
				out[key] = &partialTouch{at: at, g: p.g, stored: p.store}
				continue
			}
			if (last && cur.at.before(at)) || (!last && at.before(cur.at)) {
				cur.at = at
			}
			if rank[p.g] < rank[cur.g] {
				cur.g = p.g
			}
			cur.stored = cur.stored || p.store
		}
	}
	return out
}

// iterationsIn is the first and last iteration of y at which p touches
// line l in iteration t of x (first > last when it does not).
func (p partialMember) iterationsIn(l, t, shift, line int64) (int64, int64) {
	start := p.base + shift + p.step*t
	// Iteration i touches bytes [start+inner·i, start+inner·i+elem-1].
	lo, hi := l*line, l*line+line-1
	var first, last int64
	switch {
	case p.inner == 0:
		if start+p.elem-1 < lo || start > hi {
			return 1, 0
		}
		return 0, p.ny - 1
	case p.inner > 0:
		first = ceilQuo(lo-p.elem+1-start, p.inner)
		last = floorQuo(hi-start, p.inner)
	default:
		s := -p.inner
		first = ceilQuo(start-hi, s)
		last = floorQuo(start+p.elem-1-lo, s)
	}
	return max(first, 0), min(last, p.ny-1)
}

// partialReuse counts, for a loop x whose iteration does not fit, the
// lines of each iteration that the previous one left in the level, and
// takes them off what visiting x's children charged (and the write-backs
// of those both iterations store to), per execution of x. It returns the
// condition that states it, or false, having charged nothing, when it
// does not apply; then boundary counts x's shared end lines as before.
func (m *cacheModel) partialReuse(x *cacheNode, st *levelState) (string, bool, error) {
	capacity := int64(st.lv.Size) / st.line
	mems, n, _, ok := m.partialNest(x, st.line, capacity)
	if !ok {
		return "", false, nil
	}
	var groups []*refGroup
	for _, gs := range x.arrays {
		groups = append(groups, gs...)
	}
	period := min(windowPeriod(groups, x, st.line), n-1)
	shifts := outerShifts(groups, x, st.line)
	one := len(iterationTouches(mems, x.arrays, 0, 0, st.line, false))
	if int64(one) > 2*capacity || int64(one)*period*int64(len(shifts)) > maxPartialLines {
		return "", false, nil
	}
	hits, wbs := map[*refGroup]*big.Rat{}, map[*refGroup]*big.Rat{}
	var total, seen int64
	lo, hi := int64(-1), int64(-1)
	for _, sh := range shifts {
		for t := int64(1); t <= period; t++ {
			// Iterations t, t+period, ... up to n-1 share t's alignment.
			times := (n - 1 - t) / period
			if t <= n-1 {
				times++
			}
			if times == 0 {
				continue
			}
			prev := iterationTouches(mems, x.arrays, t-1, sh, st.line, true)
			cur := iterationTouches(mems, x.arrays, t, sh, st.line, false)
			for key, c := range cur {
				seen++
				p := prev[key]
				if p == nil {
					continue
				}
				d := m.partialDistance(mems, t, p.at, c.at, sh, st.line)
				if lo < 0 || d < lo {
					lo = d
				}
				hi = max(hi, d)
				if d >= capacity {
					continue
				}
				w := big.NewRat(times, int64(len(shifts)))
				total += times
				addRat(hits, c.g, w)
				if p.stored && c.stored {
					addRat(wbs, c.g, w)
				}
			}
		}
	}
	if lo < 0 {
		return "", false, nil
	}

	e, err := m.entries(x)
	if err != nil {
		return "", false, err
	}
	execs := countEst(e)
	for _, g := range x.under {
		h, w := hits[g], wbs[g]
		if h == nil {
			continue
		}
		if w == nil {
			w = new(big.Rat)
		}
		st.add(g, execs.times(est{val: new(big.Rat).Neg(h), bare: true}), execs.times(est{val: new(big.Rat).Neg(w), bare: true}))
	}
	return m.partialCondition(x, st, lo, hi, total, (n-1)*int64(len(shifts)), capacity), true, nil
}

// partialDistance is the number of distinct lines touched strictly
// between a touch at from in iteration t-1 of x and one at to in iteration
// t: what an LRU cache holds besides the line between its two touches.
func (m *cacheModel) partialDistance(mems []partialMember, t int64, from, to partialPoint, shift, line int64) int64 {
	var rs []lineRange
	end := partialPoint{mems[0].ny, -1}
	begin := partialPoint{-1, 1 << 30}
	for _, p := range mems {
		if r, ok := p.touchRange(t-1, from, end, shift, line); ok {
			rs = append(rs, r)
		}
		if r, ok := p.touchRange(t, begin, to, shift, line); ok {
			rs = append(rs, r)
		}
	}
	return distinctLines(rs)
}

// outerShifts is alignShifts for all the groups of x at once: the offsets
// the loops outside x place its executions at, {0} when every step is a
// multiple of the line.
func outerShifts(groups []*refGroup, x *cacheNode, line int64) []int64 {
	g := line
	for _, grp := range groups {
		for _, d := range grp.dims {
			if d.node.inside(x) || d.loop == nil || d.n < 2 {
				continue
			}
			g = gcd64(g, absInt64(d.stride.v)%line)
		}
	}
	if g == line || g == 0 {
		return []int64{0}
	}
	var out []int64
	for s := int64(0); s < line; s += g {
		out = append(out, s)
	}
	return out
}

// addRat adds v to m[g].
func addRat(m map[*refGroup]*big.Rat, g *refGroup, v *big.Rat) {
	if m[g] == nil {
		m[g] = new(big.Rat)
	}
	m[g].Add(m[g], v)
}

// partialCondition states what partialReuse found: the reuse distances of
// the lines one iteration of x takes from the one before, against the
// level's lines, and the share that hits.
func (m *cacheModel) partialCondition(x *cacheNode, st *levelState, lo, hi, hits, steps, capacity int64) string {
	var refs []string
	for _, g := range x.under {
		for _, mem := range g.members {
			refs = appendNew(refs, mem.text)
		}
	}
	const most = 8
	if len(refs) > most {
		refs = append(refs[:most:most], fmt.Sprintf("and %d more", len(refs)-most))
	}
	pos := m.ra.position(x.stmt)
	return fmt.Sprintf("%s reused from the previous iteration of %s (line %d) in %s at reuse distances of %d to %d lines against %d: %.2f lines an iteration hit",
		strings.Join(refs, ", "), x.name, pos.Line, st.lv.Name, lo, hi, capacity, float64(hits)/float64(max(steps, 1)))
}
