package analyze_test

import (
	"fmt"

	"perfc/analyze"
	"perfc/lang"
	"perfc/parser"
)

// The zero Options count every rank; ranks whose counts differ fall into
// different classes. Here rank r loops N·r times.
func ExampleAnalyze() {
	f, err := parser.ParseFile("k.spmd", []byte(`kernel k(N = 100) on P = 4 ranks {
  array a[N * P]: f64
  for i in 0..N * rank {
    a[i] = a[i] * 2.0
  }
}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	k, err := lang.Check(f, "", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := analyze.Analyze(k, analyze.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, cl := range rep.Classes {
		fmt.Printf("ranks %s: %s flop, %s loads\n", cl.Ranks, cl.Total.Flop.Exact(), cl.Total.Loads.Exact())
	}
	// Output:
	// ranks 0: 0 flop, 0 loads
	// ranks 1: 100 flop, 100 loads
	// ranks 2: 200 flop, 200 loads
	// ranks 3: 300 flop, 300 loads
}
