//go:build !perfc_count

package spmd

// counting is false in the timed build: every `if counting { … }` in the
// kernel body is dead code that the compiler removes, so timings carry no
// counting overhead. Build with -tags perfc_count to count.
const counting = false
