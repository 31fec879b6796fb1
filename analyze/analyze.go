// Package analyze counts exactly what an SPMD kernel does, per rank and per
// region, without running it: loop iterations, operations by kind and type,
// the PARKBENCH nominal flop count, loads and stores with their byte strides,
// messages and collectives, and the memory footprint. Counts of affine loop
// nests are closed-form polynomials in the kernel's parameters (package
// symbolic), so N = 10^12 costs what N = 10 costs; where a bound is not
// affine the outer levels are enumerated and the report says so. Ranks that
// make the same decisions at every rank-dependent condition are analysed
// once. docs/counts.md describes the rules and the JSON schema.
package analyze

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"

	"perfc/analyze/cache"
	"perfc/analyze/symbolic"
	"perfc/lang"
)

// Options tune an analysis.
type Options struct {
	// Cache is the hierarchy footprints are compared with (and cache lines
	// predicted for); empty means none.
	Cache cache.Hierarchy
	// OnlyRank, when set, restricts the analysis to that one rank (perfc
	// count --rank R). The zero Options analyse every rank, which is what
	// a prediction needs: a kernel where rank r loops N·r times costs
	// nothing on rank 0, and costmodel.Predict refuses a report that does
	// not cover every rank. Go 1.26 writes it OnlyRank: new(int64(3)).
	OnlyRank *int64
	// MaxRanks bounds the ranks analysed or matched to a class one by one
	// (ranges of ranks shown alike at once count once); zero means
	// DefaultMaxRanks. Past it the analysis is an error that says which
	// decision made the ranks differ.
	MaxRanks int64
	// MaxEnumerated bounds the loop iterations enumerated where closed
	// forms fail, over every leaf and rank; zero means
	// DefaultMaxEnumerated.
	MaxEnumerated int64
	// rangesFrom is the fewest ranks still to classify for which ranges
	// of alike ranks are worked out (rankrange.go); zero means
	// defaultRangesFrom. Tests set 1, so that small kernels take the
	// ranges too and the oracle checks them.
	rangesFrom int64
}

// defaultRangesFrom: below it, matching the ranks one by one (well under
// a microsecond each) costs less than working out ranges (tens of
// microseconds each, in exact arithmetic): a 512-rank torus took 2.5 ms
// instead of 0.3.
const defaultRangesFrom = 4096

// DefaultMaxRanks is the Options.MaxRanks of the zero Options: matching a
// million ranks one by one takes well under a second, analysing each of a
// million small kernels' ranks about a minute at most.
const DefaultMaxRanks = 1_000_000

// classState is a class being built: its representative's analysis.
type classState struct {
	ra        *rankAnalysis
	rt        *regionTotals
	shareable bool
	ranks     RankSet
	scratch   map[string]*big.Rat // symbol values while matching other ranks
	// misses counts the ranks in a row for which alikeThrough found no
	// range beyond the rank itself, skip the ranks still to be matched one
	// by one before it is tried again, and why and at what it said last
	// (extent).
	misses int
	skip   int64
	why    string
	at     lang.Expr
}

// Analyze counts what every rank of a checked kernel does (one rank with
// Options.OnlyRank).
func Analyze(k *lang.Checked, opts Options) (*Report, error) {
	p := newPlan(k)
	rep := &Report{
		Schema: SchemaVersion,
		Kernel: k.Kernel.Name.Name,
		File:   k.File.Source.Name,
		Ranks:  k.NumRanks(),
		Cache:  opts.Cache.String(),
	}
	for _, obj := range k.Params {
		rep.Params = append(rep.Params, Param{Name: obj.Name, Value: obj.Value.String()})
	}
	if px, py, ok := k.Grid(); ok {
		rep.Grid = []int64{px, py}
	}
	first, last := int64(0), k.NumRanks()-1
	if opts.OnlyRank != nil {
		r := *opts.OnlyRank
		if r < 0 || r > last {
			return nil, fmt.Errorf("rank %d does not exist: kernel %s has %d ranks (0 to %d)", r, rep.Kernel, last+1, last)
		}
		first, last = r, r
	}
	p.maxEnumerated = opts.MaxEnumerated
	rangesFrom := opts.rangesFrom
	if rangesFrom == 0 {
		rangesFrom = defaultRangesFrom
	}
	maxRanks := opts.MaxRanks
	if maxRanks <= 0 {
		maxRanks = DefaultMaxRanks
	}
	var classes []*classState
	cacheMemo := cacheMemo{}
	prev := -1
	steps := int64(0)
	for r := first; r <= last; {
		i := findClass(classes, prev, r)
		if i < 0 {
			cs, err := newClass(p, r, cacheMemo, opts.Cache, rep)
			if err != nil {
				return nil, err
			}
			classes = append(classes, cs)
			i = len(classes) - 1
		}
		prev = i
		// The ranks after r that provably decide alike join at once.
		h, why, at := r, "", lang.Expr(nil)
		if last-r+1 >= rangesFrom {
			h, why, at = classes[i].extent(r, last)
		}
		classes[i].ranks.addSpan(r, h)
		if steps++; h < last && steps >= maxRanks {
			if why == "" {
				// Ranges were not tried: say what stands in their way.
				_, why, at = classes[i].alikeThrough(r, last)
			}
			return nil, classes[i].ra.rankBudgetError(last-first+1, steps, h, why, at)
		}
		r = h + 1
	}
	rep.Classes = mergeClasses(classes)
	rep.Footprint = footprint(k, opts.Cache)
	rep.checkConflicts(k, opts.Cache)
	dropWorkFormulas(k, rep)
	return rep, nil
}

// newClass analyses rank r as the representative of a new class.
func newClass(p *plan, r int64, memo cacheMemo, h cache.Hierarchy, rep *Report) (*classState, error) {
	ra := newRankAnalysis(p, r)
	rt, err := ra.run()
	if err != nil {
		return nil, err
	}
	if err := ra.requestCounts(rt); err != nil {
		return nil, err
	}
	if err := memo.lines(ra, rt, h); err != nil {
		return nil, err
	}
	// The request counts come from this rank's schedule, not from
	// decisions another rank could replay: a kernel with requests is
	// analysed rank by rank (mergeClasses still merges equal ranks).
	cs := &classState{ra: ra, rt: rt, shareable: !ra.untraceable && !ra.rankFormula && !rankDependentCounts(ra, rt) &&
		len(p.k.Info.Requests) == 0}
	// Only matching other ranks reads the evaluations traced; the set
	// that kept them unique is not needed again.
	ra.traceSeen = traceSet{}
	if !cs.shareable {
		ra.traced = nil
	}
	for _, n := range ra.notes {
		rep.addNote(n)
	}
	return cs, nil
}

// rankBudgetError reports ranks that must be told apart one by one past
// the budget: how far the analysis got, why (at the decision that makes
// the ranks differ, when there is one), and the two ways out.
func (ra *rankAnalysis) rankBudgetError(ranks, steps, through int64, why string, at lang.Expr) error {
	if why == "" {
		why = "their rank-dependent decisions split them into more ranges than the budget"
	}
	msg := fmt.Sprintf("kernel %s has %d ranks, and they cannot all be shown alike in ranges: %s; "+
		"after %d ranks taken one by one (up to rank %d) the budget is spent; "+
		"raise it with --max-ranks, or count one rank with perfc count --rank R",
		ra.k.Kernel.Name.Name, ranks, why, steps, through)
	if at == nil {
		return errors.New(msg)
	}
	return ra.errorf(at, "%s", msg)
}

// findClass returns the class rank r belongs to, trying the previous rank's
// class first (neighbouring ranks are usually alike), or -1.
func findClass(classes []*classState, prev int, r int64) int {
	if prev >= 0 && classes[prev].matches(r) {
		return prev
	}
	for i, c := range classes {
		if i != prev && c.matches(r) {
			return i
		}
	}
	return -1
}

// matches reports whether rank r makes every decision the class's
// representative made, so that it has the same counts.
func (c *classState) matches(r int64) bool {
	if !c.shareable || !c.ra.replay(r) {
		return false
	}
	if c.scratch == nil {
		// The scratch environment owns its rank values, so that they are
		// set in place for each rank tried: matching the 512 ranks of a
		// hypercube allocated three values and an analysis per rank.
		c.scratch = c.ra.cloneEnv()
		for _, name := range [...]string{"rank", "rx", "ry"} {
			if _, ok := c.scratch[name]; ok {
				c.scratch[name] = new(big.Rat)
			}
		}
	}
	c.scratch["rank"].SetInt64(r)
	if px, _, ok := c.ra.k.Grid(); ok {
		c.scratch["rx"].SetInt64(r % px)
		c.scratch["ry"].SetInt64(r / px)
	}
	return c.ra.decidesAlike(r, c.scratch)
}

// sameDecisions returns an analysis of rank r that shares this one's
// results (symbols rebound for r) when r makes every decision this rank
// made, or nil when it does not.
func (ra *rankAnalysis) sameDecisions(r int64) *rankAnalysis {
	if !ra.replay(r) {
		return nil
	}
	other := &rankAnalysis{p: ra.p, k: ra.k, rank: r, env: ra.cloneEnv(), rankSymbols: ra.rankSymbols,
		atoms: ra.atoms, decisions: ra.decisions, traced: ra.traced, tracedN: ra.tracedN, enumerated: ra.enumerated}
	other.bindRank(r)
	if !ra.decidesAlike(r, other.env) {
		return nil
	}
	return other
}

// decidesAlike reports whether rank r, whose symbol values env holds
// (atoms aside, which it sets), creates the same atoms and makes every
// decision this rank made. The traced evaluations are checked apart
// (replay).
func (ra *rankAnalysis) decidesAlike(r int64, env map[string]*big.Rat) bool {
	for _, a := range ra.atoms {
		if !ra.rankSymbols[a.name] {
			continue
		}
		v, ok := ra.atomValue(a, r, env)
		if !ok {
			return false
		}
		env[a.name] = v
	}
	lenv := &lang.Env{Rank: r}
	for _, d := range ra.decisions {
		if !ra.decisionHolds(d, lenv, env) {
			return false
		}
	}
	return true
}

// rankDependentCounts reports whether any count's formula mentions a
// rank-dependent symbol (then ranks of one class could differ in value).
func rankDependentCounts(ra *rankAnalysis, rt *regionTotals) bool {
	dep := false
	check := func(n *Count) {
		if !dep && ra.rankDependentPoly(n.Formula) {
			dep = true
		}
	}
	for name, c := range rt.counts {
		if !rt.rankFree[name] {
			c.forEachCountPtr(check)
			continue
		}
		// Checked when counted: only the cache lines are new.
		for i := range c.Cache {
			check(&c.Cache[i].Lines)
			check(&c.Cache[i].WriteBacks)
		}
	}
	return dep
}

// forEachCount calls f on every Count of c.
func (c *Counts) forEachCount(f func(Count)) {
	c.forEachCountPtr(func(n *Count) { f(*n) })
}

// forEachCountPtr calls f on a pointer to every Count of c, in a fixed
// order, so that two Counts of the same shape can be walked side by side.
func (c *Counts) forEachCountPtr(f func(*Count)) {
	for _, n := range []*Count{&c.Iterations, &c.Flop, &c.IntOps, &c.MaddPairs, &c.Loads, &c.Stores, &c.LoadBytes, &c.StoreBytes, &c.Barriers, &c.LoopEntries, &c.RegionEntries, &c.InnerRegionEntries,
		&c.Requests.Posted, &c.Requests.Completed, &c.Requests.Overlapped} {
		f(n)
	}
	for i := range c.Ops {
		f(&c.Ops[i].Count)
	}
	for i := range c.Madds {
		f(&c.Madds[i].Count)
	}
	for i := range c.Refs {
		f(&c.Refs[i].Count)
	}
	for i := range c.Messages {
		f(&c.Messages[i].Count)
		f(&c.Messages[i].Bytes)
	}
	for i := range c.Collectives {
		f(&c.Collectives[i].Count)
		f(&c.Collectives[i].Bytes)
	}
	for i := range c.Vectors {
		f(&c.Vectors[i].Entries)
		f(&c.Vectors[i].Iterations)
	}
	for i := range c.Loops {
		f(&c.Loops[i].Iterations)
		f(&c.Loops[i].Entries)
	}
	for i := range c.Cache {
		f(&c.Cache[i].Lines)
		f(&c.Cache[i].WriteBacks)
	}
	for i := range c.Chains {
		c.Chains[i].forEachCountPtr(f)
	}
}

// forEachCountPtr calls f on a pointer to every Count of a chain, in a
// fixed order (as Counts.forEachCountPtr).
func (ch *Chain) forEachCountPtr(f func(*Count)) {
	for _, n := range []*Count{&ch.Iterations, &ch.Entries, &ch.Body.Iterations, &ch.Body.Loads, &ch.Body.Stores} {
		f(n)
	}
	for _, list := range [...][]OpCount{ch.Ops, ch.Body.Ops, ch.Body.Madds} {
		for i := range list {
			f(&list[i].Count)
		}
	}
}

// forEachCountPair calls f on the counts of a and b side by side, in
// forEachCountPtr's order, while f returns true. The two must have the same
// shape (the same slices' lengths); it walks them without collecting either
// side's counts first.
func forEachCountPair(a, b *Counts, f func(x, y *Count) bool) {
	fixed := [...][2]*Count{{&a.Iterations, &b.Iterations}, {&a.Flop, &b.Flop}, {&a.IntOps, &b.IntOps},
		{&a.MaddPairs, &b.MaddPairs}, {&a.Loads, &b.Loads}, {&a.Stores, &b.Stores},
		{&a.LoadBytes, &b.LoadBytes}, {&a.StoreBytes, &b.StoreBytes}, {&a.Barriers, &b.Barriers},
		{&a.LoopEntries, &b.LoopEntries}, {&a.RegionEntries, &b.RegionEntries}, {&a.InnerRegionEntries, &b.InnerRegionEntries},
		{&a.Requests.Posted, &b.Requests.Posted},
		{&a.Requests.Completed, &b.Requests.Completed}, {&a.Requests.Overlapped, &b.Requests.Overlapped}}
	for _, p := range fixed {
		if !f(p[0], p[1]) {
			return
		}
	}
	for i := range min(len(a.Ops), len(b.Ops)) {
		if !f(&a.Ops[i].Count, &b.Ops[i].Count) {
			return
		}
	}
	for i := range min(len(a.Madds), len(b.Madds)) {
		if !f(&a.Madds[i].Count, &b.Madds[i].Count) {
			return
		}
	}
	for i := range min(len(a.Refs), len(b.Refs)) {
		if !f(&a.Refs[i].Count, &b.Refs[i].Count) {
			return
		}
	}
	for i := range min(len(a.Messages), len(b.Messages)) {
		if !f(&a.Messages[i].Count, &b.Messages[i].Count) || !f(&a.Messages[i].Bytes, &b.Messages[i].Bytes) {
			return
		}
	}
	for i := range min(len(a.Collectives), len(b.Collectives)) {
		if !f(&a.Collectives[i].Count, &b.Collectives[i].Count) || !f(&a.Collectives[i].Bytes, &b.Collectives[i].Bytes) {
			return
		}
	}
	for i := range min(len(a.Vectors), len(b.Vectors)) {
		if !f(&a.Vectors[i].Entries, &b.Vectors[i].Entries) || !f(&a.Vectors[i].Iterations, &b.Vectors[i].Iterations) {
			return
		}
	}
	for i := range min(len(a.Loops), len(b.Loops)) {
		if !f(&a.Loops[i].Iterations, &b.Loops[i].Iterations) || !f(&a.Loops[i].Entries, &b.Loops[i].Entries) {
			return
		}
	}
	for i := range min(len(a.Cache), len(b.Cache)) {
		if !f(&a.Cache[i].Lines, &b.Cache[i].Lines) || !f(&a.Cache[i].WriteBacks, &b.Cache[i].WriteBacks) {
			return
		}
	}
	for i := range min(len(a.Chains), len(b.Chains)) {
		if !chainCountPair(&a.Chains[i], &b.Chains[i], f) {
			return
		}
	}
}

// chainCountPair calls f on the counts of two chains of the same shape side
// by side, in Chain.forEachCountPtr's order, while f returns true; it
// reports whether f always did.
func chainCountPair(a, b *Chain, f func(x, y *Count) bool) bool {
	fixed := [...][2]*Count{{&a.Iterations, &b.Iterations}, {&a.Entries, &b.Entries}, {&a.Body.Iterations, &b.Body.Iterations},
		{&a.Body.Loads, &b.Body.Loads}, {&a.Body.Stores, &b.Body.Stores}}
	for _, p := range fixed {
		if !f(p[0], p[1]) {
			return false
		}
	}
	for _, lists := range [...][2][]OpCount{{a.Ops, b.Ops}, {a.Body.Ops, b.Body.Ops}, {a.Body.Madds, b.Body.Madds}} {
		for i := range min(len(lists[0]), len(lists[1])) {
			if !f(&lists[0][i].Count, &lists[1][i].Count) {
				return false
			}
		}
	}
	return true
}

// mergeClasses turns the classes into the report's, merging classes whose
// counts are equal in value: ranks analysed apart (an edge piece of a block
// distribution, an enumerated peer) may still do exactly the same. Where the
// merged classes' formulas differ, the count keeps its value only.
func mergeClasses(states []*classState) []*Class {
	var out []*Class
	owned := map[*Class]bool{}
	for _, cs := range states {
		// The class takes its representative's regions: nothing reads the
		// state's totals afterwards.
		cl := &Class{Ranks: cs.ranks, Rank: cs.ranks.First(), Regions: cs.rt.regions}
		cs.rt = nil
		// Classes are compared by their regions alone: equal regions make
		// equal totals, so a class that merges never needs its own total.
		merged := false
		for _, into := range out {
			if sameValues(into, cl) {
				into.Ranks.merge(cl.Ranks)
				if !owned[into] {
					// Regions taken from a kept run share their lists
					// with other classes (shareClone): own them before
					// demoting formulas in place.
					for r := range into.Regions {
						into.Regions[r].Counts = into.Regions[r].Counts.clone()
					}
					owned[into] = true
				}
				for r := range into.Regions {
					demoteDiffering(&into.Regions[r].Counts, &cl.Regions[r].Counts)
				}
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, cl)
		}
	}
	for _, cl := range out {
		cl.Total = totalOf(cl.Regions)
	}
	return out
}

// demoteDiffering drops the formula of every count of dst whose formula
// differs from the same count of src (the two have equal shapes and values).
func demoteDiffering(dst, src *Counts) {
	forEachCountPair(dst, src, func(c, from *Count) bool {
		if c.Symbolic && (!from.Symbolic || !c.Formula.Equal(from.Formula)) {
			c.Symbolic = false
			if c.Value != nil {
				c.Formula = symbolic.Const(c.Value)
			}
		}
		return true
	})
}

// regionName names the part of a kernel outside every region.
func regionName(name string) string {
	if name == "" {
		return "(outside regions)"
	}
	return name
}

// sameValues reports whether two classes' regions have equal counts in
// value and shape (formulas and peer ranks aside, which differ between alike
// ranks). It compares in place: building a key per class (first with
// encoding/json, then by hand) was the analyzer's hottest code when
// hundreds of classes merged.
func sameValues(a, b *Class) bool {
	if len(a.Regions) != len(b.Regions) {
		return false
	}
	for i := range a.Regions {
		if a.Regions[i].Name != b.Regions[i].Name || !sameCounts(&a.Regions[i].Counts, &b.Regions[i].Counts) {
			return false
		}
	}
	return true
}

// sameCounts reports whether two regions' counts are equal in value and
// shape.
func sameCounts(a, b *Counts) bool {
	if !slices.EqualFunc(a.Ops, b.Ops, sameOpKind) || !slices.EqualFunc(a.Madds, b.Madds, sameOpKind) ||
		!slices.EqualFunc(a.Refs, b.Refs, func(x, y RefCount) bool {
			return x.Pos == y.Pos && x.Store == y.Store && x.Hoisted == y.Hoisted && x.Pattern == y.Pattern
		}) ||
		!slices.EqualFunc(a.Messages, b.Messages, func(x, y Message) bool {
			return x.Kind == y.Kind && x.Stmt == y.Stmt && x.Peer == y.Peer && x.Elem == y.Elem
		}) ||
		!slices.EqualFunc(a.Collectives, b.Collectives, func(x, y Collective) bool {
			return x.Kind == y.Kind && x.Op == y.Op && x.Elem == y.Elem && x.Stmt == y.Stmt && x.Root == y.Root
		}) ||
		!slices.EqualFunc(a.Vectors, b.Vectors, func(x, y VectorLoop) bool { return x.Stmt == y.Stmt && x.Form == y.Form }) ||
		!slices.EqualFunc(a.Loops, b.Loops, func(x, y LoopCount) bool { return x.Stmt == y.Stmt }) ||
		!slices.EqualFunc(a.Cache, b.Cache, func(x, y CacheLines) bool { return x.Level == y.Level }) ||
		!slices.EqualFunc(a.Chains, b.Chains, sameChainShape) {
		return false
	}
	same := true
	forEachCountPair(a, b, func(x, y *Count) bool {
		same = equalValues(x.Value, y.Value)
		return same
	})
	return same
}

// sameChainShape reports whether two chains are of one loop and location
// with the same kinds of operations on them and in their bodies.
func sameChainShape(x, y Chain) bool {
	return x.Loop == y.Loop && x.Var == y.Var && x.Restarts == y.Restarts && slices.EqualFunc(x.Ops, y.Ops, sameOpKind) &&
		slices.EqualFunc(x.Body.Ops, y.Body.Ops, sameOpKind) && slices.EqualFunc(x.Body.Madds, y.Body.Madds, sameOpKind)
}

// sameOpKind reports whether two operation counts are of one kind, type and
// pattern.
func sameOpKind(x, y OpCount) bool { return x.Op == y.Op && x.Type == y.Type && x.Pattern == y.Pattern }

// equalValues compares two count values, nil being zero.
func equalValues(x, y *big.Rat) bool {
	switch {
	case x == nil && y == nil:
		return true
	case x == nil:
		return y.Sign() == 0
	case y == nil:
		return x.Sign() == 0
	}
	if x.IsInt() && y.IsInt() {
		// Rat.Cmp multiplies across; integers compare without allocating.
		return x.Num().Cmp(y.Num()) == 0
	}
	return x.Cmp(y) == 0
}

// accumulate adds d to c in place; c must own its slices (a new Counts, or
// a clone). A class total built with plus, region by region, copied every
// earlier region's references again.
func (c *Counts) accumulate(d *Counts) {
	c.Iterations = c.Iterations.add(d.Iterations)
	c.Flop = c.Flop.add(d.Flop)
	c.IntOps = c.IntOps.add(d.IntOps)
	c.MaddPairs = c.MaddPairs.add(d.MaddPairs)
	c.Loads = c.Loads.add(d.Loads)
	c.Stores = c.Stores.add(d.Stores)
	c.LoadBytes = c.LoadBytes.add(d.LoadBytes)
	c.StoreBytes = c.StoreBytes.add(d.StoreBytes)
	c.Barriers = c.Barriers.add(d.Barriers)
	c.LoopEntries = c.LoopEntries.add(d.LoopEntries)
	c.RegionEntries = c.RegionEntries.add(d.RegionEntries)
	c.InnerRegionEntries = c.InnerRegionEntries.add(d.InnerRegionEntries)
	c.Requests = c.Requests.add(d.Requests)
	for _, o := range d.Ops {
		c.Ops = addOpCount(c.Ops, o)
	}
	for _, o := range d.Madds {
		c.Madds = addOpCount(c.Madds, o)
	}
	for _, l := range d.Loops {
		c.Loops = addLoopCount(c.Loops, l)
	}
	c.Vectors = append(c.Vectors, d.Vectors...)
	c.Refs = append(c.Refs, d.Refs...)
	c.Messages = append(c.Messages, d.Messages...)
	c.Collectives = append(c.Collectives, d.Collectives...)
	c.Cache = sumCacheLines(c.Cache, d.Cache)
	// The chains' lists are shared, as the references' strides are:
	// nothing changes a total in place.
	for _, ch := range d.Chains {
		c.Chains = insertChain(c.Chains, ch)
	}
}

// totalOf returns the sum of every region's counts, its lists allocated
// once at their final lengths.
func totalOf(regions []Region) Counts {
	var refs, messages, collectives, vectors int
	for i := range regions {
		c := &regions[i].Counts
		refs += len(c.Refs)
		messages += len(c.Messages)
		collectives += len(c.Collectives)
		vectors += len(c.Vectors)
	}
	// Empty lists stay nil, as accumulate leaves them.
	var t Counts
	if refs > 0 {
		t.Refs = make([]RefCount, 0, refs)
	}
	if messages > 0 {
		t.Messages = make([]Message, 0, messages)
	}
	if collectives > 0 {
		t.Collectives = make([]Collective, 0, collectives)
	}
	if vectors > 0 {
		t.Vectors = make([]VectorLoop, 0, vectors)
	}
	for i := range regions {
		t.accumulate(&regions[i].Counts)
	}
	return t
}

// addNote appends a note once.
func (r *Report) addNote(n string) {
	for _, x := range r.Notes {
		if x == n {
			return
		}
	}
	r.Notes = append(r.Notes, n)
}

// footprint sizes every array of one rank and finds the smallest cache
// level that holds it.
func footprint(k *lang.Checked, h cache.Hierarchy) Footprint {
	var f Footprint
	for _, a := range k.Info.Arrays {
		n := int64(a.Elem.Size())
		for _, d := range a.Dims {
			n *= d
		}
		f.Arrays = append(f.Arrays, ArrayFootprint{Name: a.Name, Elem: a.Elem.String(), Dims: a.Dims, Bytes: n, Fits: fits(n, h)})
		f.Bytes += n
	}
	f.Fits = fits(f.Bytes, h)
	return f
}

// fits names the smallest level of h that holds n bytes.
func fits(n int64, h cache.Hierarchy) string {
	for _, l := range h {
		if n <= int64(l.Size) {
			return l.Name
		}
	}
	return "memory"
}

// isNonAffine reports whether err says that a closed form failed.
func isNonAffine(err error) bool { return errors.Is(err, errNonAffine) }

// floorRat and ceilRat round exact rationals.
func floorRat(x *big.Rat) *big.Int {
	q := new(big.Int)
	m := new(big.Int)
	q.DivMod(x.Num(), x.Denom(), m)
	return q
}

func ceilRat(x *big.Rat) *big.Int {
	q := floorRat(x)
	if !x.IsInt() {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// cacheMemo reuses the cache-line model between rank classes whose memory
// references are the same: a corner and an interior rank of a halo exchange
// differ in their messages, not in the loops over their arrays, and the
// model is the costliest part of an analysis.
type cacheMemo map[string]map[string][]CacheLines

// lines fills the cache lines of every region of rt, from a class with the
// same references when there is one.
func (m cacheMemo) lines(ra *rankAnalysis, rt *regionTotals, h cache.Hierarchy) error {
	if len(h) == 0 {
		return nil
	}
	key := refsKey(rt)
	if prev, ok := m[key]; ok {
		for name, lines := range prev {
			rt.get(name).Cache = append([]CacheLines(nil), lines...)
		}
		return nil
	}
	if err := ra.cacheLines(rt, h); err != nil {
		return err
	}
	saved := map[string][]CacheLines{}
	for name, c := range rt.counts {
		if len(c.Cache) > 0 {
			saved[name] = append([]CacheLines(nil), c.Cache...)
		}
	}
	m[key] = saved
	return nil
}

// refsKey describes what the cache model reads of a class: every region's
// iterations, vector loops and array references with their counts.
func refsKey(rt *regionTotals) string {
	var b []byte
	for _, name := range rt.order {
		c, ok := rt.counts[name]
		if !ok {
			continue
		}
		b = append(append(b, name...), '|')
		b = append(append(b, c.Iterations.Exact()...), '|')
		for _, r := range c.Refs {
			b = append(append(b, r.Pos...), ' ')
			b = append(strconv.AppendBool(b, r.Store), ' ')
			b = append(append(b, r.Hoisted...), ' ')
			b = append(append(b, r.Count.Exact()...), '|')
		}
		for _, v := range c.Vectors {
			b = append(append(b, v.Stmt...), ' ')
			b = append(append(b, v.Entries.Exact()...), ' ')
			b = append(append(b, v.Iterations.Exact()...), '|')
		}
		b = append(b, '\n')
	}
	return string(b)
}

// atomValue computes an atom's value for rank r with the symbol values env.
func (ra *rankAnalysis) atomValue(a atom, r int64, env map[string]*big.Rat) (*big.Rat, bool) {
	if a.expr != nil {
		x, err := ra.k.Eval(a.expr, &lang.Env{Rank: r})
		if err != nil || x.Rat() == nil {
			return nil, false
		}
		return x.Rat(), true
	}
	x, err := a.poly.Eval(env)
	if err != nil {
		return nil, false
	}
	if a.up {
		return new(big.Rat).SetInt(ceilRat(x)), true
	}
	return new(big.Rat).SetInt(floorRat(x)), true
}

// decisionHolds reports whether a recorded decision comes out the same for
// the rank of lenv (symbol values env). A peer outside the ranks does not
// hold: the rank's own analysis must report it.
func (ra *rankAnalysis) decisionHolds(d decision, lenv *lang.Env, env map[string]*big.Rat) bool {
	var holds bool
	switch {
	case d.hasPoly:
		v, err := d.poly.Eval(env)
		if err != nil {
			return false
		}
		holds = v.Sign() >= 0
	case d.peer:
		v, err := ra.k.EvalInt(d.expr, lenv)
		if err != nil || v < -1 || v >= ra.k.NumRanks() {
			return false
		}
		holds = v >= 0
	default:
		v, err := ra.k.Eval(d.expr, lenv)
		if err != nil {
			return false
		}
		holds = v.Bool()
	}
	return holds == d.holds
}
