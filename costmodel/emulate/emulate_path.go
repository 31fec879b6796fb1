package emulate

import (
	"math/bits"
	"slices"

	"perfc/lang"
)

// The critical path is kept as a persistent list: every rank holds the
// path that ends at its clock, and an event that waited for another rank
// starts a stretch whose predecessor is that rank's path. In a balanced
// pipeline every rank is critical and the candidate paths hardly ever
// merge, so keeping them all would cost memory in proportion to the events.
// The stretches therefore live in a ring of fixed size (proportional to the
// number of ranks): the newest stretches are kept, older ones are
// overwritten, and a path that reaches an overwritten stretch is cut there.
// Every path also carries running totals (time computing and communicating
// on it, stretches, changes of rank), so the whole path is summarised
// exactly even when only its end is kept.

// pathVia says how a stretch of the critical path was entered.
type pathVia uint8

const (
	viaStart      pathVia = iota // the start of the run
	viaProgram                   // the rank's own previous event (no wait)
	viaMessage                   // waited for the partner of a message
	viaLink                      // waited for a link across a node boundary
	viaCollective                // waited for the last rank to reach a collective
	viaCore                      // waited for a core another rank held (ranks sharing cores)
	viaRequest                   // a wait waited for a request's message
)

var viaNames = [...]string{"start", "program", "message", "link", "collective", "core", "request"}

// noNode is the id of the empty path.
const noNode int64 = -1

// PathTotals sums a whole critical path, kept or not.
type PathTotals struct {
	Compute float64 `json:"compute_s"` // time computing on the path
	Comm    float64 `json:"comm_s"`    // time transferring messages and in collectives on the path
	Steps   int64   `json:"steps"`     // stretches of consecutive events of one rank
	Hops    int64   `json:"hops"`      // changes of rank along the path
}

// add counts one event of the given activity and duration.
func (t *PathTotals) add(kind Activity, d float64) {
	if kind == ActCompute {
		t.Compute += d
	} else {
		t.Comm += d
	}
}

// pathRef is a path as a rank, a message or a link holds it: the id of its
// last stretch, the rank of that stretch, and the totals of the whole path.
type pathRef struct {
	id   int64
	rank int64
	tot  PathTotals
}

// emptyPath is the path before the first event.
var emptyPath = pathRef{id: noNode, rank: -1}

// pathNode is one stretch of consecutive events of one rank.
type pathNode struct {
	prev        int64
	start, end  float64
	first, last *lang.CommStmt
	rank        int32
	events      int32
	kind        Activity
	via         pathVia
}

// pathRing holds the stretches other paths continue from. A rank's own
// last stretch (its open stretch) lives in its rankState, where it grows
// event by event without touching the ring; it enters the ring only when
// another path continues from it (takeHead), and is frozen from then on.
//
// The ring keeps the newest size stretches. Its storage starts at 16,384
// stretches, or 8 per rank for fewer than size/16 ranks, and grows by
// doubling up to size as stretches are added, so that a small kernel,
// which adds a few hundred, does not pay for clearing the 16,384 a ring
// holds at least, and a large one that adds few (a ring of 10^5 ranks
// passing one message round) does not hold 56 MB it never uses.
type pathRing struct {
	nodes []pathNode // len(nodes) ≤ size; stretch id is at id & mask
	mask  int64      // size − 1
	next  int64      // id of the next stretch
}

// newPathRing returns a ring of 8 stretches per rank, at least 16,384 and
// at most about a million.
func newPathRing(ranks int64) pathRing {
	size := pathRingSize(ranks)
	first := min(size, int64(1)<<14)
	if 16*ranks < size {
		first = max(int64(1)<<bits.Len64(uint64(8*ranks-1)), 8)
	}
	return pathRing{nodes: make([]pathNode, first), mask: size - 1}
}

// pathRingSize is the number of stretches the ring of an emulation of
// ranks keeps: 8 per rank, at least 16,384 and at most about a million,
// rounded up to a power of two.
func pathRingSize(ranks int64) int64 {
	size := min(max(int64(1)<<14, 8*ranks), int64(1)<<20)
	return int64(1) << bits.Len64(uint64(size-1))
}

// valid reports whether stretch id is still in the ring.
func (pr *pathRing) valid(id int64) bool {
	return id >= 0 && id >= pr.next-(pr.mask+1)
}

// at returns stretch id, which must be valid.
func (pr *pathRing) at(id int64) *pathNode { return &pr.nodes[id&pr.mask] }

// alloc stores a copy of stretch n and returns its id.
func (pr *pathRing) alloc(n *pathNode) int64 {
	id := pr.next
	i := id & pr.mask
	if i >= int64(len(pr.nodes)) {
		pr.grow()
	}
	pr.nodes[i] = *n
	pr.next = id + 1
	return id
}

// grow doubles the ring's storage, up to its size. Until the storage has
// reached the size, stretch id is at index id, so the stretches stay where
// they are. The new storage is allocated to its exact length: append's
// growth would round a large slice up by as much as a fifth.
func (pr *pathRing) grow() {
	n := min(2*len(pr.nodes), int(pr.mask+1))
	nodes := make([]pathNode, n)
	copy(nodes, pr.nodes)
	pr.nodes = nodes
}

// takeHead returns the path ending at rank r's clock for another path to
// continue from: its open stretch enters the ring and stops growing.
func (pr *pathRing) takeHead(rs *rankState, r int64) pathRef {
	id := pr.freeze(rs)
	if id == noNode {
		return emptyPath
	}
	return pathRef{id: id, rank: r, tot: rs.pathTot}
}

// freeze puts the rank's open stretch in the ring, if it is not there yet,
// and returns its id; noNode when the rank has no path yet.
func (pr *pathRing) freeze(rs *rankState) int64 {
	if rs.open.events == 0 {
		return noNode
	}
	if rs.openID == noNode {
		rs.openID = pr.alloc(&rs.open)
	}
	return rs.openID
}

// extend appends an event that did not wait to rank r's path: the open
// stretch grows unless another path continues from it, in which case a new
// one starts after it.
func (pr *pathRing) extend(rs *rankState, r int64, start, end float64, kind Activity, stmt *lang.CommStmt) {
	rs.pathTot.add(kind, end-start)
	n := &rs.open
	if rs.openID == noNode && n.events > 0 {
		n.end = end
		n.events++
		if stmt != nil {
			n.last = stmt
			if n.first == nil {
				n.first = stmt
			}
		}
		return
	}
	prev, via := rs.openID, viaProgram
	if n.events == 0 {
		prev, via = noNode, viaStart
	}
	n.set(prev, r, start, end, kind, via, stmt)
	rs.openID = noNode
	rs.pathTot.Steps++
}

// follow appends an event whose start was bound by the path prev (taken
// by the caller) to rank r's path; with via viaProgram prev is the rank's
// own path and is not looked at.
func (pr *pathRing) follow(rs *rankState, r int64, start, end float64, kind Activity, stmt *lang.CommStmt, prev *pathRef, via pathVia) {
	if via == viaProgram {
		pr.extend(rs, r, start, end, kind, stmt)
		return
	}
	pr.join(rs, r, start, end, kind, stmt, prev, via)
}

// join is follow for an event bound by another path: rank r's path
// becomes prev followed by a new stretch.
func (pr *pathRing) join(rs *rankState, r int64, start, end float64, kind Activity, stmt *lang.CommStmt, prev *pathRef, via pathVia) {
	tot := &rs.pathTot
	*tot = prev.tot
	tot.add(kind, end-start)
	tot.Steps++
	if prev.rank != r && prev.rank >= 0 {
		tot.Hops++
	}
	rs.open.set(prev.id, r, start, end, kind, via, stmt)
	rs.openID = noNode
}

// joinHead is join with prev the head of rank q (what takeHead returns),
// read in place rather than copied: rank r's path becomes q's path followed
// by a new stretch entered by a message.
func (pr *pathRing) joinHead(rs *rankState, r int64, start, end float64, kind Activity, stmt *lang.CommStmt, qs *rankState, q int64) {
	tot := &rs.pathTot
	prev := pr.freeze(qs)
	if prev == noNode { // q has no path yet: the empty path
		*tot = PathTotals{}
	} else {
		*tot = qs.pathTot
		if q != r {
			tot.Hops++
		}
	}
	tot.add(kind, end-start)
	tot.Steps++
	rs.open.set(prev, r, start, end, kind, viaMessage, stmt)
	rs.openID = noNode
}

// set makes n a stretch of one event of rank r. It assigns field by field:
// a composite literal would be built aside and copied.
func (n *pathNode) set(prev, r int64, start, end float64, kind Activity, via pathVia, stmt *lang.CommStmt) {
	n.prev, n.rank, n.events = prev, int32(r), 1
	n.start, n.end = start, end
	n.kind, n.via = kind, via
	n.first, n.last = stmt, stmt
}

// message records the transfer of a message that crossed a limited node
// boundary, so that a message that waits for the link can continue its
// path.
func (pr *pathRing) message(prev *pathRef, via pathVia, r int64, start, end float64, stmt *lang.CommStmt) pathRef {
	tot := prev.tot
	tot.add(ActSend, end-start)
	tot.Steps++
	if prev.rank != r && prev.rank >= 0 {
		tot.Hops++
	}
	var n pathNode
	n.set(prev.id, r, start, end, ActSend, via, stmt)
	id := pr.alloc(&n)
	return pathRef{id: id, rank: r, tot: tot}
}

// steps lists the kept part of path p from its oldest kept stretch,
// merging stretches of one rank that follow each other in program order.
// cut reports whether older stretches were overwritten.
func (pr *pathRing) steps(p pathRef, src *lang.Source) (out []PathStep, cut bool) {
	id := p.id
	for ; pr.valid(id); id = pr.at(id).prev {
		n := pr.at(id)
		via := n.via
		if n.prev == noNode {
			via = viaStart
		}
		out = append(out, PathStep{Rank: int64(n.rank), Start: n.start, End: n.end, Events: int64(n.events), Kind: n.kind.String(),
			First: positionOf(src, stmtNode(n.first)), Last: positionOf(src, stmtNode(n.last)), Via: viaNames[via]})
	}
	slices.Reverse(out)
	merged := out[:0]
	for _, s := range out {
		if k := len(merged); k > 0 && s.Via == "program" && merged[k-1].Rank == s.Rank {
			m := &merged[k-1]
			m.End = s.End
			m.Events += s.Events
			if s.Last != "" {
				m.Last = s.Last
			}
			if m.First == "" {
				m.First = s.First
			}
			continue
		}
		merged = append(merged, s)
	}
	return merged, id != noNode
}

// stmtNode turns a possibly nil statement into a node for positionOf,
// keeping a nil pointer from becoming a non-nil interface.
func stmtNode(s *lang.CommStmt) lang.Node {
	if s == nil {
		return nil
	}
	return s
}
