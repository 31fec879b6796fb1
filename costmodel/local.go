package costmodel

import (
	"fmt"
	"slices"

	"perfc/lang"
	"perfc/machines"
)

// Payloads that stay with their sender (docs/predict.md, "Payloads that
// stay with their sender"). The goroutine runtime copies a message on the
// core of whichever side arrives second, from where the payload's lines
// are: COMMS1, the table's message law, returns what it received, so every
// copy reads lines the other core has just written, the slowest case; a
// payload its sender computed or never changed is read where the sender
// holds it, several times faster (8–12 against 50 GB/s at 256 KiB on this
// host). A table with messages.local (perfc calibrate's LOCAL pingpong,
// each rank sending its own buffer and receiving into another) prices the
// messages of such payloads by that law.
//
// Which payloads stay is decided from the kernel's text, by array: a sent
// array that no statement of the kernel receives into (a recv, an irecv,
// the buffer of a sendrecv or exchange, a collective's) holds only what its
// rank wrote. A sent array that is also received into keeps the COMMS1 law
// even where the sections differ (a halo exchange sends rows of u and
// receives into other rows of u): the bound is conservative, never
// optimistic about a payload a message brought.
//
// And the lines must not cross later: the side that arrives second copies
// the message, and when that is the sender (a receive posted first, as a
// ring or a pipeline posts it) the receive buffer's lines are left in the
// sender's cache. A kernel that computes with what it received reads them
// from there, one transfer between the cores per line, which is what
// COMMS1's bounced copy costs beyond LOCAL's (7.0 against 7.5 ns a line
// measured: the ring at P = 2 spent 21.8 µs more than predicted copying
// 2,896 received lines, docs/predict.md). So a kernel that reads an array
// it receives into (in an assignment, a condition or an abstract work
// statement) does not have LOCAL's law for its messages: the lines cross
// the cores once, in the copy (the receiver copies and reads the lines its
// partner wrote) or after it. COMMS1's copy crosses twice (it reads lines
// the other core wrote and writes lines the other core read), LOCAL's not
// at all, so with ranks on cores of their own such a kernel's messages
// cost the mean of the two laws (crossLaw, session 22); with ranks sharing
// cores, COMMS1's as before. Only kernels whose received data no
// computation reads (comms3, meshshift, permutation) are priced by LOCAL.

// localStmts finds the statements of k that send a payload that stays
// with its sender: sends, isends and sendrecvs into another buffer whose
// sent array the kernel never receives into (a `SIZE bytes` payload is
// the runtime's own buffer, which nothing receives into); and, when every
// send is one of them, the recvs and irecvs, whose messages they send.
// Keyed by the statement and by its position as analyze.Message.Stmt
// spells it. A kernel that computes with what it receives has none: its
// messages are crossingStmts'.
func localStmts(k *lang.Checked) (byStmt map[*lang.CommStmt]bool, byPos map[string]bool) {
	pt := pointToPoint(k)
	if pt == nil {
		return nil, nil
	}
	byStmt, byPos = map[*lang.CommStmt]bool{}, map[string]bool{}
	if readsAny(k, pt.received) {
		return byStmt, byPos
	}
	mark := func(s *lang.CommStmt) {
		byStmt[s] = true
		byPos[k.File.Source.Position(s.Pos()).String()] = true
	}
	every := len(pt.senders) > 0
	for _, s := range pt.senders {
		if pl := s.Payload; pl != nil && (pl.Bytes != nil || pl.Name != nil && !pt.received[pl.Name.Name]) {
			mark(s)
		} else {
			every = false
		}
	}
	if every {
		// A receive's message was sent by some send of the kernel: when
		// every send's payload stays, so does the one it receives.
		for _, s := range pt.receivers {
			mark(s)
		}
	}
	return byStmt, byPos
}

// crossingStmts finds the statements of a kernel that computes with what
// it receives (readsAny): every send, isend, recv and irecv, and every
// sendrecv or exchange that is not in place (those keep
// messages.exchange). Their payloads' lines cross the cores once
// (crossLaw); keyed as localStmts keys them, empty for any other kernel.
func crossingStmts(k *lang.Checked) (byStmt map[*lang.CommStmt]bool, byPos map[string]bool) {
	pt := pointToPoint(k)
	if pt == nil {
		return nil, nil
	}
	byStmt, byPos = map[*lang.CommStmt]bool{}, map[string]bool{}
	if !readsAny(k, pt.received) {
		return byStmt, byPos
	}
	for _, s := range append(slices.Clone(pt.senders), pt.receivers...) {
		byStmt[s] = true
		byPos[k.File.Source.Position(s.Pos()).String()] = true
	}
	return byStmt, byPos
}

// p2p is a kernel's point-to-point statements that copy from one buffer
// into another, and the arrays its statements receive into.
type p2p struct {
	senders   []*lang.CommStmt // sends, isends, sendrecvs into another buffer, byte payloads' sendrecvs and exchanges
	receivers []*lang.CommStmt // recvs and irecvs
	received  map[string]bool  // arrays (and vars) any statement receives into, collectives' included
}

// pointToPoint collects k's p2p; nil without a kernel.
func pointToPoint(k *lang.Checked) *p2p {
	if k == nil || k.Kernel == nil {
		return nil
	}
	pt := &p2p{received: map[string]bool{}}
	lang.Inspect(k.Kernel, func(n lang.Node) bool {
		s, ok := n.(*lang.CommStmt)
		if !ok {
			return true
		}
		switch {
		case s.Kind == lang.Send || s.Kind == lang.ISend:
			pt.senders = append(pt.senders, s)
		case s.Kind == lang.SendRecv && s.Into != nil:
			pt.senders = append(pt.senders, s)
			markReceived(pt.received, s.Into)
		case (s.Kind == lang.SendRecv || s.Kind == lang.Exchange) && s.Payload != nil && s.Payload.Bytes != nil:
			pt.senders = append(pt.senders, s) // byte payloads: two buffers of the runtime's, not in place
		case s.Kind == lang.Recv || s.Kind == lang.IRecv:
			pt.receivers = append(pt.receivers, s)
			markReceived(pt.received, s.Payload)
		default: // every other kind receives into its payload (or has none)
			markReceived(pt.received, s.Payload)
		}
		return true
	})
	return pt
}

// readsAny reports whether a computation of k reads one of the arrays:
// an element on the right of an assignment, on its left when it is a
// compound one (`+=`), in a condition, or the array of an abstract work
// statement's load.
func readsAny(k *lang.Checked, arrays map[string]bool) bool {
	if len(arrays) == 0 {
		return false
	}
	found := false
	reads := func(e lang.Node) {
		if e == nil {
			return
		}
		lang.Inspect(e, func(n lang.Node) bool {
			if ix, ok := n.(*lang.IndexExpr); ok && arrays[ix.Name.Name] {
				found = true
			}
			return !found
		})
	}
	lang.Inspect(k.Kernel, func(n lang.Node) bool {
		switch s := n.(type) {
		case *lang.CommStmt:
			return false // a message's payload is not a computation's read
		case *lang.AssignStmt:
			reads(s.Rhs)
			if s.Op != lang.Assign {
				reads(s.Lhs)
			}
			return false // subscripts are static: they read no array
		case *lang.IfStmt:
			reads(s.Cond)
		case *lang.WorkMem:
			if !s.Store && s.Array != nil && arrays[s.Array.Name] {
				found = true
			}
		}
		return !found
	})
	return found
}

// markReceived records the array (or var) a payload receives into.
func markReceived(received map[string]bool, pl *lang.Payload) {
	if pl != nil && pl.Bytes == nil && pl.Name != nil {
		received[pl.Name.Name] = true
	}
}

// localLaw is the table's messages.local when it prices a message from
// src to dst whose payload stays with its sender: not between the nodes
// of a cluster (the law was measured inside one), and when the kernel's
// ranks outnumber the table's cores only between ranks bound to two
// different cores (sameCore, BindsRanks), which copy between cores as
// the LOCAL pingpong's ranks do. Two ranks of one core, or ranks that any
// core may run, hand a core from one to the other, a cost the LOCAL
// pingpong (two ranks, each spinning on its own core) never saw: priced
// by it before the runtime bound its ranks, comms3, meshshift and wave at
// P = 4 on 2 cores fell to −64..−80 % in L1 (docs/accuracy.md); bound,
// and only across cores, the same cases measured in session 17 went from
// +89..+323 % to −8..+92 % (comms3 P = 4 in L1 +132 % → −8 %). nil
// otherwise.
func (p *machinePricer) localLaw(src, dst int64) *machines.MessageModel {
	lm := p.m.LocalMessages()
	if lm == nil || p.sharesCores() && (!p.sharesBoundCores() || p.sameCore(src, dst)) {
		return nil
	}
	if p.crossesNodes(src, dst) {
		return nil
	}
	return lm
}

// crossLaw is the table's messages.local when it prices, with the
// top-level law, a message of a kernel that computes with what it
// receives (crossingStmts): the mean of the two laws, one crossing of the
// payload's lines between the cores where COMMS1's copy makes two and
// LOCAL's none. Only with ranks on cores of their own (the regime both
// laws were measured in) and within one node; nil otherwise. With ranks
// sharing cores the mean priced the 4-rank cases of three validations'
// measurements worse (median |error| 10.8 → 11.3 %, 10.2 → 12.5 % and
// 11.4 → 12.8 %; in L1 9.6 → 14.1 %, docs/accuracy.md, session 22), where
// a message hands a core over, which neither law saw.
func (p *machinePricer) crossLaw(src, dst int64) *machines.MessageModel {
	lm := p.m.LocalMessages()
	if lm == nil || p.sharesCores() {
		return nil
	}
	if p.crossesNodes(src, dst) {
		return nil
	}
	return lm
}

// crossTime is the time of a message of a kernel that computes with what
// it receives (crossLaw): the mean of the top-level law and
// messages.local, and how; ok is false when crossLaw does not apply.
func (p *machinePricer) crossTime(src, dst int64, bytes float64, elem string) (float64, string, bool) {
	lm := p.crossLaw(src, dst)
	if lm == nil {
		return 0, "", false
	}
	mm, level := p.route(src, dst, elem, bytes, true) // ranks on cores of their own: the top-level law
	if mm == nil {
		return 0, "", false
	}
	how := fmt.Sprintf("the mean of %s model, %d network level(s), and messages.local (the kernel computes with what it receives: the payload's lines cross the cores once)", mm.Kind(), level)
	return (mm.Time(bytes, level) + lm.Time(bytes, lm.Levels(int(src), int(dst)))) / 2, how, true
}

// isLocalAt reports whether the statement at pos (as analyze.Message.Stmt
// spells it) sends a payload that stays with its sender.
func (p *machinePricer) isLocalAt(pos string) bool { return p.localPos[pos] }

// StmtMessage implements emulate.StmtMessager: the time of a message of
// statement s from src to dst by messages.local when its payload stays
// with its sender and the table has that law, by the mean of that law and
// the top-level one when its kernel computes with what it receives
// (crossLaw); an isend's that every rank posts, beyond the first-level
// cache, by messages.sendrecv (atOnceTime, requests.go); an isend's
// between bound ranks that share cores by the law of ranks with a core
// each (postedPrice, requests.go); ok false otherwise (the message costs
// Message's price).
func (p *machinePricer) StmtMessage(s *lang.CommStmt, src, dst, bytes int64) (float64, bool) {
	if p.atOnceStmt[s] {
		if t, _, ok := p.atOnceTime(src, dst, float64(bytes)); ok {
			return t, true
		}
	}
	if p.crossStmt[s] {
		if t, _, ok := p.crossTime(src, dst, float64(bytes), ""); ok {
			return t, true
		}
	}
	if !p.localStmt[s] {
		return p.postedPrice(s, src, dst, bytes)
	}
	lm := p.localLaw(src, dst)
	if lm == nil {
		return p.postedPrice(s, src, dst, bytes)
	}
	return p.lawTime(lm, lm.Levels(int(src), int(dst)), src, dst, bytes), true
}
