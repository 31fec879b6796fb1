//go:build !perfc_mpi

package spmd

import (
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"sync/atomic"
	"time"
)

// The goroutine transport's harness: every rank is a goroutine of one
// process, and the world runs them all.

// backend names the transport in reports.
const backend = "goroutines"

// perRankTimes is false: a measurement reports the slowest rank only (a
// world of thousands of goroutine ranks would print thousands of rows).
const perRankTimes = false

// stamp is a reading of the region timer: Go's monotonic clock.
type stamp = time.Time

// readClock reads the region timer.
func readClock() stamp { return time.Now() }

// elapsedNs is the time from one reading to another.
func elapsedNs(from, to stamp) int64 { return int64(to.Sub(from)) }

// runProgram is the main function of a generated program: it checks the
// memory, then times the kernel (or, with -count, counts one run) and
// prints the result. It returns the exit status.
func runProgram(k *kernelDesc, args []string, stdout, stderr io.Writer, exit func(int)) int {
	o, err := parseOptions(k.name, args, stderr, nil)
	if err == flag.ErrHelp {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "error:", err)
		return 2
	}
	if err := CheckMemory(k.memBytes, o.memLimit, MemAvailable); err != nil {
		fmt.Fprintf(stderr, "error: kernel %s: %v\n", k.name, err)
		return 1
	}
	if o.count && !counting {
		fmt.Fprintln(stderr, "error: this build does not count; build it with the counting code: go run -tags perfc_count . -count")
		return 2
	}
	w := newWorld(k, stderr, exit)
	if o.count {
		return w.report(stdout, o.json, w.countRun())
	}
	return w.report(stdout, o.json, w.measure(o))
}

// runs executes the kernel body reps times on every rank. Before every
// run each rank re-initialises its data (untimed), so that every run does
// the same work on the same values; the ranks start and end every run
// together. It returns, per rank, the nanoseconds spent in each region,
// summed over the runs. Between keepRanks and its stop the ranks'
// goroutines are kept from one call to the next; otherwise each call
// starts them and lets them end.
func (w *world) runs(reps int) [][]int64 {
	if w.crew == nil {
		defer w.keepRanks()()
	}
	c := w.crew
	// The watchdog notices stop when it next wakes; nothing waits for it.
	stop := make(chan struct{})
	go w.watch(stop, w.period)
	for _, r := range w.ranks {
		clear(r.regionNs)
	}
	c.reps = reps
	c.left.Store(int32(len(w.ranks)))
	c.start.open()
	<-c.done
	close(stop)
	out := make([][]int64, len(w.ranks))
	for i, r := range w.ranks {
		out[i] = append([]int64(nil), r.regionNs...)
	}
	return out
}

// crew is the ranks' goroutines while they are kept between calls of
// runs. A measurement keeps them: a goroutine started for every call
// begins on the P of the goroutine that starts it, and until another P
// takes it the ranks share one core, for the first run of every
// measurement (a 100-message pingpong took 6–10 ms instead of 0.4 ms);
// and a core left idle between the calls ran the next calls' first
// milliseconds slower (0.51 against 0.38 ms the same run). Kept ranks
// wait for the next call at start, spinning as they do at the harness's
// gate.
type crew struct {
	start latch         // opened for every call of runs, and to stop
	reps  int           // runs of the current call; set before start opens
	quit  bool          // the ranks end; set before start opens
	left  atomic.Int32  // ranks still running the current call
	done  chan struct{} // the last rank of a call sends
}

// keepRanks starts the ranks' goroutines and keeps them for every call of
// runs until the returned stop, which ends them.
func (w *world) keepRanks() (stop func()) {
	c := &crew{done: make(chan struct{}, 1)}
	c.start.init(w.gate.spin)
	w.crew = c
	if w.cores != nil {
		w.cores.start()
	}
	for _, r := range w.ranks {
		go w.rankMain(r, c)
	}
	return func() {
		c.quit = true
		c.start.open()
		w.crew = nil
		if w.cores != nil {
			w.cores.stop()
		}
	}
}

// rankMain is one rank's goroutine: it runs every call of runs until the
// crew stops.
func (w *world) rankMain(r *rank, c *crew) {
	for seen := int64(0); ; {
		seen = c.start.await(seen)
		if c.quit {
			return
		}
		w.rankLoop(r, c.reps)
		if c.left.Add(-1) == 0 {
			c.done <- struct{}{}
		}
	}
}

// rankLoop runs reps runs of rank r, in its goroutine (rankMain). When
// ranks share cores it holds one from its start to its end, except while
// it waits (cores.go), and every rank's run starts when the gate opens:
// the time a rank waits for a core at the start is part of its run.
func (w *world) rankLoop(r *rank, reps int) {
	if w.cores != nil {
		w.cores.acquire(r)
		defer w.cores.release(r)
	}
	defer w.recoverRank(r)
	if w.progs[r.id] == nil {
		// Allocated by the rank itself, so that its pages are first
		// touched where it runs.
		w.progs[r.id] = w.k.newRank()
	}
	prog := w.progs[r.id]
	for range reps {
		r.state.Store(stateRunning)
		prog.init(r.id)
		start := w.gateWait(r)
		r.cur, r.stack = 0, r.stack[:0]
		r.resumed = start
		prog.run(r)
		r.regionNs[r.cur] += int64(time.Since(r.resumed))
		r.state.Store(stateDone)
		w.gateWait(r)
	}
}

// gateWait waits at the harness's gate and returns the start of the run
// that follows for rank r: when the gate opened if ranks share cores, when
// the rank passed it otherwise.
func (w *world) gateWait(r *rank) time.Time {
	if w.cores != nil {
		return w.gate.waitCore(r, w.cores)
	}
	w.gate.wait()
	return time.Now()
}

// recoverRank turns a run-time error in a rank (an index out of range, an
// integer division by zero) into a message naming the rank.
func (w *world) recoverRank(r *rank) {
	e := recover()
	if e == nil {
		return
	}
	r.state.Store(stateDone)
	if e == errFatal {
		return
	}
	w.fail("rank %d stopped: %v\n%s", r.id, e, kernelFrame())
}

// checksum sums every rank's data after the last run.
func (w *world) checksum() (string, bool) {
	sum := 0.0
	for _, p := range w.progs {
		if p != nil {
			sum += p.checksum()
		}
	}
	return strconv.FormatFloat(sum, 'g', 17, 64), !math.IsInf(sum, 0) && !math.IsNaN(sum)
}

// rankCounters returns the counters of every rank.
func (w *world) rankCounters() []rankCounters {
	out := make([]rankCounters, len(w.ranks))
	for i, r := range w.ranks {
		out[i] = rankCounters{cnt: r.cnt, bytes: r.bytes, peer: r.peer}
		if rq := r.rq; rq != nil {
			out[i].posted, out[i].completed, out[i].overlapped = rq.posted, rq.completed, rq.overlapped
		}
	}
	return out
}

// clearCounters zeroes every rank's counters.
func (w *world) clearCounters() {
	for _, r := range w.ranks {
		clear(r.cnt)
		clear(r.bytes)
		clear(r.peer)
		if rq := r.rq; rq != nil {
			clear(rq.posted)
			clear(rq.completed)
			clear(rq.overlapped)
		}
	}
}

// transportNotes says what the goroutine transport means for the times.
func (w *world) transportNotes() []string {
	if procs := runtime.GOMAXPROCS(0); w.size > procs {
		return []string{fmt.Sprintf("%d ranks share %d cores (GOMAXPROCS %d): ranks are goroutines, and a rank's time includes waiting for a core",
			w.size, runtime.NumCPU(), procs)}
	}
	return nil
}
