package costmodel

import (
	"perfc/lang"
)

// eagerMsg is a message sent eagerly (at most the eager limit) that has not
// been received yet: it waits in the receiver's inbox.
type eagerMsg struct {
	src     int64
	bytes   int64
	wave    int64
	sent    float64 // when the transfer began
	arrival float64 // when it is fully at the receiver
	stmt    *lang.CommStmt
	prev    pathRef // the sender's critical path at the send
	via     pathVia
}

// peerSeq counts the messages a rank has sent to each destination, so that
// every message knows its wave: its sequence number on its pair. A rank
// has few partners in most kernels, so a short inline list scanned
// linearly beats a map; the map takes over when a rank talks to many.
type peerSeq struct {
	n      int
	peers  [4]int64
	counts [4]int64
	many   map[int64]int64
}

// next returns the sequence number of the next message to dst, from 1.
func (ps *peerSeq) next(dst int64) int64 {
	for i := range ps.n {
		if ps.peers[i] == dst {
			ps.counts[i]++
			return ps.counts[i]
		}
	}
	if ps.n < len(ps.peers) {
		ps.peers[ps.n], ps.counts[ps.n] = dst, 1
		ps.n++
		return 1
	}
	if ps.many == nil {
		ps.many = map[int64]int64{}
	}
	ps.many[dst]++
	return ps.many[dst]
}

// routeCache remembers the route and price of a rank's last messages to a
// few destinations: a pricer may take its time (it may explain itself),
// and a rank sends to the same few peers over and over.
type routeCache [4]struct {
	peer, bytes int64
	cost        float64
	boundary    int32
	valid       bool
}

// route prices a message of n bytes from rank s to rank d and finds the
// boundary it crosses, through s's cache.
func (em *emulator) route(s int64, ss *rankState, d, n int64) (int32, float64) {
	e := &ss.routes[d&3]
	if !e.valid || e.peer != d || e.bytes != n {
		e.boundary, e.cost = em.net.route(s, d, n)
		e.peer, e.bytes, e.valid = d, n, true
	}
	return e.boundary, e.cost
}

// eagerSize reports whether a message of n bytes is sent eagerly.
func (em *emulator) eagerSize(n int64) bool { return em.eager >= 0 && n <= em.eager }

// postSend posts rank s's send half: it meets a receiver already waiting,
// goes eagerly to the receiver's inbox, or waits for the receiver.
func (em *emulator) postSend(s int64, ss *rankState) error {
	if em.eagerSize(ss.send.bytes) {
		return em.sendEager(s, ss)
	}
	d := ss.send.peer
	ds := &em.ranks[d]
	if ds.recv.active && !ds.recv.matched && ds.recv.peer == s {
		return em.match(s, d)
	}
	return nil
}

// postRecv posts rank d's receive half: it takes the first eager message
// from the source in its inbox, meets a sender already waiting, or waits.
func (em *emulator) postRecv(d int64, ds *rankState) error {
	s := ds.recv.peer
	for i := range ds.inbox {
		if ds.inbox[i].src == s {
			m := ds.inbox[i]
			ds.inbox = append(ds.inbox[:i], ds.inbox[i+1:]...)
			return em.receiveEager(d, ds, &m)
		}
	}
	ss := &em.ranks[s]
	if ss.send.active && !ss.send.matched && ss.send.peer == d && !em.eagerSize(ss.send.bytes) {
		return em.match(s, d)
	}
	return nil
}

// match pairs s's blocking send with d's receive. The message starts when
// both have posted; across a limited node boundary it first queues for a
// link.
func (em *emulator) match(s, d int64) error {
	ss, ds := &em.ranks[s], &em.ranks[d]
	if ss.send.bytes != ds.recv.bytes {
		return em.sizeMismatch(s, d, ss.send.bytes, ss.stmt)
	}
	ss.send.matched, ds.recv.matched = true, true
	ds.recv.wave = ss.send.wave
	ready := max(ss.posted, ds.posted)
	b, cost := em.route(s, ss, d, ss.send.bytes)
	if b >= 0 {
		em.net.request(linkRequest{time: ready, ready: ready, wave: ss.send.wave, src: s, dst: d, boundary: b, cost: cost})
		return nil
	}
	em.deliver(s, d, ready, ready+cost, emptyPath, viaProgram)
	return nil
}

// deliver completes a blocking message from s to d that started at start
// and ends at end. linkPrev is the path of the message whose end freed the
// link this one waited for (noNode when it did not wait).
func (em *emulator) deliver(s, d int64, start, end float64, linkPrev pathRef, via pathVia) {
	ss, ds := &em.ranks[s], &em.ranks[d]
	sPrev, sVia := emptyPath, viaProgram
	dPrev, dVia := emptyPath, viaProgram
	switch {
	case via == viaLink:
		sPrev, sVia, dPrev, dVia = linkPrev, viaLink, linkPrev, viaLink
	case ss.posted > ds.posted:
		dPrev, dVia = em.path.takeHead(ss, s), viaMessage
	case ds.posted > ss.posted:
		sPrev, sVia = em.path.takeHead(ds, d), viaMessage
	}
	em.res.Messages++
	sDone := em.completeHalf(s, &ss.send, start, end, sPrev, sVia)
	dDone := em.completeHalf(d, &ds.recv, start, end, dPrev, dVia)
	if sDone {
		em.wakeOther(s)
	}
	if dDone {
		em.wakeOther(d)
	}
}

// wakeOther makes rank r runnable unless it is the rank being advanced,
// which simply carries on.
func (em *emulator) wakeOther(r int64) {
	if r != em.current {
		em.wake(r)
	}
}

// sendEager hands an eager message to the network: the sender returns
// after injection, the message lands in the receiver's inbox (or meets the
// receiver if it is waiting). Across a limited node boundary the sender
// first waits for a link.
func (em *emulator) sendEager(s int64, ss *rankState) error {
	d := ss.send.peer
	b, cost := em.route(s, ss, d, ss.send.bytes)
	ss.send.matched = true
	if b >= 0 {
		em.net.request(linkRequest{time: ss.posted, ready: ss.posted, wave: ss.send.wave, src: s, dst: d, boundary: b, cost: cost, eager: true})
		return nil
	}
	return em.injectEager(s, ss.posted, cost, emptyPath, viaProgram)
}

// injectEager sends s's eager message at time t: the sender's half ends
// after injection and the message arrives at t + cost.
func (em *emulator) injectEager(s int64, t, cost float64, linkPrev pathRef, via pathVia) error {
	ss := &em.ranks[s]
	d := ss.send.peer
	// The message continues the sender's path (or the link's); the
	// sender's own half follows its program.
	prev, sendPrev := linkPrev, linkPrev
	if via != viaLink {
		prev, sendPrev = em.path.takeHead(ss, s), emptyPath
	}
	m := eagerMsg{src: s, bytes: ss.send.bytes, wave: ss.send.wave, sent: t, arrival: t + cost, stmt: ss.stmt, prev: prev, via: via}
	if via != viaLink {
		m.via = viaMessage
	}
	inj := 0.0
	if em.inject != nil {
		inj = em.inject.Inject(s, d, ss.send.bytes)
	}
	em.res.Messages++
	if em.completeHalf(s, &ss.send, t, t+inj, sendPrev, via) {
		em.wakeOther(s)
	}
	ds := &em.ranks[d]
	if ds.recv.active && !ds.recv.matched && ds.recv.peer == s {
		return em.receiveEager(d, ds, &m)
	}
	ds.inbox = append(ds.inbox, m)
	return nil
}

// receiveEager completes d's receive with an eager message: the receive
// ends when the message has arrived, or at once when it already has.
func (em *emulator) receiveEager(d int64, ds *rankState, m *eagerMsg) error {
	if m.bytes != ds.recv.bytes {
		return em.sizeMismatch(m.src, d, m.bytes, m.stmt)
	}
	ds.recv.matched = true
	ds.recv.wave = m.wave
	start := max(ds.posted, m.sent)
	end := max(ds.posted, m.arrival)
	prev, via := emptyPath, viaProgram
	if m.arrival > ds.posted {
		prev, via = m.prev, m.via
	}
	if em.completeHalf(d, &ds.recv, start, end, prev, via) {
		em.wakeOther(d)
	}
	return nil
}

// grantLink takes the earliest link request (earliest wave first among
// requests of the same time) and grants it if its boundary has a free link,
// or puts it back for when the first message on the boundary ends.
func (em *emulator) grantLink() error {
	req := em.net.pop()
	if em.opts.Until > 0 && req.time > em.opts.Until {
		em.res.Truncated = true // past the end of a truncated run: its ranks stay where they are
		return nil
	}
	bd := &em.net.bounds[req.boundary]
	em.net.expire(bd, req.time)
	if int64(len(bd.flights)) >= bd.capacity {
		first := bd.flights[0].end
		for _, f := range bd.flights[1:] {
			first = min(first, f.end)
		}
		req.time = first
		em.net.request(req)
		return nil
	}
	start, end := req.time, req.time+req.cost
	linkPrev, via := emptyPath, viaProgram
	if start > req.ready {
		em.res.LinkWaits++
		em.res.LinkWait += start - req.ready
		linkPrev, via = bd.freed, viaLink
	}
	em.current = -1
	ss, ds := &em.ranks[req.src], &em.ranks[req.dst]
	var msgPrev pathRef
	msgVia := viaProgram
	switch {
	case via == viaLink:
		msgPrev, msgVia = linkPrev, viaLink
	case !req.eager && ds.posted > ss.posted:
		msgPrev, msgVia = em.path.takeHead(ds, req.dst), viaMessage
	default:
		msgPrev = em.path.takeHead(ss, req.src)
	}
	node := em.path.message(msgPrev, msgVia, req.src, start, end, ss.stmt)
	bd.flights = append(bd.flights, flight{end: end, node: node})
	if req.eager {
		return em.injectEager(req.src, start, req.cost, linkPrev, via)
	}
	em.deliver(req.src, req.dst, start, end, linkPrev, via)
	return nil
}
