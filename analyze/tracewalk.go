package analyze

import (
	"fmt"
	"math"

	"perfc/analyze/cache"
	"perfc/lang"
)

// This file walks a kernel concretely for one rank, as an interpreter would,
// and generates the address of every load and store: the trace that the
// exact simulator replays (simulate.go, `perfc count --simulate`), that the
// conflict check maps onto cache sets (conflict.go), and against which the
// analytic cache model is tested. It shares nothing with the model but the
// plan (which references a statement makes and which are hoisted);
// addresses come from the index expressions themselves.
//
// Layout (traceLayout): arrays one after another in declaration order, each
// starting on a multiple of the alignment, row-major, element sizes from
// their types. Order of accesses in a statement: the plan's (right-hand side
// loads left to right, then the compound assignment's load, then the
// store). A reference hoisted out of a loop is accessed once per entry of
// that loop: its loads before the first iteration, its stores after the
// last. Communication moves no array data in the trace (the model ignores it
// too). A data if with prob p takes its branch on its t-th evaluation
// (counting from 0 over the whole run) when floor((t+1)·p) > floor(t·p):
// evenly spread, and exactly a fraction p of every run of evaluations whose
// length makes t·p whole.

// accessSink receives the trace: a cache.Simulator, or the set-mapping
// check's line collector.
type accessSink interface {
	Access(addr uint64, size int, write bool)
}

// tracedRef is one reference compiled for the trace.
type tracedRef struct {
	array *lang.Object
	base  uint64                  // the array's first byte
	index []func(*lang.Env) int64 // one per dimension
	dims  []int64                 // the dimensions as laid out (padded ones included)
	size  int
	store bool
}

// address returns the byte address of the reference at env.
func (r *tracedRef) address(env *lang.Env) uint64 {
	off := int64(0)
	for d, ix := range r.index {
		off = off*r.dims[d] + ix(env)
	}
	return r.base + uint64(off*int64(r.size))
}

// traceLayout places the arrays: every array starts at a multiple of align
// bytes (a power of two), one after another in declaration order, the first
// at align itself. pad, when not nil, adds elements to an array's last
// dimension (its leading dimension), as the conflict check's suggested
// padding does.
type traceLayout struct {
	align uint64
	pad   map[*lang.Object]int64
}

// dims returns a's dimensions as laid out.
func (l traceLayout) dims(a *lang.Object) []int64 {
	out := append([]int64(nil), a.Dims...)
	if p := l.pad[a]; p != 0 && len(out) > 0 {
		out[len(out)-1] += p
	}
	return out
}

// bases returns the first byte of every array.
func (l traceLayout) bases(arrays []*lang.Object) map[*lang.Object]uint64 {
	out := map[*lang.Object]uint64{}
	next := l.align
	for _, a := range arrays {
		out[a] = next
		n := uint64(a.Elem.Size())
		for _, d := range l.dims(a) {
			n *= uint64(d)
		}
		next += (n + l.align - 1) / l.align * l.align
	}
	return out
}

// traceWalk is one concrete run of one rank.
type traceWalk struct {
	k        *lang.Checked
	sink     accessSink
	env      *lang.Env
	stmtRefs map[lang.Stmt][]*tracedRef
	hoistIn  map[*lang.ForStmt][]*tracedRef
	hoistOut map[*lang.ForStmt][]*tracedRef
	ifTimes  map[*lang.IfStmt]int64
	// limit bounds the accesses (0: none); limitErr is the error past it.
	limit    int64
	limitErr func(limit int64) error
	accesses int64
	// onRegion, when set, is called when the walk enters and leaves a
	// region, with the region now current ("" outside every region).
	onRegion func(name string)
	// focus, when set, restricts the walk to one iteration of the focus
	// loop (conflict.go): loops that enclose it run their middle iteration
	// only, statements that neither enclose it nor lie inside it are
	// skipped, and everything inside its body runs in full.
	// focusNext is 0 for the focus loop's middle iteration, 1 for the one
	// after it.
	focus     *lang.ForStmt
	focusNext int64
	onPath    map[lang.Stmt]bool
	inFocus   bool
	region    string
	err       error
}

// newTraceWalk compiles the references of k's plan for rank with layout l,
// feeding sink.
func newTraceWalk(k *lang.Checked, p *plan, l traceLayout, rank int64, sink accessSink) (*traceWalk, error) {
	t := &traceWalk{
		k:        k,
		sink:     sink,
		env:      &lang.Env{Rank: rank, Index: make([]int64, k.Info.NumSlots)},
		stmtRefs: map[lang.Stmt][]*tracedRef{},
		hoistIn:  map[*lang.ForStmt][]*tracedRef{},
		hoistOut: map[*lang.ForStmt][]*tracedRef{},
		ifTimes:  map[*lang.IfStmt]int64{},
	}
	bases := l.bases(k.Info.Arrays)
	for _, lf := range p.leaves {
		for _, r := range lf.refs {
			tr, err := t.compileRef(r, bases[r.array], l.dims(r.array))
			if err != nil {
				return nil, err
			}
			if lf.kind != leafHoist {
				t.stmtRefs[lf.stmt] = append(t.stmtRefs[lf.stmt], tr)
				continue
			}
			loop := r.stmtChain[len(r.chain)].loop
			if tr.store {
				t.hoistOut[loop] = append(t.hoistOut[loop], tr)
			} else {
				t.hoistIn[loop] = append(t.hoistIn[loop], tr)
			}
		}
	}
	return t, nil
}

// run walks the kernel body.
func (t *traceWalk) run() error {
	t.block(t.k.Kernel.Body)
	return t.err
}

// compileRef compiles one reference's index expressions.
func (t *traceWalk) compileRef(r *refInfo, base uint64, dims []int64) (*tracedRef, error) {
	tr := &tracedRef{array: r.array, base: base, dims: dims, size: r.array.Elem.Size(), store: r.store}
	if len(r.ref.Index) != len(r.array.Dims) {
		return nil, fmt.Errorf("%s: %d indices for %d dimensions", lang.ExprString(r.ref), len(r.ref.Index), len(r.array.Dims))
	}
	for _, ix := range r.ref.Index {
		f, err := t.compileInt(ix)
		if err != nil {
			return nil, err
		}
		tr.index = append(tr.index, f)
	}
	return tr, nil
}

// compileInt turns a static integer expression into a closure over the loop
// indices: sums, differences and products of indices and constants are
// computed with int64; anything else is evaluated by the checker's
// evaluator at every use.
func (t *traceWalk) compileInt(e lang.Expr) (func(*lang.Env) int64, error) {
	info := t.k.Info
	if info.Deps[e]&lang.DepIndex == 0 {
		v, err := t.k.EvalInt(e, &lang.Env{Rank: t.env.Rank})
		if err != nil {
			return nil, err
		}
		return func(*lang.Env) int64 { return v }, nil
	}
	switch e := e.(type) {
	case *lang.ParenExpr:
		return t.compileInt(e.X)
	case *lang.Ident:
		obj := info.ObjectOf(e)
		if obj != nil && obj.Kind == lang.IndexObj {
			slot := obj.Slot
			return func(env *lang.Env) int64 { return env.Index[slot] }, nil
		}
		if obj != nil && obj.Kind == lang.LetObj && obj.Expr != nil {
			return t.compileInt(obj.Expr)
		}
	case *lang.UnaryExpr:
		if e.Op == lang.Neg {
			x, err := t.compileInt(e.X)
			if err != nil {
				return nil, err
			}
			return func(env *lang.Env) int64 { return -x(env) }, nil
		}
	case *lang.BinaryExpr:
		if e.Op == lang.Add || e.Op == lang.Sub || e.Op == lang.Mul {
			return t.compileArith(e)
		}
	}
	return func(env *lang.Env) int64 {
		v, err := t.k.EvalInt(e, env)
		if err != nil {
			t.fail(err)
		}
		return v
	}, nil
}

// compileArith compiles a sum, difference or product of two integers.
func (t *traceWalk) compileArith(e *lang.BinaryExpr) (func(*lang.Env) int64, error) {
	x, err := t.compileInt(e.X)
	if err != nil {
		return nil, err
	}
	y, err := t.compileInt(e.Y)
	if err != nil {
		return nil, err
	}
	switch e.Op {
	case lang.Add:
		return func(env *lang.Env) int64 { return x(env) + y(env) }, nil
	case lang.Sub:
		return func(env *lang.Env) int64 { return x(env) - y(env) }, nil
	}
	return func(env *lang.Env) int64 { return x(env) * y(env) }, nil
}

// access replays references in order.
func (t *traceWalk) access(refs []*tracedRef) {
	for _, r := range refs {
		t.accesses++
		if t.limit > 0 && t.accesses > t.limit {
			t.fail(t.limitErr(t.limit))
			return
		}
		t.sink.Access(r.address(t.env), r.size, r.store)
	}
}

// block runs every statement of b.
func (t *traceWalk) block(b *lang.Block) {
	for _, s := range b.Stmts {
		if t.err != nil {
			return
		}
		if t.focus != nil && !t.inFocus && !t.onPath[s] {
			continue
		}
		t.stmt(s)
	}
}

// stmt runs one statement.
func (t *traceWalk) stmt(s lang.Stmt) {
	switch s := s.(type) {
	case *lang.Block:
		t.block(s)
	case *lang.AssignStmt, *lang.VarDecl:
		t.access(t.stmtRefs[s])
	case *lang.ForStmt:
		t.loop(s)
	case *lang.RepeatStmt:
		n := t.evalInt(s.Count)
		if t.focus != nil && !t.inFocus {
			n = min(n, 1) // a repeat around the focus loop: one repetition
		}
		for range max(n, 0) {
			t.block(s.Body)
		}
	case *lang.IfStmt:
		if t.taken(s) {
			t.block(s.Then)
		} else if s.Else != nil {
			t.stmt(s.Else)
		}
	case *lang.RegionStmt:
		outer := t.region
		t.enterRegion(s.Name)
		t.block(s.Body)
		t.enterRegion(outer)
	case *lang.CommStmt:
		// The transfer touches no modelled memory; the pack and unpack
		// loops of a payload that is not contiguous do (lang.CommPack).
		if cp := t.k.Info.CommPacks[s]; cp != nil {
			for _, st := range cp.Before {
				t.stmt(st)
			}
			for _, st := range cp.After {
				t.stmt(st)
			}
		}
	}
}

// enterRegion makes name the current region.
func (t *traceWalk) enterRegion(name string) {
	t.region = name
	if t.onRegion != nil {
		t.onRegion(name)
	}
}

// loop runs a for loop, with the references hoisted out of it around it.
// Under a focus, a loop on the path to the focus loop (and the focus loop
// itself) runs its middle iteration only.
func (t *traceWalk) loop(s *lang.ForStmt) {
	lo, hi := t.evalInt(s.Lo), t.evalInt(s.Hi)
	step := int64(1)
	if s.Step != nil {
		step = t.evalInt(s.Step)
	}
	if step < 1 {
		t.fail(fmt.Errorf("loop step %d", step))
		return
	}
	slot := t.k.Info.Defs[s.Var].Slot
	if t.focus != nil && !t.inFocus {
		if lo >= hi {
			return
		}
		x := lo + (hi-lo-1)/step/2*step
		if s == t.focus {
			x += t.focusNext * step
		}
		if x >= hi {
			return
		}
		t.env.Index[slot] = x
		t.inFocus = s == t.focus
		t.block(s.Body)
		t.inFocus = false
		return
	}
	t.access(t.hoistIn[s])
	for x := lo; x < hi && t.err == nil; x += step {
		t.env.Index[slot] = x
		t.block(s.Body)
	}
	t.access(t.hoistOut[s])
}

// taken decides an if: a static condition by evaluating it, a data
// condition by evaluating its references and then the even pattern of its
// probability (see the file comment).
func (t *traceWalk) taken(s *lang.IfStmt) bool {
	if s.Prob == nil {
		v, err := t.k.Eval(s.Cond, t.env)
		if err != nil {
			t.fail(err)
			return false
		}
		return v.Bool()
	}
	t.access(t.stmtRefs[s])
	p := t.k.Info.Values[s.Prob].Float64()
	n := t.ifTimes[s]
	t.ifTimes[s] = n + 1
	return math.Floor(float64(n+1)*p) > math.Floor(float64(n)*p)
}

// evalInt evaluates a static integer at the current iteration.
func (t *traceWalk) evalInt(e lang.Expr) int64 {
	v, err := t.k.EvalInt(e, t.env)
	if err != nil {
		t.fail(err)
	}
	return v
}

// fail keeps the first error.
func (t *traceWalk) fail(err error) {
	if t.err == nil {
		t.err = err
	}
}

// Compile-time check that the simulator is a sink.
var _ accessSink = (*cache.Simulator)(nil)
