//go:build !perfc_mpi

package spmd

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
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
	k     *kernelDesc
	size  int
	ranks []*rank
	progs []rankProgram
	slots []atomic.Pointer[slot] // [(dst*size+src)*numContexts+ctx], allocated on first use
	// boxes are the mailboxes of a kernel with requests, [src*size+dst]
	// (requests.go); nil otherwise.
	boxes  []atomic.Pointer[mailbox]
	gate   gate  // synchronises the ranks between runs
	crew   *crew // the ranks' goroutines while kept (world_run.go)
	stderr io.Writer
	// exit ends the program after a fatal error (os.Exit in a program; a
	// test substitutes its own).
	exit   func(code int)
	once   sync.Once     // the first fatal error wins
	period time.Duration // how often the watchdog looks
	poll   pollPolicy    // how long a waiting rank polls before it parks (poll.go)
	// cores schedules the ranks on the Ps when they outnumber them
	// (cores.go); nil when every rank has a P of its own.
	cores *coreSet
}

// rank is one rank's view of the world: its identity, its wake-up
// channel, its counters, timers and scratch buffers.
type rank struct {
	// What every message reads, together at the start (one cache line):
	// the 8 KiB copy of a pingpong evicts much of the first-level cache,
	// and each line a message touches beyond it costs a miss.
	id   int
	size int           // ranks in the world
	wake chan struct{} // one token per completed operation this rank waits for
	// run hands the rank a core, and pend counts completions against the
	// operations it parked for, when ranks share cores (cores.go).
	run  chan struct{}
	pend atomic.Int32
	// The slots of the last message this rank sent and received: a rank
	// mostly talks to the same peers again, and then finds the slot here
	// rather than in the world's slot array, a line further away.
	out, in *slot

	w *world

	state atomic.Int32 // stateRunning or stateDone

	rankCommon

	// rq holds the requests of a kernel that posts them (requests.go);
	// its user messages then go through the world's mailboxes.
	rq *reqState
}

// newWorld creates the ranks of kernel k and their programs.
func newWorld(k *kernelDesc, stderr io.Writer, exit func(int)) *world {
	w := &world{k: k, size: k.ranks, stderr: stderr, exit: exit, period: watchPeriod, poll: pollFor(k.ranks)}
	w.slots = make([]atomic.Pointer[slot], k.ranks*k.ranks*numContexts)
	w.gate.init(k.ranks, w.poll)
	if k.ranks > runtime.GOMAXPROCS(0) {
		w.cores = newCoreSet(runtime.GOMAXPROCS(0))
	}
	if len(k.requests) > 0 {
		w.boxes = make([]atomic.Pointer[mailbox], k.ranks*k.ranks)
	}
	for id := 0; id < k.ranks; id++ {
		r := &rank{id: id, size: k.ranks, w: w, wake: make(chan struct{}, 2), run: make(chan struct{}, 1), rankCommon: newRankCommon(k)}
		if len(k.requests) > 0 {
			r.initRequests(k)
		}
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
func (w *world) stmtOf(site int) string { return w.k.stmtOf(site) }

// slotIndex is the index in world.slots of the slot of messages from src
// to dst in context ctx: both contexts of a pair are adjacent.
func slotIndex(size, ctx, src, dst int) int { return (dst*size+src)*numContexts + ctx }

// slotAt returns slot i, of messages from src to dst.
func (w *world) slotAt(i, src, dst int) *slot {
	if s := w.slots[i].Load(); s != nil {
		return s
	}
	return w.newSlot(i, src, dst)
}

// newSlot allocates slot i, of messages from src to dst, on first use (a
// kernel uses few of the P*P pairs); the first of the two ranks to get
// there wins.
func (w *world) newSlot(i, src, dst int) *slot {
	p := &w.slots[i]
	s := &slot{index: i}
	s.peer[sendSide], s.peer[recvSide] = w.ranks[src], w.ranks[dst]
	p.CompareAndSwap(nil, s)
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

// The two sides of a slot: indices of its fields.
const (
	sendSide = iota
	recvSide
)

// slot is the rendezvous of one ordered pair of ranks in one context.
// Sends and receives are blocking, so at most one of each is posted; each
// side writes only its own bytes, then publishes them with one atomic
// operation on word, which also carries its site. The side that arrives
// second is then the only one that may touch the slot: it copies, marks
// the rendezvous complete with a store and wakes the other.
//
// A slot is 64 bytes, allocated in the 64-byte size class, so it lies on
// one cache line: hence the bytes as pointer and length rather than as
// slices, and its two ranks (whose wake-up channels it uses) and its index (fixed
// when it is made) kept here rather than read from elsewhere.
type slot struct {
	word atomic.Uint64
	// side[sendSide] is the sender's data, side[recvSide] the receiver's
	// buffer, each written by its side before it posts.
	side  [2]payload
	peer  [2]*rank // [sendSide] the sender, [recvSide] the receiver
	index int      // in world.slots
}

// payload is a byte slice without its capacity.
type payload struct {
	p unsafe.Pointer
	n int
}

// set makes the payload b.
func (pl *payload) set(b []byte) { pl.p, pl.n = unsafe.Pointer(unsafe.SliceData(b)), len(b) }

// bytes returns the payload as a slice.
func (pl *payload) bytes() []byte { return unsafe.Slice((*byte)(pl.p), pl.n) }

// posting is the word of a slot whose operation of kind is posted at site.
func posting(word uint64, kind, site int) uint64 {
	return word>>genShift<<genShift | uint64(uint32(site))<<siteShift | uint64(kind)
}

// postedSite is the site of the operation posted in word.
func postedSite(word uint64) int { return int(int32(uint32(word >> siteShift))) }

// claimed is the word of a slot after its posted operation completed.
func claimed(word uint64) uint64 { return (word>>genShift + 1) << genShift }

// offerSend delivers data to rank to if it waits in a receive, or posts
// it. It reports whether the caller must wait for the receiver. A
// destination of -1 (none) does nothing; a user message is counted.
//
// A message is one pass through offerSend and one through offerRecv, with
// one atomic operation each (the first to arrive posts with a
// compare-and-swap, the second completes with a store); beyond the copy
// and the wake-up (a channel operation on each side, as a hand-written
// channel pingpong makes), that is all a message costs, so they are
// written for the common case: the slot is the one last used, and the
// other side's state is one load away.
func (r *rank) offerSend(ctx, to int, data []byte, site int) bool {
	if uint(to) >= uint(r.size) {
		return r.noPeer(to, site, "the destination")
	}
	if counting && ctx == ctxUser {
		r.countMessage(site, to, len(data))
	}
	s := r.out
	if i := slotIndex(r.size, ctx, r.id, to); s == nil || s.index != i {
		s = r.w.slotAt(i, r.id, to)
		r.out = s
	}
	word := s.word.Load()
	if word&postedMask != slotRecv {
		s.side[sendSide].set(data)
		if s.word.CompareAndSwap(word, posting(word, slotSend, site)) {
			return true
		}
		// The receiver posted in between: it waits now.
		word = s.word.Load()
	}
	buf := s.side[recvSide].bytes()
	if len(buf) != len(data) {
		r.w.sizeError(r.id, to, len(data), len(buf), site, postedSite(word))
	}
	copy(buf, data)
	s.word.Store(claimed(word))
	r.w.wakeRank(s.peer[recvSide])
	return false
}

// offerRecv takes data from rank from if it waits in a send, or posts
// buf. It reports whether the caller must wait for the sender. A source
// of -1 (none) does nothing; a user message is counted.
func (r *rank) offerRecv(ctx, from int, buf []byte, site int) bool {
	if uint(from) >= uint(r.size) {
		return r.noPeer(from, site, "the source")
	}
	if counting && ctx == ctxUser {
		r.countMessage(site, from, len(buf))
	}
	s := r.in
	if i := slotIndex(r.size, ctx, from, r.id); s == nil || s.index != i {
		s = r.w.slotAt(i, from, r.id)
		r.in = s
	}
	word := s.word.Load()
	if word&postedMask != slotSend {
		s.side[recvSide].set(buf)
		if s.word.CompareAndSwap(word, posting(word, slotRecv, site)) {
			return true
		}
		word = s.word.Load()
	}
	data := s.side[sendSide].bytes()
	if len(data) != len(buf) {
		r.w.sizeError(from, r.id, len(data), len(buf), postedSite(word), site)
	}
	copy(buf, data)
	s.word.Store(claimed(word))
	r.w.wakeRank(s.peer[sendSide])
	return false
}

// sizeError stops the program on a message that does not fit: a send and
// the receive it meets must move the same number of bytes.
func (w *world) sizeError(src, dst, sent, room, sendSite, recvSite int) {
	w.fatalf("rank %d sends %d B to rank %d (%s), but rank %d receives %d B (%s); a send and its receive must move the same bytes",
		src, sent, dst, w.k.stmtOf(sendSite), dst, room, w.k.stmtOf(recvSite))
}

// send is `send buf to peer`: blocking until the receiver has the bytes.
// A peer of -1 (none) does nothing. send and recv are small enough to
// inline into the kernel body, so that a rank that waits parks in the
// body's own frame: after the wake-up it returns through no other frame,
// whose stack lines the message's copy would have evicted.
func (r *rank) send(site, to int, buf []byte) {
	if r.rq != nil {
		r.mailSend(site, to, buf)
		return
	}
	if r.offerSend(ctxUser, to, buf, site) {
		r.await()
	}
}

// recv is `recv buf from peer`: blocking until the bytes have arrived.
func (r *rank) recv(site, from int, buf []byte) {
	if r.rq != nil {
		r.mailRecv(site, from, buf)
		return
	}
	if r.offerRecv(ctxUser, from, buf, site) {
		r.await()
	}
}

// sendrecv sends sbuf to `to` and receives rbuf from `from` at the same
// time, so that a ring of sendrecvs cannot deadlock. Both peers are
// checked before either message is offered.
func (r *rank) sendrecv(sendSite, recvSite, to int, sbuf []byte, from int, rbuf []byte) {
	r.checkPeer(to, sendSite, "the destination")
	r.checkPeer(from, recvSite, "the source")
	if r.rq != nil {
		r.mailSendrecv(sendSite, recvSite, to, sbuf, from, rbuf)
		return
	}
	pending := 0
	if r.offerSend(ctxUser, to, sbuf, sendSite) {
		pending++
	}
	if r.offerRecv(ctxUser, from, rbuf, recvSite) {
		pending++
	}
	r.wait(pending)
}

// xsend, xrecv and xsendrecv are the collectives' internal messages:
// blocking rendezvous in the collective context, not counted.
func (r *rank) xsend(to int, buf []byte) {
	if r.offerSend(ctxColl, to, buf, r.site) {
		r.await()
	}
}

func (r *rank) xrecv(from int, buf []byte) {
	if r.offerRecv(ctxColl, from, buf, r.site) {
		r.await()
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

// gate is a reusable barrier for the harness (not the kernel's barrier):
// it lines the ranks up before and after every run, untimed. Its ranks
// spin as they do in the kernel's waits (poll.go), so that a run starts
// with every rank on its own core: a rank parked at the gate would be
// readied into the last one's P and start the run tens of microseconds
// late, every run (docs/predict.md, "Waking a rank"). The last rank to
// arrive opens its latch.
type gate struct {
	latch
	n     int
	count int // ranks arrived, under the latch's mutex
	// waiters and opened are the ranks waiting and the time the gate
	// last opened, when ranks share cores (waitCore, cores.go).
	waiters []*rank
	opened  time.Time
}

// latch lets waiters through every time it opens: the ranks' start of a
// call of runs (world_run.go). Waiters spin for its spin before they
// park, as at the gate; the goroutine that opens it never waits.
type latch struct {
	mu   sync.Mutex
	cond *sync.Cond
	gen  atomic.Int64
	spin time.Duration
}

// init prepares the latch for waiters that spin for spin.
func (l *latch) init(spin time.Duration) {
	l.cond = sync.NewCond(&l.mu)
	l.spin = spin
}

// open lets every waiter through.
func (l *latch) open() {
	l.mu.Lock()
	l.gen.Add(1)
	l.cond.Broadcast()
	l.mu.Unlock()
}

// await waits until the latch opens after the opening seen, and returns
// the opening it saw.
func (l *latch) await(seen int64) int64 {
	if l.spin > 0 {
		s := newSpinner(l.spin)
		for l.gen.Load() == seen && s.more() {
		}
	}
	l.mu.Lock()
	for l.gen.Load() == seen {
		l.cond.Wait()
	}
	gen := l.gen.Load()
	l.mu.Unlock()
	return gen
}

// gateSpin is how long a rank spins at the gate before it parks: the
// ranks' untimed re-initialisation of their data, which it waits for,
// takes milliseconds for a kernel of hundreds of MiB.
const gateSpin = time.Second

// init prepares the gate for n ranks that wait as poll says.
func (g *gate) init(n int, poll pollPolicy) {
	g.n = n
	spin := time.Duration(0)
	if poll.budget > 0 {
		spin = gateSpin
	}
	g.latch.init(spin)
}

// wait blocks until all n ranks have arrived.
func (g *gate) wait() {
	g.mu.Lock()
	gen := g.gen.Load()
	g.count++
	last := g.count == g.n
	if last {
		g.count = 0
	}
	g.mu.Unlock()
	if last {
		// No rank can reach the next wait before this one opens.
		g.open()
		return
	}
	g.await(gen)
}
