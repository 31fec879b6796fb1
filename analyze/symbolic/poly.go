// Package symbolic is the exact algebra of perfc's counting engine:
// multivariate polynomials with rational coefficients, closed-form sums over
// integer ranges (Faulhaber's formula), and the affine helpers a caller needs
// to split loop bounds with min, max, floor and ceil into pieces.
//
// Counting never iterates. A trip count or operation count of an affine loop
// nest is a polynomial in the kernel parameters, computed once by Sum and
// evaluated exactly by Eval, so N = 10^12 costs what N = 10 costs.
//
// Variables stand for integers: kernel parameters such as N, P and BS, and
// loop indices such as i and j. The ring operations and Sum are identities of
// polynomials and hold for any values; Floor, Ceil, TripCount and the integer
// thresholds of an Inequality rely on the variables being integers.
//
// A Poly is an immutable value: every operation returns a new Poly and never
// changes its operands, so polys may be shared freely, also between
// goroutines. The zero value is the zero polynomial.
//
// Canonical form. A Poly keeps its terms in one order, which is also the order
// String prints them in: higher total degree first; among terms of equal total
// degree, graded lexicographic order on variable names compared as bytes (the
// term with the larger exponent in the first variable where two terms differ
// comes first). Upper-case names sort before lower-case ones, so parameters
// print before loop indices. Equal polynomials therefore have identical terms,
// and Equal and String are deterministic.
package symbolic

import (
	"fmt"
	"math/big"
	"slices"
	"strings"
)

// factor is one variable raised to a positive power inside a monomial.
type factor struct {
	name string
	exp  int
}

// monomial is a product of distinct variables raised to positive powers,
// sorted by name so that equal products have equal representations. The empty
// monomial is the constant 1.
type monomial []factor

// term is a nonzero rational multiple of a monomial.
type term struct {
	mono monomial
	deg  int // total degree of mono, cached because ordering needs it first
	coef rat // nonzero
}

// Poly is a multivariate polynomial with exact rational coefficients. See the
// package documentation for its canonical form.
type Poly struct {
	terms []term // canonical order, nonzero coefficients, distinct monomials
}

// Const returns the constant polynomial r. The Poly keeps a copy, so the
// caller may go on using r.
func Const(r *big.Rat) Poly {
	if r.Sign() == 0 {
		return Poly{}
	}
	return Poly{terms: []term{{coef: ratOf(r)}}}
}

// Int returns the constant polynomial n. It is Const of n without the
// big.Rat: callers build many small constants.
func Int(n int64) Poly {
	if n == 0 {
		return Poly{}
	}
	return Poly{terms: []term{{coef: ratInt(n)}}}
}

// BigInt returns the constant polynomial n, for values beyond int64.
func BigInt(n *big.Int) Poly { return Const(new(big.Rat).SetInt(n)) }

// Rat returns the constant polynomial num/den. It panics if den is zero, like
// big.NewRat.
func Rat(num, den int64) Poly { return Const(big.NewRat(num, den)) }

// Var returns the polynomial consisting of the variable name alone.
func Var(name string) Poly {
	return Poly{terms: []term{{mono: monomial{{name: name, exp: 1}}, deg: 1, coef: ratInt(1)}}}
}

// IsZero reports whether p is the zero polynomial.
func (p Poly) IsZero() bool { return len(p.terms) == 0 }

// IsConst reports whether p mentions no variable.
func (p Poly) IsConst() bool {
	return len(p.terms) == 0 || (len(p.terms) == 1 && p.terms[0].deg == 0)
}

// Constant returns the value of p and true when p is constant, so that a
// caller can turn a closed form back into a number without an environment.
func (p Poly) Constant() (*big.Rat, bool) {
	if !p.IsConst() {
		return nil, false
	}
	return p.ConstantTerm(), true
}

// ConstantTerm returns the coefficient of the empty monomial, that is the
// value of p when every variable is zero. It is a fresh copy.
func (p Poly) ConstantTerm() *big.Rat {
	if n := len(p.terms); n > 0 && p.terms[n-1].deg == 0 {
		return p.terms[n-1].coef.toBig()
	}
	return new(big.Rat)
}

// Degree returns the largest exponent of v in p: 0 if p does not mention v,
// and -1 for the zero polynomial, as in the usual convention deg 0 = -∞.
func (p Poly) Degree(v string) int {
	if p.IsZero() {
		return -1
	}
	d := 0
	for _, t := range p.terms {
		d = max(d, t.mono.exponent(v))
	}
	return d
}

// TotalDegree returns the largest total degree of a term of p, and -1 for the
// zero polynomial.
func (p Poly) TotalDegree() int {
	if p.IsZero() {
		return -1
	}
	return p.terms[0].deg // the canonical order puts the highest degree first
}

// Vars returns the variables p mentions, sorted by name.
func (p Poly) Vars() []string {
	var names []string
	for _, t := range p.terms {
		for _, f := range t.mono {
			names = append(names, f.name)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// AnyVar reports whether f holds for some variable p mentions; unlike Vars
// it allocates nothing, for callers that ask of every count.
func (p Poly) AnyVar(f func(name string) bool) bool {
	for _, t := range p.terms {
		for _, x := range t.mono {
			if f(x.name) {
				return true
			}
		}
	}
	return false
}

// Has reports whether p mentions the variable v.
func (p Poly) Has(v string) bool {
	for _, t := range p.terms {
		if t.mono.exponent(v) > 0 {
			return true
		}
	}
	return false
}

// Equal reports whether p and q are the same polynomial. The canonical form
// makes this a term-by-term comparison.
func (p Poly) Equal(q Poly) bool {
	if len(p.terms) != len(q.terms) {
		return false
	}
	for i := range p.terms {
		a, b := p.terms[i], q.terms[i]
		if compareTerms(a, b) != 0 || !a.coef.equal(b.coef) {
			return false
		}
	}
	return true
}

// Neg returns −p.
func (p Poly) Neg() Poly {
	out := make([]term, len(p.terms))
	for i, t := range p.terms {
		out[i] = term{mono: t.mono, deg: t.deg, coef: t.coef.neg()}
	}
	return Poly{terms: out}
}

// Scale returns r·p.
func (p Poly) Scale(r *big.Rat) Poly {
	if r.Sign() == 0 {
		return Poly{}
	}
	scale := ratOf(r)
	out := make([]term, len(p.terms))
	for i, t := range p.terms {
		out[i] = term{mono: t.mono, deg: t.deg, coef: mulRat(t.coef, scale)}
	}
	return Poly{terms: out}
}

// Add returns p + q.
func (p Poly) Add(q Poly) Poly { return merge(p, q, false) }

// Sub returns p − q.
func (p Poly) Sub(q Poly) Poly { return merge(p, q, true) }

// merge adds (or, with negate, subtracts) two canonical polys.
func merge(p, q Poly, negate bool) Poly {
	return Poly{terms: mergeTerms(make([]term, 0, len(p.terms)+len(q.terms)), p.terms, q.terms, negate)}
}

// mergeTerms appends a + b (or, with negate, a − b) to dst in one pass over
// the canonical term lists a and b, like the merge step of merge sort, so an
// addition costs O(len a + len b). dst must not share memory with a or b.
func mergeTerms(dst, a, b []term, negate bool) []term {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		x, y := a[i], b[j]
		switch c := compareTerms(x, y); {
		case c < 0:
			dst = append(dst, x)
			i++
		case c > 0:
			dst = append(dst, signed(y, negate))
			j++
		default:
			var s rat
			if negate {
				s = subRat(x.coef, y.coef)
			} else {
				s = addRat(x.coef, y.coef)
			}
			if s.sign() != 0 {
				dst = append(dst, term{mono: x.mono, deg: x.deg, coef: s})
			}
			i++
			j++
		}
	}
	dst = append(dst, a[i:]...)
	for _, y := range b[j:] {
		dst = append(dst, signed(y, negate))
	}
	return dst
}

// signed returns t, or −t when negate is set.
func signed(t term, negate bool) term {
	if !negate {
		return t
	}
	return term{mono: t.mono, deg: t.deg, coef: t.coef.neg()}
}

// Mul returns p·q. Graded lexicographic order is a monomial order, so one
// term of p times all of q is already sorted; Mul merges those rows into the
// product instead of sorting all len(p)·len(q) products.
func (p Poly) Mul(q Poly) Poly {
	if p.IsZero() || q.IsZero() {
		return Poly{}
	}
	if len(p.terms) > len(q.terms) {
		p, q = q, p // fewer, longer rows
	}
	// All product monomials share one backing array sized for the worst
	// case, no shared variables: one allocation instead of one per product.
	arena := make([]factor, 0, len(q.terms)*factorCount(p)+len(p.terms)*factorCount(q))
	// The product has at most len(p)·len(q) terms; two buffers of that size
	// take turns as the merge target, so merging never grows a slice.
	bound := len(p.terms) * len(q.terms)
	buffers := make([]term, 2*bound+len(q.terms))
	product, spare, row := buffers[:0:bound], buffers[bound:bound:2*bound], buffers[2*bound:]
	for _, a := range p.terms {
		for j, b := range q.terms {
			start := len(arena)
			arena = appendProduct(arena, a.mono, b.mono)
			row[j] = term{
				mono: monomial(arena[start:len(arena):len(arena)]),
				deg:  a.deg + b.deg,
				coef: mulRat(a.coef, b.coef),
			}
		}
		spare = mergeTerms(spare[:0], product, row, false)
		product, spare = spare, product
	}
	// Cancellation and shared monomials usually leave the product much
	// shorter than its buffer; a copy lets the buffers go.
	return Poly{terms: slices.Clone(product)}
}

// Pow returns p^k for a non-negative k; p^0 is 1, also for p = 0. It panics
// for a negative k, which is a programming error: a Poly has no inverse.
func (p Poly) Pow(k int) Poly {
	if k < 0 {
		panic(fmt.Sprintf("symbolic: Pow with negative exponent %d", k))
	}
	result, base := Int(1), p
	for ; k > 0; k >>= 1 {
		if k&1 == 1 {
			result = result.Mul(base)
		}
		if k > 1 {
			base = base.Mul(base)
		}
	}
	return result
}

// Coeffs splits p by powers of v: p = Σ_k Coeffs(v)[k]·v^k, where no
// coefficient mentions v. The slice has Degree(v)+1 entries (none for the zero
// polynomial); powers that do not occur have a zero coefficient.
func (p Poly) Coeffs(v string) []Poly {
	d := p.Degree(v)
	if d < 0 {
		return nil
	}
	buckets := make([][]term, d+1)
	for _, t := range p.terms {
		k, rest := t.mono.without(v)
		buckets[k] = append(buckets[k], term{mono: rest, deg: t.deg - k, coef: t.coef})
	}
	out := make([]Poly, d+1)
	for k, b := range buckets {
		// Graded lexicographic order is a monomial order: dividing every
		// term of a bucket by the same v^k keeps the bucket sorted.
		out[k] = Poly{terms: b}
	}
	return out
}

// Substitute returns p with every occurrence of the variable v replaced by q.
// The replacement is simultaneous: occurrences of v inside q are not replaced
// again, so Substitute("i", i+1) shifts an index.
func (p Poly) Substitute(v string, q Poly) Poly {
	if !p.Has(v) {
		return p
	}
	return horner(p.Coeffs(v), q)
}

// horner evaluates Σ_k cs[k]·x^k by Horner's rule, with polynomial x.
func horner(cs []Poly, x Poly) Poly {
	var acc Poly
	for k := len(cs) - 1; k >= 0; k-- {
		acc = acc.Mul(x).Add(cs[k])
	}
	return acc
}

// Eval returns the exact value of p when each variable takes the value env
// gives it. Variables env names but p does not mention are ignored; a variable
// p mentions but env lacks is an error that lists every missing name.
func (p Poly) Eval(env map[string]*big.Rat) (*big.Rat, error) {
	if r, ok := p.evalSmall(env); ok {
		return r.toBig(), nil
	}
	sum := new(big.Rat)
	var product, power big.Rat
	for _, t := range p.terms {
		t.coef.setBig(&product)
		for _, f := range t.mono {
			x := env[f.name]
			if x == nil {
				return nil, p.missingError(env)
			}
			ratPow(&power, x, f.exp)
			product.Mul(&product, &power)
		}
		sum.Add(sum, &product)
	}
	return sum, nil
}

// missingError names every variable of p that env does not give a value.
func (p Poly) missingError(env map[string]*big.Rat) error {
	var missing []string
	for _, v := range p.Vars() {
		if env[v] == nil {
			missing = append(missing, v)
		}
	}
	return fmt.Errorf("symbolic: cannot evaluate %s: no value for %s", p, strings.Join(missing, ", "))
}

// ratPow sets z = x^k for k ≥ 1 by raising numerator and denominator
// separately, which keeps the result reduced without a gcd.
func ratPow(z, x *big.Rat, k int) {
	if k == 1 {
		z.Set(x)
		return
	}
	e := big.NewInt(int64(k))
	num := new(big.Int).Exp(x.Num(), e, nil)
	den := new(big.Int).Exp(x.Denom(), e, nil)
	z.SetFrac(num, den)
}

// exponent returns the power of v in m, 0 if v does not occur.
func (m monomial) exponent(v string) int {
	for _, f := range m {
		if f.name == v {
			return f.exp
		}
	}
	return 0
}

// without returns the power of v in m and m with v removed.
func (m monomial) without(v string) (int, monomial) {
	for i, f := range m {
		if f.name == v {
			rest := make(monomial, 0, len(m)-1)
			rest = append(rest, m[:i]...)
			return f.exp, append(rest, m[i+1:]...)
		}
	}
	return 0, m
}

// factorCount returns the number of factors in all monomials of p.
func factorCount(p Poly) int {
	n := 0
	for _, t := range p.terms {
		n += len(t.mono)
	}
	return n
}

// appendProduct appends the product of the sorted monomials a and b to dst,
// merging them and adding the exponents of shared variables.
func appendProduct(dst []factor, a, b monomial) []factor {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i].name < b[j].name:
			dst = append(dst, a[i])
			i++
		case a[i].name > b[j].name:
			dst = append(dst, b[j])
			j++
		default:
			dst = append(dst, factor{name: a[i].name, exp: a[i].exp + b[j].exp})
			i++
			j++
		}
	}
	dst = append(dst, a[i:]...)
	return append(dst, b[j:]...)
}

// compareTerms orders terms by their monomials in the canonical order: it is
// negative when a comes first, zero when the monomials are equal.
func compareTerms(a, b term) int {
	if a.deg != b.deg {
		return b.deg - a.deg // higher total degree first
	}
	return compareLex(a.mono, b.mono)
}

// compareLex is the lexicographic monomial order on sorted factor lists: at
// the first position where the lists differ, a variable that sorts earlier
// means a positive exponent where the other monomial has none, so that
// monomial comes first; for the same variable the larger exponent comes first.
func compareLex(a, b monomial) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		fa, fb := a[i], b[i]
		if c := strings.Compare(fa.name, fb.name); c != 0 {
			return c
		}
		if fa.exp != fb.exp {
			return fb.exp - fa.exp
		}
	}
	return len(b) - len(a) // an extra factor is a positive exponent the other lacks
}

// normalize sorts terms into canonical order, combines terms with equal
// monomials and drops those that cancel. It reuses ts.
func normalize(ts []term) []term {
	slices.SortFunc(ts, compareTerms)
	out := ts[:0]
	for i := 0; i < len(ts); {
		j, t := i+1, ts[i]
		for ; j < len(ts) && compareTerms(t, ts[j]) == 0; j++ {
			t.coef = addRat(t.coef, ts[j].coef)
		}
		if t.coef.sign() != 0 {
			out = append(out, t)
		}
		i = j
	}
	return out
}

// Coefficients returns the coefficients of p's terms in canonical order, as
// new rationals the caller owns. Callers use it to clear denominators
// (scaling a constraint p ≥ 0 to integer coefficients).
func (p Poly) Coefficients() []*big.Rat {
	out := make([]*big.Rat, len(p.terms))
	for i, t := range p.terms {
		out[i] = t.coef.toBig()
	}
	return out
}

// evalSmall is Eval in int64 fractions, for the common case of small
// coefficients and integer values that fit an int64; ok is false on a
// missing variable, a large value or an overflow, and Eval then takes the
// exact big.Rat path (which also reports a missing variable).
func (p Poly) evalSmall(env map[string]*big.Rat) (rat, bool) {
	sum := ratInt(0)
	for _, t := range p.terms {
		if t.coef.big != nil {
			return rat{}, false
		}
		prod := t.coef
		for _, f := range t.mono {
			x := env[f.name]
			if x == nil || !x.IsInt() || !x.Num().IsInt64() {
				return rat{}, false
			}
			v := ratInt(x.Num().Int64())
			if v.big != nil {
				return rat{}, false
			}
			for range f.exp {
				var ok bool
				if prod, ok = mulSmall(prod, v); !ok {
					return rat{}, false
				}
			}
		}
		var ok bool
		if sum, ok = addSmall(sum, prod); !ok {
			return rat{}, false
		}
	}
	return sum, true
}
