package symbolic

import (
	"fmt"
	"math/big"
	"slices"
)

// Affine reports whether p = a·v + b with a and b free of v, and returns a
// and b. A p that does not mention v is affine with a = 0. Callers use it to
// recognise bounds they can split and sums whose index enters linearly.
func Affine(p Poly, v string) (a, b Poly, ok bool) {
	if !p.Has(v) {
		return Poly{}, p, true // polys are immutable: b may be p itself
	}
	// Split the terms by whether they mention v, in two passes so that the
	// slope's terms and all their monomials take one allocation each:
	// Coeffs allocates a bucket per power and a monomial per term, and
	// strides call this for every reference and loop.
	withV, factors := 0, 0
	for _, t := range p.terms {
		switch t.mono.exponent(v) {
		case 0:
		case 1:
			withV++
			factors += len(t.mono) - 1
		default:
			return Poly{}, Poly{}, false
		}
	}
	as := make([]term, 0, withV)
	bs := make([]term, 0, len(p.terms)-withV)
	slab := make([]factor, 0, factors)
	for _, t := range p.terms {
		i := slices.IndexFunc(t.mono, func(f factor) bool { return f.name == v })
		if i < 0 {
			bs = append(bs, t)
			continue
		}
		start := len(slab)
		slab = append(append(slab, t.mono[:i]...), t.mono[i+1:]...)
		as = append(as, term{mono: monomial(slab[start:len(slab):len(slab)]), deg: t.deg - 1, coef: t.coef})
	}
	if len(bs) == 0 {
		bs = nil
	}
	// Dividing the terms of v by v keeps them in order (see Coeffs).
	return Poly{terms: as}, Poly{terms: bs}, true
}

// Direction says which side of its threshold an Inequality keeps.
type Direction int

const (
	// AtLeast keeps v ≥ Threshold.
	AtLeast Direction = iota + 1
	// AtMost keeps v ≤ Threshold.
	AtMost
)

// String returns the relation as an operator: ">=" or "<=".
func (d Direction) String() string {
	switch d {
	case AtLeast:
		return ">="
	case AtMost:
		return "<="
	}
	return fmt.Sprintf("Direction(%d)", int(d))
}

// Inequality is the solution of a·v + b ≥ 0 for v: v ≥ −b/a when a > 0 and
// v ≤ −b/a when a < 0. The threshold is exact and may be a fraction; the
// integer values of v that satisfy the inequality start (AtLeast) or end
// (AtMost) at its ceiling or floor, which IntegerThreshold and
// IntegerThresholdAt give.
type Inequality struct {
	Var       string
	Dir       Direction
	Threshold Poly
}

// String prints the solved form, such as "j >= N - 5".
func (q Inequality) String() string {
	return q.Var + " " + q.Dir.String() + " " + q.Threshold.String()
}

// SolveGE solves p ≥ 0 for v, where p must be affine in v with a nonzero
// constant coefficient a: only then is the direction known without knowing
// the other variables. A strict p > 0 over the integers is p − 1 ≥ 0. The
// error says which condition failed, for the caller to wrap with a source
// position.
func SolveGE(p Poly, v string) (Inequality, error) {
	a, b, ok := Affine(p, v)
	if !ok {
		return Inequality{}, fmt.Errorf("symbolic: %s >= 0 is not affine in %s (degree %d)", p, v, p.Degree(v))
	}
	slope, isConst := a.Constant()
	switch {
	case !isConst:
		return Inequality{}, fmt.Errorf("symbolic: cannot solve %s >= 0 for %s: the sign of its coefficient %s is unknown", p, v, a)
	case slope.Sign() == 0:
		return Inequality{}, fmt.Errorf("symbolic: cannot solve %s >= 0 for %s: it does not depend on %s", p, v, v)
	}
	dir := AtLeast
	if slope.Sign() < 0 {
		dir = AtMost
	}
	threshold := b.Scale(new(big.Rat).Neg(new(big.Rat).Inv(slope)))
	return Inequality{Var: v, Dir: dir, Threshold: threshold}, nil
}

// IntegerThreshold returns the integer threshold as a polynomial: ⌈T⌉ for
// AtLeast and ⌊T⌋ for AtMost, when it is one (see Ceil). When it is not, the
// caller evaluates it at concrete values with IntegerThresholdAt.
func (q Inequality) IntegerThreshold() (Poly, bool) {
	if q.Dir == AtMost {
		return Floor(q.Threshold)
	}
	return Ceil(q.Threshold)
}

// IntegerThresholdAt returns the integer threshold ⌈T⌉ (AtLeast) or ⌊T⌋
// (AtMost) at the values env gives the other variables.
func (q Inequality) IntegerThresholdAt(env map[string]*big.Rat) (*big.Int, error) {
	t, err := q.Threshold.Eval(env)
	if err != nil {
		return nil, err
	}
	if q.Dir == AtMost {
		return FloorRat(t), nil
	}
	return CeilRat(t), nil
}

// Holds reports whether the inequality holds at env, which must give values
// to q.Var and to every variable of the threshold.
func (q Inequality) Holds(env map[string]*big.Rat) (bool, error) {
	v := env[q.Var]
	if v == nil {
		return false, fmt.Errorf("symbolic: cannot decide %s: no value for %s", q, q.Var)
	}
	t, err := q.Threshold.Eval(env)
	if err != nil {
		return false, err
	}
	if q.Dir == AtMost {
		return v.Cmp(t) <= 0, nil
	}
	return v.Cmp(t) >= 0, nil
}

// Floor returns ⌊p⌋ as a polynomial over integer values of the variables,
// when there is one; see Ceil.
func Floor(p Poly) (Poly, bool) {
	c := p.ConstantTerm()
	rest := p.Sub(Const(c))
	if !rest.integerValued() {
		return Poly{}, false
	}
	return rest.Add(BigInt(FloorRat(c))), true
}

// Ceil returns ⌈p⌉ as a polynomial over integer values of the variables,
// when there is one. That is exactly when p minus its constant term c takes
// an integer value at every integer point (N/2 does not, N(N+1)/2 does); then
// ⌈p⌉ = (p − c) + ⌈c⌉. A polynomial ceiling g would leave p − g bounded in
// (−1, 0] on all integer points, hence constant, so no other case exists.
//
// The integer-valued test is exact up to integerValuedBoxLimit sample points
// (the product of the variables' degrees plus one); beyond it only integer
// coefficients count, and Ceil may report false for a ceiling that exists.
func Ceil(p Poly) (Poly, bool) {
	c := p.ConstantTerm()
	rest := p.Sub(Const(c))
	if !rest.integerValued() {
		return Poly{}, false
	}
	return rest.Add(BigInt(CeilRat(c))), true
}

// integerValuedBoxLimit bounds the number of points integerValued evaluates.
const integerValuedBoxLimit = 4096

// integerValued reports whether p takes an integer value at every integer
// point. Integer coefficients suffice. Otherwise it tests p on the box
// ∏_x {0, …, deg_x p}: those values determine p's coefficients in the
// binomial basis ∏_x C(x, α_x) by finite differences, and p is integer-valued
// exactly when all of those are integers, hence exactly when the box values
// are.
func (p Poly) integerValued() bool {
	if p.hasIntegerCoefficients() {
		return true
	}
	vars := p.Vars()
	degrees := make([]int, len(vars))
	points := 1
	for i, v := range vars {
		degrees[i] = p.Degree(v)
		points *= degrees[i] + 1
		if points > integerValuedBoxLimit {
			return false
		}
	}
	env := make(map[string]*big.Rat, len(vars))
	for _, v := range vars {
		env[v] = new(big.Rat)
	}
	point := make([]int, len(vars))
	for {
		for i, v := range vars {
			env[v].SetInt64(int64(point[i]))
		}
		value, err := p.Eval(env)
		if err != nil || !value.IsInt() {
			return false
		}
		if !nextBoxPoint(point, degrees) {
			return true
		}
	}
}

// nextBoxPoint advances point to the next point of ∏_i {0, …, limits[i]},
// like an odometer, and reports false when it wraps around.
func nextBoxPoint(point, limits []int) bool {
	for i := range point {
		if point[i] < limits[i] {
			point[i]++
			return true
		}
		point[i] = 0
	}
	return false
}

// hasIntegerCoefficients reports whether every coefficient of p is an integer.
func (p Poly) hasIntegerCoefficients() bool {
	for _, t := range p.terms {
		if !t.coef.isInt() {
			return false
		}
	}
	return true
}

// FloorRat returns ⌊r⌋.
func FloorRat(r *big.Rat) *big.Int {
	// big.Int.Div is Euclidean division; with the positive denominator a
	// big.Rat keeps, its quotient is the floor.
	return new(big.Int).Div(r.Num(), r.Denom())
}

// CeilRat returns ⌈r⌉.
func CeilRat(r *big.Rat) *big.Int {
	q := FloorRat(r)
	if !r.IsInt() {
		q.Add(q, big.NewInt(1))
	}
	return q
}
