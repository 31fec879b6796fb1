package lang

import (
	"fmt"
	"math/big"
	"strings"
)

// This file decides whether an index, slice bound or peer can leave its
// range, without iterating: for an expression affine in the enclosing
// loop indices and the rank, the extreme over the loop nest is found by
// substituting each index, innermost first, by the end of its range that
// pushes the expression outward, and then picking the rank. The point
// chosen is then evaluated exactly; when it is a real iteration (every
// loop non-empty there), the extreme is attained and an out-of-range value
// is a certain error. Otherwise the check gives up and leaves it to the
// run, as it does for anything that is not affine.

// affine is c + Σ a·v over loop indices and rank variables.
type affine struct {
	c     *big.Rat
	terms []affineTerm
}

// affineTerm is one a·v.
type affineTerm struct {
	v *Object
	a *big.Rat
}

// constAffine is the constant r.
func constAffine(r *big.Rat) affine { return affine{c: new(big.Rat).Set(r)} }

// varAffine is the variable v.
func varAffine(v *Object) affine {
	return affine{c: new(big.Rat), terms: []affineTerm{{v, big.NewRat(1, 1)}}}
}

// isConst reports whether f has no variables.
func (f affine) isConst() bool { return len(f.terms) == 0 }

// coef returns the coefficient of v (zero when absent).
func (f affine) coef(v *Object) *big.Rat {
	for _, t := range f.terms {
		if t.v == v {
			return t.a
		}
	}
	return new(big.Rat)
}

// addScaled returns f + k·g, dropping terms that cancel.
func (f affine) addScaled(g affine, k *big.Rat) affine {
	out := affine{c: new(big.Rat).Add(f.c, new(big.Rat).Mul(k, g.c))}
	out.terms = append(out.terms, f.terms...)
	for _, t := range g.terms {
		kt := new(big.Rat).Mul(k, t.a)
		found := false
		for i, o := range out.terms {
			if o.v == t.v {
				out.terms[i] = affineTerm{o.v, new(big.Rat).Add(o.a, kt)}
				found = true
			}
		}
		if !found {
			out.terms = append(out.terms, affineTerm{t.v, kt})
		}
	}
	kept := out.terms[:0:0]
	for _, t := range out.terms {
		if t.a.Sign() != 0 {
			kept = append(kept, t)
		}
	}
	out.terms = kept
	return out
}

// scale returns k·f.
func (f affine) scale(k *big.Rat) affine {
	return affine{c: new(big.Rat)}.addScaled(f, k)
}

// substitute returns f with v replaced by g.
func (f affine) substitute(v *Object, g affine) affine {
	a := f.coef(v)
	if a.Sign() == 0 {
		return f
	}
	without := f.addScaled(varAffine(v), new(big.Rat).Neg(a))
	return without.addScaled(g, a)
}

// affineOf returns e as an affine form over loop indices and the rank
// (rx and ry on a grid, where rank = ry*Px + rx), or false when e is not
// affine: floor, ceil, %, ?: and the like.
func (c *checker) affineOf(e Expr) (affine, bool) {
	if v, ok := c.info.Values[e]; ok {
		if v.Kind() != IntValue {
			return affine{}, false
		}
		return constAffine(v.rat), true
	}
	switch e := e.(type) {
	case *ParenExpr:
		return c.affineOf(e.X)
	case *Ident:
		return c.affineIdent(e)
	case *UnaryExpr:
		if e.Op != Neg {
			return affine{}, false
		}
		x, ok := c.affineOf(e.X)
		if !ok {
			return affine{}, false
		}
		return x.scale(big.NewRat(-1, 1)), true
	case *BinaryExpr:
		x, okx := c.affineOf(e.X)
		y, oky := c.affineOf(e.Y)
		if !okx || !oky {
			return affine{}, false
		}
		switch {
		case e.Op == Add:
			return x.addScaled(y, big.NewRat(1, 1)), true
		case e.Op == Sub:
			return x.addScaled(y, big.NewRat(-1, 1)), true
		case e.Op == Mul && x.isConst():
			return y.scale(x.c), true
		case e.Op == Mul && y.isConst():
			return x.scale(y.c), true
		}
	}
	return affine{}, false
}

// affineIdent is affineOf for a name.
func (c *checker) affineIdent(id *Ident) (affine, bool) {
	obj := c.info.Uses[id]
	if obj == nil {
		return affine{}, false
	}
	switch {
	case obj.Kind == IndexObj:
		return varAffine(obj), true
	case obj.Kind == LetObj && obj.Dep != 0 && obj.Dep&DepData == 0:
		return c.affineOf(obj.Expr)
	case obj.Kind == BuiltinObj && obj.Dep == DepRank:
		if obj.Name != "rank" || !c.geom.grid {
			return varAffine(obj), true
		}
		// rank = ry*Px + rx, so that rank, rx and ry stay independent.
		return varAffine(c.rankV.ry).scale(ratInt64(c.geom.px)).addScaled(varAffine(c.rankV.rx), big.NewRat(1, 1)), true
	}
	return affine{}, false
}

// loopEnd returns the first (last = false) or last value of a for loop's
// index as an affine form in the outer indices. The last value needs a
// step of 1, or a constant trip length.
func (c *checker) loopEnd(fr loopFrame, last bool) (affine, bool) {
	loop := fr.stmt.(*ForStmt)
	lo, ok := c.affineOf(loop.Lo)
	if !ok || !last {
		return lo, ok
	}
	hi, ok := c.affineOf(loop.Hi)
	if !ok || fr.step < 1 {
		return affine{}, false
	}
	one := big.NewRat(1, 1)
	if fr.step == 1 {
		return hi.addScaled(constAffine(one), big.NewRat(-1, 1)), true
	}
	span := hi.addScaled(lo, big.NewRat(-1, 1))
	if !span.isConst() {
		return affine{}, false
	}
	// last = lo + step·floor((span-1)/step)
	steps := floorRat(new(big.Rat).Quo(new(big.Rat).Sub(span.c, one), ratInt64(fr.step)))
	offset := new(big.Rat).Mul(new(big.Rat).SetInt(steps), ratInt64(fr.step))
	return lo.addScaled(constAffine(offset), one), true
}

// extreme returns the greatest (upper) or least value of f over the
// enclosing loop nest and the ranks, with the point where it is attained,
// or false when that cannot be decided exactly.
func (c *checker) extreme(f affine, upper bool) (*big.Rat, *Env, bool) {
	pickLast := make([]bool, len(c.loops))
	for i := len(c.loops) - 1; i >= 0; i-- {
		fr := c.loops[i]
		if fr.index == nil {
			continue
		}
		a := f.coef(fr.index)
		if a.Sign() == 0 {
			continue
		}
		pickLast[i] = (a.Sign() > 0) == upper
		end, ok := c.loopEnd(fr, pickLast[i])
		if !ok {
			return nil, nil, false
		}
		f = f.substitute(fr.index, end)
	}
	rank := c.pickRank(&f, upper)
	if !f.isConst() {
		return nil, nil, false
	}
	env, ok := c.iterationAt(rank, pickLast)
	if !ok {
		return nil, nil, false
	}
	return f.c, env, true
}

// pickRank substitutes the rank variables of f by the end of their range
// that pushes f outward, and returns the rank chosen.
func (c *checker) pickRank(f *affine, upper bool) int64 {
	end := func(v *Object, n int64) int64 {
		if a := f.coef(v); a.Sign() != 0 && (a.Sign() > 0) == upper {
			return n - 1
		}
		return 0
	}
	if !c.geom.grid {
		r := end(c.rankV.rank, c.geom.ranks)
		*f = f.substitute(c.rankV.rank, constAffine(ratInt64(r)))
		return r
	}
	rx, ry := end(c.rankV.rx, c.geom.px), end(c.rankV.ry, c.geom.py)
	*f = f.substitute(c.rankV.rx, constAffine(ratInt64(rx)))
	*f = f.substitute(c.rankV.ry, constAffine(ratInt64(ry)))
	return ry*c.geom.px + rx
}

// iterationAt evaluates the loop nest at the chosen rank and ends, outer
// loops first, and reports whether that is a real iteration: every loop
// non-empty at the point.
func (c *checker) iterationAt(rank int64, pickLast []bool) (*Env, bool) {
	env := &Env{Rank: rank, Index: make([]int64, c.info.NumSlots)}
	ev := evaluator{info: c.info, src: c.src, geom: c.geom, env: env}
	for i, fr := range c.loops {
		if fr.index == nil {
			continue
		}
		loop := fr.stmt.(*ForStmt)
		lo, err1 := ev.evalInt64(loop.Lo)
		hi, err2 := ev.evalInt64(loop.Hi)
		if err1 != nil || err2 != nil || lo >= hi || fr.step < 1 {
			return nil, false
		}
		v := big.NewInt(lo)
		if pickLast[i] {
			// lo + step·floor((hi-1-lo)/step), in big integers: hi-lo may overflow.
			span := new(big.Int).Sub(big.NewInt(hi-1), v)
			step := big.NewInt(fr.step)
			v.Add(v, span.Mul(span.Quo(span, step), step))
		}
		env.Index[fr.index.Slot] = v.Int64()
	}
	return env, true
}

// evalInt64 evaluates e to an int64.
func (ev *evaluator) evalInt64(e Expr) (int64, error) {
	v, err := ev.eval(e)
	if err != nil {
		return 0, err
	}
	return ev.toInt64(e, v)
}

// boundsOf returns the affine form of an integer operand whose range can
// be checked: a constant, or an affine expression outside any guarding if
// (a guard may keep the extremes from ever running).
func (c *checker) boundsOf(e Expr, op operand, ctx exprCtx) (affine, bool) {
	switch {
	case ctx.dead, op.typ == InvalidType, op.typ == PeerType, op.dep&DepData != 0:
		return affine{}, false
	case op.dep == 0:
		if !op.val.IsInt() {
			return affine{}, false
		}
		return constAffine(op.val.rat), true
	case len(c.conds) > 0:
		return affine{}, false
	}
	return c.affineOf(e)
}

// violation finds a value of f below min or above max (nil: unbounded),
// with " at i = 3, rank = 1" telling where when f varies.
func (c *checker) violation(f affine, min, max *big.Rat) (got *big.Rat, at string, found bool) {
	if f.isConst() {
		if (max != nil && f.c.Cmp(max) > 0) || (min != nil && f.c.Cmp(min) < 0) {
			return f.c, "", true
		}
		return nil, "", false
	}
	if max != nil {
		if v, env, ok := c.extreme(f, true); ok && v.Cmp(max) > 0 {
			return v, c.atText(f, env), true
		}
	}
	if min != nil {
		if v, env, ok := c.extreme(f, false); ok && v.Cmp(min) < 0 {
			return v, c.atText(f, env), true
		}
	}
	return nil, "", false
}

// atText describes the point of env for the variables of f.
func (c *checker) atText(f affine, env *Env) string {
	var parts []string
	for _, v := range []*Object{c.rankV.rank, c.rankV.rx, c.rankV.ry} {
		if v == nil || f.coef(v).Sign() == 0 {
			continue
		}
		rank := fmt.Sprintf("rank = %d", env.Rank)
		if c.geom.grid {
			rx, ry := c.geom.coords(env.Rank)
			rank += fmt.Sprintf(" (rx = %d, ry = %d)", rx, ry)
		}
		parts = append(parts, rank)
		break
	}
	for _, fr := range c.loops {
		if fr.index != nil && f.coef(fr.index).Sign() != 0 {
			parts = append(parts, fmt.Sprintf("%s = %d", fr.index.Name, env.Index[fr.index.Slot]))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " at " + strings.Join(parts, ", ")
}

// valueAt writes "e = v at i = 3", leaving out the place when it says no
// more than "e = v" does (as for a plain "k = 8 at k = 8").
func valueAt(e Expr, v, at string) string {
	s := valueOf(e, v)
	if at == " at "+s {
		return s
	}
	return s + at
}

// checkIndex reports an index that leaves dimension dim of array obj.
func (c *checker) checkIndex(x Expr, op operand, ctx exprCtx, obj *Object, dim int) {
	f, ok := c.boundsOf(x, op, ctx)
	if !ok || obj.Dims[dim] <= 0 {
		return
	}
	n := obj.Dims[dim]
	got, at, found := c.violation(f, new(big.Rat), ratInt64(n-1))
	if !found {
		return
	}
	c.errorf(x, "the index %s is outside %s (indices 0..%d)", valueAt(x, got.RatString(), at), dimText(obj, dim), n-1)
}

// dimText names dimension dim of an array with its size for messages.
func dimText(obj *Object, dim int) string {
	if len(obj.Dims) == 1 {
		return fmt.Sprintf("%s, which has %d elements", obj.Name, obj.Dims[0])
	}
	return fmt.Sprintf("dimension %d of %s, which has %d elements", dim+1, obj.Name, obj.Dims[dim])
}
