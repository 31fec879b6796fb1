package symbolic

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	goldenfile "perfc/internal/golden"
)

// TestFaulhaberConstantBounds checks Σ_{v=lo}^{hi−1} v^k for k = 0..8 against
// brute force over concrete bounds, negative ones included.
func TestFaulhaberConstantBounds(t *testing.T) {
	v := Var("v")
	for k := range 9 {
		t.Run(fmt.Sprintf("k=%d", k), func(t *testing.T) {
			body := v.Pow(k)
			for lo := int64(-9); lo <= 6; lo++ {
				for hi := lo; hi <= lo+15; hi++ {
					got, ok := Sum(body, "v", Int(lo), Int(hi)).Constant()
					want := bruteSum(t, body, "v", lo, hi, 1, nil)
					if !ok || got.Cmp(want) != 0 {
						t.Fatalf("Σ_{v=%d}^{%d} v^%d = %v, want %s", lo, hi-1, k, got, want.RatString())
					}
				}
			}
		})
	}
}

// TestFaulhaberSymbolicBounds sums v^k from L to H−1 once, symbolically, and
// checks the closed form at many concrete bounds.
func TestFaulhaberSymbolicBounds(t *testing.T) {
	v := Var("v")
	for k := range 9 {
		t.Run(fmt.Sprintf("k=%d", k), func(t *testing.T) {
			closed := Sum(v.Pow(k), "v", Var("L"), Var("H"))
			checkCanonical(t, closed)
			for lo := int64(-8); lo <= 5; lo++ {
				for hi := lo; hi <= lo+12; hi++ {
					got := mustEval(t, closed, env(map[string]int64{"L": lo, "H": hi}))
					if want := bruteSum(t, v.Pow(k), "v", lo, hi, 1, nil); got.Cmp(want) != 0 {
						t.Fatalf("%s at L=%d, H=%d is %s, want %s", closed, lo, hi, got.RatString(), want.RatString())
					}
				}
			}
		})
	}
}

// TestFaulhaberGolden pins the printed power sums S_k(n) = Σ_{v=0}^{n−1} v^k.
// Their values are checked above; this checks the canonical form and String.
func TestFaulhaberGolden(t *testing.T) {
	var b strings.Builder
	for k := range 9 {
		fmt.Fprintf(&b, "S_%d(n) = %s\n", k, Sum(Var("v").Pow(k), "v", Poly{}, Var("n")))
	}
	golden := filepath.Join("testdata", "faulhaber.golden")
	goldenfile.Check(t, golden, b.String())
}

// TestHighPowerBeyondTable exercises the on-demand Faulhaber coefficients.
func TestHighPowerBeyondTable(t *testing.T) {
	k := tabulatedPowers + 2
	closed := Sum(Var("v").Pow(k), "v", Int(-3), Var("H"))
	for hi := int64(-3); hi <= 6; hi++ {
		got := mustEval(t, closed, env(map[string]int64{"H": hi}))
		if want := bruteSum(t, Var("v").Pow(k), "v", -3, hi, 1, nil); got.Cmp(want) != 0 {
			t.Fatalf("Σ v^%d to H=%d: %s, want %s", k, hi, got.RatString(), want.RatString())
		}
	}
}

// TestSumCrossedBounds pins the documented convention for hi < lo.
func TestSumCrossedBounds(t *testing.T) {
	got := Sum(Int(1), "v", Int(5), Int(2))
	if want := Int(-3); !got.Equal(want) {
		t.Errorf("Σ_{v=5}^{1} 1 = %s, want %s (S(hi) − S(lo))", got, want)
	}
}

// loop is one level of a test nest: for v in lo .. hi.
type loop struct {
	v      string
	lo, hi Poly
}

// closedNest sums body over the nest from the innermost loop out.
func closedNest(body Poly, loops []loop) Poly {
	for i := len(loops) - 1; i >= 0; i-- {
		body = Sum(body, loops[i].v, loops[i].lo, loops[i].hi)
	}
	return body
}

// bruteNest runs the nest and adds body at every iteration.
func bruteNest(t *testing.T, body Poly, loops []loop, e map[string]*big.Rat) *big.Rat {
	t.Helper()
	if len(loops) == 0 {
		return mustEval(t, body, e)
	}
	l := loops[0]
	total := new(big.Rat)
	for x, hi := mustEvalInt(t, l.lo, e), mustEvalInt(t, l.hi, e); x < hi; x++ {
		total.Add(total, bruteNest(t, body, loops[1:], with(e, l.v, x)))
	}
	return total
}

func TestNests(t *testing.T) {
	N, M, BS := Var("N"), Var("M"), Var("BS")
	i, j, k := Var("i"), Var("j"), Var("k")
	one := Int(1)
	tests := []struct {
		name   string
		body   Poly
		loops  []loop
		params []string // each checked at 0..6 (N) or 1..3 (others)
		want   string
	}{
		{
			name:   "triangular upper, Σ_j Σ_{k=j}^{N} 1",
			body:   one,
			loops:  []loop{{"j", Int(0), N}, {"k", j, N.Add(one)}},
			params: []string{"N"},
			want:   "N^2/2 + 3*N/2",
		},
		{
			name:   "triangular strict lower",
			body:   one,
			loops:  []loop{{"i", Int(0), N}, {"j", Int(0), i}},
			params: []string{"N"},
			want:   "N^2/2 - N/2",
		},
		{
			name:   "trapezoidal block of width BS",
			body:   j,
			loops:  []loop{{"i", Int(0), N}, {"j", i, i.Add(BS)}},
			params: []string{"N", "BS"},
			want:   "BS^2*N/2 + BS*N^2/2 - BS*N",
		},
		{
			name:   "three deep, C(N, 3)",
			body:   one,
			loops:  []loop{{"i", Int(0), N}, {"j", Int(0), i}, {"k", Int(0), j}},
			params: []string{"N"},
			want:   "N^3/6 - N^2/2 + N/3",
		},
		{
			name:   "LU update, Σ_k (N−k−1)^2",
			body:   one,
			loops:  []loop{{"k", Int(0), N}, {"i", k.Add(one), N}, {"j", k.Add(one), N}},
			params: []string{"N"},
			want:   "N^3/3 - N^2/2 + N/6",
		},
		{
			name:   "three deep with parameters in bounds and body",
			body:   add(mul(i, k), j),
			loops:  []loop{{"i", one, N}, {"j", i, N}, {"k", Int(0), add(j, M, i.Neg())}},
			params: []string{"N", "M"},
		},
		{
			name:   "negative lower bounds",
			body:   mul(j, j),
			loops:  []loop{{"i", N.Neg(), N}, {"j", i, N.Add(one)}},
			params: []string{"N"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			closed := closedNest(tt.body, tt.loops)
			checkCanonical(t, closed)
			for _, v := range []string{"i", "j", "k"} {
				if closed.Has(v) {
					t.Fatalf("closed form %s still mentions loop index %s", closed, v)
				}
			}
			if tt.want != "" {
				if diff := cmp.Diff(tt.want, closed.String()); diff != "" {
					t.Errorf("closed form mismatch (-want +got):\n%s", diff)
				}
			}
			forEachPoint(tt.params, func(e map[string]*big.Rat) {
				got := mustEval(t, closed, e)
				if want := bruteNest(t, tt.body, tt.loops, e); got.Cmp(want) != 0 {
					t.Fatalf("%s at %v = %s, brute force %s", closed, e, got.RatString(), want.RatString())
				}
			})
		})
	}
}

// forEachPoint calls f at every point of a small grid: N in 0..6 and other
// parameters in 1..3.
func forEachPoint(params []string, f func(map[string]*big.Rat)) {
	if len(params) == 0 {
		f(map[string]*big.Rat{})
		return
	}
	lo, hi := int64(1), int64(3)
	if params[0] == "N" {
		lo, hi = 0, 6
	}
	for x := lo; x <= hi; x++ {
		forEachPoint(params[1:], func(e map[string]*big.Rat) { f(with(e, params[0], x)) })
	}
}

// TestSumProperty sums random polynomials over random affine bounds, one
// level and two levels deep, and compares with brute force.
func TestSumProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	params := []string{"N", "M"}
	for trial := range 150 {
		body := randomPoly(rng, []string{"i", "j", "N", "M"}, 3)
		outerLo := randomAffine(rng, params, -2, 2)
		outerHi := outerLo.Add(randomAffine(rng, params, 0, 2))
		innerLo := randomAffine(rng, append([]string{"j"}, params...), -2, 2)
		innerHi := innerLo.Add(randomAffine(rng, params, 0, 2))
		loops := []loop{{"j", outerLo, outerHi}, {"i", innerLo, innerHi}}
		single := Sum(body, "i", innerLo, innerHi)
		double := closedNest(body, loops)
		checkCanonical(t, single)
		checkCanonical(t, double)
		for range 3 {
			e := env(map[string]int64{"N": rng.Int64N(6), "M": rng.Int64N(6), "j": rng.Int64N(9) - 4})
			if got, want := mustEval(t, single, e), bruteNest(t, body, loops[1:], e); got.Cmp(want) != 0 {
				t.Fatalf("trial %d: Σ_{i=%s}^{%s−1} %s = %s at %v is %s, brute force %s",
					trial, innerLo, innerHi, body, single, e, got.RatString(), want.RatString())
			}
			if got, want := mustEval(t, double, e), bruteNest(t, body, loops, e); got.Cmp(want) != 0 {
				t.Fatalf("trial %d: nest %v over %s = %s at %v is %s, brute force %s",
					trial, loops, body, double, e, got.RatString(), want.RatString())
			}
		}
	}
}

// TestSumHuge evaluates closed forms at N = 10^12 and compares with the
// textbook formulas in big.Int arithmetic.
func TestSumHuge(t *testing.T) {
	N, i, j := Var("N"), Var("i"), Var("j")
	n := new(big.Int).Exp(big.NewInt(10), big.NewInt(12), nil)
	big3 := func(a, b, c *big.Int, den int64) *big.Int {
		r := new(big.Int).Mul(a, b)
		r.Mul(r, c)
		return r.Quo(r, big.NewInt(den))
	}
	plus := func(d int64) *big.Int { return new(big.Int).Add(n, big.NewInt(d)) }
	twoNMinus1 := new(big.Int).Sub(new(big.Int).Lsh(n, 1), big.NewInt(1))
	tests := []struct {
		name   string
		closed Poly
		want   *big.Int
	}{
		{"C(N, 3)", closedNest(Int(1), []loop{{"i", Int(0), N}, {"j", Int(0), i}, {"k", Int(0), j}}),
			big3(n, plus(-1), plus(-2), 6)},
		{"Σ i^2", Sum(i.Pow(2), "i", Int(0), N), big3(plus(-1), n, twoNMinus1, 6)},
		{"triangular N(N+3)/2", closedNest(Int(1), []loop{{"j", Int(0), N}, {"k", j, N.Add(Int(1))}}),
			big3(n, plus(3), big.NewInt(1), 2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustEval(t, tt.closed, map[string]*big.Rat{"N": new(big.Rat).SetInt(n)})
			if !got.IsInt() || got.Num().Cmp(tt.want) != 0 {
				t.Errorf("%s at N = 10^12 is %s, want %s", tt.closed, got.RatString(), tt.want)
			}
		})
	}
}

func TestTripCount(t *testing.T) {
	N, M := Var("N"), Var("M")
	tests := []struct {
		name    string
		lo, hi  Poly
		step    int64
		want    string
		wantOK  bool
		checkAt []string
	}{
		{"unit step", N, N.Mul(M), 1, "M*N - N", true, []string{"N", "M"}},
		{"constant length", N, N.Add(Int(10)), 4, "3", true, []string{"N"}},
		{"constant length exact", Int(-3), Int(9), 3, "4", true, nil},
		{"even length", Int(0), N.Scale(big.NewRat(2, 1)), 2, "N", true, []string{"N"}},
		{"odd length", Int(1), N.Scale(big.NewRat(2, 1)).Add(Int(2)), 2, "N + 1", true, []string{"N"}},
		{"integer-valued quotient", Int(0), N.Mul(N).Add(N), 2, "N^2/2 + N/2", true, []string{"N"}},
		{"integer-valued plus fraction", Int(0), N.Mul(N).Add(N).Add(Int(1)), 2, "N^2/2 + N/2 + 1", true, []string{"N"}},
		{"parameter length", Int(0), N, 2, "", false, nil},
		{"mixed", Int(0), N.Add(M.Scale(big.NewRat(2, 1))), 2, "", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := TripCount(tt.lo, tt.hi, tt.step)
			if ok != tt.wantOK || (ok && got.String() != tt.want) {
				t.Fatalf("TripCount(%s, %s, %d) = %s, %v; want %s, %v", tt.lo, tt.hi, tt.step, got, ok, tt.want, tt.wantOK)
			}
			if !ok {
				return
			}
			forEachPoint(tt.checkAt, func(e map[string]*big.Rat) {
				trips := int64(0)
				for x, hi := mustEvalInt(t, tt.lo, e), mustEvalInt(t, tt.hi, e); x < hi; x += tt.step {
					trips++
				}
				if c := mustEvalInt(t, got, e); c != trips {
					t.Fatalf("%s at %v = %d, the loop runs %d times", got, e, c, trips)
				}
			})
		})
	}
}

func TestSumStep(t *testing.T) {
	N, v := Var("N"), Var("v")
	tests := []struct {
		name   string
		body   Poly
		lo, hi Poly
		step   int64
		want   string
		params []string
	}{
		{"constant range, negative start", v.Pow(2), Int(-7), Int(10), 3, "", nil},
		{"shifted window", v.Mul(N), N, N.Add(Int(10)), 4, "3*N^2 + 12*N", []string{"N"}},
		{"even indices", v, Int(0), N.Scale(big.NewRat(2, 1)), 2, "N^2 - N", []string{"N"}},
		{"odd indices squared", v.Pow(2), Int(1), N.Scale(big.NewRat(2, 1)).Add(Int(2)), 2, "", []string{"N"}},
		{"step 1 equals Sum", v.Pow(3).Add(N), N.Neg(), N, 1, "", []string{"N"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := SumStep(tt.body, "v", tt.lo, tt.hi, tt.step)
			if !ok {
				t.Fatalf("SumStep reported no closed trip count")
			}
			checkCanonical(t, got)
			if tt.want != "" && got.String() != tt.want {
				t.Errorf("SumStep = %s, want %s", got, tt.want)
			}
			forEachPoint(tt.params, func(e map[string]*big.Rat) {
				want := bruteSum(t, tt.body, "v", mustEvalInt(t, tt.lo, e), mustEvalInt(t, tt.hi, e), tt.step, e)
				if val := mustEval(t, got, e); val.Cmp(want) != 0 {
					t.Fatalf("%s at %v = %s, brute force %s", got, e, val.RatString(), want.RatString())
				}
			})
		})
	}
	if got, ok := SumStep(v, "v", Int(0), N, 2); ok {
		t.Errorf("SumStep over 0..N step 2 = %s; want no closed form (⌈N/2⌉)", got)
	}
}

// TestSumCount covers a caller-supplied count: a blocked loop ii in 0..N
// step BS, where the caller knows N = nb·BS and passes nb.
func TestSumCount(t *testing.T) {
	BS, nb, ii := Var("BS"), Var("nb"), Var("ii")
	body := Sum(Var("i"), "i", ii, ii.Add(BS)) // Σ_{i=ii}^{ii+BS−1} i
	got := SumCount(body, "ii", Int(0), BS, nb)
	checkCanonical(t, got)
	if want := "BS^2*nb^2/2 - BS*nb/2"; got.String() != want {
		t.Errorf("SumCount = %s, want %s", got, want)
	}
	for b := int64(1); b <= 4; b++ {
		for blocks := int64(0); blocks <= 5; blocks++ {
			e := env(map[string]int64{"BS": b, "nb": blocks})
			want := bruteSum(t, Var("i"), "i", 0, b*blocks, 1, nil) // the blocks tile 0..N
			if val := mustEval(t, got, e); val.Cmp(want) != 0 {
				t.Fatalf("%s at BS=%d, nb=%d = %s, brute force %s", got, b, blocks, val.RatString(), want.RatString())
			}
		}
	}
}

// TestPanics checks that precondition violations say what went wrong.
func TestPanics(t *testing.T) {
	N, v := Var("N"), Var("v")
	tests := []struct {
		name string
		call func()
		want string
	}{
		{"Sum bound mentions index", func() { Sum(v, "v", Int(0), v) }, "Sum over v with bounds 0 .. v that mention v"},
		{"SumCount count mentions index", func() { SumCount(v, "v", Int(0), Int(1), v) }, "that mention v"},
		{"TripCount zero step", func() { TripCount(Int(0), N, 0) }, "step 0; a step must be positive"},
		{"SumStep negative step", func() { SumStep(v, "v", Int(0), N, -1) }, "step -1; a step must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				r := recover()
				msg, _ := r.(string)
				if !strings.Contains(msg, tt.want) {
					t.Errorf("recovered %v, want a panic containing %q", r, tt.want)
				}
			}()
			tt.call()
		})
	}
}
