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
//
// An emulator of thousands of ranks is bound by the cache lines each step
// brings back, so the state a step touches is packed: the innermost frame,
// the stack depth and the validity of the first caches fill one 64-byte
// line (cursorTop), and a cached node keeps two numbers (16 bytes; four
// for a loop or a sendrecv), not a whole event; the rest of the stack and
// the caches beyond memoInline are only touched when a loop is entered or
// left.
type Cursor struct {
	cursorTop                  // what every step touches, in one line
	memoIn    [memoInline]memo // the first cache slots of static values
	prog      *cursorProgram
	env       lang.Env
	ra        *rankAnalysis
	outerIn   [outerInline]cursorFrame // the first frames below the innermost one, root first
	outer     []cursorFrame            // the frames below those
	memoOut   []memo                   // cache slots beyond memoInline
	validOut  []bool                   // whether the node whose first slot is each of memoOut holds its values
	keys      []int64                  // the index values the caches of index-dependent nodes were filled for
	vars      map[string]*big.Rat      // symbols for segments that depend on loop indices; built lazily
	ev        Event                    // the event Next returns
	reqs      *cursorRequests          // the rank's requests; nil when the kernel has none (requests_cursor.go)
}

// cursorTop is the innermost frame with the stack depth (0: the schedule is
// done), whether the last compute segment was fixed, and one bit per inline
// cache slot saying whether the node whose first slot it is holds its
// values: 40 bytes, so that with the first cache slots it fills one line
// when the cursor starts one.
type cursorTop struct {
	cursorFrame
	depth int32
	fixed bool
	valid uint8 // bit i: the node whose first slot is memoIn[i] holds its values
}

// memoInline is the number of cache slots a Cursor holds inline (one bit
// each in cursorTop.valid; a power of two, so that the
// fast path of Step needs no bounds check); outerInline is the number of
// frames below the innermost one it holds inline: the root and two
// nested loops around the innermost cover most kernels without an
// allocation per rank.
const (
	memoInline  = 8
	outerInline = 3
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
	memo  int       // its first cache slot; -1 for compute segments
	key   int       // offset of its index values in Cursor.keys
	slot  int32     // SLoop: the slot of its index in the environment
	nk    SNodeKind // n.Kind, kept here to spare a step a pointer
	kind  EventKind // SComm: the kind of its events
	// bit is 1<<memo for a node whose cache is inline and reads no loop
	// index (0 otherwise): the cache is then good once its bit in
	// cursorTop.valid is set, which is the fast path of Step.
	bit  uint8
	stmt *lang.CommStmt // SComm: the statement
}

// cursorFrame is one list of nodes being walked, with the loop that owns it.
// The list is held through the slice it is in (the program's root or a
// node's body or else branch), and a for loop's bound and step are read
// from its cache (which cannot change while the loop runs), to keep the
// frame small.
type cursorFrame struct {
	list  *[]cnode
	loop  *cnode // SLoop or SRepeat owning the list; nil for the root and branches
	index int64  // SLoop: the current index; SRepeat: iterations left after this one
	pos   int32
}

// memo is a cache slot: a node caches its static values for the cursor's
// rank in one slot, or two (memoWidth): a loop its bounds, then its step; a
// repeat its count; an if whether its condition holds (1 or 0); a
// communication statement its peer and source (two int32 halves of the
// first number, since both are ranks) and its bytes sent, and a sendrecv
// its bytes received in a second slot.
type memo [2]int64

// memoWidth is the number of cache slots node n takes.
func memoWidth(n *SNode, kind EventKind) int {
	if n.Kind == SLoop || (n.Kind == SComm && kind == EvSendRecv) {
		return 2
	}
	return 1
}

// packPeers and peers store and read a communication node's peer and
// source in one number.
func packPeers(peer, from int64) int64 {
	return int64(uint64(uint32(int32(from)))<<32 | uint64(uint32(int32(peer))))
}
func (m *memo) peers() (peer, from int64) {
	return int64(int32(uint32(m[0]))), int64(int32(uint32(uint64(m[0]) >> 32)))
}

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
	// Field by field rather than *c = Cursor{...}: a cache whose valid
	// bit is clear is never read, so the caches are not cleared, and a new
	// cursor in a large array of fresh per-rank states touches only the
	// lines it needs. A pointer already nil is not written again (while
	// the garbage collector marks, every pointer write costs a barrier).
	c.depth, c.valid, c.fixed = 0, 0, false // Reset sets the frame
	c.ra = s.ra
	c.env = lang.Env{Rank: s.Rank, Index: make([]int64, s.ra.k.Info.NumSlots)}
	if c.outer != nil || c.memoOut != nil || c.validOut != nil || c.keys != nil || c.vars != nil {
		c.outer, c.memoOut, c.validOut, c.keys, c.vars = nil, nil, nil, nil, nil
	}
	if alike != nil && sameTree(alike.prog.tree, s.Root) {
		c.prog = alike.prog
	} else {
		c.prog = &cursorProgram{tree: s.Root}
		c.prog.root = c.prog.compile(s.ra, s.Root)
	}
	if n := c.prog.memos - memoInline; n > 0 {
		c.memoOut = make([]memo, n)
		c.validOut = make([]bool, n)
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
		out[i] = cnode{n: n, body: p.compile(ra, n.Body), els: p.compile(ra, n.Else), memo: -1, nk: n.Kind}
		switch n.Kind {
		case SComm:
			out[i].stmt = n.Stmt.(*lang.CommStmt)
			out[i].kind = commEventKind(out[i].stmt.Kind)
		case SWait:
			continue // no static values: nothing to cache
		case SLoop:
			out[i].slot = int32(ra.k.Info.Defs[n.Stmt.(*lang.ForStmt).Var].Slot)
		}
		if n.Kind != SCompute {
			w := memoWidth(n, out[i].kind)
			if p.memos < memoInline && p.memos+w > memoInline {
				p.memos = memoInline // a node's slots are all inline or all not
			}
			out[i].slots = indexSlots(ra.k, n)
			out[i].memo = p.memos
			out[i].key = p.keys
			if p.memos < memoInline && len(out[i].slots) == 0 && !out[i].kind.isPost() {
				// A post takes the slow path, which tracks its request.
				out[i].bit = 1 << p.memos
			}
			p.memos += w
			p.keys += len(out[i].slots)
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
	case lang.ISend:
		return EvISend
	case lang.IRecv:
		return EvIRecv
	case lang.Barrier:
		return EvBarrier
	}
	return EvCollective
}

// Reset moves the cursor back to the start of the schedule, keeping the
// values it has cached.
func (c *Cursor) Reset() {
	c.depth = 0
	c.push(cursorFrame{list: &c.prog.root})
	c.resetRequests()
}

// push makes f the innermost frame.
func (c *Cursor) push(f cursorFrame) {
	if i := int(c.depth) - 1; i >= outerInline {
		c.outer = append(c.outer[:i-outerInline], c.cursorFrame)
	} else if i >= 0 {
		c.outerIn[i] = c.cursorFrame
	}
	c.cursorFrame = f
	c.depth++
}

// pop drops the innermost frame.
func (c *Cursor) pop() {
	c.depth--
	if c.depth > 0 {
		c.cursorFrame = *c.below(int(c.depth) - 1)
	}
}

// below returns frame i of those below the innermost one (0 is the root).
func (c *Cursor) below(i int) *cursorFrame {
	if i < outerInline {
		return &c.outerIn[i]
	}
	return &c.outer[i-outerInline]
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
	ok, err := c.Step(&c.ev)
	if !ok {
		return nil, err
	}
	return &c.ev, nil
}

// Step is Next writing the next event into *ev, which the caller owns (an
// emulator of thousands of ranks keeps one for all of them, so that no
// rank's state holds an event); ok is false at the end of the schedule or
// on an error.
//
// Most steps of a long run reach a communication statement whose values
// are cached whatever the loop indices, or a compute segment: Step does
// those itself, small enough to stay cheap, and leaves everything else to
// walk.
func (c *Cursor) Step(ev *Event) (ok bool, err error) {
	if c.depth > 0 {
		if nodes := *c.list; int(c.pos) < len(nodes) {
			n := &nodes[c.pos]
			if n.nk == SComm && c.valid&n.bit != 0 {
				c.pos++
				fill(ev, n, &c.memoIn[n.memo&(memoInline-1)], &c.memoIn[(n.memo+1)&(memoInline-1)])
				return true, nil
			}
			if n.nk == SCompute {
				c.pos++
				return c.compute(n, ev)
			}
		}
	}
	return c.walk(ev)
}

// walk is Step's general case: it walks the tree to the next event.
func (c *Cursor) walk(ev *Event) (ok bool, err error) {
	for c.depth > 0 {
		nodes := *c.list
		if int(c.pos) == len(nodes) {
			if c.reqs != nil && c.loop != nil {
				if err := c.iterationDone(); err != nil {
					return false, err
				}
			}
			if !c.advanceLoop() {
				c.pop()
			}
			continue
		}
		n := &nodes[c.pos]
		c.pos++
		switch n.nk {
		case SCompute:
			return c.compute(n, ev)
		case SComm:
			if c.valid&n.bit != 0 { // cached whatever the indices, as in Step
				fill(ev, n, &c.memoIn[n.memo&(memoInline-1)], &c.memoIn[(n.memo+1)&(memoInline-1)])
				return true, nil
			}
			return c.comm(n, ev)
		case SIf:
			err = c.enterIf(n)
		case SRepeat:
			err = c.enterRepeat(n)
		case SLoop:
			err = c.enterLoop(n)
		case SWait:
			return c.wait(n, ev)
		}
		if err != nil {
			return false, err
		}
	}
	if c.reqs != nil {
		return false, c.kernelDone()
	}
	return false, nil
}

// advanceLoop starts the next iteration of the loop owning the innermost
// frame, reporting false when the loop is done (or the frame belongs to no
// loop).
func (c *Cursor) advanceLoop() bool {
	l := c.loop
	if l == nil {
		return false
	}
	if l.nk == SRepeat {
		if c.index == 0 {
			return false
		}
		c.index--
		c.pos = 0
		return true
	}
	m, m2 := c.slot(l.memo), c.slot(l.memo+1)
	next := c.index + m2[0]
	if next >= m[1] {
		return false
	}
	c.index = next
	c.env.Index[l.slot] = next
	c.pos = 0
	return true
}

// compute writes the event of a compute segment.
func (c *Cursor) compute(cn *cnode, ev *Event) (bool, error) {
	w := cn.n.Seg.fixed
	c.fixed = w != nil
	if w == nil {
		var err error
		if w, err = cn.n.Seg.work(c.ra, &c.env, c.loopVars()); err != nil {
			return false, err
		}
	}
	ev.Kind = EvCompute
	if ev.Work != w { // pointers written only when they change, as in fill
		ev.Work = w
	}
	if ev.Stmt != nil {
		ev.Stmt = nil
	}
	ev.Peer, ev.From, ev.Bytes, ev.RecvBytes = 0, 0, 0, 0
	return true, nil
}

// loopVars returns the rank's symbols with the indices of the enclosing
// loops bound, as the segment evaluation expects them.
func (c *Cursor) loopVars() map[string]*big.Rat {
	if c.vars == nil {
		c.vars = c.ra.cloneEnv()
	}
	info := c.ra.k.Info
	bind := func(f *cursorFrame) {
		if f.loop != nil && f.loop.nk == SLoop {
			obj := info.Defs[f.loop.n.Stmt.(*lang.ForStmt).Var]
			c.vars[obj.Name] = new(big.Rat).SetInt64(f.index)
		}
	}
	for i := range int(c.depth) - 1 {
		bind(c.below(i))
	}
	bind(&c.cursorFrame)
	return c.vars
}

// comm writes the event of a communication statement.
func (c *Cursor) comm(cn *cnode, ev *Event) (bool, error) {
	m, fresh := c.memoFor(cn)
	if !fresh {
		e, err := c.ra.commEvent(cn.stmt, &c.env)
		if err != nil {
			return false, err
		}
		if err := c.checkPeers(&e); err != nil {
			return false, err
		}
		if int64(int32(e.Peer)) != e.Peer || int64(int32(e.From)) != e.From {
			return false, c.ra.errorf(cn.stmt, "peer %d or source %d on rank %d does not fit a cursor, which takes up to 2^31 ranks", e.Peer, e.From, c.env.Rank)
		}
		*m = memo{packPeers(e.Peer, e.From), e.Bytes}
		if cn.kind == EvSendRecv {
			*c.slot(cn.memo + 1) = memo{e.RecvBytes, 0}
		}
		c.setValid(cn.memo)
	}
	var m2 *memo
	if cn.kind == EvSendRecv {
		m2 = c.slot(cn.memo + 1)
	}
	fill(ev, cn, m, m2)
	if cn.kind.isPost() {
		if err := c.post(cn, ev); err != nil {
			return false, err
		}
	}
	return true, nil
}

// fill writes the event of communication node cn from its cache m, field
// by field (a composite literal would be built aside and copied).
//
// The pointers are only written when they change: while the garbage
// collector marks, every pointer write goes through its write barrier, and
// an emulation writes one event per step.
//
// m is the node's first cache slot and m2 its second, read only for a
// sendrecv (the only communication with bytes received).
func fill(ev *Event, cn *cnode, m, m2 *memo) {
	ev.Kind = cn.kind
	if ev.Work != nil {
		ev.Work = nil
	}
	if ev.Stmt != cn.stmt {
		ev.Stmt = cn.stmt
	}
	ev.Peer, ev.From = m.peers()
	ev.Bytes, ev.RecvBytes = m[1], 0
	if cn.kind == EvSendRecv {
		ev.RecvBytes = m2[0]
	}
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
		*m = memo{holds, 0}
		c.setValid(cn.memo)
	}
	body := &cn.els
	if m[0] == 1 {
		body = &cn.body
	}
	if len(*body) > 0 {
		c.push(cursorFrame{list: body})
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
		*m = memo{count, 0}
		c.setValid(cn.memo)
	}
	if count := m[0]; count > 0 && len(cn.body) > 0 {
		c.push(cursorFrame{list: &cn.body, loop: cn, index: count - 1})
	}
	return nil
}

// enterLoop pushes the body of a for loop when it runs at least once.
func (c *Cursor) enterLoop(cn *cnode) error {
	m, fresh := c.memoFor(cn)
	if !fresh {
		loop := cn.n.Stmt.(*lang.ForStmt)
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
		*m = memo{lo, hi}
		*c.slot(cn.memo + 1) = memo{step, 0}
		c.setValid(cn.memo)
	}
	lo, hi := m[0], m[1]
	if lo >= hi || len(cn.body) == 0 {
		return nil
	}
	c.env.Index[cn.slot] = lo
	c.push(cursorFrame{list: &cn.body, loop: cn, index: lo})
	return nil
}

// slot returns cache slot i.
func (c *Cursor) slot(i int) *memo {
	if i < memoInline {
		return &c.memoIn[i]
	}
	return &c.memoOut[i-memoInline]
}

// memoFor returns the first cache slot of node cn and whether it holds the values for
// the current loop indices. When it does not, the key is already set to the
// current indices: the caller fills the values and calls setValid.
func (c *Cursor) memoFor(cn *cnode) (*memo, bool) {
	i := cn.memo
	var m *memo
	var valid bool
	if i < memoInline {
		m, valid = &c.memoIn[i], c.valid&(1<<i) != 0
	} else {
		m, valid = &c.memoOut[i-memoInline], c.validOut[i-memoInline]
	}
	if len(cn.slots) == 0 || !valid {
		if len(cn.slots) > 0 {
			c.setKey(cn)
		}
		return m, valid
	}
	key := c.keys[cn.key : cn.key+len(cn.slots)]
	for j, s := range cn.slots {
		if c.env.Index[s] != key[j] {
			c.setKey(cn)
			c.clearValid(i)
			return m, false
		}
	}
	return m, true
}

// setKey records the current indices as the key of cn's cache.
func (c *Cursor) setKey(cn *cnode) {
	key := c.keys[cn.key : cn.key+len(cn.slots)]
	for j, s := range cn.slots {
		key[j] = c.env.Index[s]
	}
}

// setValid and clearValid mark cache i filled or not.
func (c *Cursor) setValid(i int) {
	if i < memoInline {
		c.valid |= 1 << i
	} else {
		c.validOut[i-memoInline] = true
	}
}

func (c *Cursor) clearValid(i int) {
	if i < memoInline {
		c.valid &^= 1 << i
	} else {
		c.validOut[i-memoInline] = false
	}
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
	default:
		panic(lang.Unhandled("analyze: schedule node", n.Stmt)) // SNodes with values hold the four kinds above
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
