package validate

import (
	"context"
	"math"
	"time"

	"perfc/internal/ctxtime"
)

// Settling: the host's slow spells are spells, not noise. A copy of a
// cache line between this VM's two cores takes about 55 ns there and
// back for seconds at a time, then about 340 ns for seconds to tens of
// seconds (the hypervisor moves the vCPUs), and the core itself slows by
// 1.5–2× while a neighbour runs (docs/accuracy.md, "The host's slow
// spells"). A case measured in such a spell measures the spell. So, before every case, validate
// waits until both witnesses are within their settle bands of the
// table's predictions (for at most Options.Settle), measures the case,
// times the witnesses again, and, when the host left the bands during
// the measurement, measures the case once more after settling again. The
// case keeps what happened (Case.Settle); nothing is scaled, and a case
// whose host never settled is measured and reported all the same.

// Settle bands: how far a witness's measured/predicted ratio may be from
// 1 for validate to measure. The copy's band is wider: its runs in a
// normal spell spread over 0.8–1.05 of the table's pingpong (the table
// fits it on other lengths too), while a slow spell is ×3–4.
const (
	SettleCoreBand = 0.15
	SettleCopyBand = 0.30
)

// settleStep is how long validate waits between two timings of the
// witnesses while the host is out of its bands: the slow spells last
// seconds.
const settleStep = time.Second

// defaultSettle is Options.Settle's default, defaultSettleTotal
// Options.SettleTotal's.
const (
	defaultSettle      = 10 * time.Second
	defaultSettleTotal = 5 * time.Minute
)

// SettleRecord is what settling did for one case.
type SettleRecord struct {
	// Waited is how long validate waited before the measurement it kept,
	// in seconds (both waits when the case was measured again).
	Waited float64 `json:"waited_s"`
	// Settled reports whether the witnesses were within their bands just
	// before the measurement kept; After whether they were just after it.
	Settled bool `json:"settled"`
	After   bool `json:"after"`
	// WitnessAfter is the witnesses' times just after the measurement
	// kept.
	WitnessAfter *WitnessTimes `json:"witness_after,omitempty"`
	// Remeasured reports that the first measurement was dropped because
	// the witnesses left their bands during it.
	Remeasured bool `json:"remeasured,omitempty"`
	// Spent reports that what was left of the suite's total wait
	// (Options.SettleTotal) was less than Options.Settle before this
	// case: it waited less than a case may, or not at all.
	Spent bool `json:"spent,omitempty"`
}

// inSettleBands reports whether the host runs at the table's speed by
// both witnesses; false for missing times.
func inSettleBands(w *WitnessTimes) bool {
	if !w.complete() {
		return false
	}
	rc, rp := w.Ratios()
	return math.Abs(rc-1) <= SettleCoreBand && math.Abs(rp-1) <= SettleCopyBand
}

// suiteWait is what is left of a suite's wait for the host
// (Options.SettleTotal): a host that never settles would otherwise make
// every case wait its whole Options.Settle.
type suiteWait struct {
	left time.Duration
}

// budget is how long the next case may wait: perCase, or what is left
// when that is less. A case may wait once more if the host slows during
// its measurement (measureSettled), so the suite may pass its total by
// one case's wait.
func (w *suiteWait) budget(perCase time.Duration) time.Duration {
	return max(min(perCase, w.left), 0)
}

// spend takes what a case waited from what is left, and marks the case
// Spent when the total cut its budget below perCase. (A budget of a
// second or two is as good as none: the witnesses' own timing and a step
// must fit in it.)
func (w *suiteWait) spend(rec *SettleRecord, budget, perCase time.Duration) {
	if rec == nil {
		return
	}
	w.left -= time.Duration(rec.Waited * float64(time.Second))
	rec.Spent = budget < perCase
}

// settler times the witnesses and waits; its functions are replaced in
// tests.
type settler struct {
	measure func(context.Context) (*WitnessTimes, error)
	sleep   func(context.Context, time.Duration) error
	now     func() time.Time
	budget  time.Duration
}

// settle times the witnesses until they are within their bands or the
// budget is spent, waiting settleStep between timings. It returns the
// last timing (nil when every timing failed), whether it was within the
// bands, and how long it waited. Only a cancelled ctx is an error.
func (s settler) settle(ctx context.Context) (*WitnessTimes, bool, time.Duration, error) {
	start := s.now()
	var waited time.Duration
	for {
		w, _ := s.measure(ctx) // a failed timing is one out of the bands
		if err := ctx.Err(); err != nil {
			return nil, false, waited, err
		}
		if inSettleBands(w) {
			return w, true, waited, nil
		}
		if s.now().Sub(start)+settleStep > s.budget {
			return w, false, waited, nil
		}
		if err := s.sleep(ctx, settleStep); err != nil {
			return nil, false, waited, err
		}
		waited += settleStep
	}
}

// measureSettled calls measureOnce between two settlings: the witnesses
// within their bands before (waiting up to the budget), the measurement,
// the witnesses after; when they left the bands during it, once more
// (measureOnce's first call builds and probes; the second runs again the
// same way). It returns what happened (nil when ctx was cancelled first)
// and the witnesses' times before the measurement kept.
func (s settler) measureSettled(ctx context.Context, measureOnce func(first bool) error) (*SettleRecord, *WitnessTimes, error) {
	var rec SettleRecord
	var before *WitnessTimes
	for attempt := 0; ; attempt++ {
		w, ok, waited, err := s.settle(ctx)
		if err != nil {
			return nil, before, err
		}
		rec.Waited += waited.Seconds()
		before, rec.Settled = w, ok
		if err := measureOnce(attempt == 0); err != nil {
			return &rec, before, err
		}
		after, _ := s.measure(ctx)
		if err := ctx.Err(); err != nil {
			return nil, before, err
		}
		rec.WitnessAfter, rec.After = after, inSettleBands(after)
		// Measure again only when the host was in its bands before and
		// left them during the measurement: a host that never settled
		// would only be measured twice in the same spell.
		if rec.After || !rec.Settled || attempt == 1 {
			return &rec, before, nil
		}
		rec.Remeasured = true
	}
}

// HostSettler measures something else than a validation case between
// two settlings, as validate measures a case: perfc check --settle.
type HostSettler struct {
	s settler
}

// NewHostSettler builds the witness kernels and predicts them on opts'
// table (Machine, CacheDir and Model are used); budget is how long it may
// wait for the host before a measurement (as Options.Settle).
func NewHostSettler(ctx context.Context, opts Options, budget time.Duration) (*HostSettler, error) {
	opts = opts.withDefaults()
	ws, err := prepareWitnesses(ctx, opts)
	if err != nil {
		return nil, err
	}
	measure := func(ctx context.Context) (*WitnessTimes, error) { return measureWitnesses(ctx, ws) }
	return &HostSettler{s: settler{measure: measure, sleep: ctxtime.Sleep, now: time.Now, budget: budget}}, nil
}

// Measure calls measure between two settlings, and once more (with first
// false) when the host slowed during the first call. It returns what
// settling did and the witnesses' times before the measurement kept.
func (h *HostSettler) Measure(ctx context.Context, measure func(first bool) error) (*SettleRecord, *WitnessTimes, error) {
	return h.s.measureSettled(ctx, measure)
}
