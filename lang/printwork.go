package lang

// work prints `work ITEM, ITEM…`; counts and byte counts are compact, as
// payload sizes are. A statement with many items is long: an item that
// starts a line in the source starts one in the output too, indented one
// level more than the statement, and the comments before it are kept.
func (p *printer) work(s *WorkStmt) {
	p.text("work ")
	indented := false
	for i, it := range s.Items {
		if i > 0 {
			p.text(",")
			if p.startsLine(it.Pos(), s.Items[i-1].Pos()) {
				p.flush(printOffset(it.Pos()))
				p.endLine()
				if !indented {
					p.indent++
					indented = true
				}
			} else {
				p.text(" ")
			}
		}
		switch it := it.(type) {
		case *WorkOp:
			p.expr(it.Count, true)
			p.text(" " + it.Kind + " ")
			p.elemType(it.Elem)
		case *WorkMem:
			p.text(it.Word() + " ")
			p.expr(it.Bytes, true)
			p.text(" bytes")
			switch {
			case it.Array != nil:
				p.text(" " + it.Preposition() + " ")
				p.ident(it.Array)
			case it.Set != nil:
				p.text(" in ")
				p.expr(it.Set, true)
			}
		default:
			p.invalid("work item of type %T", it)
		}
	}
	if indented {
		p.indent--
	}
}

// startsLine reports whether the source puts pos on a later line than
// prev; without a source, nothing starts a line.
func (p *printer) startsLine(pos, prev Pos) bool {
	if p.src == nil || !pos.IsValid() || !prev.IsValid() {
		return false
	}
	return p.src.Position(pos).Line > p.src.Position(prev).Line
}

// printEndWork returns the source offset just after a work statement.
func printEndWork(s *WorkStmt) int {
	if len(s.Items) == 0 {
		return printAfter(s.WorkPos, len("work"))
	}
	switch it := s.Items[len(s.Items)-1].(type) {
	case *WorkOp:
		return printAfter(it.ElemPos, len("f64")) // every element type has three letters
	case *WorkMem:
		if it.Set != nil {
			return printEnd(it.Set)
		}
		return printAfter(it.End, 0)
	}
	return printNoOffset
}
