package analyze

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"

	"perfc/analyze/symbolic"
)

// This file holds the cache-line model's numbers: symInt, an int64 with its
// closed form built only when asked for, and est, an exact rational count
// with its formula (cachemodel.go says why values and formulas are apart).

// symInt is an integer at the given parameters with its closed form in the
// kernel's symbols; ok is false when no closed form is known (the formula
// may then still approximate v). Most of the model's integers are compared
// and never printed, so formulas are built lazily: a constant keeps no Poly
// until one is asked for (poly is false and the formula is v), and a bare
// integer, from a computation whose value alone is wanted (see footprint),
// keeps no formula at all.
type symInt struct {
	v    int64
	p    symbolic.Poly // the formula when poly is set
	poly bool
	ok   bool
	bare bool
}

// constSym returns the constant v.
func constSym(v int64) symInt { return symInt{v: v, ok: true} }

// polySym returns v with the formula p.
func polySym(v int64, p symbolic.Poly, ok bool) symInt {
	return symInt{v: v, p: p, poly: true, ok: ok}
}

// stripped returns a without its formula.
func (a symInt) stripped() symInt { return symInt{v: a.v, bare: true} }

// formula is a's closed form (an approximate one when !ok).
func (a symInt) formula() symbolic.Poly {
	if a.bare {
		panic("analyze: formula of a cache-model value computed without one")
	}
	if a.poly {
		return a.p
	}
	return symbolic.Int(a.v)
}

// constFormula reports whether a's formula is a constant.
func (a symInt) constFormula() bool { return !a.poly || a.p.IsConst() }

// plus and minus return the other operand as it is where one is the
// constant 0 (p + 0 is p, as Poly.Add would build it again).
func (a symInt) plus(b symInt) symInt {
	s := a.v + b.v
	switch {
	case a.isZero() && !b.bare:
		b.ok = a.ok && b.ok
		return b
	case b.isZero() && !a.bare:
		a.ok = a.ok && b.ok
		return a
	}
	return a.combine(b, s, (s > a.v) == (b.v > 0), symbolic.Poly.Add)
}

func (a symInt) minus(b symInt) symInt {
	if b.isZero() && !a.bare {
		a.ok = a.ok && b.ok
		return a
	}
	d := a.v - b.v
	return a.combine(b, d, (d < a.v) == (b.v > 0), symbolic.Poly.Sub)
}

// isZero reports whether a is the constant 0 with its formula.
func (a symInt) isZero() bool { return !a.bare && !a.poly && a.v == 0 }

func (a symInt) times(b symInt) symInt {
	hi, lo := bits.Mul64(uint64(absInt64(a.v)), uint64(absInt64(b.v)))
	fits := hi == 0 && lo <= math.MaxInt64 && a.v != math.MinInt64 && b.v != math.MinInt64
	return a.combine(b, a.v*b.v, fits, symbolic.Poly.Mul)
}

func (a symInt) neg() symInt {
	switch {
	case a.bare:
		return symInt{v: -a.v, bare: true}
	case !a.poly && a.v != math.MinInt64:
		return symInt{v: -a.v, ok: a.ok}
	}
	return symInt{v: -a.v, p: a.formula().Neg(), poly: true, ok: a.ok}
}

// combine is the result v of an operation on a and b: bare when either is,
// a constant when both are and v did not overflow (fits), else op on their
// formulas, which stays exact when v wraps.
func (a symInt) combine(b symInt, v int64, fits bool, op func(symbolic.Poly, symbolic.Poly) symbolic.Poly) symInt {
	switch {
	case a.bare || b.bare:
		return symInt{v: v, bare: true}
	case !a.poly && !b.poly && fits:
		return symInt{v: v, ok: a.ok && b.ok}
	}
	return symInt{v: v, p: op(a.formula(), b.formula()), poly: true, ok: a.ok && b.ok}
}

// absInt64 is |x| (MinInt64 stays as it is; callers check it).
func absInt64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// est is a (possibly fractional) number of lines or bytes with its closed
// form; ok says the formula equals val at the given parameters. When ok is
// false, the formula may still be an approximation, used only to state
// conditions ("about 32*M B"); counts never carry it. As for symInt, a
// constant formula is built only when asked for, and a bare est has none.
type est struct {
	val  *big.Rat
	p    symbolic.Poly // the formula when poly is set; else it is val
	poly bool
	ok   bool
	bare bool
}

// zeroEst returns 0.
func zeroEst() est { return est{val: new(big.Rat), ok: true} }

// intEst returns the exact constant n.
func intEst(n int64) est { return est{val: big.NewRat(n, 1), ok: true} }

// countEst views a count as an estimate.
func countEst(c Count) est {
	v := c.Value
	if v == nil {
		v = new(big.Rat)
	}
	return est{val: v, p: c.Formula, poly: true, ok: c.Symbolic}
}

// formula is a's closed form (an approximate one when !ok).
func (a est) formula() symbolic.Poly {
	if a.bare {
		panic("analyze: formula of a cache-model estimate computed without one")
	}
	if a.poly {
		return a.p
	}
	return symbolic.Const(a.val)
}

// stripped returns a without its formula.
func (a est) stripped() est { return est{val: a.val, bare: true} }

func (a est) plus(b est) est {
	switch {
	case a.isZero() && !b.bare:
		return b
	case b.isZero() && !a.bare:
		return a
	}
	return a.combine(b, ratAdd(a.val, b.val), symbolic.Poly.Add)
}

// isZero reports whether a is an exact 0 with the formula 0, which adds
// nothing to a value or a formula.
func (a est) isZero() bool { return !a.poly && !a.bare && a.ok && a.val.Sign() == 0 }

func (a est) minus(b est) est {
	return a.combine(b, new(big.Rat).Sub(a.val, b.val), symbolic.Poly.Sub)
}

func (a est) times(b est) est {
	return a.combine(b, ratMul(a.val, b.val), symbolic.Poly.Mul)
}

func (a est) scale(r *big.Rat) est {
	v := ratMul(a.val, r)
	switch {
	case a.bare:
		return est{val: v, bare: true}
	case !a.poly:
		return est{val: v, ok: a.ok}
	}
	return est{val: v, p: a.p.Scale(r), poly: true, ok: a.ok}
}

// combine is the result v of an operation on a and b (see symInt.combine;
// rationals do not overflow).
func (a est) combine(b est, v *big.Rat, op func(symbolic.Poly, symbolic.Poly) symbolic.Poly) est {
	switch {
	case a.bare || b.bare:
		return est{val: v, bare: true}
	case !a.poly && !b.poly:
		return est{val: v, ok: a.ok && b.ok}
	}
	return est{val: v, p: op(a.formula(), b.formula()), poly: true, ok: a.ok && b.ok}
}

// count turns an estimate into a Count whose formula is kept only where it
// is a closed form that gives the value.
func (a est) count() Count {
	if a.ok {
		return Count{Value: a.val, Formula: a.formula(), Symbolic: true}
	}
	return Count{Value: a.val, Formula: symbolic.Const(a.val), Symbolic: false}
}

// text prints the estimate as its formula, an approximate formula, or its
// value when there is none.
func (a est) text() string {
	f := a.formula()
	switch {
	case a.ok:
		return f.String()
	case !f.IsConst():
		return "about " + f.String()
	}
	return ratText(a.val)
}

// ratText prints an exact integer as digits and a fraction as a decimal.
func ratText(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return fmt.Sprintf("%.6g", f)
}
