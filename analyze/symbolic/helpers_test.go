package symbolic

import (
	"math/big"
	"math/rand/v2"
	"testing"
)

// add returns the sum of ps, so that test tables read like formulas.
func add(ps ...Poly) Poly {
	var s Poly
	for _, p := range ps {
		s = s.Add(p)
	}
	return s
}

// mul returns the product of ps.
func mul(ps ...Poly) Poly {
	s := Int(1)
	for _, p := range ps {
		s = s.Mul(p)
	}
	return s
}

// env turns integer values into the exact environment Eval takes.
func env(values map[string]int64) map[string]*big.Rat {
	out := make(map[string]*big.Rat, len(values))
	for k, v := range values {
		out[k] = new(big.Rat).SetInt64(v)
	}
	return out
}

// with returns a copy of e in which name has the integer value v.
func with(e map[string]*big.Rat, name string, v int64) map[string]*big.Rat {
	out := make(map[string]*big.Rat, len(e)+1)
	for k, x := range e {
		out[k] = x
	}
	out[name] = new(big.Rat).SetInt64(v)
	return out
}

// mustEval evaluates p at e and fails the test on error.
func mustEval(t *testing.T, p Poly, e map[string]*big.Rat) *big.Rat {
	t.Helper()
	r, err := p.Eval(e)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// mustEvalInt evaluates an integer-valued bound p at e.
func mustEvalInt(t *testing.T, p Poly, e map[string]*big.Rat) int64 {
	t.Helper()
	r := mustEval(t, p, e)
	if !r.IsInt() || !r.Num().IsInt64() {
		t.Fatalf("bound %s = %s at %v is not a small integer", p, r.RatString(), e)
	}
	return r.Num().Int64()
}

// bruteSum adds p over v = lo, lo+step, … while v < hi, one iteration at a
// time: the reference every closed form is checked against.
func bruteSum(t *testing.T, p Poly, v string, lo, hi, step int64, e map[string]*big.Rat) *big.Rat {
	t.Helper()
	total := new(big.Rat)
	for x := lo; x < hi; x += step {
		total.Add(total, mustEval(t, p, with(e, v, x)))
	}
	return total
}

// checkCanonical fails the test unless p is in canonical form: factors sorted
// with positive exponents, cached degrees right, terms strictly ordered and no
// zero coefficient. Every property test runs it on its results.
func checkCanonical(t *testing.T, p Poly) {
	t.Helper()
	for i, tm := range p.terms {
		if tm.coef.sign() == 0 {
			t.Fatalf("%s: term %d has a zero coefficient", p, i)
		}
		deg := 0
		for j, f := range tm.mono {
			if f.exp <= 0 || (j > 0 && tm.mono[j-1].name >= f.name) {
				t.Fatalf("%s: term %d has monomial %v out of order", p, i, tm.mono)
			}
			deg += f.exp
		}
		if deg != tm.deg {
			t.Fatalf("%s: term %d caches degree %d, has %d", p, i, tm.deg, deg)
		}
		if i > 0 && compareTerms(p.terms[i-1], tm) >= 0 {
			t.Fatalf("%s: terms %d and %d are not strictly ordered", p, i-1, i)
		}
	}
}

// randomPoly returns a random polynomial in vars of total degree at most
// maxDeg, with small rational coefficients, some of them cancelling.
func randomPoly(rng *rand.Rand, vars []string, maxDeg int) Poly {
	var p Poly
	for range 1 + rng.IntN(6) {
		tm := Rat(rng.Int64N(11)-5, 1+rng.Int64N(3))
		deg := rng.IntN(maxDeg + 1)
		for range deg {
			tm = tm.Mul(Var(vars[rng.IntN(len(vars))]))
		}
		p = p.Add(tm)
	}
	return p
}

// randomAffine returns c0 + Σ c_x·x over vars with integer coefficients in
// [lo, hi].
func randomAffine(rng *rand.Rand, vars []string, lo, hi int64) Poly {
	p := Int(lo + rng.Int64N(hi-lo+1))
	for _, v := range vars {
		p = p.Add(Int(lo + rng.Int64N(hi-lo+1)).Mul(Var(v)))
	}
	return p
}
