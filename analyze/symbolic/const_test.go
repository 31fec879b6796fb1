package symbolic

import (
	"math"
	"math/big"
	"testing"
)

// TestIntAndConst checks that Int builds the constant Const builds, at the
// edges of int64, and that Const keeps a copy of a big coefficient.
func TestIntAndConst(t *testing.T) {
	for _, n := range []int64{0, 1, -1, 7, -12, math.MaxInt64, math.MinInt64 + 1, math.MinInt64} {
		got, want := Int(n), Const(new(big.Rat).SetInt64(n))
		if !got.Equal(want) || got.String() != want.String() {
			t.Errorf("Int(%d) = %s, want %s", n, got, want)
		}
		if v, ok := got.Constant(); !ok || v.Cmp(new(big.Rat).SetInt64(n)) != 0 {
			t.Errorf("Int(%d) has the value %v", n, v)
		}
	}
	huge, _ := new(big.Rat).SetString("123456789012345678901234567890/7")
	r := new(big.Rat).Set(huge)
	p := Const(r)
	r.SetInt64(3)
	if v, _ := p.Constant(); v.Cmp(huge) != 0 {
		t.Errorf("Const changed with its argument: %v", v)
	}
	for _, r := range []*big.Rat{big.NewRat(3, 4), big.NewRat(-5, 6), new(big.Rat).SetInt64(math.MinInt64)} {
		if v, _ := Const(r).Constant(); v.Cmp(r) != 0 {
			t.Errorf("Const(%v) has the value %v", r, v)
		}
	}
}
