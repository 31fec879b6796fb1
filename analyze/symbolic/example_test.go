package symbolic_test

import (
	"fmt"
	"math/big"

	"perfc/analyze/symbolic"
)

// ExampleSum counts the iterations of a triangular nest in closed form:
// for i in 0..N { for j in i..N { … } } runs sum over i of (N − i) times,
// which is N(N+1)/2 whatever N is, and evaluates exactly at N = 10^12.
func ExampleSum() {
	n, i := symbolic.Var("N"), symbolic.Var("i")
	zero := symbolic.Const(big.NewRat(0, 1))
	inner := n.Sub(i)                          // iterations of j for one i
	total := symbolic.Sum(inner, "i", zero, n) // i from 0 to N-1: the upper bound is exclusive, as in 0..N
	fmt.Println(total)
	v, err := total.Eval(map[string]*big.Rat{"N": big.NewRat(1_000_000_000_000, 1)})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(v.RatString())
	// Output:
	// N^2/2 + N/2
	// 500000000000500000000000
}
