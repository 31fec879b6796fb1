package parser

import (
	"github.com/alecthomas/participle/v2/lexer"

	"perfc/lang"
)

// expr lowers a conditional chain `x ? a : y ? b : z`. The grammar reads
// it as a list; the conditional is right-associative, so the list is folded
// from the end: x ? a : (y ? b : z).
func (l *lowerer) expr(n *exprNode) lang.Expr {
	if len(n.Arms) == 0 {
		return l.orExpr(n.X)
	}
	conds := make([]lang.Expr, 0, len(n.Arms)+1)
	conds = append(conds, l.orExpr(n.X))
	thens := make([]lang.Expr, 0, len(n.Arms))
	for _, arm := range n.Arms {
		thens = append(thens, l.expr(arm.Then))
		conds = append(conds, l.orExpr(arm.Else))
	}
	result := conds[len(conds)-1]
	for i := len(n.Arms) - 1; i >= 0; i-- {
		result = &lang.CondExpr{Cond: conds[i], Question: pos(n.Arms[i].Question), Then: thens[i], Else: result}
	}
	return result
}

// binaryTail is the `op operand` part of one binary precedence level.
type binaryTail interface {
	opToken() lexer.Token
	operand(l *lowerer) lang.Expr
}

func (t *orTail) opToken() lexer.Token  { return t.Op }
func (t *andTail) opToken() lexer.Token { return t.Op }
func (t *cmpTail) opToken() lexer.Token { return t.Op }
func (t *addTail) opToken() lexer.Token { return t.Op }
func (t *mulTail) opToken() lexer.Token { return t.Op }

func (t *orTail) operand(l *lowerer) lang.Expr  { return l.andExpr(t.Y) }
func (t *andTail) operand(l *lowerer) lang.Expr { return l.cmpExpr(t.Y) }
func (t *cmpTail) operand(l *lowerer) lang.Expr { return l.addExpr(t.Y) }
func (t *addTail) operand(l *lowerer) lang.Expr { return l.mulExpr(t.Y) }
func (t *mulTail) operand(l *lowerer) lang.Expr { return l.unary(t.Y) }

// foldLeft combines an operand and its tails left-associatively, as Go
// does for every binary operator: a - b - c is (a - b) - c.
func foldLeft[T binaryTail](l *lowerer, x lang.Expr, tails []T) lang.Expr {
	for _, t := range tails {
		op, _ := lang.BinaryOpNamed(t.opToken().Value)
		x = &lang.BinaryExpr{X: x, OpPos: pos(t.opToken()), Op: op, Y: t.operand(l)}
	}
	return x
}

func (l *lowerer) orExpr(n *orExpr) lang.Expr   { return foldLeft(l, l.andExpr(n.X), n.Tail) }
func (l *lowerer) andExpr(n *andExpr) lang.Expr { return foldLeft(l, l.cmpExpr(n.X), n.Tail) }
func (l *lowerer) addExpr(n *addExpr) lang.Expr { return foldLeft(l, l.mulExpr(n.X), n.Tail) }
func (l *lowerer) mulExpr(n *mulExpr) lang.Expr { return foldLeft(l, l.unary(n.X), n.Tail) }

// cmpExpr lowers a comparison. Comparisons do not chain (`a < b < c`
// would compare a bool with a number); the grammar accepts a chain so that
// this message can say what to write instead.
func (l *lowerer) cmpExpr(n *cmpExpr) lang.Expr {
	if len(n.Tail) > 1 {
		l.errorf(pos(n.Tail[1].Op), "comparisons do not chain; write 'a < b && b < c' to test both")
	}
	return foldLeft(l, l.addExpr(n.X), n.Tail)
}

// unary applies prefix operators from the inside out: -!x is -(!x).
func (l *lowerer) unary(n *unaryExpr) lang.Expr {
	x := l.primary(n.X)
	for i := len(n.Ops) - 1; i >= 0; i-- {
		op := lang.Neg
		if n.Ops[i].Tok.Value == "!" {
			op = lang.Not
		}
		x = &lang.UnaryExpr{OpPos: pos(n.Ops[i].Tok), Op: op, X: x}
	}
	return x
}

// primary lowers an operand.
func (l *lowerer) primary(n *primaryNode) lang.Expr {
	switch {
	case n.Int != nil:
		return &lang.IntLit{LitPos: pos(*n.Int), Text: n.Int.Value}
	case n.Float != nil:
		return &lang.FloatLit{LitPos: pos(*n.Float), Text: n.Float.Value}
	case n.Word != nil:
		return word(*n.Word)
	case n.Name != nil:
		return l.nameRef(n.Name)
	}
	return &lang.ParenExpr{Lparen: pos(n.Paren.Lparen), X: l.expr(n.Paren.X), Rparen: pos(n.Paren.Rparen)}
}

// word lowers the keyword operands: none and the grid directions.
func word(tok lexer.Token) lang.Expr {
	if d, ok := lang.DirectionNamed(tok.Value); ok {
		return &lang.DirExpr{DirPos: pos(tok), Dir: d}
	}
	return &lang.NoneLit{NonePos: pos(tok)}
}

// nameRef lowers a name, a call or an array element.
func (l *lowerer) nameRef(n *nameRef) lang.Expr {
	if n.Call != nil {
		call := &lang.CallExpr{Fun: &lang.Ident{NamePos: pos(n.Name), Name: n.Name.Value}, Rparen: pos(n.Call.Rparen)}
		for _, a := range n.Call.Args {
			call.Args = append(call.Args, l.expr(a))
		}
		return call
	}
	l.checkNotType(n.Name)
	return l.indexed(n.Name, n.Index)
}

// checkNotType reports a conversion keyword (f64 f32 i64 i32) used as a
// value instead of being called.
func (l *lowerer) checkNotType(name lexer.Token) {
	if name.Type == l.kinds.keyword {
		l.errorf(pos(name), "'%s' is a type; write %s(x) to convert a value", name.Value, name.Value)
	}
}

// indexed lowers `name` or `name[i][j]…` where no range is allowed.
func (l *lowerer) indexed(name lexer.Token, index []*indexNode) lang.Expr {
	id := &lang.Ident{NamePos: pos(name), Name: name.Value}
	if len(index) == 0 {
		return id
	}
	x := &lang.IndexExpr{Name: id, Rbrack: pos(index[len(index)-1].Rbrack)}
	for _, ix := range index {
		x.Index = append(x.Index, l.index(ix))
	}
	return x
}

// index lowers one `[i]`. A range `[lo:hi]` or `[lo:hi:step]` is only
// meaningful in a payload (payload handles that case); anywhere else it is
// reported and its lower bound kept.
func (l *lowerer) index(n *indexNode) lang.Expr {
	if n.Colon != nil {
		l.errorf(pos(*n.Colon), "a range 'lo:hi' selects part of an array only in a payload, as in 'send x[0:n] to 1'; "+
			"an element needs one index per dimension")
	}
	return l.expr(n.X)
}

// subscript lowers one bracket of a payload: an index or a range.
func (l *lowerer) subscript(n *indexNode) *lang.Subscript {
	s := &lang.Subscript{Lbrack: pos(n.Lbrack)}
	if n.Colon == nil {
		s.Index = l.expr(n.X)
		return s
	}
	s.Lo, s.Hi = l.expr(n.X), l.expr(n.Hi)
	if n.Step != nil {
		s.Step = l.expr(n.Step)
	}
	return s
}

// payload lowers what a communication statement moves: `SIZE bytes`, or a
// name with brackets, each a fixed index or a range.
func (l *lowerer) payload(n *payloadNode) *lang.Payload {
	if n.Bytes != nil {
		size := l.expr(n.X)
		return &lang.Payload{StartPos: size.Pos(), Bytes: size, End: endOf(*n.Bytes)}
	}
	ref := plainName(n.X)
	if ref == nil {
		x := l.expr(n.X)
		l.errorf(x.Pos(), "a payload is an array section such as x[0:n], a row A[i], a column A[0:n][j], a var, or a size 'SIZE bytes'; add 'bytes' after a size")
		return &lang.Payload{StartPos: x.Pos(), Bytes: x, End: x.Pos()}
	}
	l.checkNotType(ref.Name)
	p := &lang.Payload{StartPos: pos(ref.Name), Name: &lang.Ident{NamePos: pos(ref.Name), Name: ref.Name.Value}, End: endOf(ref.Name)}
	if len(ref.Index) == 0 {
		return p
	}
	for _, ix := range ref.Index {
		p.Subs = append(p.Subs, l.subscript(ix))
	}
	p.End = endOf(ref.Index[len(ref.Index)-1].Rbrack)
	return p
}

// plainName returns the name reference that n consists of, or nil when n
// is anything more (an operator, a call, a literal, parentheses).
func plainName(n *exprNode) *nameRef {
	if len(n.Arms) > 0 {
		return nil
	}
	or := n.X
	if len(or.Tail) > 0 {
		return nil
	}
	and := or.X
	if len(and.Tail) > 0 {
		return nil
	}
	cmp := and.X
	if len(cmp.Tail) > 0 {
		return nil
	}
	add := cmp.X
	if len(add.Tail) > 0 {
		return nil
	}
	mul := add.X
	if len(mul.Tail) > 0 {
		return nil
	}
	un := mul.X
	if len(un.Ops) > 0 || un.X.Name == nil || un.X.Name.Call != nil {
		return nil
	}
	return un.X.Name
}
