package roofline_test

import (
	"fmt"

	"perfc"
	"perfc/analyze"
	"perfc/costmodel"
	"perfc/roofline"
)

// Example places the triad on the roofline of a host-style table: 2 flop
// per 32 B of lines (three streams in, one written back) at every level.
func Example() {
	k, err := perfc.Load("../examples/triad.spmd", perfc.LoadOptions{Params: map[string]string{"N": "1000000"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := perfc.LoadMachine("../costmodel/testdata/host.yaml", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := analyze.Analyze(k.Checked, analyze.Options{Cache: m.CacheHierarchy()})
	if err != nil {
		fmt.Println(err)
		return
	}
	pred, err := costmodel.Predict(k.Checked, rep, m, costmodel.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := roofline.Build(rep, pred, m)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range r.Points {
		fmt.Printf("%s %s: %g flop/B, bound %g Gflop/s by %s\n", p.Region, p.Level, p.Intensity, p.Bound/1e9, p.BoundBy)
	}
	// Output:
	// triad L1: 0.0625 flop/B, bound 6.25 Gflop/s by L1 bandwidth
	// triad L2: 0.0625 flop/B, bound 3.125 Gflop/s by L2 bandwidth
	// triad memory: 0.0625 flop/B, bound 0.625 Gflop/s by memory bandwidth
}
