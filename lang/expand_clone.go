package lang

// Cloning a proc body for one expansion. Every node is new, because the
// checker's Info is keyed by node: the same expression in two calls may
// have two values. Names are renamed through rename (parameter → the
// caller's name or the binding let's name, local → its fresh name);
// positions are kept, so that a message about the clone points into the
// proc's definition. Each statement and expression kind needs a rule here
// (docs/internals.md lists the files a new kind touches); a kind without
// one panics with lang.Unhandled, which Check turns into an error.

// renaming is what an expansion changes in the body: names renamed (a
// parameter to the caller's name or to its binding let, a local to its
// fresh name) and parameters replaced by a peer argument.
type renaming struct {
	names map[string]string
	peers map[string]Expr // parameter → the direction, none or neighbor(…) passed for it
}

// cloneBlock returns a deep copy of b with names renamed.
func cloneBlock(b *Block, rename *renaming) *Block {
	if b == nil {
		return nil
	}
	c := &Block{Lbrace: b.Lbrace, Rbrace: b.Rbrace, Stmts: make([]Stmt, len(b.Stmts))}
	for i, s := range b.Stmts {
		c.Stmts[i] = cloneStmt(s, rename)
	}
	return c
}

// cloneIdent copies a name, renamed.
func cloneIdent(id *Ident, rename *renaming) *Ident {
	if id == nil {
		return nil
	}
	name := id.Name
	if to, ok := rename.names[name]; ok {
		name = to
	}
	return &Ident{NamePos: id.NamePos, Name: name}
}

// cloneIdents copies a list of names.
func cloneIdents(ids []*Ident, rename *renaming) []*Ident {
	if ids == nil {
		return nil
	}
	out := make([]*Ident, len(ids))
	for i, id := range ids {
		out[i] = cloneIdent(id, rename)
	}
	return out
}

// cloneStmt returns a deep copy of s.
func cloneStmt(s Stmt, rename *renaming) Stmt {
	switch s := s.(type) {
	case nil:
		return nil
	case *Block:
		return cloneBlock(s, rename)
	case *LetStmt:
		return &LetStmt{LetPos: s.LetPos, Name: cloneIdent(s.Name, rename), Value: cloneExpr(s.Value, rename)}
	case *ArrayDecl:
		c := *s
		c.Arrays = make([]*ArraySpec, len(s.Arrays))
		for i, a := range s.Arrays {
			c.Arrays[i] = &ArraySpec{Name: cloneIdent(a.Name, rename), Dims: cloneExprs(a.Dims, rename)}
		}
		return &c
	case *VarDecl:
		c := *s
		c.Names = cloneIdents(s.Names, rename)
		c.Init = cloneExpr(s.Init, rename)
		return &c
	case *ForStmt:
		c := *s
		c.Var = cloneIdent(s.Var, rename)
		c.Lo, c.Hi, c.Step = cloneExpr(s.Lo, rename), cloneExpr(s.Hi, rename), cloneExpr(s.Step, rename)
		c.Body = cloneBlock(s.Body, rename)
		return &c
	case *RepeatStmt:
		c := *s
		c.Count = cloneExpr(s.Count, rename)
		c.Body = cloneBlock(s.Body, rename)
		return &c
	case *AssignStmt:
		c := *s
		c.Lhs, c.Rhs = cloneExpr(s.Lhs, rename), cloneExpr(s.Rhs, rename)
		return &c
	case *IfStmt:
		c := *s
		c.Cond, c.Prob = cloneExpr(s.Cond, rename), cloneExpr(s.Prob, rename)
		c.Then = cloneBlock(s.Then, rename)
		c.Else = cloneStmt(s.Else, rename)
		return &c
	case *RegionStmt:
		c := *s
		c.Body = cloneBlock(s.Body, rename)
		return &c
	case *CommStmt:
		c := *s
		c.Payload, c.Into = clonePayload(s.Payload, rename), clonePayload(s.Into, rename)
		c.Peer, c.From = cloneExpr(s.Peer, rename), cloneExpr(s.From, rename)
		c.Req = cloneIdent(s.Req, rename)
		return &c
	case *WaitStmt:
		c := *s
		c.Reqs = cloneIdents(s.Reqs, rename)
		return &c
	case *WorkStmt:
		c := *s
		c.Items = make([]WorkItem, len(s.Items))
		for i, it := range s.Items {
			c.Items[i] = cloneWorkItem(it, rename)
		}
		return &c
	case *ProcCallStmt:
		c := *s
		c.Name = &Ident{NamePos: s.Name.NamePos, Name: s.Name.Name} // a proc's name is not renamed
		c.Args = cloneExprs(s.Args, rename)
		return &c
	}
	panic(Unhandled("lang: expand a proc call", s))
}

// cloneWorkItem returns a deep copy of one item of a work statement.
func cloneWorkItem(it WorkItem, rename *renaming) WorkItem {
	switch it := it.(type) {
	case *WorkOp:
		c := *it
		c.Count = cloneExpr(it.Count, rename)
		return &c
	case *WorkMem:
		c := *it
		c.Bytes, c.Set = cloneExpr(it.Bytes, rename), cloneExpr(it.Set, rename)
		c.Array = cloneIdent(it.Array, rename)
		return &c
	}
	panic(Unhandled("lang: expand a proc call", it))
}

// clonePayload returns a deep copy of p.
func clonePayload(p *Payload, rename *renaming) *Payload {
	if p == nil {
		return nil
	}
	c := *p
	c.Bytes = cloneExpr(p.Bytes, rename)
	c.Name = cloneIdent(p.Name, rename)
	if p.Subs != nil {
		c.Subs = make([]*Subscript, len(p.Subs))
		for i, sub := range p.Subs {
			cs := *sub
			cs.Index, cs.Lo, cs.Hi, cs.Step = cloneExpr(sub.Index, rename), cloneExpr(sub.Lo, rename),
				cloneExpr(sub.Hi, rename), cloneExpr(sub.Step, rename)
			c.Subs[i] = &cs
		}
	}
	return &c
}

// cloneExprs copies a list of expressions.
func cloneExprs(xs []Expr, rename *renaming) []Expr {
	if xs == nil {
		return nil
	}
	out := make([]Expr, len(xs))
	for i, x := range xs {
		out[i] = cloneExpr(x, rename)
	}
	return out
}

// cloneExpr returns a deep copy of x.
func cloneExpr(x Expr, rename *renaming) Expr {
	switch x := x.(type) {
	case nil:
		return nil
	case *Ident:
		if peer, ok := rename.peers[x.Name]; ok {
			return cloneExpr(peer, &renaming{}) // a fresh copy at each use, at the call's position
		}
		return cloneIdent(x, rename)
	case *IntLit:
		c := *x
		return &c
	case *FloatLit:
		c := *x
		return &c
	case *NoneLit:
		c := *x
		return &c
	case *DirExpr:
		c := *x
		return &c
	case *BinaryExpr:
		c := *x
		c.X, c.Y = cloneExpr(x.X, rename), cloneExpr(x.Y, rename)
		return &c
	case *UnaryExpr:
		c := *x
		c.X = cloneExpr(x.X, rename)
		return &c
	case *CondExpr:
		c := *x
		c.Cond, c.Then, c.Else = cloneExpr(x.Cond, rename), cloneExpr(x.Then, rename), cloneExpr(x.Else, rename)
		return &c
	case *ParenExpr:
		c := *x
		c.X = cloneExpr(x.X, rename)
		return &c
	case *CallExpr:
		c := *x
		c.Fun = &Ident{NamePos: x.Fun.NamePos, Name: x.Fun.Name} // an intrinsic, not renamed
		c.Args = cloneExprs(x.Args, rename)
		return &c
	case *IndexExpr:
		c := *x
		c.Name = cloneIdent(x.Name, rename)
		c.Index = cloneExprs(x.Index, rename)
		return &c
	}
	panic(Unhandled("lang: expand a proc call", x))
}
