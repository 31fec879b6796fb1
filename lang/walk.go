package lang

// Inspect traverses the tree rooted at n in depth-first order, as
// go/ast.Inspect does: f is called for every node; if it returns false the
// node's children are skipped. Nil children are not visited.
func Inspect(n Node, f func(Node) bool) {
	if n == nil || !f(n) {
		return
	}
	switch n := n.(type) {
	case *File:
		for _, k := range n.Kernels {
			Inspect(k, f)
		}
		for _, p := range n.Procs {
			Inspect(p, f)
		}
	case *Proc:
		Inspect(n.Name, f)
		for _, id := range n.Params {
			Inspect(id, f)
		}
		Inspect(n.Body, f)
	case *ProcCallStmt:
		Inspect(n.Name, f)
		for _, a := range n.Args {
			inspectExpr(a, f)
		}
	case *Kernel:
		Inspect(n.Name, f)
		for _, p := range n.Params {
			Inspect(p, f)
		}
		if n.Ranks != nil {
			Inspect(n.Ranks, f)
		}
		Inspect(n.Body, f)
	case *Param:
		Inspect(n.Name, f)
		inspectExpr(n.Default, f)
	case *RankSpec:
		for _, p := range n.Params {
			Inspect(p, f)
		}
	case *Block:
		for _, s := range n.Stmts {
			Inspect(s, f)
		}
	case *LetStmt:
		Inspect(n.Name, f)
		inspectExpr(n.Value, f)
	case *ArrayDecl:
		for _, a := range n.Arrays {
			Inspect(a, f)
		}
	case *ArraySpec:
		Inspect(n.Name, f)
		for _, d := range n.Dims {
			inspectExpr(d, f)
		}
	case *VarDecl:
		for _, id := range n.Names {
			Inspect(id, f)
		}
		inspectExpr(n.Init, f)
	case *ForStmt:
		Inspect(n.Var, f)
		inspectExpr(n.Lo, f)
		inspectExpr(n.Hi, f)
		inspectExpr(n.Step, f)
		Inspect(n.Body, f)
	case *RepeatStmt:
		inspectExpr(n.Count, f)
		Inspect(n.Body, f)
	case *AssignStmt:
		inspectExpr(n.Lhs, f)
		inspectExpr(n.Rhs, f)
	case *IfStmt:
		inspectExpr(n.Cond, f)
		inspectExpr(n.Prob, f)
		Inspect(n.Then, f)
		if n.Else != nil {
			Inspect(n.Else, f)
		}
	case *RegionStmt:
		Inspect(n.Body, f)
	case *WorkStmt:
		for _, it := range n.Items {
			Inspect(it, f)
		}
	case *WorkOp:
		inspectExpr(n.Count, f)
	case *WorkMem:
		inspectExpr(n.Bytes, f)
		if n.Array != nil {
			Inspect(n.Array, f)
		}
		inspectExpr(n.Set, f)
	case *WaitStmt:
		for _, r := range n.Reqs {
			Inspect(r, f)
		}
	case *CommStmt:
		if n.Payload != nil {
			Inspect(n.Payload, f)
		}
		inspectExpr(n.Peer, f)
		inspectExpr(n.From, f)
		if n.Into != nil {
			Inspect(n.Into, f)
		}
		if n.Req != nil {
			Inspect(n.Req, f)
		}
	case *Payload:
		inspectExpr(n.Bytes, f)
		if n.Name != nil {
			Inspect(n.Name, f)
		}
		for _, sub := range n.Subs {
			Inspect(sub, f)
		}
	case *Subscript:
		inspectExpr(n.Index, f)
		inspectExpr(n.Lo, f)
		inspectExpr(n.Hi, f)
		inspectExpr(n.Step, f)
	case *BinaryExpr:
		inspectExpr(n.X, f)
		inspectExpr(n.Y, f)
	case *UnaryExpr:
		inspectExpr(n.X, f)
	case *CondExpr:
		inspectExpr(n.Cond, f)
		inspectExpr(n.Then, f)
		inspectExpr(n.Else, f)
	case *ParenExpr:
		inspectExpr(n.X, f)
	case *CallExpr:
		Inspect(n.Fun, f)
		for _, a := range n.Args {
			inspectExpr(a, f)
		}
	case *IndexExpr:
		Inspect(n.Name, f)
		for _, x := range n.Index {
			inspectExpr(x, f)
		}
	case *Ident, *IntLit, *FloatLit, *DirExpr, *NoneLit, *Comment:
		// Leaves.
	default:
		// Stmt and Expr are closed: a kind of either without a rule here
		// would hide its children from every walk. Other Nodes are the
		// caller's own, without children Inspect knows.
		switch n.(type) {
		case Stmt, Expr:
			panic(Unhandled("lang: Inspect", n))
		}
	}
}

// inspectExpr visits e unless it is a nil interface.
func inspectExpr(e Expr, f func(Node) bool) {
	if e != nil {
		Inspect(e, f)
	}
}
