package costmodel

import (
	"fmt"

	"perfc/costmodel/emulate"
	"perfc/machines"
)

// SyncNoise implements emulate.SyncNoise: the table's messages.noise (the
// expected loss of a synchronisation after each side computed c seconds,
// docs/emulate.md "Synchronisation noise"), or ok false when the table has
// none (then the emulation is exactly the noiseless one).
func (p *machinePricer) SyncNoise() (excess func(c float64) float64, ok bool) {
	n := p.m.Noise()
	if n == nil {
		return nil, false
	}
	return n.Excess, true
}

var _ emulate.SyncNoise = (*machinePricer)(nil)

// addNoiseTerms adds to the regions of the prediction (those of the
// slowest class) the waiting that synchronisation noise costs its
// representative rank in the emulation, region by region, as a term
// "waiting: noise" of resource "waiting": the region table prices every
// rank's own work, and a region whose ranks synchronise also takes the
// time the first to arrive waits for the other's jitter (docs/predict.md,
// "Synchronisation noise"). Nothing is added when the table has no
// messages.noise.
func addNoiseTerms(pred *Prediction, em *emulate.Emulation, m *machines.Machine) {
	r := pred.Slowest.Rank
	if r < 0 || r >= int64(len(em.Noise)) {
		return
	}
	by := em.Noise[r].ByRegion
	for i := range pred.Regions {
		rp := &pred.Regions[i]
		t, ok := by[rp.Name]
		if !ok || t <= 0 {
			continue
		}
		rp.Terms = append(rp.Terms, Term{Resource: "waiting", What: "noise: waiting for the partner's jitter (emulated)", Count: 1, Unit: "run",
			UnitCost: t, Time: t, How: fmt.Sprintf("rank %d's synchronisations in the region, emulated with messages.noise", r), Source: m.Noise().Source})
		rp.Time += t
	}
}
