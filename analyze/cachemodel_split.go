package analyze

import (
	"fmt"
	"math/big"
	"slices"

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

// maxSplitLines bounds the lines the fitting iterations of a split loop
// touch, summed over them, that are enumerated one by one; beyond it the
// loop keeps the condition at its average trip counts.
const maxSplitLines = 1 << 20

// splitSkip marks the iterations of a split loop that its fitting side
// counts: compulsoryEach leaves them out.
type splitSkip struct {
	slot int
	fit  map[int64]bool
}

// skips reports whether env lies in an iteration a split above counts.
func (m *cacheModel) skips(env *lang.Env) bool {
	for _, s := range m.splitting {
		if s.fit[env.Index[s.slot]] {
			return true
		}
	}
	return false
}

// splitIteration is one iteration of a split loop: its index value, the
// environment at it, and its body's footprint in lines.
type splitIteration struct {
	index int64
	env   *lang.Env
	lines int64
	fits  bool
}

// splitCharges is what the fitting iterations of a split loop add, per
// group, and the condition stated for them.
type splitCharges struct {
	lines, wbs map[*refGroup]int64
	cond       string
	skip       splitSkip
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
	capacity := int64(st.lv.Size) / st.line
	slot := m.ra.k.Info.Defs[loop.Var].Slot
	var iters []splitIteration
	w := weight{why: "cache footprint of a loop split at its layer condition", concrete: func(env *lang.Env) (*big.Rat, error) {
		if env.Rank != m.ra.rank {
			return nil, fmt.Errorf("cache footprint of rank %d replayed for rank %d", m.ra.rank, env.Rank)
		}
		if len(iters) >= maxFootprintExecutions {
			return nil, errSplitTooLong
		}
		at := &lang.Env{Rank: env.Rank, Index: append([]int64(nil), env.Index...)}
		var total int64
		for _, gs := range x.arrays {
			n, ok := m.footprintCount(gs, x.strictlyInside, false, st.line, at)
			if !ok {
				return nil, errSplitTooLong
			}
			total += n
		}
		iters = append(iters, splitIteration{index: at.Index[slot], env: at, lines: total, fits: total <= capacity})
		return new(big.Rat), nil
	}}
	if _, err := m.ra.sumChain(x.chain, w); err != nil {
		if err == errSplitTooLong {
			return splitCharges{}, false, nil
		}
		return splitCharges{}, false, err
	}
	first, last := -1, -1
	var budget int64
	for t, it := range iters {
		if !it.fits {
			continue
		}
		if first < 0 {
			first = t
		} else if last != t-1 {
			return splitCharges{}, false, nil // not a single run
		}
		last = t
		budget += it.lines
	}
	if first < 0 || (first == 0 && last == len(iters)-1) || budget > maxSplitLines {
		return splitCharges{}, false, nil
	}
	c := splitCharges{lines: map[*refGroup]int64{}, wbs: map[*refGroup]int64{}, skip: splitSkip{slot: slot, fit: map[int64]bool{}}}
	for t := first; t <= last; t++ {
		c.skip.fit[iters[t].index] = true
	}
	c.rest = big.NewRat(int64(len(iters)-(last-first+1)), int64(len(iters)))
	for _, gs := range x.arrays {
		if !m.splitArray(gs, x, st.line, capacity, iters, first, last, c) {
			return splitCharges{}, false, nil
		}
	}
	c.cond = m.splitCondition(x, st, iters[first], iters[last])
	return c, true, nil
}

// errSplitTooLong stops the enumeration of a split loop's iterations.
var errSplitTooLong = fmt.Errorf("split loop: too many iterations")

// splittable reports whether the lines of x's iterations that do not fit
// are all charged per execution by its children (compulsoryEach, which
// leaves out the iterations the split counts): every item of x is a loop
// that reads an index outside it, whose own iteration fits, and whose
// executions are few enough to be summed one by one.
func (m *cacheModel) splittable(x *cacheNode, st *levelState) bool {
	if len(x.items) == 0 || !m.nonRectangularBelow(x) {
		return false
	}
	for _, it := range x.items {
		y := it.node
		if y == nil {
			continue // a group directly in x: charged per iteration (visitSplit)
		}
		if !m.nonRectangular(y) {
			return false
		}
		if _, ok := loopTrip(y); ok {
			return false
		}
		if m.nodeFootprint(y, st.line, true).val.Cmp(st.capacity()) > 0 {
			return false
		}
		e, err := m.entries(y)
		if err != nil || e.Value.Cmp(big.NewRat(maxFootprintExecutions, 1)) > 0 {
			return false
		}
	}
	return true
}

// splitArray counts, for the groups gs of one array, the lines and
// write-backs of the fitting iterations first..last of x into c, line by
// line: an iteration misses the lines the previous one did not touch, the
// first fitting one after one that did not fit also those its
// predecessor touched beyond the capacity (see the file comment); a line
// is written back once per time it is brought in and dirtied. It is false
// when a group's lines cannot be enumerated.
func (m *cacheModel) splitArray(gs []*refGroup, x *cacheNode, line, capacity int64, iters []splitIteration, first, last int, c splitCharges) bool {
	type state struct {
		owner *refGroup
		dirty bool // written back already charged for this residency
	}
	var prev map[int64]state
	excess := int64(0)
	if first > 0 {
		// The iteration before the run does not fit: its lines are cached
		// but for its excess over the capacity.
		p, ok := m.splitLines(gs, x, line, iters[first-1].env)
		if !ok {
			return false
		}
		prev = make(map[int64]state, len(p.all))
		for l := range p.all {
			prev[l] = state{dirty: p.dirty[l]}
		}
		excess = max(0, iters[first-1].lines-capacity)
	}
	for t := first; t <= last; t++ {
		cur, ok := m.splitLines(gs, x, line, iters[t].env)
		if !ok {
			return false
		}
		next := make(map[int64]state, len(cur.all))
		for _, l := range cur.order {
			g := cur.all[l]
			s, hit := prev[l]
			if hit && excess > 0 {
				hit, excess = false, excess-1
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
			next[l] = s
		}
		prev, excess = next, 0
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
			return splitLineSet{}, false
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
	return fmt.Sprintf("iterations of %s (line %d) reused across %s = %d..%d from %s while one iteration's lines (%d..%d B) <= %s: holds there, fails elsewhere",
		x.name, pos.Line, x.name, from.index, to.index, st.lv.Name, from.lines*st.line, to.lines*st.line, formatSize(int64(st.lv.Size)))
}

// visitSplit visits the children of a split loop x for the iterations
// that do not fit, and charges the fitting ones with c.
func (m *cacheModel) visitSplit(x *cacheNode, st *levelState, failed string, c splitCharges) error {
	m.splitting = append(m.splitting, c.skip)
	defer func() { m.splitting = m.splitting[:len(m.splitting)-1] }()
	for _, it := range x.items {
		if it.node == nil {
			// A group directly in x executes alike in every iteration.
			if g := it.group; !g.empty {
				execs := countEst(g.count).scale(c.rest)
				st.add(g, execs.times(m.perExecution(g, x, false, st.line)), execs.times(m.perExecution(g, x, true, st.line)))
				st.note(g, failed)
			}
			continue
		}
		if err := m.visit(it.node, st, failed); err != nil {
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
