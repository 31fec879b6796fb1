package codegen_test

import (
	"fmt"

	"perfc/codegen"
	"perfc/lang"
	"perfc/parser"
)

// Generate writes a checked kernel as a self-contained Go program, a
// goroutine per rank; Program.WriteDir writes it to a directory, where
// `go run .` times it.
func ExampleGenerate() {
	f, err := parser.ParseFile("ring.spmd", []byte(`kernel ring(n = 64) on P = 4 ranks {
  array a[n], b[n]: f64
  region "shift" {
    sendrecv a[0:n] to (rank + 1) % P from (rank + P - 1) % P into b[0:n]
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
	p, err := codegen.Generate(k, codegen.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("kernel %s, regions %q, %d bytes of arrays and buffers\n", p.Kernel, p.Regions, p.MemBytes)
	// Output:
	// kernel ring, regions ["(outside regions)" "shift"], 8448 bytes of arrays and buffers
}
