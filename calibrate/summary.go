package calibrate

import (
	"fmt"
	"io"
	"strings"

	"perfc/calibrate/host"
)

// Summary writes what a person checks after a calibration: each fit's
// quality, the levels' rates and whether the curve showed each sysfs
// level, so that a disagreement is seen without reading the table.
func (r *Result) Summary(w io.Writer) {
	if r.Core != nil && r.Memory != nil {
		r.hostSummary(w)
	}
	if r.CoreAgain != nil {
		fmt.Fprintf(w, "in core: %s\n", r.CoreAgain)
	}
	if r.Comms != nil {
		r.Comms.Summary(w)
	}
	if st := r.Settle; unsettledMany(st) {
		fmt.Fprintf(w, "warning: %d of %d benchmark programs ran while the host was slower than its fastest probes by more than %.0f%% (a core's chain), %.0f%% (its loads and stores) or %.0f%% (a copy between cores), after waiting for it; their figures describe the host's slow spell, not the host: run perfc calibrate again on a quieter host (docs/calibrate.md, \"Waiting for the host\")\n",
			st.Unsettled, st.Programs, 100*settleBand, 100*settleStreamBand, 100*settleCopyBand)
	}
}

// hostSummary is Summary's part of the in-core and memory benchmarks.
func (r *Result) hostSummary(w io.Writer) {
	cf, mf := r.Core, r.Memory
	it, _ := cf.throughput.Coefficient(featIteration)
	en, _ := cf.throughput.Coefficient(featEntry)
	fmt.Fprintf(w, "in core: loop %s per iteration, %s per entry; throughput fit of %d regions rms %s, latency fit of %d regions rms %s; TICK2 %s\n",
		ns(it), ns(en), len(cf.tp), pct(cf.throughput.RelRMS), len(cf.lat), pct(cf.latency.RelRMS), ns(cf.tick2))
	if c := r.Clock; c != nil {
		fmt.Fprintf(w, "clock: %s per region entry, %s per run outside the regions (what the programs' timing adds)\n", ns(c.region), ns(c.run))
		if st := r.Start; st != nil {
			fmt.Fprintf(w, "start of a run of %d ranks on %d cores: %s beyond the clock and its barrier (a run of one barrier %s, a barrier %s)\n",
				st.ranks, st.cores, ns(st.excess), ns(st.one), ns(st.barrier))
		}
	}
	for _, l := range mf.levels {
		fmt.Fprintf(w, "memory: %s delivers %s (%s stream, rms %s)\n", l.level, gbs(l.bw), l.kind, pct(l.rms))
	}
	for _, k := range mf.knees {
		verdict := "confirmed by the curve"
		if !k.confirmed {
			verdict = "not seen in the curve (the scalar streams are core-bound on both sides)"
		}
		fmt.Fprintf(w, "memory: sysfs level %s %s %s (time per element ×%s across it)\n", k.level, host.Bytes(k.size), verdict, sig4(k.ratio))
	}
	for _, e := range r.Effective {
		look := ""
		if e.firstLook > 0 {
			look = fmt.Sprintf(" at the second look (the sweep's first: %s)", host.Bytes(e.firstLook))
		}
		fmt.Fprintf(w, "memory: %s holds %s here, not sysfs's %s (the load stream is ×%s slower from %s on%s); the table gives %s\n",
			e.level, host.Bytes(e.size), host.Bytes(e.sysfs), sig4(e.ratio), host.Bytes(e.next), look, host.Bytes(e.size))
	}
	if r.Looked != nil {
		var sizes []string
		for _, l := range r.Looked[1:] {
			sizes = append(sizes, l.Name+" "+host.Bytes(int64(l.Size)))
		}
		fmt.Fprintf(w, "memory: a second look at the capacities, after the other benchmarks, saw %s (each level keeps the smaller of the two looks)\n", strings.Join(sizes, ", "))
	}
	for _, s := range mf.extraKnees {
		fmt.Fprintf(w, "memory: the curve jumps at %s where sysfs lists no cache\n", host.Bytes(s))
	}
	if wa := mf.writeAllocate; wa != nil {
		fmt.Fprintf(w, "memory: a store-only stream reads %s of its lines first (write_allocate: %t)\n", pct(*wa), *wa >= 0.5)
	}
}

// unsettledMany reports whether so many of a calibration's programs ran
// unsettled that its table is not the host's: more than one in ten (the
// 22:16 calibration of 2026-11-26 ran 11 of its programs unsettled, and
// its memory curve put the L3 knee at 2.27 against 1.35 and write-allocate
// at 0.26 against 0.03).
func unsettledMany(st settleRecord) bool {
	return st.Programs > 0 && 10*st.Unsettled > st.Programs
}
