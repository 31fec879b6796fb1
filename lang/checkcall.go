package lang

import "strings"

// call checks an intrinsic call.
func (c *checker) call(e *CallExpr, ctx exprCtx) operand {
	name := e.Fun.Name
	if !c.callee(e) {
		for _, a := range e.Args {
			c.value(a, ctx.child())
		}
		return operand{}
	}
	switch name {
	case "floor", "ceil":
		return c.round(e, ctx)
	case "log2":
		return c.log2(e, ctx)
	case "abs", "min", "max":
		return c.minMaxAbs(e, ctx)
	case "sqrt", "exp", "log", "sin", "cos":
		return c.mathCall(e, ctx)
	case "neighbor":
		return c.neighbor(e, ctx)
	}
	return c.conversion(e, ctx)
}

// callee resolves the name of a call: it must be an intrinsic.
func (c *checker) callee(e *CallExpr) bool {
	name := e.Fun.Name
	obj := c.scope.lookup(name)
	switch {
	case obj == nil:
		c.errorf(e.Fun, "'%s' is not an intrinsic; the intrinsics are %s", name,
			strings.ReplaceAll(intrinsicList, " ", ", "))
		return false
	case obj.Kind == ArrayObj:
		c.info.Uses[e.Fun] = obj
		c.errorf(e.Fun, "%s is an array; index it with square brackets, as in %s", name, indexExample(name, len(obj.Dims)))
		return false
	case obj.Kind != IntrinsicObj:
		c.info.Uses[e.Fun] = obj
		c.errorf(e.Fun, "%s is %s, not an intrinsic; it cannot be called", name, obj.Kind.article())
		return false
	}
	c.info.Uses[e.Fun] = obj
	return true
}

// arity reports a call with the wrong number of arguments; min and max
// take two or more (want < 0).
func (c *checker) arity(e *CallExpr, want int) bool {
	n := len(e.Args)
	switch {
	case want < 0 && n >= 2, want == n:
		return true
	case want < 0:
		c.errorf(e, "%s takes two or more arguments, not %d", e.Fun.Name, n)
	default:
		c.errorf(e, "%s takes %s, not %d", e.Fun.Name, plural(want, "argument", "arguments"), n)
	}
	return false
}

// badArgs checks the arguments of a call that cannot be typed, so that
// they are still recorded, and returns an invalid operand.
func (c *checker) badArgs(e *CallExpr, ctx exprCtx) operand {
	var dep Dep
	for _, a := range e.Args {
		dep |= c.value(a, ctx.child()).dep
	}
	return operand{dep: dep}
}

// round checks floor(x) and ceil(x): they round the exact value, so an
// inexact quotient inside is fine; floor(log2(x)) rounds the logarithm.
// On data they keep the element type, like math.Floor.
func (c *checker) round(e *CallExpr, ctx exprCtx) operand {
	if !c.arity(e, 1) {
		return c.badArgs(e, ctx)
	}
	arg := e.Args[0]
	actx := ctx.child()
	if isLog2Call(arg) {
		actx.log2Round = roundDir(e.Fun.Name)
	}
	x := c.expr(arg, actx)
	op := operand{dep: x.dep}
	switch {
	case x.typ == InvalidType:
		return op
	case !x.typ.IsNumeric():
		c.errorf(arg, "%s needs a number, not %s (%s)", e.Fun.Name, x.typ.article(), exprText(arg))
		return op
	case x.dep&DepData != 0:
		op.typ = x.typ
	default:
		op.typ = IntType
	}
	if x.val.IsValid() {
		v, err := roundValue(x.val, e.Fun.Name == "ceil")
		if err != nil {
			c.valueErrorf(ctx, e, "%s: %v", exprText(e), err)
		}
		op.val = v
	}
	return op
}

// log2 checks log2(x). Of an integer it is an integer: x must be a power
// of two unless floor or ceil rounds the logarithm.
func (c *checker) log2(e *CallExpr, ctx exprCtx) operand {
	if !c.arity(e, 1) {
		return c.badArgs(e, ctx)
	}
	arg, round := e.Args[0], ctx.log2Round
	x := c.expr(arg, ctx.child())
	if round == 0 {
		x = c.exact(x)
	}
	op := operand{dep: x.dep}
	switch {
	case x.typ == InvalidType:
		return op
	case !x.typ.IsNumeric():
		c.errorf(arg, "log2 needs a number, not %s (%s)", x.typ.article(), exprText(arg))
		return op
	case x.dep&DepData != 0 && !x.typ.IsFloat():
		c.errorf(arg, "log2 of integer data (%s) is not an integer; convert it with f64(…)", exprText(arg))
		return op
	case x.typ.IsFloat():
		op.typ = x.typ
	default:
		op.typ = IntType
		if round == 0 && x.dep != 0 {
			c.valueErrorf(ctx, e, "%s may not be an integer, since %s; write floor(%s) or ceil(%s)",
				exprText(e), c.varies(arg, DepRank|DepIndex), exprText(e), exprText(e))
			return op
		}
	}
	if x.val.IsValid() {
		v, err := log2Value(x.val, round)
		switch {
		case err == nil:
			op.val = v
		case x.val.kind == IntValue && x.val.rat.Sign() > 0:
			c.valueErrorf(ctx, e, "%s = log2(%s) is not an integer; write floor(%s) or ceil(%s)",
				exprText(e), x.val, exprText(e), exprText(e))
		default:
			c.valueErrorf(ctx, e, "%v", err)
		}
	}
	return op
}

// minMaxAbs checks abs(x), min(a, b, …) and max(a, b, …): numbers of one
// type; with an integer result an inexact quotient passes through.
func (c *checker) minMaxAbs(e *CallExpr, ctx exprCtx) operand {
	want := -1
	if e.Fun.Name == "abs" {
		want = 1
	}
	if !c.arity(e, want) {
		return c.badArgs(e, ctx)
	}
	args := make([]operand, len(e.Args))
	op := operand{}
	for i, a := range e.Args {
		args[i] = c.expr(a, ctx.child())
		op.dep |= args[i].dep
	}
	t := args[0].typ
	for i, a := range args {
		switch {
		case a.typ == InvalidType || t == InvalidType:
			t = InvalidType
		case !a.typ.IsNumeric():
			c.errorf(e.Args[i], "%s needs numbers, but %s is %s", e.Fun.Name, exprText(e.Args[i]), a.typ.article())
			t = InvalidType
		case i > 0:
			t, _ = c.unify(e.Args[i], t, e.Args[0], a.typ, e.Args[i])
		}
	}
	if t == InvalidType {
		return op
	}
	op.typ = t
	vals := make([]Value, len(args))
	known := true
	for i := range args {
		if t.IsInteger() {
			if op.inexact == nil {
				op.inexact = args[i].inexact
			}
		} else {
			args[i] = c.exactIn(args[i], t.IsFloat())
		}
		vals[i] = args[i].val
		known = known && vals[i].IsValid()
	}
	if known {
		v, err := foldCall(e.Fun.Name, vals)
		if err != nil {
			c.valueErrorf(ctx, e, "%s: %v", exprText(e), err)
		}
		op.val = v
	}
	return op
}

// mathCall checks sqrt exp log sin cos: floats (a static int converts).
func (c *checker) mathCall(e *CallExpr, ctx exprCtx) operand {
	if !c.arity(e, 1) {
		return c.badArgs(e, ctx)
	}
	arg := e.Args[0]
	x := c.exactIn(c.expr(arg, ctx.child()), true)
	op := operand{dep: x.dep}
	switch {
	case x.typ == InvalidType:
		return op
	case x.typ == IntType || x.typ == FloatType:
		op.typ = FloatType
	case x.typ.IsFloat():
		op.typ = x.typ
	case x.typ.IsInteger():
		c.errorf(arg, "%s needs a float, but %s is %s; convert it with f64(…)", e.Fun.Name, exprText(arg), x.typ)
		return op
	default:
		c.errorf(arg, "%s needs a number, not %s (%s)", e.Fun.Name, x.typ.article(), exprText(arg))
		return op
	}
	if x.val.IsValid() {
		v, err := foldCall(e.Fun.Name, []Value{x.val})
		if err != nil {
			c.valueErrorf(ctx, e, "%s: %v", exprText(e), err)
		}
		op.val = v
	}
	return op
}

// neighbor checks neighbor(dx, dy): the grid rank at an offset, or none.
func (c *checker) neighbor(e *CallExpr, ctx exprCtx) operand {
	if !c.isGrid() {
		c.errorf(e, "neighbor(dx, dy) needs a kernel 'on grid(Px = …, Py = …)'")
	}
	if !c.arity(e, 2) {
		return c.badArgs(e, ctx)
	}
	op := operand{typ: PeerType, dep: DepRank}
	for _, a := range e.Args {
		x := c.intContext(a, "a grid offset", ctx.child())
		op.dep |= x.dep
	}
	return op
}

// conversion checks f64(x) f32(x) i64(x) i32(x).
func (c *checker) conversion(e *CallExpr, ctx exprCtx) operand {
	if !c.arity(e, 1) {
		return c.badArgs(e, ctx)
	}
	t := ElemTypeNamed(e.Fun.Name)
	arg := e.Args[0]
	x := c.exactIn(c.expr(arg, ctx.child()), t.IsFloat())
	op := operand{dep: x.dep}
	switch {
	case x.typ == InvalidType:
		return op
	case !x.typ.IsNumeric():
		c.errorf(arg, "%s needs a number, not %s (%s)", e.Fun.Name, x.typ.article(), exprText(arg))
		return op
	}
	op.typ = t.Type()
	if x.val.IsValid() {
		v, err := convertValue(t, x.val)
		if err != nil {
			c.valueErrorf(ctx, e, "%v", err)
		}
		op.val = v
	}
	return op
}
