package lang

// The JSON dump of procedures (docs/ast-json.md): a File lists its procs
// after its kernels; a call is a `ProcCall` statement (not `Call`, which
// is an intrinsic call expression).

// proc returns the object of a Proc: its name, parameter names and body.
func (b *jsonBuilder) proc(p *Proc) *jsonObject {
	if p == nil {
		b.fail("nil *Proc")
		return nil
	}
	o := b.object("Proc", p)
	o.set("name", b.name(p.Name))
	o.set("params", jsonList(p.Params, func(id *Ident) any { return b.name(id) }))
	o.set("body", b.block(p.Body))
	return b.finish(o, p)
}

// procCall returns the fields of a ProcCallStmt.
func (b *jsonBuilder) procCall(s *ProcCallStmt) *jsonObject {
	o := b.object("ProcCall", s)
	o.set("name", b.name(s.Name))
	o.set("args", b.exprs(s.Args))
	return o
}
