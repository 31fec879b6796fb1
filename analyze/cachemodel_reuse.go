package analyze

import (
	"fmt"
	"math/big"
	"slices"
	"strings"
)

// This file refines the layer conditions of cachemodel_levels.go where one
// iteration of a loop is not the whole story:
//
//   - Reuse over several iterations (window): a line a loop touches again d
//     iterations later stays in an LRU cache only if everything touched in
//     between fits, which for a loop that streams its body is the footprint
//     of d consecutive iterations, W(d). uxx reads xy[k][j+1][i] again as
//     xy[k][j-1][i] and xy[k][j-2][i]: its rows are reused two iterations
//     of j later, which needs W(2), about 23 rows, not W(1), 13. When one
//     iteration fits but not every reuse distance does, the loop's lines are
//     counted with the window of the largest distance D that fits: an
//     iteration misses what the D iterations before it did not touch.
//   - Lines shared by consecutive iterations (boundary): where a loop's
//     iteration does not fit, each iteration brings in its own lines; the
//     line in which one iteration's last row ends and the next one's first
//     row begins is touched twice within a few accesses, which an LRU cache
//     serves, so it is counted once.

// maxWindowGap bounds the reuse distances, in iterations, that windows are
// tried for; a reuse that spans more is taken to miss when the window of
// maxWindowGap iterations does not fit and to hit when it fits.
const maxWindowGap = 1 << 20

// xDim returns the index of the dimension of g that is the loop of x, or -1.
func xDim(g *refGroup, x *cacheNode) int {
	for k, d := range g.dims {
		if d.node == x {
			return k
		}
	}
	return -1
}

// loopTrip returns the iterations of x per execution, the same for every
// group under it, or false.
func loopTrip(x *cacheNode) (int64, bool) {
	n := int64(-1)
	for _, g := range x.under {
		k := xDim(g, x)
		if k < 0 || g.dims[k].loop == nil || g.dims[k].deps != nil {
			return 0, false
		}
		if n >= 0 && g.dims[k].n != n {
			return 0, false
		}
		n = g.dims[k].n
	}
	return n, n > 1
}

// reuseGap bounds, per array of x, in iterations of x, the distance at
// which an iteration of x can touch a line an earlier one touched (within
// the first n): for every pair of members of an array, the steps g at which
// member b's bytes of iteration t+g come within a line of member a's of
// iteration t; 1 for an array that does not move with x (matvec's b and c
// under j: every iteration touches the same lines again). It is false when
// an array's groups move by different steps, or a group is irregular.
func (m *cacheModel) reuseGap(x *cacheNode, n, line int64) ([]int64, bool) {
	gaps := make([]int64, len(x.arrays))
	type span struct{ lo, hi int64 }
	for ai, gs := range x.arrays {
		gap := int64(0)
		var step int64
		var spans []span
		for i, g := range gs {
			if g.irregular {
				return nil, false
			}
			s := g.dims[xDim(g, x)].stride.v
			if i > 0 && s != step {
				return nil, false
			}
			step = s
			down, up := g.innerExtent(x)
			for _, mem := range g.members {
				spans = append(spans, span{mem.base.v + down, mem.base.v + g.elem + up})
			}
		}
		if step == 0 {
			// The array stays put: every iteration touches the same
			// lines, reused one iteration later.
			gaps[ai] = 1
			continue
		}
		for _, a := range spans {
			for _, b := range spans {
				// Lines shared when g·step lies in (lo, hi).
				lo, hi := a.lo-b.hi-line, a.hi-b.lo+line
				if step < 0 {
					lo, hi = -hi, -lo
				}
				s := absInt64(step)
				top := min(n-1, ceilQuo(hi, s)-1)
				if top >= 1 && top*s > lo {
					gap = max(gap, top)
				}
			}
		}
		gaps[ai] = gap
	}
	return gaps, true
}

// ceilQuo is a/b rounded up, for b > 0.
func ceilQuo(a, b int64) int64 { return -floorQuo(-a, b) }

// innerExtent is how far below and above its first address each member of
// g reaches while the loops inside x run.
func (g *refGroup) innerExtent(x *cacheNode) (down, up int64) {
	for _, d := range g.dims {
		if d.node == x || !d.node.inside(x) || d.n < 2 {
			continue
		}
		e := d.stride.v * (d.n - 1)
		if e < 0 {
			down += e
		} else {
			up += e
		}
	}
	return down, up
}

// windowCount is the number of distinct lines groups (of one array) touch
// in iterations u .. u+k-1 of x, the loops inside x running, or false when
// it cannot be counted by value.
func (m *cacheModel) windowCount(groups []*refGroup, x *cacheNode, k, u, shift int64, stores bool, line int64) (int64, bool) {
	if len(groups) == 0 {
		return 0, true
	}
	key := windowKey{first: groups[0], n: len(groups), x: x, k: k, off: shift + u*groups[0].dims[max(xDim(groups[0], x), 0)].stride.v, line: line, stores: stores}
	if v, ok := m.windows[key]; ok {
		return v.n, v.ok
	}
	n, ok := m.countWindow(groups, x, k, u, shift, stores, line)
	if m.windows == nil {
		m.windows = map[windowKey]windowValue{}
	}
	m.windows[key] = windowValue{n, ok}
	return n, ok
}

// windowKey identifies a windowCount: the groups (a prefix of one array's,
// by its first group and length), the loop, the window's iterations, its
// byte offset (the groups of an array move alike), the line and stores.
type windowKey struct {
	first  *refGroup
	n      int
	x      *cacheNode
	k, off int64
	line   int64
	stores bool
}

// windowValue is a memoised windowCount.
type windowValue struct {
	n  int64
	ok bool
}

// countWindow is windowCount without the memo.
func (m *cacheModel) countWindow(groups []*refGroup, x *cacheNode, k, u, shift int64, stores bool, line int64) (int64, bool) {
	within := x.insideOrSelf
	return countGroups(groups, line, func(g *refGroup) ([]valDim, []valSeg, bool) {
		kx := xDim(g, x)
		if kx < 0 {
			return nil, nil, false
		}
		off := shift + u*g.dims[kx].stride.v
		lat, segs := g.reduceCount(within, stores, line, func(j int) int64 {
			if j == kx {
				return k
			}
			return g.averageTrip(j, within)
		}, func(i int) int64 { return g.members[i].base.v + off })
		return lat, segs, true
	})
}

// reuseWindow returns the largest reuse distance D, in iterations of x, at
// which the level still holds everything touched in between (the footprint
// of D iterations fits), when some reuse under x spans more than D
// iterations; false when every reuse hits (all of x fits, or its reuse
// spans one iteration, or D is at least every distance), as the plain
// layer condition of one iteration says. x's own iteration fits. gaps
// are reuseGap's, per array.
func (m *cacheModel) reuseWindow(x *cacheNode, st *levelState) (d, n int64, gaps []int64, ok bool) {
	n, ok = loopTrip(x)
	if !ok {
		return 0, 0, nil, false
	}
	capacity := int64(st.lv.Size) / st.line
	gaps, ok = m.reuseGap(x, n, st.line)
	if !ok {
		return 0, 0, nil, false
	}
	gap := int64(0)
	for _, g := range gaps {
		gap = max(gap, g)
	}
	if gap < 2 || m.nonRectangularBelow(x) {
		return 0, 0, nil, false
	}
	gap = min(gap, maxWindowGap)
	whole := zeroEst()
	for _, gs := range x.arrays {
		whole = whole.plus(m.memoFootprint(gs, x, true, false, st.line, true))
	}
	if whole.val.Cmp(big.NewRat(capacity, 1)) <= 0 {
		return 0, 0, nil, false
	}
	// The footprint of k iterations grows with k: find the largest k that
	// fits by bisection, W(lo) fitting and W(hi) not.
	window := func(k int64) (int64, bool) {
		w := int64(0)
		for _, gs := range x.arrays {
			c, ok := m.windowCount(gs, x, k, 0, 0, false, st.line)
			if !ok {
				return 0, false
			}
			w += c
		}
		return w, true
	}
	w, ok := window(gap)
	if !ok || w <= capacity {
		return 0, 0, nil, false
	}
	lo, hi := int64(1), gap
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		w, ok := window(mid)
		if !ok {
			return 0, 0, nil, false
		}
		if w <= capacity {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, n, gaps, true
}

// windowPeriod is the number of iterations of x after which the groups'
// lines repeat their alignment: the line over the largest power of two
// dividing both it and every step, at most 64.
func windowPeriod(groups []*refGroup, x *cacheNode, line int64) int64 {
	p := int64(1)
	for _, g := range groups {
		s := absInt64(g.dims[xDim(g, x)].stride.v) % line
		q := line / gcd64(s, line)
		p = p / gcd64(p, q) * q
	}
	return min(p, 64)
}

// windowLines is the lines groups bring in over one execution of x when a
// line is kept for d iterations of x and no longer: the first d iterations
// bring in their footprint, and every later one what the d before it did
// not touch, the footprint of d+1 iterations less that of d, averaged over
// the alignments of the window, and over the offsets shifts (alignShifts)
// the loops outside x place the execution at.
func (m *cacheModel) windowLines(groups []*refGroup, x *cacheNode, d, n int64, stores bool, line int64, shifts []int64) (*big.Rat, bool) {
	if stores && !hasStore(groups) {
		return new(big.Rat), true
	}
	if shifts == nil {
		shifts = []int64{0}
	}
	first := new(big.Rat)
	for _, sh := range shifts {
		c, ok := m.windowCount(groups, x, d, 0, sh, stores, line)
		if !ok {
			return nil, false
		}
		first.Add(first, big.NewRat(c, int64(len(shifts))))
	}
	steps := n - d
	period := windowPeriod(groups, x, line)
	// When x's own steps reach every offset the outer loops do, the
	// increments over a period are the same at every offset, and a part of
	// a period is taken at the period's average rate; fewer steps than a
	// period are counted at every offset (they differ between offsets).
	outer := shifts
	if len(shifts) == 1 || (shifts[1]%(line/period) == 0 && steps >= period) {
		outer = shifts[:1]
	}
	total := first
	for _, sh := range outer {
		var sum, sumPeriod int64
		for u := range min(steps, period) {
			a, ok1 := m.windowCount(groups, x, d+1, u, sh, stores, line)
			b, ok2 := m.windowCount(groups, x, d, u, sh, stores, line)
			if !ok1 || !ok2 {
				return nil, false
			}
			sumPeriod += a - b
			if u < steps%period {
				sum += a - b
			}
		}
		// In rationals: steps·sumPeriod can pass 2^63 at huge sizes.
		inc := new(big.Rat).Mul(big.NewRat(steps/period, 1), big.NewRat(sumPeriod, 1))
		inc.Add(inc, big.NewRat(sum, 1))
		inc.Quo(inc, big.NewRat(int64(len(outer)), 1))
		if len(outer) < len(shifts) && steps >= period {
			inc.Mul(big.NewRat(steps, 1), big.NewRat(sumPeriod, period))
		}
		total.Add(total, inc)
	}
	return total, true
}

// windowed charges every execution of x, whose lines stay cached for d of
// its n iterations, with windowLines: per array, each group the lines it
// adds to the groups before it, as compulsory does. It returns the
// references of the arrays whose lines the window changes, or false,
// having charged nothing, when a window cannot be counted or changes
// nothing.
func (m *cacheModel) windowed(x *cacheNode, st *levelState, d, n int64, gaps []int64) (refs []string, done bool, err error) {
	e, err := m.entries(x)
	if err != nil {
		return nil, false, err
	}
	type share struct {
		g          *refGroup
		lines, wbs *big.Rat
	}
	var shares []share
	var plain [][]*refGroup // arrays whose every reuse is within d
	for ai, gs := range x.arrays {
		if gaps[ai] <= d {
			plain = append(plain, gs)
			continue
		}
		prevAll, prevStore := new(big.Rat), new(big.Rat)
		shifts := alignShifts(gs, x, st.line)
		for k, g := range gs {
			all, ok1 := m.windowLines(gs[:k+1], x, d, n, false, st.line, shifts)
			stored, ok2 := m.windowLines(gs[:k+1], x, d, n, true, st.line, shifts)
			if !ok1 || !ok2 {
				return nil, false, nil
			}
			touch := m.touch(g, x, st.line)
			lines := new(big.Rat).Sub(all, prevAll)
			wbs := new(big.Rat).Sub(stored, prevStore)
			shares = append(shares, share{g, lines.Mul(lines, touch), wbs.Mul(wbs, touch)})
			prevAll, prevStore = all, stored
		}
		if prevAll.Cmp(m.footprintValue(gs, x, true, false, st.line)) != 0 ||
			prevStore.Cmp(m.footprintValue(gs, x, true, true, st.line)) != 0 {
			for _, g := range gs {
				for _, mem := range g.members {
					refs = appendNew(refs, mem.text)
				}
			}
		}
	}
	if len(refs) == 0 {
		// No reuse spans more than d iterations after all: compulsory
		// gives the same lines, with their formula.
		return nil, false, nil
	}
	execs := countEst(e)
	for _, s := range shares {
		st.add(s.g, execs.times(est{val: s.lines, bare: true}), execs.times(est{val: s.wbs, bare: true}))
	}
	for _, gs := range plain {
		m.compulsoryArray(gs, x, st, execs)
	}
	return refs, true, nil
}

// windowCondition states the condition a window decided for refs: their
// reuse over d+1 iterations of x fails where that over d holds.
func (m *cacheModel) windowCondition(x *cacheNode, st *levelState, d int64, refs []string) string {
	var w int64
	for _, gs := range x.arrays {
		c, _ := m.windowCount(gs, x, d+1, 0, 0, false, st.line)
		w += c
	}
	const most = 8
	if len(refs) > most {
		refs = append(refs[:most:most], fmt.Sprintf("and %d more", len(refs)-most))
	}
	iters := "iterations"
	if d == 1 {
		iters = "iteration"
	}
	pos := m.ra.position(x.stmt)
	return fmt.Sprintf("%s reused over %d iterations of %s (line %d) from %s while %d B <= %s: fails (over %d %s: holds)",
		strings.Join(refs, ", "), d+1, x.name, pos.Line, st.lv.Name, w*st.line, formatSize(int64(st.lv.Size)), d, iters)
}

// boundary takes back, for a loop x whose iteration does not fit, the lines
// the last accesses of each iteration share with the first accesses of the
// next: its children brought them in for both iterations, but the second
// touch follows the first within a few accesses, which LRU serves. Himeno's
// rows of 700 f32 (43.75 lines) end inside the line the next row begins in.
// The first and last items of x must be loops (nothing else runs between
// the two touches); a group under a data if is left as charged.
func (m *cacheModel) boundary(x *cacheNode, st *levelState) error {
	if x.stmt == nil || len(x.items) == 0 || x.items[0].node == nil || x.items[len(x.items)-1].node == nil {
		return nil
	}
	n, ok := loopTrip(x)
	if !ok {
		return nil
	}
	firstNode, lastNode := x.items[0].node, x.items[len(x.items)-1].node
	checked := false
	for _, gs := range x.arrays {
		var starts, ends []*refGroup
		for _, g := range gs {
			if g.irregular || underProb(g, x) {
				continue
			}
			if g.node.inside(firstNode) {
				starts = append(starts, g)
			}
			if g.node.inside(lastNode) {
				ends = append(ends, g)
			}
		}
		if len(starts) == 0 || len(ends) == 0 {
			continue
		}
		lines, wbs := boundaryLines(starts, ends, x, n, st.line)
		if len(lines) == 0 {
			continue
		}
		if !checked {
			if m.nonRectangularBelow(x) {
				return nil
			}
			checked = true
		}
		e, err := m.entries(x)
		if err != nil {
			return err
		}
		execs := countEst(e)
		for _, g := range starts {
			l, w := lines[g], wbs[g]
			if l == 0 && w == 0 {
				continue
			}
			st.add(g, execs.times(est{val: big.NewRat(-l, 1), bare: true}), execs.times(est{val: big.NewRat(-w, 1), bare: true}))
		}
	}
	return nil
}

// underProb reports whether a data if lies between x and g.
func underProb(g *refGroup, x *cacheNode) bool {
	for _, l := range g.chain[len(x.chain):] {
		if l.kind == probLevel {
			return true
		}
	}
	return false
}

// boundaryLines counts, over the n-1 steps from one iteration of x to the
// next, the lines the ends groups touch at the last point of an iteration
// (every loop inside x at its last index) and the starts groups at the
// first point of the next; each shared line is credited to the first of
// starts that touches it, in lines, and in wbs when both touches store.
func boundaryLines(starts, ends []*refGroup, x *cacheNode, n, line int64) (lines, wbs map[*refGroup]int64) {
	type touch struct {
		addr, line int64
		store      bool
		g          *refGroup
	}
	at := func(gs []*refGroup, t int64, last bool) []touch {
		var out []touch
		for _, g := range gs {
			off := t * g.dims[xDim(g, x)].stride.v
			if last {
				for _, d := range g.dims {
					if d.node != x && d.node.inside(x) && d.n > 1 {
						off += d.stride.v * (d.n - 1)
					}
				}
			}
			for _, mem := range g.members {
				a := mem.base.v + off
				out = append(out, touch{a, floorQuo(a, line), mem.store, g})
			}
		}
		return out
	}
	// A start touch of iteration t and an end touch of t-1 are the same
	// distance apart at every t when x moves every group alike: none
	// within a line, no line is shared.
	near := false
	step := starts[0].dims[xDim(starts[0], x)].stride.v
	for _, g := range append(append([]*refGroup(nil), starts...), ends...) {
		near = near || g.dims[xDim(g, x)].stride.v != step
	}
	end0, start1 := at(ends, 0, true), at(starts, 1, false)
	for _, e := range end0 {
		for _, s := range start1 {
			near = near || absInt64(e.addr-s.addr) < line
		}
	}
	if !near {
		return nil, nil
	}
	all := append(append([]*refGroup(nil), starts...), ends...)
	period := windowPeriod(all, x, line)
	steps := n - 1
	lines, wbs = map[*refGroup]int64{}, map[*refGroup]int64{}
	for t := int64(1); t <= min(steps, period); t++ {
		times := steps / period
		if t <= steps%period {
			times++
		}
		type first struct {
			g      *refGroup
			stored bool
		}
		begin := map[int64]*first{}
		var order []int64
		for _, s := range at(starts, t, false) {
			f := begin[s.line]
			if f == nil {
				f = &first{g: s.g}
				begin[s.line] = f
				order = append(order, s.line)
			}
			f.stored = f.stored || s.store
		}
		loaded, stored := map[int64]bool{}, map[int64]bool{}
		for _, e := range at(ends, t-1, true) {
			loaded[e.line] = true
			stored[e.line] = stored[e.line] || e.store
		}
		for _, l := range order {
			f := begin[l]
			if !loaded[l] {
				continue
			}
			lines[f.g] += times
			if f.stored && stored[l] {
				wbs[f.g] += times
			}
		}
	}
	return lines, wbs
}

// fitting charges a loop x whose iteration fits with the window of its
// reuse distances when some reuse spans more iterations than fit (done),
// and returns the condition that decided it; otherwise it charges nothing
// and compulsory counts x as before.
func (m *cacheModel) fitting(x *cacheNode, st *levelState) (done bool, cond string, err error) {
	if x.stmt == nil {
		return false, "", nil
	}
	d, n, gaps, ok := m.reuseWindow(x, st)
	if !ok {
		return false, "", nil
	}
	refs, done, err := m.windowed(x, st, d, n, gaps)
	if err != nil || !done {
		return false, "", err
	}
	return true, m.windowCondition(x, st, d, refs), nil
}

// alignShifts returns the byte offsets, modulo the line, at which the loops
// outside x place an execution of x relative to its first one, when they
// are not all multiples of the line: multiples of the gcd of their steps
// and the line, which those executions visit evenly. Rows of 700 f32 start
// at 0, 48, 32 and 16 bytes into a line in turn, and a row of 698 touches
// 44.6 lines on average where the first row touches 45. It is nil when
// every step is a multiple of the line, or when the groups of the array
// move differently with those loops (one offset would not place them all).
func alignShifts(gs []*refGroup, x *cacheNode, line int64) []int64 {
	g := line
	var first []int64
	for i, grp := range gs {
		var steps []int64
		for _, d := range grp.dims {
			if d.node.inside(x) || d.loop == nil || d.n < 2 {
				continue
			}
			steps = append(steps, d.stride.v)
			g = gcd64(g, absInt64(d.stride.v)%line)
		}
		if i == 0 {
			first = steps
		} else if !slices.Equal(first, steps) {
			return nil
		}
	}
	if g == line || g == 0 {
		return nil
	}
	var out []int64
	for s := int64(0); s < line; s += g {
		out = append(out, s)
	}
	return out
}

// alignedFootprint is the footprint f of groups at x (its own loop running)
// averaged over the offsets shifts of its executions; f itself when the
// average is f's value or cannot be counted by value.
func (m *cacheModel) alignedFootprint(groups []*refGroup, x *cacheNode, shifts []int64, stores bool, line int64, f est) est {
	within := x.insideOrSelf
	sum := int64(0)
	for _, sh := range shifts {
		c, ok := countGroups(groups, line, func(g *refGroup) ([]valDim, []valSeg, bool) {
			lat, segs := g.reduceCount(within, stores, line, func(k int) int64 { return g.averageTrip(k, within) }, func(i int) int64 { return g.members[i].base.v + sh })
			return lat, segs, true
		})
		if !ok {
			return f
		}
		sum += c
	}
	avg := big.NewRat(sum, int64(len(shifts)))
	if avg.Cmp(f.val) == 0 {
		return f
	}
	return est{val: avg, bare: true}
}

// hasStore reports whether a member of groups stores.
func hasStore(groups []*refGroup) bool {
	for _, g := range groups {
		for _, mem := range g.members {
			if mem.store {
				return true
			}
		}
	}
	return false
}
