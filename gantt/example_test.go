package gantt_test

import (
	"bytes"
	"fmt"

	"perfc"
	"perfc/costmodel/emulate"
	"perfc/gantt"
)

// Example emulates the pingpong on the unit machine with a chart watching
// every interval, and draws it as SVG: one row per rank, one bar per
// computation, message or wait.
func Example() {
	k, err := perfc.Load("../examples/pingpong.spmd", perfc.LoadOptions{Params: map[string]string{"reps": "3"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	chart := gantt.New(k.Checked.NumRanks())
	em, err := k.Emulate(perfc.EmulateOptions{Machine: "unit", Emulation: emulate.EmulateOptions{Observe: chart.Observe}})
	if err != nil {
		fmt.Println(err)
		return
	}
	var svg bytes.Buffer
	if err := chart.WriteTo(&svg, "svg", "pingpong on unit"); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(em.Kernel, "ranks:", k.Checked.NumRanks(), "summarised:", chart.Summarised())
	fmt.Println("svg:", bytes.Contains(svg.Bytes(), []byte("<svg")))
	// Output:
	// pingpong ranks: 2 summarised: false
	// svg: true
}
