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
			s.Items = append(s.Items, l.workOp(it.Op))
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

// workOp lowers `COUNT KIND TYPE`, reporting a missing kind or type.
func (l *lowerer) workOp(n *workOpNode) *lang.WorkOp {
	op := &lang.WorkOp{Count: l.expr(n.Count), Kind: n.Kind.Value, KindPos: pos(n.Kind), ElemPos: endOf(n.Kind)}
	count := lang.ExprString(op.Count)
	switch {
	case n.Kind.Value == "bytes":
		l.errorf(op.KindPos, "a work item moves bytes with 'load %s bytes' or 'store %s bytes'", count, count)
	case lang.ElemTypeNamed(n.Kind.Value) != lang.NoElem:
		l.errorf(op.KindPos, "expected an operation kind before the type, as in '%s add %s'", count, n.Kind.Value)
	case n.Elem == nil:
		l.errorf(op.ElemPos, "the work item '%s %s' needs an element type: write f64, f32, i64 or i32 after '%s'", count, n.Kind.Value, n.Kind.Value)
	default:
		op.Elem, op.ElemPos = elemType(n.Elem), pos(n.Elem.Tok)
	}
	return op
}
