package emulate

import (
	"container/heap"
	"errors"
	"unsafe"

	"perfc/analyze"
)

// CoreSharer is implemented by a Pricer for a machine whose ranks share
// fewer cores than there are ranks: goroutine ranks on a host
// (machines.Machine.Cores). With Cores() = C > 0 and P > C ranks, the
// emulator runs the ranks on C cores (docs/emulate.md, "Ranks sharing
// cores"); with C = 0 or C ≥ P every rank has a core of its own, as on the
// papers' machines, and nothing changes.
type CoreSharer interface {
	// Cores is the number of cores the ranks share; 0 when every rank has
	// its own.
	Cores() int
	// CoreSwitch is the time, in seconds, a core takes to switch from a
	// rank that waits for a message to one that is ready (a goroutine's
	// park and wake-up), added to every blocking message between ranks
	// that share cores.
	CoreSwitch() float64
}

// TimeSlice is how long a rank computes on a core before it goes to the
// back of the run queue when other ranks wait for one: the Go scheduler
// preempts a goroutine that has run for 10 ms (forcePreemptNS in
// runtime/proc.go) and puts it on the global run queue.
const TimeSlice = 10e-3

// coreState is the run queue and the cores of an emulation whose ranks
// share cores. Cores are handed out in the order ranks became ready for
// one (first in, first out), each to the core that is free first; a
// compute segment holds its core for at most a TimeSlice before it queues
// again behind the ranks that became ready meanwhile.
//
// Grants are made only when every rank waits (emulator.run), as link
// grants are: each rank then waits for a message, a collective or a core,
// so any request not yet made comes from a rank that some grant still to
// be made will wake, at or after that grant's end. The earliest request
// waiting is therefore the earliest there will be, and FIFO order is
// exact.
type coreState struct {
	cores    coreHeap
	queue    requestQueue
	seq      int64   // the order of requests of the same time
	switchAt float64 // CoreSwitch: added to every blocking message
}

// coreSlot is one core: when it is free, and the path of the stretch that
// ended on it then, which a rank that waited for it continues.
type coreSlot struct {
	free float64
	prev pathRef
	id   int
}

// coreRequest is a rank, or a message, ready for a core.
type coreRequest struct {
	ready  float64 // when it became ready
	seq    int64
	rank   int32 // the rank that computes, or the message's sender
	dst    int32 // a message's receiver; -1 for a compute segment
	left   float64
	region string // a compute segment's region
}

// coreRequestBytes is the memory of one waiting request (each rank has at
// most one; the budget counts them).
const coreRequestBytes = float64(unsafe.Sizeof(coreRequest{}))

// newCoreState returns the cores of an emulation of n ranks under p, or
// nil when every rank has a core of its own.
func newCoreState(p Pricer, n int64) (*coreState, error) {
	cs, ok := p.(CoreSharer)
	if !ok {
		return nil, nil
	}
	c := cs.Cores()
	if c < 0 {
		return nil, errors.New("emulate: the pricer says the ranks share a negative number of cores")
	}
	if c == 0 || int64(c) >= n {
		return nil, nil
	}
	sw := cs.CoreSwitch()
	if !usable(sw) {
		return nil, errors.New("emulate: the pricer's core switch is " + badCost(sw))
	}
	if p.Cluster() != nil {
		return nil, errors.New("emulate: a machine whose ranks share cores cannot also be a cluster of SMP nodes: give cores or cluster, not both")
	}
	st := &coreState{switchAt: sw, cores: make(coreHeap, c)}
	for i := range st.cores {
		st.cores[i] = coreSlot{prev: emptyPath, id: i}
	}
	return st, nil
}

// request queues r for a core from time ready.
func (st *coreState) request(q coreRequest) {
	q.seq = st.seq
	st.seq++
	heap.Push(&st.queue, q)
}

// requestCompute makes rank r, at a compute segment of the given cost,
// wait for a core.
func (em *emulator) requestCompute(r int64, rs *rankState, cost float64, region string) {
	rs.blocked = true
	em.cores.request(coreRequest{ready: rs.clock, rank: int32(r), dst: -1, left: cost, region: region})
}

// requestTransfer makes a blocking message from s to d, both sides ready
// at ready, wait for a core: whichever side arrives second copies the
// bytes (docs/codegen.md), and a rank copies only on a core.
func (em *emulator) requestTransfer(s, d int64, ready float64) {
	em.cores.request(coreRequest{ready: ready, rank: int32(s), dst: int32(d)})
}

// grantCore gives the earliest request a core: the one free first, from
// when both are ready. A compute segment runs for at most a TimeSlice and
// queues again for the rest; a message is delivered.
func (em *emulator) grantCore() error {
	st := em.cores
	q := heap.Pop(&st.queue).(coreRequest)
	c := &st.cores[0]
	start := max(q.ready, c.free)
	if start > em.until {
		em.res.Truncated = true // past the end of a truncated run: the rank stays where it is
		return nil
	}
	em.current = -1
	prev, via := &emptyPath, viaProgram
	if start > q.ready {
		prev, via = &c.prev, viaCore
	}
	r := int64(q.rank)
	rs := &em.ranks[r]
	var end float64
	if q.dst < 0 {
		run := q.left
		if run > TimeSlice && st.queue.Len() > 0 {
			run = TimeSlice
		}
		end = start + run
		em.computeOnCore(r, rs, q, start, end, prev, via)
		if q.left > run {
			em.events++ // a slice costs the emulation as much as an event
			if em.events > em.evBudget {
				return em.eventBudgetError(r, rs, &analyze.Event{Kind: analyze.EvCompute})
			}
			q.ready, q.left = end, q.left-run
			st.request(q)
		} else {
			rs.blocked = false
			em.wakeOther(r)
		}
		c.prev = em.path.takeHead(rs, r)
	} else {
		d := int64(q.dst)
		ss, ds := &em.ranks[r], &em.ranks[d]
		end = start + ss.send.cost + st.switchAt
		wait := start - q.ready
		ss.coreWaitEv = max(ss.coreWaitEv, wait)
		ds.coreWaitEv = max(ds.coreWaitEv, wait)
		// The transfer is a stretch of its own, so that whoever waits for
		// this core next continues it: after the core's last holder, or
		// after the side that arrived last.
		var msgPrev pathRef
		msgVia := viaProgram
		switch {
		case via == viaCore:
			msgPrev, msgVia = c.prev, viaCore
		case ds.posted > ss.posted:
			msgPrev, msgVia = em.path.takeHead(ds, d), viaMessage
		default:
			msgPrev = em.path.takeHead(ss, r)
		}
		node := em.path.message(&msgPrev, msgVia, r, start, end, ss.stmt)
		if via == viaCore {
			em.deliver(r, d, start, end, prev, viaCore)
		} else {
			em.deliver(r, d, start, end, &emptyPath, viaProgram)
		}
		c.prev = node
	}
	c.free = end
	heap.Fix(&st.cores, 0)
	return nil
}

// computeOnCore runs rank r's compute segment (or a slice of it) from
// start to end on a core it waited for since q.ready.
func (em *emulator) computeOnCore(r int64, rs *rankState, q coreRequest, start, end float64, prev *pathRef, via pathVia) {
	rs.compute += end - start
	rs.coreWait += start - q.ready
	em.path.follow(rs, r, start, end, ActCompute, nil, prev, via)
	rs.clock = end
	if em.observe {
		em.iv = Interval{Rank: r, Kind: ActCompute, Posted: q.ready, Start: start, End: end, Peer: -1, From: -1,
			Region: q.region, CoreWait: start - q.ready}
		em.emit()
	}
}

// moveCoreWait moves the part of rank rs's event wait that was a wait for
// a core (its message ready, no core free) from its waiting to its
// waiting for a core, and returns it: at most the event's own wait.
func (rs *rankState) moveCoreWait(start float64) float64 {
	x := min(rs.coreWaitEv, start-rs.posted)
	rs.coreWaitEv = 0
	if x <= 0 {
		return 0
	}
	rs.wait -= x
	rs.coreWait += x
	return x
}

// coreHeap orders the cores by when they are free (then by number, so
// that the order does not depend on the heap's history).
type coreHeap []coreSlot

func (h coreHeap) Len() int { return len(h) }
func (h coreHeap) Less(i, j int) bool {
	if h[i].free != h[j].free {
		return h[i].free < h[j].free
	}
	return h[i].id < h[j].id
}
func (h coreHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *coreHeap) Push(x any)   { *h = append(*h, x.(coreSlot)) }
func (h *coreHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// requestQueue is the run queue: requests by the time they became ready,
// then in the order they were made.
type requestQueue []coreRequest

func (q requestQueue) Len() int { return len(q) }
func (q requestQueue) Less(i, j int) bool {
	if q[i].ready != q[j].ready {
		return q[i].ready < q[j].ready
	}
	return q[i].seq < q[j].seq
}
func (q requestQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *requestQueue) Push(x any)   { *q = append(*q, x.(coreRequest)) }
func (q *requestQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}
