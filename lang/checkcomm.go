package lang

import (
	"fmt"
	"math/big"
)

// payloadInfo is what a communication payload moves.
type payloadInfo struct {
	ok    bool
	bytes bool     // `SIZE bytes`: count is in bytes
	elem  ElemType // element type otherwise
	count *affine  // elements (or bytes) moved, when affine; nil when unknown
}

// comm checks a communication statement.
func (c *checker) comm(s *CommStmt) {
	ctx := c.ctx()
	if s.Kind.IsCollective() {
		c.collectiveGuard(s)
	}
	var pay payloadInfo
	switch {
	case s.Payload != nil && s.Kind == Barrier:
		c.errorf(s.Payload, "barrier moves no data; remove the payload")
	case s.Payload != nil:
		pay = c.payload(s.Payload, ctx)
	case s.Kind != Barrier:
		c.errorf(s, "%s needs a payload: an array slice, a var or 'SIZE bytes'", s.Kind)
	}
	switch s.Kind {
	case Send, SendRecv, ISend:
		c.peer(s, s.Peer, ctx, "the destination")
	case Recv, IRecv:
		c.peer(s, s.Peer, ctx, "the source")
	case Exchange:
		c.peer(s, s.Peer, ctx, "the partner")
	case Bcast, Scatter, Reduce, Gather:
		c.root(s, ctx)
	case Allreduce, Allgather, Alltoall, Scan, Barrier:
		// No peer and no root.
	default:
		c.errorf(s, "%s", UnhandledComm("lang: check communication", s.Kind))
	}
	if s.Kind == SendRecv {
		c.peer(s, s.From, ctx, "the source")
		if s.Into != nil {
			c.samePayload(s, pay, c.payload(s.Into, ctx), ctx)
		}
	}
	c.reduceOp(s, pay)
	c.payloadAccess(s)
	if s.Kind.IsNonBlocking() {
		c.post(s)
	}
}

// collectiveGuard reports a collective that not every rank reaches
// equally often: inside an if whose condition depends on rank or data, or
// a loop whose bounds depend on rank.
func (c *checker) collectiveGuard(s *CommStmt) {
	for i := len(c.conds) - 1; i >= 0; i-- {
		fr := c.conds[i]
		if d := fr.dep & (DepRank | DepData); d != 0 {
			c.errorf(s, "%s is inside the if at %s, and %s; every rank must call a collective, so move it out of the if",
				s.Kind, c.lineCol(fr.stmt.Pos()), c.varies(fr.stmt.Cond, d))
			return
		}
	}
	for i := len(c.loops) - 1; i >= 0; i-- {
		fr := c.loops[i]
		if fr.dep&DepRank == 0 {
			continue
		}
		what := "repeat count depends"
		if _, ok := fr.stmt.(*ForStmt); ok {
			what = "bounds depend"
		}
		c.errorf(s, "%s is inside the loop at %s, whose %s on rank; every rank must call a collective equally often",
			s.Kind, c.lineCol(fr.stmt.Pos()), what)
		return
	}
}

// payload checks what a communication statement moves and returns its
// element type and count.
func (c *checker) payload(p *Payload, ctx exprCtx) payloadInfo {
	if p.Bytes != nil {
		op := c.intContext(p.Bytes, "a byte size", ctx)
		info := payloadInfo{ok: op.typ != InvalidType, bytes: true}
		if f, ok := c.boundsOf(p.Bytes, op, ctx); ok {
			if got, at, found := c.violation(f, new(big.Rat), nil); found {
				c.errorf(p.Bytes, "the byte size %s must be at least 0", valueAt(p.Bytes, got.RatString(), at))
			}
		}
		if f, ok := c.affineOf(p.Bytes); ok && op.typ != InvalidType {
			info.count = &f
		}
		return info
	}
	obj := c.lookup(p.Name)
	if obj != nil && obj.Kind != ArrayObj && obj.Kind != VarObj {
		c.errorf(p.Name, "a payload must name an array or a var, but %s is %s; to move a size without data, write '%s bytes'",
			p.Name.Name, obj.Kind.article(), p.Name.Name)
		obj = nil
	}
	if obj != nil && obj.Kind == VarObj {
		if len(p.Index) > 0 || p.HasRange() {
			c.errorf(p, "%s is a var, a single value; send it without indices or a range", p.Name.Name)
			obj = nil
		} else {
			c.record(p.Name, operand{typ: obj.Type, dep: DepData})
			one := constAffine(big.NewRat(1, 1))
			return payloadInfo{ok: true, elem: obj.Elem, count: &one}
		}
	}
	used := len(p.Index)
	if p.HasRange() {
		used++
	}
	if obj != nil && used > len(obj.Dims) {
		c.errorf(p, "%s has %s, but the payload gives %d", p.Name.Name, plural(len(obj.Dims), "dimension", "dimensions"), used)
		obj = nil
	}
	if obj == nil {
		for _, x := range p.Index {
			c.value(x, ctx)
		}
		c.value(p.Lo, ctx)
		c.value(p.Hi, ctx)
		return payloadInfo{}
	}
	c.record(p.Name, operand{typ: obj.Type, dep: DepData})
	return c.arrayPayload(p, obj, ctx)
}

// arrayPayload checks the indices and range of an array payload: A[i]
// (a row), A[i][lo:hi] (a slice of the next dimension), x[lo:hi].
func (c *checker) arrayPayload(p *Payload, obj *Object, ctx exprCtx) payloadInfo {
	for i, x := range p.Index {
		op := c.intContext(x, "an index", ctx)
		c.checkIndex(x, op, ctx, obj, i)
	}
	info := payloadInfo{ok: true, elem: obj.Elem}
	first := len(p.Index)
	if p.HasRange() {
		first++
	}
	rest := big.NewRat(1, 1)
	for _, d := range obj.Dims[first:] {
		rest.Mul(rest, ratInt64(d))
	}
	if !p.HasRange() {
		count := constAffine(rest) // the rest of the array from the fixed indices on
		info.count = &count
		return info
	}
	length, ok := c.slice(p, obj, ctx)
	if ok {
		count := length.scale(rest)
		info.count = &count
	}
	return info
}

// slice checks the range lo:hi over dimension dim of a payload: 0 ≤ lo ≤
// hi ≤ size, where that can be decided. It returns the length hi - lo.
func (c *checker) slice(p *Payload, obj *Object, ctx exprCtx) (affine, bool) {
	dim := len(p.Index)
	lo := c.intContext(p.Lo, "a slice bound", ctx)
	hi := c.intContext(p.Hi, "a slice bound", ctx)
	size := ratInt64(obj.Dims[dim])
	fLo, okLo := c.boundsOf(p.Lo, lo, ctx)
	fHi, okHi := c.boundsOf(p.Hi, hi, ctx)
	known := obj.Dims[dim] > 0
	if okLo && known {
		if got, at, found := c.violation(fLo, new(big.Rat), size); found {
			c.errorf(p.Lo, "the slice start %s is outside %s (a slice lo:hi needs 0 ≤ lo ≤ hi ≤ %d)",
				valueAt(p.Lo, got.RatString(), at), dimText(obj, dim), obj.Dims[dim])
		}
	}
	if okHi && known {
		if got, at, found := c.violation(fHi, new(big.Rat), size); found {
			c.errorf(p.Hi, "the slice end %s is outside %s (a slice lo:hi needs 0 ≤ lo ≤ hi ≤ %d)",
				valueAt(p.Hi, got.RatString(), at), dimText(obj, dim), obj.Dims[dim])
		}
	}
	if okLo && okHi {
		length := fHi.addScaled(fLo, big.NewRat(-1, 1))
		if got, at, found := c.violation(length, new(big.Rat), nil); found {
			c.errorf(p.Lo, "the slice %s:%s has negative length %s%s; it must end where it starts or later",
				exprText(p.Lo), exprText(p.Hi), got.RatString(), at)
		}
	}
	fLo, okLo = c.affineOf(p.Lo)
	fHi, okHi = c.affineOf(p.Hi)
	if !okLo || !okHi || lo.typ == InvalidType || hi.typ == InvalidType {
		return affine{}, false
	}
	return fHi.addScaled(fLo, big.NewRat(-1, 1)), true
}

// samePayload checks that sendrecv sends and receives the same element
// type and count.
func (c *checker) samePayload(s *CommStmt, send, recv payloadInfo, ctx exprCtx) {
	if !send.ok || !recv.ok {
		return
	}
	switch {
	case send.bytes != recv.bytes:
		c.errorf(s.Into, "sendrecv sends and receives different kinds of payload; write both as 'SIZE bytes' or both as arrays or vars")
		return
	case send.elem != recv.elem:
		c.errorf(s.Into, "sendrecv sends %s but receives into %s; the two payloads must have the same element type",
			send.elem, recv.elem)
		return
	case send.count == nil || recv.count == nil || ctx.dead:
		return
	}
	diff := send.count.addScaled(*recv.count, big.NewRat(-1, 1))
	if !diff.isConst() || diff.c.Sign() == 0 {
		return
	}
	unit := "elements"
	if send.bytes {
		unit = "bytes"
	}
	if send.count.isConst() && recv.count.isConst() {
		c.errorf(s.Into, "sendrecv sends %s %s but receives %s; the two payloads must have the same count",
			send.count.c.RatString(), unit, recv.count.c.RatString())
		return
	}
	c.errorf(s.Into, "sendrecv sends %s %s more than it receives; the two payloads must have the same count",
		diff.c.RatString(), unit)
}

// peer checks the destination, source or partner of a point-to-point
// operation: a static rank, or none. Rank values must lie in 0..P-1.
func (c *checker) peer(s *CommStmt, e Expr, ctx exprCtx, what string) {
	if e == nil {
		c.errorf(s, "%s needs %s", s.Kind, what)
		return
	}
	op := c.value(e, ctx)
	switch {
	case op.typ == InvalidType:
	case op.typ != PeerType && !op.typ.IsInteger():
		c.errorf(e, "%s must be a rank or none, not %s (%s)", what, op.typ.article(), exprText(e))
	case op.dep&DepData != 0:
		c.errorf(e, "%s must be static, but %s; use parameters, lets, rank and loop indices",
			what, c.varies(e, DepData))
	case c.geomOK:
		c.checkRank(e, op, ctx, what, "use none for no peer, or wrap around with % P", true)
	}
}

// root checks the root of bcast, scatter, reduce and gather: a rank that
// every rank agrees on.
func (c *checker) root(s *CommStmt, ctx exprCtx) {
	e := s.Peer
	if e == nil {
		c.errorf(s, "%s needs a root rank", s.Kind)
		return
	}
	op := c.value(e, ctx)
	switch {
	case op.typ == InvalidType:
	case !op.typ.IsInteger():
		c.errorf(e, "the root of %s must be a rank, not %s (%s)", s.Kind, op.typ.article(), exprText(e))
	case op.dep&(DepData|DepRank) != 0:
		c.errorf(e, "the root of %s must be the same on every rank, but %s",
			s.Kind, c.varies(e, op.dep&(DepData|DepRank)))
	case c.geomOK:
		c.checkRank(e, op, ctx, "the root", "", false)
	}
}

// checkRank reports a rank expression that can leave 0..P-1, with hint
// (if any) as the advice. A peer that varies (guard) is also told the
// guard that keeps its statement to the ranks that have it, the idiom of a
// pipeline: `if rank + 1 < P { send … to rank + 1 }`.
func (c *checker) checkRank(e Expr, op operand, ctx exprCtx, what, hint string, guard bool) {
	f, ok := c.boundsOf(e, op, ctx)
	if !ok {
		return
	}
	got, at, found := c.violation(f, new(big.Rat), ratInt64(c.geom.ranks-1))
	if !found {
		return
	}
	if guard && !f.isConst() {
		cond := exprText(e) + " < P"
		if got.Sign() < 0 {
			cond = exprText(e) + " >= 0"
		}
		hint = fmt.Sprintf("guard the statement with 'if %s { … }' so that it runs only where the peer exists, %s", cond, hint)
	}
	if hint != "" {
		hint = "; " + hint
	}
	c.errorf(e, "%s %s is not a rank: the ranks are 0..%d%s", what, valueAt(e, got.RatString(), at), c.geom.ranks-1, hint)
}

// reduceOp checks the operator of reduce, allreduce and scan: and, or and
// xor need integers.
func (c *checker) reduceOp(s *CommStmt, pay payloadInfo) {
	reducing := s.Kind == Reduce || s.Kind == Allreduce || s.Kind == Scan
	switch {
	case !reducing && s.Op != NoReduce:
		c.errs.Add(c.pos(s.OpPos), s.Kind.String()+" takes no reduction operator")
	case reducing && s.Op == NoReduce:
		c.errorf(s, "%s needs an operator: sum, prod, max, min, and, or, xor", s.Kind)
	case reducing && (s.Op == ReduceAnd || s.Op == ReduceOr || s.Op == ReduceXor) && pay.ok && !pay.bytes && pay.elem.IsFloat():
		c.errs.Addf(c.pos(s.OpPos), "%s %s needs integers, but the payload holds %s; use an i64 or i32 payload, or sum, prod, max or min",
			s.Kind, s.Op, pay.elem)
	}
}
