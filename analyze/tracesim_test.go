package analyze

import (
	"fmt"
	"math"

	"perfc/analyze/cache"
	"perfc/lang"
)

// This file is the trace-driven check of the analytic cache model: it runs
// a kernel concretely for one rank, as an interpreter would, generates the
// address of every load and store and feeds them to the exact LRU simulator
// of package cache. It shares nothing with the model but the plan (which
// references a statement makes and which are hoisted); addresses come from
// the index expressions themselves.
//
// Layout: arrays one after another in declaration order, each aligned to
// 4 KiB, row-major, element sizes from their types. Order of accesses in a
// statement: the plan's (right-hand side loads left to right, then the
// compound assignment's load, then the store). A reference hoisted out of a
// loop is accessed once per entry of that loop: its loads before the first
// iteration, its stores after the last. Communication moves no array data in
// the trace (the model ignores it too). A data if with prob p takes its
// branch on its t-th evaluation (counting from 0 over the whole run) when
// floor((t+1)·p) > floor(t·p): evenly spread, and exactly a fraction p of
// every run of evaluations whose length makes t·p whole.

// traceArrayAlign is the alignment of every array in the trace's layout.
const traceArrayAlign = 4096

// traceLimit bounds the accesses one trace may make, so that a test with a
// size too large fails instead of running for minutes.
const traceLimit = 20_000_000

// tracedRef is one reference compiled for the trace.
type tracedRef struct {
	base  uint64                  // the array's first byte
	index []func(*lang.Env) int64 // one per dimension
	dims  []int64
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

// traceResult is what a trace measured: per region (named as reports name
// them), per level, the simulator's counts; the final flush is kept apart
// under traceFlush.
type traceResult struct {
	regions  map[string][]cache.LevelCounts
	accesses int64
}

// traceFlush is the bucket of the write-backs of the final flush.
const traceFlush = "(final flush)"

// traceSim is one concrete run of one rank.
type traceSim struct {
	k        *lang.Checked
	sim      *cache.Simulator
	env      *lang.Env
	stmtRefs map[lang.Stmt][]*tracedRef
	hoistIn  map[*lang.ForStmt][]*tracedRef
	hoistOut map[*lang.ForStmt][]*tracedRef
	ifTimes  map[*lang.IfStmt]int64
	region   string
	last     []cache.LevelCounts
	res      traceResult
	err      error
}

// traceKernel runs rank `rank` of k through a simulator of h.
func traceKernel(k *lang.Checked, h cache.Hierarchy, rank int64) (traceResult, error) {
	t := &traceSim{
		k:        k,
		sim:      cache.NewSimulator(h),
		env:      &lang.Env{Rank: rank, Index: make([]int64, k.Info.NumSlots)},
		stmtRefs: map[lang.Stmt][]*tracedRef{},
		hoistIn:  map[*lang.ForStmt][]*tracedRef{},
		hoistOut: map[*lang.ForStmt][]*tracedRef{},
		ifTimes:  map[*lang.IfStmt]int64{},
		res:      traceResult{regions: map[string][]cache.LevelCounts{}},
	}
	t.last = t.sim.Counts()
	if err := t.compile(newPlan(k)); err != nil {
		return traceResult{}, err
	}
	t.block(k.Kernel.Body)
	if t.err != nil {
		return traceResult{}, t.err
	}
	t.switchRegion(traceFlush)
	t.sim.Flush()
	t.switchRegion("")
	return t.res, nil
}

// compile lays the arrays out and compiles every reference of the plan.
func (t *traceSim) compile(p *plan) error {
	bases := map[*lang.Object]uint64{}
	next := uint64(traceArrayAlign)
	for _, a := range t.k.Info.Arrays {
		bases[a] = next
		n := uint64(a.Elem.Size())
		for _, d := range a.Dims {
			n *= uint64(d)
		}
		next += (n + traceArrayAlign - 1) / traceArrayAlign * traceArrayAlign
	}
	for _, l := range p.leaves {
		for _, r := range l.refs {
			tr, err := t.compileRef(r, bases[r.array])
			if err != nil {
				return err
			}
			if l.kind != leafHoist {
				t.stmtRefs[l.stmt] = append(t.stmtRefs[l.stmt], tr)
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
	return nil
}

// compileRef compiles one reference's index expressions.
func (t *traceSim) compileRef(r *refInfo, base uint64) (*tracedRef, error) {
	tr := &tracedRef{base: base, dims: r.array.Dims, size: r.array.Elem.Size(), store: r.store}
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
func (t *traceSim) compileInt(e lang.Expr) (func(*lang.Env) int64, error) {
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
	}
	return func(env *lang.Env) int64 {
		v, err := t.k.EvalInt(e, env)
		if err != nil && t.err == nil {
			t.err = err
		}
		return v
	}, nil
}

// access replays references in order.
func (t *traceSim) access(refs []*tracedRef) {
	for _, r := range refs {
		t.res.accesses++
		if t.res.accesses > traceLimit && t.err == nil {
			t.err = fmt.Errorf("trace longer than %d accesses; use smaller sizes", traceLimit)
		}
		t.sim.Access(r.address(t.env), r.size, r.store)
	}
}

// block runs every statement of b.
func (t *traceSim) block(b *lang.Block) {
	for _, s := range b.Stmts {
		if t.err != nil {
			return
		}
		t.stmt(s)
	}
}

// stmt runs one statement.
func (t *traceSim) stmt(s lang.Stmt) {
	switch s := s.(type) {
	case *lang.Block:
		t.block(s)
	case *lang.AssignStmt, *lang.VarDecl:
		t.access(t.stmtRefs[s])
	case *lang.ForStmt:
		t.loop(s)
	case *lang.RepeatStmt:
		n := t.evalInt(s.Count)
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
		t.switchRegion(s.Name)
		t.block(s.Body)
		t.switchRegion(outer)
	}
}

// loop runs a for loop, with the references hoisted out of it around it.
func (t *traceSim) loop(s *lang.ForStmt) {
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
func (t *traceSim) taken(s *lang.IfStmt) bool {
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
func (t *traceSim) evalInt(e lang.Expr) int64 {
	v, err := t.k.EvalInt(e, t.env)
	if err != nil {
		t.fail(err)
	}
	return v
}

// fail keeps the first error.
func (t *traceSim) fail(err error) {
	if t.err == nil {
		t.err = err
	}
}

// switchRegion charges the counts since the last switch to the current
// region and makes name current.
func (t *traceSim) switchRegion(name string) {
	now := t.sim.Counts()
	key := regionName(t.region)
	if t.region == traceFlush {
		key = traceFlush
	}
	acc := t.res.regions[key]
	if acc == nil {
		acc = make([]cache.LevelCounts, len(now))
	}
	for i := range now {
		acc[i].Name = now[i].Name
		acc[i].Accesses += now[i].Accesses - t.last[i].Accesses
		acc[i].Hits += now[i].Hits - t.last[i].Hits
		acc[i].Misses += now[i].Misses - t.last[i].Misses
		acc[i].WriteBacks += now[i].WriteBacks - t.last[i].WriteBacks
	}
	t.res.regions[key] = acc
	t.last = now
	t.region = name
}
