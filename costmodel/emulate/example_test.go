package emulate_test

import (
	"fmt"

	"perfc/analyze"
	"perfc/costmodel/emulate"
	"perfc/lang"
	"perfc/parser"
)

// steps is the step-counting machine of the LANL model: a message is one
// step, compute and collectives are free, every send is synchronous.
type steps struct{}

func (steps) Compute(*analyze.Work) float64                           { return 0 }
func (steps) Message(src, dst int64, bytes int64) float64             { return 1 }
func (steps) Collective(string, string, string, int64, int64) float64 { return 0 }
func (steps) EagerLimit() int64                                       { return -1 }
func (steps) Cluster() *emulate.Cluster                               { return nil }

// Emulate runs every rank's schedule on a machine it sees only through a
// Pricer; costmodel.PricerFor gives a machine table's. Here a message
// passes down a chain of four ranks, one step per hop.
func ExampleEmulate() {
	f, err := parser.ParseFile("chain.spmd", []byte(`kernel chain() on P = 4 ranks {
  array a[8]: f64
  if rank > 0 {
    recv a from rank - 1
  }
  if rank < P - 1 {
    send a to rank + 1
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
	em, err := emulate.Emulate(k, steps{}, emulate.EmulateOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s on %d ranks: %d messages, %g steps\n", em.Kernel, em.Ranks, em.Messages, em.Total)
	// Output:
	// chain on 4 ranks: 3 messages, 3 steps
}
