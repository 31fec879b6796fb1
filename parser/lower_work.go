package parser

import "perfc/lang"

// work lowers `work ITEM {, ITEM}`. The grammar takes `from` and `to`
// after either word; a load must say from and a store to, which is
// reported here with what to write.
func (l *lowerer) work(n *workNode) *lang.WorkStmt {
	s := &lang.WorkStmt{WorkPos: pos(n.Work)}
	for _, it := range n.Items {
		switch {
		case it.Mem != nil:
			s.Items = append(s.Items, l.workMem(it.Mem))
		case it.Op != nil:
			s.Items = append(s.Items, &lang.WorkOp{Count: l.expr(it.Op.Count), Kind: it.Op.Kind.Value,
				KindPos: pos(it.Op.Kind), Elem: elemType(it.Op.Elem), ElemPos: pos(it.Op.Elem.Tok)})
		}
	}
	return s
}

// workMem lowers a load or store item.
func (l *lowerer) workMem(n *workMemNode) *lang.WorkMem {
	m := &lang.WorkMem{KindPos: pos(n.Kind), Store: n.Kind.Value == "store", Bytes: l.expr(n.Bytes), End: endOf(n.Word)}
	switch {
	case n.Prep != nil:
		if n.Prep.Value != m.Preposition() {
			l.errorf(pos(*n.Prep), "a %s names its array after '%s', as in '%s %s bytes %s %s'",
				m.Word(), m.Preposition(), m.Word(), lang.ExprString(m.Bytes), m.Preposition(), n.Array.Value)
		}
		m.Array = &lang.Ident{NamePos: pos(*n.Array), Name: n.Array.Value}
		m.End = endOf(*n.Array)
	case n.In != nil:
		m.Set = l.expr(n.Set)
	}
	return m
}
