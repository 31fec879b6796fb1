package analyze

import (
	"errors"
	"fmt"
	"math/big"
	"math/bits"
	"slices"
	"sort"

	"perfc/analyze/symbolic"
	"perfc/lang"
)

// This file is the summation engine: it turns "a leaf statement inside a
// chain of loops, ifs, repeats and prob branches" into the exact number of
// times the leaf runs (or the sum of a per-execution weight such as message
// bytes), as a polynomial in the kernel's symbols. Loops are eliminated
// innermost first with Faulhaber sums; lower and upper bounds that are
// maxima and minima of affine forms (from min/max, from static ifs on loop
// indices) are split into disjoint pieces, Fourier–Motzkin style, and a piece
// whose remaining constraints mention no loop index is decided at once with
// the concrete parameter values. Where a bound or condition is not affine
// in a loop index, the outer levels are enumerated concretely instead, and
// the result says so.

// levelKind says what a level of a chain is.
type levelKind uint8

const (
	loopLevel   levelKind = iota // for i in lo..hi step s
	repeatLevel                  // repeat n
	guardLevel                   // one branch of a static if
	probLevel                    // one branch of a data if: weight p or 1-p
)

// level is one construct enclosing a leaf. Chains list levels outermost
// first.
type level struct {
	kind   levelKind
	loop   *lang.ForStmt    // loopLevel
	index  *lang.Object     // loopLevel: the loop's index
	repeat *lang.RepeatStmt // repeatLevel
	cond   *lang.IfStmt     // guardLevel
	then   bool             // guardLevel: the leaf is in the then branch
	prob   *big.Rat         // probLevel: the branch's weight
}

// item is a partial sum: val counts only where every guard is ≥ 0. Guards
// mention loop indices that are not yet summed; those that do not are
// decided as soon as they appear.
type item struct {
	guards []symbolic.Poly
	val    symbolic.Poly
}

// errNonAffine marks a bound or condition the engine cannot sum in closed
// form; the caller then enumerates the outer levels.
var errNonAffine = errors.New("not affine")

// nonAffineError says which expression defeated the closed form.
type nonAffineError struct {
	pos  lang.Position
	what string
}

func (e *nonAffineError) Error() string { return fmt.Sprintf("%s: %s is not affine", e.pos, e.what) }
func (e *nonAffineError) Unwrap() error { return errNonAffine }

// DefaultMaxEnumerated is the budget of concrete iterations one analysis
// may enumerate where closed forms fail (Options.MaxEnumerated), over every
// leaf and every rank analysed: an iteration costs 0.45–1.2 µs (exact
// arithmetic, evaluated conditions), so this is a few seconds, and a
// non-affine kernel at a huge size, or one whose ranks must each enumerate,
// gives an error instead of a long silence. Every example enumerates fewer
// than 200,000 iterations.
const DefaultMaxEnumerated = 5_000_000

// sumResult is the engine's answer for one leaf and weight.
type sumResult struct {
	value      *big.Rat
	formula    symbolic.Poly
	symbolic   bool   // formula is a closed form in the symbols
	enumerated string // non-empty when levels were enumerated: why
}

// weight is what one execution of a leaf contributes: a polynomial in the
// symbols and enclosing loop indices, or, when concrete is set, a function
// of the concrete iteration (which forces enumeration).
type weight struct {
	poly     symbolic.Poly
	concrete func(env *lang.Env) (*big.Rat, error)
	why      string // for concrete weights: what made them concrete
	// id and reads, when set, say that the concrete weight depends only on
	// the loop indices read by these nodes: its traced evaluations are kept
	// once per distinct value of those indices.
	id    string
	reads []lang.Node
	// integer, when set, is the concrete weight as an integer: cheaper to
	// replay on other ranks (concrete must agree with it).
	integer func(env *lang.Env) (int64, error)
}

// sumChain sums w over every execution of a leaf enclosed by chain.
func (ra *rankAnalysis) sumChain(chain []level, w weight) (sumResult, error) {
	items := []item{{val: w.poly}}
	if w.concrete != nil {
		items = []item{{val: symbolic.Int(1)}} // multiplies the concrete weight
	}
	k := len(chain) - 1
	why := w.why
	if w.concrete == nil {
		for ; k >= 0; k-- {
			next, err := ra.symbolicLevel(chain[k], items)
			if err != nil {
				var na *nonAffineError
				if errors.As(err, &na) {
					why = na.Error()
					break
				}
				return sumResult{}, err
			}
			items = next
		}
		if k < 0 {
			total := symbolic.Poly{}
			for _, it := range items {
				if len(it.guards) != 0 {
					return sumResult{}, fmt.Errorf("internal error: undecided guards %v", it.guards)
				}
				total = total.Add(it.val)
			}
			v, err := total.Eval(ra.env)
			if err != nil {
				return sumResult{}, err
			}
			ra.noteRankFormula(total)
			return sumResult{value: v, formula: total, symbolic: true}, nil
		}
	} else if w.reads != nil {
		// The weight depends only on the loop indices its nodes read: the
		// levels inside the innermost such loop are counted in closed form,
		// and only the levels down to it are enumerated.
		slots := ra.p.slotsRead(w.reads)
		last := -1
		for i, l := range chain {
			if l.kind == loopLevel && slices.Contains(slots, l.index.Slot) {
				last = i
			}
		}
		var err error
		if items, k, err = ra.innerSum(chain, last); err != nil {
			return sumResult{}, err
		}
	}
	// Enumerate chain[0..k] concretely; items are polys in their indices.
	// The enumeration stays shareable between ranks when the items do not
	// depend on the rank: every rank-dependent evaluation it makes is
	// recorded (traced), and another rank that evaluates them alike has the
	// same counts.
	ra.enumerated = true
	for _, it := range items {
		if ra.rankDependentPoly(it.val) {
			ra.untraceable = true
		}
		for _, g := range it.guards {
			if ra.rankDependentPoly(g) {
				ra.untraceable = true
			}
		}
	}
	en := ra.newEnumerator(chain[:k+1], items, w)
	env := &lang.Env{Rank: ra.rank, Index: make([]int64, ra.k.Info.NumSlots)}
	var vars map[string]*big.Rat // the items' symbols and indices, when they vary
	if en.inner == nil || w.concrete == nil {
		vars = ra.cloneEnv()
	}
	if err := en.walk(0, env, vars, big.NewRat(1, 1)); err != nil {
		return sumResult{}, err
	}
	total := en.sum()
	return sumResult{value: total, formula: symbolic.Const(total), enumerated: why}, nil
}

// innerKey identifies the closed-form sum of one execution over the levels
// of a chain inside level last.
type innerKey struct {
	chain chainKey
	last  int
}

// innerSum is such a sum, kept for every rank and weight that needs it.
type innerSum struct {
	items []item
	k     int
}

// innerSum sums one execution in closed form over the levels of chain
// inside level last, as far as they are affine, and returns the partial
// sums and the innermost level left to enumerate. Every enumerated peer and
// payload of a sweep sums the same inner levels, on every rank: the sum is
// kept in the plan when it made no rank-dependent decision.
func (ra *rankAnalysis) innerSum(chain []level, last int) ([]item, int, error) {
	var key innerKey
	if len(chain) > 0 {
		key = innerKey{chainKey{&chain[0], len(chain)}, last}
		if s, ok := ra.p.innerSums[key]; ok && ra.bound(s.items, chain[:s.k+1]) {
			return s.items, s.k, nil
		}
	}
	decisions, atoms := len(ra.decisions), len(ra.atoms)
	items := []item{{val: symbolic.Int(1)}}
	k := len(chain) - 1
	for ; k > last; k-- {
		next, err := ra.symbolicLevel(chain[k], items)
		if err != nil {
			if isNonAffine(err) {
				break
			}
			return nil, 0, err
		}
		items = next
	}
	if len(chain) == 0 || len(ra.decisions) != decisions || len(ra.atoms) != atoms {
		return items, k, nil
	}
	for _, it := range items {
		if ra.rankDependentPoly(it.val) || slices.ContainsFunc(it.guards, ra.rankDependentPoly) {
			return items, k, nil
		}
	}
	if ra.p.innerSums == nil {
		ra.p.innerSums = map[innerKey]innerSum{}
	}
	ra.p.innerSums[key] = innerSum{items: items, k: k}
	return items, k, nil
}

// bound reports whether every symbol the items mention has a value for
// this rank, loop indices of outer aside (an atom another rank made may be
// unknown here).
func (ra *rankAnalysis) bound(items []item, outer []level) bool {
	unbound := func(v string) bool {
		if _, ok := ra.env[v]; ok {
			return false
		}
		return !slices.ContainsFunc(outer, func(l level) bool { return l.kind == loopLevel && l.index.Name == v })
	}
	for _, it := range items {
		if it.val.AnyVar(unbound) || slices.ContainsFunc(it.guards, func(g symbolic.Poly) bool { return g.AnyVar(unbound) }) {
			return false
		}
	}
	return true
}

// symbolicLevel eliminates one level from every item.
func (ra *rankAnalysis) symbolicLevel(l level, items []item) ([]item, error) {
	switch l.kind {
	case probLevel:
		out := make([]item, len(items))
		for i, it := range items {
			out[i] = item{guards: it.guards, val: it.val.Scale(l.prob)}
		}
		return out, nil
	case repeatLevel:
		counts, err := ra.pieces(l.repeat.Count)
		if err != nil {
			return nil, err
		}
		var out []item
		for _, it := range items {
			for _, c := range counts {
				if g, ok := ra.decide(append(clonePolys(it.guards), c.guards...)); ok {
					out = append(out, item{guards: g, val: it.val.Mul(c.val)})
				}
			}
		}
		return out, nil
	case guardLevel:
		sets, err := ra.condSets(l.cond.Cond, !l.then)
		if err != nil {
			return nil, err
		}
		var out []item
		for _, it := range items {
			for _, s := range sets {
				if g, ok := ra.decide(append(clonePolys(it.guards), s...)); ok {
					out = append(out, item{guards: g, val: it.val})
				}
			}
		}
		return out, nil
	}
	return ra.sumLoop(l, items)
}

// sumLoop eliminates a for loop's index from every item: the index runs over
// the loop's range intersected with the item's guards on it, split into
// pieces where one lower bound is the largest and one upper bound the
// smallest.
func (ra *rankAnalysis) sumLoop(l level, items []item) ([]item, error) {
	v := l.index.Name
	los, err := ra.pieces(l.loop.Lo)
	if err != nil {
		return nil, err
	}
	his, err := ra.pieces(l.loop.Hi)
	if err != nil {
		return nil, err
	}
	step := int64(1)
	if l.loop.Step != nil {
		step, err = ra.k.EvalInt(l.loop.Step, &lang.Env{Rank: ra.rank})
		if err != nil {
			return nil, err
		}
		if step < 1 {
			return nil, ra.errorf(l.loop.Step, "loop step %d is not positive", step)
		}
	}
	var out []item
	for _, it := range items {
		for _, lo := range los {
			for _, hi := range his {
				guards := append(append(clonePolys(it.guards), lo.guards...), hi.guards...)
				guards, ok := ra.decide(guards)
				if !ok {
					continue
				}
				pieces, err := ra.sumRange(l, v, lo.val, hi.val, step, item{guards: guards, val: it.val})
				if err != nil {
					return nil, err
				}
				out = append(out, pieces...)
			}
		}
	}
	return out, nil
}

// sumRange sums one item over v = lo, lo+step, … < hi.
func (ra *rankAnalysis) sumRange(l level, v string, lo, hi symbolic.Poly, step int64, it item) ([]item, error) {
	// With a step, count with t: v = lo + step·t, t = 0 … ⌊(hi−1−lo)/step⌋.
	sv := v
	val := it.val
	guards := it.guards
	var lowers, uppers []symbolic.Poly
	if step == 1 {
		lowers = []symbolic.Poly{lo}
		uppers = []symbolic.Poly{hi.Sub(symbolic.Int(1))}
	} else {
		sv = v + "'"
		sub := lo.Add(symbolic.Int(step).Mul(symbolic.Var(sv)))
		val = val.Substitute(v, sub)
		ng := make([]symbolic.Poly, len(guards))
		for i, g := range guards {
			ng[i] = g.Substitute(v, sub)
		}
		guards = ng
		top, err := ra.floorDiv(hi.Sub(symbolic.Int(1)).Sub(lo), step, l.loop.Hi)
		if err != nil {
			return nil, err
		}
		lowers = []symbolic.Poly{{}}
		uppers = []symbolic.Poly{top}
	}
	var rest []symbolic.Poly
	for _, g := range guards {
		if !g.Has(sv) {
			rest = append(rest, g)
			continue
		}
		a, b, ok := symbolic.Affine(g, sv)
		slope, isConst := a.Constant()
		if !ok || !isConst || slope.Sign() == 0 {
			return nil, &nonAffineError{pos: ra.position(l.loop), what: fmt.Sprintf("condition %s >= 0 in %s", g, v)}
		}
		// a·sv + b ≥ 0: sv ≥ ⌈−b/a⌉ for a > 0, sv ≤ ⌊b/−a⌋ for a < 0.
		bound, err := ra.roundQuotient(b.Neg(), slope, slope.Sign() > 0, l.loop)
		if err != nil {
			return nil, err
		}
		if slope.Sign() > 0 {
			lowers = appendUnique(lowers, bound)
		} else {
			uppers = appendUnique(uppers, bound)
		}
	}
	var out []item
	for ai, la := range lowers {
		for bi, ub := range uppers {
			gs := clonePolys(rest)
			for ci, lc := range lowers {
				if ci == ai {
					continue
				}
				d := la.Sub(lc) // la is the largest: la ≥ lc, strictly for earlier ones
				if ci < ai {
					d = d.Sub(symbolic.Int(1))
				}
				gs = append(gs, d)
			}
			for di, ud := range uppers {
				if di == bi {
					continue
				}
				d := ud.Sub(ub) // ub is the smallest: ub ≤ ud, strictly for earlier ones
				if di < bi {
					d = d.Sub(symbolic.Int(1))
				}
				gs = append(gs, d)
			}
			gs = append(gs, ub.Sub(la)) // non-empty
			gs, ok := ra.decide(gs)
			if !ok {
				continue
			}
			out = append(out, item{guards: gs, val: symbolic.Sum(val, sv, la, ub.Add(symbolic.Int(1)))})
		}
	}
	return out, nil
}

// roundQuotient returns ⌈p/q⌉ (up) or ⌊p/q⌋ for a constant q. When the
// quotient is not a polynomial with integer values, a p that mentions only
// symbols becomes an atom; one that mentions loop indices is not affine.
func (ra *rankAnalysis) roundQuotient(p symbolic.Poly, q *big.Rat, up bool, at lang.Node) (symbolic.Poly, error) {
	quo := p.Scale(new(big.Rat).Inv(q))
	var r symbolic.Poly
	var ok bool
	if up {
		r, ok = symbolic.Ceil(quo)
	} else {
		r, ok = symbolic.Floor(quo)
	}
	if ok {
		return r, nil
	}
	if ra.onlySymbols(quo) {
		return ra.roundAtom(quo, up)
	}
	return symbolic.Poly{}, &nonAffineError{pos: ra.position(at), what: fmt.Sprintf("rounding of %s", quo)}
}

// floorDiv returns ⌊p/step⌋ (see roundQuotient).
func (ra *rankAnalysis) floorDiv(p symbolic.Poly, step int64, at lang.Node) (symbolic.Poly, error) {
	return ra.roundQuotient(p, new(big.Rat).SetInt64(step), false, at)
}

// decide drops every guard that mentions no loop index after checking it
// with the concrete values; ok is false when one of them fails, so the
// piece is empty. Duplicate guards are dropped too.
func (ra *rankAnalysis) decide(guards []symbolic.Poly) ([]symbolic.Poly, bool) {
	var out []symbolic.Poly
	for _, g := range guards {
		if ra.onlySymbols(g) {
			v, err := g.Eval(ra.env)
			if err != nil {
				// Every symbol has a value; an error here is a bug.
				panic(fmt.Sprintf("analyze: deciding %s: %v", g, err))
			}
			holds := v.Sign() >= 0
			ra.record(decision{poly: g, holds: holds, hasPoly: true})
			if !holds {
				return nil, false
			}
			continue
		}
		out = appendUnique(out, g)
	}
	return out, true
}

// enumerator walks the outer levels of a chain concretely when the closed
// form failed, adding up the partial sums (items) at every iteration.
type enumerator struct {
	ra    *rankAnalysis
	chain []level
	items []item
	w     weight
	total *big.Rat
	// inner is the items' sum when it is the same at every iteration (no
	// guards, no outer loop index, only symbols of the rank), worked out
	// once; nil otherwise.
	inner *big.Rat
	// small accumulates integer weight × integer multiplier while it fits
	// an int64 (the usual case: a peer's message count over octants and
	// blocks); total takes the rest.
	small int64
	// slots are the loop-index slots the weight reads (w.reads).
	slots []int
	// indexes backs the index vectors of the traces the enumeration
	// records.
	indexes []int64
}

// newEnumerator prepares the enumeration of chain's levels with the items
// that sum the levels inside them.
func (ra *rankAnalysis) newEnumerator(chain []level, items []item, w weight) *enumerator {
	en := &enumerator{ra: ra, chain: chain, items: items, w: w, total: new(big.Rat)}
	if w.reads != nil {
		en.slots = ra.p.slotsRead(w.reads)
	}
	inner := new(big.Rat)
	for _, it := range items {
		if len(it.guards) != 0 || !ra.onlySymbols(it.val) {
			return en
		}
		v, err := it.val.Eval(ra.env)
		if err != nil {
			return en
		}
		inner.Add(inner, v)
	}
	en.inner = inner
	return en
}

// sum returns the enumeration's total.
func (en *enumerator) sum() *big.Rat {
	return en.total.Add(en.total, new(big.Rat).SetInt64(en.small))
}

// addInt adds n × m to the total, in int64 while it fits.
func (en *enumerator) addInt(n, m int64) {
	if hi, lo := bits.Mul64(uint64(abs64(n)), uint64(abs64(m))); hi == 0 && lo < 1<<62 {
		p := int64(lo)
		if (n < 0) != (m < 0) {
			p = -p
		}
		if s := en.small + p; (p >= 0 && s >= en.small) || (p < 0 && s < en.small) {
			en.small = s
			return
		}
	}
	en.total.Add(en.total, new(big.Rat).Mul(big.NewRat(n, 1), big.NewRat(m, 1)))
}

// abs64 returns |x| (math.MinInt64 stays negative, and then the product
// check in addInt fails, taking the exact path).
func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// walk enumerates level i and everything inside it with the weight mult
// accumulated so far.
func (en *enumerator) walk(i int, env *lang.Env, vars map[string]*big.Rat, mult *big.Rat) error {
	if i == len(en.chain) {
		return en.leaf(env, vars, mult)
	}
	l := en.chain[i]
	ra := en.ra
	switch l.kind {
	case probLevel:
		return en.walk(i+1, env, vars, ratMul(mult, l.prob))
	case guardLevel:
		v, err := ra.k.Eval(l.cond.Cond, env)
		if err != nil {
			return err
		}
		ra.trace(l.cond.Cond, env, valueKey(v))
		if v.Bool() != l.then {
			return nil
		}
		return en.walk(i+1, env, vars, mult)
	case repeatLevel:
		n, err := ra.k.EvalInt(l.repeat.Count, env)
		if err != nil {
			return err
		}
		ra.trace(l.repeat.Count, env, n)
		if n <= 0 {
			return nil
		}
		return en.walk(i+1, env, vars, ratMul(mult, symbolic.NewInt64Rat(n)))
	}
	lo, err := ra.k.EvalInt(l.loop.Lo, env)
	if err != nil {
		return err
	}
	hi, err := ra.k.EvalInt(l.loop.Hi, env)
	if err != nil {
		return err
	}
	ra.trace(l.loop.Lo, env, lo)
	ra.trace(l.loop.Hi, env, hi)
	step := int64(1)
	if l.loop.Step != nil {
		if step, err = ra.k.EvalInt(l.loop.Step, env); err != nil {
			return err
		}
	}
	slot := l.index.Slot
	name := l.index.Name
	budget := ra.p.enumBudget()
	if hi > lo && (hi-lo)/step > budget-ra.p.enumerated {
		return ra.enumError(l, budget, (hi-lo+step-1)/step)
	}
	for x := lo; x < hi; x += step {
		ra.p.enumerated++
		if ra.p.enumerated > budget {
			return ra.enumError(l, budget, (hi-lo+step-1)/step)
		}
		env.Index[slot] = x
		if vars != nil {
			vars[name] = symbolic.NewInt64Rat(x)
		}
		if err := en.walk(i+1, env, vars, mult); err != nil {
			return err
		}
	}
	delete(vars, name)
	return nil
}

// enumBudget returns the iterations this analysis may enumerate in all.
func (p *plan) enumBudget() int64 {
	if p.maxEnumerated > 0 {
		return p.maxEnumerated
	}
	return DefaultMaxEnumerated
}

// enumError reports a loop whose enumeration would pass the budget: it
// names the loop, says what the budget went on, and the two ways out.
func (ra *rankAnalysis) enumError(l level, budget, trip int64) error {
	return ra.errorf(l.loop, "cannot count this loop nest in closed form, and enumerating it would pass the budget of %d iterations "+
		"(this loop alone runs %d times here, on rank %d; %d iterations were enumerated before it, on every rank analysed); "+
		"make its bounds and conditions affine in the loop indices, or raise the budget with --max-enumerated",
		budget, trip, ra.rank, ra.p.enumerated)
}

// leaf adds the partial sums at one concrete iteration of the outer levels.
func (en *enumerator) leaf(env *lang.Env, vars map[string]*big.Rat, mult *big.Rat) error {
	if en.w.concrete != nil {
		// The inner levels summed in closed form multiply the weight.
		inner := en.inner
		if inner == nil {
			var err error
			if inner, err = en.itemsSum(vars); err != nil {
				return err
			}
		}
		if inner.Sign() == 0 {
			return nil
		}
		if en.w.integer != nil {
			return en.integerLeaf(env, mult, inner)
		}
		v, err := en.w.concrete(env)
		if err != nil {
			return err
		}
		en.traceWeight(env, traced{weight: en.w.concrete, value: new(big.Rat).Set(v)})
		en.total.Add(en.total, new(big.Rat).Mul(v, new(big.Rat).Mul(mult, inner)))
		return nil
	}
next:
	for _, it := range en.items {
		for _, g := range it.guards {
			v, err := g.Eval(vars)
			if err != nil {
				return err
			}
			if v.Sign() < 0 {
				continue next
			}
		}
		v, err := it.val.Eval(vars)
		if err != nil {
			return err
		}
		en.total.Add(en.total, v.Mul(v, mult))
	}
	return nil
}

// integerLeaf adds an integer weight at one iteration, times the outer
// multiplier and the inner sum.
func (en *enumerator) integerLeaf(env *lang.Env, mult, inner *big.Rat) error {
	n, err := en.w.integer(env)
	if err != nil {
		return err
	}
	en.traceWeight(env, traced{integer: en.w.integer, key: n})
	if n == 0 {
		return nil
	}
	if mult.IsInt() && inner.IsInt() && mult.Num().IsInt64() && inner.Num().IsInt64() && mult.Num().Int64() == 1 {
		en.addInt(n, inner.Num().Int64())
		return nil
	}
	en.total.Add(en.total, new(big.Rat).Mul(big.NewRat(n, 1), new(big.Rat).Mul(mult, inner)))
	return nil
}

// traceWeight records the weight's evaluation at this iteration for replay
// on other ranks, once per distinct value of the indices it reads.
func (en *enumerator) traceWeight(env *lang.Env, t traced) {
	ra := en.ra
	if ra.traceFull() {
		return
	}
	if en.w.reads != nil && !ra.firstTraceSlots(en.w.id, nil, en.slots, env) {
		return
	}
	// The indices of every trace share one growing array.
	start := len(en.indexes)
	en.indexes = append(en.indexes, env.Index...)
	t.index = en.indexes[start:len(en.indexes):len(en.indexes)]
	ra.traced = append(ra.traced, t)
	ra.tracedN++
}

// clonePolys returns a copy of ps that can be appended to freely.
func clonePolys(ps []symbolic.Poly) []symbolic.Poly {
	return append([]symbolic.Poly(nil), ps...)
}

// appendUnique appends p unless an equal poly is already in ps.
func appendUnique(ps []symbolic.Poly, p symbolic.Poly) []symbolic.Poly {
	for _, q := range ps {
		if q.Equal(p) {
			return ps
		}
	}
	return append(ps, p)
}

// maxTraced bounds the evaluations an enumeration records for replay on
// other ranks; beyond it every rank is analysed on its own.
const maxTraced = 100_000

// traced is one rank-dependent evaluation made while enumerating: an
// expression (or a concrete weight) at a concrete iteration, and its value.
type traced struct {
	// sub, when not nil, stands for a whole list recorded by another sum
	// (key is then its number of evaluations); see adoptTraces.
	sub     []traced
	expr    lang.Expr
	weight  func(env *lang.Env) (*big.Rat, error)
	integer func(env *lang.Env) (int64, error) // the weight as an integer (key holds its value)
	index   []int64
	key     int64    // expr: the integer value, or 0/1 for a bool
	value   *big.Rat // weight
}

// trace records the evaluation of a rank-dependent expression, once per
// distinct value of the loop indices it reads.
func (ra *rankAnalysis) trace(e lang.Expr, env *lang.Env, key int64) {
	if ra.k.Info.Deps[e]&lang.DepRank == 0 || ra.traceFull() || !ra.firstTrace("", e, []lang.Node{e}, env) {
		return
	}
	ra.traced = append(ra.traced, traced{expr: e, index: append([]int64(nil), env.Index...), key: key})
	ra.tracedN++
}

// traceFull reports whether nothing more need be traced: the sum being
// enumerated cannot be replayed (untraceable), or the rank has traced
// maxTraced evaluations, which makes it so. It is asked before the set of
// evaluations already traced grows: past the limit that set kept growing
// by one key per iteration, about 1 GB per rank for a nest of 2 million
// iterations whose condition reads the rank.
func (ra *rankAnalysis) traceFull() bool {
	if ra.tracedN >= maxTraced {
		ra.untraceable = true
	}
	return ra.untraceable
}

// adoptTraces makes another sum's traced evaluations, which this rank
// has just replayed, part of this rank's: other ranks are matched against
// them too. A long list is kept as one entry that refers to it, because
// copying every evaluation into every rank that reuses a sum was a tenth
// of what a wavefront's analysis allocated. The lists are never changed
// once recorded.
func (ra *rankAnalysis) adoptTraces(ts []traced) {
	if len(ts) <= 2 {
		ra.traced = append(ra.traced, ts...)
		ra.tracedN += flatLen(ts)
		return
	}
	n := flatLen(ts)
	ra.traced = append(ra.traced, traced{sub: ts, key: int64(n)})
	ra.tracedN += n
}

// flatLen returns the number of evaluations in ts, counting those of the
// lists it refers to.
func flatLen(ts []traced) int {
	n := 0
	for _, t := range ts {
		if t.sub != nil {
			n += int(t.key)
		} else {
			n++
		}
	}
	return n
}

// valueKey turns a bool or integer value into a comparable key.
func valueKey(v lang.Value) int64 {
	if v.Kind() == lang.BoolValue {
		if v.Bool() {
			return 1
		}
		return 0
	}
	n, _ := v.Int64()
	return n
}

// replay reports whether rank r evaluates every traced expression alike.
func (ra *rankAnalysis) replay(r int64) bool {
	if ra.untraceable {
		return false
	}
	return replayTracesAt(ra.k, ra.traced, r)
}

// replayTraces reports whether this rank evaluates the traced expressions
// of another rank alike.
func (ra *rankAnalysis) replayTraces(ts []traced) bool {
	return replayTracesAt(ra.k, ts, ra.rank)
}

// replayTracesAt reports whether rank r evaluates every traced expression
// as it was recorded.
func replayTracesAt(k *lang.Checked, ts []traced, r int64) bool {
	env := &lang.Env{Rank: r}
	for _, t := range ts {
		if t.sub != nil {
			if !replayTracesAt(k, t.sub, r) {
				return false
			}
			continue
		}
		env.Index = t.index
		if t.integer != nil {
			v, err := t.integer(env)
			if err != nil || v != t.key {
				return false
			}
			continue
		}
		if t.weight != nil {
			v, err := t.weight(env)
			if err != nil || v.Cmp(t.value) != 0 {
				return false
			}
			continue
		}
		v, err := k.Eval(t.expr, env)
		if err != nil || valueKey(v) != t.key {
			return false
		}
	}
	return true
}

// traceKey identifies one traced evaluation: what was evaluated and the
// values of the loop indices it reads (up to 8; more are not deduplicated).
type traceKey struct {
	id   string
	expr lang.Expr
	vals [8]int64
}

// firstTrace reports whether the evaluation (id or expr, at the values of
// the indices that reads read) has not been traced yet, and marks it.
func (ra *rankAnalysis) firstTrace(id string, e lang.Expr, reads []lang.Node, env *lang.Env) bool {
	return ra.firstTraceSlots(id, e, ra.p.slotsRead(reads), env)
}

// firstTraceSlots is firstTrace with the slots read already known.
func (ra *rankAnalysis) firstTraceSlots(id string, e lang.Expr, slots []int, env *lang.Env) bool {
	if len(slots) > 8 {
		return true
	}
	key := traceKey{id: id, expr: e}
	for i, s := range slots {
		key.vals[i] = env.Index[s]
	}
	return ra.traceSeen.add(key)
}

// traceSet is a set of trace keys. A rank checks a few dozen keys, in
// many small sets (one per sum and per region run, merged upwards), so the
// set is a slice searched in order until it is large; maps of these wide
// keys cost more to create and grow than the searches they saved.
type traceSet struct {
	keys  []traceKey
	index map[traceKey]struct{} // all of keys, once there are more than maxTraceScan
}

// maxTraceScan is the size up to which a traceSet is searched in order.
const maxTraceScan = 32

// add adds k, reporting whether it was new.
func (s *traceSet) add(k traceKey) bool {
	if s.has(k) {
		return false
	}
	if s.keys == nil {
		s.keys = make([]traceKey, 0, 8) // a sum reads a few
	}
	s.keys = append(s.keys, k)
	if s.index != nil {
		s.index[k] = struct{}{}
	} else if len(s.keys) > maxTraceScan {
		s.index = make(map[traceKey]struct{}, 2*len(s.keys))
		for _, x := range s.keys {
			s.index[x] = struct{}{}
		}
	}
	return true
}

// has reports whether k is in the set.
func (s *traceSet) has(k traceKey) bool {
	if s.index != nil {
		_, ok := s.index[k]
		return ok
	}
	for i := range s.keys {
		if s.keys[i] == k {
			return true
		}
	}
	return false
}

// merge adds every key of o.
func (s *traceSet) merge(o traceSet) {
	if len(s.keys) == 0 {
		*s = o
		return
	}
	if s.index == nil {
		s.keys = slices.Grow(s.keys, len(o.keys))
	}
	for _, k := range o.keys {
		s.add(k)
	}
}

// slotsRead returns the loop-index slots the nodes read, directly or
// through lets, sorted; cached for one or two nodes (a peer and its
// payload), as the plan is shared and enumerations ask at every iteration.
func (p *plan) slotsRead(nodes []lang.Node) []int {
	var key [2]lang.Node
	cacheable := len(nodes) <= len(key)
	if cacheable {
		copy(key[:], nodes)
		if s, ok := p.slotCache[key]; ok {
			return s
		}
	}
	seen := map[int]bool{}
	var visit func(n lang.Node)
	visit = func(n lang.Node) {
		lang.Inspect(n, func(x lang.Node) bool {
			if id, ok := x.(*lang.Ident); ok {
				if o := p.k.Info.Uses[id]; o != nil {
					switch {
					case o.Kind == lang.IndexObj:
						seen[o.Slot] = true
					case o.Kind == lang.LetObj && o.Expr != nil && o.Dep&lang.DepIndex != 0:
						visit(o.Expr)
					}
				}
			}
			return true
		})
	}
	for _, n := range nodes {
		if n != nil {
			visit(n)
		}
	}
	out := make([]int, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Ints(out)
	if cacheable {
		if p.slotCache == nil {
			p.slotCache = map[[2]lang.Node][]int{}
		}
		p.slotCache[key] = out
	}
	return out
}

// itemsSum adds the partial sums whose guards hold at vars.
func (en *enumerator) itemsSum(vars map[string]*big.Rat) (*big.Rat, error) {
	total := new(big.Rat)
next:
	for _, it := range en.items {
		for _, g := range it.guards {
			v, err := g.Eval(vars)
			if err != nil {
				return nil, err
			}
			if v.Sign() < 0 {
				continue next
			}
		}
		v, err := it.val.Eval(vars)
		if err != nil {
			return nil, err
		}
		total.Add(total, v)
	}
	return total, nil
}
