package lang

import (
	"errors"
	"fmt"
	"math/big"
)

// Env gives the values of the static names that vary during a run: the
// rank, and the indices of the enclosing loops, indexed by Object.Slot.
// Index slots are numbered 0..Info.NumSlots-1, unique in the kernel.
type Env struct {
	Rank  int64
	Index []int64
}

// rankGeometry is the shape of the ranks of a checked kernel: P ranks, on
// a Px × Py grid when grid is set (rank = ry*Px + rx).
type rankGeometry struct {
	ranks  int64
	grid   bool
	px, py int64
}

// coords returns the grid column and row of rank.
func (g rankGeometry) coords(rank int64) (rx, ry int64) { return rank % g.px, rank / g.px }

// neighbor returns the rank at offset (dx, dy) from rank, or -1 (none)
// outside the grid.
func (g rankGeometry) neighbor(rank int64, dx, dy *big.Int) int64 {
	if !g.grid {
		return -1
	}
	rx, ry := g.coords(rank)
	x := new(big.Int).Add(big.NewInt(rx), dx)
	y := new(big.Int).Add(big.NewInt(ry), dy)
	if x.Sign() < 0 || y.Sign() < 0 || x.Cmp(big.NewInt(g.px)) >= 0 || y.Cmp(big.NewInt(g.py)) >= 0 {
		return -1
	}
	return y.Int64()*g.px + x.Int64()
}

// Eval evaluates a static expression of the checked kernel with the rank
// and loop indices of env (nil when the expression reads neither). Peers
// evaluate to a rank or to -1 (none). Reading an array element or a var is
// an error, as is an expression the checker has not seen.
func (c *Checked) Eval(e Expr, env *Env) (Value, error) {
	if f, ok := c.compiled[e]; ok {
		if v, ok := f.fn(env); ok {
			if f.isBool {
				return MakeBool(v != 0), nil
			}
			return MakeInt(v), nil
		}
	}
	ev := evaluator{info: c.Info, src: c.File.Source, geom: c.geom, env: env}
	return ev.eval(e)
}

// EvalInt evaluates e in an integer context: the value must be an integer
// that fits an int64.
func (c *Checked) EvalInt(e Expr, env *Env) (int64, error) {
	if f, ok := c.compiled[e]; ok && !f.isBool {
		if v, ok := f.fn(env); ok {
			return v, nil
		}
	}
	v, err := c.Eval(e, env)
	if err != nil {
		return 0, err
	}
	ev := evaluator{info: c.Info, src: c.File.Source}
	return ev.toInt64(e, v)
}

// evaluator computes static values by walking an expression. The checker
// uses one (with partial Info) to evaluate loop bounds at a chosen
// iteration; Checked.Eval uses one for callers.
type evaluator struct {
	info *Info
	src  *Source
	geom rankGeometry
	env  *Env
}

// errorf returns a positioned *Error for node n.
func (ev *evaluator) errorf(n Node, format string, args ...any) error {
	return &Error{Pos: ev.src.Position(n.Pos()), Msg: fmt.Sprintf(format, args...)}
}

// wrap positions a plain error from a value operation at node n; an error
// that is already positioned is returned as is.
func (ev *evaluator) wrap(n Node, err error) error {
	var pe *Error
	if errors.As(err, &pe) {
		return err
	}
	return ev.errorf(n, "%s: %v", exprText(n.(Expr)), err)
}

// toInt64 converts the value of e to an int64 or explains why it cannot.
func (ev *evaluator) toInt64(e Expr, v Value) (int64, error) {
	if n, ok := v.Int64(); ok {
		return n, nil
	}
	if v.IsInt() {
		return 0, ev.errorf(e, "%s = %s does not fit a 64-bit integer", exprText(e), v)
	}
	return 0, ev.errorf(e, "%s = %s is not an integer", exprText(e), v)
}

// eval evaluates e: a value the checker found constant is taken from
// Info.Values, everything else is computed from its operands.
func (ev *evaluator) eval(e Expr) (Value, error) {
	if v, ok := ev.info.Values[e]; ok {
		return v, nil
	}
	v, err := ev.evalNode(e)
	if err != nil {
		return Value{}, err
	}
	v, err = conform(ev.info.Types[e], v)
	if err != nil {
		return Value{}, ev.wrap(e, err)
	}
	return v, nil
}

// evalNode computes one node from its operands.
func (ev *evaluator) evalNode(e Expr) (Value, error) {
	switch e := e.(type) {
	case *IntLit:
		v, err := parseIntLit(e.Text)
		return v, ev.wrapErr(e, err)
	case *FloatLit:
		v, err := parseFloatLit(e.Text)
		return v, ev.wrapErr(e, err)
	case *Ident:
		return ev.ident(e)
	case *ParenExpr:
		return ev.eval(e.X)
	case *UnaryExpr:
		x, err := ev.eval(e.X)
		if err != nil {
			return Value{}, err
		}
		v, err := unaryOp(e.Op, x)
		return v, ev.wrapErr(e, err)
	case *BinaryExpr:
		return ev.binary(e)
	case *CondExpr:
		cond, err := ev.eval(e.Cond)
		if err != nil {
			return Value{}, err
		}
		if cond.Bool() {
			return ev.eval(e.Then)
		}
		return ev.eval(e.Else)
	case *CallExpr:
		return ev.call(e)
	case *IndexExpr:
		return Value{}, ev.errorf(e, "%s reads array data; it has no static value", exprText(e))
	case *DirExpr:
		r, err := ev.rank(e)
		if err != nil {
			return Value{}, err
		}
		dx, dy := e.Dir.Offset()
		return MakeInt(ev.geom.neighbor(r, big.NewInt(int64(dx)), big.NewInt(int64(dy)))), nil
	case *NoneLit:
		return MakeInt(-1), nil
	}
	if !knownExpr(e) {
		return Value{}, errors.New(Unhandled("lang: evaluate", e))
	}
	return Value{}, ev.errorf(e, "cannot evaluate this expression")
}

// knownExpr reports whether e is one of the expression kinds of ast.go, for
// the evaluator, whose cases may fall through to "cannot evaluate".
func knownExpr(e Expr) bool {
	switch e.(type) {
	case *Ident, *IntLit, *FloatLit, *BinaryExpr, *UnaryExpr, *CondExpr, *ParenExpr, *CallExpr, *IndexExpr, *DirExpr, *NoneLit:
		return true
	}
	return false
}

// wrapErr is wrap for a possibly nil error.
func (ev *evaluator) wrapErr(n Node, err error) error {
	if err == nil {
		return nil
	}
	return ev.wrap(n, err)
}

// ident evaluates a name: parameters and constant lets have values; other
// lets are evaluated from their expression; rank and indices come from env.
func (ev *evaluator) ident(id *Ident) (Value, error) {
	obj := ev.info.Uses[id]
	if obj == nil {
		return Value{}, ev.errorf(id, "%s is not a checked name", id.Name)
	}
	switch obj.Kind {
	case ParamObj:
		return obj.Value, nil
	case LetObj:
		if obj.Dep == 0 && obj.Value.IsValid() {
			return obj.Value, nil
		}
		return ev.eval(obj.Expr)
	case IndexObj:
		if ev.env == nil || obj.Slot >= len(ev.env.Index) {
			return Value{}, ev.errorf(id, "%s depends on the loop index %s, and no value was given for it", id.Name, id.Name)
		}
		return MakeInt(ev.env.Index[obj.Slot]), nil
	case BuiltinObj:
		return ev.builtin(id, obj)
	case ArrayObj, VarObj:
		return Value{}, ev.errorf(id, "%s is a %s: it is data, with no static value", id.Name, obj.Kind)
	}
	return Value{}, ev.errorf(id, "%s is an intrinsic; call it", id.Name)
}

// builtin evaluates rank, rx, ry and a P that is not a parameter.
func (ev *evaluator) builtin(id *Ident, obj *Object) (Value, error) {
	if obj.Dep == 0 {
		return obj.Value, nil
	}
	r, err := ev.rank(id)
	if err != nil {
		return Value{}, err
	}
	if obj.Name == "rank" || !ev.geom.grid {
		return MakeInt(r), nil
	}
	rx, ry := ev.geom.coords(r)
	if obj.Name == "rx" {
		return MakeInt(rx), nil
	}
	return MakeInt(ry), nil
}

// rank returns env's rank after checking that it names a rank.
func (ev *evaluator) rank(n Node) (int64, error) {
	if ev.env == nil {
		return 0, ev.errorf(n, "%s depends on the rank, and no rank was given", exprText(n.(Expr)))
	}
	if ev.env.Rank < 0 || ev.env.Rank >= ev.geom.ranks {
		return 0, ev.errorf(n, "rank %d is outside 0..%d", ev.env.Rank, ev.geom.ranks-1)
	}
	return ev.env.Rank, nil
}

// binary evaluates x op y; && and || evaluate y only when x does not
// decide, so that `P > 1 && N % (P-1) == 0` is safe on one rank.
func (ev *evaluator) binary(e *BinaryExpr) (Value, error) {
	x, err := ev.eval(e.X)
	if err != nil {
		return Value{}, err
	}
	if e.Op == LAnd || e.Op == LOr {
		if x.Bool() == (e.Op == LOr) {
			return x, nil
		}
		return ev.eval(e.Y)
	}
	y, err := ev.eval(e.Y)
	if err != nil {
		return Value{}, err
	}
	v, err := binaryOp(e.Op, x, y)
	return v, ev.wrapErr(e, err)
}

// call evaluates an intrinsic call.
func (ev *evaluator) call(e *CallExpr) (Value, error) {
	name := e.Fun.Name
	if name == "neighbor" {
		return ev.neighbor(e)
	}
	round := 0
	if (name == "floor" || name == "ceil") && len(e.Args) == 1 && isLog2Call(e.Args[0]) {
		// floor(log2(x)) rounds the exact logarithm; log2 alone could not.
		round = roundDir(name)
		inner := Unparen(e.Args[0]).(*CallExpr)
		x, err := ev.eval(inner.Args[0])
		if err != nil {
			return Value{}, err
		}
		v, err := log2Value(x, round)
		return v, ev.wrapErr(e, err)
	}
	args := make([]Value, len(e.Args))
	for i, a := range e.Args {
		v, err := ev.eval(a)
		if err != nil {
			return Value{}, err
		}
		args[i] = v
	}
	v, err := foldCall(name, args)
	return v, ev.wrapErr(e, err)
}

// neighbor evaluates neighbor(dx, dy): the rank at that grid offset, or -1.
func (ev *evaluator) neighbor(e *CallExpr) (Value, error) {
	if len(e.Args) != 2 {
		return Value{}, ev.errorf(e, "neighbor takes 2 arguments (dx, dy)")
	}
	var off [2]*big.Int
	for i, a := range e.Args {
		v, err := ev.eval(a)
		if err != nil {
			return Value{}, err
		}
		if !v.IsInt() {
			return Value{}, ev.errorf(a, "the offset %s = %s is not an integer", exprText(a), v)
		}
		off[i] = v.Rat().Num()
	}
	r, err := ev.rank(e)
	if err != nil {
		return Value{}, err
	}
	return MakeInt(ev.geom.neighbor(r, off[0], off[1])), nil
}

// isLog2Call reports whether e is a call of log2 with one argument.
func isLog2Call(e Expr) bool {
	call, ok := Unparen(e).(*CallExpr)
	return ok && call.Fun.Name == "log2" && len(call.Args) == 1
}

// roundDir is -1 for floor and +1 for ceil.
func roundDir(name string) int {
	if name == "ceil" {
		return 1
	}
	return -1
}

// foldCall computes an intrinsic (other than neighbor) from the values of
// its arguments. log2 here asks for an exact power of two; floor(log2(x))
// is handled by the callers.
func foldCall(name string, args []Value) (Value, error) {
	switch name {
	case "floor", "ceil":
		return roundValue(args[0], name == "ceil")
	case "log2":
		return log2Value(args[0], 0)
	case "min", "max":
		return minMax(name == "max", args)
	case "abs", "sqrt", "exp", "log", "sin", "cos":
		return mathFunc(name, args[0])
	}
	if t := ElemTypeNamed(name); t != NoElem {
		return convertValue(t, args[0])
	}
	return Value{}, fmt.Errorf("%s is not an intrinsic", name)
}

// conform makes a value fit the type of its expression: a float type makes
// an int value a float (and f32 rounds to single precision); i64 and i32
// must hold the value. Untyped ints and floats are exact and unbounded
// (up to maxValueBits).
func conform(t Type, v Value) (Value, error) {
	switch {
	case !v.IsValid():
		return v, nil
	case t.IsFloat() && v.kind == IntValue:
		v = MakeFloat(v.Float64())
	}
	switch t {
	case F32Type:
		return makeFloatChecked(float64(float32(v.f)), "the f32 value "+v.String())
	case F64Type:
		return makeFloatChecked(v.f, "the f64 value "+v.String())
	case I64Type, I32Type:
		if v.kind == IntValue && v.rat.IsInt() {
			if _, err := convertValue(t.Elem(), v); err != nil {
				return Value{}, fmt.Errorf("the value %s overflows %s", v, t)
			}
		}
	}
	return v, nil
}

// fitsInt64 reports whether r is an integer in the int64 range.
func fitsInt64(r *big.Rat) bool { return r.IsInt() && r.Num().IsInt64() }

// ratInt64 converts an int64 to a new rational.
func ratInt64(x int64) *big.Rat { return new(big.Rat).SetInt64(x) }
