package analyze

import (
	"cmp"
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
// iteration later are 492 to 521 distinct lines apart, depending on which
// references touch them and where in the row, so about half of them hit.
//
// It is counted for a two-loop nest, x and the innermost loop y directly in
// it (nothing else in x), rectangular, whose references move through
// consecutive lines with y (a step of at most a line): the lines a
// reference touches over a range of y's iterations are then a range of
// lines. Every line one iteration of x touches is examined (its first
// touch, its last touch in the previous iteration, and the reuse distance
// between them, reuseDistances), over the iterations of x after which its
// lines repeat their alignment (windowPeriod) and the offsets the outer
// loops place x at (outerShifts), so it is done only while an iteration
// touches at most twice the level's lines and at most maxPartialLines
// lines are examined; beyond, an iteration's lines are all brought in
// again but for the lines consecutive iterations share at their ends,
// which boundary counts.

// maxPartialLines bounds the lines partialReuse examines for one loop and
// level (the lines of an iteration times its alignment period and the
// outer offsets), so that the model stays cheap: about 1.4 µs a line, 23 ms
// at most.
const maxPartialLines = 1 << 14

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
	rank  int   // its group's place among its array's groups
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
		for gi, g := range gs {
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
					inner: inner, elem: g.elem, store: mem.store, ny: ny, rank: gi})
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

// partialTouch is the first or last touch of a line in one iteration of x.
type partialTouch struct {
	array  int
	line   int64
	at     partialPoint
	g      *refGroup // the first group (in x.arrays order) that touches it
	rank   int       // g's place among its array's groups
	stored bool
}

// iterationTouches lists every line iteration t of x touches, by array and
// line, with its first touch (last false) or last touch (last true), the
// group that compulsory charged with it, and whether a member stores to
// it. buf is reused.
func iterationTouches(mems []partialMember, t, shift, line int64, last bool, buf []partialTouch) []partialTouch {
	out := buf[:0]
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
			out = append(out, partialTouch{array: p.array, line: l, at: at, g: p.g, rank: p.rank, stored: p.store})
		}
	}
	slices.SortFunc(out, func(a, b partialTouch) int {
		return cmp.Or(cmp.Compare(a.array, b.array), cmp.Compare(a.line, b.line))
	})
	// Fold the touches of each line into one.
	n := 0
	for _, c := range out {
		if n > 0 && out[n-1].array == c.array && out[n-1].line == c.line {
			cur := &out[n-1]
			if (last && cur.at.before(c.at)) || (!last && c.at.before(cur.at)) {
				cur.at = c.at
			}
			if c.rank < cur.rank {
				cur.g, cur.rank = c.g, c.rank
			}
			cur.stored = cur.stored || c.stored
			continue
		}
		out[n] = c
		n++
	}
	return out[:n]
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
	// An iteration's footprint (memoised: visitNode asked for it) bounds
	// the work before anything is enumerated.
	body := m.nodeFootprint(x, st.line, true).val
	if body.Cmp(big.NewRat(2*capacity, 1)) > 0 {
		return "", false, nil
	}
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
	one := new(big.Rat).Mul(body, big.NewRat(period*int64(len(shifts)), 1))
	if one.Cmp(big.NewRat(maxPartialLines, 1)) > 0 {
		return "", false, nil
	}
	hits, wbs := map[*refGroup]*big.Rat{}, map[*refGroup]*big.Rat{}
	var total int64
	lo, hi := int64(-1), int64(-1)
	orders := int64(mems[len(mems)-1].order) + 1
	var prev, cur []partialTouch
	for _, sh := range shifts {
		for t := int64(1); t <= period; t++ {
			// Iterations t, t+period, ... up to n-1 share t's alignment.
			times := (n-1-t)/period + 1
			prev = iterationTouches(mems, t-1, sh, st.line, true, prev)
			cur = iterationTouches(mems, t, sh, st.line, false, cur)
			dist, from := reuseDistances(prev, cur, orders)
			for ci, d := range dist {
				if d < 0 {
					continue
				}
				if lo < 0 || d < lo {
					lo = d
				}
				hi = max(hi, d)
				if d >= capacity {
					continue
				}
				w := big.NewRat(times, int64(len(shifts)))
				total += times
				c := cur[ci]
				addRat(hits, c.g, w)
				if prev[from[ci]].stored && c.stored {
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

// reuseDistances returns, for every line of cur (first touches, by array
// and line) that prev (the previous iteration's last touches) also holds,
// its reuse distance and its place in prev; -1 for the others. The reuse
// distance is the distinct lines touched after its last touch in the
// previous iteration and before its first in the current one: the lines
// whose last touch in the previous iteration comes after its, plus those
// whose first touch in the current one comes before its, less those
// counted in both (a dominance count over the lines both touch, with a
// Fenwick tree): O(L log L) for L lines, where a union of ranges per line
// would be O(L·R log R) for R references. orders is one more than the
// largest order of an access in the body.
func reuseDistances(prev, cur []partialTouch, orders int64) (dist []int64, from []int) {
	key := func(p partialPoint) int64 { return p.i*orders + p.order }
	lasts := make([]int64, len(prev))
	for i, p := range prev {
		lasts[i] = key(p.at)
	}
	firsts := make([]int64, len(cur))
	dist, from = make([]int64, len(cur)), make([]int, len(cur))
	type pair struct {
		c    int   // index in cur
		p, q int64 // last touch before, first touch now
	}
	var both []pair
	j := 0
	for i, c := range cur {
		firsts[i] = key(c.at)
		dist[i], from[i] = -1, -1
		for j < len(prev) && (prev[j].array < c.array || (prev[j].array == c.array && prev[j].line < c.line)) {
			j++
		}
		if j < len(prev) && prev[j].array == c.array && prev[j].line == c.line {
			from[i] = j
			both = append(both, pair{i, lasts[j], firsts[i]})
		}
	}
	slices.Sort(lasts)
	slices.Sort(firsts)
	qs := make([]int64, len(both))
	for i, b := range both {
		qs[i] = b.q
	}
	slices.Sort(qs)
	// Queries by decreasing last touch; the tree holds the first touches
	// of the lines whose last touch comes later.
	slices.SortFunc(both, func(a, b pair) int { return cmp.Compare(b.p, a.p) })
	tree := make([]int64, len(qs)+1)
	j = 0
	for _, b := range both {
		for ; j < len(both) && both[j].p > b.p; j++ {
			r, _ := slices.BinarySearch(qs, both[j].q)
			for k := r + 1; k < len(tree); k += k & -k {
				tree[k]++
			}
		}
		r, _ := slices.BinarySearch(qs, b.q) // qs[:r] come before b.q
		var in int64
		for k := r; k > 0; k -= k & -k {
			in += tree[k]
		}
		i, found := slices.BinarySearch(lasts, b.p)
		after := int64(len(lasts) - i)
		if found {
			after--
		}
		before, _ := slices.BinarySearch(firsts, b.q)
		dist[b.c] = after + int64(before) - in
	}
	return dist, from
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
