package spmd

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// Message contexts: user point-to-point traffic and the collectives'
// internal traffic never match each other, as MPI's communicator contexts.
const (
	ctxUser = iota
	ctxColl
	numContexts
)

// Rank states, for the deadlock watchdog, set at the start and the end of
// every run (the watchdog learns from the slots which ranks wait).
const (
	stateRunning int32 = iota
	stateDone
)

// world is the ranks of one program and the rendezvous slots between them.
type world struct {
	k      *kernelDesc
	size   int
	ranks  []*rank
	progs  []rankProgram
	slots  [numContexts][]atomic.Pointer[slot] // [ctx][dst*size+src], allocated on first use
	gate   gate                                // synchronises the ranks between runs
	stderr io.Writer
	// exit ends the program after a fatal error (os.Exit in a program; a
	// test substitutes its own).
	exit   func(code int)
	once   sync.Once     // the first fatal error wins
	period time.Duration // how often the watchdog looks
}

// rank is one rank's view of the world: its identity, its wake-up
// channel, its counters, timers and scratch buffers.
type rank struct {
	id   int
	w    *world
	wake chan struct{} // one token per completed operation this rank waits for

	// The fields above are read by other ranks; those below are written by
	// this one at every message. The padding keeps them on different cache
	// lines, so that a partner's read does not miss.
	_ [64]byte

	state atomic.Int32 // stateRunning or stateDone

	// Counters of the instrumented build, indexed by site.
	cnt, bytes, peer []int64

	// Region timers: accumulated nanoseconds per region, the region that
	// is running and the enclosing ones, and when the running one resumed.
	regionNs []int64
	cur      int
	stack    []int
	resumed  time.Time

	scratch [numScratch][]byte // reusable buffers, grown on demand
	big     [][]byte           // per site: the P-block buffers of scatter, gather, allgather
	big2    [][]byte           // per site: alltoall's receive buffer
	site    int                // the collective in progress, for messages
}

// Scratch buffers of a rank. Each use has its own so that nested uses
// (a collective inside which a combine needs a temporary) never share.
const (
	scrAcc      = iota // reduce and scan: the running result
	scrTmp             // reduce, allreduce, scan: a partner's contribution
	scrTree            // scatter and gather: a subtree's blocks
	scrRotate          // scatter and gather on a root other than 0
	scrReplace         // sendrecv in place: a copy of what is sent
	scrBytesOut        // `SIZE bytes` payloads: the send side
	scrBytesIn         // `SIZE bytes` payloads: the receive side
	scrVar             // a var payload
	scrVar2            // the second var payload of a sendrecv
	numScratch
)

// newWorld creates the ranks of kernel k and their programs.
func newWorld(k *kernelDesc, stderr io.Writer, exit func(int)) *world {
	w := &world{k: k, size: k.ranks, stderr: stderr, exit: exit, period: watchPeriod}
	for c := range w.slots {
		w.slots[c] = make([]atomic.Pointer[slot], k.ranks*k.ranks)
	}
	w.gate.init(k.ranks)
	for id := 0; id < k.ranks; id++ {
		r := &rank{id: id, w: w, wake: make(chan struct{}, 2)}
		r.cnt = make([]int64, len(k.sites))
		r.bytes = make([]int64, len(k.sites))
		r.peer = make([]int64, len(k.sites))
		r.big = make([][]byte, len(k.sites))
		r.big2 = make([][]byte, len(k.sites))
		r.regionNs = make([]int64, len(k.regions))
		w.ranks = append(w.ranks, r)
		w.progs = append(w.progs, nil)
	}
	return w
}

// errFatal unwinds a goroutine after a fatal error when exit returns (in
// tests; a program's exit never returns).
var errFatal = errors.New("fatal error reported")

// fatalf reports an error that ends the program: a kernel whose messages
// do not match, a deadlock, a run-time error in a rank.
func (w *world) fatalf(format string, args ...any) {
	w.once.Do(func() {
		fmt.Fprintf(w.stderr, "error: "+format+"\n", args...)
		w.exit(2)
	})
	panic(errFatal)
}

// stmtOf names the statement of a site for messages.
func (w *world) stmtOf(site int) string {
	if site >= 0 && site < len(w.k.sites) {
		return w.k.sites[site].stmt
	}
	return "an internal message"
}

// slot returns the rendezvous of messages from src to dst in context ctx.
func (w *world) slot(ctx, src, dst int) *slot {
	p := &w.slots[ctx][dst*w.size+src]
	if s := p.Load(); s != nil {
		return s
	}
	p.CompareAndSwap(nil, new(slot))
	return p.Load()
}

// A slot's word: what is posted (bits 0-1), the site of the posted
// operation (bits 2-33) and a generation (bits 34-63) that counts the
// completed rendezvous, so that the watchdog sees both who waits where and
// whether anything moved.
const (
	slotSend   = 1 // a sender waits with its data
	slotRecv   = 2 // a receiver waits with its buffer
	postedMask = 3
	siteShift  = 2
	genShift   = 34
)

// slot is the rendezvous of one ordered pair of ranks in one context.
// Sends and receives are blocking, so at most one of each is posted; each
// side writes only its own fields, then publishes them with one atomic
// operation on word, and the side that arrives second claims them with
// one. Whoever arrives second copies and wakes the other.
type slot struct {
	word atomic.Uint64
	// Written by the sender before it posts.
	data       []byte
	sender     *rank
	senderSite int
	// Written by the receiver before it posts.
	buf          []byte
	receiver     *rank
	receiverSite int
}

// posting is the word of a slot whose operation of kind is posted at site.
func posting(word uint64, kind, site int) uint64 {
	return word>>genShift<<genShift | uint64(uint32(site))<<siteShift | uint64(kind)
}

// claimed is the word of a slot after its posted operation completed.
func claimed(word uint64) uint64 { return (word>>genShift + 1) << genShift }

// offerSend delivers data to rank to if it waits in a receive, or posts
// it. It reports whether the caller must wait for the receiver.
func (r *rank) offerSend(ctx, to int, data []byte, site int) bool {
	s := r.w.slot(ctx, r.id, to)
	for {
		word := s.word.Load()
		if word&postedMask == slotRecv {
			if !s.word.CompareAndSwap(word, claimed(word)) {
				continue
			}
			r.w.checkSizes(r.id, to, len(data), len(s.buf), site, s.receiverSite)
			copy(s.buf, data)
			s.receiver.wake <- struct{}{}
			return false
		}
		s.data, s.sender, s.senderSite = data, r, site
		if s.word.CompareAndSwap(word, posting(word, slotSend, site)) {
			return true
		}
		// The receiver posted in between: take its buffer.
	}
}

// offerRecv takes data from rank from if it waits in a send, or posts
// buf. It reports whether the caller must wait for the sender.
func (r *rank) offerRecv(ctx, from int, buf []byte, site int) bool {
	s := r.w.slot(ctx, from, r.id)
	for {
		word := s.word.Load()
		if word&postedMask == slotSend {
			if !s.word.CompareAndSwap(word, claimed(word)) {
				continue
			}
			r.w.checkSizes(from, r.id, len(s.data), len(buf), s.senderSite, site)
			copy(buf, s.data)
			s.sender.wake <- struct{}{}
			return false
		}
		s.buf, s.receiver, s.receiverSite = buf, r, site
		if s.word.CompareAndSwap(word, posting(word, slotRecv, site)) {
			return true
		}
	}
}

// checkSizes stops the program when a message does not fit: a send and
// the receive it meets must move the same number of bytes.
func (w *world) checkSizes(src, dst, sent, room, sendSite, recvSite int) {
	if sent != room {
		w.fatalf("rank %d sends %d B to rank %d (%s), but rank %d receives %d B (%s); a send and its receive must move the same bytes",
			src, sent, dst, w.stmtOf(sendSite), dst, room, w.stmtOf(recvSite))
	}
}

// wait blocks until n posted operations have completed.
func (r *rank) wait(n int) {
	for range n {
		<-r.wake
	}
}

// checkPeer stops the program on a peer that is not a rank.
func (r *rank) checkPeer(peer, site int, what string) {
	if peer < -1 || peer >= r.w.size {
		r.w.fatalf("rank %d: %s %d at %s is not a rank (the ranks are 0..%d)", r.id, what, peer, r.w.stmtOf(site), r.w.size-1)
	}
}

// count records one message of a point-to-point site.
func (r *rank) countMessage(site, peer, n int) {
	r.cnt[site]++
	r.bytes[site] += int64(n)
	r.peer[site] = int64(peer)
}

// send is `send buf to peer`: blocking until the receiver has the bytes.
// A peer of -1 (none) does nothing.
func (r *rank) send(site, to int, buf []byte) {
	r.checkPeer(to, site, "the destination")
	if to < 0 {
		return
	}
	if counting {
		r.countMessage(site, to, len(buf))
	}
	if r.offerSend(ctxUser, to, buf, site) {
		r.wait(1)
	}
}

// recv is `recv buf from peer`: blocking until the bytes have arrived.
func (r *rank) recv(site, from int, buf []byte) {
	r.checkPeer(from, site, "the source")
	if from < 0 {
		return
	}
	if counting {
		r.countMessage(site, from, len(buf))
	}
	if r.offerRecv(ctxUser, from, buf, site) {
		r.wait(1)
	}
}

// sendrecv sends sbuf to `to` and receives rbuf from `from` at the same
// time, so that a ring of sendrecvs cannot deadlock.
func (r *rank) sendrecv(sendSite, recvSite, to int, sbuf []byte, from int, rbuf []byte) {
	r.checkPeer(to, sendSite, "the destination")
	r.checkPeer(from, recvSite, "the source")
	pending := 0
	if to >= 0 {
		if counting {
			r.countMessage(sendSite, to, len(sbuf))
		}
		if r.offerSend(ctxUser, to, sbuf, sendSite) {
			pending++
		}
	}
	if from >= 0 {
		if counting {
			r.countMessage(recvSite, from, len(rbuf))
		}
		if r.offerRecv(ctxUser, from, rbuf, recvSite) {
			pending++
		}
	}
	r.wait(pending)
}

// sendrecvReplace is sendrecv in place (`sendrecv x to a from b`,
// `exchange x with q`): what is sent is copied first, as
// MPI_Sendrecv_replace does, so the receive cannot overwrite it.
func (r *rank) sendrecvReplace(sendSite, recvSite, to, from int, buf []byte) {
	out := buf
	if to >= 0 && from >= 0 {
		out = r.scratchBuf(scrReplace, len(buf))
		copy(out, buf)
	}
	r.sendrecv(sendSite, recvSite, to, out, from, buf)
}

// xsend, xrecv and xsendrecv are the collectives' internal messages:
// blocking rendezvous in the collective context, not counted.
func (r *rank) xsend(to int, buf []byte) {
	if r.offerSend(ctxColl, to, buf, r.site) {
		r.wait(1)
	}
}

func (r *rank) xrecv(from int, buf []byte) {
	if r.offerRecv(ctxColl, from, buf, r.site) {
		r.wait(1)
	}
}

func (r *rank) xsendrecv(to int, sbuf []byte, from int, rbuf []byte) {
	pending := 0
	if r.offerSend(ctxColl, to, sbuf, r.site) {
		pending++
	}
	if r.offerRecv(ctxColl, from, rbuf, r.site) {
		pending++
	}
	r.wait(pending)
}

// scratchBuf returns scratch buffer i with n bytes, growing it if needed.
func (r *rank) scratchBuf(i, n int) []byte {
	if cap(r.scratch[i]) < n {
		r.scratch[i] = make([]byte, n)
	}
	return r.scratch[i][:n]
}

// bytesBuf is the buffer of a `SIZE bytes` payload: out for what a rank
// sends, in for what it receives. Its contents are not data.
func (r *rank) bytesBuf(in bool, n int) []byte {
	if n < 0 {
		r.w.fatalf("rank %d: a payload of %d bytes", r.id, n)
	}
	if in {
		return r.scratchBuf(scrBytesIn, n)
	}
	return r.scratchBuf(scrBytesOut, n)
}

// neighbor returns the rank at grid offset (dx, dy), or -1 (none)
// outside the grid.
func (r *rank) neighbor(dx, dy int) int {
	gx, gy := r.w.k.gridX, r.w.k.gridY
	x, y := r.id%gx+dx, r.id/gx+dy
	if x < 0 || y < 0 || x >= gx || y >= gy {
		return -1
	}
	return y*gx + x
}

// gate is a reusable barrier for the harness (not the kernel's barrier):
// it lines the ranks up before and after every run, untimed.
type gate struct {
	mu    sync.Mutex
	cond  *sync.Cond
	n     int
	count int
	gen   int
}

// init prepares the gate for n ranks.
func (g *gate) init(n int) {
	g.n = n
	g.cond = sync.NewCond(&g.mu)
}

// wait blocks until all n ranks have arrived.
func (g *gate) wait() {
	g.mu.Lock()
	gen := g.gen
	g.count++
	if g.count == g.n {
		g.count = 0
		g.gen++
		g.cond.Broadcast()
	} else {
		for gen == g.gen {
			g.cond.Wait()
		}
	}
	g.mu.Unlock()
}
