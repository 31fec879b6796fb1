package lang

import (
	"fmt"
	"math/big"
	"strings"
)

// The MPI-3 buffer rules of non-blocking messages. Between a post and its
// wait, the buffer of an irecv may be neither read nor written (the data
// arrives at an unknown moment), and the buffer of an isend may be read but
// not written (what is sent is what the buffer holds at some moment before
// the wait). MPI 3.0 lifted MPI 2's ban on reading a send buffer; the
// overlapped halo exchange needs that, because the interior update reads
// the rows being sent.
//
// The checker reports an access only when it is certain: the access runs
// whenever the post does, after it and before any wait naming the request
// (it is under no if the post is not under, only loops), and the element
// range it touches, over those loops' static ranges, intersects the
// payload's. Anything less certain (a guard between, an index that is not
// affine, a payload that moves with the rank) is left alone.

// indexSpan is the inclusive range lo..hi of one index.
type indexSpan struct{ lo, hi int64 }

// meets reports whether two spans share an index.
func (s indexSpan) meets(t indexSpan) bool { return s.lo <= t.hi && t.lo <= s.hi }

// constInt returns the value of a constant integer expression.
func (c *checker) constInt(e Expr) (int64, bool) {
	if e == nil {
		return 0, false
	}
	v, ok := c.info.Values[e]
	if !ok {
		return 0, false
	}
	return v.Int64()
}

// payloadSpans returns the array or var a payload names and, for an
// array whose indices and range are constants, the index range of each
// dimension. A 'SIZE bytes' payload or an empty slice names no buffer.
func (c *checker) payloadSpans(pl *Payload) (*Object, []indexSpan) {
	if pl == nil || pl.Bytes != nil || pl.Name == nil {
		return nil, nil
	}
	obj := c.info.Uses[pl.Name]
	if obj == nil || (obj.Kind != ArrayObj && obj.Kind != VarObj) {
		return nil, nil
	}
	if obj.Kind == VarObj {
		return obj, nil
	}
	var spans []indexSpan
	for _, x := range pl.Index {
		v, ok := c.constInt(x)
		if !ok {
			return obj, nil
		}
		spans = append(spans, indexSpan{v, v})
	}
	if pl.HasRange() {
		lo, okLo := c.constInt(pl.Lo)
		hi, okHi := c.constInt(pl.Hi)
		switch {
		case !okLo || !okHi:
			return obj, nil
		case hi <= lo:
			return nil, nil
		}
		spans = append(spans, indexSpan{lo, hi - 1})
	}
	if len(spans) > len(obj.Dims) {
		return obj, nil
	}
	for _, d := range obj.Dims[len(spans):] {
		if d <= 0 {
			return nil, nil
		}
		spans = append(spans, indexSpan{0, d - 1})
	}
	return obj, spans
}

// bufferAccess reports a read or write of obj (an element at index, or a
// var) that certainly touches the buffer of a pending post.
func (c *checker) bufferAccess(n Node, obj *Object, index []Expr, write bool) {
	if c.dead > 0 || len(c.reqs.pending) == 0 {
		return
	}
	for _, p := range c.reqs.pending {
		if p.buf != obj || (p.stmt.Kind == ISend && !write) {
			continue
		}
		inner, ok := c.certainAfter(p)
		if !ok {
			continue
		}
		if obj.Kind == ArrayObj {
			if p.spans == nil || !c.accessHits(index, inner, p.spans) {
				continue
			}
		}
		c.bufferError(n, exprText(n.(Expr)), write, p)
		return
	}
}

// payloadAccess applies the buffer rules to the payloads of a
// point-to-point statement: what it sends is read, what it receives into
// is written.
func (c *checker) payloadAccess(s *CommStmt) {
	if c.dead > 0 || len(c.reqs.pending) == 0 {
		return
	}
	switch s.Kind {
	case Send, ISend:
		c.payloadTouch(s.Payload, false)
	case Recv, IRecv, Exchange:
		c.payloadTouch(s.Payload, true)
	case SendRecv:
		if s.Into == nil {
			c.payloadTouch(s.Payload, true)
			return
		}
		c.payloadTouch(s.Payload, false)
		c.payloadTouch(s.Into, true)
	}
}

// payloadTouch reports a payload that certainly overlaps the buffer of a
// pending post it may not touch.
func (c *checker) payloadTouch(pl *Payload, write bool) {
	obj, spans := c.payloadSpans(pl)
	if obj == nil {
		return
	}
	for _, p := range c.reqs.pending {
		if p.buf != obj || (p.stmt.Kind == ISend && !write) {
			continue
		}
		if _, ok := c.certainAfter(p); !ok {
			continue
		}
		if obj.Kind == ArrayObj && (spans == nil || p.spans == nil || !spansMeet(spans, p.spans)) {
			continue
		}
		c.bufferError(pl, payloadText(pl), write, p)
		return
	}
}

// spansMeet reports whether two boxes of indices intersect.
func spansMeet(a, b []indexSpan) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].meets(b[i]) {
			return false
		}
	}
	return true
}

// bufferError reports an access to the buffer of a pending post.
func (c *checker) bufferError(n Node, what string, write bool, p *pendingPost) {
	verb := "reads"
	if write {
		verb = "writes"
	}
	req, at, buf := p.stmt.Req.Name, c.lineCol(p.stmt.Pos()), payloadText(p.stmt.Payload)
	if p.stmt.Kind == IRecv {
		c.errorf(n, "%s %s the buffer %s of the irecv at %s before 'wait %s': the message may still be arriving; move this after the wait (an irecv buffer may be neither read nor written until then)",
			what, verb, buf, at, req)
		return
	}
	c.errorf(n, "%s writes the buffer %s of the isend at %s before 'wait %s': the message may still be leaving from it; move this after the wait (an isend buffer may be read, not written, until then)",
		what, buf, at, req)
}

// payloadText is a payload as written, for messages.
func payloadText(pl *Payload) string {
	if pl == nil || pl.Name == nil {
		return "?"
	}
	var b strings.Builder
	b.WriteString(pl.Name.Name)
	for _, x := range pl.Index {
		fmt.Fprintf(&b, "[%s]", exprText(x))
	}
	if pl.HasRange() {
		fmt.Fprintf(&b, "[%s:%s]", exprText(pl.Lo), exprText(pl.Hi))
	}
	return b.String()
}

// certainAfter reports whether the current statement runs whenever the
// pending post p does: the blocks entered since the blocks they share are
// no if branches. It returns the loops entered since, over whose ranges
// the current statement's indices run.
func (c *checker) certainAfter(p *pendingPost) ([]loopFrame, bool) {
	cur := c.reqs.path
	k := 0
	for k < len(cur) && k < len(p.path) && cur[k] == p.path[k] {
		k++
	}
	var inner []loopFrame
	for _, b := range cur[k:] {
		switch c.reqs.blocks[b] {
		case guardedBody:
			return nil, false
		case loopBody:
			if loop := c.loopOf(b); loop != nil {
				for _, fr := range c.loops {
					if fr.stmt == loop {
						inner = append(inner, fr)
					}
				}
			}
		}
	}
	return inner, true
}

// accessHits reports whether the elements index touches over the inner
// loops certainly include one of spans' box. Each index must be a
// constant, or ±i + c for the index i of an inner for loop with constant
// bounds, a step of 1 and at least one iteration, each loop used by one
// index at most (so that the touched elements are a full box).
func (c *checker) accessHits(index []Expr, inner []loopFrame, spans []indexSpan) bool {
	if len(index) != len(spans) {
		return false
	}
	used := map[*Object]bool{}
	for d, x := range index {
		f, ok := c.affineOf(x)
		if !ok || !f.c.IsInt() || !f.c.Num().IsInt64() {
			return false
		}
		base := f.c.Num().Int64()
		span := indexSpan{base, base}
		switch len(f.terms) {
		case 0:
		case 1:
			t := f.terms[0]
			r, ok := c.innerRange(t.v, inner)
			if !ok || used[t.v] || !t.a.IsInt() || t.a.Num().CmpAbs(big.NewInt(1)) != 0 {
				return false
			}
			used[t.v] = true
			if t.a.Sign() > 0 {
				span = indexSpan{base + r.lo, base + r.hi}
			} else {
				span = indexSpan{base - r.hi, base - r.lo}
			}
		default:
			return false
		}
		if !span.meets(spans[d]) {
			return false
		}
	}
	return true
}

// innerRange returns the values of v, the index of one of the inner loops
// with constant bounds, step 1 and at least one iteration.
func (c *checker) innerRange(v *Object, inner []loopFrame) (indexSpan, bool) {
	for _, fr := range inner {
		if fr.index != v || fr.step != 1 {
			continue
		}
		loop := fr.stmt.(*ForStmt)
		lo, okLo := c.constInt(loop.Lo)
		hi, okHi := c.constInt(loop.Hi)
		if !okLo || !okHi || hi <= lo {
			return indexSpan{}, false
		}
		return indexSpan{lo, hi - 1}, true
	}
	return indexSpan{}, false
}
