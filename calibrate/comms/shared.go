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
	factor float64 // C × perBP / perB2
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
	if !ok || sf.factor < sharedMin {
		return nil
	}
	src := fmt.Sprintf("%s COMMS3 laws, P=%d on %d cores (%d copies at once) against P=2 (one at a time): a message's time per byte %s/B at P=%d, %s/B at P=2; %d × their ratio (P=%d: %s per length; P=2: median of %d), %s",
		r.transport.Command(), sf.ranks, sf.cores, sf.cores, fmtTime(sf.perBP), sf.ranks, fmtTime(sf.perB2), sf.cores, sf.ranks, r.measuredAs(sf.ranks), r.samples, r.date)
	if t := r.twinShared; t != nil && sf.ranks == sharingRanks {
		src += fmt.Sprintf("; the %d-rank kernel ran twice, in two processes, and their COMMS3 rounds at %s (every rank sending to every other) took %s and %s in the median",
			sharingRanks, fmtBytes(float64(t.bytes)), fmtTime(t.kept), fmtTime(t.dropped))
	}
	return &sharedYAML{Factor: fmt.Sprintf("%.4g", sf.factor), Source: src}
}
