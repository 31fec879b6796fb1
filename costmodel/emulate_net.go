package costmodel

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
	queue  linkQueue
}

// boundary is the boundary between two neighbouring nodes.
type boundary struct {
	capacity  int64
	flights   []flight // messages crossing now
	freed     pathRef  // the path of the message that ended last
	freedTime float64
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
		n.bounds[i] = boundary{capacity: capacity, freed: emptyPath}
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
}

// before orders requests: earlier time, then earlier wave, then ranks.
func (a *linkRequest) before(b *linkRequest) bool {
	if a.time != b.time {
		return a.time < b.time
	}
	if a.wave != b.wave {
		return a.wave < b.wave
	}
	if a.src != b.src {
		return a.src < b.src
	}
	return a.dst < b.dst
}

// linkQueue is a binary min-heap of link requests.
type linkQueue []linkRequest

// request queues a link request.
func (n *network) request(r linkRequest) {
	n.queue = append(n.queue, r)
	q := n.queue
	// Sift up, moving the hole rather than swapping.
	i := len(q) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !r.before(&q[parent]) {
			break
		}
		q[i] = q[parent]
		i = parent
	}
	q[i] = r
}

// pending returns the number of queued requests.
func (n *network) pending() int { return len(n.queue) }

// pop removes and returns the first request.
func (n *network) pop() linkRequest {
	q := n.queue
	top := q[0]
	last := len(q) - 1
	q[0] = q[last]
	n.queue = q[:last]
	if last > 0 {
		n.sink(0)
	}
	return top
}

// sink moves request i down the heap to its place, after its key grew.
func (n *network) sink(i int) {
	q := n.queue
	r := q[i]
	// Move the hole rather than swapping.
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
		i = c
	}
	q[i] = r
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
