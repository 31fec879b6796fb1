//go:build !perfc_mpi

package spmd

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// watchPeriod is how often the watchdog looks at the ranks.
const watchPeriod = 250 * time.Millisecond

// watch reports a deadlock: every rank either waits in a rendezvous or
// has finished its run, and no rendezvous has completed or been posted for
// two periods. The slots tell it all: a posted operation names the rank
// that waits (the slot's sender or receiver), its statement, and the
// slot's generation moves with every completed rendezvous.
//
// It sleeps on a Go timer: pause (mpi_watch.go) is a system call, and a
// goroutine in a system call keeps its P until the runtime's monitor
// takes it back, microseconds to milliseconds later, while a rank that
// yielded the P (a spinning rank every 50 µs, a rank handing its core on)
// waits for it (the NOISE benchmark's lone 8 B exchange measured
// 80–100 µs, a new watchdog starting with every run). Parking ranks once
// made it use pause, because a pending timer makes the scheduler read the
// clock at every goroutine switch; ranks that share cores now switch only
// through their coreSet (cores.go), at a message, not at every poll.
func (w *world) watch(stop <-chan struct{}, period time.Duration) {
	var last []uint64
	stuck := 0
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		now, stalled := w.snapshot()
		if stalled && slices.Equal(now, last) {
			stuck++
		} else {
			stuck = 0
		}
		last = now
		if stuck >= 2 {
			w.fail("%s", w.deadlockReport(now))
			return
		}
	}
}

// waiter is a posted operation: rank waits to send to or receive from
// peer, at site.
type waiter struct {
	rank, peer, site int
	send             bool
}

// snapshot returns the words of every slot (a rank's states at the end)
// and whether no rank can make progress by itself: every rank waits in a
// posted operation or has finished.
func (w *world) snapshot() ([]uint64, bool) {
	var words []uint64
	waiting := make([]bool, w.size)
	for _, wt := range w.waiters(&words) {
		waiting[wt.rank] = true
	}
	for i := range w.requestWaiters(&words) {
		waiting[i] = true
	}
	stalled, any := true, false
	for i, r := range w.ranks {
		done := r.state.Load() == stateDone
		words = append(words, uint64(r.state.Load()))
		any = any || waiting[i]
		stalled = stalled && (waiting[i] || done)
	}
	return words, stalled && any
}

// waiters lists the posted operations, appending every slot's word to
// words.
func (w *world) waiters(words *[]uint64) []waiter {
	var out []waiter
	for i := range w.slots {
		s := w.slots[i].Load()
		if s == nil {
			continue
		}
		word := s.word.Load()
		*words = append(*words, word)
		pair := i / numContexts
		dst, src := pair/w.size, pair%w.size
		switch word & postedMask {
		case slotSend:
			out = append(out, waiter{rank: src, peer: dst, site: postedSite(word), send: true})
		case slotRecv:
			out = append(out, waiter{rank: dst, peer: src, site: postedSite(word)})
		}
	}
	return out
}

// deadlockReport says what every rank waits for.
func (w *world) deadlockReport([]uint64) string {
	var b strings.Builder
	b.WriteString("deadlock: every rank waits for a message that no rank will send or receive")
	byRank := map[int][]waiter{}
	var words []uint64
	for _, wt := range w.waiters(&words) {
		byRank[wt.rank] = append(byRank[wt.rank], wt)
	}
	mail := w.requestWaiters(&words)
	for i, r := range w.ranks {
		if i == 16 {
			fmt.Fprintf(&b, "\n  … and %d more ranks", len(w.ranks)-i)
			break
		}
		if r.state.Load() == stateDone {
			fmt.Fprintf(&b, "\n  rank %d has finished the run", r.id)
			continue
		}
		for _, wt := range byRank[i] {
			what := "to receive from"
			if wt.send {
				what = "to send to"
			}
			fmt.Fprintf(&b, "\n  rank %d waits %s rank %d (%s)", r.id, what, wt.peer, w.k.stmtOf(wt.site))
		}
		if m, ok := mail[i]; ok {
			fmt.Fprintf(&b, "\n  rank %d %s", r.id, m)
		}
	}
	if len(mail) > 0 {
		b.WriteString("\na wait completes only when its messages have moved: post every receive a wait needs before the wait, and match every post")
	} else {
		b.WriteString("\nsends and receives are blocking rendezvous: order them so that every send meets its receive (or use sendrecv)")
	}
	return b.String()
}

// fail prints an error and ends the program (in a test, exit returns).
func (w *world) fail(format string, args ...any) {
	w.once.Do(func() {
		fmt.Fprintf(w.stderr, "error: "+format+"\n", args...)
		w.exit(2)
	})
}
