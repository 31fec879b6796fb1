package codegen

import (
	"perfc/lang"
)

// The plan is what the generator must know before it writes a statement:
// what one execution of each counted statement does, and which array
// references are hoisted out of which loops. Both follow the analyzer's
// rules exactly (analyze/local.go and analyze/plan.go; docs/counts.md), so
// that the instrumented program counts what the analyzer predicts and the
// generated loops keep invariant elements in registers where the analyzer
// assumes they are kept there. The CI test that runs every example's
// instrumented program against analyze.Analyze holds the two together.

// levelKind says what a level of a chain is.
type levelKind uint8

const (
	loopLevel   levelKind = iota // for i in lo..hi
	repeatLevel                  // repeat n
	guardLevel                   // a branch of a static if
	probLevel                    // a branch of a data if
)

// level is one construct enclosing a statement; chains list them
// outermost first.
type level struct {
	kind  levelKind
	loop  *lang.ForStmt // loopLevel
	index *lang.Object  // loopLevel: the loop's index
}

// hasProb reports whether a chain passes through a prob branch, where the
// analyzer counts expected values.
func hasProb(chain []level) bool {
	for _, l := range chain {
		if l.kind == probLevel {
			return true
		}
	}
	return false
}

// refUse is one array reference of a counted statement.
type refUse struct {
	ref    *lang.IndexExpr
	array  *lang.Object
	store  bool
	region string
	// hoistTo is the loop the reference is hoisted out of (nil when it is
	// not hoisted), and prob whether the place it is counted at, before
	// that loop, lies in a prob branch.
	hoistTo *lang.ForStmt
	prob    bool
	pattern string // the operand pattern of its statement
}

// stmtTally is what one execution of a counted statement does.
type stmtTally struct {
	ops     []opTally
	madds   []opTally // multiply-add pairs, by the add or sub they pair with
	refs    []*refUse // references that are not hoisted
	pattern string    // the operand pattern (CM-5 Table 1) of the statement
	times   int64     // executions per execution of the statement (a var declaration's names)
}

// opTally is n operations of one kind and type.
type opTally struct {
	op, typ string
	n       int64
}

// plan is the result of the planning walk.
type plan struct {
	tallies map[lang.Stmt]*stmtTally
	hoists  map[*lang.ForStmt][]*refUse // references hoisted out of each loop, in source order
}

// planner walks a kernel as analyze's newPlan does.
type planner struct {
	info *lang.Info
	plan
}

// makePlan plans a checked kernel.
func makePlan(k *lang.Checked) *plan {
	p := &planner{info: k.Info, plan: plan{tallies: map[lang.Stmt]*stmtTally{}, hoists: map[*lang.ForStmt][]*refUse{}}}
	p.block(k.Kernel.Body, nil, "")
	return &p.plan
}

// block plans the statements of b.
func (p *planner) block(b *lang.Block, chain []level, region string) {
	for _, s := range b.Stmts {
		p.stmt(s, chain, region)
	}
}

// stmt plans one statement.
func (p *planner) stmt(s lang.Stmt, chain []level, region string) {
	switch s := s.(type) {
	case *lang.Block:
		p.block(s, chain, region)
	case *lang.VarDecl:
		if s.Init != nil && p.info.Deps[s.Init] != 0 {
			p.exec(s, nil, s.Init, chain, region, int64(len(s.Names)))
		}
	case *lang.AssignStmt:
		p.exec(s, s.Lhs, s.Rhs, chain, region, 1)
	case *lang.ForStmt:
		p.block(s.Body, appendLevel(chain, level{kind: loopLevel, loop: s, index: p.info.Defs[s.Var]}), region)
	case *lang.RepeatStmt:
		p.block(s.Body, appendLevel(chain, level{kind: repeatLevel}), region)
	case *lang.IfStmt:
		kind := guardLevel
		if s.Prob != nil {
			p.exec(s, nil, s.Cond, chain, region, 1)
			kind = probLevel
		}
		p.block(s.Then, appendLevel(chain, level{kind: kind}), region)
		if s.Else != nil {
			p.stmt(s.Else, appendLevel(chain, level{kind: kind}), region)
		}
	case *lang.RegionStmt:
		p.block(s.Body, chain, s.Name)
	}
}

// exec plans a statement that computes: the expression rhs, assigned to
// lhs (nil for a var initialisation or a condition), executed times times
// per execution of the statement (a var declaration initialises every
// name, and the analyzer counts its operations and references that often;
// its hoisted references once).
func (p *planner) exec(s lang.Stmt, lhs, rhs lang.Expr, chain []level, region string, times int64) {
	t := tallier{info: p.info}
	t.expr(rhs)
	refs := t.refs
	if a, ok := s.(*lang.AssignStmt); ok {
		if op, compound := a.Op.Binary(); compound {
			typ := opTypeOf(p.info.Types[a.Lhs])
			t.count(binaryOpKind(op), typ)
			// A pair needs the multiply in the add's type: s += i*j
			// multiplies integers and adds floats.
			if m, ok := lang.Unparen(a.Rhs).(*lang.BinaryExpr); ok && m.Op == lang.Mul && (op == lang.Add || op == lang.Sub) &&
				t.counted[m] && opTypeOf(p.info.Types[m]) == typ {
				t.madds = addTally(t.madds, binaryOpKind(op), typ)
			}
		}
		if ix, ok := lang.Unparen(lhs).(*lang.IndexExpr); ok {
			array := p.info.Uses[ix.Name]
			if _, compound := a.Op.Binary(); compound {
				refs = append(refs, &refUse{ref: ix, array: array})
			}
			refs = append(refs, &refUse{ref: ix, array: array, store: true})
		}
	}
	tally := &stmtTally{ops: t.ops, madds: t.madds, times: times}
	arrays, seen := 0, map[string]bool{}
	for _, r := range refs {
		r.region = region
		cut := p.hoistLevel(r, chain)
		if cut < len(chain) {
			r.hoistTo = chain[cut].loop
			r.prob = hasProb(chain[:cut])
			p.hoists[r.hoistTo] = append(p.hoists[r.hoistTo], r)
			continue
		}
		tally.refs = append(tally.refs, r)
		// The operands that vary in the innermost loop; a store to an
		// element the statement also loads is the same operand.
		key := lang.ExprString(r.ref)
		if r.store && seen[key] {
			continue
		}
		seen[key] = true
		arrays++
	}
	tally.pattern = operandPattern(arrays)
	for _, r := range refs {
		r.pattern = tally.pattern
	}
	p.tallies[s] = tally
}

// operandPattern names the CM-5 Table 1 class of a statement with n array
// element operands.
func operandPattern(n int) string {
	switch n {
	case 0:
		return "s&s&s"
	case 1:
		return "a&s&s"
	case 2:
		return "a&b&s"
	}
	return "a&b&c"
}

// hoistLevel returns the position in chain of the loop a reference is
// hoisted out of: the outermost loop of the innermost run of loops in
// which it is invariant and the only reference to its array (or one with
// the same indices); len(chain) when it stays where it is. A repeat stops
// the hoisting, as it re-executes everything.
func (p *planner) hoistLevel(r *refUse, chain []level) int {
	cut := len(chain)
	for i := len(chain) - 1; i >= 0; i-- {
		l := chain[i]
		if l.kind == repeatLevel {
			break
		}
		if l.kind != loopLevel {
			continue
		}
		if dependsOn(p.info, r.ref, l.index) || !onlyReference(p.info, l.loop.Body, r) {
			break
		}
		cut = i
	}
	return cut
}

// onlyReference reports whether every reference to r's array inside body
// has the same indices as r, and no payload there names the array.
func onlyReference(info *lang.Info, body *lang.Block, r *refUse) bool {
	want := lang.ExprString(r.ref)
	only := true
	lang.Inspect(body, func(n lang.Node) bool {
		if ix, ok := n.(*lang.IndexExpr); ok && info.Uses[ix.Name] == r.array && lang.ExprString(ix) != want {
			only = false
		}
		if c, ok := n.(*lang.CommStmt); ok {
			for _, pl := range []*lang.Payload{c.Payload, c.Into} {
				if pl != nil && pl.Name != nil && info.Uses[pl.Name] == r.array {
					only = false
				}
			}
		}
		return only
	})
	return only
}

// dependsOn reports whether e reads the loop index obj, directly or
// through lets.
func dependsOn(info *lang.Info, e lang.Node, obj *lang.Object) bool {
	found := false
	lang.Inspect(e, func(n lang.Node) bool {
		if found {
			return false
		}
		if id, ok := n.(*lang.Ident); ok {
			o := info.Uses[id]
			if o == obj {
				found = true
			} else if o != nil && o.Kind == lang.LetObj && o.Expr != nil && o.Dep&lang.DepIndex != 0 {
				found = dependsOn(info, o.Expr, obj)
			}
		}
		return !found
	})
	return found
}

// appendLevel returns chain + l without sharing chain's spare capacity.
func appendLevel(chain []level, l level) []level {
	out := make([]level, len(chain), len(chain)+1)
	copy(out, chain)
	return append(out, l)
}

// tallier counts what one evaluation of an expression does, under the
// analyzer's rules: an operation counts when its value is not constant for
// the run; index expressions are address arithmetic and are not counted;
// && and || are control flow; min and max of k arguments are k-1
// operations; a select counts its condition and both arms.
type tallier struct {
	info    *lang.Info
	ops     []opTally
	madds   []opTally
	refs    []*refUse
	counted map[*lang.BinaryExpr]bool // multiplies that may still pair with an add
}

// count adds one operation.
func (t *tallier) count(op, typ string) { t.ops = addTally(t.ops, op, typ) }

// addTally adds one operation of a kind and type to ts.
func addTally(ts []opTally, op, typ string) []opTally {
	for i := range ts {
		if ts[i].op == op && ts[i].typ == typ {
			ts[i].n++
			return ts
		}
	}
	return append(ts, opTally{op: op, typ: typ, n: 1})
}

// expr counts e and everything below it, except inside index brackets.
// Only values that change during a rank's run cost operations: what is
// constant for the run or for the rank is computed once (the generated
// program does that before the kernel body).
func (t *tallier) expr(e lang.Expr) {
	live := t.info.Deps[e]&(lang.DepIndex|lang.DepData) != 0
	switch e := e.(type) {
	case *lang.ParenExpr:
		t.expr(e.X)
	case *lang.IndexExpr:
		t.refs = append(t.refs, &refUse{ref: e, array: t.info.Uses[e.Name]})
	case *lang.UnaryExpr:
		t.expr(e.X)
		if live && e.Op == lang.Neg {
			t.count("neg", opTypeOf(t.info.Types[e]))
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
		if t.counted == nil {
			t.counted = map[*lang.BinaryExpr]bool{}
		}
		t.counted[e] = true
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
		if live {
			t.call(e)
		}
	}
}

// call counts an intrinsic whose value varies.
func (t *tallier) call(e *lang.CallExpr) {
	typ := opTypeOf(t.info.Types[e])
	switch name := e.Fun.Name; name {
	case "sqrt", "exp", "log", "sin", "cos", "abs":
		t.count(name, typ)
	case "min", "max":
		for range len(e.Args) - 1 {
			t.count(name, typ)
		}
	case "f64", "f32", "i64", "i32":
		t.count("conv", typ)
	}
}

// pairMadd counts a multiply-add pair when an add or subtract has a
// counted multiply of the same type as an operand; each multiply pairs
// once.
func (t *tallier) pairMadd(e *lang.BinaryExpr, typ string) {
	for _, x := range []lang.Expr{e.X, e.Y} {
		if m, ok := lang.Unparen(x).(*lang.BinaryExpr); ok && m.Op == lang.Mul && t.counted[m] && opTypeOf(t.info.Types[m]) == typ {
			t.madds = addTally(t.madds, binaryOpKind(e.Op), typ)
			delete(t.counted, m)
			return
		}
	}
}

// binaryOpKind names the operation of an arithmetic or comparison
// operator.
func binaryOpKind(op lang.BinaryOp) string {
	switch op {
	case lang.Add:
		return "add"
	case lang.Sub:
		return "sub"
	case lang.Mul:
		return "mul"
	case lang.Quo:
		return "div"
	case lang.Rem:
		return "rem"
	case lang.Shl, lang.Shr, lang.And, lang.Or, lang.Xor:
		return "bit"
	}
	return "cmp"
}

// opTypeOf names the type an operation of expression type t works in;
// untyped floats are f64 and untyped integers "int".
func opTypeOf(t lang.Type) string {
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

// operandType is the type a comparison of x and y works in.
func operandType(x, y lang.Type) string {
	switch {
	case x.IsElem():
		return opTypeOf(x)
	case y.IsElem():
		return opTypeOf(y)
	case x == lang.FloatType || y == lang.FloatType:
		return "f64"
	}
	return "int"
}
