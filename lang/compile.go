package lang

import "math/bits"

// Compiled static evaluation. Every static integer, bool and peer
// expression of a checked kernel is compiled once, at the end of Check,
// into a tree of Go closures working on int64: the analyzer, the schedules
// and the emulator evaluate bounds, peers and conditions millions of times,
// and a closure call per node is many times cheaper than walking the AST
// with map lookups. A closure reports !ok where an int64 overflows or a
// quotient is inexact; the caller then takes the exact evaluator, which
// also explains errors. TestFastEvalAgrees compares both.

// fastFn evaluates one compiled expression.
type fastFn func(env *Env) (int64, bool)

// compiledExpr is one compiled expression; isBool says its value is a
// bool (0 or 1), which EvalInt must not return as an integer.
type compiledExpr struct {
	fn     fastFn
	isBool bool
}

// compileAll compiles every expression that can be compiled.
func compileAll(info *Info, geom rankGeometry) map[Expr]compiledExpr {
	c := compiler{info: info, geom: geom, done: map[Expr]fastFn{}}
	for e := range info.Types {
		c.compile(e)
	}
	out := make(map[Expr]compiledExpr, len(c.done))
	for e, f := range c.done {
		if f != nil {
			out[e] = compiledExpr{fn: f, isBool: info.Types[e] == BoolType}
		}
	}
	return out
}

// compiler memoises compiled expressions (lets are compiled once and
// shared by every use).
type compiler struct {
	info *Info
	geom rankGeometry
	done map[Expr]fastFn
}

// compile returns e's closure, or nil when e is not an int, bool or peer
// expression made of what the int64 closures support.
func (c *compiler) compile(e Expr) fastFn {
	if f, ok := c.done[e]; ok {
		return f
	}
	c.done[e] = nil // a let cannot refer to itself, but be safe
	f := c.build(e)
	c.done[e] = f
	return f
}

// build compiles one node.
func (c *compiler) build(e Expr) fastFn {
	switch c.info.Types[e] {
	case IntType, BoolType, PeerType:
	default:
		return nil
	}
	if v, ok := c.info.Values[e]; ok {
		n, ok := fastValue(v)
		if !ok {
			return nil
		}
		return func(*Env) (int64, bool) { return n, true }
	}
	switch e := e.(type) {
	case *ParenExpr:
		return c.compile(e.X)
	case *Ident:
		return c.ident(e)
	case *UnaryExpr:
		x := c.compile(e.X)
		if x == nil {
			return nil
		}
		if e.Op == Not {
			return func(env *Env) (int64, bool) { v, ok := x(env); return 1 - v, ok }
		}
		return func(env *Env) (int64, bool) {
			v, ok := x(env)
			return -v, ok && v != minInt64
		}
	case *BinaryExpr:
		return c.binary(e)
	case *CondExpr:
		cond, then, els := c.compile(e.Cond), c.compile(e.Then), c.compile(e.Else)
		if cond == nil || then == nil || els == nil {
			return nil
		}
		return func(env *Env) (int64, bool) {
			v, ok := cond(env)
			if !ok {
				return 0, false
			}
			if v != 0 {
				return then(env)
			}
			return els(env)
		}
	case *CallExpr:
		return c.call(e)
	case *DirExpr:
		dx, dy := e.Dir.Offset()
		g := c.geom
		return func(env *Env) (int64, bool) {
			r, ok := g.envRank(env)
			if !ok {
				return 0, false
			}
			return g.neighborInt(r, int64(dx), int64(dy)), true
		}
	case *NoneLit:
		return func(*Env) (int64, bool) { return -1, true }
	case *IntLit, *FloatLit, *IndexExpr:
		// Literals are constants (Info.Values, above); an element is data.
		return nil
	default:
		panic(Unhandled("lang: compile", e))
	}
}

// envRank returns env's rank when it names a rank.
func (g rankGeometry) envRank(env *Env) (int64, bool) {
	if env == nil || env.Rank < 0 || env.Rank >= g.ranks {
		return 0, false
	}
	return env.Rank, true
}

// ident compiles a name.
func (c *compiler) ident(id *Ident) fastFn {
	obj := c.info.Uses[id]
	if obj == nil {
		return nil
	}
	constant := func(v Value) fastFn {
		n, ok := fastValue(v)
		if !ok {
			return nil
		}
		return func(*Env) (int64, bool) { return n, true }
	}
	switch obj.Kind {
	case ParamObj:
		return constant(obj.Value)
	case LetObj:
		if obj.Dep == 0 {
			return constant(obj.Value)
		}
		return c.compile(obj.Expr)
	case IndexObj:
		slot := obj.Slot
		return func(env *Env) (int64, bool) {
			if env == nil || slot >= len(env.Index) {
				return 0, false
			}
			return env.Index[slot], true
		}
	case BuiltinObj:
		if obj.Dep == 0 {
			return constant(obj.Value)
		}
		g := c.geom
		switch {
		case obj.Name == "rank" || !g.grid:
			return g.envRank
		case obj.Name == "rx":
			return func(env *Env) (int64, bool) { r, ok := g.envRank(env); return r % g.px, ok }
		default:
			return func(env *Env) (int64, bool) { r, ok := g.envRank(env); return r / g.px, ok }
		}
	}
	return nil
}

// binary compiles x op y, giving up on overflow and inexact division.
func (c *compiler) binary(e *BinaryExpr) fastFn {
	x, y := c.compile(e.X), c.compile(e.Y)
	if x == nil || y == nil {
		return nil
	}
	switch e.Op {
	case LAnd, LOr:
		or := e.Op == LOr
		return func(env *Env) (int64, bool) {
			a, ok := x(env)
			if !ok {
				return 0, false
			}
			if (a != 0) == or {
				return a, true
			}
			return y(env)
		}
	}
	op := binaryInt(e.Op)
	if op == nil {
		return nil
	}
	return func(env *Env) (int64, bool) {
		a, ok := x(env)
		if !ok {
			return 0, false
		}
		b, ok := y(env)
		if !ok {
			return 0, false
		}
		return op(a, b)
	}
}

// binaryInt returns the int64 operation for op, giving up on overflow and
// inexact division.
func binaryInt(op BinaryOp) func(x, y int64) (int64, bool) {
	switch op {
	case Add:
		return func(x, y int64) (int64, bool) { s := x + y; return s, (s > x) == (y > 0) }
	case Sub:
		return func(x, y int64) (int64, bool) { d := x - y; return d, (d < x) == (y > 0) }
	case Mul:
		return func(x, y int64) (int64, bool) {
			if x == minInt64 || y == minInt64 {
				return 0, false
			}
			hi, lo := bits.Mul64(uint64(abs64(x)), uint64(abs64(y)))
			if hi != 0 || lo > 1<<62 {
				return 0, false
			}
			p := int64(lo)
			if (x < 0) != (y < 0) {
				p = -p
			}
			return p, true
		}
	case Quo:
		return func(x, y int64) (int64, bool) {
			if y == 0 || x%y != 0 || (x == minInt64 && y == -1) {
				return 0, false
			}
			return x / y, true
		}
	case Rem:
		return func(x, y int64) (int64, bool) {
			if y == 0 || y == minInt64 {
				return 0, false
			}
			r := x % y
			if r < 0 {
				r += abs64(y)
			}
			return r, true
		}
	case Shl:
		return func(x, y int64) (int64, bool) {
			if y < 0 || y >= 62 {
				return 0, false
			}
			s := x << y
			return s, s>>y == x
		}
	case Shr:
		return func(x, y int64) (int64, bool) {
			if y < 0 {
				return 0, false
			}
			return x >> min(y, 63), true
		}
	case And:
		return func(x, y int64) (int64, bool) { return x & y, true }
	case Or:
		return func(x, y int64) (int64, bool) { return x | y, true }
	case Xor:
		return func(x, y int64) (int64, bool) { return x ^ y, true }
	case Eql:
		return func(x, y int64) (int64, bool) { return b2i(x == y), true }
	case Neq:
		return func(x, y int64) (int64, bool) { return b2i(x != y), true }
	case Lss:
		return func(x, y int64) (int64, bool) { return b2i(x < y), true }
	case Leq:
		return func(x, y int64) (int64, bool) { return b2i(x <= y), true }
	case Gtr:
		return func(x, y int64) (int64, bool) { return b2i(x > y), true }
	case Geq:
		return func(x, y int64) (int64, bool) { return b2i(x >= y), true }
	}
	return nil
}

// call compiles the integer intrinsics.
func (c *compiler) call(e *CallExpr) fastFn {
	switch e.Fun.Name {
	case "floor", "ceil":
		if len(e.Args) != 1 {
			return nil
		}
		up := e.Fun.Name == "ceil"
		if q, isQuo := Unparen(e.Args[0]).(*BinaryExpr); isQuo && q.Op == Quo && c.info.Types[q] == IntType {
			x, y := c.compile(q.X), c.compile(q.Y)
			if x == nil || y == nil {
				return nil
			}
			return func(env *Env) (int64, bool) {
				a, ok1 := x(env)
				b, ok2 := y(env)
				if !ok1 || !ok2 || b == 0 || (a == minInt64 && b == -1) {
					return 0, false
				}
				fl := a / b
				if a%b != 0 && (a < 0) != (b < 0) {
					fl--
				}
				if up && a%b != 0 {
					fl++
				}
				return fl, true
			}
		}
		if c.info.Types[e.Args[0]] != IntType || isLog2Call(e.Args[0]) {
			return nil
		}
		return c.compile(e.Args[0])
	case "min", "max":
		if len(e.Args) == 0 {
			return nil
		}
		args := make([]fastFn, len(e.Args))
		for i, a := range e.Args {
			if args[i] = c.compile(a); args[i] == nil {
				return nil
			}
		}
		isMax := e.Fun.Name == "max"
		return func(env *Env) (int64, bool) {
			var m int64
			for i, f := range args {
				v, ok := f(env)
				if !ok {
					return 0, false
				}
				if i == 0 || (!isMax && v < m) || (isMax && v > m) {
					m = v
				}
			}
			return m, true
		}
	case "abs":
		if len(e.Args) != 1 {
			return nil
		}
		x := c.compile(e.Args[0])
		if x == nil {
			return nil
		}
		return func(env *Env) (int64, bool) {
			v, ok := x(env)
			return abs64(v), ok && v != minInt64
		}
	case "log2":
		if len(e.Args) != 1 {
			return nil
		}
		x := c.compile(e.Args[0])
		if x == nil {
			return nil
		}
		return func(env *Env) (int64, bool) {
			v, ok := x(env)
			if !ok || v <= 0 || v&(v-1) != 0 {
				return 0, false
			}
			return int64(bits.Len64(uint64(v)) - 1), true
		}
	case "neighbor":
		if len(e.Args) != 2 {
			return nil
		}
		dx, dy := c.compile(e.Args[0]), c.compile(e.Args[1])
		if dx == nil || dy == nil {
			return nil
		}
		g := c.geom
		return func(env *Env) (int64, bool) {
			a, ok1 := dx(env)
			b, ok2 := dy(env)
			r, ok3 := g.envRank(env)
			if !ok1 || !ok2 || !ok3 {
				return 0, false
			}
			return g.neighborInt(r, a, b), true
		}
	}
	return nil
}

const minInt64 = -1 << 63

// fastValue converts an integer or bool Value that fits an int64.
func fastValue(v Value) (int64, bool) {
	switch v.kind {
	case BoolValue:
		if v.b {
			return 1, true
		}
		return 0, true
	case IntValue:
		if v.rat.IsInt() && v.rat.Num().IsInt64() {
			return v.rat.Num().Int64(), true
		}
	}
	return 0, false
}

// neighborInt is neighbor for offsets that fit an int64.
func (g rankGeometry) neighborInt(rank, dx, dy int64) int64 {
	rx, ry := g.coords(rank)
	x, y := rx+dx, ry+dy
	if dx > g.px || dx < -g.px || dy > g.py || dy < -g.py || x < 0 || y < 0 || x >= g.px || y >= g.py {
		return -1
	}
	return y*g.px + x
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
