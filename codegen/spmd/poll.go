//go:build !perfc_mpi

package spmd

import (
	"runtime"
	"time"
)

// How a waiting rank waits. When every rank can have a P (GOMAXPROCS) of
// its own, a waiting rank spins on its completion, as MPI's shared-memory
// transports do, and keeps its core: ranks then run side by side, one per
// core, the whole run, and every message is a copy between cores. A rank
// that parked instead would be readied by its partner into the partner's
// own P (its runnext slot) and run only when the partner blocked, or tens
// of microseconds later when another P's sleeping thread was woken and
// stole it; ranks that compute between messages then took turns on one
// core (a synchronisation cost about twice the compute segment: the NOISE
// benchmark, docs/calibrate.md), and message loops switched at random
// between alternating on one P and copying between two (docs/predict.md,
// "Waking a rank").
//
// A spinning rank yields its P every spinYield, and wakes an idle P when
// it does: two ranks can still meet on one P (a yield puts a goroutine on
// the global run queue, and a P that looks there may take both), and Go
// wakes an idle P when a goroutine is made runnable, not when one yields,
// so without the wake-up the other core would stay idle while they took
// turns. A wait that lasts spinBudget parks: it is long enough that a
// wake-up's tens of microseconds do not matter, and a deadlocked kernel
// (the watchdog reads the slots, not the goroutines, and reports it
// either way) does not burn every core until then.
const (
	// spinBudget is how long a rank spins before it parks.
	spinBudget = 10 * time.Millisecond
	// spinYield is how long a rank spins between yields: long enough
	// that a yield (~0.3 µs with the wake-up) costs under 1 % of a
	// spinning core, short enough that a partner sharing the P, or the
	// harness's goroutines, wait at most that long for it.
	spinYield = 50 * time.Microsecond
	// pollsPerCheck is how many polls (a non-blocking receive or an
	// atomic load, a few nanoseconds each) pass between readings of the
	// clock (~20 ns).
	pollsPerCheck = 64
)

// pollPolicy is how long the ranks of a world spin before they park: zero
// when ranks outnumber the Ps, where a spinning rank would only take turns
// from a rank that has work to do (they give their core to a ready rank,
// or to an idler that spins on it: cores.go).
type pollPolicy struct {
	budget time.Duration
}

// pollFor returns the policy of a world of size ranks: spin for
// spinBudget when every rank can have a P of its own, not at all
// otherwise.
func pollFor(size int) pollPolicy {
	if size > runtime.GOMAXPROCS(0) {
		return pollPolicy{}
	}
	return pollPolicy{budget: spinBudget}
}

// await waits for one completion token of the rank (an operation it
// posted and is waiting for).
func (r *rank) await() {
	if r.w.cores != nil {
		r.park(1)
		return
	}
	if r.pollTokens(1) == 0 {
		<-r.wake
	}
}

// wait blocks until n posted operations have completed.
func (r *rank) wait(n int) {
	if r.w.cores != nil {
		if n > 0 {
			r.park(n)
		}
		return
	}
	for n -= r.pollTokens(n); n > 0; n-- {
		<-r.wake
	}
}

// spinner paces a spinning wait: it reads the clock every pollsPerCheck
// polls, yields every spinYield and says when the budget is spent.
type spinner struct {
	start, yielded time.Time
	budget         time.Duration
	polls          int
}

// newSpinner starts a spin of budget.
func newSpinner(budget time.Duration) spinner {
	now := time.Now()
	return spinner{start: now, yielded: now, budget: budget}
}

// more counts a poll and reports whether the spin goes on; it yields when
// spinYield has passed since the last yield.
func (s *spinner) more() bool {
	s.polls++
	if s.polls%pollsPerCheck != 0 {
		return true
	}
	now := time.Now()
	if now.Sub(s.start) >= s.budget {
		return false
	}
	if now.Sub(s.yielded) >= spinYield {
		s.yielded = now
		yieldWaking()
	}
	return true
}

// yieldWaking yields the P and wakes an idle one if there is one: the
// runtime wakes an idle P for a new goroutine (newproc calls wakep), not
// for a yield, so a goroutine that does nothing is started first. Two
// ranks that met on one P are then taken apart by the woken P, which
// steals the one that waits in the run queue.
func yieldWaking() {
	go func() {}()
	runtime.Gosched()
}

// pollTokens takes up to n completion tokens from the rank's wake-up
// channel without parking, spinning for at most the world's poll budget,
// and returns how many it took.
func (r *rank) pollTokens(n int) int {
	got := r.takeTokens(n)
	budget := r.w.poll.budget
	if got == n || budget <= 0 {
		return got
	}
	s := newSpinner(budget)
	for got < n && s.more() {
		got += r.takeTokens(n - got)
	}
	return got
}

// takeTokens takes up to n completion tokens that are there already.
func (r *rank) takeTokens(n int) int {
	for got := 0; got < n; got++ {
		select {
		case <-r.wake:
		default:
			return got
		}
	}
	return n
}

// pollDone spins until every op is done, for at most the world's poll
// budget, and reports whether they are.
func (r *rank) pollDone(ops []*reqOp) bool {
	budget := r.w.poll.budget
	if budget <= 0 || allDone(ops) {
		return allDone(ops)
	}
	s := newSpinner(budget)
	for !allDone(ops) {
		if !s.more() {
			return false
		}
	}
	return true
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
