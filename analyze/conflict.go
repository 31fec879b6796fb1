package analyze

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"perfc/analyze/cache"
	"perfc/internal/units"
	"perfc/lang"
)

// This file finds conflict misses: reuse that the analytic model (a fully
// associative LRU cache, as Kerncraft's layer conditions assume) counts as a
// hit, but that a set-associative cache loses because the lines kept for it
// crowd into too few sets. A column walk whose stride is a multiple of the
// way size maps a whole column onto one set; arrays of equal shape that
// start on the same page put their k-th elements in the same set.
//
// The check replays a small window, not the run: for every loop, the
// accesses of two consecutive iterations in the middle of its range (the
// loops around it at their middle iterations, the loops inside it in full),
// and of the next two, with the layout Simulate uses, go through an LRU
// model of each set-associative level that holds only the sets they touch
// (setLRU). Reuse across the loop's iterations is what a fully associative
// LRU cache keeps while one iteration fits (the model's layer condition);
// where one iteration's lines fit the level but the second iteration misses
// lines the first touched, in more than one in conflictSlack of its lines,
// the set-associative level loses that reuse to conflicts. The cost is the
// accesses of three iterations per loop, bounded by conflictWalkLimit each
// (a loop whose iteration makes more is not checked) and conflictTotalLimit
// in all.
//
// For each conflict the check tries paddings and names the first that
// removes it, checked the same way: every array with lines in the crowded
// sets gets one more line in its leading dimension, then the i-th such
// array i more lines (arrays of one shape then drift apart by a line a row).

// conflictWalkLimit bounds the accesses of one iteration the check walks;
// conflictTotalLimit bounds all of them together. An access costs 50–100
// ns of walking and replaying, so the check adds at most a few ms of CPU to
// an analysis (1–2 ms for the examples at their default sizes on a
// three-level hierarchy: BenchmarkConflictsExamples), and nothing with
// fully associative caches.
const (
	conflictWalkLimit  = 1 << 13
	conflictTotalLimit = 1 << 16
)

// Conflict is one loop whose reuse a set-associative level loses to
// conflict misses.
type Conflict struct {
	Level string `json:"level"`
	Loop  string `json:"loop"` // the loop index
	Pos   string `json:"pos"`  // file:line:col of the loop
	// Lines is the lines one iteration touches, Capacity the level's;
	// Lost is the lines of one iteration that the next one touches again
	// and misses; Crowded is the sets they are in, Most the most lines of
	// the two iterations one of those sets must hold.
	Lines    int64    `json:"lines"`
	Capacity int64    `json:"capacity"`
	Lost     int64    `json:"lost"` // reused lines the next iteration misses
	Crowded  int64    `json:"crowded_sets"`
	Most     int64    `json:"most_per_set"`
	Ways     int      `json:"ways"`
	Arrays   []string `json:"arrays"` // the arrays with reused lines in crowded sets
	// Leading describes the arrays' leading dimensions, each distinct one
	// once ("1024 f64 = 8 KiB a row").
	Leading []string `json:"leading"`
	// Padding is the padding that removes the conflict ("" when none of
	// the tried ones does).
	Padding string `json:"padding,omitempty"`
	Message string `json:"message"`
}

// lineSink records the accesses of a focused walk.
type lineSink struct {
	accesses []sinkAccess
}

// sinkAccess is one recorded access.
type sinkAccess struct {
	addr uint64
	size int
}

// Access records one access.
func (s *lineSink) Access(addr uint64, size int, _ bool) {
	s.accesses = append(s.accesses, sinkAccess{addr, size})
}

// conflictChecker runs the check for one rank.
type conflictChecker struct {
	k     *lang.Checked
	p     *plan
	h     cache.Hierarchy
	rank  int64
	align uint64
	loops []*lang.ForStmt
	paths map[*lang.ForStmt]map[lang.Stmt]bool
	spent int64
}

// Conflicts checks rank's loops against every level of h, with arrays
// aligned as Simulate places them (SimArrayAlign), and returns the
// conflicts found, outermost loop first.
func Conflicts(k *lang.Checked, h cache.Hierarchy, rank int64) ([]Conflict, error) {
	c := &conflictChecker{k: k, p: newPlan(k), h: h, rank: rank, align: SimArrayAlign, paths: map[*lang.ForStmt]map[lang.Stmt]bool{}}
	c.findLoops(k.Kernel.Body, nil)
	var out []Conflict
	var where []*lang.ForStmt
	for _, loop := range c.loops {
		found, err := c.checkLoop(loop)
		if err != nil {
			return nil, err
		}
		for range found {
			where = append(where, loop)
		}
		out = append(out, found...)
	}
	return c.innermost(out, where), nil
}

// innermost drops a conflict when a loop nested in its loop has one at the
// same level with the same arrays or more: the inner loop's is the one to
// fix, and the outer one says nothing new.
func (c *conflictChecker) innermost(cs []Conflict, where []*lang.ForStmt) []Conflict {
	var out []Conflict
	for i, x := range cs {
		covered := false
		for j, y := range cs {
			inner := j != i && x.Level == y.Level && c.paths[where[j]][where[i]]
			covered = covered || (inner && !slices.ContainsFunc(x.Arrays, func(a string) bool { return !slices.Contains(y.Arrays, a) }))
		}
		if !covered {
			out = append(out, x)
		}
	}
	return out
}

// findLoops lists every for loop under b with the statements on the path
// from the kernel body to it (the loop included).
func (c *conflictChecker) findLoops(b *lang.Block, path []lang.Stmt) {
	for _, s := range b.Stmts {
		c.findIn(s, path)
	}
}

// findIn visits one statement for findLoops.
func (c *conflictChecker) findIn(s lang.Stmt, path []lang.Stmt) {
	path = append(slices.Clip(path), s)
	switch s := s.(type) {
	case *lang.Block:
		c.findLoops(s, path)
	case *lang.ForStmt:
		on := map[lang.Stmt]bool{}
		for _, x := range path {
			on[x] = true
		}
		c.loops = append(c.loops, s)
		c.paths[s] = on
		c.findLoops(s.Body, path)
	case *lang.RepeatStmt:
		c.findLoops(s.Body, path)
	case *lang.IfStmt:
		c.findLoops(s.Then, path)
		if s.Else != nil {
			c.findIn(s.Else, path)
		}
	case *lang.RegionStmt:
		c.findLoops(s.Body, path)
	}
}

// iterationLines walks iteration `which` (0 or 1 after the middle one) of
// loop with layout l and returns the accesses it makes; ok is false when it
// makes more than conflictWalkLimit or the check's total is spent.
func (c *conflictChecker) iterationLines(loop *lang.ForStmt, l traceLayout, which int64) ([]sinkAccess, bool, error) {
	sink := &lineSink{}
	t, err := newTraceWalk(c.k, c.p, l, c.rank, sink)
	if err != nil {
		return nil, false, err
	}
	t.focus, t.onPath, t.focusNext = loop, c.paths[loop], which
	limit := min(conflictWalkLimit, conflictTotalLimit-c.spent)
	if limit <= 0 {
		return nil, false, nil
	}
	over := fmt.Errorf("over the conflict check's budget")
	t.limit, t.limitErr = limit, func(int64) error { return over }
	err = t.run()
	c.spent += t.accesses
	if errors.Is(err, over) {
		return nil, false, nil
	}
	return sink.accesses, err == nil, err
}

// checkLoop checks one loop at every level, and for a conflict tries the
// paddings.
func (c *conflictChecker) checkLoop(loop *lang.ForStmt) ([]Conflict, error) {
	var out []Conflict
	var iters *[3][]sinkAccess // walked once, for the first level that needs them
	for _, lv := range c.h {
		if lv.Ways() == lv.Lines() {
			continue // fully associative: no conflicts
		}
		l := traceLayout{align: c.align}
		if iters == nil {
			it, err := c.iterations(loop, l)
			if err != nil {
				return nil, err
			}
			iters = &it
		}
		cf, ok := c.checkLevel(loop, lv, l, *iters)
		if !ok {
			continue
		}
		cf.Padding = c.padding(loop, lv, cf.Arrays)
		cf.Message = c.message(cf)
		out = append(out, cf)
	}
	return out, nil
}

// iterations walks three consecutive middle iterations of loop with layout
// l; the second (or the third) is nil when there is none, or when a walk is
// over budget.
func (c *conflictChecker) iterations(loop *lang.ForStmt, l traceLayout) ([3][]sinkAccess, error) {
	var iters [3][]sinkAccess
	for i := range iters {
		acc, ok, err := c.iterationLines(loop, l, int64(i))
		if err != nil {
			return iters, err
		}
		if !ok || len(acc) == 0 {
			break
		}
		iters[i] = acc
	}
	return iters, nil
}

// checkLevel replays two middle iterations of loop, walked with layout l,
// through an exact simulator of lv alone (and the next two, see below); ok
// reports a conflict: the second iteration misses lines the first touched
// (reuse a fully associative cache keeps while one iteration fits) more
// than a few times (conflictSlack).
func (c *conflictChecker) checkLevel(loop *lang.ForStmt, lv cache.Level, l traceLayout, iters [3][]sinkAccess) (Conflict, bool) {
	if iters[0] == nil || iters[1] == nil {
		return Conflict{}, false
	}
	cf, found := c.checkPair(loop, lv, l, iters[0], iters[1])
	if iters[2] != nil {
		// Two pairs: one of them keeps within a line where the other
		// crosses into the next, so reuse of a line shows in one at least.
		if cf2, found2 := c.checkPair(loop, lv, l, iters[1], iters[2]); found2 && (!found || cf2.Lost > cf.Lost) {
			cf, found = cf2, true
		}
	}
	return cf, found
}

// checkPair checks two consecutive iterations' accesses at lv.
func (c *conflictChecker) checkPair(loop *lang.ForStmt, lv cache.Level, l traceLayout, first, second []sinkAccess) (Conflict, bool) {
	line := uint64(lv.Line)
	a, b := linesOf(first, line), linesOf(second, line)
	if int64(len(a)) > int64(lv.Lines()) {
		return Conflict{}, false // one iteration does not fit: no reuse to lose
	}
	sets := uint64(lv.Sets())
	lru := newSetLRU(lv.Ways())
	for _, x := range first {
		for ln := x.addr / line; ln <= (x.addr+uint64(x.size)-1)/line; ln++ {
			lru.access(ln, ln%sets)
		}
	}
	lost := map[uint64]bool{} // reused lines the second iteration misses
	for _, x := range second {
		for ln := x.addr / line; ln <= (x.addr+uint64(x.size)-1)/line; ln++ {
			if !lru.access(ln, ln%sets) && a[ln] {
				lost[ln] = true
			}
		}
	}
	if int64(len(lost)) <= max(1, int64(len(b))/conflictSlack) {
		return Conflict{}, false
	}
	perSet := map[uint64]int64{}
	for x := range a {
		perSet[x%sets]++
	}
	for x := range b {
		if !a[x] {
			perSet[x%sets]++
		}
	}
	crowded := map[uint64]bool{}
	most := int64(0)
	arrays := map[*lang.Object]bool{}
	bases := l.bases(c.k.Info.Arrays)
	for x := range lost {
		crowded[x%sets] = true
		most = max(most, perSet[x%sets])
		if arr := c.arrayAt(x*line, bases, l); arr != nil {
			arrays[arr] = true
		}
	}
	pos := c.k.File.Source.Position(loop.Pos())
	cf := Conflict{Level: lv.Name, Loop: loop.Var.Name, Pos: pos.String(), Lines: int64(len(a)), Capacity: int64(lv.Lines()),
		Lost: int64(len(lost)), Crowded: int64(len(crowded)), Most: most, Ways: lv.Ways()}
	for _, arr := range c.k.Info.Arrays {
		if arrays[arr] {
			cf.Arrays = append(cf.Arrays, arr.Name)
			if len(arr.Dims) > 1 {
				cf.Leading = append(cf.Leading, leadingText(arr, l))
			}
		}
	}
	cf.Leading = slices.Compact(cf.Leading)
	return cf, true
}

// conflictSlack: a check reports a conflict when the second iteration
// misses more than one in conflictSlack of its lines that the first touched
// (and more than one line): a few per cent, below which the simulation and
// the model agree to within the model's own tolerance.
const conflictSlack = 20

// setLRU is one set-associative LRU level holding only the sets a check
// touches: the lines of two iterations, where a cache.Simulator of an L3
// would allocate every set of it (megabytes) for each check. It replays
// what the simulator does for loads (LRU per set, lines placed by line mod
// sets); the tests check the verdicts against the simulator's full run.
type setLRU struct {
	ways int
	sets map[uint64][]uint64 // most recently used first
}

// newSetLRU returns an empty level of ways ways.
func newSetLRU(ways int) *setLRU { return &setLRU{ways: ways, sets: map[uint64][]uint64{}} }

// access looks line up in set, makes it the most recently used and reports
// whether it was there.
func (l *setLRU) access(line, set uint64) bool {
	s := l.sets[set]
	i := slices.Index(s, line)
	hit := i >= 0
	switch {
	case hit:
		copy(s[1:i+1], s[:i])
	case len(s) < l.ways:
		s = append(s, 0)
		copy(s[1:], s)
	default:
		copy(s[1:], s[:len(s)-1])
	}
	s[0] = line
	l.sets[set] = s
	return hit
}

// linesOf is the set of lines of size line the accesses touch.
func linesOf(acc []sinkAccess, line uint64) map[uint64]bool {
	out := map[uint64]bool{}
	for _, x := range acc {
		for ln := x.addr / line; ln <= (x.addr+uint64(x.size)-1)/line; ln++ {
			out[ln] = true
		}
	}
	return out
}

// arrayAt is the array whose bytes hold addr in layout l.
func (c *conflictChecker) arrayAt(addr uint64, bases map[*lang.Object]uint64, l traceLayout) *lang.Object {
	for _, a := range c.k.Info.Arrays {
		n := uint64(a.Elem.Size())
		for _, d := range l.dims(a) {
			n *= uint64(d)
		}
		if addr+uint64(c.h[0].Line) > bases[a] && addr < bases[a]+n {
			return a
		}
	}
	return nil
}

// leadingText describes an array's leading (last) dimension.
func leadingText(a *lang.Object, l traceLayout) string {
	d := l.dims(a)
	n := d[len(d)-1]
	return fmt.Sprintf("%d %s = %s a row", n, a.Elem, units.Bytes(n*int64(a.Elem.Size())))
}

// padding tries the paddings of the file comment on the arrays named
// and returns the first that removes the conflict at lv, as a suggestion.
func (c *conflictChecker) padding(loop *lang.ForStmt, lv cache.Level, names []string) string {
	var arrays []*lang.Object
	for _, a := range c.k.Info.Arrays {
		if slices.Contains(names, a.Name) && len(a.Dims) > 1 {
			arrays = append(arrays, a)
		}
	}
	if len(arrays) == 0 {
		return ""
	}
	for _, skew := range []bool{false, true} {
		pad := map[*lang.Object]int64{}
		var what []string
		for i, a := range arrays {
			lines := int64(1)
			if skew {
				lines = int64(i + 1)
			}
			elems := lines * int64(lv.Line) / int64(a.Elem.Size())
			pad[a] = elems
			n := a.Dims[len(a.Dims)-1]
			what = append(what, fmt.Sprintf("%s's %d to %d", a.Name, n, n+elems))
		}
		if skew && len(arrays) == 1 {
			break // the same as the first try
		}
		l := traceLayout{align: c.align, pad: pad}
		iters, err := c.iterations(loop, l)
		if err != nil || iters[1] == nil {
			continue // not walked: not shown to remove it
		}
		if _, bad := c.checkLevel(loop, lv, l, iters); !bad {
			return "pad the leading dimension: " + strings.Join(what, ", ")
		}
	}
	return ""
}

// message is the warning a report prints.
func (c *conflictChecker) message(cf Conflict) string {
	arrays := strings.Join(cf.Arrays, ", ")
	if len(cf.Leading) > 0 {
		arrays += ", leading dimension " + strings.Join(cf.Leading, " or ")
	}
	s := fmt.Sprintf("conflict misses in %s: reuse across iterations of %s (%s) keeps %d lines, which fit the %d of %s, but %d of them fall in %s that must hold up to %d lines in %d ways, and are lost (arrays %s); the model (fully associative) counts that reuse as hits",
		cf.Level, cf.Loop, cf.Pos, cf.Lines, cf.Capacity, cf.Level, cf.Lost, sets(cf.Crowded), cf.Most, cf.Ways, arrays)
	if cf.Padding != "" {
		return s + "; " + cf.Padding + " to remove them"
	}
	return s + "; no padding of the leading dimensions tried removes them (every array starts on an 8 KiB page, so equal offsets of different arrays share a set): split the loop, or merge the arrays into one with a trailing dimension"
}

// checkConflicts fills rep.Conflicts for the first class's representative
// when there are caches; a check that fails (an index the walk cannot
// evaluate) leaves a note instead, as the counts stand without it.
func (rep *Report) checkConflicts(k *lang.Checked, h cache.Hierarchy) {
	if len(h) == 0 || len(rep.Classes) == 0 {
		return
	}
	cs, err := Conflicts(k, h, rep.Classes[0].Rank)
	if err != nil {
		rep.Notes = append(rep.Notes, "conflict misses not checked: "+err.Error())
		return
	}
	rep.Conflicts = cs
}

// sets writes "1 set" or "n sets".
func sets(n int64) string {
	if n == 1 {
		return "1 set"
	}
	return fmt.Sprintf("%d sets", n)
}
