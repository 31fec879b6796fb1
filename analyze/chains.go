package analyze

import (
	"cmp"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"perfc/lang"
)

// Loop-carried dependency chains (docs/counts.md, "Loop entries and
// dependency chains"). A loop carries a location — a var, or an array
// reference hoisted out of the loop, which lives in a register there — when
// an iteration computes the location's new value from the value the
// previous iteration left, as `s = s + a[i]*b[i]` does. The chain is the
// longest path of operations from that read to that write through the
// body's dependences; its operations' latencies add up, iteration after
// iteration, however many execution units the core has.
//
// The search is a forward pass over the body for each location written in
// it: every location holds the longest path (in operations, weighted by the
// probability of the branches they are in) from the carried value at the
// top of the body, or nothing when its value does not depend on it.
//
//   - An assignment gives its target the longest path among the operands of
//     its right-hand side (its compound operator's target included) plus the
//     operations the analyzer counts on the way up to the root (the add of
//     `s + a*b`, not the multiply; both of Horner's `c + x*acc`). Index
//     brackets are address arithmetic and carry nothing.
//   - A static if: each branch from the same state; afterwards a location
//     has the operations of either branch (they run in different
//     iterations, and each operation is counted in the iterations it runs).
//   - A data if with probability p: the branches start from the state
//     weighted p and 1 − p, and add up afterwards, so that a chain counts
//     the expected operations per iteration, as every count does.
//   - A nested loop is a dependence without operations of this loop's: the
//     operations inside it are on its own chains, priced with it. Its body
//     is passed until nothing changes (it may also run no iteration).
//   - Control dependences (a data if's condition reading the location) are
//     no chain: a predicted branch does not wait for its condition.
//
// A chain is reported for the innermost loop that carries the location, and
// only when it has operations. It restarts at every entry of its loop
// (Chain.Restarts) when the loop around it does not carry the location:
// the same pass over that loop's body, from the location's value at its
// top, finds no path to its end (markRestarts). A loop whose body holds a region or a
// communication statement carries no chain: its iterations are cut by
// region timers or messages, which the latency bound does not model.

// location is a carried place: a var (text empty), or an array reference
// hoisted out of the loop (its array and canonical text).
type location struct {
	obj  *lang.Object
	text string
}

// name is the location as the report writes it.
func (l location) name() string {
	if l.text != "" {
		return l.text
	}
	return l.obj.Name
}

// chainStep is one operation of a chain: n operations of a statement's
// leaf per execution, on the chain in factor of the executions (the
// probability of the data branches it was reached through; nil is 1).
type chainStep struct {
	node   lang.Node // the operation's node: identifies it when paths merge
	leaf   *leaf
	op     OpKind
	typ    OpType
	n      int64
	factor *big.Rat
}

// carriedChain is one chain a loop carries: the location and the steps of
// its longest path, in source order.
type carriedChain struct {
	name     string
	loc      location
	steps    []chainStep
	restarts bool // set when the enclosing loop is planned (markRestarts)
}

// chainPath is the longest dependence path from the carried value to a
// location's current value: its steps (one per operation node), and its
// expected length in operations per iteration (which path is longest).
// Paths are short and never changed once made; slices, not maps, keep a
// small kernel's planning cheap.
type chainPath struct {
	steps  []chainStep
	length float64
}

// emptyPath is the path of the carried value itself.
func emptyPath() *chainPath { return &chainPath{} }

// find returns the position of node's step in p, or -1.
func (p *chainPath) find(node lang.Node) int {
	for i := range p.steps {
		if p.steps[i].node == node {
			return i
		}
	}
	return -1
}

// longer returns the longer of two paths (the first on a tie); either may
// be nil.
func longer(a, b *chainPath) *chainPath {
	if a == nil || (b != nil && b.length > a.length) {
		return b
	}
	return a
}

// with returns p extended by one step of weight w (its probability within
// the loop body).
func (p *chainPath) with(s chainStep, w float64) *chainPath {
	out := &chainPath{steps: make([]chainStep, 0, len(p.steps)+1), length: p.length + float64(s.n)*w}
	out.steps = append(out.steps, p.steps...)
	if i := out.find(s.node); i >= 0 {
		out.steps[i] = s
	} else {
		out.steps = append(out.steps, s)
	}
	return out
}

// scaled returns p weighted by the probability q of a data branch.
func (p *chainPath) scaled(q *big.Rat, qf float64) *chainPath {
	out := &chainPath{steps: make([]chainStep, len(p.steps)), length: p.length * qf}
	for i, v := range p.steps {
		v.factor = mulFactor(v.factor, q)
		out.steps[i] = v
	}
	return out
}

// mulFactor returns f × q, nil being 1.
func mulFactor(f, q *big.Rat) *big.Rat {
	if f == nil {
		return new(big.Rat).Set(q)
	}
	return new(big.Rat).Mul(f, q)
}

// factorOf returns f, nil being 1.
func factorOf(f *big.Rat) *big.Rat {
	if f == nil {
		return ratOne()
	}
	return f
}

// mergePaths joins the paths of two branches: sum adds the factors of a
// step on both (the two data branches of one iteration, weighted p and
// 1 − p), otherwise the larger is kept (static branches: a step before the
// if is on the chain in every iteration either branch runs).
func mergePaths(a, b *chainPath, sum bool) *chainPath {
	if a == nil {
		return b
	}
	if b == nil || (!sum && a == b) {
		return a
	}
	out := &chainPath{steps: make([]chainStep, 0, len(a.steps)+len(b.steps))}
	if sum {
		out.length = a.length + b.length
	} else {
		out.length = max(a.length, b.length)
	}
	out.steps = append(out.steps, a.steps...)
	for _, v := range b.steps {
		i := out.find(v.node)
		switch {
		case i < 0:
			out.steps = append(out.steps, v)
		case sum:
			out.steps[i].factor = new(big.Rat).Add(factorOf(out.steps[i].factor), factorOf(v.factor))
		case factorOf(v.factor).Cmp(factorOf(out.steps[i].factor)) > 0:
			out.steps[i] = v
		}
	}
	return out
}

// samePath reports whether two paths have the same steps and factors.
func samePath(a, b *chainPath) bool {
	if a == nil || b == nil || a == b {
		return a == b
	}
	if len(a.steps) != len(b.steps) {
		return false
	}
	for _, v := range a.steps {
		i := b.find(v.node)
		if i < 0 || factorOf(v.factor).Cmp(factorOf(b.steps[i].factor)) != 0 {
			return false
		}
	}
	return true
}

// stateEntry is one location that depends on the carried value, with its
// path.
type stateEntry struct {
	loc  location
	path *chainPath
}

// chainState lists every location that depends on the carried value (a
// handful at most).
type chainState []stateEntry

// get returns the path of location l, or nil.
func (s chainState) get(l location) *chainPath {
	for _, e := range s {
		if e.loc == l {
			return e.path
		}
	}
	return nil
}

// clone copies the state (paths are never changed in place).
func (s chainState) clone() chainState { return slices.Clone(s) }

// merge joins two branches' states.
func merge(a, b chainState, sum bool) chainState {
	out := make(chainState, 0, len(a)+len(b))
	for _, e := range a {
		out = append(out, stateEntry{e.loc, mergePaths(e.path, b.get(e.loc), sum)})
	}
	for _, e := range b {
		if a.get(e.loc) == nil {
			out = append(out, e)
		}
	}
	return out
}

// chainFlow is the pass over one loop's body for one carried location.
type chainFlow struct {
	p     *plan
	depth int // the loop's position in its chain: references cut at or above it are hoisted out of it
	state chainState
	quiet int // inside nested loops: their operations are not on this loop's chains
}

// planChains finds the chains loop carries and adds a leaf for them; body
// are the leaves planned for the loop's iterations and body.
func (p *plan) planChains(loop lang.Stmt, body *lang.Block, inner []level, region string, planned []*leaf) {
	fl := &chainFlow{p: p, depth: len(inner) - 1}
	// The lists of written and carried locations are scratch, reused from
	// loop to loop; the reads are kept for the enclosing loops.
	sc := bodyScan{written: p.scratch.written[:0], carried: p.scratch.carried[:0], reads: make([]location, 0, 8)}
	defer func() { p.scratch = sc }()
	if !sc.block(fl, body) {
		return
	}
	if len(sc.reads) > 0 {
		p.setNode(loop, func(info *nodeInfo) { info.reads = sc.reads })
	}
	p.markRestarts(fl, body)
	// A location carried by a nested loop is reported there only.
	candidates := slices.DeleteFunc(sc.written, func(l location) bool { return slices.Contains(sc.carried, l) })
	if len(candidates) == 0 {
		return
	}
	var found []carriedChain
	var own []location
	for _, l := range sortedLocations(candidates) {
		if !slices.Contains(sc.reads, l) {
			continue // never read: no value crosses from one iteration to the next
		}
		fl.state = chainState{{l, emptyPath()}}
		fl.block(body, 1)
		path := fl.state.get(l)
		if path == nil {
			continue
		}
		own = append(own, l)
		if len(path.steps) > 0 {
			found = append(found, carriedChain{name: l.name(), loc: l, steps: sortedSteps(path)})
		}
	}
	if own != nil {
		p.setNode(loop, func(info *nodeInfo) { info.carried = own })
	}
	if len(found) == 0 {
		return
	}
	var leaves []*leaf
	for _, x := range planned {
		switch x.kind {
		case leafIter, leafExec, leafCond, leafHoist:
			if len(x.chain) >= len(inner) && sameLevel(x.chain[len(inner)-1], inner[len(inner)-1]) {
				leaves = append(leaves, x)
			}
		}
	}
	lf := &leaf{kind: leafChain, region: region, chain: inner, stmt: loop, pos: loop.Pos(), carried: found, body: leaves}
	p.leaves = append(p.leaves, lf)
	p.setNode(loop, func(info *nodeInfo) { info.chainLeaf = lf })
}

// markRestarts marks the chains of the loops directly nested in body (not
// inside a further loop) whose location this loop's iterations do not
// carry: the location's value at the end of an iteration does not depend on
// its value at the start, so it was set anew between one entry of the
// nested loop and the next, and the entries' chains are independent
// (Chain.Restarts). A location that may survive an iteration (a
// conditional reset, none at all) leaves the chain running on.
func (p *plan) markRestarts(fl *chainFlow, body *lang.Block) {
	for _, nested := range directLoops(body, nil) {
		lf := p.nodeInfo(nested).chainLeaf
		if lf == nil {
			continue
		}
		for i := range lf.carried {
			cc := &lf.carried[i]
			fl.state = chainState{{cc.loc, emptyPath()}}
			fl.block(body, 1)
			cc.restarts = fl.state.get(cc.loc) == nil
		}
	}
	fl.state = nil
}

// directLoops appends the loops of b that no other loop of b encloses.
func directLoops(b *lang.Block, out []lang.Stmt) []lang.Stmt {
	for _, s := range b.Stmts {
		out = directLoopsStmt(s, out)
	}
	return out
}

// directLoopsStmt appends s if it is a loop, or the direct loops inside it.
func directLoopsStmt(s lang.Stmt, out []lang.Stmt) []lang.Stmt {
	switch s := s.(type) {
	case *lang.ForStmt, *lang.RepeatStmt:
		return append(out, s)
	case *lang.Block:
		return directLoops(s, out)
	case *lang.IfStmt:
		out = directLoops(s.Then, out)
		if s.Else != nil {
			out = directLoopsStmt(s.Else, out)
		}
	}
	return out
}

// nodeInfo is what the chain search keeps of one node: of a reference,
// whether it is hoisted and the chain position it is counted at; of a
// statement that computes, its leaf; of a loop, the locations it carries and
// those its body reads.
type nodeInfo struct {
	cut            int
	hoisted        bool
	leaf           *leaf
	carried, reads []location
	chainLeaf      *leaf // of a loop: the leaf of the chains it carries
}

// setNode changes the information kept of n.
func (p *plan) setNode(n lang.Node, change func(*nodeInfo)) {
	if p.nodes == nil {
		p.nodes = map[lang.Node]nodeInfo{}
	}
	info := p.nodes[n]
	change(&info)
	p.nodes[n] = info
}

// nodeInfo returns the information kept of n, or an empty one.
func (p *plan) nodeInfo(n lang.Node) nodeInfo { return p.nodes[n] }

// sameLevel reports whether two levels are the same loop or repeat.
func sameLevel(a, b level) bool {
	return a.kind == b.kind && a.loop == b.loop && a.repeat == b.repeat
}

// bodyScan is what a loop body holds that decides whether the loop can
// carry a chain: the locations it assigns, those it reads as values (a
// superset: every var, and every hoisted reference, read outside a
// condition or an index), and those its nested loops carry. It walks the
// body without closures or maps: most loops carry nothing, and a small
// kernel's analysis takes a few dozen microseconds.
type bodyScan struct {
	written, reads, carried []location
}

// block scans the statements of b; it reports false when one is a region
// or a communication statement (the loop then carries no chain).
func (sc *bodyScan) block(fl *chainFlow, b *lang.Block) bool {
	for _, s := range b.Stmts {
		if !sc.stmt(fl, s) {
			return false
		}
	}
	return true
}

// stmt scans one statement.
func (sc *bodyScan) stmt(fl *chainFlow, s lang.Stmt) bool {
	switch s := s.(type) {
	case *lang.Block:
		return sc.block(fl, s)
	case *lang.AssignStmt:
		if l, ok := fl.target(s.Lhs); ok {
			sc.written = addLocation(sc.written, l)
		}
		if _, compound := s.Op.Binary(); compound {
			sc.expr(fl, s.Lhs)
		}
		sc.expr(fl, s.Rhs)
	case *lang.VarDecl:
		sc.expr(fl, s.Init)
	case *lang.IfStmt:
		if !sc.block(fl, s.Then) {
			return false
		}
		if s.Else != nil {
			return sc.stmt(fl, s.Else)
		}
	case *lang.ForStmt:
		sc.carried = append(sc.carried, fl.p.nodeInfo(s).carried...)
		return sc.block(fl, s.Body)
	case *lang.RepeatStmt:
		sc.carried = append(sc.carried, fl.p.nodeInfo(s).carried...)
		return sc.block(fl, s.Body)
	case *lang.RegionStmt, *lang.CommStmt, *lang.WaitStmt:
		return false
	}
	return true
}

// expr adds the locations e reads as values (not inside index brackets).
func (sc *bodyScan) expr(fl *chainFlow, e lang.Expr) {
	info := fl.p.k.Info
	switch e := e.(type) {
	case *lang.Ident:
		if obj := info.Uses[e]; obj != nil && obj.Kind == lang.VarObj {
			sc.reads = addLocation(sc.reads, location{obj: obj})
		}
	case *lang.IndexExpr:
		// Only a hoisted reference can be a location.
		if fl.p.nodeInfo(e).hoisted {
			sc.reads = addLocation(sc.reads, location{obj: info.Uses[e.Name], text: lang.ExprString(e)})
		}
	case *lang.ParenExpr:
		sc.expr(fl, e.X)
	case *lang.UnaryExpr:
		sc.expr(fl, e.X)
	case *lang.BinaryExpr:
		sc.expr(fl, e.X)
		sc.expr(fl, e.Y)
	case *lang.CondExpr:
		sc.expr(fl, e.Cond)
		sc.expr(fl, e.Then)
		sc.expr(fl, e.Else)
	case *lang.CallExpr:
		for _, a := range e.Args {
			sc.expr(fl, a)
		}
	}
}

// addLocation adds l to list once.
func addLocation(list []location, l location) []location {
	if slices.Contains(list, l) {
		return list
	}
	return append(list, l)
}

// sortedLocations sorts locations by name, then by declaration, so that
// the search and the report are deterministic.
func sortedLocations(out []location) []location {
	slices.SortFunc(out, func(a, b location) int {
		if c := cmp.Compare(a.name(), b.name()); c != 0 {
			return c
		}
		return cmp.Compare(a.obj.Ident.Pos(), b.obj.Ident.Pos())
	})
	return out
}

// sortedSteps lists a path's steps in source order.
func sortedSteps(p *chainPath) []chainStep {
	out := slices.Clone(p.steps)
	slices.SortFunc(out, func(a, b chainStep) int {
		if c := cmp.Compare(a.node.Pos(), b.node.Pos()); c != 0 {
			return c
		}
		return cmp.Compare(a.op, b.op)
	})
	return out
}

// target returns the location an assignment writes, if it is one: a var,
// or an array reference hoisted out of the loop.
func (fl *chainFlow) target(lhs lang.Expr) (location, bool) {
	switch e := lang.Unparen(lhs).(type) {
	case *lang.Ident:
		if obj := fl.p.k.Info.Uses[e]; obj != nil && obj.Kind == lang.VarObj {
			return location{obj: obj}, true
		}
	case *lang.IndexExpr:
		if info := fl.p.nodeInfo(e); info.hoisted && info.cut <= fl.depth {
			return location{obj: fl.p.k.Info.Uses[e.Name], text: lang.ExprString(e)}, true
		}
	}
	return location{}, false
}

// block passes the statements of b; w is their probability within the
// loop body (for the paths' lengths).
func (fl *chainFlow) block(b *lang.Block, w float64) {
	for _, s := range b.Stmts {
		fl.stmt(s, w)
	}
}

// stmt passes one statement.
func (fl *chainFlow) stmt(s lang.Stmt, w float64) {
	info := fl.p.k.Info
	switch s := s.(type) {
	case *lang.Block:
		fl.block(s, w)
	case *lang.VarDecl:
		for _, name := range s.Names {
			obj := info.Defs[name]
			if obj == nil {
				continue
			}
			var path *chainPath
			if s.Init != nil {
				path = fl.expr(s.Init, fl.p.nodeInfo(s).leaf, w)
			}
			fl.set(location{obj: obj}, path)
		}
	case *lang.AssignStmt:
		fl.assign(s, w)
	case *lang.IfStmt:
		fl.ifStmt(s, w)
	case *lang.ForStmt:
		fl.nested(s, s.Body)
	case *lang.RepeatStmt:
		fl.nested(s, s.Body)
	}
}

// set gives a location its path (nil: it no longer depends on the carried
// value).
func (fl *chainFlow) set(l location, path *chainPath) {
	for i, e := range fl.state {
		if e.loc != l {
			continue
		}
		if path == nil {
			fl.state = slices.Delete(fl.state, i, i+1)
		} else {
			fl.state[i].path = path
		}
		return
	}
	if path != nil {
		fl.state = append(fl.state, stateEntry{l, path})
	}
}

// assign passes an assignment.
func (fl *chainFlow) assign(s *lang.AssignStmt, w float64) {
	l, ok := fl.target(s.Lhs)
	if !ok {
		return
	}
	lf := fl.p.nodeInfo(s).leaf
	path := fl.expr(s.Rhs, lf, w)
	if op, compound := s.Op.Binary(); compound {
		path = longer(fl.state.get(l), path)
		if path != nil && fl.quiet == 0 && lf != nil {
			path = path.with(chainStep{node: s, leaf: lf, op: binaryOpKind(op), typ: opTypeOf(fl.p.k.Info.Types[s.Lhs]), n: 1}, w)
		}
	}
	fl.set(l, path)
}

// ifStmt passes both branches of an if and joins them.
func (fl *chainFlow) ifStmt(s *lang.IfStmt, w float64) {
	before := fl.state
	if s.Prob == nil || fl.quiet > 0 {
		fl.state = before.clone()
		fl.block(s.Then, w)
		then := fl.state
		fl.state = before.clone()
		if s.Else != nil {
			fl.stmt(s.Else, w)
		}
		fl.state = merge(then, fl.state, false)
		return
	}
	p := fl.p.k.Info.Values[s.Prob].Rat()
	if p == nil {
		p = ratFromFloat(fl.p.k.Info.Values[s.Prob].Float64())
	}
	rest := new(big.Rat).Sub(ratOne(), p)
	pf, _ := p.Float64()
	rf, _ := rest.Float64()
	fl.state = scaleState(before, p, pf)
	fl.block(s.Then, w*pf)
	then := fl.state
	fl.state = scaleState(before, rest, rf)
	if s.Else != nil {
		fl.stmt(s.Else, w*rf)
	}
	fl.state = merge(then, fl.state, true)
}

// scaleState weights every path of s by a data branch's probability.
func scaleState(s chainState, q *big.Rat, qf float64) chainState {
	out := make(chainState, len(s))
	for i, e := range s {
		out[i] = stateEntry{e.loc, e.path.scaled(q, qf)}
	}
	return out
}

// nested passes a nested loop's body until the state no longer changes:
// the loop may run any number of iterations, none included.
func (fl *chainFlow) nested(loop lang.Stmt, body *lang.Block) {
	reads := fl.p.nodeInfo(loop).reads // found when the loop was planned, before this one
	touched := false
	for _, e := range fl.state {
		if slices.Contains(reads, e.loc) {
			touched = true
			break
		}
	}
	if !touched {
		// Nothing it reads depends on the carried value, and what it
		// writes keeps its old path when it runs no iteration: no change.
		return
	}
	fl.quiet++
	defer func() { fl.quiet-- }()
	// Every pass adds a location or a step, or ends the search; the bound
	// is a safety net.
	for range 64 {
		before := fl.state
		fl.state = before.clone()
		fl.block(body, 1)
		after := merge(before, fl.state, false)
		fl.state = after
		if sameState(before, after) {
			return
		}
	}
}

// sameState reports whether two states hold the same paths.
func sameState(a, b chainState) bool {
	if len(a) != len(b) {
		return false
	}
	for _, e := range a {
		if !samePath(e.path, b.get(e.loc)) {
			return false
		}
	}
	return true
}

// expr returns the longest path to the value of e, or nil when e does not
// depend on the carried value; lf is the statement's leaf, whose counted
// operations the path steps through.
func (fl *chainFlow) expr(e lang.Expr, lf *leaf, w float64) *chainPath {
	info := fl.p.k.Info
	switch e := e.(type) {
	case *lang.Ident:
		if obj := info.Uses[e]; obj != nil && obj.Kind == lang.VarObj {
			return fl.state.get(location{obj: obj})
		}
		return nil
	case *lang.ParenExpr:
		return fl.expr(e.X, lf, w)
	case *lang.IndexExpr:
		if l, ok := fl.target(e); ok {
			return fl.state.get(l)
		}
		return nil
	case *lang.UnaryExpr:
		path := fl.expr(e.X, lf, w)
		if e.Op == lang.Neg {
			return fl.step(path, e, lf, OpNeg, opTypeOf(info.Types[e]), 1, w)
		}
		return path
	case *lang.BinaryExpr:
		path := longer(fl.expr(e.X, lf, w), fl.expr(e.Y, lf, w))
		if e.Op == lang.LAnd || e.Op == lang.LOr {
			return path
		}
		typ := opTypeOf(info.Types[e])
		if e.Op.IsComparison() {
			typ = operandType(info.Types[e.X], info.Types[e.Y])
		}
		return fl.step(path, e, lf, binaryOpKind(e.Op), typ, 1, w)
	case *lang.CondExpr:
		return longer(longer(fl.expr(e.Cond, lf, w), fl.expr(e.Then, lf, w)), fl.expr(e.Else, lf, w))
	case *lang.CallExpr:
		var path *chainPath
		for _, a := range e.Args {
			path = longer(path, fl.expr(a, lf, w))
		}
		op, n, ok := callOp(e)
		if !ok {
			return path
		}
		return fl.step(path, e, lf, op, opTypeOf(info.Types[e]), n, w)
	}
	return nil
}

// step extends path by n operations of node e, as the tallier counts them:
// only where the value changes during the run (a path through e means it
// does) and not inside nested loops.
func (fl *chainFlow) step(path *chainPath, e lang.Expr, lf *leaf, op OpKind, typ OpType, n int64, w float64) *chainPath {
	if path == nil || fl.quiet > 0 || lf == nil || n <= 0 || fl.p.k.Info.Deps[e]&(lang.DepIndex|lang.DepData) == 0 {
		return path
	}
	return path.with(chainStep{node: e, leaf: lf, op: op, typ: typ, n: n}, w)
}

// callOp returns the operation a builtin call counts and how many (min and
// max of k arguments count k − 1): the tallier's rule, which chains follow.
func callOp(e *lang.CallExpr) (OpKind, int64, bool) {
	switch e.Fun.Name {
	case "sqrt":
		return OpSqrt, 1, true
	case "exp":
		return OpExp, 1, true
	case "log":
		return OpLog, 1, true
	case "sin":
		return OpSin, 1, true
	case "cos":
		return OpCos, 1, true
	case "abs":
		return OpAbs, 1, true
	case "min":
		return OpMin, int64(len(e.Args) - 1), true
	case "max":
		return OpMax, int64(len(e.Args) - 1), true
	case "f64", "f32", "i64", "i32":
		return OpConv, 1, true
	}
	return 0, 0, false
}

// chainLeaf counts the chains a loop carries: per chain its steps'
// operations over their executions, with the loop's iterations and body.
func (ra *rankAnalysis) chainLeaf(l *leaf, c *Counts) error {
	iters, err := ra.exec(l, l.chain)
	if err != nil || iters.IsZero() {
		return err
	}
	body, err := ra.loopBody(l.body)
	if err != nil {
		return err
	}
	// The loop starts once per execution of the levels around it.
	entries, err := ra.exec(l, l.chain[:len(l.chain)-1])
	if err != nil {
		return err
	}
	loop := ra.place(l.stmt)
	for i, cc := range l.carried {
		ch := Chain{Loop: loop, Var: cc.name, Iterations: iters, Entries: entries, Restarts: cc.restarts, Body: body}
		if i > 0 {
			// Each chain owns its lists, so that demoting a formula of
			// one leaves the others alone.
			ch.Body = body.clone()
		}
		for _, s := range cc.steps {
			n, err := ra.exec(s.leaf, s.leaf.chain)
			if err != nil {
				return err
			}
			n = n.times(s.n)
			if s.factor != nil {
				n = n.scale(s.factor)
			}
			if n.IsZero() {
				continue // a step that never runs here (a guard, prob 0)
			}
			ch.Ops = addOpCount(ch.Ops, OpCount{Op: s.op, Type: s.typ, Pattern: s.leaf.pattern, Count: n})
		}
		if len(ch.Ops) == 0 {
			continue
		}
		c.Chains = insertChain(c.Chains, ch)
	}
	return nil
}

// loopBody sums what the leaves of a loop's body do.
func (ra *rankAnalysis) loopBody(leaves []*leaf) (LoopBody, error) {
	var b LoopBody
	for _, l := range leaves {
		n, err := ra.exec(l, l.chain)
		if err != nil {
			return LoopBody{}, err
		}
		if l.kind == leafIter {
			b.Iterations = b.Iterations.add(n)
			continue
		}
		if l.times > 1 {
			n = n.times(l.times)
		}
		for _, t := range l.ops {
			b.Ops = addOpCount(b.Ops, OpCount{Op: t.op, Type: t.typ, Pattern: l.pattern, Count: n.times(t.n)})
		}
		for _, t := range l.madd {
			b.Madds = addOpCount(b.Madds, OpCount{Op: t.op, Type: t.typ, Pattern: l.pattern, Count: n.times(t.n)})
		}
		for _, r := range l.refs {
			if r.store {
				b.Stores = b.Stores.add(n)
			} else {
				b.Loads = b.Loads.add(n)
			}
		}
	}
	return b, nil
}

// clone copies a loop body's lists, so that demoting a formula of one
// chain's body leaves another's alone.
func (b LoopBody) clone() LoopBody {
	b.Ops = slices.Clone(b.Ops)
	b.Madds = slices.Clone(b.Madds)
	return b
}

// clone copies a chain's lists.
func (ch Chain) clone() Chain {
	ch.Ops = slices.Clone(ch.Ops)
	ch.Body = ch.Body.clone()
	return ch
}

// insertChain adds ch to a list sorted by loop position, then location.
func insertChain(list []Chain, ch Chain) []Chain {
	i, _ := slices.BinarySearchFunc(list, ch, compareChains)
	return slices.Insert(list, i, ch)
}

// compareChains orders chains by their loop's position (line, then column,
// as numbers) and then by location.
func compareChains(a, b Chain) int {
	if c := comparePlaces(a.Loop, b.Loop); c != 0 {
		return c
	}
	return cmp.Compare(a.Var, b.Var)
}

// comparePlaces orders two file:line:col places by file, line and column.
func comparePlaces(a, b string) int {
	fa, la, ca := splitPlace(a)
	fb, lb, cb := splitPlace(b)
	if c := cmp.Compare(fa, fb); c != 0 {
		return c
	}
	if c := cmp.Compare(la, lb); c != 0 {
		return c
	}
	return cmp.Compare(ca, cb)
}

// splitPlace splits file:line:col (a file name may hold colons itself).
func splitPlace(s string) (file string, line, col int) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return s, 0, 0
	}
	col, _ = strconv.Atoi(s[i+1:])
	j := strings.LastIndexByte(s[:i], ':')
	if j < 0 {
		return s[:i], 0, col
	}
	line, _ = strconv.Atoi(s[j+1 : i])
	return s[:j], line, col
}
