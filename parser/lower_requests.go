package parser

import "perfc/lang"

// post lowers `isend P to PEER as REQ` and `irecv P from PEER as REQ`. The
// grammar accepts either direction word after either verb so that the
// wrong one is reported with the right one to write.
func (l *lowerer) post(n *postNode) *lang.CommStmt {
	s := l.commStmt(n.Kind, nil, n.Payload, n.Peer)
	want := "to"
	if s.Kind == lang.IRecv {
		want = "from"
	}
	if n.Dir.Value != want {
		verb := "sends to"
		if s.Kind == lang.IRecv {
			verb = "receives from"
		}
		l.errorf(pos(n.Dir), "%s %s a peer: write '%s %s', not '%s'", s.Kind, verb, s.Kind, want, n.Dir.Value)
	}
	s.Req = l.name(n.Req.Name)
	return s
}

// wait lowers `wait r1, r2`.
func (l *lowerer) wait(n *waitNode) *lang.WaitStmt {
	s := &lang.WaitStmt{WaitPos: pos(n.Wait)}
	for _, r := range n.Reqs {
		s.Reqs = append(s.Reqs, l.name(r))
	}
	return s
}
