package costmodel_test

import (
	"fmt"

	"perfc/analyze"
	"perfc/costmodel"
	"perfc/lang"
	"perfc/machines"
	"perfc/parser"
)

// Predict prices the counts of every rank on a machine table; the counts
// take the machine's caches (CacheHierarchy) for the cache-line model.
func ExamplePredict() {
	f, err := parser.ParseFile("triad.spmd", []byte(`kernel triad(N = 1000000) on P = 32 ranks {
  array a[N], b[N], c[N]: f64
  region "triad" {
    for i in 0..N {
      a[i] = b[i] + 3.0 * c[i]
    }
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
	m, err := machines.Builtin("cm5-32")
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := analyze.Analyze(k, analyze.Options{Cache: m.CacheHierarchy()})
	if err != nil {
		fmt.Println(err)
		return
	}
	pred, err := costmodel.Predict(k, rep, m, costmodel.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s on %s: %.4g s predicted, bottleneck %s\n", pred.Kernel, pred.Machine, pred.Total, pred.Bottleneck)
	// Output:
	// triad on cm5-32: 0.58 s predicted, bottleneck compute
}
