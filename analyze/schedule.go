package analyze

import (
	"fmt"
	"math/big"

	"perfc/analyze/symbolic"
	"perfc/lang"
)

// A Schedule is one rank's program as the emulator sees it: compute
// segments (the counted work of a run of statements without communication)
// and communication events, with the loops and static branches around them
// kept as loops and branches. A million sweeps are one loop node, not a
// million entries; Events expands them on the fly.

// SNodeKind says what a schedule node is.
type SNodeKind uint8

const (
	SCompute SNodeKind = iota // a compute segment
	SComm                     // a communication statement
	SLoop                     // a for loop that contains communication
	SRepeat                   // a repeat that contains communication
	SIf                       // a static if that contains communication
	SWait                     // a wait or waitall (Stmt is the *lang.WaitStmt)
)

// SNode is one node of a schedule tree.
type SNode struct {
	Kind SNodeKind
	Stmt lang.Stmt // the CommStmt, ForStmt, RepeatStmt or IfStmt
	Body []*SNode  // loop body, or then-branch
	Else []*SNode  // else-branch of an if
	Seg  *Segment  // SCompute
}

// Work is what one execution of a compute segment does, in numbers.
type Work struct {
	Region     string
	Iterations float64
	// LoopEntries counts the starts of for and repeat loops, as
	// Counts.LoopEntries does.
	LoopEntries float64
	Flop        float64
	IntOps      float64
	MaddPairs   float64
	Loads       float64
	Stores      float64
	LoadBytes   float64
	StoreBytes  float64
	Ops         []OpWork
	Madds       []OpWork // multiply-add pairs by additive op, type and pattern
}

// OpWork is the count of one operation kind and type in a segment.
type OpWork struct {
	Op      OpKind
	Type    OpType
	Pattern string
	N       float64
}

// Segment is a run of statements without communication in one region.
type Segment struct {
	Region string
	parts  []segPart
	fixed  *Work // when no part depends on an enclosing loop index
}

// segPart is one leaf of a segment: its executions per segment execution,
// as partial sums over the enclosing (schedule) loop indices, or, when the
// closed form failed, the inner levels to enumerate.
type segPart struct {
	l     *leaf
	items []item
	inner []level // non-nil: enumerate these levels at expansion
}

// EventKind says what an event is.
type EventKind uint8

const (
	EvCompute EventKind = iota
	EvSend
	EvRecv
	EvSendRecv // a send and a receive at once (sendrecv, exchange)
	EvCollective
	EvBarrier
	EvISend // isend: post a send; Peer, Bytes, Req
	EvIRecv // irecv: post a receive; Peer, Bytes, Req
	EvWait  // wait, waitall: complete requests; Reqs (nil and All for waitall)
)

// Event is one step of a rank's expanded schedule. The emulator must not
// keep the pointer: Events reuses it.
type Event struct {
	Kind      EventKind
	Work      *Work          // EvCompute
	Stmt      *lang.CommStmt // communication events
	Peer      int64          // send or sendrecv destination, recv source, collective root (-1: none)
	From      int64          // sendrecv source
	Bytes     int64          // bytes sent (collectives: payload bytes)
	RecvBytes int64          // sendrecv: bytes received
	// Req numbers the request an EvISend or EvIRecv posts: requests are
	// numbered densely per kernel, 0 … Schedule.NumRequests()-1, one
	// number per request name, so that an emulator keeps a rank's
	// requests in a slice.
	Req int
	// Reqs are the requests an EvWait completes: those it names that are
	// active on the rank, in the order written (a request never posted,
	// or posted with the peer none, is left out, as MPI_REQUEST_NULL);
	// for waitall (All) every active request, by number. An EvISend or
	// EvIRecv whose Peer is -1 (none) posts nothing. Events checks the
	// lifetimes rank by rank: a request posted while still active, or
	// still active at the end of the loop iteration or kernel it was
	// posted in, is an error.
	Reqs []int
	All  bool
	// WaitStmt is the statement of an EvWait (Stmt is nil then).
	WaitStmt *lang.WaitStmt
}

// Schedule is one rank's schedule.
type Schedule struct {
	Rank int64
	Root []*SNode
	ra   *rankAnalysis
}

// NewSchedule builds the schedule of one rank of a checked kernel.
func NewSchedule(k *lang.Checked, rank int64) (*Schedule, error) {
	if rank < 0 || rank >= k.NumRanks() {
		return nil, fmt.Errorf("rank %d does not exist: kernel %s has %d ranks", rank, k.Kernel.Name.Name, k.NumRanks())
	}
	p := &plan{k: k, specs: map[*lang.Object]*lang.ArraySpec{}}
	// The plan's walk records array specs; do it once for the whole kernel.
	newPlanSpecs(p, k.Kernel.Body)
	ra := newRankAnalysis(p, rank)
	b := scheduleBuilder{ra: ra, p: p}
	root, err := b.block(k.Kernel.Body, nil, "")
	if err != nil {
		return nil, err
	}
	return &Schedule{Rank: rank, Root: root, ra: ra}, nil
}

// ForRank returns the schedule of rank r. When r makes the same
// rank-dependent decisions as s's rank (an interior rank of a grid like
// another), the tree is shared and only the rank's symbols are rebound, so
// that thousands of alike ranks cost one build; otherwise it builds anew.
func (s *Schedule) ForRank(r int64) (*Schedule, error) {
	if r == s.Rank {
		return s, nil
	}
	if !s.ra.untraceable {
		if other := s.ra.sameDecisions(r); other != nil {
			return &Schedule{Rank: r, Root: s.Root, ra: other}, nil
		}
	}
	return NewSchedule(s.ra.k, r)
}

// newPlanSpecs records every array declaration's spec.
func newPlanSpecs(p *plan, body *lang.Block) {
	lang.Inspect(body, func(n lang.Node) bool {
		if d, ok := n.(*lang.ArrayDecl); ok {
			for _, a := range d.Arrays {
				if obj := p.k.Info.Defs[a.Name]; obj != nil {
					p.specs[obj] = a
				}
			}
		}
		return true
	})
	packSpecs(p)
}

// scheduleBuilder turns statements into schedule nodes.
type scheduleBuilder struct {
	ra *rankAnalysis
	p  *plan
}

// hasComm reports whether s contains a communication statement (a wait
// included).
func hasComm(s lang.Node) bool {
	found := false
	lang.Inspect(s, func(n lang.Node) bool {
		switch n.(type) {
		case *lang.CommStmt, *lang.WaitStmt:
			found = true
		}
		return !found
	})
	return found
}

// block builds the nodes of a block under the schedule chain ctx.
func (b *scheduleBuilder) block(blk *lang.Block, ctx []level, region string) ([]*SNode, error) {
	var out []*SNode
	var run []lang.Stmt
	flushIn := func(region string) error {
		if len(run) == 0 {
			return nil
		}
		seg, err := b.segment(run, ctx, region)
		if err != nil {
			return err
		}
		if seg != nil {
			out = append(out, &SNode{Kind: SCompute, Seg: seg})
		}
		run = nil
		return nil
	}
	flush := func() error { return flushIn(region) }
	for _, s := range blk.Stmts {
		if r, ok := s.(*lang.RegionStmt); ok && !hasComm(s) {
			// A region without communication is a segment of its own, so
			// that every segment is in one region (its Work is priced as
			// a share of that region's cost).
			if err := flush(); err != nil {
				return nil, err
			}
			run = append(run, s)
			if err := flushIn(r.Name); err != nil {
				return nil, err
			}
			continue
		}
		if !hasComm(s) {
			run = append(run, s)
			continue
		}
		if err := flush(); err != nil {
			return nil, err
		}
		nodes, err := b.stmt(s, ctx, region)
		if err != nil {
			return nil, err
		}
		out = append(out, nodes...)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, nil
}

// stmt builds the nodes of a statement that contains communication.
func (b *scheduleBuilder) stmt(s lang.Stmt, ctx []level, region string) ([]*SNode, error) {
	info := b.p.k.Info
	switch s := s.(type) {
	case *lang.CommStmt:
		return b.comm(s, ctx, region)
	case *lang.WaitStmt:
		return []*SNode{{Kind: SWait, Stmt: s}}, nil
	case *lang.Block:
		return b.block(s, ctx, region)
	case *lang.RegionStmt:
		return b.block(s.Body, ctx, s.Name)
	case *lang.ForStmt:
		inner := appendLevel(ctx, level{kind: loopLevel, loop: s, index: info.Defs[s.Var]})
		body, err := b.block(s.Body, inner, region)
		if err != nil {
			return nil, err
		}
		return []*SNode{{Kind: SLoop, Stmt: s, Body: body}}, nil
	case *lang.RepeatStmt:
		inner := appendLevel(ctx, level{kind: repeatLevel, repeat: s})
		body, err := b.block(s.Body, inner, region)
		if err != nil {
			return nil, err
		}
		return []*SNode{{Kind: SRepeat, Stmt: s, Body: body}}, nil
	case *lang.IfStmt:
		if s.Prob != nil {
			return nil, b.ra.errorf(s, "communication inside a data-dependent if cannot be scheduled; make the condition static (it may depend on rank and loop indices) or move the communication out")
		}
		then, err := b.block(s.Then, appendLevel(ctx, level{kind: guardLevel, cond: s, then: true}), region)
		if err != nil {
			return nil, err
		}
		var els []*SNode
		if s.Else != nil {
			elseCtx := appendLevel(ctx, level{kind: guardLevel, cond: s, then: false})
			if eb, ok := s.Else.(*lang.Block); ok {
				els, err = b.block(eb, elseCtx, region)
			} else {
				els, err = b.stmt(s.Else, elseCtx, region)
			}
			if err != nil {
				return nil, err
			}
		}
		return []*SNode{{Kind: SIf, Stmt: s, Body: then, Else: els}}, nil
	}
	return nil, b.ra.errorf(s, "%s", lang.Unhandled("analyze: schedule (a statement with communication)", s))
}

// comm builds the nodes of a communication statement: its transfer, with
// the computing segments of its pack and unpack loops (lang.CommPack)
// before and after it.
func (b *scheduleBuilder) comm(s *lang.CommStmt, ctx []level, region string) ([]*SNode, error) {
	cp := b.p.k.Info.CommPacks[s]
	if cp == nil {
		return []*SNode{{Kind: SComm, Stmt: s}}, nil
	}
	var out []*SNode
	copies := func(run []lang.Stmt) error {
		if len(run) == 0 {
			return nil
		}
		seg, err := b.segment(run, ctx, region)
		if seg != nil {
			out = append(out, &SNode{Kind: SCompute, Seg: seg})
		}
		return err
	}
	if err := copies(cp.Before); err != nil {
		return nil, err
	}
	out = append(out, &SNode{Kind: SComm, Stmt: s})
	if err := copies(cp.After); err != nil {
		return nil, err
	}
	return out, nil
}

// segment plans a run of statements without communication and sums its
// leaves over the levels inside it.
func (b *scheduleBuilder) segment(run []lang.Stmt, ctx []level, region string) (*Segment, error) {
	sub := &plan{k: b.p.k, specs: b.p.specs}
	for _, s := range run {
		sub.stmt(s, ctx, region)
	}
	if len(sub.leaves) == 0 {
		return nil, nil
	}
	seg := &Segment{Region: region}
	fixed := true
	depth := len(ctx)
	for _, l := range sub.leaves {
		chain := l.chain
		if len(chain) < depth {
			chain = ctx // hoisted out of a loop that communicates: count once per segment
		}
		part := segPart{l: l}
		items := []item{{val: symbolic.Int(1)}}
		var err error
		for i := len(chain) - 1; i >= depth; i-- {
			items, err = b.ra.symbolicLevel(chain[i], items)
			if err != nil {
				if !isNonAffine(err) {
					return nil, err
				}
				part.inner = chain[depth:]
				items = nil
				break
			}
		}
		part.items = items
		if part.inner != nil || !b.onlySymbolItems(items) {
			fixed = false
		}
		seg.parts = append(seg.parts, part)
	}
	if fixed {
		w, err := seg.work(b.ra, nil, nil)
		if err != nil {
			return nil, err
		}
		seg.fixed = w
	}
	return seg, nil
}

// onlySymbolItems reports whether every item is free of loop indices and
// of the rank.
func (b *scheduleBuilder) onlySymbolItems(items []item) bool {
	for _, it := range items {
		// A count that depends on the rank (a loop bound rank == 0 ? 16 : n)
		// is not fixed either: the tree is shared with alike ranks
		// (Schedule.Alike), whose counts differ.
		if len(it.guards) > 0 || !b.ra.onlySymbols(it.val) || b.ra.rankDependentPoly(it.val) {
			return false
		}
	}
	return true
}

// work evaluates a segment at one iteration of the enclosing loops (env,
// vars; nil when the segment is fixed).
func (seg *Segment) work(ra *rankAnalysis, env *lang.Env, vars map[string]*big.Rat) (*Work, error) {
	if vars == nil {
		vars = ra.env
	}
	w := &Work{Region: seg.Region}
	for _, part := range seg.parts {
		n, err := part.executions(ra, env, vars)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			continue
		}
		w.add(part.l, n)
	}
	return w, nil
}

// executions returns how often a part's leaf runs per segment execution.
func (part segPart) executions(ra *rankAnalysis, env *lang.Env, vars map[string]*big.Rat) (float64, error) {
	if part.inner != nil {
		if env == nil {
			env = &lang.Env{Rank: ra.rank, Index: make([]int64, ra.k.Info.NumSlots)}
		}
		en := enumerator{ra: ra, chain: part.inner, items: []item{{val: symbolic.Int(1)}}, total: new(big.Rat)}
		local := make(map[string]*big.Rat, len(vars))
		for k, v := range vars {
			local[k] = v
		}
		if err := en.walk(0, env, local, ratOne()); err != nil {
			return 0, err
		}
		f, _ := en.total.Float64()
		return f, nil
	}
	total := new(big.Rat)
next:
	for _, it := range part.items {
		for _, g := range it.guards {
			v, err := g.Eval(vars)
			if err != nil {
				return 0, err
			}
			if v.Sign() < 0 {
				continue next
			}
		}
		v, err := it.val.Eval(vars)
		if err != nil {
			return 0, err
		}
		total.Add(total, v)
	}
	f, _ := total.Float64()
	return f, nil
}

// add adds n executions of leaf l to the work.
func (w *Work) add(l *leaf, n float64) {
	switch l.kind {
	case leafIter:
		w.Iterations += n
		return
	case leafEntry:
		w.LoopEntries += n
		return
	case leafComm, leafVector, leafChain, leafRegion, leafInnerRegion:
		return
	}
	if l.times > 1 {
		n *= float64(l.times)
	}
	for _, t := range l.ops {
		c := n * float64(t.n)
		w.addOp(t.op, t.typ, l.pattern, c)
	}
	for _, t := range l.madd {
		c := n * float64(t.n)
		w.MaddPairs += c
		w.Madds = addOpWork(w.Madds, OpWork{Op: t.op, Type: t.typ, Pattern: l.pattern, N: c})
	}
	for _, r := range l.refs {
		size := float64(r.array.Elem.Size())
		if r.store {
			w.Stores += n
			w.StoreBytes += n * size
		} else {
			w.Loads += n
			w.LoadBytes += n * size
		}
	}
}

// addOp adds c operations, keeping flop and integer-op totals.
func (w *Work) addOp(op OpKind, typ OpType, pattern string, c float64) {
	w.Ops = addOpWork(w.Ops, OpWork{Op: op, Type: typ, Pattern: pattern, N: c})
	if isFloatType(typ) {
		w.Flop += c * float64(op.NominalFlop())
	} else if op != OpConv {
		w.IntOps += c
	}
}

// addOpWork adds x into a list of operation counts.
func addOpWork(list []OpWork, x OpWork) []OpWork {
	for i := range list {
		if list[i].Op == x.Op && list[i].Type == x.Type && list[i].Pattern == x.Pattern {
			list[i].N += x.N
			return list
		}
	}
	return append(list, x)
}

// Events expands the schedule in program order, calling yield for every
// event until it returns false. Memory stays proportional to the nesting
// depth, not to the number of events.
func (s *Schedule) Events(yield func(*Event) bool) error {
	ra := s.ra
	x := expander{ra: ra, yield: yield,
		env:  &lang.Env{Rank: s.Rank, Index: make([]int64, ra.k.Info.NumSlots)},
		vars: ra.cloneEnv()}
	x.reqs.init(ra.k)
	more, err := x.nodes(s.Root)
	if err == nil && more {
		err = x.requestsDone(nil)
	}
	return err
}

// NumRequests returns the number of request names of the kernel: the
// requests of events are numbered 0 … NumRequests()-1.
func (s *Schedule) NumRequests() int { return len(s.ra.k.Info.Requests) }

// expander walks a schedule tree.
type expander struct {
	ra    *rankAnalysis
	yield func(*Event) bool
	env   *lang.Env
	vars  map[string]*big.Rat
	ev    Event
	reqs  requestTracker // the rank's active requests (requests.go)
	depth int            // the loops (of the schedule) being expanded
}

// nodes expands a list of nodes; more is false once yield stopped.
func (x *expander) nodes(ns []*SNode) (more bool, err error) {
	for _, n := range ns {
		if more, err = x.node(n); !more || err != nil {
			return more, err
		}
	}
	return true, nil
}

// node expands one node.
func (x *expander) node(n *SNode) (bool, error) {
	k := x.ra.k
	switch n.Kind {
	case SCompute:
		w := n.Seg.fixed
		if w == nil {
			var err error
			if w, err = n.Seg.work(x.ra, x.env, x.vars); err != nil {
				return false, err
			}
		}
		x.ev = Event{Kind: EvCompute, Work: w}
		return x.yield(&x.ev), nil
	case SComm:
		return x.comm(n.Stmt.(*lang.CommStmt))
	case SWait:
		return x.wait(n.Stmt.(*lang.WaitStmt))
	case SIf:
		v, err := k.Eval(n.Stmt.(*lang.IfStmt).Cond, x.env)
		if err != nil {
			return false, err
		}
		if v.Bool() {
			return x.nodes(n.Body)
		}
		return x.nodes(n.Else)
	case SRepeat:
		count, err := k.EvalInt(n.Stmt.(*lang.RepeatStmt).Count, x.env)
		if err != nil {
			return false, err
		}
		for range max(count, 0) {
			if more, err := x.iteration(n); !more || err != nil {
				return more, err
			}
		}
		return true, nil
	}
	loop := n.Stmt.(*lang.ForStmt)
	obj := k.Info.Defs[loop.Var]
	lo, err := k.EvalInt(loop.Lo, x.env)
	if err != nil {
		return false, err
	}
	hi, err := k.EvalInt(loop.Hi, x.env)
	if err != nil {
		return false, err
	}
	step := int64(1)
	if loop.Step != nil {
		if step, err = k.EvalInt(loop.Step, x.env); err != nil {
			return false, err
		}
	}
	for i := lo; i < hi; i += step {
		x.env.Index[obj.Slot] = i
		x.vars[obj.Name] = new(big.Rat).SetInt64(i)
		if more, err := x.iteration(n); !more || err != nil {
			return more, err
		}
	}
	delete(x.vars, obj.Name)
	return true, nil
}

// comm yields one communication event.
func (x *expander) comm(s *lang.CommStmt) (bool, error) {
	ev, err := x.ra.commEvent(s, x.env)
	if err != nil {
		return false, err
	}
	if s.Kind.IsNonBlocking() {
		if err := x.post(&ev); err != nil {
			return false, err
		}
	}
	x.ev = ev
	return x.yield(&x.ev), nil
}

// iteration expands one iteration of a loop's body; a request posted in
// it must be complete by its end.
func (x *expander) iteration(n *SNode) (bool, error) {
	x.depth++
	more, err := x.nodes(n.Body)
	x.depth--
	if err != nil || !more {
		return more, err
	}
	return true, x.requestsDone(n)
}

// commEvent evaluates the event of a communication statement at env: its
// peers and sizes (-1 for a peer of none or a peer the statement has not).
// It returns the event by value, so that a cursor filling its cache
// allocates nothing.
func (ra *rankAnalysis) commEvent(s *lang.CommStmt, env *lang.Env) (Event, error) {
	k := ra.k
	ev := Event{Stmt: s, Peer: -1, From: -1}
	var err error
	peer := func(e lang.Expr) int64 {
		if err != nil || e == nil {
			return -1
		}
		var v int64
		v, err = k.EvalInt(e, env)
		return v
	}
	bytesOf := func(pl *lang.Payload) int64 {
		if err != nil {
			return 0
		}
		var n int64
		n, err = ra.payloadBytesAt(pl, env)
		return n
	}
	switch s.Kind {
	case lang.Send:
		ev.Kind, ev.Peer, ev.Bytes = EvSend, peer(s.Peer), bytesOf(s.Payload)
	case lang.Recv:
		ev.Kind, ev.Peer, ev.Bytes = EvRecv, peer(s.Peer), bytesOf(s.Payload)
	case lang.SendRecv:
		into := s.Into
		if into == nil {
			into = s.Payload
		}
		ev.Kind, ev.Peer, ev.From, ev.Bytes, ev.RecvBytes = EvSendRecv, peer(s.Peer), peer(s.From), bytesOf(s.Payload), bytesOf(into)
	case lang.Exchange:
		p := peer(s.Peer)
		ev.Kind, ev.Peer, ev.From, ev.Bytes, ev.RecvBytes = EvSendRecv, p, p, bytesOf(s.Payload), bytesOf(s.Payload)
	case lang.ISend:
		ev.Kind, ev.Peer, ev.Bytes, ev.Req = EvISend, peer(s.Peer), bytesOf(s.Payload), ra.p.requestNumber(s.Req)
	case lang.IRecv:
		ev.Kind, ev.Peer, ev.Bytes, ev.Req = EvIRecv, peer(s.Peer), bytesOf(s.Payload), ra.p.requestNumber(s.Req)
	case lang.Barrier:
		ev.Kind = EvBarrier
	case lang.Bcast, lang.Reduce, lang.Allreduce, lang.Scatter, lang.Gather, lang.Allgather, lang.Alltoall, lang.Scan:
		ev.Kind, ev.Peer, ev.Bytes = EvCollective, peer(s.Peer), bytesOf(s.Payload)
	default:
		return ev, ra.errorf(s, "%s", lang.UnhandledComm("analyze: schedule communication", s.Kind))
	}
	return ev, err
}
