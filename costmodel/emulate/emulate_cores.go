package emulate

import (
	"cmp"
	"container/heap"
	"errors"
	"math"
	"slices"
	"unsafe"

	"perfc/analyze"
	"perfc/lang"
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
	// TimeSlice is how long, in seconds, a rank computes on a core before
	// it goes to the back of the run queue when other ranks wait for one:
	// +Inf when a rank keeps its core until it waits, as the goroutine
	// runtime's ranks do (codegen/spmd/cores.go); an operating system's
	// scheduler slices processes (MPI ranks) every few milliseconds.
	TimeSlice() float64
}

// RankBinder is implemented by a CoreSharer that says where ranks run.
// BindsRanks true: each rank takes turns on one core of its own, rank r on
// core r mod C, as the goroutine runtime schedules them
// (codegen/spmd/cores.go) and as Open MPI places ranks that oversubscribe
// a node (round robin over its cores) when it binds them. False, or a
// CoreSharer without the method: a rank runs on whichever core is free
// first, as an operating system's scheduler moves unbound processes.
type RankBinder interface {
	BindsRanks() bool
}

// coreState is the run queue and the cores of an emulation whose ranks
// share cores (docs/emulate.md, "Ranks sharing cores"), modelled on the
// goroutine runtime's coreSet (codegen/spmd/cores.go) with GOMAXPROCS = C:
//
//   - A rank computes only on a core. A rank without one that reaches a
//     compute segment queues for a core; cores go to the ranks in the
//     order they became ready (first in, first out), each to the core
//     that is free first, or with bound ranks (RankBinder) to the rank's
//     own core, r mod C: a message is copied on the core of the side
//     that copies it.
//   - A rank keeps its core while it runs: from one compute segment to the
//     next (a region boundary is not a switch), through communication that
//     does not wait, and through the copy of a blocking message whose
//     partner waits for it (whichever side arrives second copies the
//     bytes: docs/codegen.md). It gives its core up when it waits (for a
//     message, a collective) and when it finishes; after a time slice
//     (CoreSharer.TimeSlice, when finite) it goes to the back of the queue
//     if a rank is waiting.
//   - A rank that resumes after a wait has no core; its next compute
//     segment or copy queues for one. A blocking message whose second side
//     arrives without a core queues for one as a copy.
//   - A blocking message between ranks that share cores costs its price
//     and the switch (CoreSharer.CoreSwitch): the partner parked, and is
//     woken.
//
// Grants are made only when no rank can move (emulator.run), as link
// grants are: every rank then waits for a message, a collective or a core,
// so any request not yet made comes from a rank that some grant still to
// be made will wake, at or after that grant's start. The earliest request
// waiting is therefore the earliest there will be, and the order is exact.
// A rank that keeps its core runs on at once: no grant can take its core
// meanwhile.
type coreState struct {
	free     coreHeap   // the cores no rank holds, by when they are free
	held     []coreSlot // by core: the state of a core while a rank holds it
	ranks    []coreRank // by rank
	queue    requestQueue
	seq      int64   // the order of requests of the same time
	switchAt float64 // CoreSwitch: added to every blocking message
	slice    float64 // TimeSlice: +Inf when a rank keeps its core until it waits
	bound    bool    // RankBinder: rank r runs on core r mod C only
	// committed is, by core, when the exchanges pairCopier gave the core
	// end, were they copied one after another from when they were posted.
	committed []float64
	// shared prices long copies by the copies beside them; nil when the
	// pricer's prices have no slowdown of copies at once (SharedCopier).
	shared *sharedCopies
}

// coreRank is what a rank's sharing of the cores needs beside its
// rankState (kept apart so that an emulation without sharing carries none
// of it): the time it was ready without a core, the part of its current
// event's wait that was for a core (moveCoreWait), the core it holds (-1:
// none), when its time slice ends, the copy it made last on its core, and
// the last exchange whose halves it copied or left to its partner
// (pairCopier).
type coreRank struct {
	coreWait, coreWaitEv float64
	sliceEnd             float64
	copyStart, busyUntil float64
	copyPrev             pathRef // what bound the last copy's start, unless copyVia is viaProgram
	copyVia              pathVia
	core                 int32
	exchange             exchangeCopy
}

// exchangeCopy is a rank's last exchange with whole-event halves: the
// partner (-1: none yet), the wave of the rank's send half, and whether
// the rank copied it.
type exchangeCopy struct {
	peer, wave int64
	copied     bool
}

// coreRankBytes is the memory sharing cores takes per rank beside the
// rankState: its coreRank and a request in the run queue.
const coreRankBytes = int64(unsafe.Sizeof(coreRank{}) + unsafe.Sizeof(coreRequest{}))

// coreSlot is one core: when it is free, and the path of the stretch that
// ended on it then, which a rank that waited for it continues.
type coreSlot struct {
	free float64
	prev pathRef
	id   int32
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

// newCoreState returns the cores of an emulation of k's ranks under p, or
// nil when every rank has a core of its own; past the memory budget of
// limits (the ranks and their core state together) it is an error.
func newCoreState(k *lang.Checked, p Pricer, limits EmulateLimits) (*coreState, error) {
	n := k.NumRanks()
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
	slice := cs.TimeSlice()
	if !(slice > 0) {
		return nil, errors.New("emulate: the pricer's time slice is not positive (+Inf: no slices)")
	}
	if p.Cluster() != nil {
		return nil, errors.New("emulate: a machine whose ranks share cores cannot also be a cluster of SMP nodes: give cores or cluster, not both")
	}
	if emulationMemory(n)+float64(n*coreRankBytes) > float64(limits.memory()) {
		return nil, coresMemoryError(k, limits)
	}
	st := &coreState{switchAt: sw, slice: slice, free: make(coreHeap, c), held: make([]coreSlot, c), committed: make([]float64, c), ranks: make([]coreRank, n)}
	if b, ok := p.(RankBinder); ok {
		st.bound = b.BindsRanks()
	}
	st.shared = newSharedCopies(p)
	for r := range st.ranks {
		st.ranks[r].core = -1
		st.ranks[r].exchange.peer = -1
	}
	for i := range st.free {
		st.free[i] = coreSlot{prev: emptyPath, id: int32(i)}
	}
	return st, nil
}

// request queues a request.
func (st *coreState) request(q coreRequest) {
	q.seq = st.seq
	st.seq++
	heap.Push(&st.queue, q)
}

// take removes from the free cores the one rank r computes or copies on,
// and returns it: the core free first, or with bound ranks the rank's own
// (every core is free when a grant is made: emulator.run).
func (st *coreState) take(r int64) coreSlot {
	if st.bound {
		id := int32(r % int64(len(st.held)))
		for i, c := range st.free {
			if c.id == id {
				return heap.Remove(&st.free, i).(coreSlot)
			}
		}
	}
	return heap.Pop(&st.free).(coreSlot)
}

// computeShared runs rank r's compute segment of the given cost when
// ranks share cores: on the rank's core if it holds one (until a time
// slice ends with a rank waiting), or it queues for a core. It reports
// whether the rank must wait.
func (em *emulator) computeShared(r int64, rs *rankState, cost float64, region string) (waits bool) {
	if em.cores.ranks[r].core < 0 {
		rs.blocked = true
		em.cores.request(coreRequest{ready: rs.clock, rank: int32(r), dst: -1, left: cost, region: region})
		return true
	}
	return em.runOnCore(r, rs, coreRequest{ready: rs.clock, rank: int32(r), dst: -1, left: cost, region: region}, rs.clock, &emptyPath, viaProgram)
}

// runOnCore runs the compute of q on the core rank r holds from start
// (after waiting since q.ready, bound by prev when it waited) until it is
// done or its time slice ends while a rank waits for a core; then it
// gives the core up and queues for the rest. It reports whether the rank
// must wait.
func (em *emulator) runOnCore(r int64, rs *rankState, q coreRequest, start float64, prev *pathRef, via pathVia) (waits bool) {
	st := em.cores
	cr := &st.ranks[r]
	end := start + q.left
	cut := false
	if st.queue.Len() > 0 && end > cr.sliceEnd {
		// The slice ends at the first slice boundary at which a rank waits
		// for a core.
		if at, ok := em.firstWait(max(start, cr.sliceEnd), end); ok {
			cr.sliceEnd = at
			end, cut = at, true
		}
	}
	if end > start || start > q.ready {
		em.computeOnCore(r, rs, q, start, end, prev, via)
	}
	if cut {
		left := q.left - (end - start)
		em.events++ // a slice costs the emulation as much as an event
		if em.events > em.evBudget && em.budgetErr == nil {
			em.budgetErr = em.eventBudgetError(r, rs, &analyze.Event{Kind: analyze.EvCompute})
			em.checkAt = 0
		}
		em.releaseCore(r, rs)
		q.ready, q.left = end, left
		rs.blocked = true
		st.request(q)
		return true
	}
	return false
}

// firstWait returns the first slice boundary in [from, to) (from is one)
// at which some rank waits for a core while the running rank computes, or
// ok false when none does before to. It serves the earliest requests
// (at most maxLookahead) first in first out on the other cores, each
// holding its core for the work it is known to need (the rest of its
// compute segment, or its copy): a rank that computes on after that holds
// its core longer, so this may find a wait later than the run does, never
// one that does not happen.
func (em *emulator) firstWait(from, to float64) (at float64, ok bool) {
	st := em.cores
	frees := make([]float64, len(st.free))
	for i, c := range st.free {
		frees[i] = c.free
	}
	return firstWaitOf(st.earliest(maxLookahead), frees, from, to, st.slice, func(q coreRequest) float64 {
		if q.dst >= 0 {
			return em.ranks[q.rank].send.cost + st.switchAt
		}
		return q.left
	})
}

// firstWaitOf is firstWait for the requests reqs, earliest first, on cores
// free at frees (which it changes), each request holding its core for
// work(request), with slices of slice.
func firstWaitOf(reqs []coreRequest, frees []float64, from, to, slice float64, work func(coreRequest) float64) (at float64, ok bool) {
	best := math.Inf(1)
	for _, q := range reqs {
		if q.ready >= min(best, to) {
			break
		}
		i, start := -1, math.Inf(1) // no other core: it waits for the running rank's
		if len(frees) > 0 {
			i = slices.Index(frees, slices.Min(frees)) // the core free first
			start = max(q.ready, frees[i])
		}
		if start > q.ready {
			// It waits from q.ready to start: the first boundary then.
			t := from
			if q.ready > from {
				t = from + slice*math.Ceil((q.ready-from)/slice)
			}
			if t < start {
				best = min(best, t)
			}
		}
		if i < 0 {
			break
		}
		frees[i] = start + work(q)
	}
	return best, best < to
}

// SharedMakespan is the time ranks that each compute for d seconds from
// time 0, and nothing else, take on cores shared cores under the
// emulator's rules (coreState) with time slices of slice: ⌈ranks/cores⌉·d
// when d is at most a slice (always, when slice is +Inf); for longer
// computes the ranks take turns a slice at a time, and the time tends to
// ranks·d/cores. With cores ≤ 0 or at least ranks, every rank has its own
// core: d. The region table (costmodel) scales a region's time by
// SharedMakespan(d)/d.
func SharedMakespan(d float64, ranks int64, cores int, slice float64) float64 {
	if cores <= 0 || ranks <= int64(cores) || !(d > 0) {
		return d
	}
	if d <= slice {
		return float64((ranks+int64(cores)-1)/int64(cores)) * d
	}
	if slices := float64(ranks) * math.Ceil(d/slice); slices > maxSimulatedSlices || math.IsInf(d, 0) {
		return float64(ranks) * d / float64(cores) // within a slice of it
	}
	queue := make(requestQueue, 0, ranks)
	for r := range ranks {
		queue = append(queue, coreRequest{ready: 0, seq: r, rank: int32(r), dst: -1, left: d})
	}
	seq := ranks
	frees := make([]float64, cores)
	end := 0.0
	for queue.Len() > 0 {
		q := heap.Pop(&queue).(coreRequest)
		i := slices.Index(frees, slices.Min(frees))
		start := max(q.ready, frees[i])
		stop := start + q.left
		if queue.Len() > 0 {
			others := slices.Delete(slices.Clone(frees), i, i+1)
			reqs := slices.Clone(queue)
			slices.SortFunc(reqs, func(a, b coreRequest) int {
				if a.ready != b.ready {
					return cmp.Compare(a.ready, b.ready)
				}
				return cmp.Compare(a.seq, b.seq)
			})
			if at, ok := firstWaitOf(reqs[:min(len(reqs), maxLookahead)], others, start+slice, stop, slice, func(q coreRequest) float64 { return q.left }); ok {
				q.ready, q.left, q.seq = at, q.left-(at-start), seq
				seq++
				heap.Push(&queue, q)
				stop = at
			}
		}
		frees[i] = stop
		end = max(end, stop)
	}
	return end
}

// maxSimulatedSlices bounds the slices SharedMakespan simulates.
const maxSimulatedSlices = 1 << 14

// maxLookahead bounds the requests firstWait serves ahead: enough for a
// few rounds of a few cores, and a bound on the work per slice.
const maxLookahead = 64

// earliest returns the n earliest requests (or all, when fewer wait),
// earliest first, walking the queue's heap best first.
func (st *coreState) earliest(n int) []coreRequest {
	q := st.queue
	var out []coreRequest
	frontier := []int{0}
	for len(out) < n && len(frontier) > 0 && len(q) > 0 {
		best := 0
		for i, x := range frontier {
			if q.Less(x, frontier[best]) {
				best = i
			}
		}
		x := frontier[best]
		frontier = slices.Delete(frontier, best, best+1)
		out = append(out, q[x])
		for _, c := range []int{2*x + 1, 2*x + 2} {
			if c < len(q) {
				frontier = append(frontier, c)
			}
		}
	}
	return out
}

// grantCore gives the earliest request the core free first, from when
// both are ready: a compute segment runs on it, and its rank keeps it; a
// message is copied on it, and the side that arrived second keeps it.
func (em *emulator) grantCore() error {
	st := em.cores
	q := heap.Pop(&st.queue).(coreRequest)
	on := int64(q.rank)
	if q.dst >= 0 {
		on = em.copier(on, int64(q.dst))
	}
	c := st.take(on)
	start := max(q.ready, c.free)
	if start > em.until {
		em.res.Truncated = true // past the end of a truncated run: the rank stays where it is
		heap.Push(&st.free, c)
		return nil
	}
	em.current = -1
	prev, via := &emptyPath, viaProgram
	if start > q.ready {
		prev, via = &c.prev, viaCore
	}
	r := int64(q.rank)
	if q.dst < 0 {
		rs := &em.ranks[r]
		em.hold(r, c, start)
		if !em.runOnCore(r, rs, q, start, prev, via) {
			rs.blocked = false
			em.wakeOther(r)
		}
		return em.budgetErr
	}
	d := int64(q.dst)
	copier := em.copier(r, d)
	cs := &em.ranks[copier]
	em.hold(copier, c, start)
	em.copyOnCore(r, d, q.ready, start, prev, via)
	if cs.blocked { // a sendrecv whose other half still waits
		em.releaseCore(copier, cs)
	}
	return nil
}

// hold gives core c to rank r from start, for a time slice.
func (em *emulator) hold(r int64, c coreSlot, start float64) {
	em.cores.held[c.id] = c
	cr := &em.cores.ranks[r]
	cr.core = c.id
	cr.sliceEnd = start + em.cores.slice
	cr.busyUntil = start
}

// releaseCore gives up the core rank r holds (if any) when it waits or
// finishes: free from the rank's clock, or from the end of a copy it made
// that its clock has not reached (a sendrecv still waiting for its other
// half), with the rank's path up to then.
func (em *emulator) releaseCore(r int64, rs *rankState) {
	if em.cores.ranks[r].core < 0 {
		return
	}
	cr := &em.cores.ranks[r]
	c := em.cores.held[cr.core]
	cr.core = -1
	c.free = max(rs.clock, cr.busyUntil)
	if cr.busyUntil > rs.clock {
		// The copy is on the path beyond the rank's own events.
		c.prev = em.lastCopy(r, rs)
	} else {
		c.prev = em.path.takeHead(rs, r)
	}
	heap.Push(&em.cores.free, c)
}

// transferShared starts a blocking message from s to d, both sides ready
// at ready, when ranks share cores: the side that arrived second copies
// it, at once if it holds a core, or after queueing for one.
func (em *emulator) transferShared(s, d int64, ready float64) {
	if em.cores.ranks[em.copier(s, d)].core < 0 {
		em.cores.request(coreRequest{ready: ready, rank: int32(s), dst: int32(d)})
		return
	}
	em.copyOnCore(s, d, ready, ready, &emptyPath, viaProgram)
}

// copier is the side of a blocking message from s to d that copies it:
// the one that arrived second; of two that arrived at once, one side for
// both halves of an exchange between them priced as a whole
// (pairCopier), else the one running on a core (the other waits), else
// the sender.
func (em *emulator) copier(s, d int64) int64 {
	ss, ds := &em.ranks[s], &em.ranks[d]
	switch {
	case ds.posted > ss.posted:
		return d
	case ds.posted < ss.posted:
		return s
	case em.serial != nil && exchanging(ss, ds, s, d):
		return em.pairCopier(s, d)
	case em.cores.ranks[d].core >= 0 && em.cores.ranks[s].core < 0:
		return d
	}
	return s
}

// exchanging reports whether ranks s and d are in a sendrecv or exchange
// with each other: each sends to and receives from the other.
func exchanging(ss, ds *rankState, s, d int64) bool {
	return ss.kind == ActSendRecv && ds.kind == ActSendRecv &&
		ss.send.peer == d && ss.recv.peer == d && ds.send.peer == s && ds.recv.peer == s
}

// pairCopier is the side that copies both halves of an exchange between
// s and d whose sides posted at once, when each half is priced as the
// whole event (SerialSendRecv). In the generated program the side that
// arrives second copies both directions while the other gives its core
// up (docs/codegen.md), so an exchange takes one core, not one on each
// side: with two pairs on two cores the pairs' exchanges then run on
// both cores at once, as comms2 at P = 4 measures (the time of P = 2),
// where a copy on each side made the pairs take turns (+44..+54 % in
// every run of 2026-11-27). Which side: the partner of the side that
// copied the pair's last exchange (that side runs on and posts the next
// exchange first while its partner must be woken, so the partner arrives
// second); for a pair's first exchange, firstToCopy's side. The choice is
// made once per exchange and kept in both ranks' records,
// so that the second half, and a copy queued for a core, find it
// whatever the cores' state when they ask.
func (em *emulator) pairCopier(s, d int64) int64 {
	st := em.cores
	last := st.ranks[s].exchange
	if last.peer == d && last.wave == em.ranks[s].send.wave {
		if last.copied {
			return s
		}
		return d
	}
	c := em.firstToCopy(s, d)
	if last.peer == d {
		c = s
		if last.copied {
			c = d
		}
	}
	if st.bound {
		id := c % int64(len(st.held))
		st.committed[id] = max(st.committed[id], em.ranks[s].posted) + em.ranks[s].send.cost + em.ranks[d].send.cost
	}
	other := s + d - c
	st.ranks[c].exchange = exchangeCopy{peer: other, wave: em.ranks[c].send.wave, copied: true}
	st.ranks[other].exchange = exchangeCopy{peer: c, wave: em.ranks[other].send.wave}
	return c
}

// firstToCopy is the copier of a pair's first exchange with whole-event
// halves (pairCopier): with bound ranks, the side whose core has the
// fewer exchanges given to it (the earlier end of those
// pairCopier gave it), so that pairs that first exchange at once copy
// on different cores, as hypercube and comms2 at P = 4 measure (their
// first exchanges take the time of P = 2); else the side that must still
// get a core (the other holds one, or its own core is held by another
// rank); else the lower rank.
func (em *emulator) firstToCopy(s, d int64) int64 {
	st := em.cores
	if st.bound {
		n := int64(len(st.held))
		if cs, cd := st.committed[s%n], st.committed[d%n]; cs != cd {
			if cs < cd {
				return s
			}
			return d
		}
	}
	sc, dc := st.ranks[s].core >= 0, st.ranks[d].core >= 0
	switch {
	case sc != dc && sc:
		return d
	case sc != dc:
		return s
	}
	sb, db := em.coreBusy(s), em.coreBusy(d)
	switch {
	case sb != db && sb:
		return s
	case sb != db:
		return d
	}
	return min(s, d)
}

// coreBusy reports whether rank r, bound to its core, finds it held by
// another rank.
func (em *emulator) coreBusy(r int64) bool {
	st := em.cores
	if !st.bound || st.ranks[r].core >= 0 {
		return false
	}
	id := int32(r % int64(len(st.held)))
	return !slices.ContainsFunc(st.free, func(c coreSlot) bool { return c.id == id })
}

// copyOnCore copies a blocking message from s to d on the core of the side
// that arrived second, from start (ready at ready; bound by prev when it
// waited for the core), or after a copy it made before on it, and
// delivers it: its price and the switch.
func (em *emulator) copyOnCore(s, d int64, ready, start float64, prev *pathRef, via pathVia) {
	ss := &em.ranks[s]
	c := em.copier(s, d)
	cr := &em.cores.ranks[c]
	var own pathRef
	if cr.busyUntil > start {
		// The copier's core is busy with its other copy (the other half of
		// a sendrecv): this one follows it on the path.
		own = em.lastCopy(c, &em.ranks[c])
		start, prev, via = cr.busyUntil, &own, viaCore
	}
	end := start + em.copyTime(s, ss, start, ss.send.cost) + em.cores.switchAt
	cr.copyStart, cr.busyUntil = start, end
	cr.copyVia = via
	if via != viaProgram {
		cr.copyPrev = *prev
	}
	if wait := start - ready; wait > 0 {
		sr, dr := &em.cores.ranks[s], &em.cores.ranks[d]
		sr.coreWaitEv = max(sr.coreWaitEv, wait)
		dr.coreWaitEv = max(dr.coreWaitEv, wait)
	}
	em.deliver(s, d, start, end, prev, via)
}

// lastCopy returns the path that ends with the last copy rank r made on
// its core, while its event is still open (a sendrecv waiting for its
// other half): the copy after what bound its start, the core's last
// holder or the rank's own events.
func (em *emulator) lastCopy(r int64, rs *rankState) pathRef {
	cr := &em.cores.ranks[r]
	base, via := cr.copyPrev, cr.copyVia
	if via == viaProgram {
		base = em.path.takeHead(rs, r)
	}
	return em.path.message(&base, via, r, cr.copyStart, cr.busyUntil, rs.stmt)
}

// computeOnCore records rank r's compute segment (or a slice of it) from
// start to end on a core it waited for since q.ready.
func (em *emulator) computeOnCore(r int64, rs *rankState, q coreRequest, start, end float64, prev *pathRef, via pathVia) {
	rs.compute += end - start
	em.cores.ranks[r].coreWait += start - q.ready
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
func (cr *coreRank) moveCoreWait(rs *rankState, start float64) float64 {
	x := min(cr.coreWaitEv, start-rs.posted)
	cr.coreWaitEv = 0
	if x <= 0 {
		return 0
	}
	rs.wait -= x
	cr.coreWait += x
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
