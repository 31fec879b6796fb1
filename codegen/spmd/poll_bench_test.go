//go:build !perfc_mpi

package spmd

import (
	"fmt"
	"testing"
	"time"
)

// computeFor busies the caller for about d, reading the clock rarely: the
// compute of a rank between its messages.
func computeFor(d time.Duration) float64 {
	x := 1.0
	for start := time.Now(); time.Since(start) < d; {
		for range 64 {
			x = x*1.0000001 + 1e-9
		}
	}
	return x
}

// BenchmarkComputeExchange is one iteration of ranks that compute gap and
// then exchange 8 B with a sendrecv (ranks 0 and 1, as a halo exchange),
// with the waiting rank spinning before it parks (poll) and parking at
// once (park). Without polling, the rank that finishes its compute first
// parks, and its partner readies it into its own P: the ranks take turns
// on one core, and an iteration costs about two gaps.
func BenchmarkComputeExchange(b *testing.B) {
	for _, gap := range []time.Duration{0, 10 * time.Microsecond, 50 * time.Microsecond} {
		for _, poll := range []bool{false, true} {
			name := fmt.Sprintf("gap=%v/park", gap)
			if poll {
				name = fmt.Sprintf("gap=%v/poll", gap)
			}
			b.Run(name, func(b *testing.B) {
				reps := b.N
				sink := make([]float64, 2)
				run := testWorld(&testing.T{}, 2, 2, func(r *rank) {
					out, in := make([]byte, 8), make([]byte, 8)
					peer := 1 - r.id
					for range reps {
						sink[r.id] += computeFor(gap)
						r.sendrecv(0, 1, peer, out, peer, in)
					}
				})
				run.w.poll = pollPolicy{}
				if poll {
					run.w.poll = pollPolicy{budget: spinBudget}
				}
				b.ResetTimer()
				run.w.runs(1)
			})
		}
	}
}
