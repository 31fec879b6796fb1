//go:build !perfc_mpi

package spmd

import (
	"sync"
	"sync/atomic"
	"time"
)

// Ranks that outnumber the Ps (GOMAXPROCS) take turns on the cores, and
// each rank has a core of its own to take turns on: rank r runs on core
// r mod C, as Open MPI places ranks that oversubscribe a node's cores
// (round robin over the cores) and binds them. Left to the Go scheduler,
// a rank made ready by a message is put in the P of the rank that sent
// it (its runnext slot) and runs only when that rank waits, or when
// another P's sleeping thread is woken (tens of microseconds on a VM) and
// steals it; a core then idles while a ready rank waits on the other. A
// coreSet schedules the ranks itself, as the emulator prices them
// (docs/emulate.md, "Ranks sharing cores"): a core is held by one of its
// ranks at a time, which keeps it until it waits and then hands it to the
// rank of that core that has been ready longest; a core none of whose
// ranks is ready is held by an idler, a goroutine that spins on it, so
// that the next of its ranks made ready starts there at once.
//
// Why a core of its own: with one line for every core (the coreSet of
// 2026-11-26, session 11) a rank ran wherever a core came free, and a
// rank that computes a few microseconds between messages moved between
// the cores at almost every message, its arrays following it: halo2d on
// 2 x 2 ranks of 32 x 32 points took 150-300 us a run on 2 cores, where
// the same program on one P (GOMAXPROCS=1) took 100 us, and a stencil
// sweep of 0.94 us measured 3.3 us after a move (docs/codegen.md, "How a
// rank waits").
//
// Every way a rank waits goes through the coreSet in this mode: its
// blocking messages and collectives (park, from await and wait), its
// requests (block) and the harness's gate between runs (gate.waitCore).
type coreSet struct {
	cores []*core
}

// core is one core's line of ready ranks and its idler. Each is its own
// allocation, apart from the others: an idler polls its core's queued
// without taking the line of another core's lock.
type core struct {
	mu     sync.Mutex
	queue  []*rank  // ready ranks of this core waiting for it, first ready first
	idle   *idler   // the idler holding the core; nil when a rank holds it
	spares []*idler // idlers holding nothing, parked
	// queued is len(queue), for the idler to poll; stopped tells the
	// idlers, spinning or parked in the spares, to end (stop).
	queued  atomic.Int32
	stopped atomic.Bool
	_       [64]byte // keeps the next allocation's lines apart
}

// idler holds a free core for the next of its ranks made ready. It spins
// on the core for as long as it holds it, yielding its P every spinYield,
// and never parks there: a goroutine is readied into the P of the one
// that readies it, so an idler that parked and was woken by a rank of
// another core ran on that rank's P, and so did the rank it started:
// the two cores' ranks then took turns on one P while the other idled.
// A calibration kernel's pingpong between ranks 0 and 1 of 4 on 2 cores
// (the idlers had parked after 10 ms with nothing to do, before its
// first region) measured 1.34 us a message in that state and 0.47 us
// with idlers that spin (2026-11-26, session 17, run by hand one after
// the other).
type idler struct {
	give atomic.Pointer[rank] // the rank to start, set by hand
	wake chan struct{}        // the core to hold again (from spares), or stop
	c    *core
}

// newCoreSet returns n cores for a world whose ranks outnumber its Ps;
// their idlers run between start and stop.
func newCoreSet(n int) *coreSet {
	cs := &coreSet{}
	for range n {
		cs.cores = append(cs.cores, &core{})
	}
	return cs
}

// coreOf is the core rank r takes turns on.
func (cs *coreSet) coreOf(r *rank) *core { return cs.cores[r.id%len(cs.cores)] }

// start gives every core an idler that spins on it, and returns when each
// spins: C goroutines that spin at once hold the C Ps, one each, and the
// first ranks handed to an idler are readied into its P. A core's ranks
// are readied only by that core's goroutines (its holder or its idler),
// so they stay on that P, and the cores' ranks on distinct Ps.
func (cs *coreSet) start() {
	var spinning sync.WaitGroup
	spinning.Add(len(cs.cores))
	for _, c := range cs.cores {
		c.mu.Lock()
		c.stopped.Store(false)
		id := &idler{wake: make(chan struct{}, 1), c: c}
		c.idle = id
		c.mu.Unlock()
		go id.hold(&spinning)
	}
	spinning.Wait()
}

// stop ends the idlers, when no rank holds a core or waits for one.
func (cs *coreSet) stop() {
	for _, c := range cs.cores {
		c.mu.Lock()
		c.stopped.Store(true)
		spares := c.spares
		c.idle, c.spares = nil, nil
		c.mu.Unlock()
		for _, id := range spares {
			select {
			case id.wake <- struct{}{}:
			default:
			}
		}
	}
}

// newIdler starts an idler of core c, parked in the spares' way until it
// is given the core.
func (c *core) newIdler() *idler {
	id := &idler{wake: make(chan struct{}, 1), c: c}
	go id.loop()
	return id
}

// loop is a spare idler's life: it parks until it is given its core, then
// holds it (hold).
func (id *idler) loop() {
	if id.c.parkSpare(id, false) {
		return
	}
	id.hold(nil)
}

// hold is an idler's life on its core: it spins until it is handed a rank
// or one of the core's ranks is in line, starts the rank on its own P and
// goes to the spares, where it parks until it is given the core again.
// spinning, when not nil, learns that it spins.
func (id *idler) hold(spinning *sync.WaitGroup) {
	c := id.c
	if spinning != nil {
		spinning.Done()
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

// parkSpare waits for the core, putting the idler in the spares first
// when spare; it reports whether the idlers end instead.
func (c *core) parkSpare(id *idler, spare bool) bool {
	c.mu.Lock()
	if c.stopped.Load() {
		c.mu.Unlock()
		return true
	}
	if spare {
		c.spares = append(c.spares, id)
	}
	c.mu.Unlock()
	<-id.wake
	return c.stopped.Load()
}

// awaitRank spins on the idler's core until it is handed a rank or one of
// the core's ranks is in line, and returns it; nil when the idlers end.
func (id *idler) awaitRank() *rank {
	c := id.c
	for s := newSpinner(forever); s.more(); {
		// Loads first: a swap or a compare-and-swap takes the line from
		// the core that writes it, whether it changes it or not.
		if id.give.Load() != nil {
			return id.give.Swap(nil)
		}
		if c.queued.Load() > 0 {
			if r := c.take(id); r != nil {
				return r
			}
		}
		if c.stopped.Load() {
			return nil
		}
	}
	return nil
}

// forever is a spin with no end.
const forever = time.Duration(1<<63 - 1)

// hand gives the idler's core to r; the idler was taken out of idle.
func (id *idler) hand(r *rank) { id.give.Store(r) }

// take gives idler id, which holds core c, the first rank in line; nil
// when the line is empty or id no longer holds the core.
func (c *core) take(id *idler) *rank {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.queue) == 0 || c.idle != id || id.give.Load() != nil {
		return nil
	}
	c.idle = nil
	return c.popQueue()
}

// popQueue takes the first rank in line (c.mu held, the line not empty).
func (c *core) popQueue() *rank {
	next := c.queue[0]
	n := copy(c.queue, c.queue[1:])
	c.queue[n] = nil
	c.queue = c.queue[:n]
	c.queued.Store(int32(n))
	return next
}

// ready puts rank r, which waits in park for its core, in line for it:
// the core's idler starts it at once, or the rank that holds the core
// hands it over when it waits.
func (cs *coreSet) ready(r *rank) {
	c := cs.coreOf(r)
	c.mu.Lock()
	c.queue = append(c.queue, r)
	c.queued.Store(int32(len(c.queue)))
	c.mu.Unlock()
}

// readyNow gives rank r, which waits for its core, the core at once when
// an idler holds it, or puts it in line: for ranks that start together
// (the gate), where no rank hands its core on soon.
func (cs *coreSet) readyNow(r *rank) {
	c := cs.coreOf(r)
	c.mu.Lock()
	if id := c.idle; id != nil {
		c.idle = nil
		c.mu.Unlock()
		id.hand(r)
		return
	}
	c.mu.Unlock()
	cs.ready(r)
}

// acquire waits until the running rank r holds its core.
func (cs *coreSet) acquire(r *rank) {
	cs.readyNow(r)
	<-r.run
}

// release gives up the core rank r holds: to the first of its ranks in
// line, which is readied into the caller's P and runs there when the
// caller parks, or to an idler that does the same.
func (cs *coreSet) release(r *rank) {
	c := cs.coreOf(r)
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
	c.idle = id
	c.mu.Unlock()
	id.wake <- struct{}{}
}

// deliver is one completion of an operation rank r waits for (park): the
// last it needs makes it ready.
func (cs *coreSet) deliver(r *rank) {
	if r.pend.Add(1) == 0 {
		cs.ready(r)
	}
}

// park waits for n completions of the rank's posted operations, giving
// its core up meanwhile; it returns holding its core. Completions that
// came before it (pend counts them) are taken at once.
func (r *rank) park(n int) {
	if r.pend.Add(int32(-n)) == 0 {
		return
	}
	r.w.cores.release(r)
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
		c.release(r)
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
