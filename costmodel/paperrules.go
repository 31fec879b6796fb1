package costmodel

import (
	"fmt"

	"perfc/analyze"
	"perfc/machines"
)

// Paper rules (Options.PaperRules, `perfc predict --paper-rules`) price a
// kernel the way the source paper of a machine table priced its own
// examples, where that differs from pricing the exact counts. Each rule is a
// general statement that the paper's printed numbers demonstrate, never a
// constant fitted to one kernel; docs/predict.md gives the evidence. A
// machine whose paper has no such rules is priced exactly as without them.
//
// Per-operation tables (the CM-5 paper [004] §8, Tables 1 and 6):
//   - a multiply-add pair is priced as its multiply and its add or subtract,
//     from their own Table 1 entries, not at the add & multiply entry: the
//     computation row of Table 6 grows by 0.2125 µs per row and unit of N,
//     which is ½ (the assumed branch probability) × ½ (the mean length of
//     the update loop) × (0.44 + 0.41), the multiply and the subtract of
//     pattern a&b&s in double precision; the madd entry (0.64) gives 0.16;
//   - operations whose operands are all in registers (pattern s&s&s, such as
//     index and rank arithmetic or a scalar select) are not priced: the
//     paper prices the computation from Table 1 alone, whose entries all
//     read an operand from the cache, and the row's per-row constant
//     (1.8825 ± 0.0003 µs from the 512 × 513 column) leaves no room for an
//     operation at the register rate (1/11 µs or 1/22 µs).
//
// IMH tables (the IMH paper [000] §5.2.2, Table 5):
//   - two messages of one rank that overlap cost one message: the two halves
//     of a sendrecv or exchange (the permutation pattern, whose time T_s +
//     m·τ_d Eq. 5 is), and a message returned to its sender, a send to and a
//     receive from the same peer of the same size ("pipelined
//     communication", L570, used for the pingpong estimate, L761). The
//     receive of such a pair is shown at no cost.
type paperRules struct {
	splitMadds       bool // price a multiply-add pair as its two operations
	skipRegisterOps  bool // do not price operations on register operands
	overlapExchanges bool // a send and the receive it overlaps cost one message
}

// paperRulesFor returns the rules of the paper behind the pricer's
// machine when opts asks for them, and records in the pricer's notes which
// rules apply.
func (p *machinePricer) paperRulesFor(opts Options) paperRules {
	if !opts.PaperRules {
		return paperRules{}
	}
	var r paperRules
	switch {
	case p.hasOpTable():
		r.splitMadds, r.skipRegisterOps = true, true
		p.note("paper rules ([004] §8): multiply-add pairs are priced as a multiply and an add or subtract, each from the operation table")
		p.note("paper rules ([004] §8): operations on register operands (pattern s&s&s) are not priced; the paper prices from Table 1 only")
	case isIMHTable(p.m):
		r.overlapExchanges = true
		p.note("paper rules ([000] §5.2.2): a sendrecv, and a send and receive of the same size to and from one peer (a pipelined round trip), cost one message")
	default:
		p.note("paper rules: the source paper of " + p.m.Name() + " prices nothing differently from the exact counts; the prediction is the exact one")
	}
	return r
}

// isIMHTable reports whether a machine table follows the IMH model of [000]:
// only that paper gives processor–memory terms (T_n, T_c, T_e) and a
// memory–disk section.
func isIMHTable(m *machines.Machine) bool {
	if _, ok := m.Compute().IMH(); ok {
		return true
	}
	_, ok := m.Disk()
	return ok
}

// applyPaperRules returns the workload the operation table prices under
// the rules: without multiply-add pairs when they are split (their
// multiplies and adds are already among the operations), and without
// operations on register operands when those are not priced.
func (p *machinePricer) applyPaperRules(w *workload) *workload {
	r := p.rules
	if !r.splitMadds && !r.skipRegisterOps {
		return w
	}
	out := *w
	if r.splitMadds {
		out.madds = nil
	}
	if r.skipRegisterOps {
		out.ops = p.withoutRegisterOps(out.ops)
		out.madds = p.withoutRegisterOps(out.madds)
	}
	return &out
}

// withoutRegisterOps drops the operations of pattern s&s&s and notes what
// was dropped.
func (p *machinePricer) withoutRegisterOps(ops []opN) []opN {
	var kept []opN
	for _, o := range ops {
		if o.pattern == registerPattern {
			if o.n > 0 {
				p.note(fmt.Sprintf("paper rules: %s %s on register operands not priced", o.op, o.typ))
			}
			continue
		}
		kept = append(kept, o)
	}
	return kept
}

// registerPattern is the operand pattern of statements whose operands are
// all scalars in registers (docs/counts.md).
const registerPattern = "s&s&s"

// overlappedReceives returns, under the IMH rules, the receives of a rank
// that overlap one of its sends, keyed by index in msgs, with the reason
// to print. A sendrecv's halves share a statement; a round trip is a send
// to and a receive from the same peer with the same number of messages of
// the same size. Each send overlaps at most one receive; pairs are taken in
// statement order.
func (r paperRules) overlappedReceives(msgs []analyze.Message) map[int]string {
	if !r.overlapExchanges {
		return nil
	}
	used := make([]bool, len(msgs))
	out := map[int]string{}
	for _, same := range []bool{true, false} { // halves of one statement first
		for i, s := range msgs {
			if s.Kind != "send" || used[i] {
				continue
			}
			for j, rc := range msgs {
				if rc.Kind != "recv" || used[j] || !overlaps(s, rc, same) {
					continue
				}
				used[i], used[j] = true, true
				if same {
					out[j] = "overlaps its send (sendrecv): one message, IMH Eq. 5 (paper rules)"
				} else {
					out[j] = fmt.Sprintf("pairs with the send at %s (a round trip): one message, IMH pipelined communication (paper rules)", s.Stmt)
				}
				break
			}
		}
	}
	return out
}

// overlaps reports whether a receive overlaps a send: as the other half of
// the same statement when sameStmt is set, otherwise as the return of a
// message to the peer it came from.
func overlaps(send, recv analyze.Message, sameStmt bool) bool {
	if sameStmt {
		return send.Stmt == recv.Stmt
	}
	return send.Rank >= 0 && send.Rank == recv.Rank &&
		send.Count.Value != nil && recv.Count.Value != nil && send.Count.Value.Cmp(recv.Count.Value) == 0 &&
		send.Bytes.Value != nil && recv.Bytes.Value != nil && send.Bytes.Value.Cmp(recv.Bytes.Value) == 0
}
