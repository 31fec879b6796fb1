package analyze

import (
	"fmt"
	"math/big"

	"perfc/analyze/symbolic"
	"perfc/lang"
)

// Ranges of alike ranks. Matching ranks to a class one by one costs some
// 80 ns per rank even when every rank is alike: a billion ranks took 80 s.
// Most rank-dependent decisions are comparisons of affine functions of the
// rank (`if rank < P - 1`, `if rank == 0`, a peer `rank + 1` being none or
// not), which keep their value on whole ranges of ranks. A class whose
// decisions are all of this kind takes the whole range around a rank at
// once; a kernel that never reads the rank is one range.

// rankSpan is the ranks lo … hi inclusive.
type rankSpan struct{ lo, hi int64 }

// alikeThrough returns the last rank h ≥ r (at most last) such that every
// rank r … h makes the decisions of the class, which rank r makes. It is r
// when that cannot be shown without trying the ranks one by one, and why
// then says what stands in the way (for the budget's error).
func (c *classState) alikeThrough(r, last int64) (h int64, why string, at lang.Expr) {
	ra := c.ra
	switch {
	case !c.shareable || ra.untraceable:
		return r, "the ranks' counts differ in ways only an analysis of each rank shows (a closed form or an enumeration depends on the rank)", nil
	case ra.tracedN > 0:
		return r, "an enumerated loop nest evaluates rank-dependent bounds or conditions", nil
	}
	for _, a := range ra.atoms {
		if ra.rankSymbols[a.name] {
			return r, "a rank-dependent value is not affine in the rank", a.expr
		}
	}
	span, at, ok := ra.decisionsSpan(r, allRanks)
	if !ok {
		if _, _, grid := ra.k.Grid(); grid {
			// Decisions on rx and ry are affine within a row.
			rows := rowOf(ra.k, r)
			if s, rowAt, rowOK := ra.decisionsSpan(r, rows); rowOK {
				span, at, ok = s.meet(rows), rowAt, true
			}
		}
	}
	if !ok {
		return r, "a rank-dependent decision is not an affine comparison of the rank", at
	}
	span = span.meet(rankSpan{r, last})
	switch {
	case span.lo > r || span.hi < r:
		// The decisions do not hold at r: a bug, but the rank by rank
		// path is always right.
		return r, "internal error: the class's decisions do not hold on its rank", nil
	case span.hi == r && r < last:
		return r, fmt.Sprintf("a rank-dependent decision changes from one rank to the next (as from rank %d to %d)", r, r+1), at
	}
	return span.hi, "", nil
}

// decisionsSpan returns the ranks around r on which every decision of the
// rank comes out as on r (rx and ry affine on rows) and the decision that
// ends them first; or, with ok false, the first decision for which that
// cannot be shown. Either is nil when the decision has no expression.
func (ra *rankAnalysis) decisionsSpan(r int64, rows rankSpan) (span rankSpan, at lang.Expr, ok bool) {
	span = allRanks
	for _, d := range ra.decisions {
		s, ok := ra.decisionSpan(d, r, rows)
		if !ok {
			return span, d.expr, false
		}
		if s.hi < span.hi {
			at = d.expr
		}
		span = span.meet(s)
	}
	return span, at, true
}

// extent is alikeThrough, tried less and less often while it finds no
// range: working a range out costs some microseconds, matching a rank
// 80 ns, and a decision such as rank % 2 == 0 makes every range one rank.
// After k misses in a row it skips 2^k - 1 ranks (at most 65,535), so that
// such a class costs little more than matching rank by rank, and a class
// whose ranges are long again is tried within that many ranks.
func (c *classState) extent(r, last int64) (h int64, why string, at lang.Expr) {
	if c.skip > 0 {
		c.skip--
		return r, c.why, c.at
	}
	h, why, at = c.alikeThrough(r, last)
	if h > r || h == last {
		c.misses = 0
		return h, why, at
	}
	c.misses++
	c.skip = 1<<min(c.misses, 16) - 1
	c.why, c.at = why, at
	return h, why, at
}

// meet returns the ranks in both spans.
func (s rankSpan) meet(t rankSpan) rankSpan {
	return rankSpan{max(s.lo, t.lo), min(s.hi, t.hi)}
}

// allRanks is a span that restricts nothing.
var allRanks = rankSpan{-1 << 62, 1 << 62}

// rowOf returns the ranks of rank r's row on a grid (where rx and ry are
// affine in the rank: rx = rank - ry·Px, ry fixed), or every rank.
func rowOf(k *lang.Checked, r int64) rankSpan {
	px, _, ok := k.Grid()
	if !ok || px <= 0 {
		return allRanks
	}
	lo := r / px * px
	return rankSpan{lo, lo + px - 1}
}

// decisionSpan returns the ranks around r on which decision d comes out as
// it does on r, when d is an affine comparison of the rank (within the
// span rows, where rx and ry are affine too).
func (ra *rankAnalysis) decisionSpan(d decision, r int64, rows rankSpan) (rankSpan, bool) {
	switch {
	case d.hasPoly:
		for v := range ra.rankSymbols {
			if v != "rank" && d.poly.Has(v) {
				return rankSpan{}, false
			}
		}
		a, b, ok := symbolic.Affine(d.poly, "rank")
		if !ok || ra.rankDependentPoly(a) || ra.rankDependentPoly(b) {
			return rankSpan{}, false
		}
		av, err := a.Eval(ra.env)
		if err != nil {
			return rankSpan{}, false
		}
		bv, err := b.Eval(ra.env)
		if err != nil {
			return rankSpan{}, false
		}
		return signSpan(av, bv, r), true
	case d.peer:
		// The peer is a rank (holds) or none on every rank of the span.
		if dx, dy, ok := ra.gridOffset(d.expr, r); ok {
			return ra.neighborSpan(dx, dy, d.holds, r, rows)
		}
		f, ok := ra.rankAffine(d.expr, r, rows)
		if !ok {
			return rankSpan{}, false
		}
		if d.holds {
			return f.between(0, ra.k.NumRanks()-1), true
		}
		return f.between(-1, -1), true
	}
	return ra.condSpan(d.expr, r, rows)
}

// gridOffset returns the offset of a grid neighbour peer (east … south,
// neighbor(dx, dy) with offsets the same on every rank).
func (ra *rankAnalysis) gridOffset(e lang.Expr, r int64) (dx, dy int64, ok bool) {
	switch e := e.(type) {
	case *lang.ParenExpr:
		return ra.gridOffset(e.X, r)
	case *lang.DirExpr:
		x, y := e.Dir.Offset()
		return int64(x), int64(y), true
	case *lang.CallExpr:
		if e.Fun.Name != "neighbor" || len(e.Args) != 2 {
			return 0, 0, false
		}
		var off [2]int64
		for i, a := range e.Args {
			if ra.k.Info.Deps[a]&(lang.DepRank|lang.DepIndex|lang.DepData) != 0 {
				return 0, 0, false
			}
			v, err := ra.k.EvalInt(a, &lang.Env{Rank: r})
			if err != nil {
				return 0, 0, false
			}
			off[i] = v
		}
		return off[0], off[1], true
	}
	return 0, 0, false
}

// neighborSpan returns the ranks of the row rows on which the neighbour at
// (dx, dy) is a rank (holds) or none as it is on rank r: the row's ranks whose
// rx + dx lies in the grid, or those on r's side of them.
func (ra *rankAnalysis) neighborSpan(dx, dy int64, holds bool, r int64, rows rankSpan) (rankSpan, bool) {
	px, py, ok := ra.k.Grid()
	if !ok || rows == allRanks {
		return rankSpan{}, false
	}
	if y := rows.lo/px + dy; y < 0 || y >= py {
		return rows, true // none on the whole row
	}
	// rx = rank - rows.lo; the neighbour exists for 0 ≤ rx + dx < Px.
	in := rankSpan{rows.lo - dx, rows.lo + px - 1 - dx}.meet(rows)
	if holds {
		return in, true
	}
	// None: r is left of the ranks that have the neighbour, or right.
	if r < in.lo {
		return rankSpan{rows.lo, in.lo - 1}, true
	}
	return rankSpan{in.hi + 1, rows.hi}, true
}

// condSpan returns ranks around r on which every comparison in the
// condition e keeps its value (so e does too).
func (ra *rankAnalysis) condSpan(e lang.Expr, r int64, rows rankSpan) (rankSpan, bool) {
	if ra.k.Info.Deps[e]&(lang.DepRank|lang.DepIndex|lang.DepData) == 0 {
		return allRanks, true
	}
	switch e := e.(type) {
	case *lang.ParenExpr:
		return ra.condSpan(e.X, r, rows)
	case *lang.UnaryExpr:
		if e.Op == lang.Not {
			return ra.condSpan(e.X, r, rows)
		}
	case *lang.BinaryExpr:
		switch {
		case e.Op == lang.LAnd || e.Op == lang.LOr:
			x, ok := ra.condSpan(e.X, r, rows)
			if !ok {
				return rankSpan{}, false
			}
			y, ok := ra.condSpan(e.Y, r, rows)
			return x.meet(y), ok
		case e.Op.IsComparison():
			x, ok := ra.rankAffine(e.X, r, rows)
			if !ok {
				return rankSpan{}, false
			}
			y, ok := ra.rankAffine(e.Y, r, rows)
			if !ok {
				return rankSpan{}, false
			}
			// A comparison's value depends only on the sign of X - Y.
			return signSpan(new(big.Rat).Sub(x.a, y.a), new(big.Rat).Sub(x.b, y.b), r).meet(x.span.meet(y.span)), true
		}
	}
	return rankSpan{}, false
}

// rankLinear is a·rank + b on the ranks of span (a floor or a remainder
// is affine only while its quotient stays the same).
type rankLinear struct {
	a, b *big.Rat
	span rankSpan
}

// linear makes a rankLinear valid on every rank.
func linear(a, b *big.Rat) rankLinear { return rankLinear{a, b, allRanks} }

// rankAffine returns an integer expression as a·rank + b on a range of
// ranks around r within rows, when it is made of constants, the rank (rx
// and ry on a grid), lets of such, sums, differences, negations, products
// and quotients by a constant, floor and ceil of such, and remainders by a
// positive constant.
func (ra *rankAnalysis) rankAffine(e lang.Expr, r int64, rows rankSpan) (rankLinear, bool) {
	info := ra.k.Info
	if info.Deps[e]&(lang.DepRank|lang.DepIndex|lang.DepData) == 0 {
		v, err := ra.k.Eval(e, &lang.Env{Rank: r})
		if err != nil || v.Rat() == nil {
			return rankLinear{}, false
		}
		return linear(new(big.Rat), v.Rat()), true
	}
	if info.Deps[e]&(lang.DepIndex|lang.DepData) != 0 {
		return rankLinear{}, false
	}
	switch e := e.(type) {
	case *lang.ParenExpr:
		return ra.rankAffine(e.X, r, rows)
	case *lang.Ident:
		return ra.rankAffineIdent(e, r, rows)
	case *lang.UnaryExpr:
		if e.Op == lang.Neg {
			x, ok := ra.rankAffine(e.X, r, rows)
			return rankLinear{new(big.Rat).Neg(x.a), new(big.Rat).Neg(x.b), x.span}, ok
		}
	case *lang.BinaryExpr:
		return ra.rankAffineBinary(e, r, rows)
	case *lang.CallExpr:
		if (e.Fun.Name == "floor" || e.Fun.Name == "ceil") && len(e.Args) == 1 {
			x, ok := ra.rankAffine(e.Args[0], r, rows)
			if !ok {
				return rankLinear{}, false
			}
			return x.round(r, e.Fun.Name == "ceil"), true
		}
	}
	return rankLinear{}, false
}

// rankAffineBinary is rankAffine of + - * / and %.
func (ra *rankAnalysis) rankAffineBinary(e *lang.BinaryExpr, r int64, rows rankSpan) (rankLinear, bool) {
	switch e.Op {
	case lang.Add, lang.Sub, lang.Mul, lang.Quo, lang.Rem:
	default:
		return rankLinear{}, false
	}
	x, ok := ra.rankAffine(e.X, r, rows)
	if !ok {
		return rankLinear{}, false
	}
	y, ok := ra.rankAffine(e.Y, r, rows)
	if !ok {
		return rankLinear{}, false
	}
	span := x.span.meet(y.span)
	switch e.Op {
	case lang.Add:
		return rankLinear{new(big.Rat).Add(x.a, y.a), new(big.Rat).Add(x.b, y.b), span}, true
	case lang.Sub:
		return rankLinear{new(big.Rat).Sub(x.a, y.a), new(big.Rat).Sub(x.b, y.b), span}, true
	case lang.Mul:
		switch {
		case x.a.Sign() == 0:
			return rankLinear{new(big.Rat).Mul(x.b, y.a), new(big.Rat).Mul(x.b, y.b), span}, true
		case y.a.Sign() == 0:
			return rankLinear{new(big.Rat).Mul(x.a, y.b), new(big.Rat).Mul(x.b, y.b), span}, true
		}
		return rankLinear{}, false
	}
	if y.a.Sign() != 0 || y.b.Sign() == 0 {
		return rankLinear{}, false
	}
	if e.Op == lang.Quo {
		// Exact (the checker demands it) or under floor or ceil.
		inv := new(big.Rat).Inv(y.b)
		return rankLinear{new(big.Rat).Mul(x.a, inv), new(big.Rat).Mul(x.b, inv), span}, true
	}
	// x % m = x - m·⌊x/m⌋ for a positive m (the Euclidean remainder).
	if y.b.Sign() < 0 || !y.b.IsInt() {
		return rankLinear{}, false
	}
	inv := new(big.Rat).Inv(y.b)
	q := rankLinear{new(big.Rat).Mul(x.a, inv), new(big.Rat).Mul(x.b, inv), span}.round(r, false)
	return rankLinear{x.a, new(big.Rat).Sub(x.b, new(big.Rat).Mul(y.b, q.b)), q.span}, true
}

// round returns ⌊f⌋ (⌈f⌉ when up) as a constant on the ranks around r
// where it keeps its value at r, within f's span.
func (f rankLinear) round(r int64, up bool) rankLinear {
	v := new(big.Rat).Add(new(big.Rat).Mul(f.a, big.NewRat(r, 1)), f.b)
	var q *big.Int
	if up {
		q = ceilRat(v)
	} else {
		q = floorRat(v)
	}
	qr := new(big.Rat).SetInt(q)
	// ⌊f⌋ = q where q ≤ f < q + 1; ⌈f⌉ = q where q - 1 < f ≤ q.
	lo, hi := qr, new(big.Rat).Add(qr, big.NewRat(1, 1))
	if up {
		lo, hi = new(big.Rat).Sub(qr, big.NewRat(1, 1)), qr
	}
	span := f.span.meet(f.within(lo, hi, up, !up))
	return rankLinear{new(big.Rat), qr, span}
}

// within returns the ranks x on which lo ≤ a·x + b ≤ hi, with either bound
// strict (loOpen: lo < …, hiOpen: … < hi); every rank when a is 0 (the
// caller knows the bounds hold at its rank).
func (f rankLinear) within(lo, hi *big.Rat, loOpen, hiOpen bool) rankSpan {
	if f.a.Sign() == 0 {
		return allRanks
	}
	inv := new(big.Rat).Inv(f.a)
	x1 := new(big.Rat).Mul(new(big.Rat).Sub(lo, f.b), inv) // a·x + b = lo
	x2 := new(big.Rat).Mul(new(big.Rat).Sub(hi, f.b), inv) // a·x + b = hi
	if f.a.Sign() < 0 {
		// a·x + b grows as x falls: the bound at lo becomes x's upper.
		x1, x2 = x2, x1
		loOpen, hiOpen = hiOpen, loOpen
	}
	return clampSpan(intAbove(x1, loOpen), intBelow(x2, hiOpen))
}

// intAbove returns the least integer ≥ x (> x when open).
func intAbove(x *big.Rat, open bool) *big.Int {
	if open {
		n := floorRat(x)
		return n.Add(n, big.NewInt(1))
	}
	return ceilRat(x)
}

// intBelow returns the greatest integer ≤ x (< x when open).
func intBelow(x *big.Rat, open bool) *big.Int {
	if open {
		n := ceilRat(x)
		return n.Sub(n, big.NewInt(1))
	}
	return floorRat(x)
}

// rankAffineIdent is rankAffine of a name: rank, rx, ry, or a let.
func (ra *rankAnalysis) rankAffineIdent(id *lang.Ident, r int64, rows rankSpan) (rankLinear, bool) {
	obj := ra.k.Info.Uses[id]
	if obj == nil {
		return rankLinear{}, false
	}
	switch {
	case obj.Kind == lang.BuiltinObj && obj.Name == "rank":
		return linear(big.NewRat(1, 1), new(big.Rat)), true
	case obj.Kind == lang.BuiltinObj && (obj.Name == "rx" || obj.Name == "ry") && rows != allRanks:
		px := rows.hi - rows.lo + 1
		if obj.Name == "rx" {
			return linear(big.NewRat(1, 1), big.NewRat(-rows.lo, 1)), true
		}
		return linear(new(big.Rat), big.NewRat(rows.lo/px, 1)), true
	case obj.Kind == lang.LetObj && obj.Expr != nil:
		return ra.rankAffine(obj.Expr, r, rows)
	}
	return rankLinear{}, false
}

// between returns the ranks around r on which lo ≤ a·rank + b ≤ hi, which
// holds at r, within f's span.
func (f rankLinear) between(lo, hi int64) rankSpan {
	return f.span.meet(f.within(big.NewRat(lo, 1), big.NewRat(hi, 1), false, false))
}

// signSpan returns the ranks around r on which a·rank + b has the sign it
// has at r: the side of the root r is on, or the root alone.
func signSpan(a, b *big.Rat, r int64) rankSpan {
	if a.Sign() == 0 {
		return allRanks
	}
	root := new(big.Rat).Neg(new(big.Rat).Quo(b, a)) // a·x + b = 0
	rr := big.NewRat(r, 1)
	switch rr.Cmp(root) {
	case 0:
		return rankSpan{r, r}
	case -1:
		// Every x below the root: up to ⌈root⌉ - 1.
		hi := ceilRat(root)
		hi.Sub(hi, big.NewInt(1))
		return clampSpan(big.NewInt(allRanks.lo), hi)
	}
	lo := floorRat(root)
	lo.Add(lo, big.NewInt(1))
	return clampSpan(lo, big.NewInt(allRanks.hi))
}

// clampSpan makes a span of two big bounds, clamped to allRanks.
func clampSpan(lo, hi *big.Int) rankSpan {
	clamp := func(x *big.Int) int64 {
		switch {
		case x.Cmp(big.NewInt(allRanks.lo)) < 0:
			return allRanks.lo
		case x.Cmp(big.NewInt(allRanks.hi)) > 0:
			return allRanks.hi
		}
		return x.Int64()
	}
	return rankSpan{clamp(lo), clamp(hi)}
}
