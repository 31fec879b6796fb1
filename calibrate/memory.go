package calibrate

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"perfc/analyze"
	"perfc/analyze/cache"
	"perfc/calibrate/fit"
)

// The memory fits read the working-set sweep: for each level, the regions
// whose working set lies on that level's plateau (at least twice the
// level above, at most half the level itself) give its delivery rate, the
// bytes of the lines the analyzer counts as brought into the level above
// (and written back from it) over the time:
//
//	time ≈ (lines_in(L(i−1)) + writebacks(L(i−1)))·line / bandwidth(L i)
//
// and the regions at least twice the last level give main_bandwidth the
// same way. Scalar Go loops are often core-bound in the caches
// (host-baseline: L1, L2 and L3 cost alike), so a cache level's rate is
// that of the stream kind that moves the most bytes per second: the
// others are lower bounds set by their in-core work, and are kept as
// results. The load, store and read-modify-write streams load or store
// every element, eight per line, and are bound by the core's load and
// store ports in L2 and L3 (on this host at 16 B per cycle, half what L2
// delivers); the lines stream loads one element per line and measures
// the level. Out of cache every kind is bound by memory, so main_bandwidth
// is one fit of the load, store and rmw streams together, its rms their
// disagreement.

// levelFit is one level's (or main memory's) delivery rate.
type levelFit struct {
	level string             // L2, L3, …, or "main"
	kind  string             // the stream kind chosen (load, store, rmw)
	bw    float64            // bytes per second
	rms   float64            // relative rms of the chosen fit
	sizes []int64            // working sets of the chosen fit's points
	all   map[string]kindFit // the fit of every kind
	// relaxed says that no working set lay on the plateau, so the fit
	// took every working set between the level above and this one.
	relaxed bool
}

// kindFit is one stream kind's fit on a level's plateau.
type kindFit struct {
	bw    float64 // bytes per second
	rms   float64
	sizes int // distinct working sets
}

// sweepPoint is one working-set point of the curve.
type sweepPoint struct {
	kind  string
	bytes int64   // working set
	perEl float64 // seconds per element streamed (the lines stream: per line)
	rate  float64 // bytes streamed (loaded or stored; the lines stream: its lines') per second
}

// knee is the check of one sysfs level against the measured curve.
type knee struct {
	level     string
	size      int64
	ratio     float64 // time per element just above the size over just below
	confirmed bool
}

// memoryFit is the outcome of the memory fits.
type memoryFit struct {
	levels        []levelFit // L2 … and main, in order (missing when no point lies on a plateau)
	curve         []sweepPoint
	knees         []knee
	extraKnees    []int64  // working sets where the curve jumps with no sysfs level near
	writeAllocate *float64 // share of lines a store-only stream reads first; nil when unmeasured
	strides       []stridePoint
}

// stridePoint is the IMH benchmark at one stride.
type stridePoint struct {
	strideBytes int64
	perAccess   float64 // seconds
	perLine     float64 // seconds per line counted into L1
}

// groupAll names the fit of every stream kind together (main memory).
const groupAll = "load, store and rmw"

// streamKinds lists the working-set streams in the order the table and
// the plot give them.
func streamKinds() []string { return []string{groupLoad, groupStore, groupRMW, groupLines} }

// isStream reports whether a group is one of the streams that main
// memory's one fit joins (every working-set stream but lines).
func isStream(g string) bool { return g == groupLoad || g == groupStore || g == groupRMW }

// kneeRatio is the jump in time per element that confirms a level: 10 %.
const kneeRatio = 1.10

// linesOf returns the lines brought into and written back from level
// name in counts c.
func linesOf(c analyze.Counts, name string) (float64, float64) {
	for _, l := range c.Cache {
		if l.Level == name {
			return l.Lines.Float(), l.WriteBacks.Float()
		}
	}
	return 0, 0
}

// fitMemory runs the memory fits on the memory kernel's points.
func fitMemory(mk *measuredKernel, h cache.Hierarchy) (*memoryFit, error) {
	mf := &memoryFit{}
	for _, p := range mk.points {
		switch p.group {
		case groupLoad, groupStore, groupRMW, groupLines:
			el := float64(p.reps) * float64(p.n)
			bytes := el * 8
			switch p.group {
			case groupRMW:
				bytes *= 2 // each element loaded and stored
			case groupLines:
				el /= 8 // one element loaded per line; bytes: the lines'
			}
			mf.curve = append(mf.curve, sweepPoint{kind: p.group, bytes: p.n * 8, perEl: p.seconds / el, rate: bytes / p.seconds})
		case groupStride:
			lines, _ := linesOf(p.counts, h[0].Name)
			sp := stridePoint{strideBytes: p.n * 8, perAccess: p.seconds / p.counts.Loads.Float()}
			if lines > 0 {
				sp.perLine = p.seconds / lines
			}
			mf.strides = append(mf.strides, sp)
		}
	}
	for i := 1; i <= len(h); i++ {
		lf, err := fitLevel(mk.points, h, i)
		if err != nil {
			return nil, err
		}
		if lf != nil {
			mf.levels = append(mf.levels, *lf)
		}
	}
	mf.knees, mf.extraKnees = findKnees(mf.curve, h)
	mf.writeAllocate = storeReadShare(mk.points, h)
	return mf, nil
}

// plateau reports whether a working set lies on level i's plateau (i =
// len(h) is main memory).
func plateau(ws int64, h cache.Hierarchy, i int) bool {
	if ws < 2*int64(h[i-1].Size) {
		return false
	}
	return i == len(h) || ws <= int64(h[i].Size)/2
}

// fitLevel fits level i's delivery rate (i = len(h): main memory) for
// every stream kind and keeps the fastest; nil when no point lies on the
// level's plateau.
func fitLevel(pts []point, h cache.Hierarchy, i int) (*levelFit, error) {
	lf, err := fitLevelOn(pts, h, i, plateau)
	if lf != nil || err != nil {
		return lf, err
	}
	// No working set on the plateau (levels of near sizes, or a last
	// level too large to sweep four times over): any working set beyond
	// the level above, with the source saying so.
	lf, err = fitLevelOn(pts, h, i, beyond)
	if lf != nil {
		lf.relaxed = true
	}
	return lf, err
}

// beyond reports whether a working set exceeds the level above level i.
func beyond(ws int64, h cache.Hierarchy, i int) bool {
	return ws > int64(h[i-1].Size) && (i == len(h) || ws <= int64(h[i].Size))
}

// fitLevelOn is fitLevel on the working sets that on accepts.
func fitLevelOn(pts []point, h cache.Hierarchy, i int, on func(int64, cache.Hierarchy, int) bool) (*levelFit, error) {
	above := h[i-1]
	name := "main"
	if i < len(h) {
		name = h[i].Name
	}
	var best *levelFit
	all := map[string]kindFit{}
	kinds := streamKinds()
	if i == len(h) {
		// Out of cache every stream is bound by memory, not by its
		// in-core work: one rate fits them all together. The stream of
		// one load per line is not among them: it is the caches' measure,
		// and from memory it runs slower than the load stream (on this
		// host 4.4 against 3.4 ns per line at 128 MiB).
		kinds = append(kinds, groupAll)
	}
	for _, kind := range kinds {
		var x [][]float64
		var y []float64
		var sizes []int64
		for _, p := range pts {
			if (p.group != kind && (kind != groupAll || !isStream(p.group))) || !on(p.n*8, h, i) {
				continue
			}
			in, wb := linesOf(p.counts, above.Name)
			if in+wb == 0 {
				continue
			}
			x, y, sizes = append(x, []float64{(in + wb) * float64(above.Line)}), append(y, p.seconds), append(sizes, p.n*8)
		}
		if len(x) == 0 {
			continue
		}
		l, err := fit.NNLS(x, y, []string{"seconds per byte"})
		if err != nil {
			return nil, fmt.Errorf("calibrate: %s bandwidth fit (%s): %w", name, kind, err)
		}
		if l.Coef[0] <= 0 {
			continue
		}
		bw := 1 / l.Coef[0]
		all[kind] = kindFit{bw: bw, rms: l.RelRMS, sizes: len(slices.Compact(slices.Sorted(slices.Values(sizes))))}
		if kind == groupAll || (i < len(h) && (best == nil || bw > best.bw)) {
			best = &levelFit{level: name, kind: kind, bw: bw, rms: l.RelRMS, sizes: sizes}
		}
	}
	if best != nil {
		best.all = all
	}
	return best, nil
}

// findKnees checks every sysfs level against the load curve: the median
// time per element from a quarter to a half of the level's size, against
// that from twice to four times it. It also lists jumps of the curve
// between neighbouring sizes that no level explains (within a factor 2).
func findKnees(curve []sweepPoint, h cache.Hierarchy) ([]knee, []int64) {
	var load []sweepPoint
	for _, p := range curve {
		if p.kind == groupLoad {
			load = append(load, p)
		}
	}
	between := func(lo, hi float64) []float64 {
		var v []float64
		for _, p := range load {
			if b := float64(p.bytes); b >= lo && b <= hi {
				v = append(v, p.perEl)
			}
		}
		return v
	}
	var knees []knee
	for _, l := range h {
		s := float64(l.Size)
		below, above := between(s/4, s/2), between(2*s, 4*s)
		if len(below) == 0 || len(above) == 0 {
			continue
		}
		r := median(above) / median(below)
		knees = append(knees, knee{level: l.Name, size: int64(l.Size), ratio: r, confirmed: r >= kneeRatio})
	}
	var extra []int64
	for j := 1; j < len(load); j++ {
		if load[j].perEl < kneeRatio*1.5*load[j-1].perEl {
			continue
		}
		near := slices.ContainsFunc(h, func(l cache.Level) bool {
			s := float64(l.Size)
			return float64(load[j].bytes) >= s/2 && float64(load[j-1].bytes) <= 2*s
		})
		if !near {
			extra = append(extra, load[j].bytes)
		}
	}
	return knees, extra
}

// storeReadShare compares the store-only stream with the load and
// read-modify-write streams out of cache: a read-modify-write moves a
// line in (as the load does) and back out, so its time less the load's is
// the write-back; what the store-only stream takes beyond that write-back,
// as a share of the load's time, is the share of lines it reads before it
// writes them (1 = write-allocate, 0 = none). nil without out-of-cache
// points.
func storeReadShare(pts []point, h cache.Hierarchy) *float64 {
	times := map[string][]float64{}
	for _, p := range pts {
		switch p.group {
		case groupLoad, groupStore, groupRMW:
			if plateau(p.n*8, h, len(h)) {
				times[p.group] = append(times[p.group], p.seconds/float64(p.n*p.reps))
			}
		}
	}
	ld, st, rmw := times[groupLoad], times[groupStore], times[groupRMW]
	if len(ld) == 0 || len(st) == 0 || len(rmw) == 0 {
		return nil
	}
	l, s, r := median(ld), median(st), median(rmw)
	share := math.Max(0, (s-(r-l))/l)
	return &share
}

// median of a non-empty slice.
func median(v []float64) float64 {
	s := slices.Clone(v)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
