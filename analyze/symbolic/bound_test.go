package symbolic

import (
	"math/big"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAffine(t *testing.T) {
	N, M, j := Var("N"), Var("M"), Var("j")
	tests := []struct {
		name   string
		p      Poly
		a, b   string
		wantOK bool
	}{
		{"zero", Poly{}, "0", "0", true},
		{"free of v", N.Add(M), "0", "M + N", true},
		{"affine", add(j.Scale(big.NewRat(3, 2)), N, Int(-5)), "3/2", "N - 5", true},
		{"parametric slope", add(mul(N, j), M), "N", "M", true},
		{"quadratic", add(mul(j, j), N), "", "", false},
		{"quadratic through another factor", add(mul(j, j, N), j), "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b, ok := Affine(tt.p, "j")
			type result struct {
				A, B string
				OK   bool
			}
			got := result{OK: ok}
			if ok {
				got.A, got.B = a.String(), b.String()
			}
			if diff := cmp.Diff(result{tt.a, tt.b, tt.wantOK}, got); diff != "" {
				t.Errorf("Affine(%s, j) mismatch (-want +got):\n%s", tt.p, diff)
			}
			if ok && !a.Mul(j).Add(b).Equal(tt.p) {
				t.Errorf("a·j + b = %s, want %s", a.Mul(j).Add(b), tt.p)
			}
		})
	}
}

func TestSolveGE(t *testing.T) {
	N, j := Var("N"), Var("j")
	tests := []struct {
		name      string
		p         Poly
		want      string // the solved inequality
		integer   string // IntegerThreshold, "" when not a polynomial
		wantError string
	}{
		{"min split j+5 >= N", add(j, Int(5), N.Neg()), "j >= N - 5", "N - 5", ""},
		{"upper bound", add(j.Neg(), N), "j <= N", "N", ""},
		{"fractional threshold", add(mul(Int(2), j), N.Neg()), "j >= N/2", "", ""},
		{"fractional upper", add(mul(Int(-3), j), N, Int(1)), "j <= N/3 + 1/3", "", ""},
		{"constant fraction", add(mul(Int(2), j), Int(-7)), "j >= 7/2", "4", ""},
		{"constant fraction upper", add(mul(Int(-2), j), Int(-7)), "j <= -7/2", "-4", ""},
		{"integer-valued threshold", add(mul(Int(2), j), mul(N, N).Neg(), N.Neg()), "j >= N^2/2 + N/2", "N^2/2 + N/2", ""},
		{"not affine", add(mul(j, j), N), "", "", "symbolic: j^2 + N >= 0 is not affine in j (degree 2)"},
		{"unknown sign", add(mul(N, j), Int(1)), "", "", "symbolic: cannot solve N*j + 1 >= 0 for j: the sign of its coefficient N is unknown"},
		{"no dependence", N, "", "", "symbolic: cannot solve N >= 0 for j: it does not depend on j"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := SolveGE(tt.p, "j")
			if tt.wantError != "" {
				if err == nil || err.Error() != tt.wantError {
					t.Fatalf("SolveGE error = %v, want %q", err, tt.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, q.String()); diff != "" {
				t.Errorf("SolveGE mismatch (-want +got):\n%s", diff)
			}
			integer, ok := q.IntegerThreshold()
			if got := map[bool]string{true: integer.String()}[ok]; got != tt.integer {
				t.Errorf("IntegerThreshold = %q, want %q", got, tt.integer)
			}
			// At concrete values: the integer threshold is the first (or
			// last) j where p ≥ 0 holds, and Holds agrees with p's sign.
			for n := int64(-4); n <= 6; n++ {
				e := env(map[string]int64{"N": n})
				edge, err := q.IntegerThresholdAt(e)
				if err != nil {
					t.Fatal(err)
				}
				if ok && mustEvalInt(t, integer, e) != edge.Int64() {
					t.Fatalf("IntegerThreshold %s at N=%d differs from IntegerThresholdAt %s", integer, n, edge)
				}
				inside, outside := edge.Int64(), edge.Int64()-1
				if q.Dir == AtMost {
					outside = edge.Int64() + 1
				}
				for _, x := range []int64{inside, outside} {
					ex := with(e, "j", x)
					holds, err := q.Holds(ex)
					if err != nil {
						t.Fatal(err)
					}
					if want := mustEval(t, tt.p, ex).Sign() >= 0; holds != want || holds != (x == inside) {
						t.Fatalf("at N=%d, j=%d: Holds = %v, p = %s, threshold %s", n, x, holds, mustEval(t, tt.p, ex).RatString(), edge)
					}
				}
			}
		})
	}
}

func TestInequalityErrors(t *testing.T) {
	q := Inequality{Var: "j", Dir: AtLeast, Threshold: Var("N")}
	if _, err := q.IntegerThresholdAt(nil); err == nil {
		t.Error("IntegerThresholdAt without N succeeded")
	}
	_, err := q.Holds(env(map[string]int64{"N": 3}))
	if want := "symbolic: cannot decide j >= N: no value for j"; err == nil || err.Error() != want {
		t.Errorf("Holds error = %v, want %q", err, want)
	}
	if got := Direction(0).String(); got != "Direction(0)" {
		t.Errorf("Direction(0).String() = %q", got)
	}
}

func TestFloorCeil(t *testing.T) {
	N, M := Var("N"), Var("M")
	tests := []struct {
		name        string
		p           Poly
		floor, ceil string // "" when not a polynomial
	}{
		{"integer", Int(4), "4", "4"},
		{"positive fraction", Rat(7, 2), "3", "4"},
		{"negative fraction", Rat(-7, 2), "-4", "-3"},
		{"integer coefficients", add(N, M.Scale(big.NewRat(3, 1)), Rat(1, 3)), "3*M + N", "3*M + N + 1"},
		{"half N", N.Scale(big.NewRat(1, 2)), "", ""},
		{"triangular number", mul(N, N.Add(Int(1))).Scale(big.NewRat(1, 2)), "N^2/2 + N/2", "N^2/2 + N/2"},
		{"binomial C(N,3) minus 1/5", add(mul(N, N.Sub(Int(1)), N.Sub(Int(2))).Scale(big.NewRat(1, 6)), Rat(-1, 5)),
			"N^3/6 - N^2/2 + N/3 - 1", "N^3/6 - N^2/2 + N/3"},
		{"two variables integer-valued", mul(N, M, N.Add(M)).Scale(big.NewRat(1, 2)), "M^2*N/2 + M*N^2/2", "M^2*N/2 + M*N^2/2"},
		{"not integer-valued in two variables", mul(N, M).Scale(big.NewRat(1, 2)), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			floor, okF := Floor(tt.p)
			ceil, okC := Ceil(tt.p)
			got := [2]string{map[bool]string{true: floor.String()}[okF], map[bool]string{true: ceil.String()}[okC]}
			if diff := cmp.Diff([2]string{tt.floor, tt.ceil}, got); diff != "" {
				t.Fatalf("Floor, Ceil of %s mismatch (-want +got):\n%s", tt.p, diff)
			}
			for n := int64(-5); n <= 5; n++ {
				for m := int64(-3); m <= 3; m++ {
					e := env(map[string]int64{"N": n, "M": m})
					value := mustEval(t, tt.p, e)
					if okF && mustEvalInt(t, floor, e) != FloorRat(value).Int64() {
						t.Fatalf("Floor %s at N=%d, M=%d disagrees with ⌊%s⌋", floor, n, m, value.RatString())
					}
					if okC && mustEvalInt(t, ceil, e) != CeilRat(value).Int64() {
						t.Fatalf("Ceil %s at N=%d, M=%d disagrees with ⌈%s⌉", ceil, n, m, value.RatString())
					}
				}
			}
		})
	}
}

func TestFloorRatCeilRat(t *testing.T) {
	tests := []struct {
		r           *big.Rat
		floor, ceil int64
	}{
		{big.NewRat(0, 1), 0, 0},
		{big.NewRat(5, 1), 5, 5},
		{big.NewRat(-5, 1), -5, -5},
		{big.NewRat(7, 2), 3, 4},
		{big.NewRat(-7, 2), -4, -3},
		{big.NewRat(1, 3), 0, 1},
		{big.NewRat(-1, 3), -1, 0},
	}
	for _, tt := range tests {
		if f, c := FloorRat(tt.r).Int64(), CeilRat(tt.r).Int64(); f != tt.floor || c != tt.ceil {
			t.Errorf("⌊%s⌋, ⌈%s⌉ = %d, %d; want %d, %d", tt.r, tt.r, f, c, tt.floor, tt.ceil)
		}
	}
}
