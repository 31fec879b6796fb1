package emulate

import (
	"fmt"
	"unsafe"

	"perfc/internal/units"
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

// peerEntry is what a rank knows about one destination it sends to: how
// many messages it has sent there, so that every message knows its wave
// (its sequence number on its pair), and the route and price of the last
// size sent there (a pricer may take its time, and may explain itself).
// Two entries share a cache line.
type peerEntry struct {
	key      int32   // the destination + 1; 0: a free entry
	boundary int32   // the node boundary the last size priced crosses, or −1
	sent     int64   // messages sent so far
	bytes    int64   // the size priced last; −1 before the first
	cost     float64 // its price
}

// peersInline is the number of destinations a rank keeps inline: a rank
// has few partners in most kernels, so a short list scanned linearly beats
// a map; the map takes over when a rank talks to many.
const peersInline = 4

// peer returns rank rs's entry for destination dst, adding one if needed;
// the entries beyond the inline ones start in slab (see morePeer).
func (rs *rankState) peer(dst int64, slab *[]peerEntry) *peerEntry {
	key := int32(dst + 1)
	for i := range rs.peers {
		e := &rs.peers[i]
		if e.key == key {
			return e
		}
		if e.key == 0 {
			*e = peerEntry{key: key, bytes: -1}
			return e
		}
	}
	return rs.morePeer(dst, slab)
}

// morePeer is peer for a rank with more than peersInline destinations.
// A few more are scanned too; past manyPeers a map finds them. The first
// peerChunk of them are carved from slab, which is shared by all ranks and
// refilled in blocks, so that hundreds of ranks with a few more partners
// (a hypercube's) do not each allocate and grow a list.
func (rs *rankState) morePeer(dst int64, slab *[]peerEntry) *peerEntry {
	key := int32(dst + 1)
	if rs.peerIndex == nil {
		for i := range rs.morePeers {
			if rs.morePeers[i].key == key {
				return &rs.morePeers[i]
			}
		}
	} else if i, ok := rs.peerIndex[dst]; ok {
		return &rs.morePeers[i]
	}
	if len(rs.morePeers) == manyPeers {
		rs.peerIndex = make(map[int64]int32, 2*manyPeers)
		for i, e := range rs.morePeers {
			rs.peerIndex[int64(e.key)-1] = int32(i)
		}
	}
	if rs.peerIndex != nil {
		rs.peerIndex[dst] = int32(len(rs.morePeers))
	}
	if rs.morePeers == nil {
		if len(*slab) < peerChunk {
			*slab = make([]peerEntry, peerSlab*peerChunk)
		}
		rs.morePeers = (*slab)[:0:peerChunk]
		*slab = (*slab)[peerChunk:]
	}
	rs.morePeers = append(rs.morePeers, peerEntry{key: key, bytes: -1})
	return &rs.morePeers[len(rs.morePeers)-1]
}

// manyPeers is the number of destinations beyond the inline ones that
// morePeer scans before it builds a map. peerChunk is the room a rank's
// first extra destinations get in the shared slab (more grow as a slice
// does), and a slab holds peerSlab chunks.
const (
	manyPeers = 16
	peerChunk = 8
	peerSlab  = 64
)

// route counts rank s's current send on its pair, giving it its wave, and
// prices it, finding the boundary it crosses, through s's peer entry. A
// new destination beyond the inline ones that takes the memory past the
// budget is an error, returned at the next event (emulator.budgetErr).
func (em *emulator) route(s int64, ss *rankState) {
	var e *peerEntry
	key := int32(ss.send.peer + 1)
	for i := range ss.peers { // the inline entries, as peer scans them
		if ss.peers[i].key == key {
			e = &ss.peers[i]
			break
		}
	}
	if e == nil {
		n := len(ss.morePeers)
		e = ss.peer(ss.send.peer, &em.peerSlab)
		if len(ss.morePeers) > n {
			em.extraPeers++
			em.events += extraPeerEvents // for the event budget: see extraPeerEvents
			if em.dynamicMemory() > em.room && em.budgetErr == nil {
				em.checkAt = 0 // the next event returns the error
				em.budgetErr = em.dynamicBudgetError(s, ss.stmt, fmt.Sprintf("the ranks keep %s destinations beyond their first %d each (about %d B each; an exchange of every rank with every other keeps P^2)",
					units.Int(em.extraPeers), peersInline, extraPeerBytes))
			}
		}
	}
	e.sent++
	if e.bytes != ss.send.bytes {
		e.boundary, e.cost = em.net.route(s, ss.send.peer, ss.send.bytes)
		e.bytes = ss.send.bytes
	}
	ss.send.wave, ss.send.boundary, ss.send.cost = e.sent, e.boundary, sendPrice(em.stmtMsg, em.serial, s, ss, e.cost)
}

// eagerSize reports whether a message of n bytes is sent eagerly.
func (em *emulator) eagerSize(n int64) bool { return em.eager >= 0 && n <= em.eager }

// postRecv posts rank d's receive half when the machine sends some
// messages eagerly (post does it otherwise): it takes the first eager
// message from the source waiting for it, meets a sender already waiting,
// or waits.
func (em *emulator) postRecv(d int64, ds *rankState) error {
	s := ds.recv.peer
	if ds.queued > 0 {
		if q := em.inboxes[pairKey(s, d)]; q != nil && q.len() > 0 {
			m := q.pop()
			ds.queued--
			em.queued--
			return em.receiveEager(d, ds, &m)
		}
	}
	ss := &em.ranks[s]
	if ss.send.active && !ss.send.matched && ss.send.peer == d && !em.eagerSize(ss.send.bytes) {
		return em.matchBlocking(s, d)
	}
	return nil
}

// matchBlocking pairs s's blocking send with d's receive. The message starts when
// both have posted; across a limited node boundary it first queues for a
// link.
func (em *emulator) matchBlocking(s, d int64) error {
	ss, ds := &em.ranks[s], &em.ranks[d]
	if ss.send.bytes != ds.recv.bytes {
		return em.sizeMismatch(s, d, ss.send.bytes, ss.stmt)
	}
	ss.send.matched, ds.recv.matched = true, true
	ds.recv.wave = ss.send.wave
	ready := max(ss.posted, ds.posted)
	b, cost := ss.send.boundary, ss.send.cost+em.wake.extra(ready-min(ss.posted, ds.posted))
	if em.noise != nil {
		// The message starts that much later on average: on the critical
		// path the delay is part of the message's stretch, in the ranks'
		// times it is waiting (synced).
		cost += em.pairNoise(s, d, ss.posted, ds.posted)
	}
	if b >= 0 {
		em.net.request(linkRequest{time: ready, ready: ready, wave: ss.send.wave, src: int32(s), dst: int32(d), boundary: b, cost: cost})
		return nil
	}
	if em.cores != nil { // the side that arrives second copies, on a core
		em.transferShared(s, d, ready)
		return nil
	}
	if em.plain(ss, ds) { // deliver would take deliverPlain; spare it the call
		em.deliverPlain(s, d, ss, ds, ready, ready+cost)
		return nil
	}
	em.deliverTo(s, d, ready, ready+cost, ready+cost-em.wholeEventExcess(s, d, ss, ds), &emptyPath, viaProgram)
	return nil
}

// wholeEventExcess is what a message from s to d costs beyond the message
// alone when its price is the whole event of s's sendrecv (the pricer's
// SerialSendRecv: both halves in series, or the sendrecv law) and d's
// event is this receive alone: an edge rank of a grid that is not
// periodic, or a plain recv. The receive ends when the message is copied,
// not with the sender's other half, as the receiver's region table charges
// it one message. It is 0 otherwise.
func (em *emulator) wholeEventExcess(s, d int64, ss, ds *rankState) float64 {
	if em.serial == nil || ss.kind != ActSendRecv || ss.recv.peer < 0 || ds.send.peer >= 0 {
		return 0
	}
	_, base := em.net.route(s, d, ss.send.bytes)
	return max(0, ss.send.cost-em.stmtCost(s, ss, base))
}

// stmtCost is the price of rank s's current send alone: its statement's
// (StmtMessager) where the pricer has one, base (the network's) otherwise.
func (em *emulator) stmtCost(s int64, ss *rankState, base float64) float64 {
	return stmtPrice(em.stmtMsg, s, ss, base)
}

// stmtPrice is stmtCost by the statement pricer stmt (nil: none).
func stmtPrice(stmt StmtMessager, s int64, ss *rankState, base float64) float64 {
	if stmt != nil && ss.stmt != nil {
		if c, ok := stmt.StmtMessage(ss.stmt, s, ss.send.peer, ss.send.bytes); ok {
			return c
		}
	}
	return base
}

// sendPrice is the price of rank s's current send, from base, the
// network's: its statement's (stmtPrice), and for a sendrecv the whole
// event's where serial prices it (SerialSendRecv; nil: the halves
// overlap). route prices every send by it, and sharedCopies a copy
// alone, by the pricer without the slowdown of copies at once.
func sendPrice(stmt StmtMessager, serial SerialSendRecv, s int64, ss *rankState, base float64) float64 {
	cost := stmtPrice(stmt, s, ss, base)
	if ss.kind == ActSendRecv && serial != nil {
		if c, ok := serial.SendRecvMessage(s, ss.send.peer, ss.recv.peer, ss.send.bytes, ss.recv.bytes, ss.stmt); ok {
			cost = c
		}
	}
	return cost
}

// deliver completes a blocking message from s to d that started at start
// and ends at end. With via viaLink, linkPrev is the path of the message
// whose end freed the link this one waited for; otherwise the side that
// posted first continues the path of the side that posted last.
func (em *emulator) deliver(s, d int64, start, end float64, linkPrev *pathRef, via pathVia) {
	em.deliverTo(s, d, start, end, end, linkPrev, via)
}

// deliverTo is deliver for a message whose receiver's half ends at recvEnd
// rather than with the sender's (wholeEventExcess).
func (em *emulator) deliverTo(s, d int64, start, end, recvEnd float64, linkPrev *pathRef, via pathVia) {
	ss, ds := &em.ranks[s], &em.ranks[d]
	if via != viaLink && via != viaCore && em.plain(ss, ds) {
		em.deliverPlain(s, d, ss, ds, start, end)
		return
	}
	sPrev, sVia := &emptyPath, viaProgram
	dPrev, dVia := &emptyPath, viaProgram
	var head pathRef
	switch {
	case via == viaLink || via == viaCore:
		sPrev, sVia, dPrev, dVia = linkPrev, via, linkPrev, via
	case ss.posted > ds.posted:
		head = em.path.takeHead(ss, s)
		dPrev, dVia = &head, viaMessage
	case ds.posted > ss.posted:
		head = em.path.takeHead(ds, d)
		sPrev, sVia = &head, viaMessage
	}
	em.res.Messages++
	sDone := em.completeHalf(s, ss, &ss.send, &ss.recv, start, end, sPrev, sVia)
	dDone := em.completeHalf(d, ds, &ds.recv, &ds.send, start, recvEnd, dPrev, dVia)
	if sDone {
		em.wakeOther(s)
	}
	if dDone {
		em.wakeOther(d)
	}
}

// plain reports whether a message from ss to ds is plain: the send and the
// receive are each their rank's whole event and no one observes the
// events (deliverPlain).
func (em *emulator) plain(ss, ds *rankState) bool {
	return ss.recv.peer < 0 && ds.send.peer < 0 && !em.observe
}

// deliverPlain is deliver for the messages of most kernels: a send and a
// receive that are each their rank's whole event (not a sendrecv), not
// across a limited link, with no timeline or observer. It does what the
// general path does, in the same order where it matters (the path ring's
// allocation, the wakes), without handing paths and halves from call to
// call: a message is the emulator's commonest step, and each call there
// costs its caller a spill of everything live.
func (em *emulator) deliverPlain(s, d int64, ss, ds *rankState, start, end float64) {
	em.res.Messages++
	ss.send.active, ds.recv.active = false, false
	ss.account(start, end)
	ds.account(start, end)
	em.synced(s, em.regions[ss.stmt])
	em.synced(d, em.regions[ds.stmt])
	switch {
	case ss.posted > ds.posted: // the receiver waited: it continues the sender's path
		em.path.joinHead(ds, d, start, end, ds.kind, ds.stmt, ss, s)
		em.path.extend(ss, s, start, end, ss.kind, ss.stmt)
	case ds.posted > ss.posted: // the sender waited
		em.path.joinHead(ss, s, start, end, ss.kind, ss.stmt, ds, d)
		em.path.extend(ds, d, start, end, ds.kind, ds.stmt)
	default:
		em.path.extend(ss, s, start, end, ss.kind, ss.stmt)
		em.path.extend(ds, d, start, end, ds.kind, ds.stmt)
	}
	em.wakeOther(s)
	em.wakeOther(d)
}

// wakeOther makes rank r runnable unless it is the rank being advanced,
// which simply carries on. While links are granted (no rank is being
// advanced) it keeps the floor: the earliest clock of a woken rank.
func (em *emulator) wakeOther(r int64) {
	if r == em.current {
		return
	}
	em.run1 = append(em.run1, int32(r))
	if em.current < 0 {
		em.floor = min(em.floor, em.ranks[r].clock)
	}
}

// sendEager hands an eager message to the network: the sender returns
// after injection, the message lands in the receiver's inbox (or meets the
// receiver if it is waiting). Across a limited node boundary the sender
// first waits for a link.
func (em *emulator) sendEager(s int64, ss *rankState) error {
	b, cost := ss.send.boundary, ss.send.cost
	ss.send.matched = true
	if b >= 0 {
		em.net.request(linkRequest{time: ss.posted, ready: ss.posted, wave: ss.send.wave, src: int32(s), dst: int32(ss.send.peer), boundary: b, cost: cost, eager: true})
		return nil
	}
	return em.injectEager(s, ss.posted, cost, &emptyPath, viaProgram)
}

// injectEager sends s's eager message at time t: the sender's half ends
// after injection and the message arrives at t + cost.
func (em *emulator) injectEager(s int64, t, cost float64, linkPrev *pathRef, via pathVia) error {
	ss := &em.ranks[s]
	d := ss.send.peer
	// The message continues the sender's path (or the link's); the
	// sender's own half follows its program.
	prev, sendPrev := *linkPrev, linkPrev
	if via != viaLink {
		prev, sendPrev = em.path.takeHead(ss, s), &emptyPath
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
	if em.completeHalf(s, ss, &ss.send, &ss.recv, t, t+inj, sendPrev, via) {
		em.wakeOther(s)
	}
	if em.nb != nil && em.nb.queued > 0 { // irecvs of d posted before its current receive come first
		if met, err := em.eagerMeetsIRecv(s, d, &m); met || err != nil {
			return err
		}
	}
	ds := &em.ranks[d]
	if ds.recv.active && !ds.recv.matched && ds.recv.peer == s {
		return em.receiveEager(d, ds, &m)
	}
	return em.enqueue(s, d, ds, &m)
}

// enqueue keeps eager message m from s until d receives it, within the
// memory budget.
func (em *emulator) enqueue(s, d int64, ds *rankState, m *eagerMsg) error {
	if em.dynamicMemory()+float64(unsafe.Sizeof(eagerMsg{})) > em.room {
		return em.dynamicBudgetError(s, m.stmt, fmt.Sprintf("%s eager messages sent and not yet received wait at once (receive them sooner)", units.Int(em.queued+1)))
	}
	key := pairKey(s, d)
	q := em.inboxes[key]
	if q == nil {
		if em.inboxes == nil {
			em.inboxes = map[uint64]*eagerQueue{}
		}
		q = &eagerQueue{}
		em.inboxes[key] = q
	}
	q.push(m)
	ds.queued++
	em.queued++
	return nil
}

// pairKey names the (sender, receiver) pair s, d (ranks fit in 32 bits:
// the run list holds them as int32).
func pairKey(s, d int64) uint64 { return uint64(uint32(s))<<32 | uint64(uint32(d)) }

// eagerQueue holds the eager messages of one (sender, receiver) pair that
// have not been received, oldest first. A receive takes the oldest (MPI's
// non-overtaking rule), so a pair's messages form a queue: pop is O(1)
// however many wait (one rank sending 10^5 messages before the other
// received any took 26 s when a receive shifted one list of all of them).
// The messages are kept in blocks, the first small (most pairs hold one or
// two messages) and later ones up to queueBlock long, so that a queue of
// millions is neither copied as it grows nor holds storage it does not
// use: its memory is its messages.
type eagerQueue struct {
	blocks [][]eagerMsg // blocks[0][head:] are the oldest waiting; later blocks follow in order
	head   int
	n      int // messages waiting
}

// queueBlock is the longest block of an eagerQueue (104 KiB).
const queueBlock = 1024

// len returns the number of messages waiting.
func (q *eagerQueue) len() int { return q.n }

// push adds a message at the end.
func (q *eagerQueue) push(m *eagerMsg) {
	last := len(q.blocks) - 1
	if last < 0 || len(q.blocks[last]) == cap(q.blocks[last]) {
		size := 2
		if last >= 0 {
			size = min(2*cap(q.blocks[last]), queueBlock)
		}
		q.blocks = append(q.blocks, make([]eagerMsg, 0, size))
		last++
	}
	q.blocks[last] = append(q.blocks[last], *m)
	q.n++
}

// pop removes and returns the oldest message; the queue must not be
// empty. A block is let go once its messages are taken, except the last,
// which is emptied for reuse.
func (q *eagerQueue) pop() eagerMsg {
	b := q.blocks[0]
	m := b[q.head]
	b[q.head] = eagerMsg{}
	q.head++
	q.n--
	if q.head == len(b) {
		q.head = 0
		if len(q.blocks) == 1 {
			q.blocks[0] = b[:0]
		} else {
			q.blocks[0] = nil
			q.blocks = q.blocks[1:]
		}
	}
	return m
}

// first returns the oldest message; the queue must not be empty.
func (q *eagerQueue) first() *eagerMsg { return &q.blocks[0][q.head] }

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
	end += em.wake.extra(m.arrival - ds.posted) // the receiver slept while it waited
	prev, via := &emptyPath, viaProgram
	if m.arrival > ds.posted {
		prev, via = &m.prev, m.via
	}
	if em.completeHalf(d, ds, &ds.recv, &ds.send, start, end, prev, via) {
		em.wakeOther(d)
	}
	return nil
}

// grantLink takes the earliest link request (earliest wave first among
// requests of the same time) and grants it if its boundary has a free link,
// or makes it and the boundary's other requests due by then wait for the
// first message on the boundary to end (boundary.hold).
func (em *emulator) grantLink() error {
	top := em.net.next()
	if em.opts.Until > 0 && top.time > em.opts.Until {
		em.net.take()
		em.res.Truncated = true // past the end of a truncated run: its ranks stay where they are
		return nil
	}
	req, bd, ok := em.net.grant()
	if !ok {
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
	if req.nb {
		em.grantRequestLink(req, start, end, bd, &linkPrev, via)
		return nil
	}
	src, dst := int64(req.src), int64(req.dst)
	ss, ds := &em.ranks[src], &em.ranks[dst]
	var msgPrev pathRef
	msgVia := viaProgram
	switch {
	case via == viaLink:
		msgPrev, msgVia = linkPrev, viaLink
	case !req.eager && ds.posted > ss.posted:
		msgPrev, msgVia = em.path.takeHead(ds, dst), viaMessage
	default:
		msgPrev = em.path.takeHead(ss, src)
	}
	node := em.path.message(&msgPrev, msgVia, src, start, end, ss.stmt)
	bd.flights = append(bd.flights, flight{end: end, node: node})
	if req.eager {
		return em.injectEager(src, start, req.cost, &linkPrev, via)
	}
	em.deliver(src, dst, start, end, &linkPrev, via)
	return nil
}
