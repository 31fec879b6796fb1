package symbolic

import (
	"math"
	"math/big"
	"testing"
)

// edgeRats are values around the int64 limits where the small form of rat
// overflows into big.Rat and must come back when a result fits again.
func edgeRats() []*big.Rat {
	nums := []int64{0, 1, -1, 2, -3, 7, 1 << 31, -(1 << 32), 1 << 62, -(1 << 62), math.MaxInt64, -math.MaxInt64, math.MaxInt64 - 1}
	dens := []int64{1, 2, 3, 1 << 31, 1 << 62, math.MaxInt64}
	var out []*big.Rat
	for _, n := range nums {
		for _, d := range dens {
			out = append(out, big.NewRat(n, d))
		}
	}
	minInt := new(big.Rat).SetInt64(math.MinInt64)
	huge := new(big.Rat).SetFrac(new(big.Int).Lsh(big.NewInt(3), 80), big.NewInt(7))
	return append(out, minInt, new(big.Rat).Quo(minInt, big.NewRat(3, 1)), huge, new(big.Rat).Neg(huge))
}

// checkRat fails unless r holds want in its one canonical representation.
func checkRat(t *testing.T, what string, r rat, want *big.Rat) {
	t.Helper()
	fits := want.Num().IsInt64() && want.Denom().IsInt64() && want.Num().Int64() != math.MinInt64
	switch {
	case r.toBig().Cmp(want) != 0:
		t.Fatalf("%s = %s, want %s", what, r.toBig().RatString(), want.RatString())
	case fits && r.big != nil:
		t.Fatalf("%s = %s kept a big.Rat although it fits int64", what, want.RatString())
	case !fits && r.big == nil:
		t.Fatalf("%s = %s has no big.Rat although it does not fit", what, want.RatString())
	case r.big == nil && (r.den <= 0 || gcd(abs(r.num), r.den) != 1):
		t.Fatalf("%s = %d/%d is not in lowest terms", what, r.num, r.den)
	}
	if r.sign() != want.Sign() || r.isInt() != want.IsInt() {
		t.Fatalf("%s = %s: sign %d, isInt %v disagree with big.Rat", what, want.RatString(), r.sign(), r.isInt())
	}
}

func TestRatArithmetic(t *testing.T) {
	values := edgeRats()
	for _, x := range values {
		a := ratOf(x)
		checkRat(t, "ratOf("+x.RatString()+")", a, x)
		checkRat(t, "-("+x.RatString()+")", a.neg(), new(big.Rat).Neg(x))
		for _, y := range values {
			b := ratOf(y)
			name := x.RatString() + " op " + y.RatString()
			checkRat(t, "add "+name, addRat(a, b), new(big.Rat).Add(x, y))
			checkRat(t, "sub "+name, subRat(a, b), new(big.Rat).Sub(x, y))
			checkRat(t, "mul "+name, mulRat(a, b), new(big.Rat).Mul(x, y))
			if got, want := a.equal(b), x.Cmp(y) == 0; got != want {
				t.Fatalf("equal %s = %v, want %v", name, got, want)
			}
		}
	}
}

// TestOverflowRoundTrip checks that a Poly whose coefficients leave int64 and
// come back prints and compares like one that never left.
func TestOverflowRoundTrip(t *testing.T) {
	N := Var("N")
	big62 := Int(1 << 62)
	p := N.Mul(big62).Mul(big62) // 2^124·N
	if got, want := p.String(), "21267647932558653966460912964485513216*N"; got != want {
		t.Fatalf("String = %s, want %s", got, want)
	}
	back := p.Scale(new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), 123)))
	if !back.Equal(N.Scale(big.NewRat(2, 1))) || back.terms[0].coef.big != nil {
		t.Fatalf("2^124·N / 2^123 = %s, want 2*N in small form", back)
	}
	if !p.Sub(p).IsZero() {
		t.Fatalf("p − p = %s", p.Sub(p))
	}
}

func TestGCD(t *testing.T) {
	tests := []struct{ a, b, want int64 }{
		{0, 5, 5}, {5, 0, 5}, {12, 18, 6}, {17, 5, 1}, {1 << 40, 1 << 20, 1 << 20},
		{math.MaxInt64, math.MaxInt64, math.MaxInt64}, {48, 180, 12},
	}
	for _, tt := range tests {
		if got := gcd(tt.a, tt.b); got != tt.want {
			t.Errorf("gcd(%d, %d) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestNewInt64Rat checks the one-allocation integer Rat against big.NewRat
// at the edges of int64, and that it stays a correct Rat when changed.
func TestNewInt64Rat(t *testing.T) {
	for _, n := range []int64{0, 1, -1, 7, -7, 1 << 32, -(1 << 32), 1<<62 + 3, math.MaxInt64, math.MinInt64, math.MinInt64 + 1} {
		got, want := NewInt64Rat(n), big.NewRat(n, 1)
		if got.Cmp(want) != 0 || !got.IsInt() || got.RatString() != want.RatString() || got.Denom().Cmp(big.NewInt(1)) != 0 {
			t.Errorf("NewInt64Rat(%d) = %s, want %s", n, got.RatString(), want.RatString())
		}
		// Arithmetic on it must not disturb another value.
		other := NewInt64Rat(n)
		got.Add(got, big.NewRat(1, 3))
		if other.Cmp(want) != 0 || got.Cmp(new(big.Rat).Add(want, big.NewRat(1, 3))) != 0 {
			t.Errorf("NewInt64Rat(%d) after Add: %s, other %s", n, got.RatString(), other.RatString())
		}
		if r := ratOf(NewInt64Rat(n)); !r.equal(ratOf(want)) {
			t.Errorf("ratOf(NewInt64Rat(%d)) = %+v, want %+v", n, r, ratOf(want))
		}
	}
	if allocs := testing.AllocsPerRun(100, func() { NewInt64Rat(123456789) }); allocs != 1 {
		t.Errorf("NewInt64Rat allocates %v times, want 1", allocs)
	}
}
