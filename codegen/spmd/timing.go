package spmd

import (
	"math"
	"sort"
	"sync"
	"time"
)

// enter starts region id inside the one that is running; the time of the
// enclosing region stops until leave, so regions partition a run.
func (r *rank) enter(id int) {
	now := time.Now()
	r.regionNs[r.cur] += int64(now.Sub(r.resumed))
	r.stack = append(r.stack, r.cur)
	r.cur, r.resumed = id, now
}

// leave ends the innermost region and resumes the enclosing one.
func (r *rank) leave() {
	now := time.Now()
	r.regionNs[r.cur] += int64(now.Sub(r.resumed))
	last := len(r.stack) - 1
	r.cur, r.stack = r.stack[last], r.stack[:last]
	r.resumed = now
}

// runs executes the kernel body reps times on every rank. Before every
// run each rank re-initialises its data (untimed), so that every run does
// the same work on the same values; the ranks start and end every run
// together. It returns, per rank, the nanoseconds spent in each region,
// summed over the runs.
func (w *world) runs(reps int) [][]int64 {
	// The watchdog notices stop when it next wakes; nothing waits for it.
	stop := make(chan struct{})
	go w.watch(stop, w.period)
	var wg sync.WaitGroup
	for _, r := range w.ranks {
		clear(r.regionNs)
		wg.Add(1)
		go w.rankLoop(r, reps, &wg)
	}
	wg.Wait()
	close(stop)
	out := make([][]int64, len(w.ranks))
	for i, r := range w.ranks {
		out[i] = append([]int64(nil), r.regionNs...)
	}
	return out
}

// rankLoop is one rank's goroutine for reps runs.
func (w *world) rankLoop(r *rank, reps int, wg *sync.WaitGroup) {
	defer wg.Done()
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
		w.gate.wait()
		r.cur, r.stack = 0, r.stack[:0]
		r.resumed = time.Now()
		prog.run(r)
		r.regionNs[r.cur] += int64(time.Since(r.resumed))
		r.state.Store(stateDone)
		w.gate.wait()
	}
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

// stats summarises samples: min, median and max.
func stats(name string, samples []float64) Timing {
	s := append([]float64(nil), samples...)
	sort.Float64s(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return Timing{Name: name, MinUs: s[0], MedianUs: med, MaxUs: s[len(s)-1], SamplesUs: samples}
}

// slowest returns, for one measurement of reps runs, the time per run of
// every region and of the whole body on the slowest rank, in microseconds.
func slowest(perRank [][]int64, reps int) (regions []float64, total float64) {
	regions = make([]float64, len(perRank[0]))
	for _, ns := range perRank {
		sum := int64(0)
		for i, t := range ns {
			regions[i] = math.Max(regions[i], float64(t))
			sum += t
		}
		total = math.Max(total, float64(sum))
	}
	for i := range regions {
		regions[i] /= float64(reps) * 1e3
	}
	return regions, total / (float64(reps) * 1e3)
}

// tick1 measures the timer's resolution as PARKBENCH's TICK1 does: the
// smallest nonzero difference between successive readings of the clock.
func tick1() time.Duration {
	best := time.Duration(math.MaxInt64)
	for range 100 {
		t0 := time.Now()
		t1 := time.Now()
		for t1.Sub(t0) == 0 {
			t1 = time.Now()
		}
		best = min(best, t1.Sub(t0))
	}
	return best
}

// calibrate returns how many runs make one measurement last at least
// minTime, starting from the warm-up run's time and doubling while a
// trial measurement is too short.
func (w *world) calibrate(warmUs float64, minTime time.Duration) int {
	goal := minTime.Seconds() * 1e6
	n := 1
	if warmUs > 0 {
		n = int(math.Min(math.Ceil(goal/warmUs), 1e9))
	}
	for n < 1e9 {
		_, total := slowest(w.runs(n), n)
		if total*float64(n) >= goal {
			return n
		}
		n *= 2
	}
	return n
}
