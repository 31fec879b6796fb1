package comms

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// wakeFit is the wake-up cost found from the Gap and Wake benchmarks: the
// time a round trip takes beyond the gap and a tight-loop round trip once
// the gap is long enough for the waiting rank's thread to sleep, and the
// gap from which it does.
type wakeFit struct {
	time, after float64 // s
	excess      []gapExcess
}

// gapExcess is one gap's measurement: the gap (rank 0's compute alone)
// and what its round trip took beyond a tight-loop round trip.
type gapExcess struct {
	gap, excess float64 // s
}

// fitWakeup pairs every Wake point with the Gap point of the same blocks,
// and takes the excess of Wake over Gap beyond the same difference at no
// gap (blocks 0: the round trip of the same kernel without a gap), not
// over twice COMMS1 at 8 B, a round trip of another kernel. The wake-up
// time is the median excess of the longer half of the gaps; after is the
// mid-point between the longest gap whose excess is below half of it and
// the next gap, where no gap (excess 0 by definition) is the first point,
// so after is never 0: the calibration of 2026-11-27 14:45 found +0.62 µs
// at every gap from 1.1 µs on, wrote after 0, and the emulator charged
// 0.84 µs to every message whose first side waited at all (halo2d 2 × 1
// in L1, whose ranks wait nanoseconds, predicted +21 to +62 %). The same
// +0.63 µs from 1.1 µs on came back at 18:25 against the kernel's own
// round trip, so it is a cost of waiting at times, not of the reference.
// It reports false without the point of no gap, with fewer than two gaps
// beyond it, or when the excess is not positive (the waiting rank never
// sleeps).
func fitWakeup(pts []Point) (wakeFit, bool) {
	gaps := map[int64]float64{}
	for _, p := range pts {
		if p.Bench == Gap && p.Ranks == partition {
			gaps[p.Blocks] = p.Time
		}
	}
	wakes := map[int64]float64{}
	for _, p := range pts {
		if _, ok := gaps[p.Blocks]; ok && p.Bench == Wake && p.Ranks == partition {
			wakes[p.Blocks] = p.Time
		}
	}
	wake0, ok := wakes[0]
	if !ok {
		return wakeFit{}, false
	}
	roundTrip := wake0 - gaps[0]
	var w wakeFit
	for _, b := range slices.Sorted(maps.Keys(wakes)) { // in order of blocks, for equal gaps
		if b > 0 {
			w.excess = append(w.excess, gapExcess{gap: gaps[b], excess: wakes[b] - gaps[b] - roundTrip})
		}
	}
	if len(w.excess) < 2 {
		return wakeFit{}, false
	}
	slices.SortStableFunc(w.excess, func(a, b gapExcess) int { return cmp.Compare(a.gap, b.gap) })
	long := w.excess[len(w.excess)/2:]
	xs := make([]float64, len(long))
	for i, e := range long {
		xs[i] = e.excess
	}
	w.time = median(xs)
	if !(w.time > 0) {
		return wakeFit{}, false
	}
	w.after = w.excess[0].gap / 2 // between no gap and the first
	for i, e := range w.excess {
		if e.excess < w.time/2 && i+1 < len(w.excess) {
			w.after = (e.gap + w.excess[i+1].gap) / 2
		}
	}
	return w, true
}

// median is the median of xs (not empty), which it sorts.
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// wakeupYAML is messages.wakeup (docs/machines.md).
type wakeupYAML struct {
	Time   string `yaml:"time"`
	After  string `yaml:"after"`
	Source string `yaml:"source"`
}

// wakeupSection writes the fitted wake-up cost with the measured excess
// of every gap in its source.
func (r *Result) wakeupSection() *wakeupYAML {
	if r.wake == nil {
		return nil
	}
	var parts []string
	for _, e := range r.wake.excess {
		parts = append(parts, fmt.Sprintf("%s: +%s", fmtTime(e.gap), fmtTime(e.excess)))
	}
	return &wakeupYAML{
		Time:  fmtTime(r.wake.time),
		After: fmtTime(r.wake.after),
		Source: fmt.Sprintf("%s WAKE: an 8 B pingpong round trip after rank 0 computes a gap, beyond the gap and the same kernel's round trip without one (gap: excess, median of %d measurements: %s), P=2, %s",
			r.transport.Command(), r.samples, strings.Join(parts, ", "), r.date),
	}
}
