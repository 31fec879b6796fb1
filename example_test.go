package perfc_test

import (
	"bytes"
	"errors"
	"fmt"
	"log"

	"perfc"
	"perfc/analyze"
	"perfc/codegen"
	"perfc/lang"
)

// The ten-line program of docs/api.md: load a kernel, predict it on the
// default machine (cm5-32), print the prediction per region.
func Example() {
	k, err := perfc.Load("examples/gauss.spmd", perfc.LoadOptions{Params: map[string]string{"N": "256"}})
	if err != nil {
		log.Fatal(err) // file:line:col: message, the source line and a caret
	}
	pred, err := k.Predict(perfc.PredictOptions{}) // every rank, on cm5-32
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s on %s: %.4g s predicted, bottleneck %s\n", pred.Kernel, pred.Machine, pred.Total, pred.Bottleneck)
	for _, r := range pred.Regions {
		fmt.Printf("  %-18s %-10.4g %s\n", r.Name, r.Time, r.Bottleneck)
	}
	// Output:
	// gauss on cm5-32: 0.6999 s predicted, bottleneck collectives
	//   (outside regions)  0          none
	//   pivot search       0.0005846  compute
	//   double reduction   0.003645   collectives
	//   integer reduction  0.001139   collectives
	//   permutation        0          none
	//   multipliers        0.002109   compute
	//   broadcast          0.6071     collectives
	//   update             0.08534    compute
}

// Errors point into the source: the message with file:line:col, the line,
// and a caret under the column.
func Example_errors() {
	_, err := perfc.Parse("k.spmd", []byte("kernel k(N = 8) on P = 4 ranks {\n  array a[N]: f64\n  a[0] = b\n}\n"), perfc.LoadOptions{})
	fmt.Println(err)
	var list lang.ErrorList
	if errors.As(err, &list) {
		fmt.Println(len(list), "error at line", list[0].Pos.Line)
	}
	// Output:
	// k.spmd:3:10: 'b' is not declared; declare it with let, array or var, or as a kernel parameter
	//       a[0] = b
	//              ^
	// 1 error at line 3
}

// Count returns the exact counts of every rank, grouped into classes of
// alike ranks.
func ExampleKernel_Count() {
	k, err := perfc.Parse("ring.spmd", []byte(`kernel ring(N = 1000) on P = 4 ranks {
  array a[N]: f64
  for i in 0..N * rank {
    a[i % N] = a[i % N] * 2.0
  }
}
`), perfc.LoadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	rep, err := k.Count(analyze.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for _, cl := range rep.Classes {
		fmt.Printf("ranks %s: %s flop\n", cl.Ranks, cl.Total.Flop.Exact())
	}
	// Output:
	// ranks 0: 0 flop
	// ranks 1: 1000 flop
	// ranks 2: 2000 flop
	// ranks 3: 3000 flop
}

// Emulate replays every rank's schedule; a pipeline's last rank waits for
// all the others.
func ExampleKernel_Emulate() {
	k, err := perfc.Load("examples/pipeline.spmd", perfc.LoadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	em, err := k.Emulate(perfc.EmulateOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%.4g s emulated, %d messages\n", em.Total, em.Messages)
	// Output:
	// 0.04484 s emulated, 119 messages
}

// Generate writes the kernel as a Go program that runs it for real.
func ExampleKernel_Generate() {
	k, err := perfc.Load("examples/triad.spmd", perfc.LoadOptions{Params: map[string]string{"N": "1000"}})
	if err != nil {
		log.Fatal(err)
	}
	p, err := k.Generate(codegen.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("kernel %s, regions %q, needs %d bytes\n", p.Kernel, p.Regions, p.MemBytes)
	fmt.Println(bytes.Contains(p.File("main.go"), []byte("package main")))
	// Output:
	// kernel triad, regions ["(outside regions)" "triad"], needs 24016 bytes
	// true
}
