//go:build perfc_count

package spmd

// counting is true in the instrumented build (-tags perfc_count): the
// kernel body increments a counter at every counted place.
const counting = true
