package analyze

import (
	"math/big"
	"strings"

	"perfc/analyze/symbolic"
	"perfc/lang"
)

// peerVaries is the Message.Rank of a peer that changes from iteration to
// iteration (it depends on a loop index).
const peerVaries = -2

// comm adds one communication statement's traffic to c.
func (ra *rankAnalysis) comm(l *leaf, c *Counts) error {
	s := l.stmt.(*lang.CommStmt)
	switch s.Kind {
	case lang.Send:
		return ra.p2p("send", s, s.Payload, s.Peer, l, c)
	case lang.Recv:
		return ra.p2p("recv", s, s.Payload, s.Peer, l, c)
	case lang.ISend:
		return ra.p2p("isend", s, s.Payload, s.Peer, l, c)
	case lang.IRecv:
		return ra.p2p("irecv", s, s.Payload, s.Peer, l, c)
	case lang.SendRecv:
		if err := ra.p2p("send", s, s.Payload, s.Peer, l, c); err != nil {
			return err
		}
		into := s.Into
		if into == nil {
			into = s.Payload
		}
		return ra.p2p("recv", s, into, s.From, l, c)
	case lang.Exchange:
		if err := ra.p2p("send", s, s.Payload, s.Peer, l, c); err != nil {
			return err
		}
		return ra.p2p("recv", s, s.Payload, s.Peer, l, c)
	case lang.Barrier:
		n, err := ra.exec(l, l.chain)
		if err != nil {
			return err
		}
		c.Barriers = c.Barriers.add(n)
		return nil
	case lang.Bcast, lang.Reduce, lang.Allreduce, lang.Scatter, lang.Gather, lang.Allgather, lang.Alltoall, lang.Scan:
		return ra.collective(s, l, c)
	default:
		return ra.errorf(s, "%s", lang.UnhandledComm("analyze: count communication", s.Kind))
	}
}

// p2p adds one direction of a point-to-point statement.
func (ra *rankAnalysis) p2p(kind string, s *lang.CommStmt, pl *lang.Payload, peer lang.Expr, l *leaf, c *Counts) error {
	msg := Message{Kind: kind, Stmt: ra.place(s), Peer: ra.source(peer)}
	if e := ra.payloadElem(pl); e != lang.NoElem {
		msg.Elem = e.String()
	}
	var count, bytes Count
	if ra.k.Info.Deps[peer]&lang.DepIndex == 0 {
		v, err := ra.k.EvalInt(peer, &lang.Env{Rank: ra.rank})
		if err != nil {
			return err
		}
		if !ra.validPeer(v) {
			return ra.peerOutside(peer, v, l)
		}
		ra.record(decision{expr: peer, peer: true, holds: v >= 0})
		if v < 0 {
			return nil // peer none: the statement does nothing on this rank
		}
		msg.Rank = v
		if count, err = ra.exec(l, l.chain); err != nil {
			return err
		}
		if bytes, err = ra.bytesOver(l, pl); err != nil {
			return err
		}
	} else {
		msg.Rank = peerVaries
		live := func(env *lang.Env) (bool, error) {
			v, err := ra.k.EvalInt(peer, env)
			if err == nil {
				err = ra.checkPeer(peer, v)
			}
			return v >= 0, err
		}
		reads := []lang.Node{peer, pl}
		countOf := func(env *lang.Env) (int64, error) {
			ok, err := live(env)
			if err != nil || !ok {
				return 0, err
			}
			return 1, nil
		}
		bytesOf := func(env *lang.Env) (int64, error) {
			ok, err := live(env)
			if err != nil || !ok {
				return 0, err
			}
			return ra.payloadBytesAt(pl, env)
		}
		res, err := ra.sumShared(l.chain, intWeight(msg.Stmt+" "+kind+" count", reads, "peer "+msg.Peer+" depends on a loop index", countOf))
		if err != nil {
			return err
		}
		ra.note(res, l)
		count = Count{Value: res.value, Formula: res.formula}
		if size, ok := ra.fixedPayloadBytes(pl); ok {
			// Every message has the same size: the bytes need no second
			// enumeration.
			v := ratMul(count.Value, symbolic.NewInt64Rat(size))
			bytes = Count{Value: v, Formula: symbolic.Const(v)}
		} else {
			res, err = ra.sumShared(l.chain, intWeight(msg.Stmt+" "+kind+" bytes", reads, "peer "+msg.Peer+" depends on a loop index", bytesOf))
			if err != nil {
				return err
			}
			bytes = Count{Value: res.value, Formula: res.formula}
		}
	}
	if count.IsZero() {
		return nil
	}
	msg.Count, msg.Bytes = count, bytes
	c.Messages = append(c.Messages, msg)
	if msg.Rank == peerVaries {
		ra.peers = append(ra.peers, nil)
	} else {
		ra.peers = append(ra.peers, peer)
	}
	return nil
}

// checkPeer rejects a peer that is neither none nor a rank of the kernel.
func (ra *rankAnalysis) checkPeer(peer lang.Expr, v int64) error {
	if ra.validPeer(v) {
		return nil
	}
	return ra.peerError(peer, v)
}

// validPeer reports whether v is none (-1) or a rank of the kernel.
func (ra *rankAnalysis) validPeer(v int64) bool {
	return v == -1 || (v >= 0 && v < ra.k.NumRanks())
}

// peerOutside handles a peer that is no rank on this rank: it is an error
// only where the statement runs. A pipeline's `if rank < P - 1 { send … to
// rank + 1 }` names rank P on its last rank, which never sends. The guards
// that keep the statement from running are the chain's rank decisions, which
// exec records, so a rank that decides alike runs it as rarely.
func (ra *rankAnalysis) peerOutside(peer lang.Expr, v int64, l *leaf) error {
	n, err := ra.exec(l, l.chain)
	if err != nil {
		return err
	}
	if n.IsZero() {
		return nil // the statement does not run on this rank
	}
	return ra.peerError(peer, v)
}

// peerError reports a peer outside the ranks on a rank where its statement
// runs, with the two ways out: a guard that keeps the statement to the
// ranks that have the peer (a pipeline), or a periodic form (a ring).
func (ra *rankAnalysis) peerError(peer lang.Expr, v int64) error {
	text := lang.ExprString(peer)
	guard := text + " < P"
	if v < 0 {
		guard = text + " >= 0"
	}
	periodic := text
	if strings.ContainsRune(text, ' ') {
		periodic = "(" + text + ")"
	}
	return ra.errorf(peer, "peer %s is %d on rank %d, where the statement runs, but the ranks are 0 to %d; "+
		"guard the statement with 'if %s { … }' so that it runs only on ranks that have the peer (a pipeline), "+
		"or use a periodic form such as %s %% P (a ring), or none",
		text, v, ra.rank, ra.k.NumRanks()-1, guard, periodic)
}

// collective adds one collective statement.
func (ra *rankAnalysis) collective(s *lang.CommStmt, l *leaf, c *Counts) error {
	n, err := ra.exec(l, l.chain)
	if err != nil {
		return err
	}
	bytes, err := ra.bytesOver(l, s.Payload)
	if err != nil {
		return err
	}
	col := Collective{
		Kind: s.Kind.String(), Stmt: ra.place(s),
		Participants: ra.k.NumRanks(), Count: n, Bytes: bytes,
		AfterBarrier: ra.p.afterBarrier()[s],
	}
	if s.Op != lang.NoReduce {
		col.Op = s.Op.String()
	}
	if e := ra.payloadElem(s.Payload); e != lang.NoElem {
		col.Elem = e.String()
	}
	if s.Peer != nil {
		col.Root = ra.source(s.Peer)
	}
	c.Collectives = append(c.Collectives, col)
	return nil
}

// bytesOver sums a payload's size over every execution of leaf l.
func (ra *rankAnalysis) bytesOver(l *leaf, pl *lang.Payload) (Count, error) {
	size, err := ra.sharedPayloadBytes(pl, l.chain)
	if err != nil {
		return Count{}, err
	}
	if size != nil && ra.onlySymbols(*size) {
		// The same size at every execution: executions times size, with
		// no second sum over the loops.
		n, err := ra.exec(l, l.chain)
		if err != nil {
			return Count{}, err
		}
		v, err := size.Eval(ra.env)
		if err != nil {
			return Count{}, err
		}
		ra.noteRankFormula(*size)
		out := Count{Value: ratMul(n.Value, v), Symbolic: n.Symbolic}
		if n.Symbolic {
			out.Formula = n.Formula.Mul(*size)
		} else {
			out.Formula = symbolic.Const(out.Value)
		}
		return out, nil
	}
	var w weight
	if size == nil {
		w = weight{why: "payload size of " + ra.position(pl).String() + " is not a polynomial", concrete: func(env *lang.Env) (*big.Rat, error) {
			n, err := ra.payloadBytesAt(pl, env)
			return symbolic.NewInt64Rat(n), err
		}}
	} else {
		w = weight{poly: *size}
	}
	res, err := ra.sumChain(l.chain, w)
	if err != nil {
		return Count{}, err
	}
	ra.note(res, l)
	return Count{Value: res.value, Formula: res.formula, Symbolic: res.symbolic}, nil
}

// payloadElem returns the element type a payload moves (NoElem for bytes).
func (ra *rankAnalysis) payloadElem(pl *lang.Payload) lang.ElemType {
	if pl == nil || pl.Name == nil {
		return lang.NoElem
	}
	if obj := ra.k.Info.Uses[pl.Name]; obj != nil {
		return obj.Elem
	}
	return lang.NoElem
}

// sharedPayloadBytes is payloadBytes, kept in the plan for every rank when
// working it out made no rank-dependent decision and no new symbol.
func (ra *rankAnalysis) sharedPayloadBytes(pl *lang.Payload, chain []level) (*symbolic.Poly, error) {
	if size, ok := ra.p.payloadSizes[pl]; ok && (size == nil || ra.bound([]item{{val: *size}}, chain)) {
		return size, nil
	}
	decisions, atoms := len(ra.decisions), len(ra.atoms)
	size, err := ra.payloadBytes(pl)
	if err != nil || len(ra.decisions) != decisions || len(ra.atoms) != atoms || (size != nil && ra.rankDependentPoly(*size)) {
		return size, err
	}
	if ra.p.payloadSizes == nil {
		ra.p.payloadSizes = map[*lang.Payload]*symbolic.Poly{}
	}
	ra.p.payloadSizes[pl] = size
	return size, nil
}

// payloadBytes returns a payload's size in bytes as a polynomial in the
// symbols and loop indices, or nil when it is not one.
func (ra *rankAnalysis) payloadBytes(pl *lang.Payload) (*symbolic.Poly, error) {
	if pl == nil {
		z := symbolic.Poly{}
		return &z, nil
	}
	single := func(e lang.Expr) (*symbolic.Poly, error) {
		ps, err := ra.pieces(e)
		if err != nil {
			if isNonAffine(err) {
				return nil, nil
			}
			return nil, err
		}
		if len(ps) != 1 || len(ps[0].guards) != 0 {
			return nil, nil
		}
		return &ps[0].val, nil
	}
	if pl.Bytes != nil {
		return single(pl.Bytes)
	}
	obj := ra.k.Info.Uses[pl.Name]
	if obj == nil {
		return nil, ra.errorf(pl, "internal error: unresolved payload %s", pl.Name.Name)
	}
	size := symbolic.Int(int64(obj.Elem.Size()))
	if obj.Kind != lang.ArrayObj {
		return &size, nil
	}
	spec := ra.p.specs[obj]
	if spec == nil {
		return nil, nil
	}
	for _, sub := range pl.Subs {
		if !sub.IsRange() {
			continue
		}
		lo, err := single(sub.Lo)
		if err != nil || lo == nil {
			return nil, err
		}
		hi, err := single(sub.Hi)
		if err != nil || hi == nil {
			return nil, err
		}
		length := hi.Sub(*lo)
		if step := payloadStep(ra.k, sub); step != 1 {
			// ceil(length/step) is a polynomial only when the length is
			// a constant.
			v, ok := length.Constant()
			if !ok {
				return nil, nil
			}
			length = symbolic.Int(ceilDivRat(v, step))
		}
		size = size.Mul(length)
	}
	for _, d := range spec.Dims[min(len(pl.Subs), len(spec.Dims)):] {
		dp, err := single(d)
		if err != nil || dp == nil {
			return nil, err
		}
		size = size.Mul(*dp)
	}
	return &size, nil
}

// fixedPayloadBytes returns a payload's size when it is the same at every
// iteration and on every rank (its bounds read neither a loop index nor the
// rank), and whether it is.
func (ra *rankAnalysis) fixedPayloadBytes(pl *lang.Payload) (int64, bool) {
	if pl == nil {
		return 0, true
	}
	for _, e := range pl.SizeExprs() {
		if ra.k.Info.Deps[e]&(lang.DepIndex|lang.DepRank) != 0 {
			return 0, false
		}
	}
	n, err := ra.payloadBytesAt(pl, &lang.Env{Rank: ra.rank})
	return n, err == nil
}

// payloadBytesAt evaluates a payload's size at one concrete iteration.
func (ra *rankAnalysis) payloadBytesAt(pl *lang.Payload, env *lang.Env) (int64, error) {
	if pl == nil {
		return 0, nil
	}
	if pl.Bytes != nil {
		return ra.k.EvalInt(pl.Bytes, env)
	}
	obj := ra.k.Info.Uses[pl.Name]
	size := int64(obj.Elem.Size())
	if obj.Kind != lang.ArrayObj {
		return size, nil
	}
	for _, sub := range pl.Subs {
		if !sub.IsRange() {
			continue
		}
		lo, err := ra.k.EvalInt(sub.Lo, env)
		if err != nil {
			return 0, err
		}
		hi, err := ra.k.EvalInt(sub.Hi, env)
		if err != nil {
			return 0, err
		}
		size *= rangeCount(lo, hi, payloadStep(ra.k, sub))
	}
	for _, d := range obj.Dims[min(len(pl.Subs), len(obj.Dims)):] {
		size *= d
	}
	return size, nil
}

// payloadStep returns the step of a payload range (1 when absent; the
// checker made it a constant ≥ 1).
func payloadStep(k *lang.Checked, sub *lang.Subscript) int64 {
	if sub.Step == nil {
		return 1
	}
	if n, ok := k.Info.Values[sub.Step].Int64(); ok && n >= 1 {
		return n
	}
	return 1
}

// rangeCount is the number of elements lo, lo+step, … below hi.
func rangeCount(lo, hi, step int64) int64 {
	if hi <= lo {
		return 0
	}
	return (hi - lo + step - 1) / step
}

// ceilDivRat returns ceil(v/step) for v ≥ 0 (0 below).
func ceilDivRat(v *big.Rat, step int64) int64 {
	if v.Sign() <= 0 {
		return 0
	}
	q := new(big.Rat).Quo(v, big.NewRat(step, 1))
	n := new(big.Int).Quo(q.Num(), q.Denom())
	if new(big.Rat).SetInt(n).Cmp(q) != 0 {
		n.Add(n, big.NewInt(1))
	}
	return n.Int64()
}

// intWeight makes a concrete weight from an integer-valued function of the
// iteration, traced once per value of the indices reads read.
func intWeight(id string, reads []lang.Node, why string, f func(env *lang.Env) (int64, error)) weight {
	return weight{id: id, reads: reads, why: why, integer: f, concrete: func(env *lang.Env) (*big.Rat, error) {
		n, err := f(env)
		return symbolic.NewInt64Rat(n), err
	}}
}
