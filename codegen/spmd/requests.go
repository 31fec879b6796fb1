//go:build !perfc_mpi

package spmd

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
)

// Non-blocking messages (isend, irecv, wait, waitall) in the goroutine
// runtime. The rendezvous slots of world.go hold one posted operation per
// pair and direction, which is all blocking messages need; a rank with
// requests may have several messages to one peer in flight, so a kernel
// that posts requests matches all its user point-to-point messages in
// mailboxes instead: one per ordered pair of ranks, a FIFO of posted sends
// and one of posted receives under a mutex. A post meets the first
// operation of the other kind waiting in the mailbox (MPI's non-overtaking
// order, blocking and non-blocking messages alike: a blocking send is a
// post and its wait) or joins its queue; the side that arrives second
// copies the bytes and completes both. A posted send does not block its
// rank; like our blocking send, an isend completes when the receiver has
// the bytes. The collectives' internal messages keep their slots.
//
// The methods the generated program calls (isend, irecv, waitReqs,
// waitAll, requestsDone, reqBuf, reqVar, completedAt) are the interface an
// MPI transport implements too (MPI_Isend, MPI_Irecv, MPI_Waitall).

// reqOp is one posted message: a request's, or the one of a blocking send
// or receive in a kernel with requests.
type reqOp struct {
	owner *rank
	site  int
	peer  int
	buf   []byte
	send  bool
	req   int // the request number; -1 for a blocking operation
	// done is set by whichever side completes the message, under the
	// owner's reqState.mu; atomic, so that the owner may poll it without
	// the lock (poll.go).
	done atomic.Bool
	// work is the counting build's computation counter at the post
	// (rank.work), for the overlapped count.
	work int64
}

// mailbox matches the user messages of one ordered pair of ranks.
type mailbox struct {
	mu           sync.Mutex
	sends, recvs []*reqOp // posted and not yet matched, oldest first
}

// reqState is a rank's requests.
type reqState struct {
	mu   sync.Mutex
	cond sync.Cond // signalled when one of the rank's operations completes
	// active holds the rank's active request of each number (nil when
	// none); ops are the request operations, reused from run to run.
	active []*reqOp
	ops    []reqOp
	block  [2]reqOp // a blocking send and receive (sendrecv posts both)
	// lastSite is the post site of each request's last completion, so
	// that the generated program unpacks a var received by an irecv at
	// the wait (several posts may share a request name).
	lastSite []int
	bufs     [][]byte // per request: the buffer of a var or 'SIZE bytes' payload
	// waiting lists the operations the rank is blocked on, and waitSite
	// the statement (under mu); blocked tells the watchdog, gen counts
	// the completions and posts (its progress).
	waiting  []*reqOp
	waitSite int
	// parked says that the rank waits in block without its core, when
	// ranks share cores (cores.go); complete makes it ready.
	parked  bool
	blocked atomic.Bool
	gen     atomic.Uint64
	// posted, completed and overlapped count the requests per region
	// of their post (the counting build).
	posted, completed, overlapped []int64
}

// initRequests prepares a rank of a kernel that has requests.
func (r *rank) initRequests(k *kernelDesc) {
	n := len(k.requests)
	rq := &reqState{active: make([]*reqOp, n), ops: make([]reqOp, n), lastSite: make([]int, n), bufs: make([][]byte, n),
		posted: make([]int64, len(k.regions)), completed: make([]int64, len(k.regions)), overlapped: make([]int64, len(k.regions))}
	rq.cond.L = &rq.mu
	r.rq = rq
}

// box returns the mailbox of messages from src to dst.
func (w *world) box(src, dst int) *mailbox {
	p := &w.boxes[src*w.size+dst]
	if b := p.Load(); b != nil {
		return b
	}
	p.CompareAndSwap(nil, &mailbox{})
	return p.Load()
}

// postReq posts a request's message.
func (r *rank) postReq(site, peer int, buf []byte, req int, send bool) {
	if !r.reqPeer(peer, site, send) {
		return
	}
	rq := r.rq
	if prev := rq.active[req]; prev != nil {
		r.w.fatalf("rank %d: request %s is posted again at %s while its post at %s is still active; complete it first with 'wait %s'",
			r.id, r.w.k.requests[req], r.w.stmtOf(site), r.w.stmtOf(prev.site), r.w.k.requests[req])
	}
	op := &rq.ops[req]
	*op = reqOp{owner: r, site: site, peer: peer, buf: buf, send: send, req: req}
	if counting {
		r.countMessage(site, peer, len(buf))
		rq.posted[r.w.k.sites[site].region]++
		op.work = r.work()
	}
	rq.mu.Lock()
	rq.active[req] = op
	rq.mu.Unlock()
	r.match(op)
}

// match puts op into its mailbox: it meets the oldest operation of the
// other kind there, or waits in its queue.
func (r *rank) match(op *reqOp) {
	var b *mailbox
	if op.send {
		b = r.w.box(r.id, op.peer)
	} else {
		b = r.w.box(op.peer, r.id)
	}
	b.mu.Lock()
	queue, other := &b.sends, &b.recvs
	if op.send {
		queue, other = &b.recvs, &b.sends
	}
	if len(*queue) == 0 {
		*other = append(*other, op)
		b.mu.Unlock()
		r.rq.gen.Add(1)
		return
	}
	m := (*queue)[0]
	copy(*queue, (*queue)[1:])
	(*queue)[len(*queue)-1] = nil
	*queue = (*queue)[:len(*queue)-1]
	b.mu.Unlock()
	send, recv := op, m
	if !op.send {
		send, recv = m, op
	}
	if len(send.buf) != len(recv.buf) {
		r.w.sizeError(send.owner.id, recv.owner.id, len(send.buf), len(recv.buf), send.site, recv.site)
	}
	copy(recv.buf, send.buf)
	m.owner.complete(m)
	r.complete(op)
}

// complete marks op done and wakes its owner if it waits.
func (r *rank) complete(op *reqOp) {
	rq := r.rq
	rq.mu.Lock()
	op.done.Store(true)
	rq.gen.Add(1)
	if c := r.w.cores; c != nil {
		// A rank that shares cores waits in block without its core: the
		// last of its operations makes it ready.
		ready := rq.parked && allDone(rq.waiting)
		if ready {
			rq.parked = false
		}
		rq.mu.Unlock()
		if ready {
			c.ready(r)
		}
		return
	}
	rq.cond.Signal()
	rq.mu.Unlock()
}

// block waits until every op is done; site names the statement for the
// deadlock report.
func (r *rank) block(site int, ops ...*reqOp) {
	if r.pollDone(ops) {
		return
	}
	rq := r.rq
	rq.mu.Lock()
	// A copy in the rank's own list, so that ops (often a one-element
	// list) stays on the caller's stack.
	rq.waiting, rq.waitSite = append(rq.waiting[:0], ops...), site
	if c := r.w.cores; c != nil && !allDone(ops) {
		rq.parked = true
		rq.blocked.Store(true)
		rq.mu.Unlock()
		c.release(r)
		<-r.run
		rq.mu.Lock()
	}
	for _, op := range ops {
		for !op.done.Load() {
			rq.blocked.Store(true)
			rq.cond.Wait()
		}
	}
	rq.blocked.Store(false)
	clear(rq.waiting)
	rq.waiting = rq.waiting[:0]
	rq.mu.Unlock()
}

// waitReqs is `wait a, b`: complete the named requests that are active;
// a request that is not (never posted, or posted to none) is skipped.
func (r *rank) waitReqs(site int, reqs ...int) {
	rq := r.rq
	var pending [8]*reqOp
	ops := pending[:0]
	for _, q := range reqs {
		rq.lastSite[q] = -1
		if op := rq.active[q]; op != nil {
			ops = append(ops, op)
		}
	}
	r.finish(site, ops)
}

// waitAll is `waitall`: complete every active request.
func (r *rank) waitAll(site int) {
	rq := r.rq
	var pending [8]*reqOp
	ops := pending[:0]
	for i, op := range rq.active {
		rq.lastSite[i] = -1
		if op != nil {
			ops = append(ops, op)
		}
	}
	r.finish(site, ops)
}

// finish blocks until ops are done and retires their requests.
func (r *rank) finish(site int, ops []*reqOp) {
	if len(ops) == 0 {
		return
	}
	r.block(site, ops...)
	rq := r.rq
	var work int64
	if counting {
		work = r.work()
	}
	rq.mu.Lock()
	for _, op := range ops {
		rq.active[op.req] = nil
		rq.lastSite[op.req] = op.site
		if counting {
			region := r.w.k.sites[op.site].region
			rq.completed[region]++
			if work > op.work {
				rq.overlapped[region]++
			}
		}
	}
	rq.mu.Unlock()
}

// completedAt returns the position of the post that the last wait naming
// request req completed, or "" when that wait found it inactive.
//
//lint:ignore U1000 used by the generated main.go, to unpack a var an irecv received
func (r *rank) completedAt(req int) string {
	if s := r.rq.lastSite[req]; s >= 0 {
		return r.w.k.sites[s].stmt
	}
	return ""
}

// requestsDone is the end of a loop iteration (site: the loop; posts: the
// post sites whose innermost loop it is) or of the kernel body (site -1,
// no posts: every request): a request posted there must be complete.
func (r *rank) requestsDone(site int, posts ...int) {
	for _, op := range r.rq.active {
		if op == nil {
			continue
		}
		r.checkDone(site, posts, op.req, op.site, op.kind())
	}
}

// kind names a request operation's statement.
func (op *reqOp) kind() string {
	if op.send {
		return "isend"
	}
	return "irecv"
}

// mailSend and mailRecv are the blocking send and receive of a kernel
// with requests: a post and its wait, so that they match in order with
// the requests.
func (r *rank) mailSend(site, to int, buf []byte) { r.mailBlocking(site, to, buf, true) }

func (r *rank) mailRecv(site, from int, buf []byte) { r.mailBlocking(site, from, buf, false) }

// mailBlocking posts one blocking operation (a send, or a receive) on the
// rank's own slot of that direction and waits for it. A peer of -1
// (none) does nothing.
func (r *rank) mailBlocking(site, peer int, buf []byte, send bool) {
	slot, what := 1, "the source"
	if send {
		slot, what = 0, "the destination"
	}
	if uint(peer) >= uint(r.size) {
		r.noPeer(peer, site, what)
		return
	}
	if counting {
		r.countMessage(site, peer, len(buf))
	}
	op := &r.rq.block[slot]
	*op = reqOp{owner: r, site: site, peer: peer, buf: buf, send: send, req: -1}
	r.match(op)
	r.block(site, op)
}

// mailSendrecv posts both halves of a sendrecv before waiting for either.
func (r *rank) mailSendrecv(sendSite, recvSite, to int, sbuf []byte, from int, rbuf []byte) {
	var ops [2]*reqOp
	n := 0
	post := func(slot, site, peer int, buf []byte, send bool) {
		if uint(peer) >= uint(r.size) {
			return
		}
		if counting {
			r.countMessage(site, peer, len(buf))
		}
		op := &r.rq.block[slot]
		*op = reqOp{owner: r, site: site, peer: peer, buf: buf, send: send, req: -1}
		r.match(op)
		ops[n] = op
		n++
	}
	post(0, sendSite, to, sbuf, true)
	post(1, recvSite, from, rbuf, false)
	if n > 0 {
		r.block(sendSite, ops[:n]...)
	}
}

// requestWaiters lists, for the deadlock report, what each rank blocked in
// a mailbox wait waits for, and appends every rank's progress counter to
// words.
func (w *world) requestWaiters(words *[]uint64) map[int]string {
	out := map[int]string{}
	for _, r := range w.ranks {
		if r.rq == nil {
			continue
		}
		*words = append(*words, r.rq.gen.Load())
		if !r.rq.blocked.Load() {
			continue
		}
		r.rq.mu.Lock()
		var parts []string
		for _, op := range r.rq.waiting {
			if op.done.Load() {
				continue
			}
			dir := "a receive from"
			if op.send {
				dir = "a send to"
			}
			what := "blocking"
			if op.req >= 0 {
				what = op.kind() + " " + w.k.requests[op.req]
			}
			parts = append(parts, fmt.Sprintf("%s rank %d (%s, %s)", dir, op.peer, what, w.stmtOf(op.site)))
		}
		site := r.rq.waitSite
		r.rq.mu.Unlock()
		if len(parts) > 0 {
			out[r.id] = fmt.Sprintf("waits at %s for %s", w.stmtOf(site), strings.Join(parts, " and "))
		}
	}
	return out
}
