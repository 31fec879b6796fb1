package emulate

import (
	"perfc/analyze"
	"perfc/lang"
)

// collectiveState gathers the ranks arriving at the current collective.
// Every rank calls every collective in the same order, so there is only
// ever one collective in progress.
type collectiveState struct {
	arrived int64
	stmt    *lang.CommStmt
	first   int64   // the first rank to arrive
	latest  float64 // the latest arrival so far
	last    int64   // the rank that arrived latest (the first of equals)
	bytes   int64   // the largest payload of any rank
}

// reset clears the state for the next collective.
func (c *collectiveState) reset() { *c = collectiveState{first: -1, last: -1} }

// arrive brings rank r to a collective; the last arrival starts it.
func (em *emulator) arrive(r int64, rs *rankState, ev *analyze.Event) error {
	c := &em.coll
	if c.arrived == 0 {
		c.stmt, c.first, c.latest, c.last, c.bytes = ev.Stmt, r, rs.posted, r, ev.Bytes
	} else if ev.Stmt != c.stmt {
		return em.collectiveMismatch(r, rs)
	}
	if rs.posted > c.latest {
		c.latest, c.last = rs.posted, r
	}
	c.bytes = max(c.bytes, ev.Bytes)
	rs.send.bytes = ev.Bytes
	rs.send.peer = ev.Peer
	c.arrived++
	if c.arrived < int64(len(em.ranks)) {
		return nil
	}
	em.startCollective()
	return nil
}

// startCollective runs the collective every rank has reached: it starts at
// the latest arrival and costs what the pricer says for all ranks (its
// price after a barrier when it has one and the call runs right after a
// barrier: AfterBarrierPricer).
func (em *emulator) startCollective() {
	c := &em.coll
	s := c.stmt
	n := int64(len(em.ranks))
	kind := s.Kind.String()
	op := ""
	if s.Op != lang.NoReduce {
		op = s.Op.String()
	}
	var cost float64
	if em.afterBarrier != nil && em.barriers[s] {
		cost = em.checked.collectiveAfterBarrier(em.afterBarrier, kind, op, payloadElem(em.k, s.Payload), c.bytes, n)
	} else {
		cost = em.p.Collective(kind, op, payloadElem(em.k, s.Payload), c.bytes, n)
	}
	if em.wake.on {
		cost += em.wake.extra(c.latest - em.earliestArrival()) // the first to arrive slept
	}
	if em.noise != nil {
		cost += em.collectiveNoise(c.latest) // waiting, not communicating (synced)
	}
	start, end := c.latest, c.latest+cost
	em.res.Collectives++
	lastHead := em.path.takeHead(&em.ranks[c.last], c.last)
	for q := range em.ranks {
		rs := &em.ranks[q]
		rs.wait += start - rs.posted
		rs.comm += cost
		rs.clock = end
		prev, via := &lastHead, viaCollective
		if int64(q) == c.last {
			prev, via = &emptyPath, viaProgram
		}
		em.path.follow(rs, int64(q), start, end, rs.kind, s, prev, via)
		rs.blocked = false
		em.synced(int64(q), em.regions[s])
		if em.observe {
			em.iv = Interval{Rank: int64(q), Kind: rs.kind, Posted: rs.posted, Start: start, End: end,
				Peer: rs.send.peer, From: -1, Bytes: rs.send.bytes, Stmt: s, Region: em.regions[s]}
			em.emit()
		}
		em.wakeOther(int64(q))
	}
	em.coll.reset()
}

// earliestArrival is the time the first rank reached the collective in
// progress: the longest wait, the one a wake-up cost depends on.
func (em *emulator) earliestArrival() float64 {
	first := em.coll.latest
	for q := range em.ranks {
		first = min(first, em.ranks[q].posted)
	}
	return first
}

// payloadElem names the element type of a payload for the collective
// tables ("" for an abstract size in bytes or no payload).
func payloadElem(k *lang.Checked, pl *lang.Payload) string {
	if pl == nil || pl.Bytes != nil || pl.Name == nil {
		return ""
	}
	if obj := k.Info.Uses[pl.Name]; obj != nil && obj.Elem != lang.NoElem {
		return obj.Elem.String()
	}
	return ""
}
