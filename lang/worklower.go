package lang

import (
	"fmt"
	"slices"
	"strconv"
)

// The lowering of a work statement: the synthetic loop nest that does
// exactly the stated work, which the checker checks like written code and
// every later stage (counting, the cache model, pricing, the schedule,
// emulation, code generation) sees in the statement's place, so that the
// statement is counted, priced and generated "like the loops it stands
// for". docs/language.md describes the nest; in short:
//
//   - Every memory item is a stream of element accesses in row-major order
//     from the first element of its array (`x = A[i][j]…` for a load,
//     `A[i][j]… = y` for a store), wrapping around: B/size(A) accesses are
//     R full sweeps and a partial one. With `in SET` or without an array
//     the stream runs through a buffer of SET (or B) bytes of the
//     statement's buffer type, declared with the nest; items of one
//     statement with the same working set share its buffer.
//   - Streams over arrays of the same dimensions share loops, as the
//     statements of one loop body do: the full sweeps run as
//     `repeat R { for … { body } }` (no repeat when R is 1) with every
//     stream that has at least that many sweeps, then the partial sweeps,
//     those of the same length together.
//   - The operations go into the body of the loops that run most often
//     (the host; a partial sweep of a multi-dimensional array, which is
//     several nests, hosts none): COUNT/T operations per iteration of its
//     T iterations (at most 16), into eight accumulators of the type (one
//     when COUNT < 8). Their input is a value of their type loaded in the same
//     iteration, `a = x + w` for add, so that they are independent, as
//     operations stated without dependences are; without such a load it
//     is the accumulator, `a = a + w`, up to eight chains, as a compiler
//     unrolls a reduction. The rest, or all of them when the
//     statement moves no memory, run in loops of their own on the
//     accumulators: COUNT/8 iterations of eight updates, then COUNT%8
//     iterations of one (at the position of KIND).
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
	pos    Pos    // the position of the nodes being built
	buffer string // work@LINE:COL, the name of its first buffer
	loops  int    // loop indices named so far
	stmts  []Stmt
	bufs   map[int64]string // buffer name by working-set bytes
	vars   map[*VarDecl]bool
}

// workMaxPerIter bounds the operations of one item in one iteration of
// the host loops (the statements written there); the rest run in the
// item's own loops. A few loads among billions of operations would
// otherwise write billions of statements.
const workMaxPerIter = 16

// workOps is an operation item of the nest: its accumulators and operand.
type workOps struct {
	item    workItem
	j       int // the item's number, from 1
	accs    int // accumulators: 8, or 1 when the count is below 8
	operand string
	perIter int64 // updates per iteration of the host loops
}

// acc names accumulator u.
func (o *workOps) acc(u int) string { return fmt.Sprintf("a%d.%d'", o.j, u%o.accs) }

// workStream is a memory item of the nest.
type workStream struct {
	item  workItem
	array string
	dims  []int64
	size  int64  // elements of the array
	v     string // the var loaded into or stored from
}

// workSegment is one run of shared loops: full sweeps repeated reps times,
// or (reps 0) a partial sweep of the first m elements.
type workSegment struct {
	reps, m int64
	dims    []int64
	streams []*workStream
	ops     []*workOps // the operations it hosts
}

// iterations is how often the segment's innermost body runs.
func (s *workSegment) iterations() int64 {
	if s.reps > 0 {
		return s.reps * s.streams[0].size
	}
	return s.m
}

// lowerWork returns the nest of s, whose items are checked.
func (c *checker) lowerWork(s *WorkStmt, items []workItem) *Block {
	w := &workLowerer{c: c, pos: s.WorkPos, buffer: "work@" + c.lineCol(s.WorkPos),
		bufs: map[int64]string{}, vars: c.workVars}
	var ops []*workOps
	var streams []*workStream
	for i, it := range items {
		if it.count == 0 {
			continue
		}
		if it.op != nil {
			w.pos = it.op.Pos()
			ops = append(ops, w.declareOps(it, i+1))
			continue
		}
		w.pos = it.mem.Pos()
		st := &workStream{item: it, v: fmt.Sprintf("x%d'", i+1)}
		st.array, st.dims = w.target(it)
		st.size = 1
		for _, d := range st.dims {
			st.size *= d
		}
		if it.mem.Store {
			w.varDecl(st.v, it.elem, workInit(it.elem, false))
		} else {
			w.varDecl(st.v, it.elem, "")
		}
		streams = append(streams, st)
	}
	segs := workSegments(streams)
	var host *workSegment
	for _, sg := range segs {
		// A partial sweep of a multi-dimensional array is several nests
		// at one position; reports key the chains of the operations by
		// their loop's position, so only one nest may host them.
		hostable := sg.reps > 0 || len(sg.dims) == 1
		if hostable && (host == nil || sg.iterations() > host.iterations()) {
			host = sg
		}
	}
	for _, o := range ops {
		if host != nil {
			o.perIter = min(o.item.count/host.iterations(), workMaxPerIter)
			if o.perIter > 0 {
				host.ops = append(host.ops, o)
			}
		}
	}
	for _, sg := range segs {
		w.segment(sg)
	}
	for _, o := range ops {
		rest := o.item.count
		if host != nil {
			rest -= o.perIter * host.iterations()
		}
		w.opLoops(o, rest)
	}
	return &Block{Lbrace: s.WorkPos, Stmts: w.stmts, Rbrace: s.WorkPos}
}

// workSegments groups the streams into runs of shared loops: by the
// dimensions of their arrays (in order of first appearance), the full
// sweeps in runs of the streams that have at least so many, then the
// partial sweeps of equal length.
func workSegments(streams []*workStream) []*workSegment {
	var keys []string
	groups := map[string][]*workStream{}
	for _, st := range streams {
		k := fmt.Sprint(st.dims)
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], st)
	}
	var segs []*workSegment
	for _, k := range keys {
		g := groups[k]
		var sweeps []int64
		for _, st := range g {
			if r := st.item.count / st.size; r > 0 && !slices.Contains(sweeps, r) {
				sweeps = append(sweeps, r)
			}
		}
		slices.Sort(sweeps)
		done := int64(0)
		for _, r := range sweeps {
			sg := &workSegment{reps: r - done, dims: g[0].dims}
			for _, st := range g {
				if st.item.count/st.size >= r {
					sg.streams = append(sg.streams, st)
				}
			}
			segs = append(segs, sg)
			done = r
		}
		var parts []*workSegment
		for _, st := range g {
			m := st.item.count % st.size
			if m == 0 {
				continue
			}
			i := slices.IndexFunc(parts, func(sg *workSegment) bool { return sg.m == m })
			if i < 0 {
				parts = append(parts, &workSegment{m: m, dims: g[0].dims})
				i = len(parts) - 1
			}
			parts[i].streams = append(parts[i].streams, st)
		}
		segs = append(segs, parts...)
	}
	return segs
}

// segment writes the loops of one run: the accesses of its streams and
// the operations it hosts in the innermost body.
func (w *workLowerer) segment(sg *workSegment) {
	w.pos = sg.streams[0].item.mem.Pos()
	body := func(index []Expr) []Stmt {
		var out []Stmt
		for _, st := range sg.streams {
			w.pos = st.item.mem.Pos()
			ref := &IndexExpr{Name: w.id(st.array), Index: w.copyIndex(index), Rbrack: w.pos}
			if st.item.mem.Store {
				out = append(out, w.assign(ref, w.id(st.v)))
			} else {
				out = append(out, w.assign(w.id(st.v), ref))
			}
		}
		for _, o := range sg.ops {
			w.pos = o.item.op.Pos()
			load := ""
			for _, st := range sg.streams {
				if !st.item.mem.Store && st.item.elem == o.item.elem {
					load = st.v
					break
				}
			}
			for u := range o.perIter {
				out = append(out, w.update(o, int(u%int64(o.accs)), load))
			}
		}
		w.pos = sg.streams[0].item.mem.Pos()
		return out
	}
	switch {
	case sg.reps == 1:
		w.stmts = append(w.stmts, w.nest(sg.dims, nil, body))
	case sg.reps > 1:
		w.stmts = append(w.stmts, &RepeatStmt{RepeatPos: w.pos, Count: w.lit(sg.reps),
			Body: w.block(w.nest(sg.dims, nil, body))})
	default:
		w.stmts = append(w.stmts, w.sweep(sg.dims, sg.m, nil, body)...)
	}
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

// varDecl declares a var of type t; init "" leaves it zero. The vars are
// marked (Checked.IsWorkVar), so that code generation hides their initial
// values from the Go compiler and keeps all their final values, without
// which it could fold or drop the work.
func (w *workLowerer) varDecl(name string, t ElemType, init string) {
	d := &VarDecl{VarPos: w.pos, Names: []*Ident{w.id(name)}, Elem: t, ElemPos: w.pos}
	if init != "" {
		if t.IsFloat() {
			d.Init = &FloatLit{LitPos: w.pos, Text: init}
		} else {
			d.Init = &IntLit{LitPos: w.pos, Text: init}
		}
	}
	w.vars[d] = true
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

// declareOps declares the accumulators and the operand of an operation
// item.
func (w *workLowerer) declareOps(it workItem, j int) *workOps {
	o := &workOps{item: it, j: j, accs: 1, operand: fmt.Sprintf("w%d'", j)}
	if it.count >= 8 {
		o.accs = 8
	}
	for a := range o.accs {
		w.varDecl(o.acc(a), it.elem, workInit(it.elem, false))
	}
	if it.kind == "conv" {
		from := F64
		if it.elem.IsFloat() {
			from = I64
		}
		w.varDecl(o.operand, from, workInit(from, true))
	} else {
		w.varDecl(o.operand, it.elem, workInit(it.elem, true))
	}
	return o
}

// update returns one operation into accumulator a. Its input is the
// accumulator itself (a chain from iteration to iteration), or, when load
// names a value of the type loaded in the same iteration, that value: the
// operations of a host loop then depend on its data and on nothing
// carried, as independent operations do. Integer division and remainder
// keep the accumulator, whose values are never zero (loaded data may be).
func (w *workLowerer) update(o *workOps, a int, load string) Stmt {
	input := o.acc(a)
	if load != "" && !((o.item.kind == "div" || o.item.kind == "rem") && !o.item.elem.IsFloat()) {
		input = load
	}
	return w.assign(w.id(o.acc(a)), w.opExpr(o.item.kind, o.item.elem, input, o.operand))
}

// opLoops writes the loops of the n operations of o that no host loop
// runs: n/8 iterations of eight updates, then n%8 of one (with one
// accumulator, n iterations of one).
func (w *workLowerer) opLoops(o *workOps, n int64) {
	w.pos = o.item.op.Pos()
	single := func(count int64) {
		w.stmts = append(w.stmts, w.forLoop(count, func(string) []Stmt { return []Stmt{w.update(o, 0, "")} }))
	}
	switch {
	case n == 0:
		return
	case o.accs == 1 || n < 8:
		single(n)
		return
	}
	w.stmts = append(w.stmts, w.forLoop(n/8, func(string) []Stmt {
		out := make([]Stmt, 8)
		for a := range out {
			out[a] = w.update(o, a, "")
		}
		return out
	}))
	if n%8 > 0 {
		// The loop of the rest has the position of the kind, not of the
		// count: reports key the chains a loop carries by the loop's
		// position and the accumulator, which both loops share.
		w.pos = o.item.op.KindPos
		single(n % 8)
	}
}

// opExpr returns a right-hand side with exactly one operation of kind in
// type t on input (an accumulator, or a value loaded in the same
// iteration) and operand.
func (w *workLowerer) opExpr(kind string, t ElemType, input, operand string) Expr {
	a, x := w.id(input), w.id(operand)
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
func (w *workLowerer) sweep(dims []int64, m int64, prefix []Expr, body func([]Expr) []Stmt) []Stmt {
	if m == 0 || len(dims) == 0 {
		return nil
	}
	slice := int64(1)
	for _, d := range dims[1:] {
		slice *= d
	}
	var out []Stmt
	if q := m / slice; q > 0 {
		out = append(out, w.nest(append([]int64{q}, dims[1:]...), prefix, body))
	}
	if r := m % slice; r > 0 {
		fixed := append(w.copyIndex(prefix), w.lit(m/slice))
		out = append(out, w.sweep(dims[1:], r, fixed, body)...)
	}
	return out
}

// nest returns loops over every index of dims (all from 0), the leading
// indices fixed to prefix.
func (w *workLowerer) nest(dims []int64, prefix []Expr, body func([]Expr) []Stmt) Stmt {
	return w.forLoop(dims[0], func(index string) []Stmt {
		inner := append(w.copyIndex(prefix), w.id(index))
		if len(dims) == 1 {
			return body(inner)
		}
		return []Stmt{w.nest(dims[1:], inner, body)}
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
