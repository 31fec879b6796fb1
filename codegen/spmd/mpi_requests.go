//go:build perfc_mpi

package spmd

import (
	"runtime"
	"unsafe"
)

// Non-blocking messages over MPI: isend is MPI_Issend (complete when the
// receiver has the message, as the language's isend; MPI_Isend below
// -eager-limit), irecv MPI_Irecv, wait and waitall MPI_Waitall of the
// active requests they name. MPI keeps the buffer of a posted message
// until its wait, so the buffer is pinned (runtime.Pinner) meanwhile, as
// cgo's rules ask of Go memory that C holds after a call. The methods,
// their checks, counts and errors are those of the goroutine transport
// (requests.go).

// mpiReq is one request's posted message.
type mpiReq struct {
	active bool
	site   int
	peer   int
	send   bool
	buf    []byte
	work   int64 // rank.work at the post, for the overlapped count
	pin    runtime.Pinner
}

// mpiReqState is a rank's requests.
type mpiReqState struct {
	reqs     []mpiReq
	mpi      *mpiRequests
	lastSite []int    // per request: the post its last wait completed, or -1
	bufs     [][]byte // per request: the buffer of a var or 'SIZE bytes' payload
	waitQs   []int    // scratch: the requests a wait completes
	// posted, completed and overlapped count the requests per region of
	// their post (the counting build).
	posted, completed, overlapped []int64
}

// newMPIReqState prepares the requests of kernel k.
func newMPIReqState(k *kernelDesc) *mpiReqState {
	n := len(k.requests)
	return &mpiReqState{reqs: make([]mpiReq, n), mpi: newMPIRequests(n), lastSite: make([]int, n), bufs: make([][]byte, n),
		waitQs: make([]int, 0, n), posted: make([]int64, len(k.regions)), completed: make([]int64, len(k.regions)),
		overlapped: make([]int64, len(k.regions))}
}

// postReq posts a request's message.
func (r *rank) postReq(site, peer int, buf []byte, req int, send bool) {
	if !r.reqPeer(peer, site, send) {
		return
	}
	rq, w := r.rq, r.w
	op := &rq.reqs[req]
	if op.active {
		w.fatalf("rank %d: request %s is posted again at %s while its post at %s is still active; complete it first with 'wait %s'",
			r.id, w.k.requests[req], w.k.stmtOf(site), w.k.stmtOf(op.site), w.k.requests[req])
	}
	r.fits(len(buf), site)
	op.active, op.site, op.peer, op.send, op.buf = true, site, peer, send, buf
	if counting {
		r.countMessage(site, peer, len(buf))
		rq.posted[w.k.sites[site].region]++
		op.work = r.work()
	}
	if len(buf) > 0 {
		op.pin.Pin(unsafe.SliceData(buf))
	}
	var err error
	if send {
		err = rq.mpi.isend(req, buf, peer, w.tagOf(site), w.sync(len(buf)))
	} else {
		err = rq.mpi.irecv(req, buf, peer)
	}
	if err != nil {
		r.mpiFailed(err, site)
	}
}

// waitReqs is `wait a, b`: complete the named requests that are active;
// a request that is not (never posted, or posted to none) is skipped.
func (r *rank) waitReqs(site int, reqs ...int) {
	rq := r.rq
	qs := rq.waitQs[:0]
	for _, q := range reqs {
		rq.lastSite[q] = -1
		if rq.reqs[q].active {
			qs = append(qs, q)
		}
	}
	r.finish(site, qs)
}

// waitAll is `waitall`: complete every active request.
func (r *rank) waitAll(site int) {
	rq := r.rq
	qs := rq.waitQs[:0]
	for q := range rq.reqs {
		rq.lastSite[q] = -1
		if rq.reqs[q].active {
			qs = append(qs, q)
		}
	}
	r.finish(site, qs)
}

// finish completes the requests qs (MPI_Waitall), checks what the
// receives got, and retires the requests.
func (r *rank) finish(site int, qs []int) {
	if len(qs) == 0 {
		return
	}
	rq, w := r.rq, r.w
	w.begin(opWait, -1, site)
	status, err := rq.mpi.waitall(qs)
	var work int64
	if counting {
		work = r.work()
	}
	for i, q := range qs {
		op := &rq.reqs[q]
		tag, count, qerr := status(i)
		if err == nil {
			qerr = nil
		}
		if !op.send {
			r.received(qerr, op.site, op.peer, tag, count, op.buf)
		} else if qerr != nil {
			r.mpiFailed(qerr, op.site)
		}
		op.pin.Unpin()
		op.active, op.buf = false, nil
		rq.lastSite[q] = op.site
		if counting {
			region := w.k.sites[op.site].region
			rq.completed[region]++
			if work > op.work {
				rq.overlapped[region]++
			}
		}
	}
	if err != nil {
		r.mpiFailed(err, site)
	}
	w.end()
}

// completedAt returns the position of the post that the last wait naming
// request req completed, or "" when that wait found it inactive.
//
//lint:ignore U1000 used by the generated main.go, to unpack a var an irecv received
func (r *rank) completedAt(req int) string {
	if s := r.rq.lastSite[req]; s >= 0 {
		return r.w.k.sites[s].stmt
	}
	return ""
}

// requestsDone is the end of a loop iteration (site: the loop; posts: the
// post sites whose innermost loop it is) or of the kernel body (site -1,
// no posts: every request): a request posted there must be complete.
func (r *rank) requestsDone(site int, posts ...int) {
	for q := range r.rq.reqs {
		if op := &r.rq.reqs[q]; op.active {
			kind := "irecv"
			if op.send {
				kind = "isend"
			}
			r.checkDone(site, posts, q, op.site, kind)
		}
	}
}
