package analyze

import (
	"math/big"

	"perfc/lang"
)

// A Cursor expands one rank's schedule one event at a time, as Events
// does, but resumably: an emulator that interleaves thousands of ranks keeps
// one Cursor per rank and asks each for its next event when the rank can
// move on. A goroutine or an iter.Pull per rank would cost a context switch
// per event; a Cursor keeps an explicit stack of (node list, position, loop
// counter) frames instead, so its memory is proportional to the nesting
// depth and a step costs a few comparisons.
//
// Static values that only depend on the rank (peers, payload sizes, loop
// bounds, branch conditions) are evaluated once per cursor; values that
// depend on loop indices are re-evaluated only when one of the indices they
// read has changed, so that a million sweeps do not evaluate a million
// peers with exact arithmetic.
//
// A Cursor holds no pointers into itself, so a caller may keep cursors by
// value in an array of per-rank states (Start initialises one in place),
// and cursors of alike ranks share their compiled tree (StartAlike), which
// keeps an emulator's working set compact.
type Cursor struct {
	// What every step touches comes first, packed: the stack depth, the
	// frames and the caches.
	depth   int
	inner   [cursorInline]cursorFrame // the first frames of the stack
	memoIn  [memoInline]nodeMemo      // the first caches of static values
	prog    *cursorProgram
	fixed   bool
	ev      Event
	env     lang.Env
	ra      *rankAnalysis
	outer   []cursorFrame       // frames beyond cursorInline
	memoOut []nodeMemo          // caches beyond memoInline
	keys    []int64             // the index values the caches of index-dependent nodes were filled for
	vars    map[string]*big.Rat // symbols for segments that depend on loop indices; built lazily
}

// cursorInline is the number of stack frames a Cursor holds inline: the
// root and three nested loops cover most kernels. memoInline is the number
// of nodes whose static values it caches inline.
const (
	cursorInline = 4
	memoInline   = 6
)

// cursorProgram is a schedule tree compiled for cursors: the same for every
// rank that shares the tree.
type cursorProgram struct {
	tree  []*SNode // the schedule tree it was compiled from
	root  []cnode
	memos int // number of cached nodes
	keys  int // number of index values the caches are keyed by
}

// cnode is a schedule node as a cursor walks it: the node with its
// children, the loop index slots its static values read (directly or
// through lets), the number of its cache in the cursor and where the
// index values of that cache start in Cursor.keys.
type cnode struct {
	n     *SNode
	body  []cnode
	els   []cnode
	slots []int
	memo  int            // cache number; -1 for compute segments
	key   int            // offset of its index values in Cursor.keys
	kind  EventKind      // SComm: the kind of its events
	stmt  *lang.CommStmt // SComm: the statement
}

// cursorFrame is one list of nodes being walked, with the loop that owns it.
type cursorFrame struct {
	nodes []cnode
	pos   int32
	slot  int32  // SLoop: the index slot in env
	loop  *SNode // SLoop or SRepeat owning the list; nil for the root and branches
	index int64  // SLoop: the current index; SRepeat: iterations left after this one
	hi    int64  // SLoop: the exclusive upper bound
	step  int64  // SLoop: the step
}

// nodeMemo caches the static values of one node for the cursor's rank. For
// a communication statement it is the event itself, returned as it is (one
// cache line, nothing copied per step). The other nodes keep their numbers
// in the event's integer fields, through the accessors below: a loop its
// bounds and step, a repeat its count, an if whether its condition holds.
// valid says whether the cache is filled.
type nodeMemo struct {
	ev    Event
	valid bool
}

// setInts and ints store and read the numbers of a loop, repeat or if.
func (m *nodeMemo) setInts(a, b, c int64) { m.ev.Peer, m.ev.From, m.ev.Bytes = a, b, c }
func (m *nodeMemo) ints() (a, b, c int64) { return m.ev.Peer, m.ev.From, m.ev.Bytes }

// Cursor returns a cursor at the start of the schedule.
func (s *Schedule) Cursor() *Cursor {
	c := new(Cursor)
	c.Start(s)
	return c
}

// Start sets c to the start of schedule s, as Cursor does, in place.
func (c *Cursor) Start(s *Schedule) { c.StartAlike(s, nil) }

// StartAlike is Start for a rank whose schedule may share its tree with the
// schedule of alike's rank (see Schedule.Alike): the compiled tree is then
// shared rather than built again. alike may be nil.
func (c *Cursor) StartAlike(s *Schedule, alike *Cursor) {
	*c = Cursor{
		ra:  s.ra,
		env: lang.Env{Rank: s.Rank, Index: make([]int64, s.ra.k.Info.NumSlots)},
	}
	if alike != nil && sameTree(alike.prog.tree, s.Root) {
		c.prog = alike.prog
	} else {
		c.prog = &cursorProgram{tree: s.Root}
		c.prog.root = c.prog.compile(s.ra, s.Root)
	}
	if n := c.prog.memos - memoInline; n > 0 {
		c.memoOut = make([]nodeMemo, n)
	}
	if c.prog.keys > 0 {
		c.keys = make([]int64, c.prog.keys)
	}
	c.Reset()
}

// sameTree reports whether two schedule trees are the same object.
func sameTree(a, b []*SNode) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// compile copies a list of schedule nodes into cursor nodes, numbering the
// caches of the nodes that have static values.
func (p *cursorProgram) compile(ra *rankAnalysis, ns []*SNode) []cnode {
	out := make([]cnode, len(ns))
	for i, n := range ns {
		out[i] = cnode{n: n, body: p.compile(ra, n.Body), els: p.compile(ra, n.Else), memo: -1}
		if n.Kind != SCompute {
			out[i].slots = indexSlots(ra.k, n)
			out[i].memo = p.memos
			out[i].key = p.keys
			p.memos++
			p.keys += len(out[i].slots)
		}
		if n.Kind == SComm {
			out[i].stmt = n.Stmt.(*lang.CommStmt)
			out[i].kind = commEventKind(out[i].stmt.Kind)
		}
	}
	return out
}

// commEventKind is the kind of the events of a communication statement.
func commEventKind(k lang.CommKind) EventKind {
	switch k {
	case lang.Send:
		return EvSend
	case lang.Recv:
		return EvRecv
	case lang.SendRecv, lang.Exchange:
		return EvSendRecv
	case lang.Barrier:
		return EvBarrier
	}
	return EvCollective
}

// Reset moves the cursor back to the start of the schedule, keeping the
// values it has cached.
func (c *Cursor) Reset() {
	c.depth = 0
	c.push(cursorFrame{nodes: c.prog.root})
}

// push adds a frame to the stack.
func (c *Cursor) push(f cursorFrame) {
	if c.depth < cursorInline {
		c.inner[c.depth] = f
	} else {
		c.outer = append(c.outer[:c.depth-cursorInline], f)
	}
	c.depth++
}

// frame returns stack frame i (0 is the root).
func (c *Cursor) frame(i int) *cursorFrame {
	if i < cursorInline {
		return &c.inner[i]
	}
	return &c.outer[i-cursorInline]
}

// Rank returns the rank whose schedule the cursor walks.
func (c *Cursor) Rank() int64 { return c.env.Rank }

// Fixed reports whether the Work of the last compute event is the same
// object on every execution of its segment (its counts do not depend on a
// loop index), so that a caller may cache what it derives from it, keyed by
// the pointer.
func (c *Cursor) Fixed() bool { return c.fixed }

// Next returns the next event, or nil at the end of the schedule. The event
// is valid until the next call; the caller must not keep the pointer.
func (c *Cursor) Next() (*Event, error) {
	for c.depth > 0 {
		f := c.frame(c.depth - 1)
		if int(f.pos) == len(f.nodes) {
			if !c.advanceLoop(f) {
				c.depth--
			}
			continue
		}
		n := &f.nodes[f.pos]
		f.pos++
		switch n.n.Kind {
		case SCompute:
			return c.compute(n)
		case SComm:
			return c.comm(n)
		case SIf:
			if err := c.enterIf(n); err != nil {
				return nil, err
			}
		case SRepeat:
			if err := c.enterRepeat(n); err != nil {
				return nil, err
			}
		case SLoop:
			if err := c.enterLoop(n); err != nil {
				return nil, err
			}
		}
	}
	return nil, nil
}

// advanceLoop starts the next iteration of the loop owning f, reporting
// false when the loop is done (or f belongs to no loop).
func (c *Cursor) advanceLoop(f *cursorFrame) bool {
	if f.loop == nil {
		return false
	}
	if f.loop.Kind == SRepeat {
		if f.index == 0 {
			return false
		}
		f.index--
		f.pos = 0
		return true
	}
	next := f.index + f.step
	if next >= f.hi {
		return false
	}
	f.index = next
	c.env.Index[f.slot] = next
	f.pos = 0
	return true
}

// compute returns the event of a compute segment.
func (c *Cursor) compute(cn *cnode) (*Event, error) {
	w := cn.n.Seg.fixed
	c.fixed = w != nil
	if w == nil {
		var err error
		if w, err = cn.n.Seg.work(c.ra, &c.env, c.loopVars()); err != nil {
			return nil, err
		}
	}
	c.ev = Event{Kind: EvCompute, Work: w}
	return &c.ev, nil
}

// loopVars returns the rank's symbols with the indices of the enclosing
// loops bound, as the segment evaluation expects them.
func (c *Cursor) loopVars() map[string]*big.Rat {
	if c.vars == nil {
		c.vars = c.ra.cloneEnv()
	}
	info := c.ra.k.Info
	for i := range c.depth {
		f := c.frame(i)
		if f.loop != nil && f.loop.Kind == SLoop {
			obj := info.Defs[f.loop.Stmt.(*lang.ForStmt).Var]
			c.vars[obj.Name] = new(big.Rat).SetInt64(f.index)
		}
	}
	return c.vars
}

// comm returns the event of a communication statement.
func (c *Cursor) comm(cn *cnode) (*Event, error) {
	m, fresh := c.memoFor(cn)
	if !fresh {
		x := expander{ra: c.ra, env: &c.env}
		var ev *Event
		x.yield = func(e *Event) bool { ev = e; return true }
		if _, err := x.comm(cn.stmt); err != nil {
			return nil, err
		}
		if err := c.checkPeers(ev); err != nil {
			return nil, err
		}
		m.ev = Event{Kind: cn.kind, Stmt: cn.stmt, Peer: ev.Peer, From: ev.From, Bytes: ev.Bytes, RecvBytes: ev.RecvBytes}
		m.valid = true
	}
	return &m.ev, nil
}

// checkPeers rejects a peer or root that is neither none nor a rank.
func (c *Cursor) checkPeers(ev *Event) error {
	s := ev.Stmt
	if ev.Kind == EvBarrier || (ev.Kind == EvCollective && s.Peer == nil) {
		return nil
	}
	if err := c.ra.checkPeer(s.Peer, ev.Peer); err != nil {
		return err
	}
	if ev.Kind == EvSendRecv && s.From != nil {
		return c.ra.checkPeer(s.From, ev.From)
	}
	return nil
}

// enterIf pushes the branch a static if takes.
func (c *Cursor) enterIf(cn *cnode) error {
	m, fresh := c.memoFor(cn)
	if !fresh {
		v, err := c.ra.k.Eval(cn.n.Stmt.(*lang.IfStmt).Cond, &c.env)
		if err != nil {
			return err
		}
		holds := int64(0)
		if v.Bool() {
			holds = 1
		}
		m.setInts(holds, 0, 0)
		m.valid = true
	}
	body := cn.els
	if holds, _, _ := m.ints(); holds == 1 {
		body = cn.body
	}
	if len(body) > 0 {
		c.push(cursorFrame{nodes: body})
	}
	return nil
}

// enterRepeat pushes the body of a repeat when its count is positive.
func (c *Cursor) enterRepeat(cn *cnode) error {
	m, fresh := c.memoFor(cn)
	if !fresh {
		count, err := c.ra.k.EvalInt(cn.n.Stmt.(*lang.RepeatStmt).Count, &c.env)
		if err != nil {
			return err
		}
		m.setInts(count, 0, 0)
		m.valid = true
	}
	if count, _, _ := m.ints(); count > 0 && len(cn.body) > 0 {
		c.push(cursorFrame{nodes: cn.body, loop: cn.n, index: count - 1})
	}
	return nil
}

// enterLoop pushes the body of a for loop when it runs at least once.
func (c *Cursor) enterLoop(cn *cnode) error {
	loop := cn.n.Stmt.(*lang.ForStmt)
	m, fresh := c.memoFor(cn)
	if !fresh {
		k := c.ra.k
		lo, err := k.EvalInt(loop.Lo, &c.env)
		if err != nil {
			return err
		}
		hi, err := k.EvalInt(loop.Hi, &c.env)
		if err != nil {
			return err
		}
		step := int64(1)
		if loop.Step != nil {
			if step, err = k.EvalInt(loop.Step, &c.env); err != nil {
				return err
			}
		}
		if step < 1 {
			return c.ra.errorf(loop.Step, "loop step %d is not positive; write a step of at least 1", step)
		}
		m.setInts(lo, hi, step)
		m.valid = true
	}
	lo, hi, step := m.ints()
	if lo >= hi || len(cn.body) == 0 {
		return nil
	}
	slot := c.ra.k.Info.Defs[loop.Var].Slot
	c.env.Index[slot] = lo
	c.push(cursorFrame{nodes: cn.body, loop: cn.n, slot: int32(slot), index: lo, hi: hi, step: step})
	return nil
}

// memoFor returns the cache of node cn and whether it holds the values for
// the current loop indices. When it does not, the key is already set to the
// current indices: the caller fills the values and sets valid.
func (c *Cursor) memoFor(cn *cnode) (*nodeMemo, bool) {
	var m *nodeMemo
	if cn.memo < memoInline {
		m = &c.memoIn[cn.memo]
	} else {
		m = &c.memoOut[cn.memo-memoInline]
	}
	if len(cn.slots) == 0 {
		return m, m.valid
	}
	key := c.keys[cn.key : cn.key+len(cn.slots)]
	fresh := m.valid
	for i, s := range cn.slots {
		if v := c.env.Index[s]; v != key[i] {
			key[i] = v
			fresh = false
		}
	}
	m.valid = fresh
	return m, fresh
}

// indexSlots lists the loop index slots the static values of node n read,
// directly or through lets.
func indexSlots(k *lang.Checked, n *SNode) []int {
	var exprs []lang.Expr
	switch s := n.Stmt.(type) {
	case *lang.CommStmt:
		exprs = append(exprs, s.Peer, s.From)
		for _, pl := range []*lang.Payload{s.Payload, s.Into} {
			if pl != nil {
				exprs = append(exprs, pl.Bytes, pl.Lo, pl.Hi)
			}
		}
	case *lang.IfStmt:
		exprs = append(exprs, s.Cond)
	case *lang.RepeatStmt:
		exprs = append(exprs, s.Count)
	case *lang.ForStmt:
		exprs = append(exprs, s.Lo, s.Hi, s.Step)
	}
	seen := map[*lang.Object]bool{}
	var slots []int
	var visit func(e lang.Expr)
	visit = func(e lang.Expr) {
		if e == nil || k.Info.Deps[e]&lang.DepIndex == 0 {
			return
		}
		lang.Inspect(e, func(x lang.Node) bool {
			id, ok := x.(*lang.Ident)
			if !ok {
				return true
			}
			obj := k.Info.Uses[id]
			if obj == nil || seen[obj] {
				return true
			}
			seen[obj] = true
			switch {
			case obj.Kind == lang.IndexObj:
				slots = append(slots, obj.Slot)
			case obj.Kind == lang.LetObj && obj.Dep&lang.DepIndex != 0:
				visit(obj.Expr)
			}
			return true
		})
	}
	for _, e := range exprs {
		visit(e)
	}
	return slots
}

// Alike returns rank r's schedule sharing s's tree when r makes the same
// rank-dependent decisions as s's rank, or nil when it does not. Unlike
// ForRank it never builds a schedule, so a caller holding one schedule per
// class of alike ranks can find the class of a rank cheaply.
func (s *Schedule) Alike(r int64) *Schedule {
	if r == s.Rank {
		return s
	}
	if s.ra.enumerated {
		return nil
	}
	if other := s.ra.sameDecisions(r); other != nil {
		return &Schedule{Rank: r, Root: s.Root, ra: other}
	}
	return nil
}
