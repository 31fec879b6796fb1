package lang

// WaitStmt is `wait r1, r2` or `waitall`: it completes posted requests
// (isend, irecv), as MPI_Waitall does. A wait of a request that was not
// posted on this rank (its guard was false, or its peer was none) is a no-op,
// like a wait of MPI_REQUEST_NULL.
type WaitStmt struct {
	WaitPos Pos
	All     bool     // waitall: every request this rank has posted and not completed
	Reqs    []*Ident // wait: the requests, in the order written
}

func (*WaitStmt) stmtNode()  {}
func (s *WaitStmt) Pos() Pos { return s.WaitPos }
