package symbolic

import (
	"encoding/json"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestString(t *testing.T) {
	N, BS, P, i, j := Var("N"), Var("BS"), Var("P"), Var("i"), Var("j")
	tests := []struct {
		name string
		p    Poly
		want string
	}{
		{"zero", Poly{}, "0"},
		{"zero from cancellation", N.Sub(N), "0"},
		{"integer", Int(7), "7"},
		{"negative integer", Int(-7), "-7"},
		{"fraction", Rat(6, 4), "3/2"},
		{"negative fraction", Rat(-1, 3), "-1/3"},
		{"variable", N, "N"},
		{"negated variable", N.Neg(), "-N"},
		{"triangle", mul(N, N.Add(Int(1))).Scale(big.NewRat(1, 2)), "N^2/2 + N/2"},
		{"block", add(mul(BS, N), BS), "BS*N + BS"},
		{"cubic difference", add(N.Pow(3), N.Neg()).Scale(big.NewRat(1, 3)), "N^3/3 - N/3"},
		{"numerator and denominator", N.Pow(2).Scale(big.NewRat(3, 2)), "3*N^2/2"},
		{"integer coefficient", mul(Int(4), N, P), "4*N*P"},
		{"negative leading fraction", add(N.Scale(big.NewRat(-5, 6)), Int(2)), "-5*N/6 + 2"},
		{"constant last", add(Int(1), N, N.Pow(2)), "N^2 + N + 1"},
		// Graded order: degree first, then the larger power of the
		// earliest variable; upper case sorts before lower case.
		{"graded lex", add(i, N, mul(i, j), N.Pow(2), mul(N, i), mul(BS, j)), "BS*j + N^2 + N*i + i*j + N + i"},
		{"powers in a monomial", mul(BS.Pow(2), N, i.Pow(3)), "BS^2*N*i^3"},
		{"subtract to negative middle", add(N.Pow(2), N.Scale(big.NewRat(-1, 2)), Rat(1, 4)), "N^2 - N/2 + 1/4"},
		{"big coefficient", BigInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(20), nil)).Mul(N), "100000000000000000000*N"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkCanonical(t, tt.p)
			if diff := cmp.Diff(tt.want, tt.p.String()); diff != "" {
				t.Errorf("String() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMarshalJSON(t *testing.T) {
	report := map[string]Poly{"trips": add(mul(Var("N"), Var("N")), Int(-1)).Scale(big.NewRat(1, 2))}
	got, err := json.Marshal(report)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`{"trips":"N^2/2 - 1/2"}`, string(got)); diff != "" {
		t.Errorf("MarshalJSON mismatch (-want +got):\n%s", diff)
	}
}

func TestQueries(t *testing.T) {
	N, i := Var("N"), Var("i")
	p := add(mul(N, N, i), i.Scale(big.NewRat(1, 2)), Int(3))
	type result struct {
		Vars                          []string
		DegN, DegI, DegX, Total       int
		IsConst, IsZero, HasI, HasX   bool
		Const                         string
		ZeroDeg, ZeroTotal, ConstDegN int
	}
	got := result{
		Vars: p.Vars(),
		DegN: p.Degree("N"), DegI: p.Degree("i"), DegX: p.Degree("x"), Total: p.TotalDegree(),
		IsConst: p.IsConst(), IsZero: p.IsZero(), HasI: p.Has("i"), HasX: p.Has("x"),
		Const:   p.ConstantTerm().RatString(),
		ZeroDeg: Poly{}.Degree("N"), ZeroTotal: Poly{}.TotalDegree(), ConstDegN: Int(5).Degree("N"),
	}
	want := result{
		Vars: []string{"N", "i"},
		DegN: 2, DegI: 1, DegX: 0, Total: 3,
		HasI:    true,
		Const:   "3",
		ZeroDeg: -1, ZeroTotal: -1, ConstDegN: 0,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("queries mismatch (-want +got):\n%s", diff)
	}
	if v, ok := Rat(2, 3).Constant(); !ok || v.Cmp(big.NewRat(2, 3)) != 0 {
		t.Errorf("Rat(2, 3).Constant() = %v, %v; want 2/3, true", v, ok)
	}
	if _, ok := p.Constant(); ok {
		t.Errorf("%s.Constant() reported a constant", p)
	}
}

func TestArithmetic(t *testing.T) {
	N, M, i := Var("N"), Var("M"), Var("i")
	tests := []struct {
		name string
		got  Poly
		want string
	}{
		{"add cancels", N.Add(M).Sub(N), "M"},
		{"square of sum", N.Add(M).Pow(2), "M^2 + 2*M*N + N^2"},
		{"difference of squares", N.Add(M).Mul(N.Sub(M)), "-M^2 + N^2"},
		{"pow zero", N.Pow(0), "1"},
		{"zero to the zero", Poly{}.Pow(0), "1"},
		{"pow three", N.Sub(Int(1)).Pow(3), "N^3 - 3*N^2 + 3*N - 1"},
		{"scale by zero", N.Scale(new(big.Rat)), "0"},
		{"scale", N.Add(Int(2)).Scale(big.NewRat(-3, 4)), "-3*N/4 - 3/2"},
		{"neg", N.Sub(Int(2)).Neg(), "-N + 2"},
		{"mul by zero", N.Mul(Poly{}), "0"},
		{"substitute shift", N.Pow(2).Add(i).Substitute("i", i.Add(Int(1))), "N^2 + i + 1"},
		{"substitute simultaneous", mul(i, i).Substitute("i", i.Add(N)), "N^2 + 2*N*i + i^2"},
		{"substitute absent", N.Substitute("i", M), "N"},
		{"substitute constant", add(mul(N, i), i).Substitute("i", Int(2)), "2*N + 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkCanonical(t, tt.got)
			if diff := cmp.Diff(tt.want, tt.got.String()); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestImmutable checks that no operation changes its operands or the caller's
// big.Rat, since polys share terms and coefficients.
func TestImmutable(t *testing.T) {
	r := big.NewRat(3, 2)
	c := Const(r)
	r.SetInt64(100)
	if got := c.String(); got != "3/2" {
		t.Fatalf("Const kept the caller's big.Rat: %s", got)
	}
	p := add(Var("N").Pow(2), Var("N"), Int(1))
	q := add(Var("N"), Int(-1))
	before := p.String() + "|" + q.String()
	_ = p.Add(q)
	_ = p.Sub(q)
	_ = p.Mul(q)
	_ = p.Neg()
	_ = p.Scale(big.NewRat(7, 3))
	_ = p.Substitute("N", q)
	_ = p.Pow(3)
	_ = Sum(p.Mul(Var("i")), "i", q, q.Add(Int(4)))
	v, _ := p.Constant()
	_ = v
	p.ConstantTerm().SetInt64(99)
	if after := p.String() + "|" + q.String(); after != before {
		t.Fatalf("operations changed their operands: %s, want %s", after, before)
	}
}

func TestEval(t *testing.T) {
	N, i := Var("N"), Var("i")
	p := add(mul(N, N).Scale(big.NewRat(1, 2)), i.Scale(big.NewRat(-2, 3)), Int(5))
	tests := []struct {
		name string
		env  map[string]*big.Rat
		want string
	}{
		{"integers", env(map[string]int64{"N": 4, "i": 3}), "11"},
		{"fraction", env(map[string]int64{"N": 3, "i": 0}), "19/2"},
		{"negative", env(map[string]int64{"N": -3, "i": -3}), "23/2"},
		{"extra variable ignored", env(map[string]int64{"N": 0, "i": 0, "Q": 9}), "5"},
		{"rational values", map[string]*big.Rat{"N": big.NewRat(1, 2), "i": big.NewRat(3, 4)}, "37/8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, mustEval(t, p, tt.env).RatString()); diff != "" {
				t.Errorf("Eval mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEvalMissing(t *testing.T) {
	p := add(Var("N"), Var("M"), Var("i"))
	_, err := p.Eval(env(map[string]int64{"N": 1}))
	want := "symbolic: cannot evaluate M + N + i: no value for M, i"
	if err == nil || err.Error() != want {
		t.Errorf("Eval error = %v, want %q", err, want)
	}
}

// TestEvalHuge evaluates at N = 10^12 and compares with big.Int arithmetic
// done by hand: exactness is what the counting engine promises.
func TestEvalHuge(t *testing.T) {
	n := new(big.Int).Exp(big.NewInt(10), big.NewInt(12), nil)
	N := Var("N")
	p := add(N.Pow(3).Scale(big.NewRat(1, 3)), N.Scale(big.NewRat(-1, 3)), Int(7)) // (N^3 − N)/3 + 7
	want := new(big.Int).Exp(n, big.NewInt(3), nil)
	want.Sub(want, n)
	want.Quo(want, big.NewInt(3))
	want.Add(want, big.NewInt(7))
	got := mustEval(t, p, map[string]*big.Rat{"N": new(big.Rat).SetInt(n)})
	if !got.IsInt() || got.Num().Cmp(want) != 0 {
		t.Errorf("Eval at 10^12 = %s, want %s", got.RatString(), want)
	}
}

// TestRingProperties checks the ring laws and Substitute against evaluation
// on random polynomials: whatever the representation does, the values must
// agree with arithmetic on numbers.
func TestRingProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	vars := []string{"N", "M", "i"}
	for trial := range 200 {
		p, q, r := randomPoly(rng, vars, 3), randomPoly(rng, vars, 3), randomPoly(rng, vars, 2)
		e := env(map[string]int64{"N": rng.Int64N(11) - 5, "M": rng.Int64N(11) - 5, "i": rng.Int64N(11) - 5})
		val := func(x Poly) *big.Rat { return mustEval(t, x, e) }
		results := map[string]Poly{
			"p+q": p.Add(q), "p-q": p.Sub(q), "p*q": p.Mul(q), "-p": p.Neg(), "p^3": p.Pow(3),
			"p(i:=r)": p.Substitute("i", r), "(p+q)*r": p.Add(q).Mul(r), "p*r+q*r": p.Mul(r).Add(q.Mul(r)),
		}
		for _, x := range results {
			checkCanonical(t, x)
		}
		if !results["(p+q)*r"].Equal(results["p*r+q*r"]) {
			t.Fatalf("trial %d: distributivity fails: (%s)*(%s) vs expansion", trial, p.Add(q), r)
		}
		if !p.Add(q).Equal(q.Add(p)) || !p.Mul(q).Equal(q.Mul(p)) || !p.Sub(p).IsZero() {
			t.Fatalf("trial %d: commutativity or cancellation fails for %s and %s", trial, p, q)
		}
		pv, qv, rv := val(p), val(q), val(r)
		want := map[string]*big.Rat{
			"p+q":     new(big.Rat).Add(pv, qv),
			"p-q":     new(big.Rat).Sub(pv, qv),
			"p*q":     new(big.Rat).Mul(pv, qv),
			"-p":      new(big.Rat).Neg(pv),
			"p^3":     new(big.Rat).Mul(pv, new(big.Rat).Mul(pv, pv)),
			"p(i:=r)": mustEval(t, p, map[string]*big.Rat{"N": e["N"], "M": e["M"], "i": rv}),
			"(p+q)*r": new(big.Rat).Mul(new(big.Rat).Add(pv, qv), rv),
			"p*r+q*r": new(big.Rat).Mul(new(big.Rat).Add(pv, qv), rv),
		}
		for name, x := range results {
			if got := val(x); got.Cmp(want[name]) != 0 {
				t.Fatalf("trial %d: %s with p = %s, q = %s, r = %s at %v: got %s, want %s",
					trial, name, p, q, r, e, got.RatString(), want[name].RatString())
			}
		}
	}
}

func TestEqual(t *testing.T) {
	N, M := Var("N"), Var("M")
	tests := []struct {
		a, b Poly
		want bool
	}{
		{N.Add(M), M.Add(N), true},
		{N.Add(M), N.Add(M).Add(Int(1)), false},
		{N.Scale(big.NewRat(1, 2)), N.Scale(big.NewRat(2, 4)), true},
		{N.Scale(big.NewRat(1, 2)), N.Scale(big.NewRat(1, 3)), false},
		{N.Pow(2), N.Mul(M), false},
		{Poly{}, Int(0), true},
	}
	for _, tt := range tests {
		if got := tt.a.Equal(tt.b); got != tt.want {
			t.Errorf("(%s).Equal(%s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestPowNegativePanics(t *testing.T) {
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), "negative exponent -1") {
			t.Errorf("Pow(-1) recovered %v, want a panic naming the exponent", r)
		}
	}()
	Var("N").Pow(-1)
}

// TestCoeffs checks that splitting by powers of a variable keeps every
// coefficient canonical and recombines to the original polynomial.
func TestCoeffs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	vars := []string{"BS", "N", "i", "j"}
	for range 100 {
		p := randomPoly(rng, vars, 4)
		for _, v := range vars {
			cs := p.Coeffs(v)
			if len(cs) != p.Degree(v)+1 {
				t.Fatalf("%s: %d coefficients for degree %d in %s", p, len(cs), p.Degree(v), v)
			}
			var back Poly
			for k, c := range cs {
				checkCanonical(t, c)
				if c.Has(v) {
					t.Fatalf("coefficient %d of %s in %s mentions %s: %s", k, p, v, v, c)
				}
				back = back.Add(c.Mul(Var(v).Pow(k)))
			}
			if !back.Equal(p) {
				t.Fatalf("recombined %s by %s to %s", p, v, back)
			}
		}
	}
}

func TestAnyVar(t *testing.T) {
	p := Var("N").Mul(Var("i")).Add(Int(3))
	for _, tc := range []struct {
		name string
		want bool
	}{{"N", true}, {"i", true}, {"j", false}} {
		if got := p.AnyVar(func(v string) bool { return v == tc.name }); got != tc.want {
			t.Errorf("AnyVar(== %q) of %s = %v, want %v", tc.name, p, got, tc.want)
		}
	}
	if Int(7).AnyVar(func(string) bool { return true }) {
		t.Error("a constant mentions no variable")
	}
}
