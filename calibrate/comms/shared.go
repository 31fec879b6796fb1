package comms

import (
	"fmt"
	"slices"

	"perfc/calibrate/fit"
)

// Copies at the same time (docs/calibrate-comms.md): the message law is
// measured between two ranks, which on the goroutine runtime hand off on
// one core and copy one message at a time. When more ranks than cores
// communicate, every core copies at once, and copies that stream from a
// level the cores share (the last-level cache, memory) divide its
// bandwidth: the same bytes take longer. COMMS3 measures both: at P = 2
// one copy at a time, at the first P beyond the cores C copies at once.
// The per-byte time of a message there, per core, against P = 2 is the
// slowdown of a message's bandwidth term (messages.shared). The start-up
// term is left out: at P > C it includes the ranks' turns on the cores,
// which the pricing charges apart (core_switch, the emulated run queue).

// sharedMin is the least slowdown that counts: below it the two COMMS3
// laws agree within their usual spread (COMMS3's fits are within ~20 %).
const sharedMin = 1.15

// sharedFit is the slowdown of concurrent copies from COMMS3's laws.
type sharedFit struct {
	ranks  int     // the P beyond the cores it was measured at
	cores  int     // C: the copies at once
	perB2  float64 // s/B of one message at P = 2 (the law's slope / 2 messages)
	perBP  float64 // s/B of one message at ranks (slope / P(P−1) messages)
	factor float64 // C × perBP / perB2, or the cap below when that is lower
	// slopes is the factor the laws' slopes gave, when the cap lowered
	// it (else 0); capAt, cap2 and capP are the cap's length and the two
	// rounds' times there.
	slopes, capAt, cap2, capP float64
}

// capShared caps the factor at the whole message's slowdown at the
// longest length COMMS3 measured at both P = 2 and sf.ranks: C × (the
// round's time at P over its P(P−1) messages) / (the round's time at 2
// over its 2). The factor comes from the slopes of two lines through
// seven lengths from 8 B, whose fits are within 15–30 % at best, and a
// slow point below the longest tilts a line: the calibration of
// 2026-11-27 23:07 wrote 2.771 from slopes where its rounds at 1 MiB,
// 333 µs at P = 4 against 80 µs at P = 2 (as at 22:44, which wrote
// 1.529), give 1.38, and the 4-rank cases of its validation came to
// 19.5 % median |error| (12.4 % replayed with a factor from those
// rounds). A message's bytes slow down no more than the whole message
// when its start-up slows down at least as much, as it does where the
// ranks take turns on the cores, so the point bounds the slope's factor;
// it never raises it.
func capShared(sf sharedFit, pts []Point) sharedFit {
	n2, t2 := series(pts, Comms3, partition)
	nP, tP := series(pts, Comms3, sf.ranks)
	at2 := map[float64]float64{}
	for i, n := range n2 {
		at2[n] = t2[i]
	}
	for i := len(nP) - 1; i >= 0; i-- {
		r2, ok := at2[nP[i]]
		if !ok || !(r2 > 0) || !(tP[i] > 0) {
			continue
		}
		c := float64(sf.cores) * (tP[i] / float64(sf.ranks*(sf.ranks-1))) / (r2 / (partition * (partition - 1)))
		if c < sf.factor {
			sf.slopes, sf.factor = sf.factor, c
			sf.capAt, sf.cap2, sf.capP = nP[i], r2, tP[i]
		}
		return sf
	}
	return sf
}

// fitShared compares COMMS3's per-byte time of a message at P = 2 with
// the first rank count beyond cores; false when either law is missing or
// cores is unknown.
func fitShared(sat map[int]fit.Hockney, cores int) (sharedFit, bool) {
	h2, ok := sat[partition]
	if cores < 1 || !ok {
		return sharedFit{}, false
	}
	var ranks []int
	for p := range sat {
		if p > cores {
			ranks = append(ranks, p)
		}
	}
	if len(ranks) == 0 {
		return sharedFit{}, false
	}
	p := slices.Min(ranks)
	hp := sat[p]
	if !(h2.Rinf > 0) || !(hp.Rinf > 0) {
		return sharedFit{}, false
	}
	sf := sharedFit{ranks: p, cores: cores,
		perB2: 1 / (h2.Rinf * partition * (partition - 1)),
		perBP: 1 / (hp.Rinf * float64(p*(p-1)))}
	sf.factor = float64(cores) * sf.perBP / sf.perB2
	return sf, true
}

// sharedYAML is messages.shared (docs/machines.md).
type sharedYAML struct {
	Factor string `yaml:"factor"`
	Source string `yaml:"source"`
}

// sharedSection writes the slowdown with the two per-byte times in its
// source; nil when the host's cores are unknown, COMMS3 did not run
// beyond them, or copies at once are not slower by sharedMin (then
// messages cost their law at any P).
func (r *Result) sharedSection() *sharedYAML {
	sf, ok := fitShared(r.saturation, r.cores)
	if !ok {
		return nil
	}
	if sf = capShared(sf, r.points); sf.factor < sharedMin {
		return nil
	}
	src := fmt.Sprintf("%s COMMS3 laws, P=%d on %d cores (%d copies at once) against P=2 (one at a time): a message's time per byte %s/B at P=%d, %s/B at P=2; %d × their ratio (P=%d: %s per length; P=2: median of %d), %s",
		r.transport.Command(), sf.ranks, sf.cores, sf.cores, fmtTime(sf.perBP), sf.ranks, fmtTime(sf.perB2), sf.cores, sf.ranks, r.measuredAs(sf.ranks), r.samples, r.date)
	if sf.slopes > 0 {
		src += fmt.Sprintf("; capped at the whole message's slowdown at %s, the longest length of both (a round %s at P=%d, %s at P=2), where the slopes gave %.4g", fmtBytes(sf.capAt), fmtTime(sf.capP), sf.ranks, fmtTime(sf.cap2), sf.slopes)
	}
	if t := r.twinShared; t != nil && sf.ranks == sharingRanks {
		src += fmt.Sprintf("; the %d-rank kernel ran twice, in two processes, and their COMMS3 rounds at %s (every rank sending to every other) took %s and %s in the median",
			sharingRanks, fmtBytes(float64(t.bytes)), fmtTime(t.kept), fmtTime(t.dropped))
	}
	return &sharedYAML{Factor: fmt.Sprintf("%.4g", sf.factor), Source: src}
}
