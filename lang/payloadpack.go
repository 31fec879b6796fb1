package lang

import (
	"fmt"
	"math/big"
)

// Pack is how a payload that is not one contiguous run of memory moves: a
// column A[lo:hi][j], a block A[r0:r1][c0:c1], a strided slice
// x[lo:hi:step]. Its elements are copied, in row-major order over its
// ranges, into a scratch buffer before a send (PackLoops) and from the
// buffer back into the array after a receive (UnpackLoops), as MPI does for
// a derived datatype. The loops are ordinary checked statements, so every
// stage counts, prices and generates them like the kernel's own loops: the
// pack traffic is in the counts, and the generated program runs exactly the
// loops the analyzer counted.
//
// The loops and the buffer are built by the checker (they are not in the
// source; perfc fmt never prints them). Their names contain '@', which no
// identifier can, so they cannot clash with the kernel's: the buffer of
// payload u[1:n+1][0] at 14:12 is u@14:12, its loop indices i0@14:12, ….
type Pack struct {
	Buffer *Object    // the scratch array: one dimension, as many elements as the payload has at most
	Decl   *ArrayDecl // the buffer's declaration
	// PackLoops copy the payload into the buffer: buffer[k] = A[…] for
	// its k-th element. UnpackLoops copy it back: A[…] = buffer[k].
	PackLoops, UnpackLoops *ForStmt
}

// CommPack is the copying a communication statement does around its
// transfer (Info.CommPacks): Before runs before the data moves (the pack
// loops of what it sends), After once it has arrived (the unpack loops of
// what it receives). A point-to-point direction copies only when its
// peer is a rank: each loop nest is then under `if PEER != none`, so that
// a message to or from none costs nothing, as in MPI (MPI_PROC_NULL).
//
// Which payloads are copied, by statement, as MPI does with a derived
// datatype: send and isend pack their payload, recv and irecv unpack into
// theirs (an irecv at its wait); sendrecv packs its payload and unpacks its
// into (or its payload, in place); exchange packs and unpacks its payload.
// Of the collectives, bcast packs on the root and unpacks on the other
// ranks; reduce packs on every rank and unpacks on the root; allreduce and
// scan pack and unpack on every rank; scatter only unpacks (the root sends
// from the program's P-block buffer, its own block included); gather,
// allgather and alltoall only pack (they receive into the P-block buffer).
// A collective's copies on some ranks only are under `if rank == ROOT` or
// `if rank != ROOT`.
type CommPack struct {
	Before, After []Stmt
}

// PackFor returns the pack loops and buffer of payload p, nil when p moves
// straight from memory (contiguous, a var, or a size in bytes).
func (info *Info) PackFor(p *Payload) *Pack {
	if p == nil {
		return nil
	}
	return info.Packs[p]
}

// commPacks records the copying statement s does around its transfer
// (CommPack), checked like the statement's own code; nothing when none
// of its payloads needs packing.
func (c *checker) commPacks(s *CommStmt) {
	var before, after []Stmt
	// when returns the condition under which loops run: a peer that is a
	// rank (onRoot nil), or this rank being the root (*onRoot) or not.
	type when struct {
		peer   Expr
		onRoot *bool
	}
	yes, no := true, false
	guard := func(w when, loops *ForStmt) Stmt {
		at := loops.ForPos
		var cond Expr
		switch {
		case w.onRoot != nil:
			op := Eql
			if !*w.onRoot {
				op = Neq
			}
			cond = &BinaryExpr{X: &Ident{NamePos: at, Name: "rank"}, OpPos: at, Op: op, Y: w.peer}
		case w.peer == nil || c.constantAtLeast0(w.peer):
			return loops
		default:
			cond = &BinaryExpr{X: w.peer, OpPos: at, Op: Neq, Y: &NoneLit{NonePos: at}}
		}
		return &IfStmt{IfPos: at, Cond: cond, Then: &Block{Lbrace: at, Stmts: []Stmt{loops}, Rbrace: at}}
	}
	pack := func(p *Payload, w when) {
		if pk := c.info.PackFor(p); pk != nil {
			before = append(before, guard(w, pk.PackLoops))
		}
	}
	unpack := func(p *Payload, w when) {
		if pk := c.info.PackFor(p); pk != nil {
			after = append(after, guard(w, pk.UnpackLoops))
		}
	}
	everyRank := when{}
	switch s.Kind {
	case Send, ISend:
		pack(s.Payload, when{peer: s.Peer})
	case Recv, IRecv:
		unpack(s.Payload, when{peer: s.Peer})
	case SendRecv:
		pack(s.Payload, when{peer: s.Peer})
		if s.Into != nil {
			unpack(s.Into, when{peer: s.From})
		} else {
			unpack(s.Payload, when{peer: s.From})
		}
	case Exchange:
		pack(s.Payload, when{peer: s.Peer})
		unpack(s.Payload, when{peer: s.Peer})
	case Bcast:
		pack(s.Payload, when{peer: s.Peer, onRoot: &yes})
		unpack(s.Payload, when{peer: s.Peer, onRoot: &no})
	case Reduce:
		pack(s.Payload, everyRank)
		unpack(s.Payload, when{peer: s.Peer, onRoot: &yes})
	case Allreduce, Scan:
		pack(s.Payload, everyRank)
		unpack(s.Payload, everyRank)
	case Scatter:
		unpack(s.Payload, everyRank)
	case Gather, Allgather, Alltoall:
		pack(s.Payload, everyRank)
	}
	if len(before)+len(after) == 0 {
		return
	}
	errs := c.errs
	for _, st := range append(append([]Stmt(nil), before...), after...) {
		c.openScope()
		for _, p := range []*Payload{s.Payload, s.Into} {
			if pk := c.info.PackFor(p); pk != nil && pk.Buffer != nil {
				c.scope.insert(pk.Buffer)
			}
		}
		c.stmt(st)
		c.closeScope()
	}
	c.errs = errs
	if c.info.CommPacks == nil {
		c.info.CommPacks = map[*CommStmt]*CommPack{}
	}
	c.info.CommPacks[s] = &CommPack{Before: before, After: after}
}

// constantAtLeast0 reports whether e is a constant rank (never none).
func (c *checker) constantAtLeast0(e Expr) bool {
	v, ok := c.info.Values[e]
	if !ok || c.info.Types[e] == PeerType {
		return false
	}
	n, ok := v.Int64()
	return ok && n >= 0
}

// contiguous reports whether an array payload is one run of memory: no
// range at all, or fixed indices, then a range of step 1, then only whole
// dimensions (0:size, step 1) in the brackets that follow.
func (c *checker) contiguous(p *Payload, obj *Object) bool {
	first := -1
	for d, s := range p.Subs {
		if s.IsRange() {
			first = d
			break
		}
	}
	if first < 0 {
		return true
	}
	if !c.constantIs(p.Subs[first].Step, 1) {
		return false
	}
	for d := first + 1; d < len(p.Subs); d++ {
		s := p.Subs[d]
		if !s.IsRange() || !c.constantIs(s.Step, 1) || !c.constantIs(s.Lo, 0) || !c.constantIs(s.Hi, obj.Dims[d]) {
			return false
		}
	}
	return true
}

// constantIs reports whether e is the constant v for these parameters; a
// missing step is 1.
func (c *checker) constantIs(e Expr, v int64) bool {
	if e == nil {
		return v == 1
	}
	val, ok := c.info.Values[e]
	if !ok {
		return false
	}
	n, ok := val.Int64()
	return ok && n == v
}

// packRange is one range of a payload that the pack loops run over.
type packRange struct {
	dim    int
	lo, hi Expr // nil lo: 0; nil hi: the dimension's size
	step   int64
	count  int64 // the element count when constant, else -1
	bound  int64 // the most elements the range can select
}

// buildPack makes the buffer and the pack and unpack loops of a payload
// that is not contiguous and records them in Info.Packs; commPacks checks
// the loops that the statement runs. That checking is the checker's own
// work on nodes it built from a checked payload, so its messages would
// only repeat the payload's (or mistake a bound it cannot decide for an
// error); they are dropped.
func (c *checker) buildPack(p *Payload, obj *Object) {
	var ranges []packRange
	bound := int64(1)
	for d := range obj.Dims {
		r := packRange{dim: d, step: 1, count: -1, bound: obj.Dims[d]}
		if d < len(p.Subs) {
			s := p.Subs[d]
			if !s.IsRange() {
				continue
			}
			r.lo, r.hi = s.Lo, s.Hi
			if c.constantIs(s.Lo, 0) {
				r.lo = nil // element i, not 0 + i
			}
			if s.Step != nil {
				n, _ := c.info.Values[s.Step].Int64()
				r.step = n
			}
			r.bound = ceilDiv(ratInt64(obj.Dims[d]), r.step)
			lo, okLo := c.info.Values[s.Lo].Int64()
			hi, okHi := c.info.Values[s.Hi].Int64()
			if okLo && okHi && c.info.Values[s.Lo].IsValid() && c.info.Values[s.Hi].IsValid() {
				r.count = ceilDiv(big.NewRat(hi-lo, 1), r.step)
				r.bound = min(r.bound, r.count)
			}
		} else {
			r.count = obj.Dims[d]
		}
		if r.step < 1 {
			return // an error already reported
		}
		ranges = append(ranges, r)
		bound *= max(r.bound, 1)
	}
	at := c.lineCol(p.StartPos)
	b := packBuilder{at: p.StartPos, suffix: "@" + at}
	buf := b.ident(obj.Name)
	pk := &Pack{Decl: &ArrayDecl{ArrayPos: b.at, ElemPos: b.at, Elem: obj.Elem,
		Arrays: []*ArraySpec{{Name: buf, Dims: []Expr{b.lit(bound)}}}}}
	pk.PackLoops = b.loops(p, obj, ranges, true)
	pk.UnpackLoops = b.loops(p, obj, ranges, false)

	errs := c.errs
	c.openScope()
	c.arrayDecl(pk.Decl)
	c.closeScope()
	c.errs = errs
	pk.Buffer = c.info.Defs[buf]
	if c.info.Packs == nil {
		c.info.Packs = map[*Payload]*Pack{}
	}
	c.info.Packs[p] = pk
}

// packBuilder builds the nodes of pack loops, every one at the payload's
// position.
type packBuilder struct {
	at     Pos
	suffix string
}

func (b packBuilder) ident(name string) *Ident { return &Ident{NamePos: b.at, Name: name + b.suffix} }
func (b packBuilder) lit(v int64) Expr         { return &IntLit{LitPos: b.at, Text: fmt.Sprint(v)} }

func (b packBuilder) binary(x Expr, op BinaryOp, y Expr) Expr {
	return &BinaryExpr{X: b.paren(x, op.Precedence()), OpPos: b.at, Op: op, Y: b.paren(y, op.Precedence()+1)}
}

// paren wraps an operand that binds less tightly than prec, so that the
// trees print as they evaluate.
func (b packBuilder) paren(x Expr, prec int) Expr {
	switch x := x.(type) {
	case *BinaryExpr:
		if x.Op.Precedence() >= prec {
			return x
		}
	case *CondExpr:
	default:
		return x
	}
	return &ParenExpr{Lparen: b.at, X: x, Rparen: b.at}
}

// count is the element count of range r: a literal when it is constant,
// else hi - lo or ceil((hi - lo) / step).
func (b packBuilder) count(r packRange) Expr {
	if r.count >= 0 {
		return b.lit(r.count)
	}
	n := r.hi
	if r.lo != nil {
		n = b.binary(r.hi, Sub, r.lo)
	}
	if r.step == 1 {
		return n
	}
	return &CallExpr{Fun: &Ident{NamePos: b.at, Name: "ceil"}, Args: []Expr{b.binary(n, Quo, b.lit(r.step))}, Rparen: b.at}
}

// loops builds the nest `for i0 in 0..n0 { for i1 in 0..n1 { … } }` with
// the copy between buffer element ((i0*n1 + i1)*n2 + …) and array element
// A[lo0 + step0*i0]…[fixed index]… at its heart; pack copies into the
// buffer, unpack out of it.
func (b packBuilder) loops(p *Payload, obj *Object, ranges []packRange, pack bool) *ForStmt {
	indices := make([]*Ident, len(ranges))
	for i := range ranges {
		indices[i] = b.ident(fmt.Sprintf("i%d", i))
	}
	use := func(i int) Expr { return &Ident{NamePos: b.at, Name: indices[i].Name} }
	var flat Expr
	for i, r := range ranges {
		if flat == nil {
			flat = use(i)
			continue
		}
		flat = b.binary(b.binary(flat, Mul, b.count(r)), Add, use(i))
	}
	buf := &IndexExpr{Name: b.ident(obj.Name), Index: []Expr{flat}, Rbrack: b.at}
	elem := &IndexExpr{Name: &Ident{NamePos: b.at, Name: p.Name.Name}, Rbrack: b.at}
	next := 0
	for d := range obj.Dims {
		if d < len(p.Subs) && !p.Subs[d].IsRange() {
			elem.Index = append(elem.Index, p.Subs[d].Index)
			continue
		}
		r := ranges[next]
		x := use(next)
		next++
		if r.step != 1 {
			x = b.binary(b.lit(r.step), Mul, x)
		}
		if r.lo != nil {
			x = b.binary(r.lo, Add, x)
		}
		elem.Index = append(elem.Index, x)
	}
	var body Stmt = &AssignStmt{Lhs: buf, OpPos: b.at, Op: Assign, Rhs: elem}
	if !pack {
		body = &AssignStmt{Lhs: elem, OpPos: b.at, Op: Assign, Rhs: buf}
	}
	for i := len(ranges) - 1; i >= 0; i-- {
		loop := &ForStmt{ForPos: b.at, Var: indices[i], Lo: b.lit(0), Hi: b.count(ranges[i]),
			Body: &Block{Lbrace: b.at, Stmts: []Stmt{body}, Rbrace: b.at}}
		body = loop
	}
	return body.(*ForStmt)
}
