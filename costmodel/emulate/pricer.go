// Package emulate is the discrete-event emulator of perfc: it runs every
// rank's schedule (package analyze) event by event on a machine it knows only
// through the Pricer interface, and finds the critical path, per-rank busy
// and idle time, link waits on clusters of SMP nodes and deadlocks; it also
// holds the LANL wavefront analysis (AnalyzeWavefront). The cost model
// (package costmodel) implements Pricer from a machine table and calls
// Emulate for kernels whose ranks wait on each other; this package does not
// import it. Everything it returns is a prediction, labelled as such.
package emulate

import (
	"math"

	"perfc/analyze"
	"perfc/lang"
)

// Pricer prices the events of a schedule on one machine. The cost model
// implements it from a machine table; the emulator uses nothing else, so a
// test can emulate with a hand-made Pricer (every message one step).
// Times are in seconds.
type Pricer interface {
	// Compute is the time of one execution of a compute segment.
	Compute(w *analyze.Work) float64
	// Message is the time of one point-to-point message of n bytes from
	// rank src to rank dst, from the start of the send to the end of the
	// receive when neither side waits.
	Message(src, dst int64, bytes int64) float64
	// Collective is the time of one collective call (kind, op and elem as
	// the kernel language spells them) of the given payload size on
	// participants ranks.
	Collective(kind, op, elem string, bytes int64, participants int64) float64
	// EagerLimit is the largest message a send hands off without waiting
	// for the receiver (it completes after injection); -1 when every send
	// is synchronous, as in the LANL model.
	EagerLimit() int64
	// Cluster describes clusters of SMP nodes, or returns nil for a flat
	// machine.
	Cluster() *Cluster
}

// AfterBarrierPricer is implemented by a Pricer that prices a collective call
// that runs right after a barrier (analyze.AfterBarrier) apart: the
// emulator asks CollectiveAfterBarrier for those calls, and Collective for
// the others. A machine table's pricer does so when the table gives the
// call's entry an `after_barrier:` time.
type AfterBarrierPricer interface {
	CollectiveAfterBarrier(kind, op, elem string, bytes int64, participants int64) float64
}

// RankComputer is implemented by a Pricer whose compute segments cost
// different amounts on different classes of ranks: the machine pricer
// built from an analysis (costmodel.PricerFor) charges a segment its share of its
// region's cost on the rank's class, cache lines and all. The emulator
// prices a segment on rank r as ComputeOn(ComputeClass(r), w), and may
// reuse the price for every rank of the class.
type RankComputer interface {
	// ComputeClass is the class of rank: ranks of one class pay the same
	// for the same segment. Negative for a rank outside every class.
	ComputeClass(rank int64) int
	// ComputeOn is the time of one execution of compute segment w on a
	// rank of the class.
	ComputeOn(class int, w *analyze.Work) float64
}

// Cluster maps a Px × Py rank grid onto nodes of Sx × Sy ranks (the node of
// rank (rx, ry) is (rx/Sx, ry/Sy)) and bounds the messages in flight across
// the boundary between two neighbouring nodes: at most Lx travelling
// east–west and Ly travelling north–south at a time. A message between
// nodes costs Inter (seconds, as a function of its size) instead of the
// Pricer's Message.
type Cluster struct {
	Sx, Sy int64
	Lx, Ly int64
	Inter  func(bytes int64) float64
}

// Scheduler is implemented by a Pricer that built rank schedules while it
// priced (the machine pricer builds them for its messages): the emulator
// takes rank r's schedule from it rather than build it again. A nil
// schedule and a nil error mean it keeps none; the emulator builds one.
type Scheduler interface {
	Schedule(r int64) (*analyze.Schedule, error)
}

// EntryChecker is implemented by a Pricer built from a machine table: for
// an event it priced at a negative or non-finite time, described by what,
// it returns the error that names the table's entry behind the price
// (machines.Cost.Check), or nil when no entry explains it.
type EntryChecker interface {
	MessageEntryError(src, dst int64, bytes int64, what string) error
	CollectiveEntryError(kind, op, elem string, bytes int64, participants int64, what string) error
}

// computeCost is what compute segment w costs on rank under p.
func computeCost(p Pricer, rank int64, w *analyze.Work) float64 {
	if rc, ok := p.(RankComputer); ok {
		return rc.ComputeOn(rc.ComputeClass(rank), w)
	}
	return p.Compute(w)
}

// newSchedule returns rank r's schedule: from the pricer when it is a
// Scheduler that keeps one, else a new one. A schedule is the costliest
// part of a small prediction to build.
func newSchedule(k *lang.Checked, p Pricer, r int64) (*analyze.Schedule, error) {
	if sp, ok := p.(Scheduler); ok {
		if s, err := sp.Schedule(r); s != nil || err != nil {
			return s, err
		}
	}
	return analyze.NewSchedule(k, r)
}

// isFinite reports whether t is a usable time.
func isFinite(t float64) bool { return !math.IsNaN(t) && !math.IsInf(t, 0) }
