package lang

// Procedures (issue 16, item 4): `proc NAME(p1, p2, …) { body }` at file
// level and `call NAME(arg, …)` as a statement. A proc is not a function
// at run time: Check expands every call into the proc's statements
// (expand.go) before checking, so that the checked kernel holds no call
// and no later stage (analyzer, pricing, emulation, codegen) knows that
// procs exist. Only the parser, the printer, the JSON dump and the
// expander see these nodes.

// Proc is `proc name(params) { body }`, declared at file level before or
// after the kernels that call it.
type Proc struct {
	ProcPos Pos
	Name    *Ident
	Params  []*Ident // the parameters, in order; each is bound at a call
	Rparen  Pos      // the ')' of the parameter list
	Body    *Block
}

func (p *Proc) Pos() Pos { return p.ProcPos }

// ProcCallStmt is `call name(args)`: the proc's body, with its parameters
// bound to the arguments, in place of the statement. An argument that is
// a bare name of an array, a var or a static value visible at the call
// makes the parameter another name for it; any other argument is a static
// value bound as `let PARAM = ARG` (docs/language.md, "Procedures").
type ProcCallStmt struct {
	CallPos Pos
	Name    *Ident
	Args    []Expr
	Rparen  Pos
}

func (*ProcCallStmt) stmtNode()  {}
func (s *ProcCallStmt) Pos() Pos { return s.CallPos }

// Proc returns the proc called name, or nil.
func (f *File) Proc(name string) *Proc {
	for _, p := range f.Procs {
		if p.Name.Name == name {
			return p
		}
	}
	return nil
}
