package costmodel

import (
	"fmt"

	"perfc/analyze"
	"perfc/costmodel/emulate"
	"perfc/internal/units"
	"perfc/lang"
	"perfc/machines"
)

// Non-blocking messages (isend, irecv) in the per-rank sum. A post costs
// the rank only its own CPU overhead: the sender's o at the isend, the
// receiver's o at the wait that completes the irecv (LogGP; a Hockney law
// has no per-side overhead, so both are 0), and with messages.requests the
// runtime's cost of a request, at its post and at its wait. The transfer (LogGP's
// L + (n−1)G, the whole Hockney t0 + n/r∞) overlaps the rank's
// computation until the wait, and what it does not hide is time the rank
// waits: the sum of per-rank costs, which leaves waiting out, leaves it out
// too, and the emulation (which perfc predict runs for every kernel with
// messages) charges it where the rank waits (docs/predict.md,
// "Non-blocking messages").

// MessageOverheads implements emulate.Overheads: the LogGP o of each side
// and the gap g of the message model that prices a message from src to
// dst (between the nodes of a cluster, the inter-node model's), or zeros
// for a Hockney or expression law, which have no per-side overhead.
func (p *machinePricer) MessageOverheads(src, dst, bytes int64) (send, recv, gap float64) {
	mm, _ := p.route(src, dst, "", float64(bytes), true)
	if mm == nil {
		return 0, 0, 0
	}
	if g, ok := mm.LogGP(); ok {
		return g.O.Value, g.O.Value, g.Gap.Value
	}
	return 0, 0, 0
}

// RequestCosts implements emulate.RequestCoster: the table's
// messages.requests, what a request costs its rank at its post and at the
// wait that completes it beyond the message law's overheads, or ok false
// when the table has none.
func (p *machinePricer) RequestCosts() (post, wait float64, ok bool) {
	q := p.m.Requests()
	if q == nil {
		return 0, 0, false
	}
	return q.Post.Value, q.Wait.Value, true
}

var _ emulate.RequestCoster = (*machinePricer)(nil)

// CopiesMessages implements emulate.CopyingTransfers: a table with
// `cores` describes a shared-memory host that runs the generated programs
// (perfc calibrate writes it), where the side of a message that arrives
// second copies the bytes (docs/emulate.md, "Non-blocking messages").
func (p *machinePricer) CopiesMessages() bool {
	_, ok := p.m.Cores()
	return ok
}

// Requests when ranks share cores. A blocking message between ranks that
// share cores hands a core over: its receiver (or sender) waits parked in
// the operation, and the side that arrives second copies the bytes and
// makes it ready, so messages.sharing (COMMS1 between parked ranks) prices
// it. An isend's message is copied in a post, or a wait, of the side that
// arrives second while the other side went on after its own post: no core
// is handed over in the message itself (a rank that waits for it in a
// wait parks there, which the emulator's run queue prices). With ranks
// bound to their cores (BindsRanks: goroutine ranks, rank r on core
// r mod C) such a message is priced by the law of ranks with a core each.

// requestStmts finds the isend statements of k, by statement and by
// position as analyze.Message.Stmt spells it.
func requestStmts(k *lang.Checked) (byStmt map[*lang.CommStmt]bool, byPos map[string]bool) {
	if k == nil || k.Kernel == nil {
		return nil, nil
	}
	byStmt, byPos = map[*lang.CommStmt]bool{}, map[string]bool{}
	lang.Inspect(k.Kernel, func(n lang.Node) bool {
		if s, ok := n.(*lang.CommStmt); ok && s.Kind == lang.ISend {
			byStmt[s] = true
			byPos[k.File.Source.Position(s.Pos()).String()] = true
		}
		return true
	})
	return byStmt, byPos
}

// Isends that every rank posts at once. An isend's message is copied by
// the side that arrives second: in a kernel whose ranks all post their
// irecvs and isends together (a ring, a halo exchange with requests),
// each rank's isend finds its partner's irecv posted and copies its own
// message, so with a core each (or goroutine ranks bound to cores that
// they share, copying to a rank of the other core) the cores copy at the
// same time, as a sendrecv into another buffer does (messages.sendrecv,
// COMMS3 at P = 2), where COMMS1 and LOCAL copy one message at a time.
// Beyond the first-level cache the copies share the L2-to-memory path
// and take the sendrecv law's time (ring at P = 2 measured 289 us in L3
// where the mean of COMMS1 and LOCAL priced 217 us: docs/predict.md,
// "Isends that every rank posts at once"). Shorter messages keep their law: the sendrecv
// law's time there is its event's synchronisation (0.5–0.8 us at 256 B on
// this host), which an isend's post and wait price apart.

// atOnceStmts finds the isend statements every rank posts: those outside
// every if (a rank-dependent branch may leave one rank copying alone).
// An isend of a procedure is left out: a call may sit in a branch.
func atOnceStmts(k *lang.Checked) (byStmt map[*lang.CommStmt]bool, byPos map[string]bool) {
	if k == nil || k.Kernel == nil {
		return nil, nil
	}
	byStmt, byPos = map[*lang.CommStmt]bool{}, map[string]bool{}
	lang.Inspect(k.Kernel, func(n lang.Node) bool {
		switch n := n.(type) {
		case *lang.IfStmt:
			return false
		case *lang.CommStmt:
			if n.Kind == lang.ISend {
				byStmt[n] = true
				byPos[k.File.Source.Position(n.Pos()).String()] = true
			}
		}
		return true
	})
	return byStmt, byPos
}

// atOnceTime is the time of a message of an isend that every rank posts
// (atOnceStmts) from src to dst: messages.sendrecv's, when the ranks have
// cores of their own within one node, or share cores bound to them and
// src and dst are on different ones (an isend's copy hands no core over:
// postedPrice; ring at P = 4 on 2 cores in L2 was +24..+39 % by the law of
// one copy at a time), and the message does not fit in the first-level
// cache; ok is false otherwise.
func (p *machinePricer) atOnceTime(src, dst int64, bytes float64) (float64, string, bool) {
	sr := p.m.SendRecv()
	if sr == nil || p.sharesCores() && (!p.sharesBoundCores() || p.sameCore(src, dst)) || src == dst || bytes < p.firstCacheBytes() {
		return 0, "", false
	}
	if p.crossesNodes(src, dst) {
		return 0, "", false
	}
	level := sr.Levels(int(src), int(dst))
	how := fmt.Sprintf("sendrecv law (messages.sendrecv: every rank posts its isends, and the ranks copy at once), %s model, %d network level(s)", sr.Kind(), level)
	return sr.Time(bytes, level), how, true
}

// postedAt reports whether a message of the statement at pos is an
// isend's between ranks that share cores and are bound to them: it hands
// no core over.
func (p *machinePricer) postedAt(pos string) bool {
	return p.reqPos[pos] && p.sharesBoundCores()
}

// postedPrice is StmtMessage for an isend's message between bound ranks
// that share cores: the law of ranks with a core each; ok false for any
// other statement.
func (p *machinePricer) postedPrice(s *lang.CommStmt, src, dst, bytes int64) (float64, bool) {
	if !p.reqStmt[s] || !p.sharesBoundCores() {
		return 0, false
	}
	mm, level := p.route(src, dst, "", float64(bytes), false)
	if mm == nil {
		return 0, false
	}
	return p.lawTime(mm, level, src, dst, bytes), true
}

// isRequest reports whether a counted message is one side of a
// non-blocking message.
func isRequest(kind string) bool { return kind == "isend" || kind == "irecv" }

// requestTerm prices the isend or irecv messages msg of a rank in the
// per-rank sum: each costs its side's overhead, the transfer is left to
// the emulation.
func (p *machinePricer) requestTerm(rank int64, msg analyze.Message) Term {
	n := msg.Count.Float()
	bytes := msg.Bytes.Float() / n
	peer := msg.Rank
	if peer < 0 {
		peer = (rank + 1) % max(p.ranks, 1) // a peer that varies: the overheads of a neighbour
	}
	src, dst := rank, peer
	if msg.Kind == "irecv" {
		src, dst = peer, rank
	}
	send, recv, _ := p.MessageOverheads(src, dst, int64(bytes))
	transfer, how := p.message(src, dst, bytes, msg.Elem, msg.Stmt)
	unit, side := send, "the sender's overhead o, paid at the post"
	if msg.Kind == "irecv" {
		unit, side = recv, "the receiver's overhead o, paid at the wait"
	}
	if mm, _ := p.route(src, dst, msg.Elem, bytes, true); mm != nil && mm.Kind() != machines.LogGPModel {
		side = "no per-side overhead in a " + mm.Kind().String() + " law"
	}
	if post, wait, ok := p.RequestCosts(); ok {
		unit += post + wait
		side += fmt.Sprintf(", and the runtime's %s at the post and %s at the wait that completes it (messages.requests)",
			units.Time(post), units.Time(wait))
	}
	if how != "" {
		how = fmt.Sprintf("%s; the transfer (%s of the message's %s, %s) overlaps computation until the wait, and the emulation charges what it does not hide",
			side, units.Time(max(transfer-send-recv, 0)), units.Time(transfer), how)
	}
	return Term{Resource: "message", What: fmt.Sprintf("%s %s (%s)", msg.Kind, msg.Peer, msg.Stmt),
		Count: n, Unit: "message of " + units.Count(bytes) + " B", UnitCost: unit, Time: n * unit, How: how}
}
