package codegen

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"perfc/lang"
)

// Expressions. Every expression is written with the precedence of its
// operator (the language's are Go's), so parentheses appear where the
// author wrote them and where Go needs them. Subexpressions constant for
// the run are folded by the checker and written as literals, so the
// generated program does no run-constant work in its loops, as the
// analyzer assumes (docs/counts.md).

// Go precedence levels of written code.
const (
	precPrimary = 7 // names, literals, calls, index expressions, parentheses
	precUnary   = 6
)

// code is a written Go expression: its text, the precedence of its top
// operator and its Go type. lit is set for a literal, which can be
// rewritten in any numeric type.
type code struct {
	text string
	prec int
	typ  string
	lit  *lang.Value
}

// goType names the Go type of values of a language type.
func goType(t lang.Type) string {
	switch t {
	case lang.FloatType, lang.F64Type:
		return "float64"
	case lang.F32Type:
		return "float32"
	case lang.I64Type:
		return "int64"
	case lang.I32Type:
		return "int32"
	case lang.BoolType:
		return "bool"
	}
	return "int" // int, peers
}

// elemGoType names the Go type of an element type.
func elemGoType(e lang.ElemType) string { return goType(e.Type()) }

// isFloatGo reports whether a Go type is a float type.
func isFloatGo(t string) bool { return t == "float64" || t == "float32" }

// expr writes e as a value of Go type want.
func (g *generator) expr(e lang.Expr, want string) code {
	return g.convert(g.natural(e), want)
}

// convert turns c into a value of Go type want: a literal is rewritten,
// anything else converted.
func (g *generator) convert(c code, want string) code {
	if c.typ == want || want == "" {
		return c
	}
	if c.lit != nil {
		return g.literal(*c.lit, want, nil)
	}
	return code{text: want + "(" + c.text + ")", prec: precPrimary, typ: want}
}

// literal writes a constant value as Go type want. Integers in an int
// context and floats in a float64 context are bare literals (they take the
// type of the other operand); other types are written as conversions, so
// that a literal never has a surprising default type (in a generic call,
// in a shift).
func (g *generator) literal(v lang.Value, want string, at lang.Node) code {
	c := code{prec: precPrimary, typ: want, lit: &v}
	switch {
	case want == "bool":
		c.text = strconv.FormatBool(v.Bool())
		return c
	case isFloatGo(want):
		c.text = floatText(v.Float64())
	default:
		r := v.Rat()
		if r == nil || !r.IsInt() || !r.Num().IsInt64() {
			g.fail(at, "the constant %s is not a 64-bit integer", v)
			c.text = "0"
			return c
		}
		c.text = r.Num().String()
	}
	if want != "int" && want != "float64" {
		c.text = want + "(" + c.text + ")"
	} else if strings.HasPrefix(c.text, "-") {
		c.text = "(" + c.text + ")"
	}
	return c
}

// floatText writes a finite float so that Go reads it as a float literal
// with the same value.
func floatText(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "0" // the checker rejects such constants; never reached
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s
}

// natural writes e in its own type.
func (g *generator) natural(e lang.Expr) code {
	if v, ok := g.info.Values[e]; ok && v.IsValid() {
		return g.literal(v, goType(g.info.Types[e]), e)
	}
	typ := goType(g.info.Types[e])
	if c, ok := g.rankConstant(e); ok {
		return c
	}
	if _, isName := e.(*lang.Ident); !isName && g.info.Deps[e] == 0 {
		// Constant, but the checker did not evaluate it: it lies in code
		// that never runs for these parameters.
		v, err := g.k.Eval(e, nil)
		if err != nil {
			g.fail(e, "%v", err)
			return code{text: "0", prec: precPrimary, typ: typ}
		}
		return g.literal(v, typ, e)
	}
	switch e := e.(type) {
	case *lang.Ident:
		return g.ident(e)
	case *lang.ParenExpr:
		x := g.natural(e.X)
		if x.lit != nil {
			return x
		}
		return code{text: "(" + x.text + ")", prec: precPrimary, typ: x.typ}
	case *lang.UnaryExpr:
		x := g.natural(e.X)
		if e.Op == lang.Not {
			return code{text: "!" + paren(x, precUnary), prec: precUnary, typ: "bool"}
		}
		operand := paren(x, precUnary)
		if strings.HasPrefix(operand, "-") {
			operand = "(" + operand + ")" // not --x
		}
		return code{text: "-" + operand, prec: precUnary, typ: x.typ}
	case *lang.BinaryExpr:
		return g.binary(e, typ)
	case *lang.CondExpr:
		return g.cond(e, typ)
	case *lang.CallExpr:
		return g.call(e, typ)
	case *lang.IndexExpr:
		return g.element(e)
	case *lang.DirExpr:
		dx, dy := e.Dir.Offset()
		return code{text: fmt.Sprintf("r.neighbor(%d, %d)", dx, dy), prec: precPrimary, typ: "int"}
	case *lang.IntLit, *lang.FloatLit, *lang.NoneLit:
		// Constants, written above; one the checker did not fold is an error.
		g.fail(e, "cannot write the expression %s", lang.ExprString(e))
	default:
		g.fail(e, "%s", lang.Unhandled("codegen: expression", e))
	}
	return code{text: "0", prec: precPrimary, typ: typ}
}

// rankConstant writes a subexpression that is constant for the rank (it
// reads the rank, but no loop index and no data) as a local computed once
// before the body: the analyzer does not count its operations, so the
// program must not execute them in the loops. Expressions that could stop
// the program (a division, an element) stay where they are, since the
// code around them may guard them.
func (g *generator) rankConstant(e lang.Expr) (code, bool) {
	if g.inRankConstant || g.info.Deps[e] != lang.DepRank || !hoistable(g.info, e) {
		return code{}, false
	}
	if _, isName := lang.Unparen(e).(*lang.Ident); isName {
		return code{}, false
	}
	typ := goType(g.info.Types[e])
	if name, ok := g.rankConsts[e]; ok {
		return code{text: name, prec: precPrimary, typ: typ}, true
	}
	g.inRankConstant = true
	inline := g.inlineLets
	g.inlineLets = true // the body's lets are not declared yet
	c := g.natural(e)
	g.inlineLets, g.inRankConstant = inline, false
	name := g.temp("rc")
	fmt.Fprintf(&g.prologue, "%s := %s\n", name, c.text)
	g.rankConsts[e] = name
	return code{text: name, prec: precPrimary, typ: c.typ}, true
}

// hoistable reports whether evaluating e before the body is safe: it
// reads no array element, divides only by nonzero constants and calls no
// intrinsic with a restricted domain.
func hoistable(info *lang.Info, e lang.Expr) bool {
	safe := true
	lang.Inspect(e, func(n lang.Node) bool {
		switch n := n.(type) {
		case *lang.IndexExpr:
			safe = false
		case *lang.BinaryExpr:
			if n.Op == lang.Quo || n.Op == lang.Rem || n.Op == lang.Shl || n.Op == lang.Shr {
				v, ok := info.Values[n.Y]
				safe = safe && ok && v.Rat() != nil && v.Rat().Sign() > 0
			}
		case *lang.CallExpr:
			switch n.Fun.Name {
			case "log2", "log", "sqrt":
				safe = false
			}
		}
		return safe
	})
	return safe
}

// paren writes c as an operand of an operator of precedence prec.
func paren(c code, prec int) string {
	if c.prec < prec {
		return "(" + c.text + ")"
	}
	return c.text
}

// ident writes a name.
func (g *generator) ident(id *lang.Ident) code {
	obj := g.info.Uses[id]
	if obj == nil {
		g.fail(id, "%s is not a checked name", id.Name)
		return code{text: "0", prec: precPrimary, typ: "int"}
	}
	typ := goType(obj.Type)
	switch obj.Kind {
	case lang.LetObj:
		if obj.Dep == 0 && obj.Value.IsValid() {
			return g.literal(obj.Value, typ, id)
		}
		if g.inlineLets {
			x := g.natural(obj.Expr)
			return code{text: "(" + x.text + ")", prec: precPrimary, typ: x.typ}
		}
		return code{text: g.names.name(obj), prec: precPrimary, typ: typ}
	case lang.IndexObj, lang.VarObj:
		return code{text: g.names.name(obj), prec: precPrimary, typ: typ}
	case lang.ParamObj:
		return g.literal(obj.Value, typ, id)
	case lang.BuiltinObj:
		if obj.Dep == 0 {
			return g.literal(obj.Value, typ, id)
		}
		return code{text: obj.Name, prec: precPrimary, typ: "int"} // rank, rx, ry: locals of the body
	}
	g.fail(id, "%s is a %s and has no value", id.Name, obj.Kind)
	return code{text: "0", prec: precPrimary, typ: typ}
}

// element writes an array element, or the local that holds it while it is
// hoisted.
func (g *generator) element(e *lang.IndexExpr) code {
	obj := g.info.Uses[e.Name]
	typ := elemGoType(obj.Elem)
	if local, ok := g.binds[elementKey(obj, e)]; ok {
		return code{text: local, prec: precPrimary, typ: typ}
	}
	var b strings.Builder
	b.WriteString(g.names.name(obj))
	for _, ix := range e.Index {
		b.WriteString("[" + g.expr(ix, "int").text + "]")
	}
	return code{text: b.String(), prec: precPrimary, typ: typ}
}

// elementKey identifies an array element by its array and indices as
// written, as the analyzer's hoisting does.
func elementKey(obj *lang.Object, e *lang.IndexExpr) string {
	return fmt.Sprintf("%p %s", obj, lang.ExprString(e))
}

// binary writes x op y.
func (g *generator) binary(e *lang.BinaryExpr, typ string) code {
	prec := e.Op.Precedence()
	switch {
	case e.Op == lang.LAnd || e.Op == lang.LOr:
		// A constant left side that decides the result makes the right
		// side dead: the checker did not evaluate it.
		if v, ok := g.info.Values[e.X]; ok && v.Kind() == lang.BoolValue {
			if v.Bool() == (e.Op == lang.LOr) {
				return g.literal(v, "bool", e)
			}
			return g.natural(e.Y)
		}
		return g.infix(g.expr(e.X, "bool"), e.Op.String(), g.expr(e.Y, "bool"), prec, "bool")
	case e.Op.IsComparison():
		t := comparisonType(g.info.Types[e.X], g.info.Types[e.Y])
		return g.infix(g.expr(e.X, t), e.Op.String(), g.expr(e.Y, t), prec, "bool")
	}
	x, y := g.expr(e.X, typ), g.expr(e.Y, typ)
	switch e.Op {
	case lang.Rem:
		return code{text: "emod(" + x.text + ", " + y.text + ")", prec: precPrimary, typ: typ}
	case lang.Shl, lang.Shr:
		if x.lit != nil && !strings.HasPrefix(x.text, typ+"(") {
			// The left operand of a shift takes its type from the
			// context; spell it out.
			x.text = typ + "(" + x.text + ")"
		}
		if y.typ != "int" {
			y = g.convert(y, "int")
		}
	}
	return g.infix(x, e.Op.String(), y, prec, typ)
}

// infix writes x op y for an operator of precedence prec (left
// associative).
func (g *generator) infix(x code, op string, y code, prec int, typ string) code {
	return code{text: paren(x, prec) + " " + op + " " + paren(y, prec+1), prec: prec, typ: typ}
}

// comparisonType is the Go type two operands are compared in.
func comparisonType(x, y lang.Type) string {
	switch {
	case x == lang.BoolType && y == lang.BoolType:
		return "bool"
	case x.IsElem():
		return goType(x)
	case y.IsElem():
		return goType(y)
	case x == lang.FloatType || y == lang.FloatType:
		return "float64"
	}
	return "int"
}

// cond writes c ? a : b. A data condition is a select: both arms are
// evaluated (the analyzer counts both). A static condition that is
// constant picks its arm; otherwise both arms are evaluated when that is
// safe, and only the chosen one when an arm could fail (an element that
// only exists on that arm's side, a division).
func (g *generator) cond(e *lang.CondExpr, typ string) code {
	if v, ok := g.info.Values[e.Cond]; ok && v.Kind() == lang.BoolValue {
		arm := e.Else
		if v.Bool() {
			arm = e.Then
		}
		return g.expr(arm, typ)
	}
	c, a, b := g.expr(e.Cond, "bool"), g.expr(e.Then, typ), g.expr(e.Else, typ)
	if g.info.Data[e.Cond] || (safeToEvaluate(e.Then) && safeToEvaluate(e.Else)) {
		return code{text: "sel(" + c.text + ", " + a.text + ", " + b.text + ")", prec: precPrimary, typ: typ}
	}
	return code{text: fmt.Sprintf("func() %s { if %s { return %s }; return %s }()", typ, c.text, a.text, b.text),
		prec: precPrimary, typ: typ}
}

// safeToEvaluate reports whether evaluating e can never stop the program:
// it reads no array element and divides by nothing that varies.
func safeToEvaluate(e lang.Expr) bool {
	safe := true
	lang.Inspect(e, func(n lang.Node) bool {
		switch n := n.(type) {
		case *lang.IndexExpr:
			safe = false
		case *lang.BinaryExpr:
			if n.Op == lang.Quo || n.Op == lang.Rem {
				safe = false
			}
		case *lang.CallExpr:
			if n.Fun.Name == "floor" || n.Fun.Name == "ceil" || n.Fun.Name == "log2" || n.Fun.Name == "log" || n.Fun.Name == "sqrt" {
				safe = false
			}
		}
		return safe
	})
	return safe
}

// call writes an intrinsic call.
func (g *generator) call(e *lang.CallExpr, typ string) code {
	name := e.Fun.Name
	primary := func(text string) code { return code{text: text, prec: precPrimary, typ: typ} }
	switch name {
	case "floor", "ceil":
		return g.round(e, typ)
	case "log2":
		arg := g.natural(e.Args[0])
		if !isFloatGo(arg.typ) {
			g.fail(e, "log2 of an integer must be rounded with floor or ceil")
		}
		return g.mathCall("Log2", arg, typ)
	case "sqrt", "exp", "log", "sin", "cos":
		return g.mathCall(strings.ToUpper(name[:1])+name[1:], g.expr(e.Args[0], typ), typ)
	case "abs":
		x := g.expr(e.Args[0], typ)
		if isFloatGo(typ) {
			return g.mathCall("Abs", x, typ)
		}
		return primary("absInt(" + x.text + ")")
	case "min", "max":
		var args []string
		for _, a := range e.Args {
			args = append(args, g.expr(a, typ).text)
		}
		return primary(name + "(" + strings.Join(args, ", ") + ")")
	case "neighbor":
		return primary("r.neighbor(" + g.expr(e.Args[0], "int").text + ", " + g.expr(e.Args[1], "int").text + ")")
	case "f64", "f32", "i64", "i32":
		x := g.natural(e.Args[0])
		if x.lit != nil {
			return g.literal(*x.lit, typ, e)
		}
		return primary(typ + "(" + x.text + ")")
	}
	g.fail(e, "%s is not an intrinsic", name)
	return primary("0")
}

// mathCall writes math.F(x) in type typ (math works in float64).
func (g *generator) mathCall(f string, x code, typ string) code {
	g.imports["math"] = true
	x = g.convert(x, "float64")
	c := code{text: "math." + f + "(" + x.text + ")", prec: precPrimary, typ: "float64"}
	return g.convert(c, typ)
}

// round writes floor(x) or ceil(x): of data it keeps the element type (as
// math.Floor); of a static integer it rounds the exact quotient.
func (g *generator) round(e *lang.CallExpr, typ string) code {
	up := e.Fun.Name == "ceil"
	arg := lang.Unparen(e.Args[0])
	if inner, ok := arg.(*lang.CallExpr); ok && inner.Fun.Name == "log2" && len(inner.Args) == 1 &&
		!isFloatGo(goType(g.info.Types[inner.Args[0]])) {
		x := inner.Args[0]
		fn := map[bool]string{false: "floorLog2", true: "ceilLog2"}[up]
		if g.needsRatio(x) {
			return code{text: "rat" + strings.ToUpper(fn[:1]) + fn[1:] + "(" + g.ratio(x) + ")", prec: precPrimary, typ: "int"}
		}
		return code{text: fn + "(" + g.expr(x, "int").text + ")", prec: precPrimary, typ: "int"}
	}
	argType := goType(g.info.Types[arg])
	fn := map[bool]string{false: "Floor", true: "Ceil"}[up]
	switch {
	case isFloatGo(argType) && g.info.Data[arg]:
		return g.mathCall(fn, g.natural(arg), typ)
	case isFloatGo(argType):
		return code{text: "int(" + g.mathCall(fn, g.natural(arg), "float64").text + ")", prec: precPrimary, typ: "int"}
	case typ != "int":
		return g.natural(arg) // integer data: already an integer
	}
	if b, ok := arg.(*lang.BinaryExpr); ok && b.Op == lang.Quo && !g.needsRatio(b.X) && !g.needsRatio(b.Y) {
		div := map[bool]string{false: "floorDiv", true: "ceilDiv"}[up]
		return code{text: div + "(" + g.expr(b.X, "int").text + ", " + g.expr(b.Y, "int").text + ")", prec: precPrimary, typ: "int"}
	}
	if !g.needsRatio(arg) {
		return g.expr(arg, "int")
	}
	return code{text: "rat" + fn + "(" + g.ratio(arg) + ")", prec: precPrimary, typ: "int"}
}

// needsRatio reports whether a static integer expression may have a
// non-integer value: it divides, or holds a constant fraction.
func (g *generator) needsRatio(e lang.Expr) bool {
	if v, ok := g.info.Values[e]; ok {
		return !v.IsInt()
	}
	switch e := e.(type) {
	case *lang.ParenExpr:
		return g.needsRatio(e.X)
	case *lang.UnaryExpr:
		return g.needsRatio(e.X)
	case *lang.BinaryExpr:
		return e.Op == lang.Quo || g.needsRatio(e.X) || g.needsRatio(e.Y)
	case *lang.CondExpr:
		return g.needsRatio(e.Then) || g.needsRatio(e.Else)
	case *lang.CallExpr:
		if e.Fun.Name == "min" || e.Fun.Name == "max" || e.Fun.Name == "abs" {
			for _, a := range e.Args {
				if g.needsRatio(a) {
					return true
				}
			}
		}
	case *lang.Ident:
		if obj := g.info.Uses[e]; obj != nil && obj.Kind == lang.LetObj && obj.Dep != 0 {
			return false // a let's value is an integer (the checker makes sure)
		}
	}
	return false
}

// ratio writes a static integer expression as an exact rational (type
// ratio of the runtime), for floor and ceil of quotients.
func (g *generator) ratio(e lang.Expr) string {
	if v, ok := g.info.Values[e]; ok {
		r := v.Rat()
		if r == nil || !r.Num().IsInt64() || !r.Denom().IsInt64() {
			g.fail(e, "the constant %s does not fit 64 bits", v)
			return "ratInt(0)"
		}
		return fmt.Sprintf("ratio{%s, %s}", r.Num(), r.Denom())
	}
	if !g.needsRatio(e) {
		return "ratInt(" + g.expr(e, "int").text + ")"
	}
	switch e := e.(type) {
	case *lang.ParenExpr:
		return g.ratio(e.X)
	case *lang.UnaryExpr:
		return "ratNeg(" + g.ratio(e.X) + ")"
	case *lang.BinaryExpr:
		fn := map[lang.BinaryOp]string{lang.Add: "ratAdd", lang.Sub: "ratSub", lang.Mul: "ratMul", lang.Quo: "ratQuo", lang.Rem: "ratRem"}[e.Op]
		if fn == "" {
			g.fail(e, "operator %s on a non-integer quotient", e.Op)
			return "ratInt(0)"
		}
		return fn + "(" + g.ratio(e.X) + ", " + g.ratio(e.Y) + ")"
	case *lang.CondExpr:
		return fmt.Sprintf("func() ratio { if %s { return %s }; return %s }()", g.expr(e.Cond, "bool").text, g.ratio(e.Then), g.ratio(e.Else))
	case *lang.CallExpr:
		var args []string
		for _, a := range e.Args {
			args = append(args, g.ratio(a))
		}
		return map[string]string{"min": "ratMin", "max": "ratMax", "abs": "ratAbs"}[e.Fun.Name] + "(" + strings.Join(args, ", ") + ")"
	}
	return "ratInt(" + g.expr(e, "int").text + ")"
}
