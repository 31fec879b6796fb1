package parser

import (
	"github.com/alecthomas/participle/v2/lexer"

	"perfc/lang"
)

// lowerer turns the participle tree into lang nodes. It also makes the
// checks that the grammar leaves loose on purpose (see grammar.go), so
// that their errors can say what to write; every error goes to errs and
// lowering continues, so that one pass reports all of them.
type lowerer struct {
	src   *lang.Source
	errs  *lang.ErrorList
	kinds tokenKinds
}

// newLowerer returns a lowerer that reports into errs.
func newLowerer(src *lang.Source, errs *lang.ErrorList) *lowerer {
	return &lowerer{src: src, errs: errs, kinds: kindsOf(lexerDef)}
}

// pos converts a token's byte offset into a compact lang.Pos.
func pos(tok lexer.Token) lang.Pos { return lang.PosOf(tok.Pos.Offset) }

// endOf is the position just after tok.
func endOf(tok lexer.Token) lang.Pos { return lang.PosOf(tok.Pos.Offset + len(tok.Value)) }

// errorf reports an error at p, unless maxErrors have been reported.
func (l *lowerer) errorf(p lang.Pos, format string, args ...any) {
	if len(*l.errs) < maxErrors {
		l.errs.Addf(l.src.Position(p), format, args...)
	}
}

// file lowers every kernel of a file.
func (l *lowerer) file(n *fileNode) []*lang.Kernel {
	kernels := make([]*lang.Kernel, 0, len(n.Kernels))
	for _, k := range n.Kernels {
		kernels = append(kernels, l.kernel(k))
	}
	return kernels
}

// kernel lowers `kernel name(params) [on …] { body }`.
func (l *lowerer) kernel(n *kernelNode) *lang.Kernel {
	k := &lang.Kernel{
		KernelPos: pos(n.Kernel),
		Name:      l.name(n.Name),
		Params:    l.params(n.Params),
	}
	if n.On != nil {
		k.Ranks = l.rankSpec(n.On)
	}
	k.Body = l.block(&n.Body.blockNode)
	return k
}

// name lowers a declared name; a keyword is reported and kept, so that
// later checks still see a name.
func (l *lowerer) name(n *nameNode) *lang.Ident {
	if n.Tok.Type == l.kinds.keyword {
		l.errorf(pos(n.Tok), "%s", keywordMessage(n.Tok.Value))
	}
	return &lang.Ident{NamePos: pos(n.Tok), Name: n.Tok.Value}
}

// params lowers a kernel's parameter list. The grammar takes the comma
// after each parameter as optional so that a trailing comma is allowed; a
// missing comma between two parameters is reported here.
func (l *lowerer) params(n *paramList) []*lang.Param {
	params := make([]*lang.Param, 0, len(n.Items))
	for i, item := range n.Items {
		if i > 0 && n.Items[i-1].Comma == nil {
			l.errorf(pos(item.Param.Name.Tok), "missing ',' before parameter '%s'", item.Param.Name.Tok.Value)
		}
		params = append(params, l.param(item.Param))
	}
	return params
}

// param lowers `name = default`.
func (l *lowerer) param(n *paramNode) *lang.Param {
	return &lang.Param{Name: l.name(n.Name), Default: l.expr(n.Default)}
}

// rankSpec lowers the `on` clause. The rank parameters have fixed names
// because the rest of perfc (the checker, `-D P=64`) refers to them.
func (l *lowerer) rankSpec(n *onNode) *lang.RankSpec {
	spec := &lang.RankSpec{OnPos: pos(n.On)}
	if n.Ranks != nil {
		p := l.param(n.Ranks.Param)
		l.requireName(n.Ranks.Param.Name, "P", "the rank count must be named P, as in 'on P = 32 ranks'")
		spec.Params = []*lang.Param{p}
		return spec
	}
	spec.Grid = true
	x, y := l.param(n.Grid.X), l.param(n.Grid.Y)
	const gridUsage = "the grid dimensions must be named Px and Py, in that order, as in 'on grid(Px = 4, Py = 4)'"
	l.requireName(n.Grid.X.Name, "Px", gridUsage)
	l.requireName(n.Grid.Y.Name, "Py", gridUsage)
	spec.Params = []*lang.Param{x, y}
	return spec
}

// requireName reports msg at n unless n is spelled want. A keyword has
// been reported already by name.
func (l *lowerer) requireName(n *nameNode, want, msg string) {
	if n.Tok.Value != want && n.Tok.Type != l.kinds.keyword {
		l.errorf(pos(n.Tok), "%s", msg)
	}
}

// block lowers `{ stmts }`.
func (l *lowerer) block(n *blockNode) *lang.Block {
	b := &lang.Block{Lbrace: pos(n.Lbrace), Rbrace: pos(n.Rbrace.Tok)}
	b.Stmts = make([]lang.Stmt, 0, len(n.Stmts))
	for _, s := range n.Stmts {
		b.Stmts = append(b.Stmts, l.stmt(s))
	}
	return b
}

// stmt lowers whichever statement the grammar matched.
func (l *lowerer) stmt(n *stmtNode) lang.Stmt {
	switch {
	case n.Let != nil:
		return &lang.LetStmt{LetPos: pos(n.Let.Let), Name: l.name(n.Let.Name), Value: l.expr(n.Let.Value)}
	case n.Array != nil:
		return l.arrayDecl(n.Array)
	case n.Var != nil:
		return l.varDecl(n.Var)
	case n.For != nil:
		return l.forStmt(n.For)
	case n.Repeat != nil:
		return &lang.RepeatStmt{RepeatPos: pos(n.Repeat.Repeat), Count: l.expr(n.Repeat.Count),
			Body: l.block(&n.Repeat.Body.blockNode)}
	case n.If != nil:
		return l.ifStmt(n.If)
	case n.Region != nil:
		return &lang.RegionStmt{RegionPos: pos(n.Region.Region), Name: unquote(n.Region.Name.Tok.Value),
			NamePos: pos(n.Region.Name.Tok), Body: l.block(&n.Region.Body.blockNode)}
	case n.Assign != nil:
		return l.assign(n.Assign)
	case n.Post != nil:
		return l.post(n.Post)
	case n.Wait != nil:
		return l.wait(n.Wait)
	case n.WaitAll != nil:
		return &lang.WaitStmt{WaitPos: pos(*n.WaitAll), All: true}
	}
	return l.comm(n)
}

// arrayDecl lowers `array a[N], b[N][M]: f64`.
func (l *lowerer) arrayDecl(n *arrayNode) *lang.ArrayDecl {
	d := &lang.ArrayDecl{ArrayPos: pos(n.Array), Elem: elemType(n.Elem), ElemPos: pos(n.Elem.Tok)}
	for _, s := range n.Specs {
		spec := &lang.ArraySpec{Name: l.name(s.Name)}
		for _, dim := range s.Dims {
			spec.Dims = append(spec.Dims, l.expr(dim.Size))
		}
		d.Arrays = append(d.Arrays, spec)
	}
	return d
}

// varDecl lowers `var s, t: f64 [= init]`.
func (l *lowerer) varDecl(n *varNode) *lang.VarDecl {
	d := &lang.VarDecl{VarPos: pos(n.Var), Elem: elemType(n.Elem), ElemPos: pos(n.Elem.Tok)}
	for _, name := range n.Names {
		d.Names = append(d.Names, l.name(name))
	}
	if n.Init != nil {
		d.Init = l.expr(n.Init)
	}
	return d
}

// elemType converts an element type keyword.
func elemType(n *elemTypeNode) lang.ElemType { return lang.ElemTypeNamed(n.Tok.Value) }

// forStmt lowers `for i in lo..hi [step s] { body }`.
func (l *lowerer) forStmt(n *forNode) *lang.ForStmt {
	s := &lang.ForStmt{ForPos: pos(n.For), Var: l.name(n.Var), Lo: l.expr(n.Lo), Hi: l.expr(n.Hi)}
	if n.Step != nil {
		s.Step = l.expr(n.Step)
	}
	s.Body = l.block(&n.Body.blockNode)
	return s
}

// ifStmt lowers an if with its else clauses into a chain of IfStmts, built
// in a loop rather than by recursion so that a long else-if chain costs no
// stack. Only the last clause may be a plain `else { … }`.
func (l *lowerer) ifStmt(n *ifNode) *lang.IfStmt {
	first := l.ifClause(n.If, n.Cond, n.Prob, n.Then)
	last := first
	for _, e := range n.Elses {
		if last == nil {
			l.errorf(pos(e.Else), "'else' after the final 'else { … }' of this 'if'; make the earlier one 'else if'")
			break
		}
		if e.If != nil {
			next := l.ifClause(e.If.If, e.If.Cond, e.If.Prob, e.If.Then)
			last.Else = next
			last = next
			continue
		}
		last.Else = l.block(&e.Body.blockNode)
		last = nil
	}
	return first
}

// ifClause lowers `if cond [prob p] { … }` without its else.
func (l *lowerer) ifClause(ifTok lexer.Token, cond, prob *exprNode, then *ifBody) *lang.IfStmt {
	s := &lang.IfStmt{IfPos: pos(ifTok), Cond: l.expr(cond)}
	if prob != nil {
		s.Prob = l.expr(prob)
	}
	s.Then = l.block(&then.blockNode)
	return s
}

// assign lowers `lhs op rhs`.
func (l *lowerer) assign(n *assignNode) *lang.AssignStmt {
	s := &lang.AssignStmt{OpPos: pos(n.Op.Tok), Op: assignOp(n.Op.Tok.Value)}
	s.Lhs = l.indexed(n.Name, n.Index)
	s.Rhs = l.expr(n.Rhs)
	return s
}

// assignOp converts an assignment operator token.
func assignOp(text string) lang.AssignOp {
	switch text {
	case "+=":
		return lang.AddAssign
	case "-=":
		return lang.SubAssign
	case "*=":
		return lang.MulAssign
	case "/=":
		return lang.DivAssign
	}
	return lang.Assign
}

// comm lowers the communication statements, which the grammar groups by
// shape: `P to X`, `P from X`, and so on.
func (l *lowerer) comm(n *stmtNode) *lang.CommStmt {
	switch {
	case n.To != nil:
		return l.commStmt(n.To.Kind, nil, n.To.Payload, n.To.Peer)
	case n.From != nil:
		return l.commStmt(n.From.Kind, nil, n.From.Payload, n.From.Peer)
	case n.SendRecv != nil:
		s := l.commStmt(n.SendRecv.Kind, nil, n.SendRecv.Payload, n.SendRecv.To)
		s.From = l.expr(n.SendRecv.From)
		if n.SendRecv.Into != nil {
			s.Into = l.payload(n.SendRecv.Into)
		}
		return s
	case n.Exchange != nil:
		return l.commStmt(n.Exchange.Kind, nil, n.Exchange.Payload, n.Exchange.Peer)
	case n.Reduce != nil:
		return l.commStmt(n.Reduce.Kind, n.Reduce.Op, n.Reduce.Payload, n.Reduce.Root)
	case n.OpComm != nil:
		return l.commStmt(n.OpComm.Kind, n.OpComm.Op, n.OpComm.Payload, nil)
	case n.AllComm != nil:
		return l.commStmt(n.AllComm.Kind, nil, n.AllComm.Payload, nil)
	}
	return &lang.CommStmt{KindPos: pos(*n.Barrier), Kind: lang.Barrier}
}

// commStmt builds a CommStmt from its parts; op, payload and peer may be
// nil where the statement has none.
func (l *lowerer) commStmt(kind lexer.Token, op *redOpNode, payload *payloadNode, peer *exprNode) *lang.CommStmt {
	k, _ := lang.CommKindNamed(kind.Value)
	s := &lang.CommStmt{KindPos: pos(kind), Kind: k}
	if op != nil {
		s.Op, s.OpPos = lang.ReduceOpNamed(op.Tok.Value), pos(op.Tok)
	}
	if payload != nil {
		s.Payload = l.payload(payload)
	}
	if peer != nil {
		s.Peer = l.expr(peer)
	}
	return s
}
