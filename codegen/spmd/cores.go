//go:build !perfc_mpi

package spmd

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Ranks that outnumber the Ps (GOMAXPROCS) take turns on the cores. Left
// to the Go scheduler, a rank made ready by a message is put in the P of
// the rank that sent it (its runnext slot) and runs only when that rank
// waits, or when another P's sleeping thread is woken (tens of
// microseconds on a VM) and steals it; a core then idles while a ready
// rank waits on the other, and which rank runs next is the scheduler's
// choice of the moment (a stencil of 4 ranks on 2 cores left the cores
// idle 13 % of the time and ran 30–40 % longer than twice its 2-rank
// time). A coreSet schedules the ranks itself, as the emulator prices
// them (docs/emulate.md, "Ranks sharing cores"): at most C ranks hold a
// core; a rank keeps its core until it waits, then hands it to the rank
// that has been ready longest; and a core that no rank is ready for is
// held by an idler, a goroutine that spins on it, so that the next rank
// made ready is readied into the idler's P and starts there at once.
//
// Every way a rank waits goes through the coreSet in this mode: its
// blocking messages and collectives (park, from await and wait), its
// requests (block) and the harness's gate between runs (gate.waitCore).
type coreSet struct {
	mu     sync.Mutex
	queue  []*rank  // ready ranks waiting for a core, first ready first
	idle   []*idler // idlers holding a free core
	spares []*idler // idlers holding nothing, parked
	quit   bool     // the idlers end (stop)
	// queued is len(queue) and headSince when its first rank became
	// ready (ns on the runtime's clock), for the idlers to poll.
	queued    atomic.Int32
	headSince atomic.Int64
	epoch     time.Time
}

// stealAfter is how long a ready rank waits in line before an idler
// takes it to its own core. A rank made ready by a message is most often
// the one its sender hands its core to a moment later, when it waits for
// the reply (a pingpong's partners then take turns on one core, with no
// copy between cores); one that is still in line after stealAfter is
// waiting for a core that is busy computing, and an idle one takes it.
const stealAfter = 2 * time.Microsecond

// idler states: spinning on a core, parked on it (after idleSpin), or
// woken from parking by hand.
const (
	idlerSpinning int32 = iota
	idlerParked
	idlerWoken
)

// idleSpin is how long an idler spins on a free core before it parks: as
// a rank's spinBudget, long enough that a wake-up's tens of microseconds
// do not matter after it.
const idleSpin = spinBudget

// idler holds a free core for the next rank made ready.
type idler struct {
	give  atomic.Pointer[rank] // the rank to start, set by hand
	state atomic.Int32
	wake  chan struct{} // a core to hold (from spares), or a rank (when parked)
	cs    *coreSet
}

// newCoreSet returns the cores of a world whose ranks outnumber its Ps;
// its idlers run between start and stop.
func newCoreSet() *coreSet { return &coreSet{epoch: time.Now()} }

// now is the time on the set's clock, in ns.
func (c *coreSet) now() int64 { return int64(time.Since(c.epoch)) }

// start makes n idlers, each holding a free core, parked until a rank is
// made ready.
func (c *coreSet) start(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.quit = false
	for range n {
		id := c.newIdler()
		id.state.Store(idlerParked)
		c.idle = append(c.idle, id)
	}
}

// stop ends the idlers, when no rank holds a core or waits for one.
func (c *coreSet) stop() {
	c.mu.Lock()
	c.quit = true
	all := append(c.idle, c.spares...)
	c.idle, c.spares = nil, nil
	c.mu.Unlock()
	for _, id := range all {
		id.give.Store(nil)
		id.state.Store(idlerWoken)
		select {
		case id.wake <- struct{}{}:
		default:
		}
	}
}

// newIdler starts an idler, parked until it is given a core.
func (c *coreSet) newIdler() *idler {
	id := &idler{wake: make(chan struct{}, 1), cs: c}
	go id.loop()
	return id
}

// loop is an idler's life: given a core, it spins until it is handed a
// rank (parking after idleSpin), starts the rank on its own P and goes to
// the spares, where it parks until it is given a core again.
func (id *idler) loop() {
	c := id.cs
	if c.parkSpare(id, false) {
		return
	}
	for {
		r := id.awaitRank()
		if r == nil {
			return
		}
		r.run <- struct{}{}
		if c.parkSpare(id, true) {
			return
		}
	}
}

// parkSpare waits for a core, putting the idler in the spares first when
// spare; it reports whether the idlers end instead.
func (c *coreSet) parkSpare(id *idler, spare bool) bool {
	c.mu.Lock()
	if c.quit {
		c.mu.Unlock()
		return true
	}
	if spare {
		c.spares = append(c.spares, id)
	}
	c.mu.Unlock()
	<-id.wake
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.quit
}

// awaitRank waits on the idler's core until it is handed a rank or takes
// one that has been in line for stealAfter: it spins for idleSpin, then
// parks until ready or hand wakes it. It returns nil when the idlers end
// (stop wakes it with no rank).
func (id *idler) awaitRank() *rank {
	c := id.cs
	for {
		s := newSpinner(idleSpin)
		for s.more() {
			// Loads first: a swap or a compare-and-swap takes the line
			// from the core that writes it, whether it changes it or not.
			if id.give.Load() != nil {
				return id.give.Swap(nil)
			}
			if c.queued.Load() > 0 {
				if r := c.steal(id); r != nil {
					return r
				}
			}
		}
		id.state.Store(idlerParked)
		if c.queued.Load() > 0 || id.give.Load() != nil {
			if id.state.CompareAndSwap(idlerParked, idlerSpinning) {
				continue // spin on: the rank is taken next time round
			}
		}
		<-id.wake // from hand or ready (with a rank), or stop
		id.state.Store(idlerSpinning)
		return id.give.Swap(nil)
	}
}

// hand gives the idler's core to r; the idler was taken out of idle.
func (id *idler) hand(r *rank) {
	id.give.Store(r)
	if id.state.CompareAndSwap(idlerParked, idlerWoken) {
		id.wake <- struct{}{}
	}
}

// takeIdle takes an idler out of idle (c.mu held); nil when none.
func (c *coreSet) takeIdle() *idler {
	n := len(c.idle)
	if n == 0 {
		return nil
	}
	id := c.idle[n-1]
	c.idle = c.idle[:n-1]
	return id
}

// steal takes the first rank in line for idler id, when it has waited
// stealAfter, and takes id out of idle; nil otherwise.
func (c *coreSet) steal(id *idler) *rank {
	if c.now()-c.headSince.Load() < int64(stealAfter) {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	i := slices.Index(c.idle, id)
	if len(c.queue) == 0 || i < 0 || id.give.Load() != nil {
		return nil
	}
	c.idle = slices.Delete(c.idle, i, i+1)
	return c.popQueue()
}

// popQueue takes the first rank in line (c.mu held, the line not empty).
func (c *coreSet) popQueue() *rank {
	next := c.queue[0]
	n := copy(c.queue, c.queue[1:])
	c.queue[n] = nil
	c.queue = c.queue[:n]
	c.queued.Store(int32(n))
	if n > 0 {
		c.headSince.Store(c.now())
	}
	return next
}

// ready puts rank r, which waits in park for its core, in line for one:
// the next rank to wait hands it its core, or after stealAfter an idler
// takes it.
func (c *coreSet) ready(r *rank) {
	c.mu.Lock()
	c.queue = append(c.queue, r)
	if n := len(c.queue); n == 1 {
		c.headSince.Store(c.now())
		c.queued.Store(1)
	} else {
		c.queued.Store(int32(n))
	}
	// An idler that parked has seen its core idle for idleSpin: it
	// polls no more, and is woken with the first rank in line.
	for i, id := range c.idle {
		if id.state.Load() == idlerParked && id.state.CompareAndSwap(idlerParked, idlerWoken) {
			c.idle = slices.Delete(c.idle, i, i+1)
			id.give.Store(c.popQueue())
			c.mu.Unlock()
			id.wake <- struct{}{}
			return
		}
	}
	c.mu.Unlock()
}

// readyNow gives rank r, which waits for its core, a free core at once,
// or puts it in line for one: for ranks that start together (the gate),
// where no rank hands its core on soon.
func (c *coreSet) readyNow(r *rank) {
	c.mu.Lock()
	if id := c.takeIdle(); id != nil {
		c.mu.Unlock()
		id.hand(r)
		return
	}
	c.mu.Unlock()
	c.ready(r)
}

// acquire waits until the running rank r holds a core.
func (c *coreSet) acquire(r *rank) {
	c.readyNow(r)
	<-r.run
}

// release gives up the caller's core: to the rank first in line, which
// is readied into the caller's P and runs there when the caller parks,
// or to an idler that does the same.
func (c *coreSet) release() {
	c.mu.Lock()
	if len(c.queue) > 0 {
		next := c.popQueue()
		c.mu.Unlock()
		next.run <- struct{}{}
		return
	}
	var id *idler
	if n := len(c.spares); n > 0 {
		id = c.spares[n-1]
		c.spares = c.spares[:n-1]
	} else {
		// The last idler to start a rank has not reached the spares yet.
		id = c.newIdler()
	}
	id.state.Store(idlerSpinning)
	c.idle = append(c.idle, id)
	c.mu.Unlock()
	id.wake <- struct{}{}
}

// deliver is one completion of an operation rank r waits for (park): the
// last it needs makes it ready.
func (c *coreSet) deliver(r *rank) {
	if r.pend.Add(1) == 0 {
		c.ready(r)
	}
}

// park waits for n completions of the rank's posted operations, giving
// its core up meanwhile; it returns holding a core. Completions that came
// before it (pend counts them) are taken at once.
func (r *rank) park(n int) {
	if r.pend.Add(int32(-n)) == 0 {
		return
	}
	c := r.w.cores
	c.release()
	<-r.run
}

// wakeRank tells rank r that an operation it waits for has completed.
func (w *world) wakeRank(r *rank) {
	if w.cores != nil {
		w.cores.deliver(r)
		return
	}
	r.wake <- struct{}{}
}

// waitCore is the gate of a world whose ranks share cores: a rank that
// arrives gives up its core and waits; the last one makes the others
// ready, in the order they arrived, and keeps its core. It returns the
// time the gate opened, every rank's start of the run that follows.
func (g *gate) waitCore(r *rank, c *coreSet) time.Time {
	g.mu.Lock()
	g.count++
	if g.count < g.n {
		g.waiters = append(g.waiters, r)
		g.mu.Unlock()
		c.release()
		<-r.run
		return g.opened
	}
	g.count = 0
	g.opened = time.Now()
	waiters := g.waiters
	g.waiters = g.waiters[:0]
	opened := g.opened
	for _, o := range waiters {
		c.readyNow(o)
	}
	g.mu.Unlock()
	return opened
}
