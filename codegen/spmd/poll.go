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

// The poll has two modes, and which one a pair of ranks is in is an
// accident of Go's scheduler: a rank that yields (runtime.Gosched) goes to
// the global run queue, and either P may take it, so two polling ranks run
// sometimes on two Ps (each message a copy between cores: 2.0 µs a 16 KiB
// message on the development host) and sometimes alternate on one (the
// copy from the core's own cache: 0.4 µs), switching at random within a
// run: calibrate's COMMS1 and the same pingpong in a kernel measured 1.8
// and 0.65 µs (docs/calibrate-comms.md, "One mode for message loops"). A
// rank that parks is readied into its waker's P and hands off on one core,
// always. So a rank polls only when time passed since its last wait
// began, beyond what its messages since then explain: someone computed
// (it, or the partner it waited for), and keeping a core each pays. A
// message loop, which only copies between waits, always parks.
const (
	// tightGap is the least time between the starts of two waits of a
	// rank, beyond its messages' allowance, for the second to poll: the
	// 0.2–0.5 µs of a short message's bookkeeping and loop are below it,
	// a compute phase worth keeping a core for (the poll pays from gaps
	// of a few µs: "Waking a rank", docs/predict.md) above it.
	tightGap = 2 * time.Microsecond
	// moveAllowance is what a byte of the rank's messages since its last
	// wait began may take without counting as computing: a copy between
	// cores at 2 GB/s, slower than any this host measures (COMMS1's
	// slowest range is ~10 GB/s), so that a message loop of any length is
	// not taken for a compute phase.
	moveAllowance = 0.5 // ns/B
)

// shouldPoll reports whether a wait that starts at now polls (the world
// polls at all, and more than tightGap passed since the rank's last wait
// began beyond its messages' allowance), and makes now the start of the
// rank's last wait.
func (r *rank) shouldPoll(now time.Time) bool {
	gap := now.Sub(r.waited) - time.Duration(float64(r.moved)*moveAllowance)
	r.waited, r.moved = now, 0
	return gap >= tightGap
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
	if !r.shouldPoll(start) {
		return got
	}
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
	if budget <= 0 || allDone(ops) {
		return allDone(ops)
	}
	start := time.Now()
	if !r.shouldPoll(start) {
		return false
	}
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
