//go:build !perfc_mpi

package spmd

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestGateLinesRanksUp checks both gates, parking and spinning: over many
// generations no rank passes a gate before every rank has reached it (each
// rank's count of passes never runs ahead of the slowest's by more than
// one), with ranks that arrive in every order, including one that arrives
// late by more than the spinning gate's no-yield time, and ranks that
// outnumber the Ps.
func TestGateLinesRanksUp(t *testing.T) {
	for _, tc := range []struct {
		ranks int
		spin  bool
	}{{2, false}, {2, true}, {4, true}, {2 * runtime.GOMAXPROCS(0), true}} {
		t.Run(fmt.Sprintf("%d ranks spin %t", tc.ranks, tc.spin), func(t *testing.T) {
			var g gate
			g.init(tc.ranks, tc.spin)
			const gens = 300
			passed := make([]atomic.Int64, tc.ranks)
			var bad atomic.Int64
			var wg sync.WaitGroup
			for r := range tc.ranks {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for gen := range gens {
						if gen%97 == r%97 {
							time.Sleep(time.Duration(r+1) * time.Millisecond) // arrives last, late
						}
						g.wait()
						passed[r].Add(1)
						for o := range passed {
							// Every other rank reached this gate, so it passed the one before.
							if passed[o].Load() < int64(gen) {
								bad.Add(1)
							}
						}
					}
				}()
			}
			done := make(chan struct{})
			go func() { wg.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(60 * time.Second):
				t.Fatal("the gate hung")
			}
			if n := bad.Load(); n != 0 {
				t.Errorf("%d times a rank passed a gate before another had passed the previous one", n)
			}
		})
	}
}
