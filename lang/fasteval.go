package lang

import "math/bits"

// The fast path of static evaluation. The analyzer, the schedules and the
// emulator evaluate bounds, peers and conditions millions of times, almost
// always on small integers; the exact evaluator works on big.Rat and
// allocates at every node. fast evaluates with int64 arithmetic while every
// value on the way is an integer that fits and no operation overflows or
// divides inexactly; otherwise it reports !ok and the caller takes the exact
// path, which also produces the error messages. Both paths must agree on
// every value the fast path returns (TestFastEvalAgrees checks it).

// fast evaluates an int, bool (0 or 1) or peer expression.
func (ev *evaluator) fast(e Expr) (int64, bool) {
	switch ev.info.Types[e] {
	case IntType, BoolType, PeerType:
	default:
		return 0, false
	}
	if v, ok := ev.info.Values[e]; ok {
		return fastValue(v)
	}
	switch e := e.(type) {
	case *ParenExpr:
		return ev.fast(e.X)
	case *Ident:
		return ev.fastIdent(e)
	case *UnaryExpr:
		x, ok := ev.fast(e.X)
		if !ok {
			return 0, false
		}
		if e.Op == Not {
			return 1 - x, true
		}
		if x == minInt64 {
			return 0, false
		}
		return -x, true
	case *BinaryExpr:
		return ev.fastBinary(e)
	case *CondExpr:
		c, ok := ev.fast(e.Cond)
		if !ok {
			return 0, false
		}
		if c != 0 {
			return ev.fast(e.Then)
		}
		return ev.fast(e.Else)
	case *CallExpr:
		return ev.fastCall(e)
	case *DirExpr:
		r, ok := ev.fastRank()
		if !ok {
			return 0, false
		}
		dx, dy := e.Dir.Offset()
		return ev.geom.neighborInt(r, int64(dx), int64(dy)), true
	case *NoneLit:
		return -1, true
	}
	return 0, false
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

// fastRank returns env's rank when it names a rank.
func (ev *evaluator) fastRank() (int64, bool) {
	if ev.env == nil || ev.env.Rank < 0 || ev.env.Rank >= ev.geom.ranks {
		return 0, false
	}
	return ev.env.Rank, true
}

// fastIdent evaluates a name.
func (ev *evaluator) fastIdent(id *Ident) (int64, bool) {
	obj := ev.info.Uses[id]
	if obj == nil {
		return 0, false
	}
	switch obj.Kind {
	case ParamObj:
		return fastValue(obj.Value)
	case LetObj:
		if obj.Dep == 0 {
			return fastValue(obj.Value)
		}
		return ev.fast(obj.Expr)
	case IndexObj:
		if ev.env == nil || obj.Slot >= len(ev.env.Index) {
			return 0, false
		}
		return ev.env.Index[obj.Slot], true
	case BuiltinObj:
		if obj.Dep == 0 {
			return fastValue(obj.Value)
		}
		r, ok := ev.fastRank()
		if !ok {
			return 0, false
		}
		if obj.Name == "rank" || !ev.geom.grid {
			return r, true
		}
		rx, ry := ev.geom.coords(r)
		if obj.Name == "rx" {
			return rx, true
		}
		return ry, true
	}
	return 0, false
}

// fastBinary evaluates x op y, giving up on overflow and inexact division.
func (ev *evaluator) fastBinary(e *BinaryExpr) (int64, bool) {
	x, ok := ev.fast(e.X)
	if !ok {
		return 0, false
	}
	if e.Op == LAnd || e.Op == LOr {
		if (x != 0) == (e.Op == LOr) {
			return x, true
		}
		return ev.fast(e.Y)
	}
	y, ok := ev.fast(e.Y)
	if !ok {
		return 0, false
	}
	switch e.Op {
	case Add:
		s := x + y
		if (s > x) != (y > 0) {
			return 0, false
		}
		return s, true
	case Sub:
		d := x - y
		if (d < x) != (y > 0) {
			return 0, false
		}
		return d, true
	case Mul:
		hi, lo := bits.Mul64(uint64(abs64(x)), uint64(abs64(y)))
		if hi != 0 || lo > 1<<62 || x == minInt64 || y == minInt64 {
			return 0, false
		}
		p := int64(lo)
		if (x < 0) != (y < 0) {
			p = -p
		}
		return p, true
	case Quo:
		if y == 0 || x%y != 0 || (x == minInt64 && y == -1) {
			return 0, false // the exact path explains an inexact quotient
		}
		return x / y, true
	case Rem:
		if y == 0 || y == minInt64 {
			return 0, false
		}
		r := x % y
		if r < 0 {
			r += abs64(y)
		}
		return r, true
	case Shl:
		if y < 0 || y >= 62 {
			return 0, false
		}
		if s := x << y; s>>y == x {
			return s, true
		}
		return 0, false
	case Shr:
		if y < 0 {
			return 0, false
		}
		if y >= 63 {
			y = 63
		}
		return x >> y, true
	case And:
		return x & y, true
	case Or:
		return x | y, true
	case Xor:
		return x ^ y, true
	case Eql:
		return b2i(x == y), true
	case Neq:
		return b2i(x != y), true
	case Lss:
		return b2i(x < y), true
	case Leq:
		return b2i(x <= y), true
	case Gtr:
		return b2i(x > y), true
	case Geq:
		return b2i(x >= y), true
	}
	return 0, false
}

// fastCall evaluates the integer intrinsics.
func (ev *evaluator) fastCall(e *CallExpr) (int64, bool) {
	switch e.Fun.Name {
	case "floor", "ceil":
		if len(e.Args) != 1 {
			return 0, false
		}
		if q, isQuo := Unparen(e.Args[0]).(*BinaryExpr); isQuo && q.Op == Quo && ev.info.Types[q] == IntType {
			x, ok := ev.fast(q.X)
			if !ok {
				return 0, false
			}
			y, ok := ev.fast(q.Y)
			if !ok || y == 0 || (x == minInt64 && y == -1) {
				return 0, false
			}
			fl := x / y
			if (x%y != 0) && ((x < 0) != (y < 0)) {
				fl-- // round toward minus infinity
			}
			if e.Fun.Name == "ceil" && x%y != 0 {
				fl++
			}
			return fl, true
		}
		if ev.info.Types[e.Args[0]] != IntType || isLog2Call(e.Args[0]) {
			return 0, false
		}
		return ev.fast(e.Args[0])
	case "min", "max":
		var m int64
		for i, a := range e.Args {
			v, ok := ev.fast(a)
			if !ok {
				return 0, false
			}
			if i == 0 || (e.Fun.Name == "min" && v < m) || (e.Fun.Name == "max" && v > m) {
				m = v
			}
		}
		return m, len(e.Args) > 0
	case "abs":
		if len(e.Args) != 1 {
			return 0, false
		}
		v, ok := ev.fast(e.Args[0])
		if !ok || v == minInt64 {
			return 0, false
		}
		return abs64(v), true
	case "log2":
		if len(e.Args) != 1 {
			return 0, false
		}
		v, ok := ev.fast(e.Args[0])
		if !ok || v <= 0 || v&(v-1) != 0 {
			return 0, false
		}
		return int64(bits.Len64(uint64(v)) - 1), true
	case "neighbor":
		if len(e.Args) != 2 {
			return 0, false
		}
		dx, ok1 := ev.fast(e.Args[0])
		dy, ok2 := ev.fast(e.Args[1])
		r, ok3 := ev.fastRank()
		if !ok1 || !ok2 || !ok3 {
			return 0, false
		}
		return ev.geom.neighborInt(r, dx, dy), true
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
