package emulate

import (
	"fmt"

	"perfc/lang"
)

// network prices messages and, on a cluster of SMP nodes, holds the links
// across node boundaries.
//
// Ranks sit on the kernel's Px × Py grid (a kernel without a grid is a
// P × 1 row). A node holds Sx × Sy ranks (0: the whole grid in that
// direction), so the node of rank (rx, ry) is (rx/Sx, ry/Sy). A message
// between two nodes costs the cluster's Inter price. If the nodes are
// neighbours east–west it needs one of the Lx links of the boundary between
// them, north–south one of the Ly links (0: no limit); both directions
// across a boundary share its links. A message between nodes that are not
// neighbours (diagonal, or farther) is priced Inter but takes no link: the
// LANL model only speaks of neighbouring nodes.
type network struct {
	p      Pricer
	px, py int64 // the rank grid
	sx, sy int64 // ranks per node
	mx, my int64 // nodes
	lx, ly int64 // links per boundary, 0 for no limit
	inter  func(bytes int64) float64
	bounds []boundary
	order  reqHeap // the first request of every boundary with requests waiting, a heap
	// waiting counts the requests waiting, all boundaries.
	waiting int
}

// boundary is the boundary between two neighbouring nodes.
type boundary struct {
	capacity  int64
	flights   []flight // messages crossing now
	freed     pathRef  // the path of the message that ended last
	freedTime float64
	held      reqHeap // requests waiting for a busy link, all due at heldTime (see reqHeap)
	heldTime  float64
	later     reqHeap // the other requests waiting
	slot      int32   // the boundary's place in network.order; −1 when no request waits
}

// flight is a message on a link.
type flight struct {
	end  float64
	node pathRef // its path
}

// init reads the pricer's cluster description for kernel k.
func (n *network) init(k *lang.Checked, p Pricer) error {
	n.p = p
	n.px, n.py = k.NumRanks(), 1
	if px, py, ok := k.Grid(); ok {
		n.px, n.py = px, py
	}
	n.sx, n.sy, n.mx, n.my = n.px, n.py, 1, 1
	c := p.Cluster()
	if c == nil {
		return nil
	}
	if c.Sx < 0 || c.Sy < 0 || c.Lx < 0 || c.Ly < 0 {
		return fmt.Errorf("cluster: node %d x %d ranks with %d x %d links: none may be negative (0 means the whole grid, or no limit)", c.Sx, c.Sy, c.Lx, c.Ly)
	}
	if c.Sx > 0 {
		n.sx = min(c.Sx, n.px)
	}
	if c.Sy > 0 {
		n.sy = min(c.Sy, n.py)
	}
	n.mx, n.my = ceilDiv(n.px, n.sx), ceilDiv(n.py, n.sy)
	n.lx, n.ly = c.Lx, c.Ly
	n.inter = c.Inter
	// East–west boundaries first (my rows of mx−1), then north–south ones
	// (my−1 rows of mx).
	n.bounds = make([]boundary, n.my*(n.mx-1)+(n.my-1)*n.mx)
	for i := range n.bounds {
		capacity := n.lx
		if int64(i) >= n.my*(n.mx-1) {
			capacity = n.ly
		}
		if capacity == 0 {
			capacity = 1 << 62
		}
		n.bounds[i] = boundary{capacity: capacity, freed: emptyPath, slot: -1}
	}
	return nil
}

// ceilDiv is ⌈a/b⌉ for positive b.
func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// nodes returns the number of nodes in x and y.
func (n *network) nodes() (int64, int64) { return n.mx, n.my }

// nodeOf returns the node of a rank.
func (n *network) nodeOf(r int64) (int64, int64) {
	return (r % n.px) / n.sx, (r / n.px) / n.sy
}

// route prices a message of the given size from s to d and returns the
// boundary whose links it needs, or −1.
func (n *network) route(s, d, bytes int64) (int32, float64) {
	if n.mx*n.my == 1 {
		return -1, n.p.Message(s, d, bytes)
	}
	ax, ay := n.nodeOf(s)
	bx, by := n.nodeOf(d)
	if ax == bx && ay == by {
		return -1, n.p.Message(s, d, bytes)
	}
	cost := 0.0
	if n.inter != nil {
		cost = n.inter(bytes)
	} else {
		cost = n.p.Message(s, d, bytes)
	}
	switch {
	case ay == by && (ax-bx == 1 || bx-ax == 1):
		if n.lx == 0 {
			return -1, cost
		}
		return int32(ay*(n.mx-1) + min(ax, bx)), cost
	case ax == bx && (ay-by == 1 || by-ay == 1):
		if n.ly == 0 {
			return -1, cost
		}
		return int32(n.my*(n.mx-1) + min(ay, by)*n.mx + ax), cost
	}
	return -1, cost
}

// linkRequest is a message waiting to cross a limited boundary.
type linkRequest struct {
	time     float64 // when it may cross: ready, or when a link frees
	ready    float64 // when both sides (the sender, for an eager message) were ready
	cost     float64
	wave     int64
	src, dst int32
	boundary int32
	eager    bool
	nb       bool // a message with a request side (emulate_req.go)
}

// before orders requests: earlier time, then earlier wave, then ranks.
func (a *linkRequest) before(b *linkRequest) bool {
	if a.time != b.time {
		return a.time < b.time
	}
	if a.wave != b.wave {
		return a.wave < b.wave
	}
	return a.pair() < b.pair()
}

// pair orders the sender, then the receiver, in one number (both are
// ranks, never negative).
func (a *linkRequest) pair() uint64 { return uint64(uint32(a.src))<<32 | uint64(uint32(a.dst)) }

// The requests waiting for links are granted in the order of before: the
// earliest first, the earliest wave among requests of the same time. A
// request that finds every link of its boundary busy waits for the first
// message on the boundary to end: its time becomes that end, and it is
// ordered again. Every other request on that boundary due before then
// would find the same busy links and wait for the same end, so the
// requests are kept per boundary and a boundary's are moved all at once:
//
//   - held: the requests that wait for a busy link, all due at heldTime
//     (their time fields are kept equal to it), a heap by before;
//   - later: the other requests, all due after heldTime when held is not
//     empty, a heap by before.
//
// A boundary's first request is held's first if there is one, later's
// otherwise, and the network keeps the boundaries that have requests in a
// heap by their first requests (order). This grants exactly what one heap
// of all requests would, where every request that meets a full boundary is
// put back with its later time, but each boundary's requests move together
// and the heaps stay small.
type reqHeap []linkRequest

// push adds a request.
func (h *reqHeap) push(r linkRequest) {
	*h = append(*h, r)
	siftUp(*h, len(*h)-1, nil)
}

// pop removes and returns the first request.
func (h *reqHeap) pop() linkRequest {
	q := *h
	top := q[0]
	last := len(q) - 1
	q[0] = q[last]
	*h = q[:last]
	if last > 0 {
		siftDown(*h, 0, nil)
	}
	return top
}

// siftUp moves request i of heap q towards the root to its place, and
// siftDown away from it, moving the hole rather than swapping. With bounds
// (network.order, whose entries are the boundaries' first requests) they
// also keep each moved request's boundary's slot.
func siftUp(q []linkRequest, i int, bounds []boundary) {
	r := q[i]
	for i > 0 {
		parent := (i - 1) / 2
		if !r.before(&q[parent]) {
			break
		}
		q[i] = q[parent]
		if bounds != nil {
			bounds[q[i].boundary].slot = int32(i)
		}
		i = parent
	}
	q[i] = r
	if bounds != nil {
		bounds[r.boundary].slot = int32(i)
	}
}

func siftDown(q []linkRequest, i int, bounds []boundary) {
	r := q[i]
	for {
		c := 2*i + 1
		if c >= len(q) {
			break
		}
		if c+1 < len(q) && q[c+1].before(&q[c]) {
			c++
		}
		if !q[c].before(&r) {
			break
		}
		q[i] = q[c]
		if bounds != nil {
			bounds[q[i].boundary].slot = int32(i)
		}
		i = c
	}
	q[i] = r
	if bounds != nil {
		bounds[r.boundary].slot = int32(i)
	}
}

// first returns boundary bd's first request; it must have one.
func (bd *boundary) first() *linkRequest {
	if len(bd.held) > 0 {
		return &bd.held[0]
	}
	return &bd.later[0]
}

// waiting reports whether requests wait at boundary bd.
func (bd *boundary) waiting() bool { return len(bd.held)+len(bd.later) > 0 }

// hold makes every request of boundary bd due by t wait until t, when the
// first of its busy links frees: those already held and those of later
// due by then.
func (bd *boundary) hold(t float64) {
	for i := range bd.held {
		bd.held[i].time = t
	}
	bd.heldTime = t
	for len(bd.later) > 0 && bd.later[0].time <= t {
		r := bd.later.pop()
		r.time = t
		bd.held.push(r)
	}
}

// request queues a link request.
func (n *network) request(r linkRequest) {
	bd := &n.bounds[r.boundary]
	if len(bd.held) > 0 && r.time <= bd.heldTime {
		// The links are busy until heldTime: nothing on the boundary
		// changes before then.
		r.time = bd.heldTime
		bd.held.push(r)
	} else {
		bd.later.push(r)
	}
	n.waiting++
	if bd.slot < 0 {
		bd.slot = int32(len(n.order))
		n.order = append(n.order, linkRequest{})
	}
	n.order[bd.slot] = *bd.first()
	siftUp(n.order, int(bd.slot), n.bounds)
}

// pending returns the number of queued requests.
func (n *network) pending() int { return n.waiting }

// nextTime returns the time of the first request of all; there must be
// one.
func (n *network) nextTime() float64 { return n.order[0].time }

// next returns the first request of all; there must be one.
func (n *network) next() *linkRequest { return &n.order[0] }

// take removes and returns the first request of all.
func (n *network) take() linkRequest {
	b := n.order[0].boundary
	bd := &n.bounds[b]
	var r linkRequest
	if len(bd.held) > 0 {
		r = bd.held.pop()
	} else {
		r = bd.later.pop()
	}
	n.waiting--
	n.settle()
	return r
}

// grant takes the first request of all and returns it with its boundary
// if the boundary has a free link at the request's time (the messages
// that have ended by then leave their links first); otherwise it holds the
// boundary's requests due by the time its first busy link frees, and
// reports false.
func (n *network) grant() (linkRequest, *boundary, bool) {
	top := n.next()
	bd := &n.bounds[top.boundary]
	n.expire(bd, top.time)
	if int64(len(bd.flights)) < bd.capacity {
		return n.take(), bd, true
	}
	first := bd.flights[0].end
	for _, f := range bd.flights[1:] {
		first = min(first, f.end)
	}
	bd.hold(first)
	n.settle()
	return linkRequest{}, nil, false
}

// settle puts the first boundary of order back in its place after its
// first request has changed or gone.
func (n *network) settle() {
	b := n.order[0].boundary
	bd := &n.bounds[b]
	if bd.waiting() {
		n.order[0] = *bd.first()
		siftDown(n.order, 0, n.bounds)
		return
	}
	bd.slot = -1
	last := len(n.order) - 1
	moved := n.order[last]
	n.order = n.order[:last]
	if last > 0 {
		n.order[0] = moved
		siftDown(n.order, 0, n.bounds)
	}
}

// expire takes the messages that have ended by time t off a boundary's
// links, keeping the path of the one that ended last as the predecessor of
// whoever waited for a link.
//
// Most calls find nothing ended: the flights are only copied from the
// first one that has.
func (n *network) expire(bd *boundary, t float64) {
	i := 0
	for i < len(bd.flights) && bd.flights[i].end > t {
		i++
	}
	if i == len(bd.flights) {
		return
	}
	kept := bd.flights[:i]
	for j := i; j < len(bd.flights); j++ {
		f := &bd.flights[j]
		if f.end > t {
			kept = append(kept, *f)
			continue
		}
		if bd.freed.id == noNode || f.end >= bd.freedTime {
			bd.freed, bd.freedTime = f.node, f.end
		}
	}
	bd.flights = kept
}
