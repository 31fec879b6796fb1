package spmd

import (
	"math"
	"sort"
	"time"
)

// enter starts region id inside the one that is running; the time of the
// enclosing region stops until leave, so regions partition a run.
func (r *rank) enter(id int) {
	now := readClock()
	r.regionNs[r.cur] += elapsedNs(r.resumed, now)
	r.stack = append(r.stack, r.cur)
	r.cur, r.resumed = id, now
}

// leave ends the innermost region and resumes the enclosing one.
func (r *rank) leave() {
	now := readClock()
	r.regionNs[r.cur] += elapsedNs(r.resumed, now)
	last := len(r.stack) - 1
	r.cur, r.stack = r.stack[last], r.stack[:last]
	r.resumed = now
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

// tick1 measures the region timer's resolution as PARKBENCH's TICK1
// does: the smallest nonzero difference between successive readings of
// the clock, in nanoseconds.
func tick1() int64 {
	best := int64(math.MaxInt64)
	for range 100 {
		t0 := readClock()
		t1 := readClock()
		for elapsedNs(t0, t1) == 0 {
			t1 = readClock()
		}
		best = min(best, elapsedNs(t0, t1))
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
