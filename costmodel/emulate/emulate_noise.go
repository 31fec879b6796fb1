package emulate

import "math"

// Synchronisation noise (docs/emulate.md, "Synchronisation noise").
//
// The emulator prices a compute segment at its mean, so ranks that compute
// the same work arrive at an exchange at the same time and nobody waits. On
// a real host each segment has its own jitter, and the rank that arrives
// first waits for the other: on average a synchronisation ends later than
// the latest mean arrival. A pricer that implements SyncNoise gives the
// measured law of that loss; the emulator then charges, at every point
// where a rank waits for another (a blocking message, a wait on requests, a
// collective), the expected delay that noise adds to the start of the
// operation, given the compute each side did since its last
// synchronisation and how far apart the mean arrivals are.
//
// The model: a rank that computed c seconds since its last
// synchronisation arrives at A = t − m + X, where t is its emulated (mean)
// arrival and X is exponential with mean m = m(c), independent between
// ranks. The measured law is E[max(A1, A2)] − t for two ranks that
// computed the same c and arrive together on average, which is m/2 for
// two exponentials of mean m: so m(c) = 2·excess(c). For a side p that
// makes a message available at tp with scale a and a side w that reaches
// its blocking point at tw with scale b, the operation starts on average
// at E[max(Ap, Aw)] = tw + E[(Y − K)⁺], Y = Xp − Xw, K = tw − tp + a − b:
//
//	E[(Y − K)⁺] = a²/(a+b)·e^(−K/a)                for K ≥ 0,
//	            = a − b − K + b²/(a+b)·e^(K/b)      for K < 0,
//
// and the delay beyond the emulated start max(tp, tw) is that less
// (tp − tw)⁺: (m/2) for equal scales and arrivals, falling as
// (m/2)·e^(−D/m) when one side is D ahead — which is how the compute
// between a post and its wait absorbs the partner's jitter.

// SyncNoise is implemented by a Pricer whose ranks' compute jitters (a
// machine table with messages.noise): Excess(c) is the expected time two
// ranks that each computed c seconds since their last synchronisation lose
// at the next one beyond their mean arrival (0 for c = 0); ok is false
// when the machine has no such law (then the emulation is noiseless).
type SyncNoise interface {
	SyncNoise() (excess func(c float64) float64, ok bool)
}

// RankNoise is the waiting synchronisation noise cost one rank
// (Emulation.Noise): the expected time its synchronisations started
// later than the latest mean arrival, because each compute segment
// jitters; part of RankTime.Wait.
type RankNoise struct {
	Wait float64 `json:"wait_s"`
	// ByRegion splits Wait by the region of the statement that waited
	// ("" outside regions); nil when Wait is 0.
	ByRegion map[string]float64 `json:"by_region_s,omitempty"`
}

// rankNoise is one rank's noise state, kept beside the ranks' states
// (emulator.noise) so that an emulation without noise carries none of it.
type rankNoise struct {
	since float64 // compute since the rank's last synchronisation, s
	pend  float64 // the noise delay of the rank's current event (the largest of its halves)
	total float64 // noise delays so far (RankNoise.Wait)
	// byRegion splits total by the region of the statement that waited
	// (RankNoise.ByRegion); nil until the first delay.
	byRegion map[string]float64
}

// noiseState is the emulator's noise law and every rank's state.
type noiseState struct {
	excess func(c float64) float64
	ranks  []rankNoise
}

// initNoise turns noise on when the pricer has a law.
func (em *emulator) initNoise(p Pricer, n int64) {
	sn, ok := p.(SyncNoise)
	if !ok {
		return
	}
	excess, ok := sn.SyncNoise()
	if !ok || excess == nil {
		return
	}
	em.noise = &noiseState{excess: excess, ranks: make([]rankNoise, n)}
}

// scale is the mean m of the exponential lateness of a rank that computed
// c seconds since its last synchronisation: twice the measured excess.
func (ns *noiseState) scale(c float64) float64 {
	m := 2 * ns.excess(c)
	if !(m > 0) || math.IsInf(m, 0) {
		return 0
	}
	return m
}

// noiseDelay is the expected delay noise adds to an operation that starts
// when side p (mean arrival tp, lateness scale a) and side w (tw, b) have
// both arrived, beyond max(tp, tw); see the model above.
func noiseDelay(tp, tw, a, b float64) float64 {
	if !(a+b > 0) {
		return 0
	}
	k := tw - tp + a - b
	var e float64
	if k >= 0 {
		if a > 0 {
			e = a * a / (a + b) * math.Exp(-k/a)
		}
	} else {
		e = a - b - k
		if b > 0 {
			e += b * b / (a + b) * math.Exp(k/b)
		}
	}
	return max(e-max(tp-tw, 0), 0)
}

// pairNoise is the noise delay of a blocking message between s, which
// arrived at ts, and d, at td; it is recorded as both ranks' current
// event's noise.
func (em *emulator) pairNoise(s, d int64, ts, td float64) float64 {
	ns := em.noise
	n := noiseDelay(ts, td, ns.scale(ns.ranks[s].since), ns.scale(ns.ranks[d].since))
	ns.ranks[s].pend = max(ns.ranks[s].pend, n)
	ns.ranks[d].pend = max(ns.ranks[d].pend, n)
	return n
}

// synced records that rank r's event, at a statement of region,
// synchronised it with others: its compute since then starts again, and
// the event's noise delay is added to its total. The delay of a message
// or a collective was charged within the operation (so that the critical
// path runs through it); it is waiting, and moves there.
func (em *emulator) synced(r int64, region string) {
	if em.noise == nil {
		return
	}
	rn := &em.noise.ranks[r]
	if rn.pend > 0 {
		if rs := &em.ranks[r]; rs.kind != ActWait {
			rs.comm -= rn.pend
			rs.wait += rn.pend
		}
		rn.total += rn.pend
		if rn.byRegion == nil {
			rn.byRegion = map[string]float64{}
		}
		rn.byRegion[region] += rn.pend
	}
	rn.since, rn.pend = 0, 0
}

// collectiveNoise is the noise delay of the collective every rank has
// reached: E[max_i A_i] − max_i t_i over the ranks' arrivals, integrated
// numerically (the distribution of the maximum is the product of the
// ranks' exponentials).
func (em *emulator) collectiveNoise(latest float64) float64 {
	ns := em.noise
	lo, mMax := math.Inf(-1), 0.0
	for q := range em.ranks {
		m := ns.scale(ns.ranks[q].since)
		lo = max(lo, em.ranks[q].posted-m)
		mMax = max(mMax, m)
	}
	if mMax == 0 {
		return 0
	}
	// E[max] = lo + ∫_lo^∞ (1 − F(x)) dx, F(x) = Π_i P(A_i ≤ x); past
	// latest + 40·mMax every factor is 1 within 1e−17.
	const steps = 400
	h := (latest + 40*mMax - lo) / steps
	integrand := func(x float64) float64 {
		f := 1.0
		for q := range em.ranks {
			t, m := em.ranks[q].posted, ns.scale(ns.ranks[q].since)
			switch {
			case m == 0 && x < t:
				return 1
			case m > 0:
				f *= -math.Expm1(-(x - t + m) / m)
			}
		}
		return 1 - f
	}
	sum := (integrand(lo) + integrand(lo+steps*h)) / 2
	for i := 1; i < steps; i++ {
		sum += integrand(lo + float64(i)*h)
	}
	n := max(lo+sum*h-latest, 0)
	for q := range em.ranks {
		ns.ranks[q].pend = max(ns.ranks[q].pend, n)
	}
	return n
}

// matchNoise gives the requests of a message matched between s and d
// (sReq, dReq; −1 for a blocking side) the partner's compute since its
// last synchronisation, at its post or at its blocking event.
func (em *emulator) matchNoise(s, d int64, sReq, dReq int32) {
	sSince, dSince := em.noise.ranks[s].since, em.noise.ranks[d].since
	if sReq >= 0 {
		sSince = em.rq(s).reqs[sReq].since
	}
	if dReq >= 0 {
		q := &em.rq(d).reqs[dReq]
		dSince, q.peerOf = q.since, sSince
	}
	if sReq >= 0 {
		em.rq(s).reqs[sReq].peerOf = dSince
	}
}

// waitNoise is the noise delay of rank r's wait on the requests done: the
// largest over them of the delay between the partner making the message
// available (its arrival, as emulated) and the rank reaching the wait,
// with the partner's compute at its post and the rank's own now. Compute
// between the post and the wait puts the wait later than the partner's
// post, which absorbs the partner's jitter: the delay falls as
// (m/2)·e^(−D/m).
func (em *emulator) waitNoise(r int64, rs *rankState, done []*request) float64 {
	ns := em.noise
	own := ns.scale(ns.ranks[r].since)
	n := 0.0
	for _, q := range done {
		n = max(n, noiseDelay(q.done, rs.posted, ns.scale(q.peerOf), own))
	}
	ns.ranks[r].pend = max(ns.ranks[r].pend, n)
	return n
}
