package symbolic

import (
	"fmt"
	"math/big"
)

// Sum returns Σ_{v=lo}^{hi−1} p, the sum of p over the integers lo ≤ v < hi,
// as a polynomial in the remaining variables. It never iterates: p is split
// into powers of v, and each power is summed by Faulhaber's formula,
//
//	Σ_{v=lo}^{hi−1} v^k = S_k(hi) − S_k(lo),  S_k(n) = Σ_{v=0}^{n−1} v^k,
//
// whose coefficients are exact rationals built from Bernoulli numbers. The
// bounds lo and hi may be polynomials in other variables, which is what
// triangular and trapezoidal nests need; they must not mention v, and Sum
// panics if they do (a bound cannot depend on its own loop index).
//
// Domain: the caller guarantees that hi ≥ lo, and that lo and hi are
// integers, wherever the result is used. For hi < lo the formula does not give
// 0 (an empty loop) but −Σ_{v=hi}^{lo−1} p, the usual S(hi) − S(lo)
// convention. A caller whose bounds can cross splits the domain first, at
// the threshold SolveGE finds for hi − lo ≥ 0, and sums only the piece where
// the loop runs.
func Sum(p Poly, v string, lo, hi Poly) Poly {
	if lo.Has(v) || hi.Has(v) {
		panic(fmt.Sprintf("symbolic: Sum over %s with bounds %s .. %s that mention %s", v, lo, hi, v))
	}
	if !p.Has(v) {
		// A summand free of v (every level of a rectangular nest but the
		// innermost) is p times the trip count; Faulhaber's way gives the
		// same polynomial through a slice of coefficients and powers.
		return p.Mul(hi.Sub(lo))
	}
	cs := p.Coeffs(v)
	diffs := powerDifferences(lo, hi, len(cs))
	var result Poly
	for k, c := range cs {
		if c.IsZero() {
			continue
		}
		result = result.Add(c.Mul(linearCombination(faulhaberCoeffs(k), diffs)))
	}
	return result
}

// SumCount returns Σ_{t=0}^{count−1} p(v = lo + step·t): the sum of p over a
// strided loop v = lo, lo+step, lo+2·step, … that runs count times. It is the
// general form of SumStep for callers that know the trip count better than
// TripCount can compute it: a count from a known divisibility (N/2 when the
// kernel requires N even), a fresh variable standing for a quotient
// (nb with N = nb·BS, for step BS), or a constant obtained by evaluating
// ⌈(hi−lo)/step⌉ at concrete parameters. step may be any polynomial.
//
// lo, step and count must not mention v, and count must be a non-negative
// integer wherever the result is used (see Sum).
func SumCount(p Poly, v string, lo, step, count Poly) Poly {
	if lo.Has(v) || step.Has(v) || count.Has(v) {
		panic(fmt.Sprintf("symbolic: SumCount over %s with start %s, step %s or count %s that mention %s",
			v, lo, step, count, v))
	}
	// Reusing v as the counter t is safe: after the substitution v occurs
	// only where t would.
	strided := p.Substitute(v, lo.Add(step.Mul(Var(v))))
	return Sum(strided, v, Poly{}, count)
}

// SumStep returns the sum of p over v = lo, lo+step, … while v < hi, for a
// constant positive step. It needs the trip count ⌈(hi−lo)/step⌉ as a
// polynomial, which TripCount finds when hi−lo is a constant or, more
// generally, when (hi−lo)/step minus its constant term takes only integer
// values (hi−lo = 2N with step 2). Otherwise ok is false, and the caller
// supplies the count itself through SumCount.
//
// The caller guarantees hi ≥ lo (see Sum). SumStep panics for step ≤ 0.
func SumStep(p Poly, v string, lo, hi Poly, step int64) (sum Poly, ok bool) {
	count, ok := TripCount(lo, hi, step)
	if !ok {
		return Poly{}, false
	}
	return SumCount(p, v, lo, Int(step), count), true
}

// TripCount returns ⌈(hi−lo)/step⌉, the number of iterations of
// v = lo, lo+step, … while v < hi, when it is a polynomial; see Ceil for
// exactly when that is. The caller guarantees hi ≥ lo; step must be positive
// and TripCount panics otherwise.
func TripCount(lo, hi Poly, step int64) (Poly, bool) {
	if step <= 0 {
		panic(fmt.Sprintf("symbolic: TripCount with step %d; a step must be positive", step))
	}
	return Ceil(hi.Sub(lo).Scale(big.NewRat(1, step)))
}

// powerDifferences returns hi^d − lo^d for d = 0..top, by repeated
// multiplication so that each power costs one product.
func powerDifferences(lo, hi Poly, top int) []Poly {
	diffs := make([]Poly, top+1) // diffs[0] = 1 − 1 = 0
	hiPow, loPow := Int(1), Int(1)
	for d := 1; d <= top; d++ {
		hiPow, loPow = hiPow.Mul(hi), loPow.Mul(lo)
		diffs[d] = hiPow.Sub(loPow)
	}
	return diffs
}

// linearCombination returns Σ_d coeffs[d]·polys[d], normalizing once at the
// end instead of after every addition.
func linearCombination(coeffs []rat, polys []Poly) Poly {
	var ts []term
	for d, c := range coeffs {
		if c.sign() == 0 {
			continue
		}
		for _, t := range polys[d].terms {
			ts = append(ts, term{mono: t.mono, deg: t.deg, coef: mulRat(c, t.coef)})
		}
	}
	return Poly{terms: normalize(ts)}
}

// tabulatedPowers is how many power sums S_0 … S_{tabulatedPowers−1} are
// precomputed. Loop nests seldom reach degree 6; higher powers are built on
// demand.
const tabulatedPowers = 16

// powerSumTable holds the Faulhaber coefficients of the tabulated power sums.
// It is computed once when the package is initialized and only read after
// that, like the tables of package unicode.
var powerSumTable = faulhaberTable(tabulatedPowers - 1)

// faulhaberCoeffs returns the coefficients of S_k(n) = Σ_{v=0}^{n−1} v^k as a
// polynomial in n: entry d is the coefficient of n^d, d = 0 … k+1. The slice
// and its values must not be modified.
func faulhaberCoeffs(k int) []rat {
	if k < len(powerSumTable) {
		return powerSumTable[k]
	}
	return faulhaberTable(k)[k]
}

// faulhaberTable returns faulhaberCoeffs(k) for k = 0 … maxK, from
// Faulhaber's formula
//
//	S_k(n) = 1/(k+1) · Σ_{j=0}^{k} C(k+1, j) · B_j · n^{k+1−j},
//
// with the Bernoulli numbers of the convention B_1 = −1/2, which is the one
// that sums up to n−1 rather than n.
func faulhaberTable(maxK int) [][]rat {
	bern := bernoulli(maxK)
	table := make([][]rat, maxK+1)
	row := []*big.Int{big.NewInt(1)}
	for k := 0; k <= maxK; k++ {
		row = nextPascalRow(row) // C(k+1, ·)
		coeffs := make([]rat, k+2)
		coeffs[0] = ratInt(0)
		for j := 0; j <= k; j++ {
			c := new(big.Rat).SetInt(row[j])
			c.Mul(c, bern[j])
			coeffs[k+1-j] = ownRat(c.Quo(c, big.NewRat(int64(k+1), 1)))
		}
		table[k] = coeffs
	}
	return table
}

// bernoulli returns B_0 … B_n with B_1 = −1/2, from the recurrence
// Σ_{j=0}^{m} C(m+1, j)·B_j = 0 for m ≥ 1.
func bernoulli(n int) []*big.Rat {
	bern := make([]*big.Rat, n+1)
	row := []*big.Int{big.NewInt(1)}
	for m := 0; m <= n; m++ {
		row = nextPascalRow(row) // C(m+1, ·)
		if m == 0 {
			bern[0] = big.NewRat(1, 1)
			continue
		}
		sum := new(big.Rat)
		for j := 0; j < m; j++ {
			sum.Add(sum, new(big.Rat).Mul(new(big.Rat).SetInt(row[j]), bern[j]))
		}
		bern[m] = sum.Quo(sum, big.NewRat(int64(-(m+1)), 1))
	}
	return bern
}

// nextPascalRow returns the binomial coefficients C(n+1, ·) given C(n, ·).
func nextPascalRow(row []*big.Int) []*big.Int {
	next := make([]*big.Int, len(row)+1)
	next[0], next[len(row)] = big.NewInt(1), big.NewInt(1)
	for i := 1; i < len(row); i++ {
		next[i] = new(big.Int).Add(row[i-1], row[i])
	}
	return next
}
