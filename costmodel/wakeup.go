package costmodel

import "perfc/costmodel/emulate"

// Wakeup implements emulate.Waker: the table's messages.wakeup (the cost of
// waking a rank whose thread slept while it waited, docs/predict.md
// "Waking a rank"), or ok false when the table has none.
func (p *machinePricer) Wakeup() (cost, after float64, ok bool) {
	w := p.m.Wakeup()
	if w == nil {
		return 0, 0, false
	}
	return w.Time.Value, w.After.Value, true
}

var _ emulate.Waker = (*machinePricer)(nil)
