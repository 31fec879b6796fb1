package comms

import (
	"fmt"
	"slices"
	"strings"
)

// Copies at the same time (docs/calibrate-comms.md): the message law is
// measured between two ranks, which on the goroutine runtime hand off on
// one core and copy one message at a time. When more ranks than cores
// communicate, every core copies at once, and copies that stream from a
// level the cores share (the last-level cache, memory) divide its
// bandwidth: the same messages take longer. COMMS3 measures both: at
// P = 2 one copy at a time, at the first P beyond the cores C copies at
// once. A message's time there, per core, against its time at P = 2 is
// the slowdown (messages.shared).

// sharedMin is the least slowdown that counts: below it the two COMMS3
// runs agree within their usual spread (COMMS3's fits are within ~20 %).
const sharedMin = 1.15

// sharedFit is the slowdown of concurrent copies at each COMMS3 length.
type sharedFit struct {
	ranks  int       // the P beyond the cores it was measured at
	cores  int       // C: the copies at once
	bytes  []float64 // COMMS3 lengths measured at both P
	factor []float64 // C × (time per message at ranks) / (time per message at P = 2)
	from   int       // index of the shortest length from which every factor is at least sharedMin; len(bytes): none
}

// fitShared compares COMMS3 per message at P = 2 with the first rank
// count beyond cores; false when either is missing or cores is unknown.
func fitShared(pts []Point, cores int) (sharedFit, bool) {
	if cores < 1 {
		return sharedFit{}, false
	}
	var ranks []int
	for _, p := range pts {
		if p.Bench == Comms3 && p.Ranks > cores && !slices.Contains(ranks, p.Ranks) {
			ranks = append(ranks, p.Ranks)
		}
	}
	if len(ranks) == 0 {
		return sharedFit{}, false
	}
	sf := sharedFit{ranks: slices.Min(ranks), cores: cores}
	n2, t2 := series(pts, Comms3, partition)
	nP, tP := series(pts, Comms3, sf.ranks)
	perMsg := func(t float64, p int) float64 { return t / float64(p*(p-1)) }
	for i, n := range n2 {
		j := slices.Index(nP, n)
		if j < 0 || !(t2[i] > 0) {
			continue
		}
		sf.bytes = append(sf.bytes, n)
		sf.factor = append(sf.factor, float64(cores)*perMsg(tP[j], sf.ranks)/perMsg(t2[i], partition))
	}
	if len(sf.bytes) == 0 {
		return sharedFit{}, false
	}
	sf.from = len(sf.bytes)
	for i := len(sf.bytes) - 1; i >= 0 && sf.factor[i] >= sharedMin; i-- {
		sf.from = i
	}
	return sf, true
}

// slowdown is the median factor of the lengths from sf.from on, and
// whether there are any.
func (sf sharedFit) slowdown() (float64, bool) {
	if sf.from >= len(sf.bytes) {
		return 0, false
	}
	return median(slices.Clone(sf.factor[sf.from:])), true
}

// sharedYAML is messages.shared (docs/machines.md).
type sharedYAML struct {
	Factor string `yaml:"factor"`
	Above  string `yaml:"above"`
	Source string `yaml:"source"`
}

// sharedSection writes the slowdown with every length's factor in its
// source; nil when no length from which on every one is slowed was
// measured (then messages cost their law at any P).
func (r *Result) sharedSection() *sharedYAML {
	if r.shared == nil {
		return nil
	}
	sf := *r.shared
	f, ok := sf.slowdown()
	if !ok {
		return nil
	}
	var parts []string
	for i, n := range sf.bytes {
		parts = append(parts, fmt.Sprintf("%s: %.3g", fmtBytes(n), sf.factor[i]))
	}
	return &sharedYAML{
		Factor: fmt.Sprintf("%.4g", f),
		Above:  fmtBytes(sf.bytes[sf.from]),
		Source: fmt.Sprintf("%s COMMS3, P=%d on %d cores (%d copies at once) against P=2 (one at a time): per message, %d × time at P=%d / time at P=2 (%s; median of %d measurements each), the median from %s on, where every length is %.2g or more slower, %s",
			r.transport.Command(), sf.ranks, sf.cores, sf.cores, sf.cores, sf.ranks, strings.Join(parts, ", "), r.samples, fmtBytes(sf.bytes[sf.from]), sharedMin, r.date),
	}
}
