package analyze

import (
	"math/big"

	"perfc/lang"
)

// This file counts what one execution of a statement does: its operations
// by kind and type, its multiply-add pairs, and its array references.
//
// Rules (docs/counts.md): an operation is counted when its value changes
// during a rank's run (it reads data or a loop index); subexpressions that
// are constant for the run or for the rank are folded, as a compiler would. Index
// expressions inside [...] are address arithmetic and are not counted. A
// data condition counts one compare of its operands' type. A compound
// assignment `a op= b` counts one op of a's type. min and max of k
// arguments count k-1 operations.

// tallier accumulates the local counts of one statement.
type tallier struct {
	info    *lang.Info
	ops     []opTally
	madd    []opTally
	refs    []*refInfo
	countOf map[*lang.BinaryExpr]bool // binary nodes that were counted
}

// count adds one operation.
func (t *tallier) count(op OpKind, typ OpType) {
	t.ops = addTally(t.ops, opTally{op: op, typ: typ, n: 1})
}

// counted reports whether the binary node b was counted as an operation.
func (t *tallier) counted(b *lang.BinaryExpr) bool { return t.countOf[b] }

// expr counts e and everything below it (not inside index brackets).
func (t *tallier) expr(e lang.Expr) {
	if e == nil {
		return
	}
	// Only values that change during a rank's run cost operations; run- and
	// rank-constant subexpressions are folded out of the loops.
	live := t.info.Deps[e]&(lang.DepIndex|lang.DepData) != 0
	switch e := e.(type) {
	case *lang.Ident, *lang.IntLit, *lang.FloatLit, *lang.DirExpr, *lang.NoneLit:
		// No operation of its own: names and constants.
	case *lang.ParenExpr:
		t.expr(e.X)
	case *lang.IndexExpr:
		t.refs = append(t.refs, &refInfo{ref: e, array: t.info.Uses[e.Name]})
	case *lang.UnaryExpr:
		t.expr(e.X)
		if live && e.Op == lang.Neg {
			t.count(OpNeg, opTypeOf(t.info.Types[e]))
		}
	case *lang.BinaryExpr:
		t.expr(e.X)
		t.expr(e.Y)
		if !live || e.Op == lang.LAnd || e.Op == lang.LOr {
			return
		}
		typ := opTypeOf(t.info.Types[e])
		if e.Op.IsComparison() {
			typ = operandType(t.info.Types[e.X], t.info.Types[e.Y])
		}
		t.count(binaryOpKind(e.Op), typ)
		if t.countOf == nil {
			t.countOf = map[*lang.BinaryExpr]bool{}
		}
		t.countOf[e] = true
		if e.Op == lang.Add || e.Op == lang.Sub {
			t.pairMadd(e, typ)
		}
	case *lang.CondExpr:
		t.expr(e.Cond)
		t.expr(e.Then)
		t.expr(e.Else)
	case *lang.CallExpr:
		for _, a := range e.Args {
			t.expr(a)
		}
		if !live {
			return
		}
		if op, n, ok := callOp(e); ok {
			typ := opTypeOf(t.info.Types[e])
			for range n {
				t.count(op, typ)
			}
		}
	default:
		panic(lang.Unhandled("analyze: count operations", e))
	}
}

// pairMadd counts a multiply-add pair when an add or subtract has a counted
// multiply of the same type as an operand (each multiply pairs once).
func (t *tallier) pairMadd(e *lang.BinaryExpr, typ OpType) {
	for _, x := range []lang.Expr{e.X, e.Y} {
		if m, ok := lang.Unparen(x).(*lang.BinaryExpr); ok && m.Op == lang.Mul && t.countOf[m] && opTypeOf(t.info.Types[m]) == typ {
			t.madd = addTally(t.madd, opTally{op: binaryOpKind(e.Op), typ: typ, n: 1})
			delete(t.countOf, m) // paired once
			return
		}
	}
}

// addTally adds x into ts.
func addTally(ts []opTally, x opTally) []opTally {
	for i := range ts {
		if ts[i].op == x.op && ts[i].typ == x.typ {
			ts[i].n += x.n
			return ts
		}
	}
	return append(ts, x)
}

// binaryOpKind maps an arithmetic or comparison operator to its kind.
func binaryOpKind(op lang.BinaryOp) OpKind {
	switch op {
	case lang.Add:
		return OpAdd
	case lang.Sub:
		return OpSub
	case lang.Mul:
		return OpMul
	case lang.Quo:
		return OpDiv
	case lang.Rem:
		return OpRem
	case lang.Shl, lang.Shr, lang.And, lang.Or, lang.Xor:
		return OpBit
	}
	return OpCmp
}

// opTypeOf names the type an operation of expression type t works in;
// untyped floats default to f64 and untyped integers are "int".
func opTypeOf(t lang.Type) OpType {
	switch t {
	case lang.F64Type, lang.FloatType:
		return "f64"
	case lang.F32Type:
		return "f32"
	case lang.I64Type:
		return "i64"
	case lang.I32Type:
		return "i32"
	}
	return "int"
}

// operandType is the type a comparison of x and y works in: the element
// type of either side, else the static type.
func operandType(x, y lang.Type) OpType {
	if x.IsElem() {
		return opTypeOf(x)
	}
	if y.IsElem() {
		return opTypeOf(y)
	}
	if x == lang.FloatType || y == lang.FloatType {
		return "f64"
	}
	return "int"
}

// isFloatType reports whether operations of type t are floating point.
func isFloatType(t OpType) bool { return t == "f64" || t == "f32" }

// ratOne returns a new rational 1.
func ratOne() *big.Rat { return big.NewRat(1, 1) }

// ratFromFloat converts a float probability exactly.
func ratFromFloat(f float64) *big.Rat {
	r := new(big.Rat)
	r.SetFloat64(f)
	return r
}
