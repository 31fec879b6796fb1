package symbolic

import (
	"math"
	"math/big"
	"math/bits"
)

// rat is an exact rational coefficient. Nearly every coefficient a loop nest
// produces is a small fraction, so a rat keeps its numerator and denominator
// in int64s and falls back to a *big.Rat only when a result would not fit:
// that keeps Mul and Sum free of big-number allocations and gcds in the
// common case, while staying exact in every case.
//
// Invariants: a rat made by the functions below has either big == nil, den > 0,
// num ≠ math.MinInt64 (so that its absolute value fits) and
// gcd(|num|, den) = 1; or big != nil holding a value that does not fit that
// form. One value therefore has one representation, and the *big.Rat, shared
// between terms, is never mutated.
type rat struct {
	num, den int64
	big      *big.Rat
}

// ratInt returns the integer n as a rat.
func ratInt(n int64) rat {
	if n == math.MinInt64 {
		return rat{big: new(big.Rat).SetInt64(n)}
	}
	return rat{num: n, den: 1}
}

// ratOf returns r as a rat, copying it (when it does not fit int64s) so
// that the caller keeps ownership.
func ratOf(r *big.Rat) rat {
	if a, ok := smallIntRat(r); ok {
		return a // nothing of r is kept: no copy
	}
	if num, den := r.Num(), r.Denom(); num.IsInt64() && den.IsInt64() && num.Int64() != math.MinInt64 {
		return rat{num: num.Int64(), den: den.Int64()}
	}
	return rat{big: new(big.Rat).Set(r)}
}

// smallIntRat returns r as a small rat when it is an integer that fits,
// without calling r.Denom, which allocates for an integer Rat whose
// denominator was never set (as NewInt64Rat makes them).
func smallIntRat(r *big.Rat) (rat, bool) {
	if !r.IsInt() {
		return rat{}, false
	}
	num := r.Num()
	if !num.IsInt64() || num.Int64() == math.MinInt64 {
		return rat{}, false
	}
	return rat{num: num.Int64(), den: 1}, true
}

// NewInt64Rat returns n as a new *big.Rat made in one allocation. Counts
// are nearly always integers, and big.NewRat or SetInt64 make three: the
// Rat, its numerator's words and a denominator of 1. This one keeps its
// numerator's words beside it and leaves the denominator unset, which
// big.Rat reads as 1. It behaves as any other Rat, also when changed
// later (its words are then reallocated as needed).
func NewInt64Rat(n int64) *big.Rat {
	box := new(struct {
		r big.Rat
		w [64 / bits.UintSize]big.Word
	})
	if n == 0 {
		return &box.r
	}
	u := uint64(n)
	if n < 0 {
		u = -u // also right for math.MinInt64
	}
	for i := range box.w {
		box.w[i] = big.Word(u)
		u >>= bits.UintSize - 1
		u >>= 1
	}
	num := box.r.Num()
	num.SetBits(box.w[:])
	if n < 0 {
		num.Neg(num)
	}
	return &box.r
}

// ownRat returns r as a rat, taking ownership of r: the caller must not
// change it afterwards.
func ownRat(r *big.Rat) rat {
	if a, ok := smallIntRat(r); ok {
		return a
	}
	num, den := r.Num(), r.Denom()
	if num.IsInt64() && den.IsInt64() && num.Int64() != math.MinInt64 {
		return rat{num: num.Int64(), den: den.Int64()}
	}
	return rat{big: r}
}

// toBig returns the value as a new *big.Rat the caller owns.
func (a rat) toBig() *big.Rat {
	if a.big != nil {
		return new(big.Rat).Set(a.big)
	}
	if a.den == 1 {
		return NewInt64Rat(a.num)
	}
	return big.NewRat(a.num, a.den)
}

// setBig sets z to the value of a, without allocating a copy of a small a.
func (a rat) setBig(z *big.Rat) {
	if a.big != nil {
		z.Set(a.big)
		return
	}
	z.SetFrac64(a.num, a.den)
}

// sign returns −1, 0 or +1.
func (a rat) sign() int {
	if a.big != nil {
		return a.big.Sign()
	}
	switch {
	case a.num < 0:
		return -1
	case a.num > 0:
		return 1
	}
	return 0
}

// isInt reports whether the value is an integer.
func (a rat) isInt() bool {
	if a.big != nil {
		return a.big.IsInt()
	}
	return a.den == 1
}

// equal reports whether a and b are the same number; the invariants make
// the small forms unique, so only big values need big.Rat.Cmp.
func (a rat) equal(b rat) bool {
	if a.big == nil && b.big == nil {
		return a.num == b.num && a.den == b.den
	}
	return a.toBig().Cmp(b.toBig()) == 0
}

// neg returns −a.
func (a rat) neg() rat {
	if a.big == nil {
		return rat{num: -a.num, den: a.den} // num ≠ MinInt64, so −num fits
	}
	return ownRat(new(big.Rat).Neg(a.big))
}

// addRat returns a + b.
func addRat(a, b rat) rat {
	if a.big == nil && b.big == nil {
		if r, ok := addSmall(a, b); ok {
			return r
		}
	}
	return ownRat(new(big.Rat).Add(a.toBig(), b.toBig()))
}

// subRat returns a − b.
func subRat(a, b rat) rat { return addRat(a, b.neg()) }

// mulRat returns a·b.
func mulRat(a, b rat) rat {
	if a.big == nil && b.big == nil {
		if r, ok := mulSmall(a, b); ok {
			return r
		}
	}
	return ownRat(new(big.Rat).Mul(a.toBig(), b.toBig()))
}

// addSmall adds two small rats, reporting false on overflow.
func addSmall(a, b rat) (rat, bool) {
	if a.den == b.den {
		n, ok := addInt64(a.num, b.num)
		if !ok {
			return rat{}, false
		}
		return reduced(n, a.den), true
	}
	x, ok1 := mulInt64(a.num, b.den)
	y, ok2 := mulInt64(b.num, a.den)
	d, ok3 := mulInt64(a.den, b.den)
	n, ok4 := addInt64(x, y)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return rat{}, false
	}
	return reduced(n, d), true
}

// mulSmall multiplies two small rats, cancelling across first so that the
// result is reduced without a final gcd; it reports false on overflow.
func mulSmall(a, b rat) (rat, bool) {
	if a.num == 0 || b.num == 0 {
		return rat{num: 0, den: 1}, true
	}
	g1, g2 := gcd(abs(a.num), b.den), gcd(abs(b.num), a.den)
	n, ok1 := mulInt64(a.num/g1, b.num/g2)
	d, ok2 := mulInt64(a.den/g2, b.den/g1)
	if !ok1 || !ok2 {
		return rat{}, false
	}
	return rat{num: n, den: d}, true
}

// reduced returns n/d in lowest terms for d > 0 and n ≠ MinInt64.
func reduced(n, d int64) rat {
	if n == 0 {
		return rat{num: 0, den: 1}
	}
	g := gcd(abs(n), d)
	return rat{num: n / g, den: d / g}
}

// addInt64 returns a + b and false if the sum overflows or is MinInt64,
// whose absolute value would not fit.
func addInt64(a, b int64) (int64, bool) {
	s := a + b
	if (a > 0 && b > 0 && s < 0) || (a < 0 && b < 0 && s >= 0) || s == math.MinInt64 {
		return 0, false
	}
	return s, true
}

// mulInt64 returns a·b for a, b ≠ MinInt64, and false if the product does not
// fit in (MinInt64, MaxInt64].
func mulInt64(a, b int64) (int64, bool) {
	hi, lo := bits.Mul64(uint64(abs(a)), uint64(abs(b)))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	if (a < 0) != (b < 0) {
		return -int64(lo), true
	}
	return int64(lo), true
}

// abs returns |n| for n ≠ MinInt64.
func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// gcd returns the greatest common divisor of non-negative a and b, not both
// zero. It is Stein's binary algorithm: shifts and subtractions instead of
// the divisions of Euclid's, which dominate coefficient arithmetic otherwise.
func gcd(a, b int64) int64 {
	if a == 0 {
		return b
	}
	if b == 0 {
		return a
	}
	x, y := uint64(a), uint64(b)
	shift := bits.TrailingZeros64(x | y)
	x >>= bits.TrailingZeros64(x)
	for y != 0 {
		y >>= bits.TrailingZeros64(y)
		if x > y {
			x, y = y, x
		}
		y -= x
	}
	return int64(x << shift)
}
