package lang

import (
	"math/big"
)

// namedPayload checks a payload that names a var or an array, and returns
// what it moves.
func (c *checker) namedPayload(p *Payload, ctx exprCtx) payloadInfo {
	obj := c.lookup(p.Name)
	if obj != nil && obj.Kind != ArrayObj && obj.Kind != VarObj {
		c.errorf(p.Name, "a payload must name an array or a var, but %s is %s; to move a size without data, write '%s bytes'",
			p.Name.Name, obj.Kind.article(), p.Name.Name)
		obj = nil
	}
	if obj != nil && obj.Kind == VarObj {
		if len(p.Subs) > 0 {
			c.errorf(p, "%s is a var, a single value; send it without indices or a range", p.Name.Name)
			obj = nil
		} else {
			c.record(p.Name, operand{typ: obj.Type, dep: DepData})
			one := constAffine(big.NewRat(1, 1))
			return payloadInfo{ok: true, elem: obj.Elem, count: &one}
		}
	}
	if obj != nil && len(p.Subs) > len(obj.Dims) {
		c.errorf(p, "%s has %s, but the payload gives %d", p.Name.Name, plural(len(obj.Dims), "dimension", "dimensions"), len(p.Subs))
		obj = nil
	}
	if obj == nil {
		for _, s := range p.Subs {
			for _, x := range []Expr{s.Index, s.Lo, s.Hi, s.Step} {
				if x != nil {
					c.value(x, ctx)
				}
			}
		}
		return payloadInfo{}
	}
	c.record(p.Name, operand{typ: obj.Type, dep: DepData})
	return c.arrayPayload(p, obj, ctx)
}

// arrayPayload checks the brackets of an array payload, each a fixed index
// or a range lo:hi[:step] inside its dimension, and returns the element
// count: the product of the ranges' lengths and the sizes of the
// dimensions after the last bracket. A payload that is not contiguous gets
// its pack and unpack loops (payloadpack.go).
func (c *checker) arrayPayload(p *Payload, obj *Object, ctx exprCtx) payloadInfo {
	info := payloadInfo{ok: true, elem: obj.Elem}
	count, known := constAffine(big.NewRat(1, 1)), true
	valid := true
	for dim, s := range p.Subs {
		if !s.IsRange() {
			op := c.intContext(s.Index, "an index", ctx)
			c.checkIndex(s.Index, op, ctx, obj, dim)
			valid = valid && op.typ != InvalidType
			continue
		}
		n, ok, good := c.payloadRange(s, obj, dim, ctx)
		valid = valid && good
		switch {
		case !ok || !known:
			known = false
		case n.isConst():
			count = count.scale(n.c)
		case count.isConst():
			count = n.scale(count.c)
		default:
			known = false // a product of two lengths that vary
		}
	}
	for _, d := range obj.Dims[len(p.Subs):] {
		count = count.scale(ratInt64(d))
	}
	if known {
		info.count = &count
	}
	if valid && !ctx.dead && !c.contiguous(p, obj) {
		c.buildPack(p, obj)
	}
	return info
}

// payloadRange checks the range lo:hi[:step] over dimension dim of a
// payload: 0 ≤ lo ≤ hi ≤ size where that can be decided, and a step that is
// a constant ≥ 1. It returns the number of elements the range selects
// (ceil((hi-lo)/step)) when it is affine, whether it is, and whether the
// range is free of errors in its types and step.
func (c *checker) payloadRange(s *Subscript, obj *Object, dim int, ctx exprCtx) (affine, bool, bool) {
	lo := c.intContext(s.Lo, "a slice bound", ctx)
	hi := c.intContext(s.Hi, "a slice bound", ctx)
	step, stepOK := c.payloadStep(s, ctx)
	size := ratInt64(obj.Dims[dim])
	fLo, okLo := c.boundsOf(s.Lo, lo, ctx)
	fHi, okHi := c.boundsOf(s.Hi, hi, ctx)
	known := obj.Dims[dim] > 0
	if okLo && known {
		if got, at, found := c.violation(fLo, new(big.Rat), size); found {
			c.errorf(s.Lo, "the slice start %s is outside %s (a slice lo:hi needs 0 ≤ lo ≤ hi ≤ %d)",
				valueAt(s.Lo, got.RatString(), at), dimText(obj, dim), obj.Dims[dim])
		}
	}
	if okHi && known {
		if got, at, found := c.violation(fHi, new(big.Rat), size); found {
			c.errorf(s.Hi, "the slice end %s is outside %s (a slice lo:hi needs 0 ≤ lo ≤ hi ≤ %d)",
				valueAt(s.Hi, got.RatString(), at), dimText(obj, dim), obj.Dims[dim])
		}
	}
	if okLo && okHi {
		length := fHi.addScaled(fLo, big.NewRat(-1, 1))
		if got, at, found := c.violation(length, new(big.Rat), nil); found {
			c.errorf(s.Lo, "the slice %s:%s has negative length %s%s; it must end where it starts or later",
				exprText(s.Lo), exprText(s.Hi), got.RatString(), at)
		}
	}
	good := lo.typ != InvalidType && hi.typ != InvalidType && stepOK
	fLo, okLo = c.affineOf(s.Lo)
	fHi, okHi = c.affineOf(s.Hi)
	if !okLo || !okHi || !good {
		return affine{}, false, good
	}
	length := fHi.addScaled(fLo, big.NewRat(-1, 1))
	if step == 1 {
		return length, true, good
	}
	if !length.isConst() {
		return affine{}, false, good // ceil of a length that varies is not affine
	}
	return constAffine(ratInt64(ceilDiv(length.c, step))), true, good
}

// payloadStep checks the step of a payload range and returns it (1 when
// absent): a constant, since a step that varied would make the element
// count and the pack loops' strides vary too, and at least 1.
func (c *checker) payloadStep(s *Subscript, ctx exprCtx) (int64, bool) {
	if s.Step == nil {
		return 1, true
	}
	op := c.intContext(s.Step, "a slice step", ctx)
	switch {
	case op.typ == InvalidType:
		return 0, false
	case op.dep != 0:
		c.errorf(s.Step, "the step of a slice must be the same on every rank and iteration, but %s; use parameters and lets",
			c.varies(s.Step, DepRank|DepIndex|DepData))
		return 0, false
	case !op.val.IsValid():
		return 0, false
	}
	n, ok := op.val.Int64()
	if !ok || n < 1 {
		c.valueErrorf(ctx, s.Step, "the step %s of the slice %s:%s:%s must be at least 1 (step 1 takes every element)",
			valueOf(s.Step, op.val.String()), exprText(s.Lo), exprText(s.Hi), exprText(s.Step))
		return 0, false
	}
	return n, true
}

// ceilDiv returns ceil(r/k) for a rational r ≥ 0 (0 for r < 0) and k ≥ 1.
func ceilDiv(r *big.Rat, k int64) int64 {
	if r.Sign() <= 0 {
		return 0
	}
	q := new(big.Rat).Quo(r, ratInt64(k))
	n := new(big.Int).Quo(q.Num(), q.Denom())
	if new(big.Rat).SetInt(n).Cmp(q) != 0 {
		n.Add(n, big.NewInt(1))
	}
	return n.Int64()
}
