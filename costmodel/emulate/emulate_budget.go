package emulate

import (
	"fmt"
	"unsafe"

	"perfc/analyze"
	"perfc/internal/units"
	"perfc/lang"
)

// EmulateLimits bound an emulation's work, memory and timeline, so that a
// kernel that would run for hours or allocate more than the machine has
// ends at once with a BudgetError instead. The zero value of each field
// is its default, chosen so that an interactive run stays under about
// ten seconds and 2 GiB (docs/emulate.md).
type EmulateLimits struct {
	// MaxEvents bounds the events emulated, all ranks together
	// (0: DefaultMaxEvents).
	MaxEvents int64
	// MaxMemory bounds the memory the emulation is estimated to need
	// before it allocates it, in bytes (0: DefaultMaxMemory).
	MaxMemory int64
	// MaxTimelineEvents bounds the events written to the timeline
	// (0: DefaultMaxTimelineEvents); the rest are counted, not written.
	MaxTimelineEvents int64
}

// The default limits. At the emulator's 20 to 35 million events a second
// (docs/emulate.md, Scale), 10^8 events take 3 to 5 s; 2 GiB admit about
// 800,000 ranks (emulationMemory); a timeline line is about 120 to 190
// bytes, so 10^6 of them make 120 to 190 MB.
const (
	DefaultMaxEvents         = 100_000_000
	DefaultMaxMemory         = 2 << 30
	DefaultMaxTimelineEvents = 1_000_000
)

// events returns the event budget.
func (l EmulateLimits) events() int64 { return orDefault(l.MaxEvents, DefaultMaxEvents) }

// memory returns the memory budget in bytes.
func (l EmulateLimits) memory() int64 { return orDefault(l.MaxMemory, DefaultMaxMemory) }

// timelineEvents returns the timeline's budget in events.
func (l EmulateLimits) timelineEvents() int64 {
	return orDefault(l.MaxTimelineEvents, DefaultMaxTimelineEvents)
}

// orDefault returns v, or def when v is not positive.
func orDefault(v, def int64) int64 {
	if v > 0 {
		return v
	}
	return def
}

// BudgetError says that an emulation would exceed one of its limits: it
// names the statement where the limit was reached (for memory, the
// kernel), the limit and the flag of perfc that raises it. It unwraps to a
// positioned lang.Error, like ScheduleError.
type BudgetError struct {
	Limit string        // "events" or "memory"
	Pos   lang.Position // the statement, or the kernel for memory
	Msg   string
}

// Error formats the error as file:line:col: message.
func (e *BudgetError) Error() string { return e.Pos.String() + ": " + e.Msg }

// Unwrap returns the error as a positioned lang.Error.
func (e *BudgetError) Unwrap() error { return &lang.Error{Pos: e.Pos, Msg: e.Msg} }

// scheduleBytesPerRank is what a rank's schedule keeps besides its
// rankState: its cursor's evaluation state (the rank's own copy of the
// symbol values, analyze's rankAnalysis) and index slots. Measured after
// emulating a ring of 10^5 ranks (about 800 B), the wave kernel on 200 x
// 200 ranks and halo2d on 100 x 100 (about 1,500 B);
// TestEmulationMemoryEstimate checks the estimate against such runs.
const scheduleBytesPerRank = 1600

// emulationMemory estimates the memory, in bytes, of emulating the given
// number of ranks: every rank's state, schedule and result, and the
// critical path's ring. Estimated before anything per rank is allocated,
// so that a kernel of 10^7 ranks fails at once rather than after asking
// for 10 GB. The peak of the process is about this much (the big arrays
// are allocated once; the garbage of building the schedules is small
// beside them): a ring of 10^6 ranks is estimated at 2.5 GiB and peaked
// at 2.0 GB.
func emulationMemory(ranks int64) float64 {
	perRank := float64(unsafe.Sizeof(rankState{}) + unsafe.Sizeof(RankTime{}) + scheduleBytesPerRank)
	ring := float64(pathRingSize(ranks)) * float64(unsafe.Sizeof(pathNode{}))
	return float64(ranks)*perRank + ring
}

// checkMemory returns a BudgetError when emulating the kernel's ranks
// needs more memory than the budget.
func checkMemory(k *lang.Checked, limits EmulateLimits) error {
	n := k.NumRanks()
	need, budget := emulationMemory(n), limits.memory()
	if need <= float64(budget) {
		return nil
	}
	return &BudgetError{
		Limit: "memory",
		Pos:   k.File.Source.Position(k.Kernel.Pos()),
		Msg: fmt.Sprintf("emulating %s ranks needs about %s of memory (%s per rank); the budget is %s: raise it with --max-memory (e.g. --max-memory=%s) or emulate fewer ranks",
			units.Int(n), units.Size(need), units.Size(need/float64(n)), units.Size(float64(budget)), roundUpSize(need)),
	}
}

// coresMemoryError reports that emulating the kernel's ranks on shared
// cores needs more memory than the budget (checkMemory with each rank's
// core state added).
func coresMemoryError(k *lang.Checked, limits EmulateLimits) error {
	n := k.NumRanks()
	need, budget := emulationMemory(n)+float64(n*coreRankBytes), limits.memory()
	return &BudgetError{
		Limit: "memory",
		Pos:   k.File.Source.Position(k.Kernel.Pos()),
		Msg: fmt.Sprintf("emulating %s ranks on shared cores needs about %s of memory (%s per rank); the budget is %s: raise it with --max-memory (e.g. --max-memory=%s) or emulate fewer ranks",
			units.Int(n), units.Size(need), units.Size(need/float64(n)), units.Size(float64(budget)), roundUpSize(need)),
	}
}

// eventBudgetError reports that rank r reached the event budget at event
// ev; rs.stmt is its last communication statement, which the error names
// when ev is a compute segment (segments carry no position).
func (em *emulator) eventBudgetError(r int64, rs *rankState, ev *analyze.Event) error {
	stmt := rs.stmt
	if ev.Kind != analyze.EvCompute && ev.Stmt != nil {
		stmt = ev.Stmt
	}
	pos := em.k.File.Source.Position(em.k.Kernel.Pos())
	where := "in this kernel"
	if stmt != nil {
		pos = em.stmtPos(stmt)
		where = "here"
	}
	counted := ""
	if em.extraPeers > 0 {
		counted = fmt.Sprintf("; a send to a new destination beyond a rank's first %d counts as %d events, for it costs as much, and the ranks have %s",
			peersInline, extraPeerEvents+1, units.Int(em.extraPeers))
	}
	return &BudgetError{
		Limit: "events",
		Pos:   pos,
		Msg: fmt.Sprintf("the emulation reached its budget of %s events (all ranks together%s) %s, at rank %d, %s into the predicted run: raise it with --max-events, or emulate fewer iterations",
			units.Int(em.evBudget), counted, where, r, units.Time(rs.clock)),
	}
}

// extraPeerBytes is the memory a destination beyond a rank's inline ones
// takes: its peerEntry and its slot in the rank's map (morePeer). Measured
// on all-to-all exchanges of 1,000 and 2,000 ranks: 77 to 78 B.
const extraPeerBytes = 80

// extraPeerEvents is what a send to a new destination beyond a rank's
// inline ones adds to the count the event budget bounds: such a send
// costs some thirty times an ordinary event (a miss in a map that grows
// with the ranks: an exchange of every rank of 3,000 with every other ran
// 0.9 million events a second, not 20 to 35 million), so that the budget
// keeps such a kernel to seconds too.
const extraPeerEvents = 32

// dynamicMemory returns the memory, in bytes, of what grows during the
// emulation rather than with the ranks: the eager messages waiting (a
// queue's storage is its messages, eagerQueue) and the destinations ranks
// keep beyond their inline ones.
func (em *emulator) dynamicMemory() float64 {
	return float64(em.queued)*float64(unsafe.Sizeof(eagerMsg{})) + float64(em.extraPeers)*extraPeerBytes
}

// dynamicBudgetError reports that rank r's send at stmt would take what
// grows during the emulation past the memory budget: what grew says what.
func (em *emulator) dynamicBudgetError(r int64, stmt *lang.CommStmt, grew string) error {
	return &BudgetError{
		Limit: "memory",
		Pos:   em.stmtPos(stmt),
		Msg: fmt.Sprintf("rank %d's send here would make %s; with %s of messages waiting and destinations kept beside the ranks' %s, that exceeds the memory budget of %s: raise it with --max-memory",
			r, grew, units.Size(em.dynamicMemory()), units.Size(emulationMemory(int64(len(em.ranks)))), units.Size(float64(em.opts.Limits.memory()))),
	}
}

// roundUpSize rounds a size in bytes up to whole GiB, or below a GiB to
// whole MiB, for a flag value to suggest.
func roundUpSize(b float64) string {
	if b < 1<<30 {
		return fmt.Sprintf("%dMiB", int64(b/(1<<20))+1)
	}
	return fmt.Sprintf("%dGiB", int64(b/(1<<30))+1)
}
