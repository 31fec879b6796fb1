package emulate

import (
	"math"
	"slices"
)

// SharedCopier is optionally implemented by a CoreSharer whose prices of
// long blocking messages between ranks that share cores include the
// slowdown of copies at once: beyond a core's private caches a copy
// streams from the last-level cache or memory, which the cores share, and
// the price assumes another core copies beside it (docs/predict.md, "The
// slowdown beyond the private caches"). AloneCopies returns the same
// pricer without that slowdown (a message then costs what it does copied
// with no other copy beside it) and the least bytes of a message whose
// price has it; alone nil when there is no such slowdown. The emulator
// then prices each such copy by the copies it actually runs beside
// (copyLedger).
type SharedCopier interface {
	AloneCopies() (alone Pricer, from int64)
}

// LongCopies sums the blocking copies of an emulation whose ranks share
// cores that the copies beside them priced (SharedCopier): how many, and
// what they took alone, with the slowdown of copies at once throughout
// (the region table's price), and in the emulation.
type LongCopies struct {
	Copies int64   `json:"copies"`
	Alone  float64 `json:"alone_s"`
	Beside float64 `json:"beside_s"` // every copy beside another: the price with the slowdown
	Took   float64 `json:"took_s"`
}

// sharedCopies is what pricing copies by the copies beside them needs:
// the pricer without the slowdown of copies at once (with its optional
// interfaces, as the emulator asks them of its own pricer), the least
// bytes of a message it applies to, and the ledger of the copies placed.
type sharedCopies struct {
	alone  Pricer
	stmt   StmtMessager
	serial SerialSendRecv
	from   int64
	ledger copyLedger
	sum    LongCopies
}

// newSharedCopies returns the sharedCopies of pricer p, or nil when its
// prices have no slowdown of copies at once.
func newSharedCopies(p Pricer) *sharedCopies {
	sc, ok := p.(SharedCopier)
	if !ok {
		return nil
	}
	alone, from := sc.AloneCopies()
	if alone == nil {
		return nil
	}
	s := &sharedCopies{alone: alone, from: from, ledger: newCopyLedger()}
	s.stmt, _ = alone.(StmtMessager)
	s.serial, _ = alone.(SerialSendRecv)
	return s
}

// aloneCost is the price of rank s's current send copied with no other
// copy beside it, priced as route prices it (sendPrice) by the pricer
// without the slowdown; cost when that price is not usable or not below
// cost.
func (sh *sharedCopies) aloneCost(s int64, ss *rankState, cost float64) float64 {
	// Ranks that share cores are never a cluster's (newCoreState): the
	// network's price is the pricer's Message.
	a := sendPrice(sh.stmt, sh.serial, s, ss, sh.alone.Message(s, ss.send.peer, ss.send.bytes))
	if !(a > 0) || !isFinite(a) || a > cost {
		return cost
	}
	return a
}

// copyLedger is the bandwidth of the level the cores share (the
// last-level cache and memory) over time, as the copies placed so far
// take it: piece i runs from at[i] to at[i+1] (the last to +Inf), and in
// it the placed copies take used[i] of the level's bandwidth (1: all).
//
// A copy that takes alone seconds alone and shared seconds beside one
// other copy (the pricer's law of two copies at once, f = shared/alone)
// takes u = min(1, f/2) of the bandwidth when it runs alone: two copies
// at once then take half each and run 1/f as fast, as the law says, and
// with f = 2 (this project's host, beyond its private L2) one copy alone
// takes it all. A copy placed later runs at what the copies placed
// before it leave, up to its u: the ledger is not revised, so that a
// copy's end, once delivered, stands (the emulator's order is that of
// the data flow, not of time), and the bandwidth the copies take is
// conserved. Two copies that start at once with f = 2 then end after
// alone and 2 × alone, where sharing the level fairly ends both at
// 2 × alone: the same bandwidth, the same time for both together; with
// f < 2 the later copy may wait longer than a fair share would make it.
type copyLedger struct {
	at, used []float64
	// kept is the number of pieces after the last pruning (prune).
	kept int
}

// newCopyLedger returns a ledger whose bandwidth is free from time 0 on.
func newCopyLedger() copyLedger {
	return copyLedger{at: []float64{0}, used: []float64{0}}
}

// ledgerCap bounds the pieces a ledger keeps: past it the oldest go,
// and a copy placed before what is left is priced as if alone there.
const ledgerCap = 1 << 16

// place places a copy from start that takes alone seconds alone and
// shared seconds beside another copy, and returns when it ends.
func (l *copyLedger) place(start, alone, shared float64) float64 {
	if !(shared > alone) || !(alone > 0) || math.IsInf(shared, 0) {
		return start + shared
	}
	u := min(1, shared/alone/2)
	i := l.split(start)
	left := 1.0 // the share of the copy still to make
	t := start
	for ; i < len(l.at); i++ {
		end := math.Inf(1)
		if i+1 < len(l.at) {
			end = l.at[i+1]
		}
		take := min(u, 1-l.used[i])
		if take <= 1e-12 {
			t = end
			continue
		}
		rate := take / u / alone // share of the copy per second
		if stop := t + left/rate; stop < end {
			if stop > t { // else what is left is below the clock's resolution at t
				l.split(stop)
				l.used[i] += take
			}
			return stop
		}
		left -= rate * (end - t)
		l.used[i] += take
		t = end
	}
	// Not reached: the last piece, to +Inf, is free (a copy's use ends
	// where it stops).
	return t + left*alone
}

// split makes t the start of a piece, and returns that piece's index. A t
// before the first piece (pruned, or before time 0) starts a free piece.
func (l *copyLedger) split(t float64) int {
	i, found := slices.BinarySearch(l.at, t)
	if found {
		return i
	}
	if i == 0 {
		l.at = slices.Insert(l.at, 0, t)
		l.used = slices.Insert(l.used, 0, 0)
		return 0
	}
	l.at = slices.Insert(l.at, i, t)
	l.used = slices.Insert(l.used, i, l.used[i-1])
	return i
}

// full reports whether the ledger should be pruned before the next copy.
func (l *copyLedger) full() bool { return len(l.at) > max(1024, 2*l.kept) }

// prune drops the pieces that end at or before horizon, before which no
// copy starts any more, and past ledgerCap the oldest pieces; pieces of
// the same use next to each other become one.
func (l *copyLedger) prune(horizon float64) {
	i := max(0, l.firstAfter(horizon)-1, len(l.at)-ledgerCap)
	at, used := l.at[:0], l.used[:0]
	for j := i; j < len(l.at); j++ {
		if len(at) > 0 && used[len(used)-1] == l.used[j] {
			continue
		}
		at, used = append(at, l.at[j]), append(used, l.used[j])
	}
	l.at, l.used, l.kept = at, used, len(at)
}

// firstAfter is the index of the first piece that starts after t.
func (l *copyLedger) firstAfter(t float64) int {
	i, found := slices.BinarySearch(l.at, t)
	if found {
		return i + 1
	}
	return i
}

// copyTime is the time a blocking copy of rank s's current send, priced
// cost, takes from start by the copies beside it (copyLedger), when its
// price has the slowdown of copies at once; cost otherwise.
func (em *emulator) copyTime(s int64, ss *rankState, start, cost float64) float64 {
	sh := em.cores.shared
	if sh == nil || ss.send.bytes < sh.from {
		return cost
	}
	if sh.ledger.full() {
		sh.ledger.prune(em.copyHorizon())
	}
	alone := sh.aloneCost(s, ss, cost)
	took := sh.ledger.place(start, alone, cost) - start
	sh.sum.Copies++
	sh.sum.Alone += alone
	sh.sum.Beside += cost
	sh.sum.Took += took
	return took
}

// copyHorizon is a time before which no copy starts any more: the
// earliest clock of a rank not done (a copy starts once both sides have
// posted, at or after their clocks).
func (em *emulator) copyHorizon() float64 {
	h := math.Inf(1)
	for r := range em.ranks {
		if rs := &em.ranks[r]; !rs.done {
			h = min(h, rs.clock)
		}
	}
	return h
}
