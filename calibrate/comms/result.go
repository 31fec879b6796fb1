package comms

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"perfc/calibrate/fit"
)

// Tolerance is how closely a fitted law must follow its points: a Hockney
// range fits when every point is within 10 % of it, a collective formula
// when its rms relative residual is at most 10 %.
const Tolerance = 0.10

// minT0 is the start-up time of a range whose points curve upwards, so
// that a line through them starts below zero: a table's t0 must be
// positive, and 1 ns is a tenth of the fastest message measured.
const minT0 = 1e-9

// maxRanges is the most Hockney ranges of the message law.
const maxRanges = 6

// partition is the rank count of the message law: COMMS1 runs between two
// ranks (the table's ranks: key).
const partition = 2

// Result holds the measured points of a calibration and their fits.
type Result struct {
	date    string
	samples int
	points  []Point

	messages    fit.Piecewise // COMMS1
	messagesOK  bool          // every point within Tolerance
	messagesErr error         // no Hockney ranges at all: the points are the law
	exchange    *fit.Piecewise
	sendrecv    *fit.Piecewise      // COMMS3 on two ranks: a sendrecv into another buffer, both ranks at once
	sharing     *fit.Piecewise      // COMMS1 in the sharingRanks kernel
	sameCore    *fit.Piecewise      // SAMECORE in the sharingRanks kernel
	local       *fit.Piecewise      // LOCAL: payloads that stay with their senders
	saturation  map[int]fit.Hockney // COMMS3 by P
	colls       map[string]collFit  // by kind, barrier included
	wake        *wakeFit            // from GAP and WAKE; nil when not measured or not seen
	requests    *reqFit             // from REQ; nil when not measured
	cores       int                 // the host's cores the goroutine ranks share (Run sets it); 0: unknown (shared.go)
	twin        *twinRuns           // the two runs of the two-rank kernel (Run sets it); nil: one run
	twinShared  *twinRuns           // the two runs of the sharingRanks kernel, as twin
	transport   Transport           // what carried the messages (Run sets it)
}

// collFit is a collective kind's fit and the points it came from.
type collFit struct {
	formula Formula
	fits    bool // rms within Tolerance
	points  []Point
}

// Analyse fits measured points: the piecewise Hockney law of the COMMS1
// pingpong, COMMS2 and COMMS3 laws (kept as results), and a formula over
// bytes and P for every collective kind (SYNCH1 for the barrier). samples
// and date go into the sources.
func Analyse(pts []Point, samples int, date string) (*Result, error) {
	return analyse(pts, samples, date, Transport{Backend: "goroutine"})
}

// analyse is Analyse of points that tr carried: an MPI launch on one host
// (tr.Cores) adds the collective forms for ranks beyond its cores.
func analyse(pts []Point, samples int, date string, tr Transport) (*Result, error) {
	r := &Result{date: date, samples: samples, points: slices.Clone(pts), saturation: map[int]fit.Hockney{}, colls: map[string]collFit{},
		transport: tr}
	n, t := series(pts, Comms1, partition)
	if len(n) < 3 {
		return nil, fmt.Errorf("calibrate comms: %d COMMS1 pingpong lengths; the message law needs 3 or more", len(n))
	}
	var err error
	r.messages, r.messagesOK, err = fit.FitPiecewise(n, t, fit.PiecewiseOptions{Tolerance: Tolerance, MaxRanges: maxRanges, MinT0: minT0})
	if err != nil {
		r.messagesErr = err // the measured points stand in (Messages)
	}
	if n, t := series(pts, Comms1, sharingRanks); len(n) >= 3 {
		if p, _, err := fit.FitPiecewise(n, t, fit.PiecewiseOptions{Tolerance: Tolerance, MaxRanges: maxRanges, MinT0: minT0}); err == nil {
			r.sharing = &p
		}
	}
	if n, t := series(pts, SameCore, sharingRanks); len(n) >= 3 {
		if p, _, err := fit.FitPiecewise(n, t, fit.PiecewiseOptions{Tolerance: Tolerance, MaxRanges: maxRanges, MinT0: minT0}); err == nil {
			r.sameCore = &p
		}
	}
	if n, t := series(pts, Local, partition); len(n) >= 3 {
		if p, _, err := fit.FitPiecewise(n, t, fit.PiecewiseOptions{Tolerance: Tolerance, MaxRanges: maxRanges, MinT0: minT0}); err == nil {
			r.local = &p
		}
	}
	if n, t := series(pts, Comms2, partition); len(n) >= 3 {
		if p, _, err := fit.FitPiecewise(n, t, fit.PiecewiseOptions{Tolerance: Tolerance, MaxRanges: maxRanges, MinT0: minT0}); err == nil {
			r.exchange = &p
		}
	}
	if n, t := series(pts, Comms3, partition); len(n) >= 3 {
		if p, _, err := fit.FitPiecewise(n, t, fit.PiecewiseOptions{Tolerance: Tolerance, MaxRanges: maxRanges, MinT0: minT0}); err == nil {
			r.sendrecv = &p
		}
	}
	for _, p := range r.rankCounts(Comms3) {
		if n, t := r.saturationSeries(p); len(n) >= 2 {
			if h, err := fit.FitHockney(n, t); err == nil {
				r.saturation[p] = h
			}
		}
	}
	if w, ok := fitWakeup(pts); ok {
		r.wake = &w
	}
	for i, x := range n {
		if x == 8 {
			copy8 := t[i] // the message the emulation copies at a wait: the law's, which prices it
			if r.messagesErr == nil {
				copy8 = r.messages.Time(8)
			}
			if q, ok := fitRequests(pts, copy8); ok {
				r.requests = &q
			}
		}
	}
	knee := r.knee(collectiveLengths(pts))
	kinds := CollectiveKinds()
	for _, kind := range collectiveKinds {
		kinds = append(kinds, string(AfterBarrier(kind)))
	}
	for _, kind := range kinds {
		b := Bench(kind)
		if kind == "barrier" {
			b = Synch1
		}
		var kp []Point
		for _, p := range pts {
			if p.Bench == b {
				kp = append(kp, p)
			}
		}
		if len(kp) == 0 {
			continue
		}
		f, err := fitFormula(kp, knee, tr.Cores)
		if err != nil {
			return nil, fmt.Errorf("calibrate comms: %s: %w", kind, err)
		}
		r.colls[kind] = collFit{formula: f, fits: f.RMS() <= Tolerance, points: kp}
	}
	return r, nil
}

// knee is the boundary of the message law where the bandwidth drops the
// most, by a fifth at least, among those with two collective lengths or
// more on either side (0: none): where the payloads leave the first-level
// cache on the host, the length beyond which a byte costs more in the
// collective formulas. (The first boundary need not be it: noise among the
// shortest messages can split them off; and a drop at 1 MiB, out of the
// second level, says nothing about collectives measured up to 256 KiB.)
func (r *Result) knee(lengths []float64) float64 {
	if r.messagesErr != nil {
		return 0
	}
	knee, drop := 0.0, 1.2
	for i, b := range r.messages.Below {
		below, beyond := 0, 0
		for _, n := range lengths {
			if n > b {
				beyond++
			} else {
				below++
			}
		}
		if below < 2 || beyond < 2 {
			continue
		}
		if d := r.messages.Laws[i].Rinf / r.messages.Laws[i+1].Rinf; d > drop {
			knee, drop = b, d
		}
	}
	return knee
}

// collectiveLengths lists the lengths the collectives were measured at.
func collectiveLengths(pts []Point) []float64 {
	var out []float64
	for _, p := range pts {
		if !isPointToPoint(p.Bench) && p.Bench != Synch1 && !slices.Contains(out, p.Bytes) {
			out = append(out, p.Bytes)
		}
	}
	slices.Sort(out)
	return out
}

// isPointToPoint reports whether b is a benchmark of messages (or the
// wake-up's gap), not of a collective.
func isPointToPoint(b Bench) bool {
	switch b {
	case Comms1, SameCore, Local, Comms2, Comms3, Gap, Wake:
		return true
	}
	return false
}

// series returns one benchmark's points on P ranks as (bytes, seconds),
// ordered by length.
func series(pts []Point, b Bench, p int) (n, t []float64) {
	var sel []Point
	for _, x := range pts {
		if x.Bench == b && x.Ranks == p {
			sel = append(sel, x)
		}
	}
	slices.SortFunc(sel, func(a, b Point) int { return cmp.Compare(a.Bytes, b.Bytes) })
	for _, x := range sel {
		n, t = append(n, x.Bytes), append(t, x.Time)
	}
	return n, t
}

// saturationSeries is COMMS3's series on p ranks for its Hockney law
// (the saturation results, messages.shared): on two ranks only the lengths
// the other rank counts ran too, so that the comparison of the laws is of
// the same lengths whatever further lengths the sendrecv law took there.
func (r *Result) saturationSeries(p int) (n, t []float64) {
	n, t = series(r.points, Comms3, p)
	if p != partition {
		return n, t
	}
	others := map[float64]bool{}
	for _, x := range r.points {
		if x.Bench == Comms3 && x.Ranks != partition {
			others[x.Bytes] = true
		}
	}
	if len(others) == 0 {
		return n, t
	}
	var kn, kt []float64
	for i, b := range n {
		if others[b] {
			kn, kt = append(kn, b), append(kt, t[i])
		}
	}
	return kn, kt
}

// rankCounts lists the rank counts a benchmark ran on, in order.
func (r *Result) rankCounts(b Bench) []int {
	var out []int
	for _, p := range r.points {
		if p.Bench == b && !slices.Contains(out, p.Ranks) {
			out = append(out, p.Ranks)
		}
	}
	slices.Sort(out)
	return out
}

// Transport says what carried the benchmarks' messages (goroutines, or
// MPI with its library and launcher).
func (r *Result) Transport() Transport { return r.transport }

// SetTransport records what carried the messages of points that Analyse
// fitted, for the sources (a refit of saved points, or a test, says it);
// the fits stay as they are (Run fits with its transport's cores).
func (r *Result) SetTransport(t Transport) { r.transport = t }

// Points returns the measured points.
func (r *Result) Points() []Point { return slices.Clone(r.points) }

// Ranks is the partition the message law was measured on (the table's
// ranks: key): COMMS1 runs between two ranks.
func (r *Result) Ranks() int { return partition }

// Messages is the messages: section of a machine table: the COMMS1 law as
// Hockney ranges of message length, the fewest (at most five) that follow
// every point within 10 %. When none does, the best split into five is
// written all the same, and its source says by how much it misses: a
// measured table would follow the points, but t0, r∞ and n½ are what the
// papers compare machines by, and the MPICH defaults read them. Only when
// no split has a positive r∞ in every range (times that fall with the
// length) are the measured points the law (model: expr, a table over
// bytes).
func (r *Result) Messages() any {
	n, _ := series(r.points, Comms1, partition)
	src := fmt.Sprintf("%s COMMS1 pingpong %s (half the round trip, %s), %s..%s (%d lengths), P=2, %s",
		r.transport.Command(), r.transport.Describe(partition), r.measuredAs(partition), fmtBytes(n[0]), fmtBytes(n[len(n)-1]), len(n), r.date)
	if t := r.twin; t != nil {
		src += fmt.Sprintf("; the two-rank kernel ran twice, in two processes, its %s message %s in the median of the faster run and %s in the other",
			fmtBytes(float64(t.bytes)), fmtTime(t.kept), fmtTime(t.dropped))
	}
	// The laws beside the message law are measured apart from it and
	// written whatever its form (until session 20 the measured-points form
	// below left them out, and with them the exchange's serial halves).
	m := messagesYAML{Wakeup: r.wakeupSection(), Shared: r.sharedSection(), Sharing: r.sharingSection(), SameCore: r.sameCoreSection(),
		Local: r.localSection(), Requests: r.requestsSection()}
	switch {
	case r.messagesErr != nil:
		m.Source = src + "; measured points: no Hockney law with a positive r∞ fits (" + r.messagesErr.Error() + ")"
		m.Model, m.Time = "expr", r.table(Comms1, partition, "bytes")
	case !r.messagesOK:
		src += fmt.Sprintf("; no split into at most %d Hockney ranges follows every point within 10 %% (%s)", maxRanges, describePiecewise(r.messages))
		fallthrough
	default:
		m.Source, m.Model, m.Ranges = src, "hockney", r.ranges(r.messages, "COMMS1 pingpong", partition)
	}
	if p := r.exchange; p != nil {
		n, _ := series(r.points, Comms2, partition)
		m.Exchange = &messagesYAML{Model: "hockney", Ranges: r.ranges(*p, "COMMS2 exchange", partition),
			Source: fmt.Sprintf("%s COMMS2 exchange (time of one in-place exchange of n bytes each way, both ranks sending, %s), %s..%s (%d lengths), P=2, %s",
				r.transport.Command(), r.measuredAs(partition), fmtBytes(n[0]), fmtBytes(n[len(n)-1]), len(n), r.date)}
	}
	if p := r.sendrecv; p != nil {
		n, _ := series(r.points, Comms3, partition)
		m.SendRecv = &messagesYAML{Model: "hockney", Ranges: r.ranges(*p, "COMMS3 sendrecv", partition),
			Source: fmt.Sprintf("%s COMMS3 on two ranks (time of one sendrecv of n bytes each way into another buffer, both ranks at once, %s), %s..%s (%d lengths), P=2, %s",
				r.transport.Command(), r.measuredAs(partition), fmtBytes(n[0]), fmtBytes(n[len(n)-1]), len(n), r.date)}
	}
	return m
}

// sharingSection is messages.sharing: COMMS1 between ranks 0 and 1 of
// the sharingRanks kernel, whose ranks outnumber the host's cores; nil
// when the host's cores are unknown or not fewer, or the law did not fit.
// On the goroutine runtime those ranks park (codegen/spmd/poll.go), and a
// message hands the core from sender to receiver with the payload in its
// cache, where ranks with a core each copy it between cores: the law of
// the kernels whose ranks share the cores is this one, not COMMS1's at
// P = 2 (docs/calibrate-comms.md, "Messages when ranks share cores").
func (r *Result) sharingSection() *messagesYAML {
	p := r.sharing
	if p == nil || r.cores < 1 || sharingRanks <= r.cores {
		return nil
	}
	n, _ := series(r.points, Comms1, sharingRanks)
	of := r.measuredAs(sharingRanks)
	return &messagesYAML{Model: "hockney", Ranges: r.ranges(*p, "COMMS1 pingpong", sharingRanks),
		Source: fmt.Sprintf("%s COMMS1 pingpong between ranks 0 and 1 of %d on %d cores (half the round trip, %s), %s..%s (%d lengths), %s",
			r.transport.Command(), sharingRanks, r.cores, of, fmtBytes(n[0]), fmtBytes(n[len(n)-1]), len(n), r.date)}
}

// sameCoreSection is messages.same_core: SAMECORE, COMMS1 between the two
// ranks of core 0 in the sharingRanks kernel; nil when the host's cores
// do not put two of its ranks other than 0 and 1 on one core, or the law
// did not fit. A message between partners of one core hands the core
// over, and its copy reads lines that core's caches hold, where COMMS1
// between ranks 0 and 1 of that kernel reads lines the other core wrote:
// on this host 0.17 against 0.47 us at 8 B and 4.9 against 32.8 us at
// 256 KiB (perfc check, 2026-11-27; docs/calibrate-comms.md, "Partners on
// one core").
func (r *Result) sameCoreSection() *messagesYAML {
	p := r.sameCore
	if p == nil || !sharesCore(r.cores) {
		return nil
	}
	n, _ := series(r.points, SameCore, sharingRanks)
	return &messagesYAML{Model: "hockney", Ranges: r.ranges(*p, "SAMECORE pingpong", sharingRanks),
		Source: fmt.Sprintf("%s SAMECORE: COMMS1 pingpong between ranks 0 and %d of %d on %d cores, both bound to core 0 (half the round trip, %s), %s..%s (%d lengths), %s",
			r.transport.Command(), r.cores, sharingRanks, r.cores, r.measuredAs(sharingRanks), fmtBytes(n[0]), fmtBytes(n[len(n)-1]), len(n), r.date)}
}

// measuredAs says how a point on ranks ranks was taken from its
// measurements: their median, or for a kernel that ran twice (the
// two-rank and the sharingRanks one) the median of both runs' outside
// the host's slow spells (outsideSpells).
func (r *Result) measuredAs(ranks int) string {
	if ranks == sharingRanks && r.twinShared != nil || ranks == partition && r.twin != nil {
		return fmt.Sprintf("the median of those of %d measurements in the kernel's two runs within %.1f × their fastest: the host's slow spells", 2*r.samples, fit.FastFactor)
	}
	return fmt.Sprintf("median of %d measurements", r.samples)
}

// localSection is messages.local: the LOCAL pingpong, whose payloads
// stay with their senders; nil when it was not measured or did not fit.
// The goroutine runtime copies a message on the core of whichever side
// arrives second, so what it costs depends on where the payload's lines
// are: COMMS1 returns what it received, and every copy reads lines the
// other core has just written, the slowest case (on this host 8–12 GB/s
// against 50 GB/s for a payload its sender holds, at 256 KiB). Kernels
// whose sent arrays are never received into send such payloads
// (docs/predict.md, "Payloads that stay with their sender").
func (r *Result) localSection() *messagesYAML {
	p := r.local
	if p == nil {
		return nil
	}
	n, _ := series(r.points, Local, partition)
	return &messagesYAML{Model: "hockney", Ranges: r.ranges(*p, "LOCAL pingpong", partition),
		Source: fmt.Sprintf("%s LOCAL pingpong %s (each rank sends its own buffer and receives into another; half the round trip, %s), %s..%s (%d lengths), P=2, %s",
			r.transport.Command(), r.transport.Describe(partition), r.measuredAs(partition), fmtBytes(n[0]), fmtBytes(n[len(n)-1]), len(n), r.date)}
}

// ranges writes the Hockney ranges of a piecewise law of bench measured
// in a kernel of p ranks.
func (r *Result) ranges(pw fit.Piecewise, bench string, p int) []rangeYAML {
	var out []rangeYAML
	for i, h := range pw.Laws {
		rg := rangeYAML{T0: fmtTime(h.T0), Rinf: fmtRate(h.Rinf),
			Source: fmt.Sprintf("%s %s, %s..%s (%d lengths), P=%d, %s, fit rms %s (max %s)",
				r.transport.Command(), bench, fmtBytes(h.From), fmtBytes(h.To), h.Points, p, r.date, percent(h.RMS()), percent(h.MaxResidual()))}
		if h.T0 > minT0 {
			// n½ is t0·r∞, written in whole bytes: below 100 B the
			// rounding would disagree with t0 and r∞ by more than the
			// table's check allows (a 1.6 B n½ written as 2B failed
			// it), so it is left for the loader to compute.
			if h.NHalf() >= 100 {
				rg.NHalf = fmtBytes(h.NHalf())
			}
		} else {
			rg.Source += "; t0 raised to 1ns: the line through these points starts below zero (they curve upwards)"
		}
		if i < len(pw.Below) {
			rg.Below = fmtBytes(pw.Below[i])
			if h.To < pw.Below[i] {
				// Where the next range starts beyond this one's points,
				// the table draws a line between the two laws.
				rg.FittedTo = fmtBytes(h.To)
			}
		}
		out = append(out, rg)
	}
	return out
}

// describePiecewise says what a piecewise law is, for a source.
func describePiecewise(p fit.Piecewise) string {
	return fmt.Sprintf("%d ranges, rms %s, max %s", len(p.Laws), percent(p.RMS()), percent(p.MaxResidual()))
}

// table is a measured table over x ("bytes" or "P") of one benchmark.
func (r *Result) table(b Bench, p int, x string) *tableYAML {
	t := &tableYAML{X: x}
	var sel []Point
	for _, pt := range r.points {
		if pt.Bench == b && (x == "P" || pt.Ranks == p) {
			sel = append(sel, pt)
		}
	}
	slices.SortFunc(sel, func(a, b Point) int {
		if x == "P" {
			return a.Ranks - b.Ranks
		}
		return cmp.Compare(a.Bytes, b.Bytes)
	})
	if x == "P" && len(sel) > 0 && sel[0].Ranks > 1 {
		// One rank waits for no one: without this point the line through
		// the first two would go negative below them (2 ranks on their
		// own cores, 4 sharing them, can differ sevenfold).
		t.Points = append(t.Points, []any{1, "0us"})
	}
	floor := 0.0
	for _, pt := range sel {
		var xv any = fmtBytes(pt.Bytes)
		y := pt.Time
		if x == "P" {
			xv = pt.Ranks
			// More ranks never synchronise sooner: a point below the one
			// before it is that one's noise (8 ranks on 2 cores, a busy
			// host), and the table extends its end segment linearly, so a
			// falling end would price thousands of ranks below zero and
			// the table would not load. Such a point takes the value before it.
			if y < floor {
				y, t.raised = floor, t.raised+1
			}
			floor = y
		}
		t.Points = append(t.Points, []any{xv, fmtTime(y)})
	}
	return t
}

// Collectives is the collectives: section: per kind the fitted formula
// over bytes and P, or, when that misses by more than 10 % rms, the
// measured points: a table over P for the barrier, a table over bytes by P
// (a row per rank count) for the others (docs/calibrate-comms.md), the best
// formula named in the source.
func (r *Result) Collectives() any {
	src := fmt.Sprintf("%s collectives and SYNCH1 %s, median of %d measurements", r.transport.Command(), r.transport.Describe(0), r.samples)
	for _, p := range []int{partition, sharingRanks} {
		if of := r.measuredAs(p); of != r.measuredAs(0) {
			src += fmt.Sprintf(" (P=%d: %s)", p, of)
		}
	}
	c := collectivesYAML{Source: src + ", " + r.date}
	for _, kind := range CollectiveKinds() {
		cf, ok := r.colls[kind]
		if !ok {
			continue
		}
		e := collEntryYAML{Kind: kind}
		e.Time, e.Source = r.collTime(kind, cf)
		if icf, ok := r.colls[string(AfterBarrier(kind))]; ok {
			var isrc string
			e.AfterBarrier, isrc = r.collTime(string(AfterBarrier(kind)), icf)
			e.Source += "; after_barrier: " + isrc
		}
		c.Entries = append(c.Entries, e)
	}
	return c
}

// collTime is the time of a collective benchmark in the table (its
// formula, or its measured points) and the source that says which.
func (r *Result) collTime(kind string, cf collFit) (any, string) {
	src := r.collSource(kind, cf)
	switch {
	case cf.fits:
		return formulaText(cf.formula), fmt.Sprintf("%s, fit rms %s (max %s)", src, percent(cf.formula.RMS()), percent(cf.formula.MaxResidual()))
	case kind == "barrier":
		tab := r.table(Synch1, 0, "P")
		out := fmt.Sprintf("%s, measured points: no formula fits within 10 %% (best rms %s)", src, percent(cf.formula.RMS()))
		if tab.raised > 0 {
			out += fmt.Sprintf("; %d point(s) below the one of fewer ranks raised to it (more ranks never synchronise sooner)", tab.raised)
		}
		return tab, out
	}
	tab := grid(cf.points)
	out := fmt.Sprintf("%s, measured points: no formula over bytes and P fits within 10 %% (best %s, rms %s, max %s)",
		src, formulaText(cf.formula), percent(cf.formula.RMS()), percent(cf.formula.MaxResidual()))
	if tab.raised > 0 {
		out += fmt.Sprintf("; %d point(s) below a shorter length or fewer ranks raised to it (more bytes or ranks never cost less)", tab.raised)
	}
	return tab, out
}

// grid is the measured table over bytes by P of a collective's points: a
// row per rank count, after a row of one rank that moves nothing (without
// it the rows of 2 and 4 ranks, extended, would go below zero at P = 1,
// which the table check refuses). A point below the one of a shorter length
// in its row, or below the row of fewer ranks at its length, is that
// one's noise and is raised to it, as the barrier's table is: rows and
// their end segments are extended linearly, and a falling end would price
// long messages or many ranks below zero.
func grid(pts []Point) *tableYAML {
	t := &tableYAML{X: "bytes", By: "P"}
	sel := slices.Clone(pts)
	slices.SortFunc(sel, func(a, b Point) int {
		if a.Ranks != b.Ranks {
			return a.Ranks - b.Ranks
		}
		return cmp.Compare(a.Bytes, b.Bytes)
	})
	if len(sel) > 0 && sel[0].Ranks > 1 {
		t.Points = append(t.Points, []any{1, "0B", "0us"})
	}
	var prev, row []Point // the row of fewer ranks, raised; the row being built
	for i, pt := range sel {
		if i > 0 && pt.Ranks != sel[i-1].Ranks {
			prev, row = row, nil
		}
		y := pt.Time
		floor := rowAt(prev, pt.Bytes)
		if len(row) > 0 {
			floor = max(floor, row[len(row)-1].Time)
		}
		if y < floor {
			y, t.raised = floor, t.raised+1
		}
		pt.Time = y
		row = append(row, pt)
		t.Points = append(t.Points, []any{pt.Ranks, fmtBytes(pt.Bytes), fmtTime(y)})
	}
	return t
}

// rowAt is a row's time at bytes, interpolated linearly and its end
// segments extended as the machine table will; 0 for no row, a row of one
// point its time.
func rowAt(row []Point, bytes float64) float64 {
	switch len(row) {
	case 0:
		return 0
	case 1:
		return row[0].Time
	}
	i, _ := slices.BinarySearchFunc(row, bytes, func(p Point, b float64) int { return cmp.Compare(p.Bytes, b) })
	i = min(max(i, 1), len(row)-1)
	a, b := row[i-1], row[i]
	return a.Time + (b.Time-a.Time)*(bytes-a.Bytes)/(b.Bytes-a.Bytes)
}

// collSource names a collective's benchmark, lengths, rank counts and date.
func (r *Result) collSource(kind string, cf collFit) string {
	bench := "COLL " + kind
	if base, ok := afterBarrierOf(Bench(kind)); ok {
		bench = "COLL " + base + " after a barrier (a barrier, then one call in a region; its clock reads taken off)"
	}
	if kind == "barrier" {
		bench = "SYNCH1 barrier"
	}
	n, _ := bytesRange(cf.points)
	return fmt.Sprintf("%s %s, %s, P=%s, %s", r.transport.Command(), bench, n, joinInts(pointRanks(cf.points)), r.date)
}

// pointRanks lists the rank counts of points, in order.
func pointRanks(pts []Point) []int {
	var out []int
	for _, p := range pts {
		if !slices.Contains(out, p.Ranks) {
			out = append(out, p.Ranks)
		}
	}
	slices.Sort(out)
	return out
}

// bytesRange says which lengths points cover: "8B..256KiB (6 lengths)".
func bytesRange(pts []Point) (string, int) {
	var ns []float64
	for _, p := range pts {
		if !slices.Contains(ns, p.Bytes) {
			ns = append(ns, p.Bytes)
		}
	}
	slices.Sort(ns)
	if len(ns) == 1 {
		return fmtBytes(ns[0]), 1
	}
	return fmt.Sprintf("%s..%s (%d lengths)", fmtBytes(ns[0]), fmtBytes(ns[len(ns)-1]), len(ns)), len(ns)
}

// joinInts writes 2,4,8.
func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}

// formulaText writes a formula as a table cost expression over bytes and
// P (docs/machines.md, "Cost expressions"); a space separates a number's
// unit from a following *, so that no name is read as part of the unit.
func formulaText(f Formula) string {
	var parts []string
	add := func(t term, coef, suffix string) {
		if f.Coef[t] != 0 {
			parts = append(parts, coef+suffix)
		}
	}
	add(tConst, fmtTime(f.Coef[tConst]), "")
	add(tLog, fmtTime(f.Coef[tLog]), " * log2(P)")
	add(tLinear, fmtTime(f.Coef[tLinear]), " * (P - 1)")
	add(tPLog, fmtTime(f.Coef[tPLog]), " * P * log2(P)")
	add(tBytes, fmtPerByte(f.Coef[tBytes]), " * bytes")
	add(tBytesLog, fmtPerByte(f.Coef[tBytesLog]), " * bytes * log2(P)")
	add(tBytesLinear, fmtPerByte(f.Coef[tBytesLinear]), " * bytes * (P - 1)")
	add(tBytesPLog, fmtPerByte(f.Coef[tBytesPLog]), " * bytes * P * log2(P)")
	beyond := " * max(0B, bytes - " + fmtBytes(f.Knee) + ")"
	add(tKnee, fmtPerByte(f.Coef[tKnee]), beyond)
	add(tKneeLog, fmtPerByte(f.Coef[tKneeLog]), beyond+" * log2(P)")
	add(tKneeLinear, fmtPerByte(f.Coef[tKneeLinear]), beyond+" * (P - 1)")
	add(tKneePLog, fmtPerByte(f.Coef[tKneePLog]), beyond+" * P * log2(P)")
	over := fmt.Sprintf(" * max(0, P - %s)", sig4(f.Cores))
	add(tOver, fmtTime(f.Coef[tOver]), over)
	add(tBytesOver, fmtPerByte(f.Coef[tBytesOver]), " * bytes"+over)
	if len(parts) == 0 {
		return "0us"
	}
	return strings.Join(parts, " + ")
}

// Results is a results: section (measured results kept for reference;
// pricing ignores them): the COMMS2 exchange law, the COMMS3 saturation
// bandwidth per rank count, the measured points of every collective kind
// whose formula misses 10 %, and the SYNCH1 barrier time per rank count.
func (r *Result) Results() any {
	var out []resultYAML
	if p := r.exchange; p != nil {
		n, _ := series(r.points, Comms2, partition)
		for _, h := range p.Laws {
			what := fmt.Sprintf("%s..%s", fmtBytes(h.From), fmtBytes(h.To))
			src := fmt.Sprintf("%s COMMS2 exchange (time of one exchange, both ranks sending), %s (%d lengths of %d), P=2, %s, fit rms %s (max %s)",
				r.transport.Command(),
				what, h.Points, len(n), r.date, percent(h.RMS()), percent(h.MaxResidual()))
			out = append(out,
				resultYAML{Name: "COMMS2 exchange t0, " + what, Value: fmtTime(h.T0), Source: src},
				resultYAML{Name: "COMMS2 exchange rinf (per direction), " + what, Value: fmtRate(h.Rinf), Source: src})
		}
	}
	for _, p := range r.rankCounts(Comms3) {
		h, ok := r.saturation[p]
		if !ok {
			continue
		}
		msgs := float64(p * (p - 1))
		src := fmt.Sprintf("%s COMMS3 (every rank sends to every other, %d messages), %s..%s (%d lengths), P=%d, %s, fit rms %s (max %s)",
			r.transport.Command(),
			p*(p-1), fmtBytes(h.From), fmtBytes(h.To), h.Points, p, r.date, percent(h.RMS()), percent(h.MaxResidual()))
		out = append(out,
			resultYAML{Name: fmt.Sprintf("COMMS3 saturation rinf (total), P=%d", p), Value: fmtRate(h.Rinf * msgs), Source: src},
			resultYAML{Name: fmt.Sprintf("COMMS3 t0 (all messages), P=%d", p), Value: fmtTime(h.T0), Source: src})
	}
	var kinds []string
	for _, kind := range collectiveKinds {
		kinds = append(kinds, kind, string(AfterBarrier(kind)))
	}
	for _, kind := range kinds {
		cf, ok := r.colls[kind]
		if !ok || cf.fits {
			continue
		}
		for _, pt := range cf.points {
			out = append(out, resultYAML{Name: fmt.Sprintf("COLL %s, %s, P=%d", kind, fmtBytes(pt.Bytes), pt.Ranks), Value: fmtTime(pt.Time),
				Source: fmt.Sprintf("%s COLL %s, %s, P=%d, %s (spread %s), %s; the formula misses by %s rms",
					r.transport.Command(), kind, fmtBytes(pt.Bytes), pt.Ranks, r.measuredAs(pt.Ranks), percent(pt.Spread), r.date, percent(cf.formula.RMS()))})
		}
	}
	for _, pt := range r.points {
		if pt.Bench == Synch1 {
			out = append(out, resultYAML{Name: fmt.Sprintf("SYNCH1 barrier, P=%d", pt.Ranks), Value: fmtTime(pt.Time),
				Source: fmt.Sprintf("%s SYNCH1, P=%d, %s (spread %s), %s", r.transport.Command(), pt.Ranks, r.measuredAs(pt.Ranks), percent(pt.Spread), r.date)})
		}
	}
	return out
}

// The YAML of the sections, in the order and spelling docs/machines.md
// gives (go.yaml.in/yaml/v4 keeps field order).

type messagesYAML struct {
	Source string      `yaml:"source"`
	Model  string      `yaml:"model"`
	Ranges []rangeYAML `yaml:"ranges,omitempty"`
	Time   *tableYAML  `yaml:"time,omitempty"`
	// Exchange is the COMMS2 law of a whole sendrecv event (both halves),
	// which the pricing reads as messages.exchange.
	Exchange *messagesYAML `yaml:"exchange,omitempty"`
	// SendRecv is the COMMS3 law on two ranks of a whole sendrecv event
	// into another buffer, both ranks at once (messages.sendrecv).
	SendRecv *messagesYAML `yaml:"sendrecv,omitempty"`
	// Sharing is the COMMS1 law when ranks outnumber the cores, which
	// the pricing reads as messages.sharing.
	Sharing *messagesYAML `yaml:"sharing,omitempty"`
	// SameCore is the COMMS1 law between two ranks bound to one core,
	// which the pricing reads as messages.same_core.
	SameCore *messagesYAML `yaml:"same_core,omitempty"`
	// Local is the LOCAL law, of payloads that stay with their senders,
	// which the pricing reads as messages.local.
	Local *messagesYAML `yaml:"local,omitempty"`
	// Wakeup is the WAKE benchmark's wake-up cost (messages.wakeup).
	Wakeup *wakeupYAML `yaml:"wakeup,omitempty"`
	// Shared is the slowdown of concurrent copies (messages.shared).
	Shared *sharedYAML `yaml:"shared,omitempty"`
	// Requests is the REQ benchmark's cost of a request (messages.requests).
	Requests *requestsYAML `yaml:"requests,omitempty"`
}

type rangeYAML struct {
	Below    string `yaml:"below,omitempty"`
	FittedTo string `yaml:"fitted_to,omitempty"`
	T0       string `yaml:"t0"`
	Rinf     string `yaml:"rinf"`
	NHalf    string `yaml:"nhalf,omitempty"`
	Source   string `yaml:"source"`
}

type tableYAML struct {
	X      string  `yaml:"x"`
	By     string  `yaml:"by,omitempty"`
	Points [][]any `yaml:"points,flow"`
	raised int     // points over P raised to the one before (table)
}

type collectivesYAML struct {
	Source  string          `yaml:"source"`
	Entries []collEntryYAML `yaml:"entries"`
}

type collEntryYAML struct {
	Kind         string `yaml:"kind"`
	Time         any    `yaml:"time"`                    // a formula (string) or a *tableYAML
	AfterBarrier any    `yaml:"after_barrier,omitempty"` // the same, of a call right after a barrier
	Source       string `yaml:"source"`
}

type resultYAML struct {
	Name   string `yaml:"name"`
	Value  string `yaml:"value"`
	Source string `yaml:"source"`
}
