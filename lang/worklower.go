package lang

import (
	"fmt"
	"strconv"
)

// The lowering of a work statement: the synthetic loop nest that does
// exactly the stated work, which the checker checks like written code and
// every later stage (counting, the cache model, pricing, the schedule,
// emulation, code generation) sees in the statement's place, so that the
// statement is counted, priced and generated "like the loops it stands
// for". docs/language.md describes the nest; in short:
//
//   - COUNT KIND T: eight accumulators of type T (one when COUNT < 8)
//     updated by one operation each, `a = a + w` for add, in a loop of
//     COUNT/8 iterations, then a loop of COUNT%8 iterations on the first
//     (at the position of KIND); eight independent chains, as a compiler
//     unrolls a reduction.
//   - load B bytes from A: B/size(A) loads `x = A[i][j]…` in row-major
//     order from A's first element, as `repeat R { full sweeps }` (no
//     repeat when R is 1) and then loops over the first B/size%len(A)
//     elements; a store writes `A[i][j]… = y` the same way.
//   - in SET, or no array: the same over a buffer of SET (or B) bytes of
//     the statement's buffer type, declared with the nest. Items of one
//     statement with the same working set share its buffer.
//
// Every node has the position of the item it stands for, so that reports
// and errors name the item. The names of the nest's objects end in a
// prime, which no written name can: loop indices i1' i2' …, for the J-th
// item the accumulators aJ.0' … aJ.7', the operand wJ' and the loaded or
// stored value xJ'; a buffer is work@LINE:COL (work@LINE:COL#2 for a
// second working set of the statement). They are declared in the nest's
// block, so the nests of two statements do not see each other's.

// workLowerer builds the nest of one statement.
type workLowerer struct {
	c      *checker
	pos    Pos    // the position of the item being lowered
	buffer string // work@LINE:COL, the name of its first buffer
	loops  int    // loop indices named so far
	stmts  []Stmt
	bufs   map[int64]string // buffer name by working-set bytes
	vars   map[*VarDecl]bool
}

// lowerWork returns the nest of s, whose items are checked.
func (c *checker) lowerWork(s *WorkStmt, items []workItem) *Block {
	w := &workLowerer{c: c, pos: s.WorkPos, buffer: "work@" + c.lineCol(s.WorkPos),
		bufs: map[int64]string{}, vars: c.workVars}
	for i, it := range items {
		if it.op != nil {
			w.pos = it.op.Pos()
			w.ops(it, i+1)
		} else {
			w.pos = it.mem.Pos()
			w.mem(it, i+1)
		}
	}
	return &Block{Lbrace: s.WorkPos, Stmts: w.stmts, Rbrace: s.WorkPos}
}

// Node builders: every node is new (Info is keyed by nodes) and carries
// the current item's position.

func (w *workLowerer) id(name string) *Ident { return &Ident{NamePos: w.pos, Name: name} }
func (w *workLowerer) lit(n int64) *IntLit {
	return &IntLit{LitPos: w.pos, Text: strconv.FormatInt(n, 10)}
}
func (w *workLowerer) bin(x Expr, op BinaryOp, y Expr) *BinaryExpr {
	return &BinaryExpr{X: x, OpPos: w.pos, Op: op, Y: y}
}
func (w *workLowerer) call(fun string, args ...Expr) *CallExpr {
	return &CallExpr{Fun: w.id(fun), Args: args, Rparen: w.pos}
}
func (w *workLowerer) assign(lhs, rhs Expr) *AssignStmt {
	return &AssignStmt{Lhs: lhs, OpPos: w.pos, Op: Assign, Rhs: rhs}
}
func (w *workLowerer) block(stmts ...Stmt) *Block {
	return &Block{Lbrace: w.pos, Stmts: stmts, Rbrace: w.pos}
}

// forLoop returns `for NAME in 0..n { body }` with a fresh index, which
// index receives so that the body can read it.
func (w *workLowerer) forLoop(n int64, body func(index string) []Stmt) *ForStmt {
	w.loops++
	name := fmt.Sprintf("i%d'", w.loops)
	return &ForStmt{ForPos: w.pos, Var: w.id(name), Lo: w.lit(0), Hi: w.lit(n), Body: w.block(body(name)...)}
}

// varDecl declares a var of type t; init "" leaves it zero. Initialised
// vars are marked, so that code generation hides their values from the Go
// compiler (Checked.IsWorkVar), which would otherwise fold the work away.
func (w *workLowerer) varDecl(name string, t ElemType, init string) {
	d := &VarDecl{VarPos: w.pos, Names: []*Ident{w.id(name)}, Elem: t, ElemPos: w.pos}
	if init != "" {
		if t.IsFloat() {
			d.Init = &FloatLit{LitPos: w.pos, Text: init}
		} else {
			d.Init = &IntLit{LitPos: w.pos, Text: init}
		}
		w.vars[d] = true
	}
	w.stmts = append(w.stmts, d)
}

// workInit returns the initial value of an accumulator (a) or of the
// operand (w) of type t: values that every operation keeps finite and away
// from zero and the subnormals (a = w/a alternates, a + w grows slowly).
func workInit(t ElemType, operand bool) string {
	switch {
	case t.IsFloat() && operand:
		return "1.0"
	case t.IsFloat():
		return "1.5"
	case operand:
		return "7"
	}
	return "3"
}

// ops lowers COUNT KIND T.
func (w *workLowerer) ops(it workItem, j int) {
	n := it.count
	if n == 0 {
		return
	}
	accName := func(a int) string { return fmt.Sprintf("a%d.%d'", j, a) }
	accs := 1
	if n >= 8 {
		accs = 8
	}
	for a := range accs {
		w.varDecl(accName(a), it.elem, workInit(it.elem, false))
	}
	operand := fmt.Sprintf("w%d'", j)
	if it.kind == "conv" {
		from := F64
		if it.elem.IsFloat() {
			from = I64
		}
		w.varDecl(operand, from, workInit(from, true))
	} else {
		w.varDecl(operand, it.elem, workInit(it.elem, true))
	}
	update := func(a int) Stmt {
		acc := accName(a)
		return w.assign(w.id(acc), w.opExpr(it.kind, it.elem, acc, operand))
	}
	single := func(count int64) {
		w.stmts = append(w.stmts, w.forLoop(count, func(string) []Stmt { return []Stmt{update(0)} }))
	}
	if accs == 1 {
		single(n)
		return
	}
	w.stmts = append(w.stmts, w.forLoop(n/8, func(string) []Stmt {
		out := make([]Stmt, 8)
		for a := range out {
			out[a] = update(a)
		}
		return out
	}))
	if n%8 > 0 {
		// The loop of the rest has the position of the kind, not of the
		// count: reports key the chains a loop carries by the loop's
		// position and the accumulator, which both loops share.
		w.pos = it.op.KindPos
		single(n % 8)
	}
}

// opExpr returns the right-hand side that updates accumulator acc with
// exactly one operation of kind in type t, reading operand.
func (w *workLowerer) opExpr(kind string, t ElemType, acc, operand string) Expr {
	a, x := w.id(acc), w.id(operand)
	switch kind {
	case "add", WorkFlop:
		return w.bin(a, Add, x)
	case "sub":
		return w.bin(a, Sub, x)
	case "mul":
		return w.bin(a, Mul, x)
	case "div":
		return w.bin(x, Quo, a)
	case "rem":
		return w.bin(a, Rem, x)
	case "bit":
		return w.bin(a, Xor, x)
	case "sqrt", "sin", "cos", "abs":
		return w.call(kind, a)
	case "exp", "log":
		return w.call(kind, x)
	case "min", "max":
		return w.call(kind, a, x)
	case "cmp":
		return &CondExpr{Cond: w.bin(a, Lss, x), Question: w.pos, Then: x, Else: a}
	case "neg":
		return &UnaryExpr{OpPos: w.pos, Op: Neg, X: a}
	case "conv":
		return w.call(t.String(), x)
	}
	panic(fmt.Sprintf("lang: work: operation kind %q has no lowering", kind))
}

// mem lowers a load or a store.
func (w *workLowerer) mem(it workItem, j int) {
	if it.count == 0 {
		return
	}
	array, dims := w.target(it)
	v := fmt.Sprintf("x%d'", j)
	if it.mem.Store {
		w.varDecl(v, it.elem, workInit(it.elem, false))
	} else {
		w.varDecl(v, it.elem, "")
	}
	access := func(index []Expr) Stmt {
		ref := &IndexExpr{Name: w.id(array), Index: index, Rbrack: w.pos}
		if it.mem.Store {
			return w.assign(ref, w.id(v))
		}
		return w.assign(w.id(v), ref)
	}
	size := int64(1)
	for _, d := range dims {
		size *= d
	}
	sweeps, rest := it.count/size, it.count%size
	switch {
	case sweeps == 1:
		w.stmts = append(w.stmts, w.sweep(dims, size, nil, access)...)
	case sweeps > 1:
		w.stmts = append(w.stmts, &RepeatStmt{RepeatPos: w.pos, Count: w.lit(sweeps),
			Body: w.block(w.sweep(dims, size, nil, access)...)})
	}
	w.stmts = append(w.stmts, w.sweep(dims, rest, nil, access)...)
}

// target returns the name and dimensions of the array a memory item
// streams through, declaring its buffer when it has none.
func (w *workLowerer) target(it workItem) (string, []int64) {
	if it.array != nil {
		return it.array.Name, it.array.Dims
	}
	n := it.setBytes / int64(it.elem.Size())
	name, ok := w.bufs[it.setBytes]
	if !ok {
		name = w.buffer
		if len(w.bufs) > 0 {
			name = fmt.Sprintf("%s#%d", w.buffer, len(w.bufs)+1)
		}
		w.bufs[it.setBytes] = name
		w.stmts = append(w.stmts, &ArrayDecl{ArrayPos: w.pos, ElemPos: w.pos, Elem: it.elem,
			Arrays: []*ArraySpec{{Name: w.id(name), Dims: []Expr{w.lit(n)}}}})
	}
	return name, []int64{n}
}

// sweep returns the loops that access the first m elements of an array
// of dimensions dims in row-major order, the leading indices fixed to
// prefix: whole slices of the first dimension in one nest, then the
// partial slice after them, recursively.
func (w *workLowerer) sweep(dims []int64, m int64, prefix []Expr, access func([]Expr) Stmt) []Stmt {
	if m == 0 || len(dims) == 0 {
		return nil
	}
	slice := int64(1)
	for _, d := range dims[1:] {
		slice *= d
	}
	var out []Stmt
	if q := m / slice; q > 0 {
		out = append(out, w.nest(append([]int64{q}, dims[1:]...), prefix, access))
	}
	if r := m % slice; r > 0 {
		fixed := append(w.copyIndex(prefix), w.lit(m/slice))
		out = append(out, w.sweep(dims[1:], r, fixed, access)...)
	}
	return out
}

// nest returns loops over every index of dims (all from 0), the leading
// indices fixed to prefix.
func (w *workLowerer) nest(dims []int64, prefix []Expr, access func([]Expr) Stmt) Stmt {
	return w.forLoop(dims[0], func(index string) []Stmt {
		inner := append(w.copyIndex(prefix), w.id(index))
		if len(dims) == 1 {
			return []Stmt{access(inner)}
		}
		return []Stmt{w.nest(dims[1:], inner, access)}
	})
}

// copyIndex returns fresh copies of index expressions (literals and loop
// indices), since every node of the nest must be its own.
func (w *workLowerer) copyIndex(index []Expr) []Expr {
	out := make([]Expr, len(index))
	for i, x := range index {
		switch x := x.(type) {
		case *IntLit:
			out[i] = &IntLit{LitPos: x.LitPos, Text: x.Text}
		case *Ident:
			out[i] = &Ident{NamePos: x.NamePos, Name: x.Name}
		default:
			panic(fmt.Sprintf("lang: work: unexpected index %T", x))
		}
	}
	return out
}
