package lang

// The printer and JSON encoder cases of the non-blocking statements
// (isend, irecv, wait, waitall), kept apart from the shared switches.

// post prints the peer and request of `isend P to PEER as REQ` and
// `irecv P from PEER as REQ`; comm has printed the verb and payload.
func (p *printer) post(s *CommStmt) {
	if s.Kind == ISend {
		p.text(" to ")
	} else {
		p.text(" from ")
	}
	p.expr(s.Peer, false)
	p.text(" as ")
	p.ident(s.Req)
}

// wait prints `wait r1, r2` or `waitall`.
func (p *printer) wait(s *WaitStmt) {
	if s.All {
		if len(s.Reqs) > 0 {
			p.invalid("waitall with %d request names", len(s.Reqs))
		}
		p.text("waitall")
		return
	}
	if len(s.Reqs) == 0 {
		p.invalid("wait without a request")
	}
	p.text("wait ")
	for i, r := range s.Reqs {
		if i > 0 {
			p.text(", ")
		}
		p.ident(r)
	}
}

// wait returns the fields of a WaitStmt: "all" for waitall, else the
// request names in the order written.
func (b *jsonBuilder) wait(s *WaitStmt) *jsonObject {
	o := b.object("Wait", s)
	if s.All {
		o.set("all", true)
		return o
	}
	o.set("reqs", jsonList(s.Reqs, func(id *Ident) any { return b.name(id) }))
	return o
}
