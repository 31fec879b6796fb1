package lang

import "slices"

// The checker's rules for the requests of non-blocking messages (isend,
// irecv, wait, waitall), docs/language.md "Non-blocking messages":
//
//   - A request name is declared by its first 'as' (one namespace for the
//     kernel, apart from variables, but no name may be both); a wait names
//     only requests.
//   - A request must be completed in the body it is posted in: a post in a
//     loop body (for, repeat) or the kernel body that no later 'wait' naming
//     it (or 'waitall') in that body follows is "never waited for".
//   - A request posted again while it is certainly still active (an earlier
//     post of it runs whenever this one does, with no wait between) is an
//     error naming both statements.
//   - The MPI-3 buffer rules (checkreq_buffer.go).
//
// What depends on the rank or on guards (a post under one condition, a
// wait under another) is left to the analyzer and the runtime, rank by
// rank; the checker reports what holds on every rank that runs the post.

// requestState is what the checker tracks about requests while it walks a
// kernel in program order.
type requestState struct {
	names  map[string]*Ident   // each request's first 'as'
	blocks map[*Block]blockUse // the blocks that are loop bodies or if branches
	path   []*Block            // the blocks around the current statement, outermost first
	// pending are the posts not yet followed by a wait naming them, in
	// posting order.
	pending []*pendingPost
	writing *IndexExpr // the left-hand side being checked, which is written
}

// blockUse says what a block is the body of.
type blockUse uint8

const (
	plainBlock  blockUse = iota // a region body or a bare block: runs when reached
	loopBody                    // the body of a for or repeat loop
	guardedBody                 // a branch of an if
)

// pendingPost is a post that no wait has named yet.
type pendingPost struct {
	stmt *CommStmt
	path []*Block // the blocks around the post
	buf  *Object  // the array or var the payload names; nil for 'SIZE bytes'
	// spans are the payload's index range per dimension of an array, when
	// every bound is a constant; nil otherwise.
	spans []indexSpan
}

// collectRequests declares the kernel's request names (the first 'as' of
// each, in program order, into Info.Requests) and reports a name that is
// also a variable or predeclared; it also notes which blocks are loop
// bodies and if branches.
func (c *checker) collectRequests(k *Kernel) {
	c.reqs = requestState{names: map[string]*Ident{}, blocks: map[*Block]blockUse{}}
	if k.Body == nil {
		return
	}
	Inspect(k.Body, func(n Node) bool {
		switch n := n.(type) {
		case *ForStmt:
			c.reqs.blocks[n.Body] = loopBody
		case *RepeatStmt:
			c.reqs.blocks[n.Body] = loopBody
		case *IfStmt:
			c.reqs.blocks[n.Then] = guardedBody
			if b, ok := n.Else.(*Block); ok {
				c.reqs.blocks[b] = guardedBody
			}
		case *CommStmt:
			if n.Req != nil && c.reqs.names[n.Req.Name] == nil {
				c.declareRequest(n.Req)
			}
		}
		return true
	})
}

// declareRequest records the first 'as' of a request name.
func (c *checker) declareRequest(id *Ident) {
	name := id.Name
	c.reqs.names[name] = id
	c.info.Requests = append(c.info.Requests, id)
	switch {
	case predeclaredMeaning(name, c.isGrid()) != "":
		c.errorf(id, "'%s' is predeclared (%s); choose another name for the request", name, predeclaredMeaning(name, c.isGrid()))
	case isIntrinsic(name):
		c.errorf(id, "'%s' is an intrinsic; choose another name for the request", name)
	default:
		if at, ok := c.decls[name]; ok {
			c.errorf(id, "'%s' names a request here but is also declared at %s; a name cannot be both a request and a variable, so choose another",
				name, c.lineCol(at))
		}
	}
}

// RequestNumber returns the number of a request name: its index in
// Requests.
func (info *Info) RequestNumber(name string) (int, bool) {
	i := slices.IndexFunc(info.Requests, func(id *Ident) bool { return id.Name == name })
	return i, i >= 0
}

// post records an isend or irecv as pending, after reporting a post of the
// same request that is certainly still active.
func (c *checker) post(s *CommStmt) {
	if s.Req == nil {
		c.errorf(s, "%s needs a request name: end it with 'as NAME' and complete it with 'wait NAME'", s.Kind)
		return
	}
	if c.dead > 0 {
		return
	}
	for i, p := range c.reqs.pending {
		if p.stmt.Req.Name != s.Req.Name {
			continue
		}
		if isPrefix(p.path, c.reqs.path) {
			c.errorf(s, "request %s is posted again while the %s at %s is still active (no wait names it in between); add 'wait %s' before this %s",
				s.Req.Name, p.stmt.Kind, c.lineCol(p.stmt.Pos()), s.Req.Name, s.Kind)
		}
		c.reqs.pending = slices.Delete(c.reqs.pending, i, i+1)
		break
	}
	p := &pendingPost{stmt: s, path: slices.Clone(c.reqs.path)}
	p.buf, p.spans = c.payloadSpans(s.Payload)
	c.reqs.pending = append(c.reqs.pending, p)
}

// waitStmt checks `wait r1, r2` and `waitall`, and completes the pending
// posts they name.
func (c *checker) waitStmt(s *WaitStmt) {
	if s.All {
		if c.dead == 0 {
			c.reqs.pending = c.reqs.pending[:0]
		}
		return
	}
	if len(s.Reqs) == 0 {
		c.errorf(s, "wait needs the requests to complete, as in 'wait r1, r2'; write 'waitall' for all of them")
	}
	seen := map[string]bool{}
	for _, id := range s.Reqs {
		name := id.Name
		switch {
		case seen[name]:
			c.errorf(id, "request %s is named twice in this wait; name it once", name)
			continue
		case c.reqs.names[name] == nil:
			c.notARequest(id)
			continue
		}
		seen[name] = true
		if c.dead > 0 {
			continue
		}
		c.reqs.pending = slices.DeleteFunc(c.reqs.pending, func(p *pendingPost) bool { return p.stmt.Req.Name == name })
	}
}

// notARequest reports a wait of a name that no post declares.
func (c *checker) notARequest(id *Ident) {
	if obj := c.scope.lookup(id.Name); obj != nil {
		c.errorf(id, "%s is %s, not a request; wait names the requests of isend and irecv ('isend … as NAME')",
			id.Name, obj.Kind.article())
		return
	}
	if at, ok := c.decls[id.Name]; ok {
		c.errorf(id, "%s is declared at %s, not a request; wait names the requests of isend and irecv ('isend … as NAME')",
			id.Name, c.lineCol(at))
		return
	}
	c.errorf(id, "'%s' is not a request: no isend or irecv of this kernel is posted 'as %s'", id.Name, id.Name)
}

// leaveRequestScope reports, at the end of a loop body or the kernel
// body, the posts in it that no wait has named: a request must be
// complete by the end of the body it is posted in.
func (c *checker) leaveRequestScope(b *Block) {
	kernelBody := c.kernel != nil && b == c.kernel.Body
	if !kernelBody && c.reqs.blocks[b] != loopBody {
		return
	}
	where := "the kernel body, before the kernel ends"
	if !kernelBody {
		where = "the same loop body, so that every iteration completes it"
		if loop := c.loopOf(b); loop != nil {
			where = "the body of the loop at " + c.lineCol(loop.Pos()) + ", so that every iteration completes it"
		}
	}
	depth := len(c.reqs.path)
	c.reqs.pending = slices.DeleteFunc(c.reqs.pending, func(p *pendingPost) bool {
		if len(p.path) < depth || p.path[depth-1] != b {
			return false
		}
		c.errorf(p.stmt, "request %s of this %s is never waited for: add 'wait %s' (or 'waitall') after it in %s",
			p.stmt.Req.Name, p.stmt.Kind, p.stmt.Req.Name, where)
		return true
	})
}

// loopOf returns the innermost enclosing loop whose body is b.
func (c *checker) loopOf(b *Block) Stmt {
	for i := len(c.loops) - 1; i >= 0; i-- {
		switch s := c.loops[i].stmt.(type) {
		case *ForStmt:
			if s.Body == b {
				return s
			}
		case *RepeatStmt:
			if s.Body == b {
				return s
			}
		}
	}
	return nil
}

// isPrefix reports whether a is a prefix of b: the statement at a runs
// whenever the one at b does (within the same iteration).
func isPrefix(a, b []*Block) bool {
	return len(a) <= len(b) && slices.Equal(a, b[:len(a)])
}
