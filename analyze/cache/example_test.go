package cache_test

import (
	"fmt"

	"perfc/analyze/cache"
)

// Example parses a two-level hierarchy, as --cache takes it, and runs a
// stream of reads through the exact LRU simulator: 1,024 f64 read in
// order bring 128 lines of 64 B into L1, and one line in eight is a miss.
func Example() {
	h, err := cache.ParseHierarchy("L1=32KiB/64B/8,L2=1MiB/64B/16")
	if err != nil {
		fmt.Println(err)
		return
	}
	sim := cache.NewSimulator(h)
	for i := uint64(0); i < 1024; i++ {
		sim.Access(8*i, 8, false)
	}
	for _, c := range sim.Counts() {
		fmt.Printf("%s: %d accesses, %d hits, %d misses\n", c.Name, c.Accesses, c.Hits, c.Misses)
	}
	// Output:
	// L1: 1024 accesses, 896 hits, 128 misses
	// L2: 128 accesses, 0 hits, 128 misses
}
