//go:build perfc_mpi

package spmd

import (
	"fmt"
	"syscall"
	"time"
	"unsafe"
)

// pause sleeps for d in the kernel, without a Go timer (a pending timer
// makes the scheduler read the clock at every goroutine switch). The MPI
// transport needs Open MPI, so a Unix system.
func pause(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
	}
}

// The MPI transport's deadlock watchdog. A rank blocked in MPI cannot be
// inspected by the others, so each rank watches itself: before every
// blocking call it records what it waits for (begin) and counts the calls
// that complete (end); a goroutine looks every quarter of -stall, and when
// the rank has waited in one call for -stall without completing it, it
// prints what the rank waits for, gives the other ranks a moment to print
// theirs (every rank of a deadlock stalls at about the same time), and
// ends the program with MPI_Abort. A rank that waits because its peer
// computes longer than -stall is reported too: the message says to raise
// -stall then.

// Operations a rank waits in, for the watchdog's report.
const (
	opNone = iota
	opSend
	opRecv
	opSendrecv
	opColl
	opStart  // the barrier before a run
	opEnd    // the barrier after a run
	opGather // gathering times or counts after runs
	opWait   // a wait or waitall
)

// begin records that the rank enters a blocking operation with peer (or
// -1) at site (or -1).
func (w *world) begin(op, peer, site int) {
	w.op.Store(uint64(op) | uint64(uint32(peer+1))<<8&0xffffff00 | uint64(uint32(site+1))<<32)
}

// end records that the operation completed.
func (w *world) end() {
	w.op.Store(opNone)
	w.done.Add(1)
}

// watch reports a rank that has waited in one operation for stall.
func (w *world) watch(stop <-chan struct{}, stall time.Duration) {
	period := stall / 4
	var lastOp, lastDone uint64
	waited := time.Duration(0)
	for {
		pause(period)
		select {
		case <-stop:
			return
		default:
		}
		op, done := w.op.Load(), w.done.Load()
		if op == opNone || op != lastOp || done != lastDone {
			lastOp, lastDone, waited = op, done, 0
			continue
		}
		if waited += period; waited < stall {
			continue
		}
		w.once.Do(func() {
			fmt.Fprintf(w.stderr, "error: deadlock or stall: rank %d has waited %v %s\n"+
				"  no rank can continue when every rank waits for a message no rank will send or receive: order them so that every send meets its receive (or use sendrecv); "+
				"if a rank only computes for longer than that, raise the program's -stall\n",
				w.id, waited.Round(time.Millisecond), w.describeOp(op))
			// Let the other ranks of a deadlock say what they wait for
			// before the abort ends them.
			pause(min(stall/2, 2*time.Second) + 500*time.Millisecond)
			mpiAbort(3)
		})
		return
	}
}

// describeOp says what an operation word means.
func (w *world) describeOp(op uint64) string {
	kind := int(op & 0xff)
	peer := int(op>>8&0xffffff) - 1
	site := int(int32(uint32(op>>32))) - 1
	stmt := w.k.stmtOf(site)
	switch kind {
	case opSend:
		return fmt.Sprintf("to send to rank %d (%s)", peer, stmt)
	case opRecv:
		return fmt.Sprintf("to receive from rank %d (%s)", peer, stmt)
	case opSendrecv:
		return fmt.Sprintf("in a sendrecv (%s)", stmt)
	case opColl:
		return fmt.Sprintf("in the collective at %s for the other ranks", stmt)
	case opWait:
		return fmt.Sprintf("in the wait at %s for its requests' messages", stmt)
	case opStart:
		return "for the other ranks at the start of a run"
	case opEnd:
		return "for the other ranks: it has finished the run"
	case opGather:
		return "for the other ranks to gather the results"
	}
	return "in an MPI call"
}

// unsafeBytes views a slice of 8-byte numbers as bytes.
func unsafeBytes[T int64 | float64](xs []T) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(xs))), len(xs)*8)
}
