package analyze

import (
	"encoding/binary"
	"fmt"
	"math/big"
	"slices"
	"sort"

	"perfc/lang"
)

// This file splits the range of a loop whose body shrinks or grows with
// its own index (LU's trailing matrix, a triangular matrix-vector
// product's rows) at the iterations where its layer condition changes.
// The condition of such a loop, decided at the average trip counts, holds
// for all its iterations or for none; an LRU cache keeps the late, small
// trailing matrices of LU from one k to the next although the average one
// does not fit. The condition is monotone in the trip counts, so the
// iterations that fit form a run: those that do not fit are counted by
// the children as before (each of their executions charged on its own,
// compulsoryEach), and those that fit are counted line by line, an
// iteration missing the lines the previous one did not touch (the
// previous iteration fits, so all of it is still cached). At the first
// fitting iteration after one that did not fit, the cache holds only the
// most recent capacity's worth of that iteration's lines: the lines it
// touched beyond the capacity are taken to be among those needed again
// (an LRU cache evicts the oldest lines, which a sweep in the same order
// needs first). The counts are values without formulas.
//
// The executions of a loop whose bounds read an outer index (LU's i under
// k) are split alike: those whose iteration fits are counted as a fitting
// loop, each its footprint once, and the others through their children.
//
// A split decides "fits" strictly (footprint below the capacity), not at
// most the capacity as the average condition does: a body that streams
// through rows while it reuses others touches the line its stream is in in
// two consecutive iterations, so the reuse distance of a line reused one
// iteration later is the footprint plus one (LU at N = 72: 21,032 lines
// with "at most", 24,336 with "below", the simulator 24,552).

// maxSplitLines bounds the lines the fitting iterations of a split loop
// touch, summed over them, that are enumerated one by one; beyond it the
// loop keeps the condition at its average trip counts.
const maxSplitLines = 1 << 16

// skips reports whether env lies in executions a split above counts
// otherwise.
func (m *cacheModel) skips(env *lang.Env) bool {
	for _, s := range m.splitting {
		if s(env) {
			return true
		}
	}
	return false
}

// splitIteration is one iteration of a split loop: its index value, the
// environment at it, and its body's footprint in lines (−1 until needed).
type splitIteration struct {
	index int64
	env   *lang.Env
	lines int64
}

// splitCharges is what the fitting iterations of a split loop add, per
// group, and the condition stated for them.
type splitCharges struct {
	lines, wbs map[*refGroup]int64
	cond       string
	skip       func(*lang.Env) bool
	// rest is the fraction of x's iterations that do not fit.
	rest *big.Rat
}

// splitLoop decides, for a loop x whose body does not fit on average, the
// iterations that fit, and counts them; ok is false when x is not split
// (its condition does not change over its range, or it is not of the shape
// this rule handles), and nothing is charged then.
func (m *cacheModel) splitLoop(x *cacheNode, st *levelState) (splitCharges, bool, error) {
	loop, ok := x.stmt.(*lang.ForStmt)
	if !ok || x.chain == nil || !m.splittable(x, st) {
		return splitCharges{}, false, nil
	}
	e, err := m.entries(x)
	if err != nil || e.Value.Cmp(big.NewRat(1, 1)) != 0 {
		return splitCharges{}, false, err
	}
	iters, err := m.splitIterations(x, st.line)
	if err != nil || len(iters) == 0 {
		return splitCharges{}, false, err
	}
	capacity := int64(st.lv.Size) / st.line
	lines := func(t int) int64 {
		if iters[t].lines < 0 {
			iters[t].lines = m.bodyLines(x, st.line, iters[t].env)
		}
		return iters[t].lines
	}
	fits := func(t int) bool { return lines(t) < capacity }
	// The condition is monotone in the trip counts: the iterations that
	// fit are a prefix or a suffix, found by bisection.
	n := len(iters)
	first, last := 0, n-1
	switch f0, f1 := fits(0), fits(n-1); {
	case !f0 && !f1:
		return splitCharges{}, false, nil
	case f0 && !f1:
		last = sort.Search(n, func(t int) bool { return !fits(t) }) - 1
	case !f0 && f1:
		first = sort.Search(n, fits)
	}
	// The run is counted line by line: its lines, estimated from its
	// ends, must stay within maxSplitLines.
	if (lines(first)+lines(last))/2*int64(last-first+1) > maxSplitLines {
		return splitCharges{}, false, nil
	}
	if first > 0 {
		lines(first - 1)
	}
	slot := m.ra.k.Info.Defs[loop.Var].Slot
	fit := map[int64]bool{}
	for t := first; t <= last; t++ {
		fit[iters[t].index] = true
	}
	c := splitCharges{lines: map[*refGroup]int64{}, wbs: map[*refGroup]int64{}, skip: func(env *lang.Env) bool { return fit[env.Index[slot]] }}
	c.rest = big.NewRat(int64(n-(last-first+1)), int64(n))
	if !m.splitRun(x, st.line, capacity, iters, first, last, c) {
		return splitCharges{}, false, nil
	}
	c.cond = m.splitCondition(x, st, iters[first], iters[last])
	return c, true, nil
}

// splitIterations lists the iterations of x (which runs once), their
// footprints not yet computed (lines −1); the levels of a hierarchy with
// one line size share them, with the footprints found so far.
func (m *cacheModel) splitIterations(x *cacheNode, line int64) ([]splitIteration, error) {
	key := splitKey{x, line}
	if its, ok := m.splitIters[key]; ok {
		return its, nil
	}
	slot := m.ra.k.Info.Defs[x.stmt.(*lang.ForStmt).Var].Slot
	var iters []splitIteration
	w := weight{why: "cache footprint of a loop split at its layer condition", concrete: func(env *lang.Env) (*big.Rat, error) {
		if env.Rank != m.ra.rank {
			return nil, fmt.Errorf("cache footprint of rank %d replayed for rank %d", m.ra.rank, env.Rank)
		}
		if len(iters) >= maxFootprintExecutions {
			return nil, errSplitTooLong
		}
		at := &lang.Env{Rank: env.Rank, Index: append([]int64(nil), env.Index...)}
		iters = append(iters, splitIteration{index: at.Index[slot], env: at, lines: -1})
		return new(big.Rat), nil
	}}
	if _, err := m.ra.sumChain(x.chain, w); err != nil {
		if err != errSplitTooLong {
			return nil, err
		}
		iters = nil
	}
	if m.splitIters == nil {
		m.splitIters = map[splitKey][]splitIteration{}
	}
	m.splitIters[key] = iters
	return iters, nil
}

// splitKey identifies the iterations of a split loop at one line size.
type splitKey struct {
	x    *cacheNode
	line int64
}

// bodyLines is the footprint of one iteration of x at the execution env
// names, in lines (irregular groups a line per access).
func (m *cacheModel) bodyLines(x *cacheNode, line int64, env *lang.Env) int64 {
	var total int64
	for _, gs := range x.arrays {
		if n, ok := m.footprintCount(gs, x.strictlyInside, false, line, env); ok {
			total += n
			continue
		}
		f := m.footprintIn(gs, x.strictlyInside, false, line, env, true).val
		total += new(big.Int).Quo(f.Num(), f.Denom()).Int64()
	}
	return total
}

// errSplitTooLong stops the enumeration of a split loop's iterations.
var errSplitTooLong = fmt.Errorf("split loop: too many iterations")

// splittable reports whether x's body changes with x's own index (a loop
// inside it reads it).
func (m *cacheModel) splittable(x *cacheNode, st *levelState) bool {
	return len(x.items) > 0 && m.nonRectangularBelow(x) && m.eachBelow(x)
}

// eachBelow reports whether every non-rectangular loop strictly inside x
// runs few enough times to be counted execution by execution
// (compulsoryEach), the only way of counting that leaves out the
// executions a split counts otherwise: a closed form over a triangle,
// scaled by the share of executions, would take the average execution for
// those of the part it keeps.
func (m *cacheModel) eachBelow(x *cacheNode) bool {
	for _, it := range x.items {
		y := it.node
		if y == nil {
			continue
		}
		if m.nonRectangular(y) {
			e, err := m.entries(y)
			if err != nil || e.Value.Cmp(big.NewRat(maxFootprintExecutions, 1)) > 0 {
				return false
			}
		}
		if !m.eachBelow(y) {
			return false
		}
	}
	return true
}

// splitRun counts the lines and write-backs of the fitting iterations
// first..last of x into c, line by line, as an LRU cache at the grain of
// iterations: a line touched in the previous iteration hits (both fit); one
// last touched in an earlier iteration s hits when the iterations s+1..t
// touch no more distinct lines than the level holds (the window of its
// reuse fits); the first fitting iteration after one that did not fit
// finds that one's lines but for its excess over the capacity (see the
// file comment). A line is written back once per time it is brought in
// and dirtied. It is false when a group's lines cannot be enumerated.
func (m *cacheModel) splitRun(x *cacheNode, line, capacity int64, iters []splitIteration, first, last int, c splitCharges) bool {
	type key struct {
		array int
		line  int64
	}
	type state struct {
		owner *refGroup
		dirty bool // written back already charged for this residency
		stamp int  // the last iteration that touched it, from 1
	}
	lines := map[key]state{}
	// since counts, per stamp, the lines whose last touch it is (a
	// Fenwick tree over the stamps 1..len).
	n := last - first + 2
	since := make([]int64, n+1)
	bump := func(i int, d int64) {
		for ; i <= n; i += i & -i {
			since[i] += d
		}
	}
	upTo := func(i int) int64 {
		var s int64
		for ; i > 0; i -= i & -i {
			s += since[i]
		}
		return s
	}
	excess := int64(0)
	if first > 0 {
		// The iteration before the run does not fit: its lines are cached
		// but for its excess over the capacity.
		for a, gs := range x.arrays {
			p, ok := m.splitLines(gs, x, line, iters[first-1].env)
			if !ok {
				return false
			}
			for _, l := range p.order {
				lines[key{a, l}] = state{dirty: p.dirty[l], stamp: 1}
				bump(1, 1)
			}
		}
		excess = max(0, iters[first-1].lines-capacity)
	}
	for t := first; t <= last; t++ {
		stamp := t - first + 2
		var sets []splitLineSet
		var size int64
		for _, gs := range x.arrays {
			cur, ok := m.splitLines(gs, x, line, iters[t].env)
			if !ok {
				return false
			}
			sets = append(sets, cur)
			size += int64(len(cur.order))
		}
		before := upTo(n)
		for a, cur := range sets {
			for _, l := range cur.order {
				g := cur.all[l]
				k := key{a, l}
				s, seen := lines[k]
				hit := seen && (s.stamp == stamp-1 || before-upTo(s.stamp)+size <= capacity)
				if hit && excess > 0 && s.stamp == 1 && first > 0 {
					hit, excess = false, excess-1
				}
				if seen {
					bump(s.stamp, -1)
				}
				if !hit {
					c.lines[g]++
					s = state{owner: g}
				}
				if s.owner == nil {
					s.owner = g
				}
				if cur.dirty[l] && !s.dirty {
					c.wbs[s.owner]++
					s.dirty = true
				}
				s.stamp = stamp
				lines[k] = s
				bump(stamp, 1)
			}
		}
	}
	return true
}

// splitLineSet is the lines one iteration touches: each with the first
// group (in program order) that touches it, in the order found, and the
// lines a store touches.
type splitLineSet struct {
	all   map[int64]*refGroup
	order []int64
	dirty map[int64]bool
}

// splitLines enumerates the lines the groups gs touch in the iteration of
// x at env, from the lattices footprints count.
func (m *cacheModel) splitLines(gs []*refGroup, x *cacheNode, line int64, env *lang.Env) (splitLineSet, bool) {
	set := splitLineSet{all: map[int64]*refGroup{}, dirty: map[int64]bool{}}
	for _, g := range gs {
		if g.empty {
			continue
		}
		if g.irregular {
			continue // charged a line per access in every iteration (visitRest)
		}
		v, ok, err := m.viewAt(g, x.strictlyInside, env)
		if err != nil {
			return splitLineSet{}, false
		}
		if !ok {
			continue
		}
		for _, stores := range []bool{false, true} {
			lat, segs := g.reduceCount(x.strictlyInside, stores, line, func(k int) int64 { return v.trips[k].v }, func(i int) int64 { return v.bases[i].v })
			if !eachLatticeLine(lat, segs, line, maxSplitLines, func(l int64) {
				if stores {
					set.dirty[l] = true
					return
				}
				if _, ok := set.all[l]; !ok {
					set.all[l] = g
					set.order = append(set.order, l)
				}
			}) {
				return splitLineSet{}, false
			}
		}
	}
	slices.Sort(set.order)
	return set, true
}

// eachLatticeLine calls f with every line a lattice of segments touches
// (once per slot and segment; f dedups), or returns false beyond most
// calls.
func eachLatticeLine(lat []valDim, segs []valSeg, line, most int64, f func(int64)) bool {
	idx := make([]int64, len(lat))
	calls := int64(0)
	for {
		p := int64(0)
		for k, d := range lat {
			p += idx[k] * d.stride
		}
		for _, s := range segs {
			if s.len <= 0 {
				continue
			}
			lo, hi := floorQuo(p+s.off, line), floorQuo(p+s.off+s.len-1, line)
			for l := lo; l <= hi; l++ {
				if calls++; calls > most {
					return false
				}
				f(l)
			}
		}
		k := 0
		for ; k < len(lat); k++ {
			if idx[k]++; idx[k] < lat[k].count {
				break
			}
			idx[k] = 0
		}
		if k == len(lat) {
			return true
		}
	}
}

// splitCondition states the condition of a split loop for its fitting
// iterations.
func (m *cacheModel) splitCondition(x *cacheNode, st *levelState, from, to splitIteration) string {
	pos := m.ra.position(x.stmt)
	return fmt.Sprintf("iterations of %s (line %d) reused across %s = %d..%d from %s while one iteration's lines (%d..%d B) < %s: holds there, fails elsewhere",
		x.name, pos.Line, x.name, from.index, to.index, st.lv.Name, from.lines*st.line, to.lines*st.line, formatSize(int64(st.lv.Size)))
}

// visitSplit visits the children of a split loop x for the iterations
// that do not fit, and charges the fitting ones with c.
func (m *cacheModel) visitSplit(x *cacheNode, st *levelState, failed string, c splitCharges) error {
	if c.rest.Sign() > 0 {
		if err := m.visitRest(x, st, failed, c.skip, c.rest); err != nil {
			return err
		}
	}
	for _, g := range x.under {
		l, w := c.lines[g], c.wbs[g]
		st.add(g, est{val: big.NewRat(l, 1), bare: true}, est{val: big.NewRat(w, 1), bare: true})
		st.note(g, c.cond)
	}
	return nil
}

// visitRest visits x's items as for an iteration that does not fit, for
// the executions skip leaves: compulsoryEach leaves the others out, and
// the charges of the groups it did not count (closed forms, alike in every
// execution) are scaled by rest, the fraction of x's iterations counted.
func (m *cacheModel) visitRest(x *cacheNode, st *levelState, failed string, skip func(*lang.Env) bool, rest *big.Rat) error {
	type before struct{ lines, wbs Count }
	was := make(map[*refGroup]before, len(x.under))
	for _, g := range x.under {
		was[g] = before{st.lines[g], st.wbs[g]}
	}
	outer := m.filtered
	m.filtered = map[*refGroup]bool{}
	m.splitting = append(m.splitting, skip)
	defer func() {
		m.splitting = m.splitting[:len(m.splitting)-1]
		for g := range m.filtered {
			if outer != nil {
				outer[g] = true
			}
		}
		m.filtered = outer
	}()
	if err := m.visitItems(x, st, failed); err != nil {
		return err
	}
	for _, g := range x.under {
		if m.filtered[g] || g.irregular {
			continue
		}
		b := was[g]
		dl := est{val: new(big.Rat).Sub(countValue(st.lines[g]), countValue(b.lines)), bare: true}
		dw := est{val: new(big.Rat).Sub(countValue(st.wbs[g]), countValue(b.wbs)), bare: true}
		st.lines[g], st.wbs[g] = b.lines, b.wbs
		st.add(g, dl.scale(rest), dw.scale(rest))
	}
	return nil
}

// countValue is a count's value, zero for the zero Count.
func countValue(c Count) *big.Rat {
	if c.Value == nil {
		return new(big.Rat)
	}
	return c.Value
}

// executionSplit decides, for a loop y whose bounds read an index outside
// it (LU's i, Gaussian elimination's update rows), at each of its
// executions whether one of its iterations fits: the trip counts, and so
// the condition, change with the outer index. ok is false when every
// execution decides alike (the condition at the average trip counts then
// stands) or there are too many executions to decide one by one. fits
// reports whether an execution's iteration fits, from the indices of the
// loops outside y; rest is the fraction of executions that do not.
func (m *cacheModel) executionSplit(y *cacheNode, st *levelState) (sp executionSplit, ok bool, err error) {
	if y.chain == nil || len(y.items) == 0 || !m.nonRectangular(y) || !m.eachBelow(y) {
		return executionSplit{}, false, nil
	}
	e, err := m.entries(y)
	if err != nil || e.Value.Cmp(big.NewRat(maxFootprintExecutions, 1)) > 0 || e.Value.Cmp(big.NewRat(1, 1)) <= 0 {
		return executionSplit{}, false, err
	}
	outer := y.chain[:len(y.chain)-1]
	var slots []int
	for _, l := range outer {
		if l.kind == loopLevel {
			slots = append(slots, m.ra.k.Info.Defs[l.loop.Var].Slot)
		}
	}
	capacity := int64(st.lv.Size) / st.line
	fit := map[string]bool{}
	var n, fitting int64
	key := func(env *lang.Env) string {
		b := make([]byte, 0, 8*len(slots))
		for _, s := range slots {
			b = binary.AppendVarint(b, env.Index[s])
		}
		return string(b)
	}
	w := weight{why: "cache condition of a non-rectangular loop, execution by execution", concrete: func(env *lang.Env) (*big.Rat, error) {
		if env.Rank != m.ra.rank {
			return nil, fmt.Errorf("cache footprint of rank %d replayed for rank %d", m.ra.rank, env.Rank)
		}
		total := m.bodyLines(y, st.line, env)
		n++
		if total < capacity {
			fitting++
			fit[key(env)] = true
		}
		return new(big.Rat), nil
	}}
	if _, err := m.ra.sumChain(outer, w); err != nil {
		if err == errSplitTooLong {
			return executionSplit{}, false, nil
		}
		return executionSplit{}, false, err
	}
	if fitting == 0 || fitting == n {
		return executionSplit{}, false, nil
	}
	return executionSplit{
		fits: func(env *lang.Env) bool { return fit[key(env)] },
		rest: big.NewRat(n-fitting, n),
		n:    n, fitting: fitting,
	}, true, nil
}

// executionSplit is the result of (*cacheModel).executionSplit.
type executionSplit struct {
	fits       func(*lang.Env) bool
	rest       *big.Rat
	n, fitting int64
}

// visitExecutionSplit counts the executions of y whose iteration fits as
// a fitting loop (each its footprint once, compulsoryEach) and the others
// as a loop whose iteration does not fit (its children, visitRest).
func (m *cacheModel) visitExecutionSplit(y *cacheNode, st *levelState, failed string, sp executionSplit) error {
	m.splitting = append(m.splitting, func(env *lang.Env) bool { return !sp.fits(env) })
	err := m.compulsoryEach(y, st)
	m.splitting = m.splitting[:len(m.splitting)-1]
	if err != nil {
		return err
	}
	pos := m.ra.position(y.stmt)
	cond := fmt.Sprintf("iterations of %s (line %d) fit %s in %d of its %d executions", y.name, pos.Line, st.lv.Name, sp.fitting, sp.n)
	for _, g := range y.under {
		st.note(g, failed, cond)
	}
	return m.visitRest(y, st, cond, sp.fits, sp.rest)
}
