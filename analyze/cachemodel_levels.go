package analyze

import (
	"fmt"
	"math/big"
	"strings"

	"perfc/analyze/cache"
	"perfc/lang"
)

// This file applies the layer conditions level by level: levelState holds a
// cache level's counts, visit decides for each node of the loop tree whether
// one of its iterations fits, and charges the groups below it with their
// compulsory lines (the node fits) or with the lines of every execution (it
// does not); condition and reusers state the conditions that are reported.

// levelState is the model's result for one cache level.
type levelState struct {
	lv    cache.Level
	line  int64
	lines map[*refGroup]Count
	wbs   map[*refGroup]Count
	conds map[*refGroup][]string
}

// newLevelState starts a level with nothing counted.
func newLevelState(lv cache.Level) *levelState {
	return &levelState{lv: lv, line: int64(lv.Line), lines: map[*refGroup]Count{}, wbs: map[*refGroup]Count{}, conds: map[*refGroup][]string{}}
}

// capacity is the number of lines the level holds.
func (st *levelState) capacity() *big.Rat { return big.NewRat(int64(st.lv.Size)/st.line, 1) }

// add counts lines and write-backs for g.
func (st *levelState) add(g *refGroup, lines, wbs est) {
	st.lines[g] = st.lines[g].add(lines.count())
	st.wbs[g] = st.wbs[g].add(wbs.count())
}

// note attaches conditions to g once.
func (st *levelState) note(g *refGroup, conds ...string) {
	for _, c := range conds {
		if c == "" {
			continue
		}
		dup := false
		for _, have := range st.conds[g] {
			dup = dup || have == c
		}
		if !dup {
			st.conds[g] = append(st.conds[g], c)
		}
	}
}

// region sums the level's counts over the groups of one region.
func (st *levelState) region(groups []*refGroup, name string) CacheLines {
	out := CacheLines{Level: st.lv.Name, Lines: zeroCount(), WriteBacks: zeroCount()}
	for _, g := range groups {
		if g.region != name || g.empty {
			continue
		}
		out.Lines = out.Lines.add(st.lines[g])
		out.WriteBacks = out.WriteBacks.add(st.wbs[g])
		for _, c := range st.conds[g] {
			out.Conditions = appendNew(out.Conditions, c)
		}
	}
	return out
}

// appendNew appends s unless it is already in list.
func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// visit decides the layer condition of x: when one iteration of x fits in
// the level, every execution of x brings in its footprint once; otherwise
// its children are visited and its direct groups miss in every iteration.
// failed is the innermost failing condition above x.
func (m *cacheModel) visit(x *cacheNode, st *levelState, failed string) error {
	if len(x.under) == 0 {
		return nil
	}
	if key, ok := m.visitKey(x, st); ok {
		return m.visitShared(x, st, failed, key)
	}
	return m.visitNode(x, st, failed)
}

// visitNode is visit without sharing.
func (m *cacheModel) visitNode(x *cacheNode, st *levelState, failed string) error {
	// The body's formula is wanted only for a condition that is reported:
	// a loop whose iterations some reference reuses, or the kernel when it
	// fits.
	var refs []string
	if x.stmt != nil {
		refs = m.reusers(x, st.line)
	}
	body := m.nodeFootprint(x, st.line, x.stmt == nil || len(refs) == 0)
	fits := body.val.Cmp(st.capacity()) <= 0
	if x.stmt == nil && fits {
		body = m.nodeFootprint(x, st.line, false)
	}
	cond := m.condition(x, st, body, fits, refs)
	if x.stmt != nil {
		// Executions of x that differ in whether its iteration fits.
		sp, ok, err := m.executionSplit(x, st)
		if err != nil {
			return err
		}
		if ok {
			return m.visitExecutionSplit(x, st, failed, sp)
		}
	}
	if fits && x.stmt != nil {
		// The average iteration fits, but a late (or early) one may not.
		split, ok, err := m.splitLoop(x, st)
		if err != nil {
			return err
		}
		if ok {
			return m.visitSplit(x, st, failed, split)
		}
	}
	if fits {
		done, window, err := m.fitting(x, st)
		if err != nil {
			return err
		}
		if !done {
			if err := m.compulsory(x, st); err != nil {
				return err
			}
		}
		for _, g := range x.under {
			st.note(g, failed, cond, window)
		}
		return nil
	}
	if cond != "" {
		failed = cond
	}
	split, ok, err := m.splitLoop(x, st)
	if err != nil {
		return err
	}
	if ok {
		return m.visitSplit(x, st, failed, split)
	}
	if err := m.visitItems(x, st, failed); err != nil {
		return err
	}
	partial, ok, err := m.partialReuse(x, st)
	if err != nil || !ok {
		if err != nil {
			return err
		}
		return m.boundary(x, st)
	}
	for _, g := range x.under {
		st.note(g, partial)
	}
	return nil
}

// nodeFootprint is the number of lines the groups under x touch while the
// loops strictly inside x run; bare leaves out the formula, which only a
// condition that is reported needs.
func (m *cacheModel) nodeFootprint(x *cacheNode, line int64, bare bool) est {
	total := zeroEst()
	for _, gs := range x.arrays {
		total = total.plus(m.memoFootprint(gs, x, false, false, line, bare))
	}
	return total
}

// compulsory charges every execution of a fitting node x with its
// footprint: per array, each group gets the lines it adds to the union of
// the groups before it in program order (loads and stores), and the store
// members likewise the lines they dirty. Where the loops outside x place
// its executions at different offsets into a line, the footprint is their
// average (alignShifts).
func (m *cacheModel) compulsory(x *cacheNode, st *levelState) error {
	e, err := m.entries(x)
	if err != nil {
		return err
	}
	if x.chain != nil && e.Value.Cmp(big.NewRat(maxFootprintExecutions, 1)) <= 0 && m.nonRectangular(x) {
		return m.compulsoryEach(x, st)
	}
	execs := countEst(e)
	for _, gs := range x.arrays {
		m.compulsoryArray(gs, x, st, execs)
	}
	return nil
}

// compulsoryArray is compulsory for the groups gs of one array, execs the
// executions of x.
func (m *cacheModel) compulsoryArray(gs []*refGroup, x *cacheNode, st *levelState, execs est) {
	prevAll, prevStore := zeroEst(), zeroEst()
	shifts := alignShifts(gs, x, st.line)
	for k, g := range gs {
		all := m.footprint(gs[:k+1], x, true, false, st.line)
		stored := m.footprint(gs[:k+1], x, true, true, st.line)
		if shifts != nil {
			all = m.alignedFootprint(gs[:k+1], x, shifts, false, st.line, all)
			stored = m.alignedFootprint(gs[:k+1], x, shifts, true, st.line, stored)
		}
		touch := m.touch(g, x, st.line)
		lines := all.minus(prevAll).scale(touch)
		wbs := stored.minus(prevStore).scale(touch)
		st.add(g, execs.times(lines), execs.times(wbs))
		prevAll, prevStore = all, stored
	}
}

// maxFootprintExecutions bounds the executions of a non-rectangular node
// whose footprints are summed one by one; beyond it the average is used.
const maxFootprintExecutions = 4096

// compulsoryEach is compulsory for a node whose footprint differs between
// executions (a loop below x reads the index of one above): the shares are
// summed over every execution by the engine, with the footprint computed at
// each.
func (m *cacheModel) compulsoryEach(x *cacheNode, st *levelState) error {
	outer := x.chain[:len(x.chain)-1]
	for _, gs := range x.arrays {
		for k, g := range gs {
			touch := m.touch(g, x, st.line)
			var shares [2]est
			for i, stores := range []bool{false, true} {
				w := weight{why: "cache footprint of a non-rectangular loop nest", concrete: func(env *lang.Env) (*big.Rat, error) {
					if env.Rank != m.ra.rank {
						// A replay for another rank: addresses use this
						// rank's symbols, so let that rank be analysed.
						return nil, fmt.Errorf("cache footprint of rank %d replayed for rank %d", m.ra.rank, env.Rank)
					}
					if m.skips(env) {
						if m.filtered != nil {
							m.filtered[g] = true
						}
						return new(big.Rat), nil
					}
					cur := m.footprintIn(gs[:k+1], x.insideOrSelf, stores, st.line, env, true)
					prev := m.footprintIn(gs[:k], x.insideOrSelf, stores, st.line, env, true)
					d := new(big.Rat).Sub(cur.val, prev.val)
					return d.Mul(d, touch), nil
				}}
				res, err := m.ra.sumChain(outer, w)
				if err != nil {
					return err
				}
				shares[i] = est{val: res.value}
			}
			st.add(g, shares[0], shares[1])
		}
	}
	return nil
}

// direct charges a group that sits directly in a node whose iterations do
// not fit: every execution brings in the lines its members touch.
func (m *cacheModel) direct(g *refGroup, x *cacheNode, st *levelState) {
	execs := countEst(g.count)
	lines := m.perExecution(g, x, false, st.line)
	wbs := m.perExecution(g, x, true, st.line)
	st.add(g, execs.times(lines), execs.times(wbs))
}

// touch is the fraction of a group's footprint lines at node x that it
// really touches when data ifs below x execute it only a fraction phi of
// the time: a line its accesses reach a times on average is touched unless
// all a skip it, which the even pattern of a data branch (docs/counts.md)
// makes min(1, phi·a).
func (m *cacheModel) touch(g *refGroup, x *cacheNode, line int64) *big.Rat {
	one := big.NewRat(1, 1)
	phi := big.NewRat(1, 1)
	for _, l := range g.chain[len(x.chain):] {
		if l.kind == probLevel {
			phi.Mul(phi, l.prob)
		}
	}
	if phi.Cmp(one) == 0 {
		return one
	}
	solo := m.footprintValue([]*refGroup{g}, x, true, false, line)
	if solo.Sign() == 0 {
		return one
	}
	t := new(big.Rat).Mul(phi, big.NewRat(int64(len(g.members)), 1))
	for _, d := range g.dims {
		if d.node.inside(x) {
			t.Mul(t, d.trip.val)
		}
	}
	t.Quo(t, solo)
	if t.Cmp(one) > 0 {
		return one
	}
	return t
}

// perExecution is the average number of distinct lines one execution of a
// group's members touches, over the iterations of x (the group's innermost
// loop) whose index moves them; stores selects the store members.
func (m *cacheModel) perExecution(g *refGroup, x *cacheNode, stores bool, line int64) est {
	var segs []segment
	for _, mem := range g.members {
		if stores && !mem.store {
			continue
		}
		segs = append(segs, segment{off: mem.base, len: constSym(g.elem), elem: g.elem, slack: constSym(0)})
	}
	if len(segs) == 0 {
		return zeroEst()
	}
	if g.irregular {
		return intEst(int64(len(segs)))
	}
	var lat []latDim
	for _, d := range g.dims {
		if d.node == x && d.stride.v != 0 && d.n > 1 {
			// Each iteration is its own slot: no merging across iterations.
			lat = []latDim{{stride: d.stride, count: constSym(d.n), separate: true}}
		}
	}
	lines := latticeLines(lat, segs, line)
	if len(lat) == 0 {
		return lines
	}
	perIter := lines.scale(big.NewRat(1, lat[0].count.v))
	if !perIter.val.IsInt() {
		perIter.ok = false
	} else {
		perIter = est{val: perIter.val, ok: true}
	}
	return perIter
}

// condition states the layer condition of x at this level whose body
// footprint is body, or "" when no reference reuses anything across x's
// iterations (refs, from reusers, is empty: the condition then decides
// nothing worth reporting) or x is the kernel and it fails.
func (m *cacheModel) condition(x *cacheNode, st *levelState, body est, fits bool, refs []string) string {
	outcome := "fails"
	if fits {
		outcome = "holds"
	}
	size := formatSize(int64(st.lv.Size))
	if x.stmt == nil {
		if !fits {
			return ""
		}
		bytes := body.scale(big.NewRat(st.line, 1))
		var names []string
		for _, gs := range x.arrays {
			names = append(names, gs[0].array.Name)
		}
		return fmt.Sprintf("all data (%s) stays in %s while %s B <= %s: %s (%s B)",
			strings.Join(names, ", "), st.lv.Name, bytes.text(), size, outcome, ratText(bytes.val))
	}
	if len(refs) == 0 {
		return ""
	}
	across := "iterations of " + x.name
	if x.name == "repeat" {
		across = "repetitions"
	}
	pos := m.ra.position(x.stmt)
	bytes := body.scale(big.NewRat(st.line, 1))
	return fmt.Sprintf("%s reused across %s (line %d) from %s while %s B <= %s: %s (%s B)",
		strings.Join(refs, ", "), across, pos.Line, st.lv.Name, bytes.text(), size, outcome, ratText(bytes.val))
}

// reusers lists the references under x that touch fewer lines over all of
// x's iterations than over each iteration on its own: the ones a cache that
// keeps one iteration of x serves.
func (m *cacheModel) reusers(x *cacheNode, line int64) []string {
	var out []string
	for _, g := range x.under {
		trip := big.NewRat(1, 1)
		for _, d := range g.dims {
			if d.node == x {
				trip = d.trip.val
			}
		}
		whole := m.footprintValue([]*refGroup{g}, x, true, false, line)
		each := m.footprintValue([]*refGroup{g}, x, false, false, line)
		if whole.Cmp(new(big.Rat).Mul(trip, each)) >= 0 {
			continue
		}
		for _, mem := range g.members {
			out = appendNew(out, mem.text)
		}
	}
	const most = 8
	if len(out) > most {
		out = append(out[:most], fmt.Sprintf("and %d more", len(out)-most))
	}
	return out
}

// formatSize writes a capacity in bytes with the largest binary prefix
// that divides it.
func formatSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// visitItems visits x's items as for an iteration that does not fit:
// nested loops recursively, x's own reference groups directly, each
// noted as failing with failed.
func (m *cacheModel) visitItems(x *cacheNode, st *levelState, failed string) error {
	for _, it := range x.items {
		if it.node != nil {
			if err := m.visit(it.node, st, failed); err != nil {
				return err
			}
			continue
		}
		if g := it.group; !g.empty {
			m.direct(g, x, st)
			st.note(g, failed)
		}
	}
	return nil
}
