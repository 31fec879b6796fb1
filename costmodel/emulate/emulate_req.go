package emulate

import (
	"cmp"
	"fmt"
	"slices"

	"perfc/analyze"
	"perfc/lang"
)

// Non-blocking messages (isend, irecv, wait, waitall; docs/emulate.md,
// "Non-blocking messages"). A post returns at once, after the sender's
// overhead (LogGP o; Overheads); the message moves while the rank goes on
// computing; a wait blocks until its requests have completed and then pays
// the receiver's overhead of every irecv it completes.
//
//   - A message is matched in posting order per (sender, receiver) pair,
//     across blocking and non-blocking statements (MPI's non-overtaking
//     rule): the k-th message a rank sends to another, by send, sendrecv
//     or isend, is the k-th that rank receives from it, by recv, sendrecv
//     or irecv.
//   - It starts when both sides are ready: an isend once its post has
//     ended, an irecv once posted, a blocking send or receive once
//     reached; across a limited node boundary it first queues for a link,
//     as a blocking message does. It then takes the wire time: the
//     message's price less both overheads (LogGP L + (n−1)G; the whole
//     Hockney law t0 + n/r∞), less only the receiver's when the sender is
//     a blocking send (which pays its own overhead inside the transfer).
//   - An isend completes when the message has arrived (the receiver has
//     it, as a blocking send completes), an irecv when it has arrived; a
//     blocking side of such a message ends then (a receive after paying
//     its overhead). An isend of at most the eager limit starts at once,
//     without the receiver, and completes on arrival in the receiver's
//     inbox.
//   - Successive isends of a rank start at least g apart (LogGP's gap).

// Overheads is optionally implemented by a Pricer whose messages cost each
// side CPU time that does not overlap with anything (LogGP's o): a
// non-blocking send pays send at its post, the wait that completes a
// non-blocking receive pays recv, and successive non-blocking sends of a
// rank start at least gap apart (LogGP's g). The transfer itself, the
// message's price less send and recv, overlaps the ranks' computation.
// Without it a post and a wait cost nothing of their own.
type Overheads interface {
	MessageOverheads(src, dst, bytes int64) (send, recv, gap float64)
}

// RequestCoster is optionally implemented by a Pricer whose runtime spends
// CPU time on every non-blocking request beyond the message's overheads
// (machines' messages.requests): post at each isend and irecv, wait for
// each request a wait completes. ok is false when it has no such cost.
type RequestCoster interface {
	RequestCosts() (post, wait float64, ok bool)
}

// CopyingTransfers is optionally implemented by a Pricer of a shared-memory
// host, where no network moves a message while both CPUs compute: the
// goroutine runtime of the generated programs copies the bytes in the post
// (or blocking operation) of the side that arrives second (docs/codegen.md).
// When CopiesMessages reports true, the side of a message with a request
// that was ready last copies it: a request of that side completes at once
// and its wait pays the copy (the message's transfer time) as its own
// work, while the other side's request completes when the copy is done.
type CopyingTransfers interface {
	CopiesMessages() bool
}

// request is one non-blocking request of a rank, by its number
// (Event.Req).
type request struct {
	stmt     *lang.CommStmt
	peer     int64
	bytes    int64
	wave     int64   // the message's sequence number on its pair (an irecv's once matched)
	cost     float64 // isend: the message's price (Pricer.Message, or the cluster's)
	boundary int32   // isend: the node boundary whose links it needs, or −1
	send     bool    // isend (else irecv)
	active   bool    // posted and not yet completed by a wait
	matched  bool    // paired with the other side
	complete bool    // the message has moved
	inWait   bool    // the rank's current wait completes it
	ready    float64 // when the post ended: the message may start then
	start    float64 // when the transfer began (once complete)
	done     float64 // when the message had moved (once complete)
	oRecv    float64 // irecv: the overhead its wait pays
	since    float64 // the rank's compute since its last synchronisation when it posted (noise)
	peerOf   float64 // the partner's, at its post or blocking event, once matched (noise)
	copy     float64 // the copy its wait pays, when its side copied the message (CopyingTransfers)
	prev     pathRef // the rank's path at the end of the post
	path     pathRef // the path that bound the message's start (once complete)
}

// rankRequests is a rank's non-blocking state, kept beside the ranks'
// states (nbState.ranks) so that a kernel without requests carries none of
// it and a rankState stays the size its cache-line layout wants.
type rankRequests struct {
	reqs     []request
	nextSend float64        // the earliest start of the rank's next isend (LogGP g)
	wait     *lang.WaitStmt // the wait the rank is at
	left     int            // requests of that wait not complete yet
	inWait   float64        // time spent blocked in waits (RankTime.RequestWait)
}

// nbState is the emulator's non-blocking state: the posts not yet
// matched, per (sender, receiver) pair, and the messages waiting for a
// link.
type nbState struct {
	pairs   map[uint64]*pairPosts
	queued  int                   // posts waiting in pairs
	flights map[uint64]*nbMessage // messages waiting for a link, by flightKey
	over    Overheads             // nil: no overheads
	copies  bool                  // the side ready last copies a message (CopyingTransfers)
	post    float64               // what each post costs its rank (RequestCoster)
	done    float64               // what each request a wait completes costs its rank (RequestCoster)
	posted  int64                 // requests posted, all ranks
	scratch []*request            // finishWait's list, kept between waits
	ranks   []rankRequests
}

// pairPosts are the posts of one (sender, receiver) pair not yet matched:
// the sender's isends and the receiver's irecvs, oldest first. At most one
// of the two lists holds posts: a post first meets the oldest of the other.
type pairPosts struct {
	sends []int32 // request numbers of the sender's isends
	recvs []int32 // request numbers of the receiver's irecvs
}

// nbMessage is a message with a non-blocking side, matched: sReq and
// dReq are the sides' request numbers, −1 for a side's blocking event.
type nbMessage struct {
	s, d       int64
	sReq, dReq int32
	bytes      int64
	wave       int64
	ready      float64 // both sides ready
	wire       float64 // the transfer's time
	oRecv      float64 // the receiver's overhead
	prev       pathRef // the path of the side that was ready last
	via        pathVia
	sStmt      *lang.CommStmt // the sender's statement
	sBound     bool           // the sender was ready last (or at once)
	eagerDone  bool           // an eager isend: the sender's request completed at its post
}

// initRequests prepares the non-blocking state of an emulation of k; p
// is the caller's pricer.
func (em *emulator) initRequests(k *lang.Checked, p Pricer) {
	if !hasRequests(k) {
		return
	}
	nb := &nbState{pairs: map[uint64]*pairPosts{}, flights: map[uint64]*nbMessage{},
		ranks: make([]rankRequests, k.NumRanks())}
	nb.over, _ = p.(Overheads)
	if c, ok := p.(CopyingTransfers); ok {
		nb.copies = c.CopiesMessages()
	}
	if c, ok := p.(RequestCoster); ok {
		if post, wait, ok := c.RequestCosts(); ok && usable(post) && usable(wait) {
			nb.post, nb.done = post, wait
		}
	}
	em.nb = nb
}

// hasRequests reports whether the kernel posts non-blocking messages.
func hasRequests(k *lang.Checked) bool {
	found := false
	lang.Inspect(k.Kernel.Body, func(n lang.Node) bool {
		switch n := n.(type) {
		case *lang.CommStmt:
			found = found || n.Kind.IsNonBlocking()
		case *lang.WaitStmt:
			found = true
		}
		return !found
	})
	return found
}

// overheads returns the overheads of a message from src to dst, zero
// without an Overheads pricer; an unusable one is recorded as the
// pricer's error (Emulate returns it).
func (em *emulator) overheads(src, dst, bytes int64) (send, recv, gap float64) {
	if em.nb.over == nil {
		return 0, 0, 0
	}
	send, recv, gap = em.nb.over.MessageOverheads(src, dst, bytes)
	if !usable(send) || !usable(recv) || !usable(gap) {
		if em.checked.err == nil {
			em.checked.err = fmt.Errorf("the message overheads from rank %d to rank %d (%d B) are o = %g s, %g s and g = %g s, not usable times: check the message model's o and g", src, dst, bytes, send, recv, gap)
		}
		return 0, 0, 0
	}
	return send, recv, gap
}

// rq returns rank r's non-blocking state.
func (em *emulator) rq(r int64) *rankRequests { return &em.nb.ranks[r] }

// slot returns request number i of the rank, growing the list as needed.
func (rq *rankRequests) slot(i int) *request {
	for len(rq.reqs) <= i {
		rq.reqs = append(rq.reqs, request{})
	}
	return &rq.reqs[i]
}

// postRequest runs an isend or an irecv: the post takes the sender's
// overhead (after the gap since the rank's last isend) and the runtime's
// cost of a post (RequestCoster), then the message is matched with the
// other side if it is there, or waits for it.
func (em *emulator) postRequest(r int64, rs *rankState, ev *analyze.Event) error {
	rq := em.rq(r)
	req := rq.slot(ev.Req)
	if ev.Peer < 0 { // a peer of none: the request stays inactive (MPI_PROC_NULL)
		return nil
	}
	if req.active {
		src := em.k.File.Source
		return &ScheduleError{Kind: "active request", Pos: em.stmtPos(ev.Stmt),
			Msg: fmt.Sprintf("rank %d posts request %s here while it is still active (posted at %s and not waited for): wait for it before posting it again",
				r, ev.Stmt.Req.Name, positionOf(src, req.stmt))}
	}
	em.nb.posted++
	send := ev.Kind == analyze.EvISend
	*req = request{stmt: ev.Stmt, peer: ev.Peer, bytes: ev.Bytes, send: send, active: true, boundary: -1}
	if em.noise != nil {
		req.since = em.noise.ranks[r].since
	}
	posted := rs.clock
	start, end := posted, posted+em.nb.post
	kind := ActIRecv
	if send {
		kind = ActISend
		o, _, gap := em.overheads(r, ev.Peer, ev.Bytes)
		start = max(posted, rq.nextSend)
		end = start + o + em.nb.post
		rq.nextSend = start + gap
		// Count the message on its pair and price it as a blocking send
		// does (route), through the rank's send half, which no event
		// uses between events.
		rs.kind, rs.stmt = ActISend, ev.Stmt
		rs.send.post(ev.Peer, ev.Bytes)
		em.route(r, rs)
		rs.send.active = false
		req.wave, req.boundary, req.cost = rs.send.wave, rs.send.boundary, rs.send.cost
	}
	// The rank waits for the gap since its last isend (its network
	// interface is not ready for the message), then pays the overhead,
	// which is all the region table charges a post. The critical path
	// runs through the gap.
	rs.wait += start - posted
	rs.comm += end - start
	rs.clock = end
	em.path.extend(rs, r, posted, end, kind, ev.Stmt)
	req.ready = end
	req.prev = em.path.takeHead(rs, r)
	if em.observe {
		em.iv = Interval{Rank: r, Kind: kind, Posted: posted, Start: start, End: end, Peer: ev.Peer, From: -1,
			Bytes: ev.Bytes, Wave: req.wave, Stmt: ev.Stmt, Region: em.regions[ev.Stmt]}
		em.emit()
	}
	if send {
		return em.postISend(r, rs, int32(ev.Req))
	}
	return em.postIRecv(r, rs, int32(ev.Req))
}

// postISend matches rank s's isend sReq with the receiver's oldest irecv
// from s, or its blocking receive from s, or queues it; an eager one
// leaves at once.
func (em *emulator) postISend(s int64, ss *rankState, sReq int32) error {
	req := &em.rq(s).reqs[sReq]
	d := req.peer
	ds := &em.ranks[d]
	pp := em.pair(s, d)
	if em.eagerSize(req.bytes) {
		// The message leaves without the receiver and the request
		// completes on its arrival.
		o, oRecv, _ := em.overheads(s, d, req.bytes)
		wire := max(req.cost-o-oRecv, 0)
		req.matched, req.complete = true, true
		req.start, req.done, req.path = req.ready, req.ready+wire, req.prev
		em.res.Messages++
		m := &nbMessage{s: s, d: d, sReq: sReq, dReq: -1, bytes: req.bytes, wave: req.wave, ready: req.ready,
			wire: wire, oRecv: oRecv, prev: req.prev, via: viaMessage, sBound: true, eagerDone: true}
		switch {
		case len(pp.recvs) > 0:
			m.dReq = pp.popRecv()
			em.nb.queued--
			return em.matched(m)
		case ds.recv.active && !ds.recv.matched && ds.recv.peer == s:
			return em.matched(m)
		}
		// Keep it for the receiver as an eager message of the inbox,
		// which a recv and an irecv take in order with the pair's others.
		return em.enqueue(s, d, ds, &eagerMsg{src: s, bytes: req.bytes, wave: req.wave, sent: req.ready,
			arrival: req.done + oRecv, stmt: req.stmt, prev: req.prev, via: viaMessage})
	}
	switch {
	case len(pp.recvs) > 0:
		dReq := pp.popRecv()
		em.nb.queued--
		return em.match(s, d, sReq, dReq)
	case ds.recv.active && !ds.recv.matched && ds.recv.peer == s && len(pp.sends) == 0:
		return em.match(s, d, sReq, -1)
	}
	pp.sends = append(pp.sends, sReq)
	em.nb.queued++
	return nil
}

// postIRecv matches rank d's irecv dReq with the sender's oldest message
// to d not yet received (an isend waiting, an eager message in the inbox,
// or the sender's blocking send), or queues it.
func (em *emulator) postIRecv(d int64, ds *rankState, dReq int32) error {
	req := &em.rq(d).reqs[dReq]
	s := req.peer
	if sReq, ok := em.oldestSend(s, d); ok {
		return em.match(s, d, sReq, dReq)
	}
	if ds.queued > 0 {
		if q := em.inboxes[pairKey(s, d)]; q != nil && q.len() > 0 {
			m := q.pop()
			ds.queued--
			em.queued--
			return em.irecvEager(d, ds, dReq, &m)
		}
	}
	ss := &em.ranks[s]
	if ss.send.active && !ss.send.matched && ss.send.peer == d && !em.eagerSize(ss.send.bytes) {
		return em.match(s, d, -1, dReq)
	}
	pp := em.pair(s, d)
	pp.recvs = append(pp.recvs, dReq)
	em.nb.queued++
	return nil
}

// oldestSend takes the oldest isend from s to d waiting for its receiver,
// unless an eager message of the pair in d's inbox is older.
func (em *emulator) oldestSend(s, d int64) (int32, bool) {
	pp := em.nb.pairs[pairKey(s, d)]
	if pp == nil || len(pp.sends) == 0 {
		return 0, false
	}
	if q := em.inboxes[pairKey(s, d)]; q != nil && q.len() > 0 && q.first().wave < em.rq(s).reqs[pp.sends[0]].wave {
		return 0, false
	}
	sReq := pp.sends[0]
	pp.sends = pp.sends[1:]
	em.nb.queued--
	return sReq, true
}

// pair returns the posts of pair (s, d), adding an empty entry.
func (em *emulator) pair(s, d int64) *pairPosts {
	key := pairKey(s, d)
	pp := em.nb.pairs[key]
	if pp == nil {
		pp = &pairPosts{}
		em.nb.pairs[key] = pp
	}
	return pp
}

// popRecv takes the oldest irecv.
func (pp *pairPosts) popRecv() int32 {
	r := pp.recvs[0]
	pp.recvs = pp.recvs[1:]
	return r
}

// blockingSendMeetsIRecv is called by post for rank s's blocking send (or
// sendrecv's send half) to d that is not eager: when d has irecvs from s
// waiting, the oldest takes the message, and it reports true.
func (em *emulator) blockingSendMeetsIRecv(s, d int64) (bool, error) {
	pp := em.nb.pairs[pairKey(s, d)]
	if pp == nil || len(pp.recvs) == 0 {
		return false, nil
	}
	dReq := pp.popRecv()
	em.nb.queued--
	return true, em.match(s, d, -1, dReq)
}

// blockingRecvMeetsISend is called by post for rank d's blocking receive
// (or sendrecv's receive half) from s: when s has isends to d waiting
// (older than any eager message of the pair), the oldest is received, and
// it reports true.
func (em *emulator) blockingRecvMeetsISend(s, d int64) (bool, error) {
	sReq, ok := em.oldestSend(s, d)
	if !ok {
		return false, nil
	}
	return true, em.match(s, d, sReq, -1)
}

// eagerMeetsIRecv is called when rank s's blocking eager message m reaches
// d's inbox: an irecv of d from s waiting takes it, and it reports true.
func (em *emulator) eagerMeetsIRecv(s, d int64, m *eagerMsg) (bool, error) {
	pp := em.nb.pairs[pairKey(s, d)]
	if pp == nil || len(pp.recvs) == 0 {
		return false, nil
	}
	dReq := pp.popRecv()
	em.nb.queued--
	return true, em.irecvEager(d, &em.ranks[d], dReq, m)
}

// irecvEager completes rank d's irecv dReq with an eager message: the
// request is complete when the message has arrived (its arrival includes
// the receiver's overhead, which the wait pays).
func (em *emulator) irecvEager(d int64, ds *rankState, dReq int32, m *eagerMsg) error {
	req := &em.rq(d).reqs[dReq]
	if m.bytes != req.bytes {
		return em.requestSizeMismatch(m.src, d, m.bytes, m.stmt, req.bytes, req.stmt)
	}
	_, oRecv, _ := em.overheads(m.src, d, m.bytes)
	req.matched, req.wave = true, m.wave
	req.start, req.done, req.oRecv = m.sent, max(m.arrival-oRecv, m.sent), oRecv
	req.path = m.prev
	if req.ready > req.done { // it had arrived: the rank's own post bound it
		req.path, req.start = req.prev, req.ready
		req.done = req.ready
	}
	em.requestComplete(d, ds, req)
	return nil
}

// match pairs the sides of a message from s to d of which at least one is
// a request (sReq, dReq; −1 for the rank's blocking event): it starts when
// both are ready, across a limited boundary once a link is free.
func (em *emulator) match(s, d int64, sReq, dReq int32) error {
	ss, ds := &em.ranks[s], &em.ranks[d]
	m := &nbMessage{s: s, d: d, sReq: sReq, dReq: dReq}
	var cost, sReady, dReady float64
	var boundary int32
	var sBytes, dBytes int64
	var sStmt, dStmt *lang.CommStmt
	if sReq >= 0 {
		q := &em.rq(s).reqs[sReq]
		q.matched = true
		cost, boundary, sBytes, sStmt, m.wave, sReady = q.cost, q.boundary, q.bytes, q.stmt, q.wave, q.ready
	} else {
		ss.send.matched = true
		cost, boundary, sBytes, sStmt, m.wave = ss.send.cost, ss.send.boundary, ss.send.bytes, ss.stmt, ss.send.wave
	}
	if dReq >= 0 {
		q := &em.rq(d).reqs[dReq]
		q.matched, q.wave = true, m.wave
		dBytes, dStmt, dReady = q.bytes, q.stmt, q.ready
	} else {
		ds.recv.matched, ds.recv.wave = true, m.wave
		dBytes, dStmt, dReady = ds.recv.bytes, ds.stmt, ds.posted
	}
	if sBytes != dBytes {
		return em.requestSizeMismatch(s, d, sBytes, sStmt, dBytes, dStmt)
	}
	if em.noise != nil {
		em.matchNoise(s, d, sReq, dReq)
	}
	m.sStmt = sStmt
	oSend, oRecv, _ := em.overheads(s, d, sBytes)
	if sReq < 0 {
		// A blocking send pays its overhead within the transfer.
		sReady, oSend = ss.posted, 0
	}
	m.bytes, m.oRecv, m.wire = sBytes, oRecv, max(cost-oSend-oRecv, 0)
	m.ready = max(sReady, dReady)
	// The side ready last bound the start: its path at its post (a
	// request's), or its head (a blocked rank's).
	m.sBound = sReady >= dReady
	switch {
	case m.sBound && sReq >= 0:
		m.prev = em.rq(s).reqs[sReq].prev
	case m.sBound:
		m.prev = em.path.takeHead(ss, s)
	case dReq >= 0:
		m.prev = em.rq(d).reqs[dReq].prev
	default:
		m.prev = em.path.takeHead(ds, d)
	}
	m.via = viaMessage
	if boundary >= 0 {
		em.nb.flights[flightKey(s, d, m.wave)] = m
		em.net.request(linkRequest{time: m.ready, ready: m.ready, wave: m.wave, src: int32(s), dst: int32(d), boundary: boundary, cost: m.wire, nb: true})
		return nil
	}
	em.res.Messages++
	em.transfer(m, m.ready, m.ready+m.wire, &m.prev, m.via)
	return nil
}

// flightKey names a message with a request side waiting for a link: its
// pair and its wave.
func flightKey(s, d, wave int64) uint64 { return pairKey(s, d) ^ uint64(wave)*0x9e3779b97f4a7c15 }

// grantRequestLink moves a message with a request side that waited for a
// link (grantLink): it crosses from start to end, its path continues
// linkPrev (the message that freed the link) when it waited, else its own.
func (em *emulator) grantRequestLink(req linkRequest, start, end float64, bd *boundary, linkPrev *pathRef, via pathVia) {
	key := flightKey(int64(req.src), int64(req.dst), req.wave)
	m := em.nb.flights[key]
	delete(em.nb.flights, key)
	prev := &m.prev
	if via == viaLink {
		prev = linkPrev
	} else {
		via = m.via
	}
	node := em.path.message(prev, via, m.s, start, end, m.sStmt)
	bd.flights = append(bd.flights, flight{end: end, node: node})
	em.res.Messages++
	em.transfer(m, start, end, prev, via)
}

// transfer completes message m, which crossed from start to end (its
// arrival), on both sides; prev bound its start.
func (em *emulator) transfer(m *nbMessage, start, end float64, prev *pathRef, via pathVia) {
	s, d := m.s, m.d
	ss, ds := &em.ranks[s], &em.ranks[d]
	// On a host that copies messages, the side ready last copies it: a
	// request of that side has nothing to wait for, and its wait pays the
	// copy.
	copier := em.nb.copies && !m.eagerDone
	if m.sReq >= 0 {
		if !m.eagerDone {
			q := &em.rq(s).reqs[m.sReq]
			q.start, q.done, q.path, q.copy = start, end, *prev, 0
			if copier && m.sBound {
				q.done, q.copy = start, end-start
			}
			em.requestComplete(s, ss, q)
		}
	} else {
		// A blocking send ends when the message has arrived.
		hs := max(ss.posted, start)
		sPrev, sVia := prev, via
		if m.sBound && via != viaLink {
			sPrev, sVia = &emptyPath, viaProgram
		}
		if em.completeHalf(s, ss, &ss.send, &ss.recv, hs, end, sPrev, sVia) {
			em.wakeOther(s)
		}
	}
	if m.dReq >= 0 {
		q := &em.rq(d).reqs[m.dReq]
		q.start, q.done, q.oRecv, q.path, q.copy = start, end, m.oRecv, *prev, 0
		if copier && !m.sBound {
			q.done, q.copy = start, end-start
		}
		em.requestComplete(d, ds, q)
		return
	}
	dPrev, dVia := prev, via
	if !m.sBound && via != viaLink {
		dPrev, dVia = &emptyPath, viaProgram
	}
	hs := max(ds.posted, start)
	if m.eagerDone {
		hs = max(ds.posted, m.ready)
		end = max(ds.posted, end)
		if end == ds.posted {
			dPrev, dVia = &emptyPath, viaProgram
		}
	}
	if em.completeHalf(d, ds, &ds.recv, &ds.send, hs, end+m.oRecv, dPrev, dVia) {
		em.wakeOther(d)
	}
}

// matched completes an eager isend's message at a receiver already posted
// (m.dReq an irecv, or −1: d's blocking receive).
func (em *emulator) matched(m *nbMessage) error {
	d := m.d
	ds := &em.ranks[d]
	if m.dReq >= 0 {
		q := &em.rq(d).reqs[m.dReq]
		if q.bytes != m.bytes {
			return em.requestSizeMismatch(m.s, d, m.bytes, em.rq(m.s).reqs[m.sReq].stmt, q.bytes, q.stmt)
		}
		q.matched, q.wave = true, m.wave
		start, end, prev := m.ready, m.ready+m.wire, m.prev
		if q.ready >= end { // it had arrived when the irecv was posted
			start, end, prev = q.ready, q.ready, q.prev
		}
		q.start, q.done, q.oRecv, q.path = start, end, m.oRecv, prev
		em.requestComplete(d, ds, q)
		return nil
	}
	if ds.recv.bytes != m.bytes {
		return em.requestSizeMismatch(m.s, d, m.bytes, em.rq(m.s).reqs[m.sReq].stmt, ds.recv.bytes, ds.stmt)
	}
	ds.recv.matched, ds.recv.wave = true, m.wave
	em.transfer(m, m.ready, m.ready+m.wire, &m.prev, viaMessage)
	return nil
}

// requestComplete records that request q of rank r has completed; when
// it was the last the rank's wait needed, the wait ends.
func (em *emulator) requestComplete(r int64, rs *rankState, q *request) {
	q.complete = true
	if !q.inWait {
		return
	}
	rq := em.rq(r)
	rq.left--
	if rq.left == 0 && rs.blocked && rs.kind == ActWait {
		em.finishWait(r, rs)
		em.wakeOther(r)
	}
}

// wait runs a wait or waitall: it completes the rank's active requests
// among those named (every active one for waitall), blocking until their
// messages have moved. It reports whether the rank blocks.
func (em *emulator) wait(r int64, rs *rankState, ev *analyze.Event) (blocked bool) {
	rq := em.rq(r)
	rs.posted, rs.kind, rs.stmt = rs.clock, ActWait, nil
	rs.send.post(-1, 0)
	rs.recv.post(-1, 0)
	rq.wait, rq.left = ev.WaitStmt, 0
	mark := func(q *request) {
		if q.active && !q.inWait {
			q.inWait = true
			if !q.complete {
				rq.left++
			}
		}
	}
	if ev.All {
		for i := range rq.reqs {
			mark(&rq.reqs[i])
		}
	} else {
		for _, i := range ev.Reqs {
			if i < len(rq.reqs) {
				mark(&rq.reqs[i])
			}
		}
	}
	if rq.left > 0 {
		rs.blocked = true
		return true
	}
	em.finishWait(r, rs)
	return false
}

// finishWait ends rank r's wait once its requests are complete: it lasts
// until the last of their messages has moved, and pays the receiver's
// overhead of every irecv and the runtime's cost of every request
// (RequestCoster), in the order the messages arrived. The
// critical path follows the message that arrived last after the wait
// began, or the rank's own path when none did.
func (em *emulator) finishWait(r int64, rs *rankState) {
	rq := em.rq(r)
	done := em.nb.scratch[:0]
	for i := range rq.reqs {
		if q := &rq.reqs[i]; q.inWait {
			done = append(done, q)
		}
	}
	em.nb.scratch = done
	slices.SortStableFunc(done, func(a, b *request) int { return cmp.Compare(a.done, b.done) })
	t, busy, waited := rs.posted, 0.0, 0.0
	var bound *request
	for _, q := range done {
		if q.done > t {
			waited += q.done - t
			t, bound = q.done, q
		}
		if !q.send {
			t += q.oRecv
			busy += q.oRecv
		}
		t += q.copy + em.nb.done
		busy += q.copy + em.nb.done
		q.active, q.inWait, q.complete, q.matched = false, false, false, false
	}
	if bound != nil {
		wake := em.wake.extra(bound.done - rs.posted) // the rank's thread slept while it waited
		t += wake
		waited += wake
	}
	if em.noise != nil {
		n := em.waitNoise(r, rs, done)
		t += n
		waited += n
	}
	end := t
	rs.wait += waited
	rs.comm += busy
	rq.inWait += waited
	rs.clock = end
	rs.blocked = false
	em.synced(r, em.regions[rq.wait])
	if bound == nil {
		em.path.extend(rs, r, rs.posted, end, ActWait, nil)
	} else {
		em.path.join(rs, r, bound.start, end, ActWait, bound.stmt, &bound.path, viaRequest)
	}
	if em.observe {
		em.iv = Interval{Rank: r, Kind: ActWait, Posted: rs.posted, Start: end - busy, End: end, Peer: -1, From: -1,
			Wait: rq.wait, Region: em.regions[rq.wait]}
		em.emit()
	}
}

// requestsLeft reports a request rank r still has active when its schedule
// ends (the analyzer reports those it can find first).
func (em *emulator) requestsLeft(r int64) error {
	rq := em.rq(r)
	for i := range rq.reqs {
		if q := &rq.reqs[i]; q.active {
			return &ScheduleError{Kind: "request never waited for", Pos: em.stmtPos(q.stmt),
				Msg: fmt.Sprintf("rank %d posts request %s here and finishes without waiting for it: add a wait %s (or waitall) after it",
					r, q.stmt.Req.Name, q.stmt.Req.Name)}
		}
	}
	return nil
}

// requestSizeMismatch reports a message whose sizes differ between its
// sender s (sent bytes at sendStmt) and its receiver d (recvd at recvStmt).
func (em *emulator) requestSizeMismatch(s, d, sent int64, sendStmt *lang.CommStmt, recvd int64, recvStmt *lang.CommStmt) error {
	src := em.k.File.Source
	return &ScheduleError{
		Kind: "size mismatch",
		Pos:  em.stmtPos(recvStmt),
		Msg: fmt.Sprintf("rank %d receives %d B from rank %d here, but rank %d sends %d B at %s: the sizes of a message must agree on both sides",
			d, recvd, s, s, sent, positionOf(src, sendStmt)),
	}
}

// waitWaitsOn returns the rank a blocked wait of rank r waits for: the
// peer of its first request not complete.
func (em *emulator) waitWaitsOn(r int64) int64 {
	rq := em.rq(r)
	for i := range rq.reqs {
		if q := &rq.reqs[i]; q.inWait && !q.complete {
			return q.peer
		}
	}
	return -1
}

// describeWait says what a rank blocked in a wait waits for, for error
// messages: "wait at f.spmd:9:3 for irecv r1 of 512 B from rank 1
// (posted at f.spmd:6:3)".
func (em *emulator) describeWait(r int64) string {
	src := em.k.File.Source
	rq := em.rq(r)
	pos := ""
	if rq.wait != nil {
		pos = src.Position(rq.wait.Pos()).String()
	}
	for i := range rq.reqs {
		q := &rq.reqs[i]
		if !q.inWait || q.complete {
			continue
		}
		if q.send {
			return fmt.Sprintf("wait at %s for isend %s of %d B to rank %d (posted at %s)", pos, q.stmt.Req.Name, q.bytes, q.peer, positionOf(src, q.stmt))
		}
		return fmt.Sprintf("wait at %s for irecv %s of %d B from rank %d (posted at %s)", pos, q.stmt.Req.Name, q.bytes, q.peer, positionOf(src, q.stmt))
	}
	return "wait at " + pos
}

// waitPos is the position of the wait a rank is at.
func (em *emulator) waitPos(r int64) (lang.Position, bool) {
	if em.ranks[r].kind != ActWait || em.nb == nil || em.rq(r).wait == nil {
		return lang.Position{}, false
	}
	return em.k.File.Source.Position(em.rq(r).wait.Pos()), true
}
