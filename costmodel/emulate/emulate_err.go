package emulate

import (
	"fmt"
	"strings"

	"perfc/internal/units"
	"perfc/lang"
)

// ScheduleError says why a schedule cannot complete: a deadlock (a receive
// without a matching send, a cycle of blocking operations), message sizes
// that differ between sender and receiver, ranks at different collectives,
// or a message never received. It names the ranks, the statements and, for
// a deadlock, the chain of waits.
type ScheduleError struct {
	Kind  string        // "deadlock", "size mismatch", "collective mismatch", "unreceived message"
	Pos   lang.Position // the statement of the first rank named
	Msg   string        // one line
	Waits []Wait        // the chain of waits (deadlocks), first rank first; a long one only at its ends
	// Omitted counts the waits of a long chain left out after its first
	// chainEnds (Waits holds the first and the last chainEnds).
	Omitted int64
}

// chainEnds is how many waits a deadlock report shows at each end of a
// long chain: a ring of a million ranks that all receive first is a cycle
// of a million waits, and its first and last few say what happens.
const chainEnds = 8

// Wait is one link of a chain of waits.
type Wait struct {
	Rank    int64  `json:"rank"`
	Doing   string `json:"doing"`    // "recv of 512 B from rank 2 at wave.spmd:26:7"
	WaitsOn int64  `json:"waits_on"` // the rank it waits for; -1 for none
	Why     string `json:"why"`      // what that rank is doing instead
}

// Error formats the error as file:line:col: message, then the waits, one
// per line.
func (e *ScheduleError) Error() string {
	var b strings.Builder
	b.WriteString(e.Pos.String())
	b.WriteString(": ")
	b.WriteString(e.Msg)
	for i, w := range e.Waits {
		if i == chainEnds && e.Omitted > 0 {
			fmt.Fprintf(&b, "\n\t… %s more waits …", units.Int(e.Omitted))
		}
		fmt.Fprintf(&b, "\n\trank %d: %s; waits for %s", w.Rank, w.Doing, w.Why)
	}
	return b.String()
}

// Unwrap returns the error as a positioned lang.Error, so that callers that
// print positioned errors with the source line and a caret can do so.
func (e *ScheduleError) Unwrap() error {
	msg := e.Error()
	msg = strings.TrimPrefix(msg, e.Pos.String()+": ")
	return &lang.Error{Pos: e.Pos, Msg: msg}
}

// stmtPos resolves a statement's position.
func (em *emulator) stmtPos(s *lang.CommStmt) lang.Position {
	if s == nil {
		return lang.Position{Filename: em.k.File.Source.Name}
	}
	return em.k.File.Source.Position(s.Pos())
}

// sizeMismatch reports a message whose sizes differ between its sender s
// (at sendStmt) and its receiver d.
func (em *emulator) sizeMismatch(s, d, sent int64, sendStmt *lang.CommStmt) error {
	ds := &em.ranks[d]
	src := em.k.File.Source
	return &ScheduleError{
		Kind: "size mismatch",
		Pos:  em.stmtPos(ds.stmt),
		Msg: fmt.Sprintf("rank %d receives %d B from rank %d here, but rank %d sends %d B at %s: the sizes of a message must agree on both sides",
			d, ds.recv.bytes, s, s, sent, positionOf(src, sendStmt)),
	}
}

// collectiveMismatch reports rank r at a collective other than the one the
// ranks before it reached.
func (em *emulator) collectiveMismatch(r int64, rs *rankState) error {
	c := &em.coll
	src := em.k.File.Source
	return &ScheduleError{
		Kind: "collective mismatch",
		Pos:  em.stmtPos(rs.stmt),
		Msg: fmt.Sprintf("rank %d reaches %s here while rank %d is at %s at %s: every rank must call the same collectives in the same order",
			r, rs.stmt.Kind, c.first, c.stmt.Kind, positionOf(src, c.stmt)),
	}
}

// deadlock explains why ranks are still blocked when nothing can move: it
// follows the waits from the lowest blocked rank until it reaches a rank
// that has finished (nobody will ever answer) or a rank already in the
// chain (a cycle of blocking operations).
func (em *emulator) deadlock() error {
	start := int64(-1)
	blocked := 0
	for r := range em.ranks {
		if !em.ranks[r].done {
			blocked++
			if start < 0 {
				start = int64(r)
			}
		}
	}
	var chain waitChain
	seen := make([]bool, len(em.ranks))
	ending := ""
	for r := start; ; {
		on := em.waitsOn(r)
		seen[r] = true
		why := ""
		switch {
		case on < 0:
			why = "the other ranks to reach it"
		case em.ranks[on].done:
			why = fmt.Sprintf("rank %d, which has finished its schedule", on)
			ending = "nothing matches it"
		case seen[on]:
			ending = "a cycle of blocking operations"
		}
		chain.add(r, on, why)
		if on < 0 || em.ranks[on].done || seen[on] {
			break
		}
		r = on
	}
	hint := ""
	switch ending {
	case "nothing matches it":
		hint = "add the matching operation on the other rank, or make the peer none where there is none"
	case "a cycle of blocking operations":
		hint = "break the cycle with sendrecv or exchange, or let alternate ranks receive first"
		if em.ranks[start].kind == ActWait {
			hint += "; a wait completes only once the partner has posted the matching message, so post what others wait for before waiting"
		}
	default:
		ending = "ranks are at different collectives or still in point-to-point operations"
		hint = "every rank must finish its messages and reach the same collectives"
	}
	first := &em.ranks[start]
	waits := "the chain of waits:"
	if chain.omitted() > 0 {
		waits = fmt.Sprintf("the chain of %s waits, its first and last %d:", units.Int(chain.n), chainEnds)
	}
	msg := fmt.Sprintf("deadlock: %s of %s ranks cannot complete (%s; %s); %s", units.Int(int64(blocked)),
		units.Int(int64(len(em.ranks))), ending, hint, waits)
	pos := em.stmtPos(first.stmt)
	if wp, ok := em.waitPos(start); ok {
		pos = wp
	}
	return &ScheduleError{Kind: "deadlock", Pos: pos, Msg: msg, Waits: chain.waits(em), Omitted: chain.omitted()}
}

// waitChain collects a chain of waits of any length in bounded memory:
// its first chainEnds waits and, in a ring, its last chainEnds.
type waitChain struct {
	head []Wait
	tail [chainEnds]Wait // the last waits, the newest at (n − 1) % chainEnds
	n    int64           // waits in the chain
}

// add appends rank r's wait for rank on (−1: none); why says what on is
// doing, "" for plainly "rank on". Only the waits kept are described
// (waits), so a chain of a million costs no million descriptions.
func (c *waitChain) add(r, on int64, why string) {
	w := Wait{Rank: r, WaitsOn: on, Why: why}
	if c.n < chainEnds {
		c.head = append(c.head, w)
	} else {
		c.tail[c.n%chainEnds] = w
	}
	c.n++
}

// waits returns the waits kept, in chain order, described.
func (c *waitChain) waits(em *emulator) []Wait {
	out := c.head
	kept := min(c.n-chainEnds, chainEnds)
	for i := c.n - kept; i < c.n; i++ {
		out = append(out, c.tail[i%chainEnds])
	}
	for i := range out {
		w := &out[i]
		if em.ranks[w.Rank].kind == ActWait && em.nb != nil {
			w.Doing = em.describeWait(w.Rank)
		} else {
			w.Doing = describeEvent(em.k.File.Source, &em.ranks[w.Rank])
		}
		if w.Why == "" {
			w.Why = fmt.Sprintf("rank %d", w.WaitsOn)
		}
	}
	return out
}

// omitted returns the number of waits between the first and the last
// chainEnds that are not kept.
func (c *waitChain) omitted() int64 { return max(c.n-2*chainEnds, 0) }

// waitsOn returns the rank that blocked rank r waits for: the partner of
// its outstanding half, or for a collective the first rank that has not
// arrived (−1 when every rank that has not arrived is done).
func (em *emulator) waitsOn(r int64) int64 {
	rs := &em.ranks[r]
	switch {
	case rs.kind == ActWait:
		return em.waitWaitsOn(r)
	case rs.kind == ActCollective || rs.kind == ActBarrier:
		for q := range em.ranks {
			if qs := &em.ranks[q]; !qs.blocked || (qs.kind != ActCollective && qs.kind != ActBarrier) {
				return int64(q)
			}
		}
		return -1
	case rs.recv.active:
		return rs.recv.peer
	case rs.send.active:
		return rs.send.peer
	}
	return -1
}

// undelivered reports an eager message that was sent and never received:
// of the lowest rank that has any, the oldest from its lowest sender.
func (em *emulator) undelivered() error {
	for d := range em.ranks {
		if em.ranks[d].queued == 0 {
			continue
		}
		m := em.firstWaiting(int64(d))
		return &ScheduleError{
			Kind: "unreceived message",
			Pos:  em.stmtPos(m.stmt),
			Msg: fmt.Sprintf("rank %d sends %d B to rank %d here (message %d on that pair), but rank %d finishes without receiving it: add the matching recv",
				m.src, m.bytes, d, m.wave, d),
		}
	}
	return nil
}

// firstWaiting returns the oldest eager message waiting for rank d from
// its lowest sender; d must have one.
func (em *emulator) firstWaiting(d int64) *eagerMsg {
	var first *eagerMsg
	for key, q := range em.inboxes {
		if int64(uint32(key)) != d || q.len() == 0 {
			continue
		}
		if m := q.first(); first == nil || m.src < first.src {
			first = m
		}
	}
	return first
}
