package emulate

import (
	"fmt"
	"io"
	"math"
	"unsafe"

	"perfc/analyze"
	"perfc/lang"
)

// Emulate runs a discrete-event emulation of every rank's schedule of a
// checked kernel, priced by p, and returns the predicted time with the
// critical path and per-rank busy and idle times.
//
// Kernels whose ranks wait on each other (pipelines, wavefronts, rings,
// halos) take the time of their critical path, not the sum of their costs.
// The rules (docs/emulate.md):
//
//   - A compute segment takes p.Compute of its work (ComputeOn for a
//     RankComputer: the machine pricer's share of the region's cost).
//   - send and recv are blocking and matched in order per (sender, receiver)
//     pair. A message starts when both sides have reached it (and, between
//     nodes of a cluster, a link is free) and takes p.Message (or the
//     cluster's Inter cost between nodes); both sides are busy until it has
//     been received. A message of at most p.EagerLimit bytes is eager: the
//     send returns after injection (zero time, or Inject when p implements
//     Injector) and the message waits at the receiver.
//   - sendrecv and exchange run both halves at once; the event ends when both
//     are done. A peer of none (-1) is a no-op.
//   - Every rank must reach the same collective statement; it starts when the
//     last rank arrives and costs p.Collective.
//   - On a cluster of SMP nodes (p.Cluster), at most Lx messages cross the
//     boundary between two east–west neighbouring nodes at a time, and Ly
//     between north–south neighbours; when more want a boundary, the earliest
//     wave goes first. A message's wave is its sequence number on its
//     (sender, receiver) pair, counted from 1.
//
// A schedule that cannot complete (a receive without a matching send, a
// cycle of blocking sends, sizes that differ between sender and receiver,
// ranks at different collectives) ends with a *ScheduleError naming the
// ranks, the statements and the chain of waits. Memory is proportional to
// the number of ranks, not to the number of events: the timeline is only
// streamed to opts.Timeline and opts.Observe.
func Emulate(k *lang.Checked, p Pricer, opts EmulateOptions) (*Emulation, error) {
	em, err := newEmulator(k, p, opts)
	if err != nil {
		return nil, err
	}
	if err := em.run(); err != nil {
		// The timeline up to a deadlock or a budget is what explains it:
		// write it out whole (a write error matters less than err).
		_ = em.tl.flush()
		return nil, err
	}
	res, err := em.result()
	if err != nil {
		return nil, err
	}
	return res, checkEmulation(k, em.checked, res)
}

// EmulateOptions says where the timeline goes.
type EmulateOptions struct {
	// Timeline, when set, receives every event of every rank as one JSON
	// object per line (schema perfc.timeline/v1, docs/emulate.md), written as
	// the emulation completes them: in time order per rank, ranks
	// interleaved.
	Timeline io.Writer
	// Observe, when set, is called with every completed event. The pointer
	// is valid only during the call.
	Observe func(*Interval)
	// Until, when positive, stops every rank once its clock passes it: the
	// events that end by then are exact (nothing later can change them),
	// the Emulation is marked Truncated and ranks left waiting are not a
	// deadlock.
	Until float64
	// Limits bound the events, the memory and the timeline; the zero
	// value is the defaults.
	Limits EmulateLimits
	// Progress, when set, is called every ProgressEvents events with the
	// number of events emulated so far, all ranks together, so that a
	// caller can show that a long emulation is moving.
	Progress func(events int64)
}

// ProgressEvents is how many events pass between calls of
// EmulateOptions.Progress: a few tens of milliseconds of emulation, so
// that the calls cost nothing measurable.
const ProgressEvents = 1 << 20

// Activity says what a rank does during one event of its timeline.
type Activity uint8

const (
	ActCompute    Activity = iota // a compute segment
	ActSend                       // a blocking send
	ActRecv                       // a blocking receive
	ActSendRecv                   // sendrecv or exchange: both halves at once
	ActCollective                 // bcast, reduce, allreduce, scatter, gather, allgather, alltoall, scan
	ActBarrier                    // barrier
	ActISend                      // the post of an isend (the sender's overhead)
	ActIRecv                      // the post of an irecv
	ActWait                       // wait or waitall: blocked until requests complete, then the receivers' overheads
)

var activityNames = [...]string{"compute", "send", "recv", "sendrecv", "collective", "barrier", "isend", "irecv", "wait"}

// String names the activity as the timeline writes it.
func (a Activity) String() string {
	if int(a) < len(activityNames) {
		return activityNames[a]
	}
	return "unknown"
}

// IsComm reports whether the activity is communication.
func (a Activity) IsComm() bool { return a != ActCompute }

// Interval is one event of one rank's timeline. Times are in seconds from
// the start of the run; Start − Posted is time spent waiting (for the
// partner, a link or the last rank at a collective), End − Start is work or
// transfer.
type Interval struct {
	Rank   int64
	Kind   Activity
	Posted float64 // when the rank reached the event
	Start  float64 // when the computation or the transfer began
	End    float64 // when the event completed
	Peer   int64   // send or sendrecv destination, recv source, collective root; -1 for none
	From   int64   // sendrecv source; -1 otherwise
	Bytes  int64   // bytes sent (recv: received; collectives: payload)
	Wave   int64   // the message's sequence number on its (sender, receiver) pair; 0 when not a message
	Stmt   *lang.CommStmt
	// Wait is the statement of a wait interval (Kind ActWait; Stmt is
	// nil then).
	Wait   *lang.WaitStmt
	Region string
	// CoreWait is the part of the wait, just before Start, that the rank
	// was ready but had no core (ranks sharing cores: CoreSharer): a
	// compute segment waiting in the run queue, or a message whose
	// partner had arrived. Posted to Start − CoreWait is waiting for the
	// partner, a link or a collective.
	CoreWait float64
}

// Emulation is the result of Emulate: a prediction, not a measurement.
type Emulation struct {
	Kernel      string  `json:"kernel"`
	Ranks       int64   `json:"ranks"`
	Grid        []int64 `json:"grid,omitempty"`     // Px, Py
	Total       float64 `json:"total_s"`            // when the last rank finishes
	Events      int64   `json:"events"`             // events emulated, all ranks
	Messages    int64   `json:"messages"`           // point-to-point messages delivered
	Requests    int64   `json:"requests,omitempty"` // non-blocking requests posted (isend, irecv)
	Collectives int64   `json:"collectives"`        // collective and barrier calls (once per call, not per rank)
	Nodes       []int64 `json:"nodes,omitempty"`
	LinkWaits   int64   `json:"link_waits"`      // messages that waited for a node-boundary link
	LinkWait    float64 `json:"link_wait_s"`     // the time they waited, summed
	Cores       int     `json:"cores,omitempty"` // the cores the ranks shared (CoreSharer); 0: each rank had its own
	// LongCopies is what the copies priced by the copies beside them
	// took (SharedCopier); nil when none was.
	LongCopies *LongCopies `json:"long_copies,omitempty"`
	Truncated  bool        `json:"truncated,omitempty"` // stopped at EmulateOptions.Until
	PerRank    []RankTime  `json:"per_rank"`
	// Critical is the critical path from the start of the run (or, when
	// CriticalCut, from the oldest stretch still kept) to its end;
	// CriticalTotals sums all of it.
	Critical       []PathStep `json:"critical_path"`
	CriticalCut    bool       `json:"critical_path_cut"`
	CriticalTotals PathTotals `json:"critical_path_totals"`

	// TimelineDropped counts the events left out of the timeline once it
	// held EmulateLimits.MaxTimelineEvents.
	TimelineDropped int64 `json:"timeline_dropped,omitempty"`

	// Noise is, rank by rank, the part of the waiting that
	// synchronisation noise added (SyncNoise); nil when the pricer has no
	// noise law. Kept apart from PerRank so that an emulation without
	// noise carries none of it.
	Noise []RankNoise `json:"noise_wait,omitempty"`
}

// RankTime is how one rank spent the run. Compute + Comm is busy time;
// Wait + CoreWait + (Total − End) is idle time.
type RankTime struct {
	Rank    int64   `json:"rank"`
	Compute float64 `json:"compute_s"`
	Comm    float64 `json:"comm_s"` // transferring messages and in collectives
	Wait    float64 `json:"wait_s"` // blocked: partner, link or collective not ready
	// CoreWait is the time the rank was ready but every core was taken
	// (ranks sharing cores: CoreSharer); 0 when every rank has its own.
	CoreWait float64 `json:"core_wait_s,omitempty"`
	// RequestWait is the part of Wait spent blocked in wait and waitall
	// statements: the transfers of non-blocking messages that the rank's
	// computation did not hide.
	RequestWait float64 `json:"request_wait_s,omitempty"`
	End         float64 `json:"end_s"` // when the rank finished its schedule
	Events      int64   `json:"events"`
}

// Busy is the time the rank computed or communicated.
func (r RankTime) Busy() float64 { return r.Compute + r.Comm }

// Idle is the time the rank waited, including after it finished.
func (r RankTime) Idle(total float64) float64 { return r.Wait + r.CoreWait + total - r.End }

// PathStep is one stretch of the critical path: consecutive events of one
// rank, entered from the previous step as Via says.
type PathStep struct {
	Rank   int64   `json:"rank"`
	Start  float64 `json:"start_s"`
	End    float64 `json:"end_s"`
	Events int64   `json:"events"`
	Kind   string  `json:"kind"`           // the first event's activity
	First  string  `json:"first,omitzero"` // file:line:col of the first event's statement ("" for compute)
	Last   string  `json:"last,omitzero"`  // file:line:col of the last communication statement of the stretch
	Via    string  `json:"via"`            // "start", "message" (waited for the partner), "link", "collective" or "core" (waited for a core)
}

// Injector is optionally implemented by a Pricer whose eager sends keep the
// sender busy for a while (LogGP's o + (n−1)G). Without it an eager send
// returns at once.
type Injector interface {
	Inject(src, dst int64, bytes int64) float64
}

// SerialSendRecv is optionally implemented by a Pricer whose runtime runs
// the two halves of a sendrecv in series (the goroutine runtime of the
// generated programs: the rank that arrives second copies both directions
// itself). The message of a sendrecv's send half, from src to dst while
// its rank receives recvBytes from rank from, then costs what
// SendRecvMessage returns rather than Message, so that the event, which
// ends with the later of its halves, takes what the whole exchange takes.
// It reports false where the halves overlap after all.
type SerialSendRecv interface {
	SendRecvMessage(src, dst, from, bytes, recvBytes int64, s *lang.CommStmt) (float64, bool)
}

// StmtMessager is optionally implemented by a Pricer whose message law
// depends on the statement that sends: on the goroutine runtime a payload
// that stays with its sender (an array the kernel never receives into)
// copies faster than one a message brought (docs/predict.md, "Payloads
// that stay with their sender"). The message of statement s from src to
// dst then costs what StmtMessage returns, when it reports true, rather
// than Message.
type StmtMessager interface {
	StmtMessage(s *lang.CommStmt, src, dst, bytes int64) (float64, bool)
}

// Waker is optionally implemented by a Pricer whose ranks' threads sleep
// when they wait long (the goroutine runtime of the generated programs:
// Go parks an idle thread on a futex after a few microseconds of
// spinning, docs/predict.md "Waking a rank"). A blocking message, eager
// receive or collective that releases a rank which waited longer than
// after seconds ends cost seconds later. ok is false when the pricer has
// no such cost. It applies only where every rank has its own core: ranks
// that share cores hand their core to one another (CoreSharer) instead.
type Waker interface {
	Wakeup() (cost, after float64, ok bool)
}

// wakeup is a Waker's cost, fetched once per emulation.
type wakeup struct {
	on          bool
	cost, after float64
}

// extra is the wake-up cost of an operation whose longest-waiting rank
// waited the given time: cost when the wait exceeds after, else zero.
func (w wakeup) extra(waited float64) float64 {
	if w.on && waited > w.after {
		return w.cost
	}
	return 0
}

// emulator is the state of one emulation.
type emulator struct {
	k            *lang.Checked
	p            Pricer         // checked, the caller's pricer behind the finiteness check
	checked      *checkedPricer // the first unusable price, kept for Emulate's error
	eager        int64
	inject       Injector
	serial       SerialSendRecv          // nil when the halves of a sendrecv overlap
	stmtMsg      StmtMessager            // nil when every statement's messages cost Message
	afterBarrier AfterBarrierPricer      // nil when a collective costs Collective wherever it is
	barriers     map[*lang.CommStmt]bool // analyze.AfterBarrier of the kernel, when afterBarrier is set
	opts         EmulateOptions
	until        float64 // opts.Until when positive, +Inf otherwise: a rank stops once its clock passes it
	observe      bool    // someone wants the intervals (a timeline or an observer)
	ranks        []rankState
	run1         []int32 // ranks that can move on
	current      int64   // the rank being advanced, or -1
	floor        float64 // while granting links: the earliest clock of a woken rank
	done         int64
	regions      map[lang.Stmt]string // of every communication and wait statement
	works        map[workKey]float64
	computer     RankComputer // p, when its segments cost differently by rank class
	nb           *nbState     // non-blocking messages; nil when the kernel posts none
	cores        *coreState   // the cores the ranks share; nil when every rank has its own
	noise        *noiseState  // the synchronisation noise; nil when the pricer has none (SyncNoise)
	wake         wakeup       // the pricer's wake-up cost; applied only when cores is nil
	net          network
	path         pathRing
	coll         collectiveState
	tl           *timelineWriter
	ev           analyze.Event // the event the rank being advanced is at
	peerSlab     []peerEntry   // room for ranks' destinations beyond the inline ones (morePeer)
	events       int64         // events emulated so far, all ranks
	checkAt      int64         // the event count at which checkpoint runs next
	evBudget     int64         // the event budget
	iv           Interval
	res          Emulation

	// The eager messages not yet received, per (sender, receiver) pair
	// (pairKey); queued counts them. extraPeers counts the destinations
	// ranks keep beyond their inline ones (morePeer). room is what the
	// memory budget leaves for both beside the ranks (dynamicMemory).
	inboxes    map[uint64]*eagerQueue
	queued     int64
	extraPeers int64
	room       float64
	// budgetErr is a budget error found where returning it would cost the
	// commonest step a branch (route); checkpoint returns it at the next
	// event, and run at the end.
	budgetErr error
}

// rankState is one rank's progress.
//
// With thousands of ranks the emulator is bound by memory: the ranks take
// turns, and every turn brings a rank's state back into the cache. So the
// state is laid out in cache lines (the ranks slice of a large emulation
// is page-aligned, and a rankState is a whole number of lines): the fields
// every event touches fill the first four lines (rankHot), the first
// destinations the next two, then comes the cursor, starting a line so
// that its innermost frame shares one line with its first caches of static
// values, and last what only sendrecv, eager messages and talkative ranks
// need (rankCold).
type rankState struct {
	rankHead
	_   [cursorPad]byte
	cur analyze.Cursor
	_   [tailPad]byte
	rankCold
}

// rankHead is the part of a rankState before its cursor.
type rankHead struct {
	rankHot
	peers [peersInline]peerEntry // the first destinations the rank sends to
}

// cursorPad starts the cursor on a cache line, and tailPad makes a
// rankState a whole number of lines (padding before rankCold, since a
// struct ending in an empty array is padded further).
const (
	cacheLine = 64
	cursorPad = (cacheLine - unsafe.Sizeof(rankHead{})%cacheLine) % cacheLine
	cursorEnd = unsafe.Sizeof(rankHead{}) + cursorPad + unsafe.Sizeof(analyze.Cursor{})
	tailPad   = (cacheLine - (cursorEnd+unsafe.Sizeof(rankCold{}))%cacheLine) % cacheLine
)

// rankHot is what an ordinary event touches, in four cache lines.
type rankHot struct {
	clock   float64 // when the rank is free
	posted  float64 // when it reached its current communication event
	stmt    *lang.CommStmt
	kind    Activity
	blocked bool
	done    bool
	send    half
	recv    half
	openID  int64      // open's id in the ring once another path continues from it; noNode before
	pathTot PathTotals // the critical path ending at clock, summed
	open    pathNode   // its last stretch, still growing unless openID is set
	// The rank's busy and idle times so far (RankTime's fields; End is
	// the clock once done).
	compute, comm, wait float64
	events              int64
	// lastWork and lastCost cache the price of the rank's last fixed
	// compute segment.
	lastWork *analyze.Work
	lastCost float64
}

// rankCold is what only some events touch.
type rankCold struct {
	pend      pendingHalf     // sendrecv: the half that finished first
	morePeers []peerEntry     // destinations beyond the first peersInline
	peerIndex map[int64]int32 // destination → index in morePeers, once there are manyPeers
	queued    int64           // eager messages delivered to this rank and not yet received (emulator.inboxes)
}

// half is the send or the receive half of a rank's current event.
type half struct {
	peer     int64   // destination or source; -1: none (the half does nothing)
	bytes    int64   // bytes sent or expected
	wave     int64   // the message's sequence number on its pair
	cost     float64 // send: the message's price
	boundary int32   // send: the node boundary whose links it needs, or −1
	active   bool    // posted and not complete
	matched  bool    // paired with the other side (or queued for a link)
}

// pendingHalf is the half of a sendrecv that completed while the other was
// still outstanding: when it ran, and the path that bound it.
type pendingHalf struct {
	start, end float64
	prev       pathRef
	via        pathVia
}

// newEmulator builds the per-rank cursors, sharing schedules between alike
// ranks.
func newEmulator(k *lang.Checked, p Pricer, opts EmulateOptions) (*emulator, error) {
	if err := checkMemory(k, opts.Limits); err != nil {
		return nil, err
	}
	n := k.NumRanks()
	checked := &checkedPricer{Pricer: p}
	em := &emulator{
		k: k, p: checked, checked: checked, eager: p.EagerLimit(), opts: opts,
		ranks:   make([]rankState, n),
		regions: stmtRegions(k),
		works:   map[workKey]float64{},
		path:    newPathRing(n),
	}
	// The optional interfaces are the caller's pricer's: checkedPricer
	// embeds only Pricer's methods, and would hide them.
	em.inject, _ = p.(Injector)
	em.serial, _ = p.(SerialSendRecv)
	em.stmtMsg, _ = p.(StmtMessager)
	if em.afterBarrier, _ = p.(AfterBarrierPricer); em.afterBarrier != nil {
		em.barriers = analyze.AfterBarrier(k.Kernel.Body)
	}
	em.computer, _ = p.(RankComputer)
	em.initRequests(k, p)
	cores, err := newCoreState(k, p, opts.Limits)
	if err != nil {
		return nil, err
	}
	em.cores = cores
	if cores == nil { // ranks sharing cores take turns in the run queue instead
		em.initNoise(p, n)
	}
	if w, ok := p.(Waker); ok && cores == nil {
		em.wake.cost, em.wake.after, em.wake.on = w.Wakeup()
	}
	em.until = math.Inf(1)
	if opts.Until > 0 {
		em.until = opts.Until
	}
	em.observe = opts.Timeline != nil || opts.Observe != nil
	em.res = Emulation{Kernel: k.Kernel.Name.Name, Ranks: n}
	if cores != nil {
		em.res.Cores = len(cores.held)
	}
	if px, py, ok := k.Grid(); ok {
		em.res.Grid = []int64{px, py}
	}
	if err := em.net.init(k, em.p); err != nil { // messages go through the check
		return nil, err
	}
	if mx, my := em.net.nodes(); mx*my > 1 {
		em.res.Nodes = []int64{mx, my}
	}
	if opts.Timeline != nil {
		em.tl = newTimelineWriter(opts.Timeline, k.File.Source, opts.Limits.timelineEvents())
	}
	em.evBudget = opts.Limits.events()
	em.room = float64(opts.Limits.memory()) - emulationMemory(n)
	if em.cores != nil {
		em.room -= float64(n * coreRankBytes) // each rank's core state and its request in the run queue (newCoreState)
	}
	if em.nb != nil {
		em.room -= float64(n) * float64(unsafe.Sizeof(rankRequests{})) // each rank's requests beside its state (emulate_req.go)
	}
	if em.noise != nil {
		em.room -= float64(n) * float64(unsafe.Sizeof(rankNoise{})) // each rank's noise state (emulate_noise.go)
	}
	em.checkAt = em.nextCheck()
	var classes []scheduleClass
	for r := range n {
		s, alike, err := scheduleFor(k, p, r, &classes)
		if err != nil {
			return nil, err
		}
		rs := &em.ranks[r] // zero from make
		rs.openID = noNode
		if alike >= 0 {
			rs.cur.StartAlike(s, &em.ranks[alike].cur)
		} else {
			rs.cur.Start(s)
		}
	}
	em.coll.reset()
	return em, nil
}

// scheduleClass is a schedule shared by alike ranks, with the first rank
// that uses it (whose cursor the others share their compiled tree with).
type scheduleClass struct {
	s     *analyze.Schedule
	first int64
}

// scheduleFor returns rank r's schedule and a rank with the same tree
// (-1 for none yet), sharing the tree of an alike rank in classes when
// there is one and adding a new class otherwise.
func scheduleFor(k *lang.Checked, p Pricer, r int64, classes *[]scheduleClass) (*analyze.Schedule, int64, error) {
	cs := *classes
	for i := len(cs) - 1; i >= 0; i-- {
		if s := cs[i].s.Alike(r); s != nil {
			// Keep the class just used last: neighbouring ranks tend to be alike.
			cs[i], cs[len(cs)-1] = cs[len(cs)-1], cs[i]
			return s, cs[len(cs)-1].first, nil
		}
	}
	s, err := newSchedule(k, p, r)
	if err != nil {
		return nil, -1, err
	}
	*classes = append(cs, scheduleClass{s: s, first: r})
	return s, -1, nil
}

// stmtRegions maps every communication and wait statement to its region.
func stmtRegions(k *lang.Checked) map[lang.Stmt]string {
	out := map[lang.Stmt]string{}
	var walk func(n lang.Node, region string)
	walk = func(n lang.Node, region string) {
		lang.Inspect(n, func(x lang.Node) bool {
			switch x := x.(type) {
			case *lang.RegionStmt:
				if x.Body != nil {
					walk(x.Body, x.Name)
				}
				return false
			case *lang.CommStmt:
				out[x] = region
			case *lang.WaitStmt:
				out[x] = region
			}
			return true
		})
	}
	walk(k.Kernel.Body, "")
	return out
}

// run moves ranks on until every rank is done or none can move.
func (em *emulator) run() error {
	for r := len(em.ranks) - 1; r >= 0; r-- {
		em.run1 = append(em.run1, int32(r))
	}
	for {
		for len(em.run1) > 0 {
			r := em.run1[len(em.run1)-1]
			em.run1 = em.run1[:len(em.run1)-1]
			em.current = int64(r)
			if err := em.advance(int64(r)); err != nil {
				return err
			}
		}
		if em.cores != nil && em.cores.queue.Len() > 0 {
			// Every rank waits: give the earliest ready a core
			// (coreState says why this order is exact).
			if err := em.grantCore(); err != nil {
				return err
			}
			continue
		}
		if em.net.pending() == 0 {
			break
		}
		// Every rank is blocked. Grant link requests in time order for as
		// long as they come before the clocks of the ranks the grants
		// woke: those ranks can only ask for links from their clocks on,
		// so no request that would come first can appear meanwhile.
		// Granting in a batch keeps the ranks' progress in large steps.
		em.floor = math.Inf(1)
		for em.net.pending() > 0 && em.net.nextTime() < em.floor {
			if err := em.grantLink(); err != nil {
				return err
			}
		}
	}
	if em.budgetErr != nil {
		return em.budgetErr
	}
	if em.done < int64(len(em.ranks)) {
		if em.opts.Until > 0 {
			// Ranks wait for others that stopped at Until: not a deadlock.
			em.res.Truncated = true
			return em.tl.flush()
		}
		return em.deadlock()
	}
	if err := em.undelivered(); err != nil {
		return err
	}
	return em.tl.flush()
}

// advance runs rank r until it blocks or finishes.
func (em *emulator) advance(r int64) error {
	rs := &em.ranks[r]
	ev := &em.ev
	for {
		more, err := rs.cur.Step(ev)
		if err != nil {
			return err
		}
		if !more || rs.clock > em.until {
			if !more && em.nb != nil {
				if err := em.requestsLeft(r); err != nil {
					return err
				}
			}
			em.res.Truncated = em.res.Truncated || more
			rs.done = true
			em.done++
			if em.cores != nil {
				em.releaseCore(r, rs)
			}
			return nil
		}
		rs.events++
		em.events++
		if em.events >= em.checkAt {
			if err := em.checkpoint(r, rs, ev); err != nil {
				return err
			}
		}
		if ev.Kind == analyze.EvCompute {
			if em.compute(r, rs, ev) {
				return nil // it waits for a core
			}
			continue
		}
		var blocked bool
		switch ev.Kind {
		case analyze.EvISend, analyze.EvIRecv:
			err = em.postRequest(r, rs, ev)
		case analyze.EvWait:
			blocked = em.wait(r, rs, ev)
		default:
			blocked, err = em.post(r, rs, ev)
		}
		if err != nil || blocked {
			if blocked && em.cores != nil {
				em.releaseCore(r, rs) // a rank that waits frees its core
			}
			return err
		}
	}
}

// checkpoint runs every ProgressEvents events and at the event budget:
// past the budget it ends the emulation with a BudgetError naming rank
// r's event ev, and otherwise reports progress.
func (em *emulator) checkpoint(r int64, rs *rankState, ev *analyze.Event) error {
	if em.budgetErr != nil {
		return em.budgetErr
	}
	if em.events > em.evBudget {
		return em.eventBudgetError(r, rs, ev)
	}
	if em.opts.Progress != nil {
		em.opts.Progress(em.events)
	}
	em.checkAt = em.nextCheck()
	return nil
}

// nextCheck returns the event count at which checkpoint runs next: the
// next multiple of ProgressEvents, or the first event past the budget if
// that comes first. Kept in one counter so that an ordinary event costs
// one comparison.
func (em *emulator) nextCheck() int64 {
	next := (em.events/ProgressEvents + 1) * ProgressEvents
	if em.evBudget < next {
		return em.evBudget + 1 // maxEvents < next ≤ MaxInt64: no overflow
	}
	return next
}

// compute prices a compute segment and moves the rank's clock; when ranks
// share cores, a segment that takes time instead makes the rank wait for a
// core, and compute reports that it does.
func (em *emulator) compute(r int64, rs *rankState, ev *analyze.Event) (waits bool) {
	cost := rs.lastCost
	if ev.Work != rs.lastWork {
		cost = em.price(r, rs, ev.Work)
	}
	if em.noise != nil {
		em.noise.ranks[r].since += cost
	}
	if em.cores != nil && cost > 0 {
		return em.computeShared(r, rs, cost, ev.Work.Region)
	}
	start := rs.clock
	rs.clock += cost
	rs.compute += cost
	em.path.extend(rs, r, start, rs.clock, ActCompute, nil)
	if em.observe {
		em.iv = Interval{Rank: r, Kind: ActCompute, Posted: start, Start: start, End: rs.clock, Peer: -1, From: -1, Region: ev.Work.Region}
		em.emit()
	}
	return false
}

// price returns the cost of a compute segment on rank r other than the
// rank's last one. A fixed segment's price is cached, per emulation (for
// the rank's class) and as the rank's last, since a pricer may take its
// time.
func (em *emulator) price(r int64, rs *rankState, w *analyze.Work) float64 {
	class := 0
	if em.computer != nil {
		class = em.computer.ComputeClass(r)
	}
	if !rs.cur.Fixed() {
		return em.segmentCost(class, w)
	}
	key := workKey{w, class}
	c, ok := em.works[key]
	if !ok {
		c = em.segmentCost(class, w)
		em.works[key] = c
	}
	rs.lastWork, rs.lastCost = w, c
	return c
}

// workKey is a fixed segment's work on a class of ranks.
type workKey struct {
	w     *analyze.Work
	class int
}

// segmentCost prices one execution of w on a rank of class.
func (em *emulator) segmentCost(class int, w *analyze.Work) float64 {
	if em.computer != nil {
		return em.computer.ComputeOn(class, w)
	}
	return em.p.Compute(w)
}

// emit hands em.iv to the timeline and the observer.
func (em *emulator) emit() {
	if em.tl != nil {
		em.tl.write(&em.iv)
	}
	if em.opts.Observe != nil {
		em.opts.Observe(&em.iv)
	}
}

// post starts a communication event; blocked reports whether the rank must
// wait for others before it can move on.
func (em *emulator) post(r int64, rs *rankState, ev *analyze.Event) (blocked bool, err error) {
	rs.posted, rs.stmt = rs.clock, ev.Stmt
	switch ev.Kind {
	case analyze.EvSend:
		rs.kind = ActSend
		rs.send.post(ev.Peer, ev.Bytes)
		rs.recv.post(-1, 0)
	case analyze.EvRecv:
		rs.kind = ActRecv
		rs.send.post(-1, 0)
		rs.recv.post(ev.Peer, ev.Bytes)
	case analyze.EvSendRecv:
		rs.kind = ActSendRecv
		rs.send.post(ev.Peer, ev.Bytes)
		rs.recv.post(ev.From, ev.RecvBytes)
	case analyze.EvCollective, analyze.EvBarrier:
		rs.kind = ActCollective
		if ev.Kind == analyze.EvBarrier {
			rs.kind = ActBarrier
		}
		rs.send.post(-1, 0)
		rs.recv.post(-1, 0)
		rs.blocked = true
		err := em.arrive(r, rs, ev)
		return rs.blocked, err
	default:
		// A compute event never reaches post, and a new communication
		// event kind needs its rule here (docs/internals.md).
		return false, fmt.Errorf("internal error: emulate: unhandled event kind %d at %s; please report it", ev.Kind, em.k.File.Source.Position(ev.Stmt.Pos()))
	}
	if !rs.send.active && !rs.recv.active {
		em.finishEvent(r, rs, rs.posted, rs.posted, &emptyPath, viaProgram)
		return false, nil
	}
	rs.blocked = true
	// The send half meets a receiver already waiting, goes eagerly to the
	// receiver's inbox, or waits for the receiver; the receive half takes
	// an eager message from its inbox, meets a sender already waiting, or
	// waits. Written out here rather than called: every event comes this
	// way.
	if rs.send.active {
		em.route(r, rs)
		d := rs.send.peer
		if em.eagerSize(rs.send.bytes) {
			err = em.sendEager(r, rs)
		} else if met := em.nb != nil && em.nb.queued > 0; met {
			if met, err = em.blockingSendMeetsIRecv(r, d); !met && err == nil {
				if ds := &em.ranks[d]; ds.recv.active && !ds.recv.matched && ds.recv.peer == r {
					err = em.matchBlocking(r, d)
				}
			}
		} else if ds := &em.ranks[d]; ds.recv.active && !ds.recv.matched && ds.recv.peer == r {
			err = em.matchBlocking(r, d)
		}
		if err != nil {
			return false, err
		}
	}
	if rs.recv.active && !rs.recv.matched && rs.blocked {
		s := rs.recv.peer
		met := false
		if em.nb != nil && em.nb.queued > 0 {
			met, err = em.blockingRecvMeetsISend(s, r)
		}
		switch {
		case met || err != nil:
		case em.eager >= 0: // the inbox is empty unless some message is eager
			err = em.postRecv(r, rs)
		default:
			if ss := &em.ranks[s]; ss.send.active && !ss.send.matched && ss.send.peer == r {
				err = em.matchBlocking(s, r)
			}
		}
		if err != nil {
			return false, err
		}
	}
	return rs.blocked, nil
}

// post starts a half with the given peer (none: an inactive half). Only
// the fields a posted half reads are set; completion sets the others.
func (h *half) post(peer, bytes int64) {
	h.active, h.matched = peer >= 0, false
	h.peer, h.bytes, h.wave = peer, bytes, 0
}

// completeHalf records that half h of rank r's event ran from start to
// end, bound by the path prev; other is the event's other half. It
// finishes the event when no half is outstanding and reports whether it
// did.
func (em *emulator) completeHalf(r int64, rs *rankState, h, other *half, start, end float64, prev *pathRef, via pathVia) bool {
	h.active = false
	if other.peer < 0 {
		em.finishEvent(r, rs, start, end, prev, via)
		return true
	}
	return em.completePair(r, rs, other, start, end, prev, via)
}

// completePair is completeHalf for a sendrecv whose halves both do
// something: the half that completes first waits for the other, the event
// spans both, and the half that ended later bound it.
func (em *emulator) completePair(r int64, rs *rankState, other *half, start, end float64, prev *pathRef, via pathVia) bool {
	if other.active {
		rs.pend = pendingHalf{start: start, end: end, prev: *prev, via: via}
		return false
	}
	p := &rs.pend
	bound := start // the start of the half that bound the event
	if p.end > end {
		prev, via, bound = &p.prev, p.via, p.start
	}
	// The halves overlap: the rank is busy for the longer one, as the
	// region table charges a sendrecv; the rest of the span it waited.
	busy := max(p.end-p.start, end-start)
	start, end = min(p.start, start), max(p.end, end)
	if via == viaProgram {
		bound = start
	}
	em.finishEventFrom(r, rs, start, end, bound, prev, via)
	rs.comm -= end - start - busy
	rs.wait += end - start - busy
	return true
}

// finishEvent ends rank r's point-to-point event, which ran from start to
// end: its clock moves to end, the critical path follows prev (what bound
// the event; with via viaProgram the rank's own path), and the rank is no
// longer blocked.
func (em *emulator) finishEvent(r int64, rs *rankState, start, end float64, prev *pathRef, via pathVia) {
	em.finishEventFrom(r, rs, start, end, start, prev, via)
}

// finishEventFrom is finishEvent for an event whose critical stretch
// starts at bound rather than at its start: a sendrecv whose later half,
// which another path bound, began after its earlier half (the path that
// bound it ends at bound, and the stretch must not overlap it).
func (em *emulator) finishEventFrom(r int64, rs *rankState, start, end, bound float64, prev *pathRef, via pathVia) {
	rs.account(start, end)
	if rs.send.peer >= 0 || rs.recv.peer >= 0 { // not an event whose peers are all none
		em.synced(r, em.regions[rs.stmt])
	}
	coreWait := 0.0
	if em.cores != nil {
		coreWait = em.cores.ranks[r].moveCoreWait(rs, start)
	}
	if via == viaProgram {
		em.path.extend(rs, r, start, end, rs.kind, rs.stmt)
	} else {
		em.path.join(rs, r, bound, end, rs.kind, rs.stmt, prev, via)
	}
	if em.observe {
		em.emitEvent(r, rs, start, end, coreWait)
	}
}

// account ends the rank's point-to-point event, which ran from start to
// end, in its times: it waited from posting to start and communicated
// until end, when it is free again.
func (rs *rankState) account(start, end float64) {
	rs.wait += start - rs.posted
	rs.comm += end - start
	rs.clock = end
	rs.blocked = false
}

// emitEvent hands rank r's finished point-to-point event to the timeline
// and the observer; coreWait is the end of its wait that was for a core.
func (em *emulator) emitEvent(r int64, rs *rankState, start, end, coreWait float64) {
	em.iv = Interval{Rank: r, Kind: rs.kind, Posted: rs.posted, Start: start, End: end, Peer: rs.send.peer, From: -1,
		Bytes: rs.send.bytes, Wave: rs.send.wave, Stmt: rs.stmt, Region: em.regions[rs.stmt], CoreWait: coreWait}
	switch rs.kind {
	case ActRecv:
		em.iv.Peer, em.iv.Bytes, em.iv.Wave = rs.recv.peer, rs.recv.bytes, rs.recv.wave
	case ActSendRecv:
		em.iv.From = rs.recv.peer
	}
	em.emit()
}

// result assembles the Emulation once every rank is done.
func (em *emulator) result() (*Emulation, error) {
	res := &em.res
	if em.tl != nil {
		res.TimelineDropped = em.tl.drops
	}
	res.PerRank = make([]RankTime, len(em.ranks))
	if em.noise != nil {
		res.Noise = make([]RankNoise, len(em.ranks))
	}
	last := int64(0)
	for r := range em.ranks {
		rs := &em.ranks[r]
		st := RankTime{Rank: int64(r), Compute: rs.compute, Comm: rs.comm, Wait: rs.wait, Events: rs.events}
		if em.nb != nil {
			st.RequestWait = em.nb.ranks[r].inWait
		}
		if em.cores != nil {
			st.CoreWait = em.cores.ranks[r].coreWait
		}
		if em.noise != nil {
			res.Noise[r] = RankNoise{Wait: em.noise.ranks[r].total, ByRegion: em.noise.ranks[r].byRegion}
		}
		if rs.done {
			st.End = rs.clock
		}
		res.PerRank[r] = st
		res.Events += st.Events
		if st.End > res.Total {
			res.Total, last = st.End, int64(r)
		}
	}
	if em.nb != nil {
		res.Requests = em.nb.posted
	}
	if em.cores != nil && em.cores.shared != nil && em.cores.shared.sum.Copies > 0 {
		sum := em.cores.shared.sum
		res.LongCopies = &sum
	}
	head := em.path.takeHead(&em.ranks[last], last)
	res.Critical, res.CriticalCut = em.path.steps(head, em.k.File.Source)
	res.CriticalTotals = head.tot
	if res.Critical == nil {
		res.Critical = []PathStep{}
	}
	return res, nil
}

// positionOf formats the position of a statement, or "" for none.
func positionOf(src *lang.Source, s lang.Node) string {
	if s == nil {
		return ""
	}
	return src.Position(s.Pos()).String()
}

// describeEvent says what a rank is doing at a communication statement, for
// error messages: "recv from rank 2 at wave.spmd:26:7".
func describeEvent(src *lang.Source, rs *rankState) string {
	var what string
	switch rs.kind {
	case ActSend:
		what = fmt.Sprintf("send of %d B to rank %d", rs.send.bytes, rs.send.peer)
	case ActRecv:
		what = fmt.Sprintf("recv of %d B from rank %d", rs.recv.bytes, rs.recv.peer)
	case ActSendRecv:
		what = fmt.Sprintf("sendrecv to rank %d from rank %d", rs.send.peer, rs.recv.peer)
	default:
		what = rs.stmt.Kind.String()
	}
	return what + " at " + positionOf(src, rs.stmt)
}
