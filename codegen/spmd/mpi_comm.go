//go:build perfc_mpi

package spmd

// The kernel's messages over MPI: the same methods the goroutine
// transport gives the generated main.go, with the same checks, counts and
// errors.

// tagOf is the MPI tag of a send from site: the site itself, so that a
// receiver can name the sender's statement in errors.
func (w *world) tagOf(site int) int {
	if site < 0 || site > w.tagUB {
		return 0
	}
	return site
}

// sync reports whether a send of n bytes is synchronous (MPI_Ssend).
func (w *world) sync(n int) bool { return w.eager <= 0 || n >= w.eager }

// fits stops the program on a payload too large for one MPI count.
func (r *rank) fits(n, site int) {
	if !fitsInt(n) {
		r.w.fatalf("rank %d: the payload of %d B at %s is larger than one MPI message can be (2 GiB)", r.id, n, r.w.k.stmtOf(site))
	}
}

// mpiFailed stops the program on a failed MPI call at site.
func (r *rank) mpiFailed(err error, site int) {
	r.w.fatalf("rank %d: %v at %s", r.id, err, r.w.k.stmtOf(site))
}

// received checks that a receive at site of buf from rank from got what
// the sender's statement (its tag) sent: the same number of bytes.
func (r *rank) received(err error, site, from, tag, count int, buf []byte) {
	w := r.w
	switch {
	case err != nil && isTruncate(err):
		w.fatalf("rank %d sends more than %d B to rank %d (%s), but rank %d receives %d B (%s); a send and its receive must move the same bytes",
			from, len(buf), r.id, w.k.stmtOf(tag), r.id, len(buf), w.k.stmtOf(site))
	case err != nil:
		r.mpiFailed(err, site)
	case count != len(buf):
		w.fatalf("rank %d sends %d B to rank %d (%s), but rank %d receives %d B (%s); a send and its receive must move the same bytes",
			from, count, r.id, w.k.stmtOf(tag), r.id, len(buf), w.k.stmtOf(site))
	}
}

// send is `send buf to peer`: blocking until the receiver has the bytes
// (MPI_Ssend). A peer of -1 (none) does nothing.
func (r *rank) send(site, to int, buf []byte) {
	if uint(to) >= uint(r.size) {
		r.noPeer(to, site, "the destination")
		return
	}
	if counting {
		r.countMessage(site, to, len(buf))
	}
	r.fits(len(buf), site)
	w := r.w
	w.begin(opSend, to, site)
	if err := mpiSend(buf, to, w.tagOf(site), w.sync(len(buf))); err != nil {
		r.mpiFailed(err, site)
	}
	w.end()
}

// recv is `recv buf from peer`: blocking until the bytes have arrived.
func (r *rank) recv(site, from int, buf []byte) {
	if uint(from) >= uint(r.size) {
		r.noPeer(from, site, "the source")
		return
	}
	if counting {
		r.countMessage(site, from, len(buf))
	}
	r.fits(len(buf), site)
	w := r.w
	w.begin(opRecv, from, site)
	tag, count, err := mpiRecv(buf, from)
	r.received(err, site, from, tag, count, buf)
	w.end()
}

// sendrecv sends sbuf to `to` and receives rbuf from `from` at the same
// time (MPI_Issend, MPI_Irecv, MPI_Waitall), so that a ring of sendrecvs
// cannot deadlock. A peer of -1 (none) leaves that direction out.
func (r *rank) sendrecv(sendSite, recvSite, to int, sbuf []byte, from int, rbuf []byte) {
	r.checkPeer(to, sendSite, "the destination")
	r.checkPeer(from, recvSite, "the source")
	if counting {
		if to >= 0 {
			r.countMessage(sendSite, to, len(sbuf))
		}
		if from >= 0 {
			r.countMessage(recvSite, from, len(rbuf))
		}
	}
	if to < 0 && from < 0 {
		return
	}
	r.fits(len(sbuf), sendSite)
	r.fits(len(rbuf), recvSite)
	w := r.w
	w.begin(opSendrecv, -1, sendSite)
	tag, count, err := mpiSendrecv(sbuf, to, w.tagOf(sendSite), w.sync(len(sbuf)), rbuf, from)
	if from >= 0 {
		r.received(err, recvSite, from, tag, count, rbuf)
	} else if err != nil {
		r.mpiFailed(err, sendSite)
	}
	w.end()
}

// collDone finishes a collective: a failed call stops the program.
func (r *rank) collDone(err error, site int) {
	if err != nil {
		r.mpiFailed(err, site)
	}
	r.w.end()
}

// bcast is MPI_Bcast of the root's buf.
func (r *rank) bcast(site, root int, buf []byte) {
	r.checkRoot(root, site)
	r.enterColl(site, len(buf))
	r.fits(len(buf), site)
	r.w.begin(opColl, -1, site)
	r.collDone(mpiBcast(buf, root), site)
}

// reduce is MPI_Reduce in place at the root: the root's buf gets the
// combination, the others' are unchanged.
func (r *rank) reduce(site, root int, op redOp, el elemKind, buf []byte) {
	r.checkRoot(root, site)
	r.enterColl(site, len(buf))
	r.fits(len(buf), site)
	r.w.begin(opColl, -1, site)
	r.collDone(mpiReduce(buf, el, op, root, r.id), site)
}

// allreduce is MPI_Allreduce in place.
func (r *rank) allreduce(site int, op redOp, el elemKind, buf []byte) {
	r.enterColl(site, len(buf))
	r.fits(len(buf), site)
	r.w.begin(opColl, -1, site)
	r.collDone(mpiAllreduce(buf, el, op), site)
}

// scan is MPI_Scan in place (an inclusive prefix).
func (r *rank) scan(site int, op redOp, el elemKind, buf []byte) {
	r.enterColl(site, len(buf))
	r.fits(len(buf), site)
	r.w.begin(opColl, -1, site)
	r.collDone(mpiScan(buf, el, op), site)
}

// scatter is MPI_Scatter of the root's P-block buffer into every buf.
func (r *rank) scatter(site, root int, el elemKind, buf []byte) {
	all := r.rootedColl(site, root, el, buf)
	r.collDone(mpiScatter(all, buf, root), site)
}

// gather is MPI_Gather of every buf into the root's P-block buffer.
func (r *rank) gather(site, root int, el elemKind, buf []byte) {
	all := r.rootedColl(site, root, el, buf)
	r.collDone(mpiGather(buf, all, root), site)
}

// rootedColl starts a scatter or gather of buf: it checks the root, counts
// the call, and returns the root's P-block buffer (nil on the other ranks).
func (r *rank) rootedColl(site, root int, el elemKind, buf []byte) []byte {
	r.checkRoot(root, site)
	r.enterColl(site, len(buf))
	r.fits(len(buf)*r.size, site)
	var all []byte
	if r.id == root {
		all = r.bigBuf(false, buf, el)
	}
	r.w.begin(opColl, -1, site)
	return all
}

// allgather is MPI_Allgather of every buf into every P-block buffer.
func (r *rank) allgather(site int, el elemKind, buf []byte) {
	r.enterColl(site, len(buf))
	r.fits(len(buf)*r.size, site)
	all := r.bigBuf(false, buf, el)
	r.w.begin(opColl, -1, site)
	r.collDone(mpiAllgather(buf, all), site)
}

// alltoall is MPI_Alltoall between the P-block send and receive buffers;
// a rank's own block is its buf, as in the goroutine transport.
func (r *rank) alltoall(site int, el elemKind, buf []byte) {
	r.enterColl(site, len(buf))
	n := len(buf)
	r.fits(n*r.size, site)
	out := r.bigBuf(false, buf, el)
	in := r.bigBuf(true, buf, el)
	copy(out[r.id*n:(r.id+1)*n], buf)
	r.w.begin(opColl, -1, site)
	r.collDone(mpiAlltoall(out, in, n), site)
}

// barrier is MPI_Barrier.
func (r *rank) barrier(site int) {
	r.enterColl(site, 0)
	r.w.begin(opColl, -1, site)
	r.collDone(mpiBarrier(), site)
}
