package lang

import (
	"fmt"
	"slices"
	"strings"
)

// exprCtx is what an expression's surroundings tell its check.
type exprCtx struct {
	dead      bool // never evaluated for these parameters: check types, not values
	log2Round int  // -1 or +1 when the expression is log2(x) directly under floor or ceil
}

// child is the context of an operand: deadness is inherited, the log2
// rounding applies to the direct argument of floor or ceil only.
func (ctx exprCtx) child() exprCtx { return exprCtx{dead: ctx.dead} }

// operand is what the checker knows about an expression, like go/types'
// operand: its type, what it depends on, its value when constant, and the
// innermost integer quotient not yet proven to be an integer.
type operand struct {
	typ Type
	dep Dep
	val Value // valid only when dep == 0 and the value is known
	// inexact is an integer `/` whose value is not known to be an integer
	// (a non-integer constant, or one that varies by rank or iteration).
	// Integer arithmetic passes it up; floor and ceil round it away; every
	// other use of the value reports it.
	inexact *BinaryExpr
}

// valueErrorf reports an error about a value, unless the expression never
// runs for these parameters.
func (c *checker) valueErrorf(ctx exprCtx, n Node, format string, args ...any) {
	if !ctx.dead {
		c.errorf(n, format, args...)
	}
}

// expr checks e and records its type, dependence and constant value.
func (c *checker) expr(e Expr, ctx exprCtx) operand {
	if e == nil {
		return operand{}
	}
	op := c.exprNode(e, ctx)
	if op.dep != 0 {
		op.val = Value{}
	}
	if op.val.IsValid() {
		v, err := conform(op.typ, op.val)
		if err != nil {
			c.valueErrorf(ctx, e, "%s: %v", exprText(e), err)
		}
		op.val = v
	}
	c.record(e, op)
	return op
}

// record stores what was found about e in Info.
func (c *checker) record(e Expr, op operand) {
	c.info.Types[e] = op.typ
	c.info.Deps[e] = op.dep
	c.info.Data[e] = op.dep&DepData != 0
	if op.val.IsValid() && op.dep == 0 {
		c.info.Values[e] = op.val
	}
}

// value checks e where its value is used as is, so an integer quotient in
// it must be an integer.
func (c *checker) value(e Expr, ctx exprCtx) operand {
	return c.exact(c.expr(e, ctx))
}

// exact reports an integer quotient that reaches a use other than integer
// arithmetic, floor or ceil without being an integer, and forgets the
// value so that the error does not cascade.
func (c *checker) exact(op operand) operand { return c.exactIn(op, false) }

// exactIn is exact; in a float context (float arithmetic, a conversion to
// a float, a probability) the message also shows how to get the fraction.
func (c *checker) exactIn(op operand, float bool) operand {
	q := op.inexact
	if q == nil {
		return op
	}
	op.inexact, op.val = nil, Value{}
	text := exprText(q)
	hint := ""
	if float {
		hint = fmt.Sprintf(", or divide floats for the fraction: f64(%s) / %s", exprText(q.X), exprText(q.Y))
	}
	if v, ok := c.info.Values[q]; ok {
		c.errorf(q, "%s = %s is not an integer%s; write floor(%s) or ceil(%s)%s", text, v, c.bindings(q), text, text, hint)
	} else {
		c.errorf(q, "%s, so it may not be an integer; write floor(%s) or ceil(%s)%s",
			c.varies(q, DepRank|DepIndex), text, text, hint)
	}
	return op
}

// bindings lists the values of the parameters and lets an expression
// reads, as " (N = 1000, P = 3)", so a message shows why it is inexact.
func (c *checker) bindings(e Expr) string {
	var parts []string
	Inspect(e, func(n Node) bool {
		id, ok := n.(*Ident)
		if !ok {
			return true
		}
		obj := c.info.Uses[id]
		if obj == nil || !obj.Value.IsValid() || obj.Dep != 0 {
			return true
		}
		s := id.Name + " = " + obj.Value.String()
		if !slices.Contains(parts, s) {
			parts = append(parts, s)
		}
		return true
	})
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// intContext checks an expression that must be a static integer: a
// dimension, bound, step, count, index, slice bound or byte size.
func (c *checker) intContext(e Expr, what string, ctx exprCtx) operand {
	op := c.value(e, ctx)
	switch {
	case op.typ == InvalidType:
	case !op.typ.IsInteger():
		hint := ""
		if op.typ.IsFloat() {
			hint = "; round it with floor(…) or ceil(…)"
		}
		c.errorf(e, "%s must be an integer, not %s (%s)%s", what, op.typ.article(), exprText(e), hint)
		op.typ, op.val = InvalidType, Value{}
	case op.dep&DepData != 0:
		c.errorf(e, "%s must be static, but %s; use parameters, lets, rank and loop indices",
			what, c.varies(e, DepData))
		op.typ, op.val = InvalidType, Value{}
	}
	return op
}

// exprNode checks one expression node.
func (c *checker) exprNode(e Expr, ctx exprCtx) operand {
	switch e := e.(type) {
	case *IntLit:
		v, err := parseIntLit(e.Text)
		if err != nil {
			c.errorf(e, "%v", err)
		}
		return operand{typ: IntType, val: v}
	case *FloatLit:
		v, err := parseFloatLit(e.Text)
		if err != nil {
			c.errorf(e, "%v", err)
		}
		return operand{typ: FloatType, val: v}
	case *Ident:
		return c.ident(e)
	case *ParenExpr:
		return c.expr(e.X, ctx)
	case *UnaryExpr:
		return c.unary(e, ctx)
	case *BinaryExpr:
		switch {
		case e.Op == LAnd || e.Op == LOr:
			return c.logical(e, ctx)
		case e.Op.IsComparison():
			return c.compare(e, ctx)
		}
		return c.arith(e, ctx)
	case *CondExpr:
		return c.cond(e, ctx)
	case *CallExpr:
		return c.call(e, ctx)
	case *IndexExpr:
		return c.indexExpr(e, ctx)
	case *DirExpr:
		if !c.isGrid() {
			c.errorf(e, "'%s' is a grid direction; it needs a kernel 'on grid(Px = …, Py = …)'", e.Dir)
		}
		return operand{typ: PeerType, dep: DepRank}
	case *NoneLit:
		return operand{typ: PeerType, val: MakeInt(-1)}
	default:
		c.unhandled("lang: check expression", e)
		return operand{}
	}
}

// lookup resolves a name, reporting it when it is not in scope.
func (c *checker) lookup(id *Ident) *Object {
	obj := c.scope.lookup(id.Name)
	if obj == nil {
		c.undefined(id)
		return nil
	}
	c.info.Uses[id] = obj
	return obj
}

// undefined explains why a name is not in scope here.
func (c *checker) undefined(id *Ident) {
	name := id.Name
	declared, hasDecl := c.decls[name]
	switch {
	case slices.ContainsFunc(c.declaring, func(d *Ident) bool { return d.Name == name }):
		c.errorf(id, "'%s' is used in its own declaration", name)
	case c.inDefaults && (name == "P" || (isGridName(name) && c.isGrid())):
		c.errorf(id, "a parameter default cannot use %s (%s); it may use only earlier parameters",
			name, predeclaredMeaning(name, true))
	case hasDecl && declared > id.NamePos:
		c.errorf(id, "'%s' is used before its declaration at %s", name, c.lineCol(declared))
	case hasDecl:
		c.errorf(id, "'%s' is not in scope here; it is declared at %s, in a block that has ended", name, c.lineCol(declared))
	case isGridName(name):
		c.errorf(id, "'%s' exists only in a kernel on a grid; write 'on grid(Px = …, Py = …)'", name)
	default:
		c.errorf(id, "'%s' is not declared; declare it with let, array or var, or as a kernel parameter", name)
	}
}

// ident checks a name used as a value.
func (c *checker) ident(id *Ident) operand {
	obj := c.lookup(id)
	if obj == nil {
		return operand{}
	}
	switch obj.Kind {
	case ParamObj:
		return operand{typ: obj.Type, val: obj.Value}
	case LetObj:
		return operand{typ: obj.Type, dep: obj.Dep, val: obj.Value}
	case IndexObj:
		return operand{typ: IntType, dep: DepIndex}
	case BuiltinObj:
		if c.inDefaults && obj.Dep != 0 {
			c.errorf(id, "a parameter default cannot use %s; it must be the same on every rank", id.Name)
			return operand{}
		}
		return operand{typ: obj.Type, dep: obj.Dep, val: obj.Value}
	case VarObj:
		c.bufferAccess(id, obj, nil, false)
		return operand{typ: obj.Type, dep: DepData}
	case ArrayObj:
		c.errorf(id, "array %s needs %s, as in %s; only a communication payload may name a whole array",
			id.Name, plural(len(obj.Dims), "index", "indices"), indexExample(id.Name, len(obj.Dims)))
		return operand{typ: obj.Type, dep: DepData}
	}
	c.errorf(id, "'%s' is an intrinsic; call it, as in %s(x)", id.Name, id.Name)
	return operand{}
}

// plural formats n with the singular or plural noun.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// indexExample writes a[i][j]… with n indices.
func indexExample(name string, n int) string {
	letters := "ijklmn"
	var b strings.Builder
	b.WriteString(name)
	for k := range n {
		b.WriteString("[" + string(letters[k%len(letters)]) + "]")
	}
	return b.String()
}

// unary checks -x and !x.
func (c *checker) unary(e *UnaryExpr, ctx exprCtx) operand {
	if e.Op == Not {
		x := c.value(e.X, ctx.child())
		if x.typ != InvalidType && x.typ != BoolType {
			c.errorf(e, "operator ! needs a boolean, not %s (%s)", x.typ.article(), exprText(e.X))
		}
		op := operand{typ: BoolType, dep: x.dep}
		if x.val.IsValid() {
			op.val, _ = unaryOp(Not, x.val)
		}
		return op
	}
	x := c.expr(e.X, ctx.child())
	if x.typ != InvalidType && !x.typ.IsNumeric() {
		c.errorf(e, "operator - needs a number, not %s (%s)", x.typ.article(), exprText(e.X))
		return operand{dep: x.dep}
	}
	op := operand{typ: x.typ, dep: x.dep, inexact: x.inexact}
	if x.val.IsValid() {
		op.val, _ = unaryOp(Neg, x.val)
	}
	return op
}

// logical checks && and ||. The right operand is dead when the left one
// decides the result for these parameters, as evaluation short-circuits.
func (c *checker) logical(e *BinaryExpr, ctx exprCtx) operand {
	x := c.value(e.X, ctx.child())
	yctx := ctx.child()
	decided := x.dep == 0 && x.val.Kind() == BoolValue && x.val.Bool() == (e.Op == LOr)
	yctx.dead = yctx.dead || decided
	y := c.value(e.Y, yctx)
	for _, side := range []struct {
		e  Expr
		op operand
	}{{e.X, x}, {e.Y, y}} {
		if side.op.typ != InvalidType && side.op.typ != BoolType {
			c.errorf(side.e, "operator %s needs booleans, not %s (%s)", e.Op, side.op.typ.article(), exprText(side.e))
		}
	}
	op := operand{typ: BoolType, dep: x.dep | y.dep}
	switch {
	case decided:
		op.val = x.val
	case x.val.IsValid() && y.val.IsValid():
		op.val = y.val
	}
	return op
}

// compare checks a comparison: numbers of compatible types, booleans or
// peers for equality.
func (c *checker) compare(e *BinaryExpr, ctx exprCtx) operand {
	x := c.value(e.X, ctx.child())
	y := c.value(e.Y, ctx.child())
	op := operand{typ: BoolType, dep: x.dep | y.dep}
	if x.typ == InvalidType || y.typ == InvalidType {
		return op
	}
	equality := e.Op == Eql || e.Op == Neq
	switch {
	case x.typ == BoolType && y.typ == BoolType:
		if !equality {
			c.errorf(e, "booleans can only be compared with == and !=")
		}
	case x.typ == PeerType || y.typ == PeerType:
		peerLike := func(t Type) bool { return t == PeerType || t.IsInteger() }
		if !equality || !peerLike(x.typ) || !peerLike(y.typ) {
			c.errorf(e, "a peer (a rank or none) can only be compared with a rank or a peer, with == or !=")
		}
	case x.typ.IsNumeric() && y.typ.IsNumeric():
		if _, ok := c.unify(e, x.typ, e.X, y.typ, e.Y); !ok {
			return op
		}
	default:
		c.errorf(e, "cannot compare %s (%s) with %s (%s)", exprText(e.X), x.typ.article(), exprText(e.Y), y.typ.article())
		return op
	}
	if x.val.IsValid() && y.val.IsValid() {
		v, err := compareOp(e.Op, x.val, y.val)
		if err == nil {
			op.val = v
		}
	}
	return op
}

// unify returns the type of an operation on numbers of types a and b:
// untyped ints and floats combine (a float wins) and take the element type
// of a typed operand; element types must agree.
func (c *checker) unify(at Node, a Type, ea Expr, b Type, eb Expr) (Type, bool) {
	switch {
	case a == b:
		return a, true
	case !a.IsElem() && !b.IsElem():
		return FloatType, true // int with float
	case !a.IsElem():
		a, b, ea, eb = b, a, eb, ea // a is now the element type
	}
	switch {
	case !b.IsElem() && (b == IntType || a.IsFloat()):
		return a, true
	case !b.IsElem():
		c.errorf(at, "type mismatch: %s is %s, but %s is a float; convert with f64(…) or f32(…), or write an integer",
			exprText(ea), a, exprText(eb))
	default:
		c.errorf(at, "type mismatch: %s is %s, but %s is %s; convert one of them, as in %s(%s)",
			exprText(ea), a, exprText(eb), b, a, exprText(eb))
	}
	return InvalidType, false
}

// arith checks + - * / % << >> & | ^.
func (c *checker) arith(e *BinaryExpr, ctx exprCtx) operand {
	x := c.expr(e.X, ctx.child())
	y := c.expr(e.Y, ctx.child())
	op := operand{dep: x.dep | y.dep}
	if x.typ == InvalidType || y.typ == InvalidType {
		return op
	}
	for _, side := range []struct {
		e  Expr
		op operand
	}{{e.X, x}, {e.Y, y}} {
		if !side.op.typ.IsNumeric() {
			c.errorf(side.e, "operator %s needs numbers, but %s is %s", e.Op, exprText(side.e), side.op.typ.article())
			return op
		}
	}
	t, ok := c.unify(e, x.typ, e.X, y.typ, e.Y)
	if !ok {
		return op
	}
	bitwise := e.Op == Shl || e.Op == Shr || e.Op == And || e.Op == Or || e.Op == Xor
	if (bitwise || e.Op == Rem) && !t.IsInteger() {
		side, st := e.Y, y.typ
		if !x.typ.IsInteger() {
			side, st = e.X, x.typ
		}
		c.errorf(side, "operator %s needs integers, but %s is %s", e.Op, exprText(side), st.article())
		return op
	}
	op.typ = t
	if t.IsInteger() && !bitwise {
		op.inexact = x.inexact
		if op.inexact == nil {
			op.inexact = y.inexact
		}
	} else {
		x, y = c.exactIn(x, t.IsFloat()), c.exactIn(y, t.IsFloat())
	}
	if x.val.IsValid() && y.val.IsValid() {
		v, err := binaryOp(e.Op, x.val, y.val)
		if err != nil {
			c.valueErrorf(ctx, e, "%s: %v", exprText(e), err)
		}
		op.val = v
	}
	if e.Op == Quo && t.IsInteger() && op.dep&DepData == 0 && op.inexact == nil && !ctx.dead {
		if op.dep != 0 || (op.val.IsValid() && !op.val.IsInt()) {
			op.inexact = e
		}
	}
	return op
}

// cond checks c ? a : b. With a constant condition the arm not taken is
// dead.
func (c *checker) cond(e *CondExpr, ctx exprCtx) operand {
	cond := c.value(e.Cond, ctx.child())
	if cond.typ != InvalidType && cond.typ != BoolType {
		c.errorf(e.Cond, "the condition of ?: must be a comparison or another boolean, not %s (%s)", cond.typ.article(), exprText(e.Cond))
	}
	known := cond.dep == 0 && cond.val.Kind() == BoolValue
	thenCtx, elseCtx := ctx.child(), ctx.child()
	thenCtx.dead = thenCtx.dead || (known && !cond.val.Bool())
	elseCtx.dead = elseCtx.dead || (known && cond.val.Bool())
	th := c.expr(e.Then, thenCtx)
	el := c.expr(e.Else, elseCtx)
	op := operand{dep: cond.dep | th.dep | el.dep}
	op.typ = c.armType(e, th.typ, el.typ)
	if op.typ.IsInteger() {
		op.inexact = th.inexact
		if op.inexact == nil {
			op.inexact = el.inexact
		}
	} else {
		th, el = c.exact(th), c.exact(el)
	}
	if known {
		op.val = th.val
		if !cond.val.Bool() {
			op.val = el.val
		}
	}
	return op
}

// armType is the type of c ? a : b from the types of its arms.
func (c *checker) armType(e *CondExpr, a, b Type) Type {
	switch {
	case a == InvalidType || b == InvalidType:
		return InvalidType
	case a == b:
		return a
	case (a == PeerType && b.IsInteger()) || (b == PeerType && a.IsInteger()):
		return PeerType
	case a.IsNumeric() && b.IsNumeric():
		t, _ := c.unify(e, a, e.Then, b, e.Else)
		return t
	}
	c.errorf(e, "the arms of ?: differ: %s is %s, %s is %s", exprText(e.Then), a.article(), exprText(e.Else), b.article())
	return InvalidType
}

// indexExpr checks an array element a[i][j]: one static integer index per
// dimension, each inside the array where that can be decided.
func (c *checker) indexExpr(e *IndexExpr, ctx exprCtx) operand {
	obj := c.lookup(e.Name)
	valid := obj != nil
	if valid && obj.Kind != ArrayObj {
		valid = false
		if obj.Kind == VarObj {
			c.errorf(e, "%s is a var, a single value; it has no indices", e.Name.Name)
		} else {
			c.errorf(e, "%s is %s, not an array; it cannot be indexed", e.Name.Name, obj.Kind.article())
		}
	}
	if valid && len(e.Index) != len(obj.Dims) {
		c.errorf(e, "%s has %s; write %s", e.Name.Name, plural(len(obj.Dims), "dimension", "dimensions"),
			indexExample(e.Name.Name, len(obj.Dims)))
		valid = false
	}
	for i, x := range e.Index {
		op := c.intContext(x, "an index", ctx.child())
		if valid && obj.Dims[i] > 0 {
			c.checkIndex(x, op, ctx, obj, i)
		}
	}
	if !valid {
		return operand{dep: DepData}
	}
	c.bufferAccess(e, obj, e.Index, c.reqs.writing == e)
	c.record(e.Name, operand{typ: obj.Type, dep: DepData})
	return operand{typ: obj.Type, dep: DepData}
}
