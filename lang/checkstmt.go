package lang

import (
	"fmt"
	"math/big"
	"strings"
)

// block checks a block in a scope of its own.
func (c *checker) block(b *Block) {
	c.openScope()
	c.reqs.path = append(c.reqs.path, b)
	for _, s := range b.Stmts {
		c.stmt(s)
	}
	c.leaveRequestScope(b)
	c.reqs.path = c.reqs.path[:len(c.reqs.path)-1]
	c.closeScope()
}

// stmt checks one statement.
func (c *checker) stmt(s Stmt) {
	switch s := s.(type) {
	case *LetStmt:
		c.let(s)
	case *ArrayDecl:
		c.arrayDecl(s)
	case *VarDecl:
		c.varDecl(s)
	case *ForStmt:
		c.forStmt(s)
	case *RepeatStmt:
		c.repeat(s)
	case *IfStmt:
		c.ifStmt(s)
	case *RegionStmt:
		c.region(s)
	case *AssignStmt:
		c.assign(s)
	case *CommStmt:
		c.comm(s)
	case *WaitStmt:
		c.waitStmt(s)
	case *Block:
		c.block(s)
	default:
		c.unhandled("lang: check statement", s)
	}
}

// ctx is the expression context of the current statement.
func (c *checker) ctx() exprCtx { return exprCtx{dead: c.dead > 0} }

// withDead runs f with the statements it checks marked as never running
// when dead is set: their types are checked, their values are not.
func (c *checker) withDead(dead bool, f func()) {
	if dead {
		c.dead++
		defer func() { c.dead-- }()
	}
	f()
}

// let checks `let NAME = value`: a static number. A let that depends on
// rank or a loop index is evaluated per rank and iteration from its
// expression; a constant one has a Value.
func (c *checker) let(s *LetStmt) {
	c.declaring = []*Ident{s.Name}
	op := c.value(s.Value, c.ctx())
	c.declaring = nil
	obj := &Object{Kind: LetObj, Name: s.Name.Name, Ident: s.Name, Type: op.typ, Expr: s.Value, Dep: op.dep}
	switch {
	case op.typ == InvalidType:
	case op.dep&DepData != 0:
		c.errorf(s.Value, "a let is static, but %s; use a var for values computed from data",
			c.varies(s.Value, DepData))
		obj.Dep &^= DepData
	case !op.typ.IsNumeric():
		c.errorf(s.Value, "a let must be a number, not %s (%s)", op.typ.article(), exprText(s.Value))
		obj.Type = InvalidType
	}
	if obj.Dep == 0 {
		obj.Value = op.val
	}
	c.declare(obj)
}

// arrayDecl checks `array a[d1]…, b[…]: T`. Dimensions are integers ≥ 1,
// the same on every rank and iteration, so that Object.Dims is exact.
// They are evaluated even in code that never runs, since the arrays of a
// kernel are always allocated.
func (c *checker) arrayDecl(s *ArrayDecl) {
	if s.Elem == NoElem {
		c.errorf(s, "the array declaration has no element type; write ': f64', ': f32', ': i64' or ': i32'")
	}
	for _, spec := range s.Arrays {
		obj := &Object{Kind: ArrayObj, Name: spec.Name.Name, Ident: spec.Name, Type: s.Elem.Type(), Elem: s.Elem,
			Dims: make([]int64, len(spec.Dims))}
		for i, d := range spec.Dims {
			obj.Dims[i] = c.dimension(spec.Name.Name, d)
		}
		c.checkArraySize(spec, obj)
		c.declare(obj)
		c.info.Arrays = append(c.info.Arrays, obj)
	}
}

// dimension checks one array dimension and returns its value (0 when it
// is unknown after an error).
func (c *checker) dimension(array string, d Expr) int64 {
	op := c.intContext(d, "an array dimension", exprCtx{})
	switch {
	case op.typ == InvalidType:
		return 0
	case op.dep != 0:
		c.errorf(d, "the dimensions of %s must be the same on every rank and iteration, but %s; use parameters and lets",
			array, c.varies(d, DepRank|DepIndex))
		return 0
	case !op.val.IsValid():
		return 0
	}
	n, ok := op.val.Int64()
	switch {
	case !ok && op.val.sign() > 0:
		c.errorf(d, "the dimension %s of %s is too large", valueOf(d, op.val.String()), array)
		return 0
	case !ok || n < 1:
		c.errorf(d, "the dimension %s of %s must be at least 1", valueOf(d, op.val.String()), array)
		return 0
	}
	return n
}

// checkArraySize rejects arrays whose size in bytes does not fit an int64;
// no machine holds them, and sizes are computed in int64 downstream.
func (c *checker) checkArraySize(spec *ArraySpec, obj *Object) {
	bytes := big.NewInt(int64(obj.Elem.Size()))
	for _, d := range obj.Dims {
		bytes.Mul(bytes, big.NewInt(d))
	}
	if !bytes.IsInt64() {
		c.errorf(spec, "array %s needs %s bytes; that is more than any machine has (2^63 bytes)", spec.Name.Name, bytes)
		return
	}
	// One rank holds every array at once: their sum is the footprint that
	// counting and code generation add up in int64.
	before := c.arrayBytes.IsInt64()
	c.arrayBytes.Add(&c.arrayBytes, bytes)
	if before && !c.arrayBytes.IsInt64() {
		c.errorf(spec, "with array %s the arrays of one rank need %s bytes; that is more than any machine has (2^63 bytes)", spec.Name.Name, &c.arrayBytes)
	}
}

// varDecl checks `var a, b: T = init`: scalars in registers.
func (c *checker) varDecl(s *VarDecl) {
	if s.Elem == NoElem {
		c.errorf(s, "the var declaration has no element type; write ': f64', ': f32', ': i64' or ': i32'")
	}
	if s.Init != nil {
		c.declaring = s.Names
		op := c.value(s.Init, c.ctx())
		c.declaring = nil
		if s.Elem != NoElem && len(s.Names) > 0 {
			c.assignable(op, s.Init, s.Elem, s.Names[0].Name)
		}
	}
	for _, id := range s.Names {
		obj := &Object{Kind: VarObj, Name: id.Name, Ident: id, Type: s.Elem.Type(), Elem: s.Elem}
		c.declare(obj)
		c.info.Vars = append(c.info.Vars, obj)
	}
}

// forStmt checks `for i in lo..hi [step s] { … }`. The bounds are static
// integers (they may use rank and enclosing indices); the step is a
// constant ≥ 1, which is what the closed-form counting needs.
func (c *checker) forStmt(s *ForStmt) {
	ctx := c.ctx()
	c.declaring = []*Ident{s.Var}
	lo := c.intContext(s.Lo, "the lower bound", ctx)
	hi := c.intContext(s.Hi, "the upper bound", ctx)
	step := c.loopStep(s, ctx)
	c.declaring = nil

	obj := &Object{Kind: IndexObj, Name: s.Var.Name, Ident: s.Var, Type: IntType, Slot: c.info.NumSlots, Loop: s, Dep: DepIndex}
	c.info.NumSlots++
	c.openScope()
	c.declare(obj)
	empty := lo.dep == 0 && hi.dep == 0 && lo.val.IsInt() && hi.val.IsInt() && lo.val.rat.Cmp(hi.val.rat) >= 0
	c.loops = append(c.loops, loopFrame{stmt: s, index: obj, dep: (lo.dep | hi.dep) &^ DepData, step: step})
	c.withDead(empty, func() { c.block(s.Body) })
	c.loops = c.loops[:len(c.loops)-1]
	c.closeScope()
}

// loopStep checks the step of a for loop and returns it (1 when absent, 0
// when unknown after an error).
func (c *checker) loopStep(s *ForStmt, ctx exprCtx) int64 {
	if s.Step == nil {
		return 1
	}
	op := c.intContext(s.Step, "the step", ctx)
	switch {
	case op.typ == InvalidType:
		return 0
	case op.dep != 0:
		c.errorf(s.Step, "the step must be the same on every rank and iteration, but %s; use parameters and lets",
			c.varies(s.Step, DepRank|DepIndex))
		return 0
	case !op.val.IsValid():
		return 0
	}
	n, ok := op.val.Int64()
	if !ok || n < 1 {
		c.valueErrorf(ctx, s.Step, "the step %s must be at least 1", valueOf(s.Step, op.val.String()))
		return 0
	}
	return n
}

// repeat checks `repeat count { … }`.
func (c *checker) repeat(s *RepeatStmt) {
	ctx := c.ctx()
	op := c.intContext(s.Count, "the repeat count", ctx)
	if op.val.IsValid() && op.val.sign() < 0 {
		c.valueErrorf(ctx, s.Count, "the repeat count %s must be at least 0", valueOf(s.Count, op.val.String()))
	}
	never := op.dep == 0 && op.val.IsValid() && op.val.sign() <= 0
	c.loops = append(c.loops, loopFrame{stmt: s, dep: op.dep &^ DepData})
	c.withDead(never, func() { c.block(s.Body) })
	c.loops = c.loops[:len(c.loops)-1]
}

// ifStmt checks `if cond [prob p] { … } [else …]`. A condition that reads
// data needs prob; a static one must not have it. A constant condition
// makes the branch not taken dead; any other is pushed as a guard.
func (c *checker) ifStmt(s *IfStmt) {
	ctx := c.ctx()
	cond := c.value(s.Cond, ctx)
	if cond.typ != InvalidType && cond.typ != BoolType {
		c.errorf(s.Cond, "the condition must be a comparison or another boolean, not %s (%s); write %s != 0",
			cond.typ.article(), exprText(s.Cond), exprText(s.Cond))
		cond.typ = InvalidType
	}
	isData := cond.dep&DepData != 0
	switch {
	case cond.typ == InvalidType:
	case isData && s.Prob == nil:
		c.errorf(s.Cond, "the condition %s; say how often it is true with 'prob p', as in 'if %s prob 0.5 {'",
			c.varies(s.Cond, DepData), exprText(s.Cond))
	case !isData && s.Prob != nil:
		c.errorf(s.Prob, "'prob' on a condition that reads no data: %s is evaluated exactly on every rank and iteration; remove 'prob %s'",
			exprText(s.Cond), exprText(s.Prob))
	}
	if s.Prob != nil {
		c.prob(s.Prob, ctx)
	}

	known := cond.dep == 0 && cond.val.Kind() == BoolValue
	if !known {
		c.conds = append(c.conds, condFrame{stmt: s, dep: cond.dep})
		defer func() { c.conds = c.conds[:len(c.conds)-1] }()
	}
	c.withDead(known && !cond.val.Bool(), func() { c.block(s.Then) })
	if s.Else != nil {
		c.withDead(known && cond.val.Bool(), func() { c.stmt(s.Else) })
	}
}

// prob checks `prob p`: a number known for the run, 0 < p ≤ 1.
func (c *checker) prob(e Expr, ctx exprCtx) {
	op := c.exactIn(c.expr(e, ctx), true)
	switch {
	case op.typ == InvalidType:
	case !op.typ.IsNumeric():
		c.errorf(e, "the probability must be a number, not %s (%s)", op.typ.article(), exprText(e))
	case op.dep != 0:
		c.errorf(e, "the probability must be the same on every rank and iteration, but %s; use parameters and lets",
			c.varies(e, DepData|DepIndex|DepRank))
	case op.val.IsValid():
		p := op.val.Rat()
		if p.Sign() <= 0 || p.Cmp(big.NewRat(1, 1)) > 0 {
			c.valueErrorf(ctx, e, "the probability %s must be greater than 0 and at most 1", valueOf(e, op.val.String()))
		}
	}
}

// region checks `region "name" { … }`.
func (c *checker) region(s *RegionStmt) {
	if strings.TrimSpace(s.Name) == "" {
		c.errs.Add(c.pos(s.NamePos), "the region name is empty; name the part of the report, as in region \"update\"")
	}
	c.block(s.Body)
}

// assign checks `lhs op rhs`: lhs is a var or an array element, rhs a
// value of its element type.
func (c *checker) assign(s *AssignStmt) {
	ctx := c.ctx()
	var elem ElemType
	target := exprText(s.Lhs)
	switch lhs := s.Lhs.(type) {
	case *Ident:
		elem = c.assignTarget(lhs)
	case *IndexExpr:
		c.reqs.writing = lhs
		elem = c.expr(lhs, ctx).typ.Elem()
		c.reqs.writing = nil
	default:
		c.errorf(s.Lhs, "cannot assign to %s; assign to a var or an array element", target)
		c.expr(s.Lhs, ctx)
	}
	rhs := c.value(s.Rhs, ctx)
	if elem != NoElem {
		c.assignable(rhs, s.Rhs, elem, target)
	}
}

// assignTarget resolves a name on the left of an assignment and returns
// its element type; only vars can be assigned whole.
func (c *checker) assignTarget(id *Ident) ElemType {
	obj := c.lookup(id)
	if obj == nil {
		return NoElem
	}
	name := id.Name
	switch obj.Kind {
	case VarObj:
		c.record(id, operand{typ: obj.Type, dep: DepData})
		c.bufferAccess(id, obj, nil, true)
		return obj.Elem
	case ArrayObj:
		c.errorf(id, "cannot assign to the whole array %s; assign its elements, as in %s[i] = …", name, name)
	case ParamObj:
		c.errorf(id, "cannot assign to %s: it is a parameter (set it from the command line with -D %s=…)", name, name)
	case LetObj:
		c.errorf(id, "cannot assign to %s: it is a let, fixed once computed; declare a var for a value that changes", name)
	case IndexObj:
		c.errorf(id, "cannot assign to %s: it is the index of the loop at %s", name, c.lineCol(obj.Loop.Pos()))
	case BuiltinObj:
		c.errorf(id, "cannot assign to %s: it is predeclared (%s)", name, predeclaredMeaning(name, true))
	default:
		c.errorf(id, "cannot assign to %s: it is an intrinsic", name)
	}
	return NoElem
}

// assignable reports an error unless a value of op's type can be stored
// in an element of type elem: untyped ints go anywhere, untyped floats to
// float elements, and element types only to themselves.
func (c *checker) assignable(op operand, e Expr, elem ElemType, target string) {
	t := op.typ
	switch {
	case t == InvalidType, t == IntType, t == FloatType && elem.IsFloat(), t.Elem() == elem:
	case t == FloatType:
		c.errorf(e, "type mismatch: %s is a float, but %s holds %s; convert with %s(…)", exprText(e), target, elem, elem)
	case t.IsElem():
		c.errorf(e, "type mismatch: %s is %s, but %s holds %s; convert with %s(…)", exprText(e), t, target, elem, elem)
	case t == BoolType:
		c.errorf(e, "type mismatch: %s is a bool, but %s holds %s; write (%s) ? 1 : 0", exprText(e), target, elem, exprText(e))
	default:
		c.errorf(e, "type mismatch: %s is %s, but %s holds %s", exprText(e), t.article(), target, elem)
	}
}

// varies is a clause saying why e is not constant, such as "i / 2
// depends on the loop index i" or "rank differs between ranks".
func (c *checker) varies(e Expr, d Dep) string {
	for _, want := range []Dep{DepData, DepIndex, DepRank} {
		if d&want == 0 {
			continue
		}
		n := c.firstRead(e, want)
		switch {
		case n == nil:
			continue
		case n == Node(Unparen(e)):
			return c.isRead(n, want)
		}
		return exprText(e) + " " + c.describeRead(n, want)
	}
	return exprText(e) + " is not a constant"
}

// isRead is the clause for an expression that is itself the read.
func (c *checker) isRead(n Node, want Dep) string {
	text := exprText(n.(Expr))
	if id, ok := n.(*Ident); ok {
		switch obj := c.info.Uses[id]; obj.Kind {
		case VarObj:
			return text + " is a var"
		case IndexObj:
			return text + " is a loop index"
		case LetObj:
			return fmt.Sprintf("%s is a let that %s", text, c.whatVaries(obj.Expr, want))
		}
	}
	if _, ok := n.(*IndexExpr); ok {
		return text + " is array data"
	}
	return text + " differs between ranks"
}

// valueOf writes "e = v", or just v when e is the literal v.
func valueOf(e Expr, v string) string {
	if t := exprText(e); t != v {
		return t + " = " + v
	}
	return v
}

// whatVaries explains why e is not constant: the first read of data, of a
// loop index or of the rank in e, in that order of interest, as a phrase
// such as "depends on the loop index i" or "reads data (A[i][j])".
func (c *checker) whatVaries(e Expr, d Dep) string {
	for _, want := range []Dep{DepData, DepIndex, DepRank} {
		if d&want == 0 {
			continue
		}
		if n := c.firstRead(e, want); n != nil {
			return c.describeRead(n, want)
		}
	}
	return "is not a constant"
}

// firstRead finds the first node in e that makes it depend on want.
func (c *checker) firstRead(e Expr, want Dep) Node {
	var found Node
	Inspect(e, func(n Node) bool {
		if found != nil {
			return false
		}
		switch n := n.(type) {
		case *IndexExpr:
			if want == DepData {
				found = n
			}
			return false
		case *DirExpr:
			if want == DepRank {
				found = n
			}
		case *CallExpr:
			if want == DepRank && n.Fun.Name == "neighbor" {
				found = n
			}
		case *Ident:
			if obj := c.info.Uses[n]; obj != nil && c.objDep(obj)&want != 0 {
				found = n
			}
		}
		return found == nil
	})
	return found
}

// objDep is what reading obj depends on.
func (c *checker) objDep(obj *Object) Dep {
	switch obj.Kind {
	case VarObj, ArrayObj:
		return DepData
	}
	return obj.Dep
}

// describeRead phrases why node n varies.
func (c *checker) describeRead(n Node, want Dep) string {
	switch n := n.(type) {
	case *IndexExpr:
		return fmt.Sprintf("reads data (%s)", exprText(n))
	case *Ident:
		obj := c.info.Uses[n]
		switch obj.Kind {
		case VarObj:
			return fmt.Sprintf("reads the var %s", n.Name)
		case IndexObj:
			return fmt.Sprintf("depends on the loop index %s", n.Name)
		case LetObj:
			return fmt.Sprintf("uses the let %s, which %s", n.Name, c.whatVaries(obj.Expr, want))
		}
		if n.Name == "rank" {
			return "depends on rank"
		}
		return fmt.Sprintf("depends on rank (through %s)", n.Name)
	}
	return fmt.Sprintf("depends on rank (through %s)", exprText(n.(Expr)))
}
