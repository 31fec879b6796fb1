package analyze

import (
	"fmt"

	"perfc/analyze/cache"
	"perfc/lang"
)

// The trace-driven check of the analytic cache model walks a kernel
// concretely (tracewalk.go) and feeds every access to the exact simulator of
// package cache (simulate.go). Its layout aligns every array to 4 KiB: the
// cache cases were written with it, and on their small caches (ways of at
// most 2 KiB) it places arrays as SimArrayAlign does.

// traceArrayAlign is the alignment of every array in the tests' layout.
const traceArrayAlign = 4096

// traceLimit bounds the accesses one trace may make, so that a test with a
// size too large fails instead of running for minutes.
const traceLimit = 20_000_000

// traceKernel runs rank `rank` of k through a simulator of h.
func traceKernel(k *lang.Checked, h cache.Hierarchy, rank int64) (traceResult, error) {
	over := func(limit int64) error { return fmt.Errorf("trace longer than %d accesses; use smaller sizes", limit) }
	return runTrace(k, h, traceLayout{align: traceArrayAlign}, rank, traceLimit, over, nil)
}
