package analyze

import (
	"fmt"

	"perfc/lang"
)

// The requests of a Cursor: as Events does (requests.go), a cursor keeps
// the rank's active requests, fills the Reqs of its waits with the active
// requests they complete, and reports the lifetime errors rank by rank.
// Posts and waits take the cursor's slow path; a kernel without requests
// pays one nil test per loop iteration end.

// cursorRequests is the request state of one cursor.
type cursorRequests struct {
	active []cursorRequest // by request number
	reqs   []int           // the Reqs of the last EvWait
	n      int             // requests active
}

// cursorRequest is one request of the cursor's rank.
type cursorRequest struct {
	post *lang.CommStmt // nil when not active
	loop *cnode         // the innermost loop around the post; nil outside loops
}

// isPost reports whether events of kind k post a request.
func (k EventKind) isPost() bool { return k == EvISend || k == EvIRecv }

// resetRequests clears the requests for a walk from the start.
func (c *Cursor) resetRequests() {
	n := len(c.ra.k.Info.Requests)
	if n == 0 {
		c.reqs = nil
		return
	}
	if c.reqs == nil || len(c.reqs.active) != n {
		c.reqs = &cursorRequests{active: make([]cursorRequest, n)}
		return
	}
	clear(c.reqs.active)
	c.reqs.n = 0
}

// post completes the event of an isend or irecv (its request number) and
// starts its request, unless the peer is none.
func (c *Cursor) post(cn *cnode, ev *Event) error {
	ev.Req = c.ra.p.requestNumber(cn.stmt.Req)
	if ev.Peer < 0 || c.reqs == nil || ev.Req < 0 {
		return nil
	}
	a := &c.reqs.active[ev.Req]
	if a.post != nil {
		return c.ra.repostError(cn.stmt, a.post)
	}
	*a = cursorRequest{post: cn.stmt, loop: c.innermostLoop()}
	c.reqs.n++
	return nil
}

// innermostLoop returns the loop node of the innermost frame that belongs
// to a loop.
func (c *Cursor) innermostLoop() *cnode {
	if c.loop != nil {
		return c.loop
	}
	for i := int(c.depth) - 2; i >= 0; i-- {
		if f := c.below(i); f.loop != nil {
			return f.loop
		}
	}
	return nil
}

// wait writes the EvWait of a wait or waitall node.
func (c *Cursor) wait(cn *cnode, ev *Event) (bool, error) {
	s := cn.n.Stmt.(*lang.WaitStmt)
	t := c.reqs
	var reqs []int
	if t != nil {
		t.reqs = t.reqs[:0]
		complete := func(i int) {
			if i >= 0 && i < len(t.active) && t.active[i].post != nil {
				t.reqs = append(t.reqs, i)
				t.active[i] = cursorRequest{}
				t.n--
			}
		}
		if s.All {
			for i := range t.active {
				complete(i)
			}
		} else {
			for _, id := range s.Reqs {
				complete(c.ra.p.requestNumber(id))
			}
		}
		reqs = t.reqs
	}
	*ev = Event{Kind: EvWait, Peer: -1, From: -1, Reqs: reqs, All: s.All, WaitStmt: s}
	return true, nil
}

// iterationDone reports a request posted in the iteration of the
// innermost frame's loop that is still active at its end.
func (c *Cursor) iterationDone() error {
	if c.reqs.n == 0 {
		return nil
	}
	for _, a := range c.reqs.active {
		if a.post != nil && a.loop == c.loop {
			idx := ""
			if loop, ok := c.loop.n.Stmt.(*lang.ForStmt); ok {
				idx = fmt.Sprintf(" (%s = %d)", loop.Var.Name, c.index)
			}
			return c.ra.activeAtIterationEnd(a.post, c.loop.n.Stmt, idx)
		}
	}
	return nil
}

// kernelDone reports a request still active at the end of the schedule.
func (c *Cursor) kernelDone() error {
	if c.reqs.n == 0 {
		return nil
	}
	for _, a := range c.reqs.active {
		if a.post != nil {
			return c.ra.activeAtKernelEnd(a.post)
		}
	}
	return nil
}

// repostError reports a request posted again by post while the earlier
// post prev is still active.
func (ra *rankAnalysis) repostError(post, prev *lang.CommStmt) error {
	return ra.errorf(post, "request %s is posted again by this %s on rank %d while the %s at %s is still active; complete it first with 'wait %s'",
		post.Req.Name, post.Kind, ra.rank, prev.Kind, ra.lineCol(prev), post.Req.Name)
}

// activeAtIterationEnd reports a request still active at the end of an
// iteration of the loop it was posted in; idx is " (i = 3)" or "".
func (ra *rankAnalysis) activeAtIterationEnd(post *lang.CommStmt, loop lang.Stmt, idx string) error {
	name := post.Req.Name
	return ra.errorf(post, "request %s of this %s is still active at the end of an iteration of the loop at %s on rank %d%s: every iteration must complete what it posts; add 'wait %s' (or 'waitall') after it in the loop body",
		name, post.Kind, ra.lineCol(loop), ra.rank, idx, name)
}

// activeAtKernelEnd reports a request still active at the end of the
// kernel.
func (ra *rankAnalysis) activeAtKernelEnd(post *lang.CommStmt) error {
	name := post.Req.Name
	return ra.errorf(post, "request %s of this %s is still active at the end of the kernel on rank %d: no wait completed it; add 'wait %s' (or 'waitall') after it",
		name, post.Kind, ra.rank, name)
}

// lineCol is a node's line:col.
func (ra *rankAnalysis) lineCol(n lang.Node) string {
	p := ra.position(n)
	return fmt.Sprintf("%d:%d", p.Line, p.Col)
}
