package analyze

import (
	"perfc/lang"
)

// Vector loops: an innermost loop whose body is one assignment of a form a
// vector unit runs (CM-5 Tables 2–3: A(I) = B(I) + s, B(I) + C(I),
// B(I)*s, B(I)*C(I), s*B(I) + C(I), B(I)*C(I) + D(I)*E(I)). The counts
// record how often such a loop is entered and how many iterations it runs,
// so that a machine with vector units can price it with Hockney's law
// t = q·(n + n½)/r∞ per entry instead of operation by operation.

// VectorLoop is one candidate loop for a vector unit.
type VectorLoop struct {
	Stmt       string    `json:"stmt"` // file:line:col of the loop
	Form       string    `json:"form"` // a=b+s, a=b+c, a=b*s, a=b*c, a=s*b+c, a=b*c+d*e
	Elem       string    `json:"elem"`
	Entries    Count     `json:"entries"`    // times the loop is entered
	Iterations Count     `json:"iterations"` // iterations over all entries
	Ops        []OpCount `json:"ops"`        // the statement's operations over all iterations
	Madds      []OpCount `json:"madds,omitempty"`
}

// vectorOperand classifies an operand of a vector statement: an array
// element that moves with the loop index, or a scalar (anything else).
type vectorOperand uint8

const (
	notVector vectorOperand = iota
	vecArray
	vecScalar
)

// vectorForm returns the vector form of the loop's body, or "".
func vectorForm(info *lang.Info, loop *lang.ForStmt) (form string, elem lang.ElemType) {
	if len(loop.Body.Stmts) != 1 {
		return "", lang.NoElem
	}
	a, ok := loop.Body.Stmts[0].(*lang.AssignStmt)
	if !ok {
		return "", lang.NoElem
	}
	lhs, ok := lang.Unparen(a.Lhs).(*lang.IndexExpr)
	if !ok {
		return "", lang.NoElem
	}
	index := info.Defs[loop.Var]
	if !dependsOn(info, lhs, index) {
		return "", lang.NoElem
	}
	obj := info.Uses[lhs.Name]
	if obj == nil {
		return "", lang.NoElem
	}
	rhs := lang.Unparen(a.Rhs)
	if op, compound := a.Op.Binary(); compound {
		rhs = &lang.BinaryExpr{X: lhs, Op: op, Y: a.Rhs}
	}
	return classifyVector(info, index, rhs), obj.Elem
}

// classifyVector names the form of the right-hand side e.
func classifyVector(info *lang.Info, index *lang.Object, e lang.Expr) string {
	kind := func(x lang.Expr) vectorOperand {
		x = lang.Unparen(x)
		switch x := x.(type) {
		case *lang.IndexExpr:
			if dependsOn(info, x, index) {
				return vecArray
			}
			return vecScalar
		case *lang.Ident, *lang.IntLit, *lang.FloatLit:
			return vecScalar
		}
		if info.Deps[x]&(lang.DepData|lang.DepIndex) == 0 {
			return vecScalar
		}
		return notVector
	}
	product := func(x lang.Expr) (a, b vectorOperand, ok bool) {
		m, isMul := lang.Unparen(x).(*lang.BinaryExpr)
		if !isMul || m.Op != lang.Mul {
			return 0, 0, false
		}
		return kind(m.X), kind(m.Y), true
	}
	b, isBin := e.(*lang.BinaryExpr)
	if !isBin {
		return ""
	}
	switch b.Op {
	case lang.Mul:
		x, y := kind(b.X), kind(b.Y)
		switch {
		case x == vecArray && y == vecArray:
			return "a=b*c"
		case x == vecArray && y == vecScalar, x == vecScalar && y == vecArray:
			return "a=b*s"
		}
	case lang.Add, lang.Sub:
		px, py, xIsProd := product(b.X)
		qx, qy, yIsProd := product(b.Y)
		switch {
		case xIsProd && yIsProd:
			if px == vecArray && py == vecArray && qx == vecArray && qy == vecArray {
				return "a=b*c+d*e"
			}
		case xIsProd || yIsProd:
			m1, m2, other := px, py, kind(b.Y)
			if yIsProd {
				m1, m2, other = qx, qy, kind(b.X)
			}
			if other == vecArray && (m1 == vecScalar && m2 == vecArray || m1 == vecArray && m2 == vecScalar) {
				return "a=s*b+c"
			}
		default:
			x, y := kind(b.X), kind(b.Y)
			switch {
			case x == vecArray && y == vecArray:
				return "a=b+c"
			case x == vecArray && y == vecScalar, x == vecScalar && y == vecArray:
				return "a=b+s"
			}
		}
	}
	return ""
}

// planVector adds a vector-loop leaf for loop when its body has a vector
// form; chain encloses the loop (not its body).
func (p *plan) planVector(loop *lang.ForStmt, chain []level, region string) {
	form, elem := vectorForm(p.k.Info, loop)
	if form == "" {
		return
	}
	a := loop.Body.Stmts[0].(*lang.AssignStmt)
	t := tallier{info: p.k.Info}
	t.expr(a.Rhs)
	if op, compound := a.Op.Binary(); compound {
		t.count(binaryOpKind(op), opTypeOf(p.k.Info.Types[a.Lhs]))
		if m, ok := lang.Unparen(a.Rhs).(*lang.BinaryExpr); ok && m.Op == lang.Mul && (op == lang.Add || op == lang.Sub) && t.counted(m) &&
			opTypeOf(p.k.Info.Types[m]) == opTypeOf(p.k.Info.Types[a.Lhs]) {
			t.madd = addTally(t.madd, opTally{op: binaryOpKind(op), typ: opTypeOf(p.k.Info.Types[a.Lhs]), n: 1})
		}
	}
	p.leaves = append(p.leaves, &leaf{kind: leafVector, region: region, chain: chain, stmt: loop, pos: loop.Pos(),
		vectorForm: form, vectorElem: elem, ops: t.ops, madd: t.madd})
}

// vectorLeaf sums a vector-loop leaf: entries over the enclosing chain,
// iterations over the chain with the loop itself.
func (ra *rankAnalysis) vectorLeaf(l *leaf, c *Counts) error {
	loop := l.stmt.(*lang.ForStmt)
	entries, err := ra.exec(l, l.chain)
	if err != nil {
		return err
	}
	inner := appendLevel(l.chain, level{kind: loopLevel, loop: loop, index: ra.k.Info.Defs[loop.Var]})
	iters, err := ra.exec(l, inner)
	if err != nil {
		return err
	}
	if entries.IsZero() {
		return nil
	}
	v := VectorLoop{Stmt: ra.place(loop), Form: l.vectorForm, Elem: l.vectorElem.String(), Entries: entries, Iterations: iters}
	// The operands' pattern is the one the statement's own leaf got.
	pattern := ""
	for _, x := range ra.p.leaves {
		if x.kind == leafExec && x.stmt == loop.Body.Stmts[0] {
			pattern = x.pattern
		}
	}
	for _, t := range l.ops {
		v.Ops = addOpCount(v.Ops, OpCount{Op: t.op, Type: t.typ, Pattern: pattern, Count: iters.times(t.n)})
	}
	for _, t := range l.madd {
		v.Madds = addOpCount(v.Madds, OpCount{Op: t.op, Type: t.typ, Pattern: pattern, Count: iters.times(t.n)})
	}
	c.Vectors = append(c.Vectors, v)
	return nil
}
