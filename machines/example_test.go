package machines_test

import (
	"fmt"

	"perfc/machines"
)

// Builtin returns one of the tables from the papers; every number keeps
// its unit and source. CacheHierarchy is its caches as the analyzer takes
// them (analyze.Options.Cache).
func ExampleBuiltin() {
	m, err := machines.Builtin("t3e")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Name(), m.Compose())
	fmt.Println(m.CacheHierarchy())
	// Output:
	// t3e sum
	// L1=8KiB/32B/1,L2=96KiB/64B/3
}
