package examples_test

import (
	"fmt"

	"perfc/examples"
)

// Example lists a few of the built-in kernels with the first sentence of
// their header, as perfc examples does, and reads one's source.
func Example() {
	for _, name := range examples.Names()[:3] {
		summary, err := examples.Summary(name)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %.40s…\n", name, summary)
	}
	src, err := examples.Source("triad")
	fmt.Println(len(src) > 0, err)
	// Output:
	// broadcast: the IMH broadcast benchmark, m bytes fro…
	// cannon: Cannon's matrix multiply C = A*B on a q …
	// comms2: COMMS2, the message exchange between two…
	// true <nil>
}
