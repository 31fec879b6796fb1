package codegen

import (
	"fmt"
	"math/big"
	"strings"

	"perfc/lang"
)

// Communication statements become calls into the runtime. A payload is
// written as the bytes it moves: a view of the array's memory for an
// array slice or row, a scratch copy for a var (a var lives in a
// register), a scratch buffer for `SIZE bytes`.

// payload is a written payload.
type payload struct {
	setup []string // statements before the call
	bytes string   // the []byte expression
	after []string // statements after the call (a received var)
	elem  string   // the runtime's element kind
	name  string   // the element type as reports name it, "" for bytes
}

// elemKinds maps element types to the runtime's constants.
func elemKind(e lang.ElemType) string {
	switch e {
	case lang.F64:
		return "elF64"
	case lang.F32:
		return "elF32"
	case lang.I64:
		return "elI64"
	case lang.I32:
		return "elI32"
	}
	return "elBytes"
}

// payload writes pl. slot tells two var payloads of one statement apart;
// in and receives say whether pl receives (bytes payloads use the receive
// buffer, vars are copied back).
func (g *generator) payload(pl *lang.Payload, slot int, in, receives bool) payload {
	if pl.Bytes != nil {
		return payload{bytes: fmt.Sprintf("r.bytesBuf(%t, %s)", in, g.expr(pl.Bytes, "int").text), elem: "elBytes"}
	}
	obj := g.info.Uses[pl.Name]
	if obj == nil {
		g.fail(pl, "the payload %s is not a checked name", pl.Name.Name)
		return payload{bytes: "nil", elem: "elBytes"}
	}
	p := payload{elem: elemKind(obj.Elem), name: obj.Elem.String()}
	name := g.names.name(obj)
	if obj.Kind == lang.VarObj {
		buf := g.temp("vb")
		p.setup = []string{fmt.Sprintf("%s := varBytes(r, %d, %s)", buf, slot, name)}
		p.bytes = buf
		if receives {
			p.after = []string{fmt.Sprintf("%s = varValue[%s](%s)", name, elemGoType(obj.Elem), buf)}
		}
		return p
	}
	g.imports["unsafe"] = true
	off, n := g.payloadSpan(pl, obj)
	size := int64(obj.Elem.Size())
	total := size
	for _, d := range obj.Dims {
		total *= d
	}
	p.bytes = fmt.Sprintf("view(unsafe.Pointer(%s), %d, %s, %s)", name, total, scaled(off, size), scaled(n, size))
	return p
}

// scaled writes x*k for an int expression x.
func scaled(x code, k int64) string {
	if x.lit != nil {
		r := x.lit.Rat()
		return new(big.Int).Mul(r.Num(), big.NewInt(k)).String()
	}
	return fmt.Sprintf("%s*%d", paren(x, 5), k)
}

// payloadSpan returns the element offset and count of an array payload:
// fixed leading indices, then a range lo:hi over the next dimension or the
// whole rest of the array.
func (g *generator) payloadSpan(pl *lang.Payload, obj *lang.Object) (off, n code) {
	dims := obj.Dims
	stride := func(k int) int64 { // elements per step of dimension k
		s := int64(1)
		for _, d := range dims[k+1:] {
			s *= d
		}
		return s
	}
	var terms []code
	for k, ix := range pl.Index {
		terms = append(terms, g.times(g.expr(ix, "int"), stride(k)))
	}
	f := len(pl.Index)
	if pl.HasRange() {
		lo, hi := g.expr(pl.Lo, "int"), g.expr(pl.Hi, "int")
		terms = append(terms, g.times(lo, stride(f)))
		n = g.times(g.minus(hi, lo), stride(f))
	} else {
		n = g.intLit(stride(f - 1))
		if f == 0 {
			n = g.intLit(stride(-1))
		}
	}
	return g.sum(terms), n
}

// intLit is an int literal code.
func (g *generator) intLit(x int64) code {
	v := lang.MakeInt(x)
	return g.literal(v, "int", nil)
}

// times writes x*k, folding literals.
func (g *generator) times(x code, k int64) code {
	if x.lit != nil {
		return g.intLit(x.lit.Rat().Num().Int64() * k)
	}
	if k == 1 {
		return x
	}
	return code{text: paren(x, 5) + "*" + fmt.Sprint(k), prec: 5, typ: "int"}
}

// minus writes x-y, folding literals.
func (g *generator) minus(x, y code) code {
	if x.lit != nil && y.lit != nil {
		return g.intLit(x.lit.Rat().Num().Int64() - y.lit.Rat().Num().Int64())
	}
	return code{text: paren(x, 4) + " - " + paren(y, 5), prec: 4, typ: "int"}
}

// sum writes the sum of terms, folding literals.
func (g *generator) sum(terms []code) code {
	constant := int64(0)
	var parts []string
	for _, t := range terms {
		if t.lit != nil {
			constant += t.lit.Rat().Num().Int64()
			continue
		}
		parts = append(parts, paren(t, 4))
	}
	if len(parts) == 0 {
		return g.intLit(constant)
	}
	if constant != 0 {
		parts = append(parts, fmt.Sprint(constant))
	}
	return code{text: strings.Join(parts, " + "), prec: 4, typ: "int"}
}

// commSite adds the site of one direction or one collective.
func (g *generator) commSite(s site) int {
	s.region, s.prob = g.region, hasProb(g.chain)
	return g.addSite(s)
}

// p2pSite adds the site of one direction of a point-to-point statement.
func (g *generator) p2pSite(s *lang.CommStmt, kind string, peer lang.Expr) int {
	return g.commSite(site{kind: kind, stmt: g.pos(s), peer: lang.ExprString(peer), varies: g.info.Deps[peer]&lang.DepIndex != 0})
}

// reduceOps maps operators to the runtime's constants.
func reduceOp(op lang.ReduceOp) string {
	return "red" + strings.ToUpper(op.String()[:1]) + op.String()[1:]
}

// comm writes a communication statement.
func (g *generator) comm(s *lang.CommStmt) {
	g.line("{ // %s at %s", s.Kind, g.lineCol(s))
	var call string
	var pays []payload
	switch s.Kind {
	case lang.Send:
		p := g.payload(s.Payload, 0, false, false)
		pays = append(pays, p)
		call = fmt.Sprintf("r.send(%d, %s, %s)", g.p2pSite(s, "siteSend", s.Peer), g.expr(s.Peer, "int").text, p.bytes)
	case lang.Recv:
		p := g.payload(s.Payload, 0, true, true)
		pays = append(pays, p)
		call = fmt.Sprintf("r.recv(%d, %s, %s)", g.p2pSite(s, "siteRecv", s.Peer), g.expr(s.Peer, "int").text, p.bytes)
	case lang.SendRecv, lang.Exchange:
		call, pays = g.sendrecv(s)
	case lang.ISend, lang.IRecv:
		call, pays = g.post(s)
	case lang.Barrier:
		call = fmt.Sprintf("r.barrier(%d)", g.commSite(site{kind: "siteBarrier", stmt: g.pos(s)}))
	case lang.Bcast, lang.Reduce, lang.Allreduce, lang.Scatter, lang.Gather, lang.Allgather, lang.Alltoall, lang.Scan:
		call, pays = g.collective(s)
	default:
		g.fail(s, "%s", lang.UnhandledComm("codegen: communication", s.Kind))
	}
	for _, p := range pays {
		for _, l := range p.setup {
			g.line("%s", l)
		}
	}
	g.line("%s", call)
	for _, p := range pays {
		for _, l := range p.after {
			g.line("%s", l)
		}
	}
	g.line("}")
}

// sendrecv writes sendrecv and exchange: both directions at once; in
// place when there is no into (the runtime copies what is sent first).
func (g *generator) sendrecv(s *lang.CommStmt) (string, []payload) {
	to, from := s.Peer, s.From
	if s.Kind == lang.Exchange {
		from = s.Peer
	}
	sendSite := g.p2pSite(s, "siteSend", to)
	recvSite := g.p2pSite(s, "siteRecv", from)
	toCode, fromCode := g.expr(to, "int").text, g.expr(from, "int").text
	switch {
	case s.Into != nil:
		out := g.payload(s.Payload, 0, false, false)
		in := g.payload(s.Into, 1, true, true)
		return fmt.Sprintf("r.sendrecv(%d, %d, %s, %s, %s, %s)", sendSite, recvSite, toCode, out.bytes, fromCode, in.bytes),
			[]payload{out, in}
	case s.Payload.Bytes != nil:
		// An abstract payload: no data to keep in place.
		out := g.payload(s.Payload, 0, false, false)
		in := g.payload(s.Payload, 1, true, true)
		return fmt.Sprintf("r.sendrecv(%d, %d, %s, %s, %s, %s)", sendSite, recvSite, toCode, out.bytes, fromCode, in.bytes), nil
	}
	p := g.payload(s.Payload, 0, true, true)
	return fmt.Sprintf("r.sendrecvReplace(%d, %d, %s, %s, %s)", sendSite, recvSite, toCode, fromCode, p.bytes), []payload{p}
}

// collective writes bcast, reduce, allreduce, scan, scatter, gather,
// allgather and alltoall.
func (g *generator) collective(s *lang.CommStmt) (string, []payload) {
	receives := s.Kind != lang.Gather && s.Kind != lang.Allgather && s.Kind != lang.Alltoall
	p := g.payload(s.Payload, 0, receives, receives)
	st := site{kind: "siteColl", stmt: g.pos(s), coll: s.Kind.String(), elem: p.name}
	if s.Op != lang.NoReduce {
		st.redop = s.Op.String()
	}
	root := ""
	if s.Peer != nil {
		st.peer = lang.ExprString(s.Peer)
		root = g.expr(s.Peer, "int").text
	}
	id := g.commSite(st)
	var call string
	switch s.Kind {
	case lang.Bcast:
		call = fmt.Sprintf("r.bcast(%d, %s, %s)", id, root, p.bytes)
	case lang.Reduce:
		call = fmt.Sprintf("r.reduce(%d, %s, %s, %s, %s)", id, root, reduceOp(s.Op), p.elem, p.bytes)
	case lang.Allreduce:
		call = fmt.Sprintf("r.allreduce(%d, %s, %s, %s)", id, reduceOp(s.Op), p.elem, p.bytes)
	case lang.Scan:
		call = fmt.Sprintf("r.scan(%d, %s, %s, %s)", id, reduceOp(s.Op), p.elem, p.bytes)
	case lang.Scatter:
		call = fmt.Sprintf("r.scatter(%d, %s, %s, %s)", id, root, p.elem, p.bytes)
	case lang.Gather:
		call = fmt.Sprintf("r.gather(%d, %s, %s, %s)", id, root, p.elem, p.bytes)
	case lang.Allgather:
		call = fmt.Sprintf("r.allgather(%d, %s, %s)", id, p.elem, p.bytes)
	case lang.Alltoall:
		call = fmt.Sprintf("r.alltoall(%d, %s, %s)", id, p.elem, p.bytes)
	default:
		g.fail(s, "%s", lang.UnhandledComm("codegen: collective", s.Kind))
	}
	return call, []payload{p}
}
