package spmd

import "unsafe"

// What both transports' non-blocking messages share: the counting build's
// measure of computation (for the overlapped requests) and the error of a
// request that is still active where it must be complete.

// work is the counting build's measure of computation so far: the
// executions of the sites that count an operation or a reference, which
// the analyzer's overlapped requests are defined by.
func (r *rank) work() int64 {
	var n int64
	for i, s := range r.w.k.sites {
		switch s.kind {
		case siteExec, siteCond, siteHoist:
			if len(s.refs) > 0 || hasOps(s.ops) {
				n += r.cnt[i]
			}
		}
	}
	return n
}

// hasOps reports whether a site counts an operation.
func hasOps(ops []opTally) bool {
	for _, o := range ops {
		if o.n > 0 {
			return true
		}
	}
	return false
}

// checkDone stops the program when request req, posted at postSite by
// the statement kind (isend or irecv), is still active at requestsDone's
// site (-1: the end of the kernel) whose posts include postSite.
func (r *rank) checkDone(site int, posts []int, req, postSite int, kind string) {
	name := r.w.k.requests[req]
	if site < 0 {
		r.w.fatalf("rank %d: request %s of the %s at %s is still active at the end of the kernel: no wait completed it; add 'wait %s' (or 'waitall') after it",
			r.id, name, kind, r.w.k.stmtOf(postSite), name)
	}
	for _, p := range posts {
		if p == postSite {
			r.w.fatalf("rank %d: request %s of the %s at %s is still active at the end of an iteration of the loop at %s: every iteration must complete what it posts; add 'wait %s' (or 'waitall') after it in the loop body",
				r.id, name, kind, r.w.k.stmtOf(postSite), r.w.k.stmtOf(site), name)
		}
	}
}

// reqBuf is the buffer of a request's `SIZE bytes` or var payload: its
// own, since several may be in flight at once.
//
//lint:ignore U1000 used by the generated main.go, for the payloads of posts
func (r *rank) reqBuf(req, n int) []byte {
	if n < 0 {
		r.w.fatalf("rank %d: a payload of %d bytes", r.id, n)
	}
	b := r.rq.bufs[req]
	if cap(b) < n {
		b = make([]byte, n)
		r.rq.bufs[req] = b
	}
	return b[:n]
}

// reqVar is the buffer of a var payload of a post, holding its value.
//
//lint:ignore U1000 used by the generated main.go, for var payloads of posts
func reqVar[T any](r *rank, req int, x T) []byte {
	b := r.reqBuf(req, int(unsafe.Sizeof(x)))
	*(*T)(unsafe.Pointer(unsafe.SliceData(b))) = x
	return b
}

// isend is `isend buf to peer as req`: post the send and go on. A peer of
// -1 (none) posts nothing.
func (r *rank) isend(site, to int, buf []byte, req int) {
	r.postReq(site, to, buf, req, true)
}

// irecv is `irecv buf from peer as req`: post the receive and go on.
// postReq, the transport's, posts both.
func (r *rank) irecv(site, from int, buf []byte, req int) {
	r.postReq(site, from, buf, req, false)
}

// reqPeer reports whether a request's peer is a rank: none (-1) posts
// nothing, anything else outside the ranks stops the program.
func (r *rank) reqPeer(peer, site int, send bool) bool {
	if uint(peer) < uint(r.size) {
		return true
	}
	what := "the source"
	if send {
		what = "the destination"
	}
	return r.noPeer(peer, site, what)
}
