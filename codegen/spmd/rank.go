package spmd

import (
	"runtime/debug"
	"strings"
	"unsafe"
)

// The parts of a rank that do not depend on how messages travel. Each
// transport (world.go: goroutines and rendezvous slots, the default;
// mpi_*.go: one MPI process per rank, built with the tag perfc_mpi)
// defines the types world and rank and the message methods the generated
// main.go calls (send, recv, sendrecv, the collectives, barrier); both
// embed rankCommon in their rank and give their world the fields k, size
// and stderr and the methods this file, program.go, timing.go and
// counts.go use:
//
//	func (w *world) fatalf(format string, args ...any)  // report, stop the program
//	func (w *world) runs(reps int) [][]int64            // reps runs; region ns per rank, on every rank
//	func (w *world) keepRanks() (stop func())           // keep the ranks between calls of runs until stop
//	func (w *world) checksum() (string, bool)           // every rank's data summed in rank order
//	func (w *world) rankCounters() []rankCounters       // the counting build's counters of every rank
//	func (w *world) transportNotes() []string           // what a reader of the times must know
//	func readClock() stamp                              // the region timer
//	func elapsedNs(from, to stamp) int64

// rankCommon is what every rank keeps the same way whatever the
// transport: counters, region timers, scratch buffers.
type rankCommon struct {
	// Counters of the instrumented build, indexed by site.
	cnt, bytes, peer []int64

	// Region timers: accumulated nanoseconds per region, the region that
	// is running and the enclosing ones, and when the running one resumed.
	regionNs []int64
	cur      int
	stack    []int
	resumed  stamp

	scratch [numScratch][]byte // reusable buffers, grown on demand
	big     map[bigKey][]byte  // the P-block buffers of scatter, gather, allgather and alltoall (bigBuf)
	site    int                // the collective in progress, for messages
}

// newRankCommon allocates the counters and buffers of a rank of k.
func newRankCommon(k *kernelDesc) rankCommon {
	return rankCommon{
		cnt:      make([]int64, len(k.sites)),
		bytes:    make([]int64, len(k.sites)),
		peer:     make([]int64, len(k.sites)),
		big:      map[bigKey][]byte{},
		regionNs: make([]int64, len(k.regions)),
	}
}

// rankCounters is one rank's counters of the instrumented build: per site,
// and for a kernel with requests, the requests posted, completed and
// overlapped per region (nil without requests).
type rankCounters struct {
	cnt, bytes, peer              []int64
	posted, completed, overlapped []int64
}

// Scratch buffers of a rank. Each use has its own so that nested uses
// (a collective inside which a combine needs a temporary) never share.
const (
	scrAcc      = iota // reduce and scan: the running result
	scrTmp             // reduce, allreduce, scan: a partner's contribution
	scrTree            // scatter and gather: a subtree's blocks
	scrRotate          // scatter and gather on a root other than 0
	scrReplace         // sendrecv in place: a copy of what is sent
	scrBytesOut        // `SIZE bytes` payloads: the send side
	scrBytesIn         // `SIZE bytes` payloads: the receive side
	scrVar             // a var payload
	scrVar2            // the second var payload of a sendrecv
	numScratch
)

// stmtOf names the statement of a site for messages.
func (k *kernelDesc) stmtOf(site int) string {
	if site >= 0 && site < len(k.sites) {
		return k.sites[site].stmt
	}
	return "an internal message"
}

// checkPeer stops the program on a peer that is not a rank.
func (r *rank) checkPeer(peer, site int, what string) {
	if peer < -1 || peer >= r.size {
		r.peerError(peer, site, what)
	}
}

// noPeer handles a peer outside the ranks: none (-1) does nothing (it
// returns false: nothing to wait for), anything else stops the program.
func (r *rank) noPeer(peer, site int, what string) bool {
	if peer != -1 {
		r.peerError(peer, site, what)
	}
	return false
}

// peerError reports a peer that is not a rank; apart from checkPeer so
// that the check inlines.
func (r *rank) peerError(peer, site int, what string) {
	r.w.fatalf("rank %d: %s %d at %s is not a rank (the ranks are 0..%d)", r.id, what, peer, r.w.k.stmtOf(site), r.w.size-1)
}

// countMessage records one message of a point-to-point site.
func (r *rank) countMessage(site, peer, n int) {
	r.cnt[site]++
	r.bytes[site] += int64(n)
	r.peer[site] = int64(peer)
}

// enterColl counts one call of collective site and notes it for messages.
func (r *rank) enterColl(site int, n int) {
	r.site = site
	if counting {
		r.cnt[site]++
		r.bytes[site] += int64(n)
	}
}

// checkRoot stops the program on a root that is not a rank.
func (r *rank) checkRoot(root, site int) {
	if root < 0 || root >= r.w.size {
		r.w.fatalf("rank %d: the root %d at %s is not a rank (the ranks are 0..%d)", r.id, root, r.w.k.stmtOf(site), r.w.size-1)
	}
}

// sendrecvReplace is sendrecv in place (`sendrecv x to a from b`,
// `exchange x with q`): what is sent is copied first, as
// MPI_Sendrecv_replace does, so the receive cannot overwrite it.
func (r *rank) sendrecvReplace(sendSite, recvSite, to, from int, buf []byte) {
	out := buf
	if to >= 0 && from >= 0 {
		out = r.scratchBuf(scrReplace, len(buf))
		copy(out, buf)
	}
	r.sendrecv(sendSite, recvSite, to, out, from, buf)
}

// scratchBuf returns scratch buffer i with n bytes, growing it if needed.
func (r *rank) scratchBuf(i, n int) []byte {
	if cap(r.scratch[i]) < n {
		r.scratch[i] = make([]byte, n)
	}
	return r.scratch[i][:n]
}

// bytesBuf is the buffer of a `SIZE bytes` payload: out for what a rank
// sends, in for what it receives or, in a collective that works in place
// (bcast, reduce, allreduce, scan), both. Its contents are not data, but
// they are memory: each side is filled when it grows, so that its pages
// exist. A fresh allocation reads as the kernel's one shared zero page,
// which stays in cache: a 16 MB send then cost a quarter of a real copy
// (examples/permutation.spmd, docs/codegen.md), and a 32 MB bcast, whose
// root sends from the in side, a third (0.72 against 2.1 ms on 2 ranks,
// 2026-11-26).
//
//lint:ignore U1000 used by the generated main.go, for `SIZE bytes` payloads
func (r *rank) bytesBuf(in bool, n int) []byte {
	if n < 0 {
		r.w.fatalf("rank %d: a payload of %d bytes", r.id, n)
	}
	i, seed := scrBytesOut, seedOf(r.id, 2000)
	if in {
		i, seed = scrBytesIn, seedOf(r.id, 2001)
	}
	grows := cap(r.scratch[i]) < n
	b := r.scratchBuf(i, n)
	if grows {
		fillBytes(b, elBytes, seed)
	}
	return b
}

// bigKey names a P-block buffer by the payload it stands for: the first
// byte of the rank's block as the statement passes it (the same slice
// start of the same array, or the runtime's buffer of a `SIZE bytes`
// payload), the element type, and for alltoall which side. Every payload
// of a generated program is heap memory (the rank's arrays, its scratch
// buffers), which Go never moves, so the address names it for the run.
type bigKey struct {
	at   uintptr
	el   elemKind
	recv bool
}

// bigBuf returns a rank's buffer of P blocks of the payload's length (the
// P-times larger buffer of scatter, gather, allgather and alltoall that the
// program keeps itself; recv for alltoall's receive side), filled with
// values of the payload's element type when it is allocated or grows.
// Every statement whose payload starts at the same place shares it, as a
// program that scatters one array twice sends from one buffer; a shorter
// payload uses its beginning. Until 2026-11-28 each statement had its
// own, and perfc calibrate's scatter after a barrier, a statement of its
// own timed right after the back-to-back one of the same length, found its
// 4 MiB of blocks out of the caches at its first call (330 against 220 µs
// a call on 4 ranks at 992 KiB; docs/accuracy.md, session 35).
func (r *rank) bigBuf(recv bool, payload []byte, el elemKind) []byte {
	size := len(payload) * r.w.size
	k := bigKey{at: uintptr(unsafe.Pointer(unsafe.SliceData(payload))), el: el, recv: recv}
	b := r.big[k]
	if cap(b) < size {
		b = make([]byte, size)
		seed := 1000
		if recv {
			seed = 1001
		}
		fillBytes(b, el, seedOf(r.id, seed))
		r.big[k] = b
	}
	return b[:size]
}

// neighbor returns the rank at grid offset (dx, dy), or -1 (none)
// outside the grid.
//
//lint:ignore U1000 used by the generated main.go, for neighbor(dx, dy) and grid peers
func (r *rank) neighbor(dx, dy int) int {
	gx, gy := r.w.k.gridX, r.w.k.gridY
	x, y := r.id%gx+dx, r.id/gx+dy
	if x < 0 || y < 0 || x >= gx || y >= gy {
		return -1
	}
	return y*gx + x
}

// kernelFrame returns the line of the generated kernel body where a rank
// stopped, from the stack of the recovering goroutine.
func kernelFrame() string {
	lines := strings.Split(string(debug.Stack()), "\n")
	for i, l := range lines {
		if strings.Contains(l, ").run(") && i+1 < len(lines) {
			return "in the kernel body at " + strings.TrimSpace(lines[i+1]) + " (each statement there carries its .spmd position in a comment)"
		}
	}
	return ""
}
