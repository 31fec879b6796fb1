package codegen

import (
	"fmt"

	"perfc/lang"
)

// A payload that is not one contiguous run of memory (a column, a block,
// a strided slice) is copied through its scratch buffer, a kernel array
// the checker adds (lang.Pack): the statement's pack loops run before the
// call and its unpack loops after it (lang.CommPack). They are written by
// the generator's own statement writer, so the counting build counts
// their loads and stores at the sites the analyzer counted them, and the
// call moves the buffer's first COUNT elements. A contiguous payload moves
// straight from the array, with no copy.

// packBefore writes the pack loops statement s runs before its transfer.
func (g *generator) packBefore(s *lang.CommStmt) {
	if cp := g.info.CommPacks[s]; cp != nil {
		for _, st := range cp.Before {
			g.stmt(st)
		}
	}
}

// unpackAfter writes the unpack loops statement s runs once its data has
// arrived: after a blocking call, or at the wait that completes a
// non-blocking receive. It is one call so that the writer of the wait
// can make it there.
func (g *generator) unpackAfter(s *lang.CommStmt) {
	cp := g.info.CommPacks[s]
	if cp == nil || len(cp.After) == 0 {
		return
	}
	if s.Kind == lang.IRecv {
		// The data arrives by the wait that completes the request: the
		// unpack loops are a closure over this iteration's values, which
		// that wait calls (unpackAtWait).
		g.line("%s = func() {", g.unpackFunc(s))
		defer g.line("}")
	}
	for _, st := range cp.After {
		g.stmt(st)
	}
}

// unpackFunc names the closure that unpacks what irecv s received,
// declaring it in the prologue on first use.
func (g *generator) unpackFunc(s *lang.CommStmt) string {
	if name, ok := g.unpackFuncs[s]; ok {
		return name
	}
	if g.unpackFuncs == nil {
		g.unpackFuncs = map[*lang.CommStmt]string{}
	}
	name := fmt.Sprintf("unpack%d", len(g.unpackFuncs))
	g.unpackFuncs[s] = name
	fmt.Fprintf(&g.prologue, "var %s func() // unpacks the irecv at %s\n_ = %s\n", name, g.lineCol(s), name)
	return name
}

// unpackAtWait writes, after a wait that may complete request req, the
// unpacking of every packed irecv that posts it, for the one that this
// wait completed.
func (g *generator) unpackAtWait(req string, num int) {
	lang.Inspect(g.k.Kernel.Body, func(n lang.Node) bool {
		s, ok := n.(*lang.CommStmt)
		if !ok || s.Kind != lang.IRecv || s.Req == nil || s.Req.Name != req {
			return true
		}
		if cp := g.info.CommPacks[s]; cp != nil && len(cp.After) > 0 {
			name := g.unpackFunc(s)
			g.line("if r.completedAt(%d) == %q && %s != nil { %s(); %s = nil }", num, g.pos(s), name, name, name)
		}
		return true
	})
}

// packedView writes the []byte view of the buffer of a packed payload:
// its first count elements, count the payload's element count at this
// iteration (the product of its ranges' lengths and the trailing
// dimensions), as the analyzer counts the message's bytes.
func (g *generator) packedView(pl *lang.Payload, pk *lang.Pack) string {
	g.imports["unsafe"] = true
	obj := g.info.Uses[pl.Name]
	size := int64(obj.Elem.Size())
	count := g.intLit(1)
	for d, n := range obj.Dims {
		if d >= len(pl.Subs) {
			count = g.product(count, g.intLit(n))
			continue
		}
		sub := pl.Subs[d]
		if !sub.IsRange() {
			continue
		}
		count = g.product(count, g.rangeCount(sub))
	}
	return fmt.Sprintf("view(unsafe.Pointer(%s), %d, 0, %s)", g.names.name(pk.Buffer), pk.Buffer.Dims[0]*size, scaled(count, size))
}

// rangeCount writes the element count of a payload range: hi - lo, or
// (hi - lo + step - 1) / step with the checker's constant step (hi ≥ lo
// where the statement runs: the checker and the analyzer reject a slice
// of negative length).
func (g *generator) rangeCount(sub *lang.Subscript) code {
	n := g.minus(g.expr(sub.Hi, "int"), g.expr(sub.Lo, "int"))
	step := int64(1)
	if sub.Step != nil {
		if v, ok := g.info.Values[sub.Step].Int64(); ok && v > 1 {
			step = v
		}
	}
	if step == 1 {
		return n
	}
	if n.lit != nil {
		v := n.lit.Rat().Num().Int64()
		return g.intLit((v + step - 1) / step)
	}
	return code{text: fmt.Sprintf("(%s + %d) / %d", paren(n, 4), step-1, step), prec: 5, typ: "int"}
}

// product writes x*y, folding literals.
func (g *generator) product(x, y code) code {
	switch {
	case x.lit != nil && y.lit != nil:
		return g.intLit(x.lit.Rat().Num().Int64() * y.lit.Rat().Num().Int64())
	case x.lit != nil && x.lit.Rat().Num().Int64() == 1:
		return y
	case y.lit != nil && y.lit.Rat().Num().Int64() == 1:
		return x
	}
	return code{text: paren(x, 5) + "*" + paren(y, 5), prec: 5, typ: "int"}
}
