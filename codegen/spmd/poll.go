//go:build !perfc_mpi

package spmd

import (
	"runtime"
	"time"
)

// How a waiting rank waits. A goroutine that parks on a channel is readied
// by the rank that completes its message into that rank's own P (its
// runnext slot): it runs on the waker's core only when the waker blocks,
// or tens of microseconds later when another P's sleeping thread is woken
// and steals it. Ranks that compute between messages then take turns on
// one core. So a rank first polls its completion, as MPI's shared-memory
// transports do, for at most pollBudget; only then does it park as before.
// The bound keeps a deadlocked kernel parked (the watchdog reads the
// slots, not the goroutines, and reports it either way) and a rank that
// waits long from burning a core for nothing.
const (
	// pollBudget is how long a rank polls before it parks: the round trip
	// of a waiting rank on the development host grows from 0.3 µs to
	// 10–40 µs when its partner computes more than ~15 µs in between
	// (docs/predict.md, "Waking a rank"); polling 100 µs covers those
	// gaps at the cost of at most 100 µs of one core per wait.
	pollBudget = 100 * time.Microsecond
	// pollsPerCheck is how many polls pass between readings of the clock
	// and calls to runtime.Gosched (a poll, a non-blocking receive or an
	// atomic load, takes a few nanoseconds; a clock reading ~20 ns, a
	// Gosched ~100–200 ns): a goroutine that shares the rank's P gets the
	// core within a microsecond or so. That goroutine is often the
	// partner rank itself (two ranks end up on one P, a parked rank being
	// readied into its waker's), so the poll also yields once before it
	// starts; yielding only every 4096 polls made a tight pingpong cost
	// 12–31 µs a message instead of ~1 (BenchmarkPingpong), and yielding
	// first brought it from ~1 µs to ~0.25 µs, as when ranks parked.
	pollsPerCheck = 64
)

// pollPolicy is how long the ranks of a world poll before they park: zero
// when ranks outnumber the Ps (GOMAXPROCS), where a polling rank only
// takes turns from a rank that has work to do (see pollFor).
type pollPolicy struct {
	budget time.Duration
}

// pollFor returns the policy of a world of size ranks: poll for pollBudget
// when every rank can have a P of its own, not at all otherwise.
func pollFor(size int) pollPolicy {
	if size > runtime.GOMAXPROCS(0) {
		return pollPolicy{}
	}
	return pollPolicy{budget: pollBudget}
}

// await waits for one completion token of the rank (an operation it
// posted and is waiting for).
func (r *rank) await() {
	if r.pollTokens(1) == 0 {
		<-r.wake
	}
}

// wait blocks until n posted operations have completed.
func (r *rank) wait(n int) {
	for n -= r.pollTokens(n); n > 0; n-- {
		<-r.wake
	}
}

// pollTokens takes up to n completion tokens from the rank's wake-up
// channel without parking, polling for at most the world's poll budget,
// and returns how many it took.
func (r *rank) pollTokens(n int) int {
	got := 0
	for got < n {
		select {
		case <-r.wake:
			got++
			continue
		default:
		}
		break
	}
	budget := r.w.poll.budget
	if got == n || budget <= 0 {
		return got
	}
	start := time.Now()
	// Yield first: a partner that shares this rank's P (the one a parked
	// rank was readied into) runs at once, as it would after a park.
	runtime.Gosched()
	for i := 1; got < n; i++ {
		select {
		case <-r.wake:
			got++
			continue
		default:
		}
		if i%pollsPerCheck == 0 {
			if time.Since(start) >= budget {
				break
			}
			runtime.Gosched()
		}
	}
	return got
}

// pollDone polls until every op is done, for at most the world's poll
// budget, and reports whether they are.
func (r *rank) pollDone(ops []*reqOp) bool {
	budget := r.w.poll.budget
	if budget <= 0 {
		return allDone(ops)
	}
	start := time.Now()
	// Yield first: a partner that shares this rank's P (the one a parked
	// rank was readied into) runs at once, as it would after a park.
	runtime.Gosched()
	for i := 1; ; i++ {
		if allDone(ops) {
			return true
		}
		if i%pollsPerCheck == 0 {
			if time.Since(start) >= budget {
				return false
			}
			runtime.Gosched()
		}
	}
}

// allDone reports whether every op has completed.
func allDone(ops []*reqOp) bool {
	for _, op := range ops {
		if !op.done.Load() {
			return false
		}
	}
	return true
}
