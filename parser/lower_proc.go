package parser

import "perfc/lang"

// proc lowers `proc name(p1, p2, …) { body }`. The grammar takes the
// comma after each parameter as optional so that a trailing comma is
// allowed; a missing comma between two parameters is reported here.
func (l *lowerer) proc(n *procNode) *lang.Proc {
	p := &lang.Proc{ProcPos: pos(n.Proc), Name: l.name(n.Name), Rparen: pos(n.Params.Rparen.Tok)}
	for i, item := range n.Params.Items {
		if i > 0 && n.Params.Items[i-1].Comma == nil {
			l.errorf(pos(item.Name.Tok), "missing ',' before parameter '%s'", item.Name.Tok.Value)
		}
		p.Params = append(p.Params, l.name(item.Name))
	}
	p.Body = l.block(&n.Body.blockNode)
	return p
}

// call lowers `call name(args)`.
func (l *lowerer) call(n *callNode) *lang.ProcCallStmt {
	s := &lang.ProcCallStmt{CallPos: pos(n.Call), Name: l.name(n.Name), Rparen: pos(n.Args.Rparen)}
	s.Args = make([]lang.Expr, 0, len(n.Args.Args))
	for _, a := range n.Args.Args {
		s.Args = append(s.Args, l.expr(a))
	}
	return s
}
