package fit

import (
	"math"
	"slices"
)

// FastFactor is how much slower than the fastest of a benchmark's
// measurements another may be and still count as taken outside the
// host's slow moments. In them this host passes cache lines between its
// two cores 3 to 5 times slower (one line passed between two threads
// pinned to the two CPUs: 26-35 ns a pass outside them, 150-175 ns in
// them, 2026-11-27) and runs an L1 loop of loads and stores 1.9 times
// slower (0.55-0.60 against 1.05-1.08 ns an element); a COMMS1 of 16 KiB
// between two ranks of four on two cores measured 0.72-0.73 us outside
// and 2.3-3.2 us in them, its short messages only 0.33-0.46 against
// 0.47-0.58 us, which a factor of 1.5 still tells apart; a steady
// benchmark's samples spread by 1-20 %.
const FastFactor = 1.5

// Band is what is left of a benchmark's measurements once those taken in
// a host's slow moments are set aside: the fastest, the median and the
// slowest of the measurements within a factor of the fastest, and how
// many those are.
type Band struct {
	Min, Median, Max float64
	N                int
}

// FastBand keeps the samples within factor × the fastest and summarises
// them. Why: this project's host (a 2-vCPU VM) runs its loads and stores
// at half speed while a neighbour shares the core, and passes cache lines
// between its cores three to five times slower in spells, for tenths of a
// second to seconds at a time (docs/calibrate.md, "Waiting for the host");
// a benchmark whose samples fall partly in such moments has a median
// between the two states, and a table fitted to it prices neither. The
// median of the band is the host's typical time outside them, where the
// fastest alone is a lucky sample (docs/calibrate-comms.md, "Outside the
// spells"). The zero Band for no samples.
func FastBand(samples []float64, factor float64) Band {
	s := slices.Sorted(slices.Values(samples))
	if len(s) == 0 {
		return Band{}
	}
	n := 1
	for n < len(s) && s[n] <= factor*s[0] {
		n++
	}
	kept := s[:n]
	median := kept[n/2]
	if n%2 == 0 {
		median = (kept[n/2-1] + kept[n/2]) / 2
	}
	return Band{Min: kept[0], Median: median, Max: kept[n-1], N: n}
}

// Usable reports whether every sample is a time FastBand can summarise:
// positive and finite. A harness that could not time a run reports NaN
// (or a zero from a clock that did not move), and the fastest of such
// samples would make a band of nothing; callers keep the run's own
// timing instead, and their checks report it.
func Usable(samples []float64) bool {
	return !slices.ContainsFunc(samples, func(x float64) bool { return !(x > 0) || math.IsInf(x, 1) })
}
