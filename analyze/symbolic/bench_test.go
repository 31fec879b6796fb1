package symbolic

import (
	"math/big"
	"testing"
)

// cubicBody is a dense degree-3 polynomial in i, j, k: every monomial of
// total degree at most 3 with a distinct rational coefficient, 20 terms.
func cubicBody() Poly {
	vars := []Poly{Var("i"), Var("j"), Var("k")}
	var p Poly
	n := int64(1)
	for a := range 4 {
		for b := range 4 - a {
			for c := range 4 - a - b {
				p = p.Add(mul(vars[0].Pow(a), vars[1].Pow(b), vars[2].Pow(c)).Scale(big.NewRat(n, n+1)))
				n++
			}
		}
	}
	return p
}

// BenchmarkSumTriangular sums a dense cubic in three variables over the
// triangular range k = j .. N−1, the inner step of a triangular nest.
func BenchmarkSumTriangular(b *testing.B) {
	body, lo, hi := cubicBody(), Var("j"), Var("N")
	for b.Loop() {
		Sum(body, "k", lo, hi)
	}
}

// BenchmarkSumNest3 closes a three-deep triangular nest over the cubic body:
// i in 0..N, j in 0..i, k in j..N.
func BenchmarkSumNest3(b *testing.B) {
	body, N, i, j := cubicBody(), Var("N"), Var("i"), Var("j")
	for b.Loop() {
		p := Sum(body, "k", j, N)
		p = Sum(p, "j", Poly{}, i)
		Sum(p, "i", Poly{}, N)
	}
}

// BenchmarkSumStep sums the cubic over a strided loop k = j, j+4, … < j+4·BS.
func BenchmarkSumStep(b *testing.B) {
	body, j, BS := cubicBody(), Var("j"), Var("BS")
	for b.Loop() {
		SumCount(body, "k", j, Int(4), BS)
	}
}

// BenchmarkMul multiplies two dense cubics.
func BenchmarkMul(b *testing.B) {
	p := cubicBody()
	q := p.Substitute("k", Var("N"))
	for b.Loop() {
		p.Mul(q)
	}
}

// BenchmarkEvalHuge evaluates a closed three-deep nest at N = 10^12.
func BenchmarkEvalHuge(b *testing.B) {
	N, i, j := Var("N"), Var("i"), Var("j")
	closed := Sum(Sum(Sum(cubicBody(), "k", j, N), "j", Poly{}, i), "i", Poly{}, N)
	e := map[string]*big.Rat{"N": new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(12), nil))}
	for b.Loop() {
		if _, err := closed.Eval(e); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCountNest3 closes the trip count of a three-deep triangular nest,
// the most common request of the counting engine.
func BenchmarkCountNest3(b *testing.B) {
	N, i, j := Var("N"), Var("i"), Var("j")
	for b.Loop() {
		p := Sum(Int(1), "k", j, N)
		p = Sum(p, "j", Poly{}, i)
		Sum(p, "i", Poly{}, N)
	}
}
