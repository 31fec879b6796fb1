package lang

import (
	"fmt"
	"slices"
	"strings"
)

// work checks `work ITEM {, ITEM}` and lowers it (worklower.go) into the
// synthetic loop nest that later stages see in its place. Counts and byte
// counts are static integers ≥ 0 (parameters and lets: the same on every
// rank and iteration, so that the nest has constant bounds); an operation
// kind is one the analyzer counts, in a type it applies to; an array
// exists and the bytes are whole elements of it; a working set holds at
// least one element.
func (c *checker) work(s *WorkStmt) {
	if len(s.Items) == 0 {
		c.errorf(s, "a work statement needs at least one item, as in 'work N add f64' or 'work load 8*N bytes from a'")
		return
	}
	ok := true
	var items []workItem
	for _, it := range s.Items {
		wi, good := c.workItem(it, s)
		ok = ok && good
		items = append(items, wi)
	}
	if !ok {
		return
	}
	if c.workNests == nil {
		c.workNests = map[*WorkStmt]*Block{}
		c.workVars = map[*VarDecl]bool{}
	}
	b := c.lowerWork(s, items)
	c.workNests[s] = b
	c.block(b)
}

// workItem is a checked item with its values: an operation item's count,
// kind and type, or a memory item's element count and the array it
// streams through (nil: a buffer of setElems elements of elem).
type workItem struct {
	op       *WorkOp
	mem      *WorkMem
	count    int64 // operations, or elements moved
	kind     string
	elem     ElemType
	array    *Object
	setBytes int64 // the working set of a buffer, in bytes
}

// workItem checks one item; ok is false after an error.
func (c *checker) workItem(it WorkItem, s *WorkStmt) (workItem, bool) {
	switch it := it.(type) {
	case *WorkOp:
		return c.workOp(it)
	case *WorkMem:
		return c.workMem(it, s)
	}
	c.unhandled("lang: check work item", it)
	return workItem{}, false
}

// workOp checks `COUNT KIND TYPE`.
func (c *checker) workOp(it *WorkOp) (workItem, bool) {
	n, ok := c.workCount(it.Count, "operation count")
	wi := workItem{op: it, count: n, kind: it.Kind, elem: it.Elem}
	if !slices.Contains(workOpKinds[:], it.Kind) {
		c.errs.Addf(c.pos(it.KindPos), "'%s' is not an operation kind; write one of %s (flop counts as add)",
			it.Kind, strings.Join(workOpKinds[:], ", "))
		return wi, false
	}
	if it.Elem == NoElem {
		c.errs.Addf(c.pos(it.ElemPos), "the work item has no element type; write f64, f32, i64 or i32 after '%s'", it.Kind)
		return wi, false
	}
	switch {
	case slices.Contains(workIntOnly[:], it.Kind) && it.Elem.IsFloat():
		c.errs.Addf(c.pos(it.ElemPos), "%s is an integer operation, not one in %s; write i64 or i32", it.Kind, it.Elem)
		return wi, false
	case slices.Contains(workFloatOnly[:], it.Kind) && !it.Elem.IsFloat():
		c.errs.Addf(c.pos(it.ElemPos), "%s is a floating-point operation, not one in %s; write f64 or f32", it.Kind, it.Elem)
		return wi, false
	}
	return wi, ok
}

// workMem checks `load BYTES bytes [from ARRAY | in SET]` and its store.
func (c *checker) workMem(it *WorkMem, s *WorkStmt) (workItem, bool) {
	bytes, ok := c.workCount(it.Bytes, "byte count")
	wi := workItem{mem: it, elem: workBufferElem(s)}
	if it.Array != nil && it.Set != nil {
		// Only a tree built by a program can have both.
		c.errorf(it, "a %s streams through an array or a working set, not both; drop '%s %s' or 'in %s'",
			it.Word(), it.Preposition(), it.Array.Name, exprText(it.Set))
		return wi, false
	}
	if it.Array != nil {
		obj := c.lookup(it.Array)
		switch {
		case obj == nil:
			return wi, false
		case obj.Kind != ArrayObj:
			c.errorf(it.Array, "a %s streams through an array, but %s is %s; name an array, or write 'in SIZE' for a working set of SIZE bytes",
				it.Word(), it.Array.Name, obj.Kind.article())
			return wi, false
		case slices.ContainsFunc(obj.Dims, func(d int64) bool { return d < 1 }):
			// The declaration has its error already (a dimension must be
			// at least 1); an empty array has nothing to stream through.
			return wi, false
		}
		c.record(it.Array, operand{typ: obj.Type, dep: DepData})
		wi.array, wi.elem = obj, obj.Elem
	}
	set := bytes
	if it.Set != nil {
		var good bool
		set, good = c.workCount(it.Set, "working set size")
		ok = ok && good
	}
	if !ok {
		return wi, false
	}
	size := int64(wi.elem.Size())
	if bytes%size != 0 {
		what := fmt.Sprintf("the working set has %d-byte elements (%s, the type of the statement's first operation item, or f64)", size, wi.elem)
		if it.Array != nil {
			what = fmt.Sprintf("%s has %d-byte elements (%s)", it.Array.Name, size, wi.elem)
		}
		c.errorf(it.Bytes, "%s %s bytes: %s; the byte count must be a multiple of %d",
			it.Word(), valueOf(it.Bytes, fmt.Sprint(bytes)), what, size)
		return wi, false
	}
	wi.count = bytes / size
	if wi.array == nil {
		if set < size || set%size != 0 {
			at := Node(it.Bytes)
			if it.Set != nil {
				at = it.Set
			}
			c.errorf(at, "the working set of %s bytes must hold whole %d-byte elements (%s), at least one; write a multiple of %d",
				valueOf(at.(Expr), fmt.Sprint(set)), size, wi.elem, size)
			return wi, false
		}
		wi.setBytes = set
	}
	return wi, true
}

// workBufferElem is the element type of a work statement's buffers (its
// `in SET` working sets and the buffers of items without an array): the
// type of its first operation item, f64 when it has none.
func workBufferElem(s *WorkStmt) ElemType {
	for _, it := range s.Items {
		if op, ok := it.(*WorkOp); ok && op.Elem != NoElem {
			return op.Elem
		}
	}
	return F64
}

// workCount checks a count of a work item (what names it, without an
// article): a static integer ≥ 0.
func (c *checker) workCount(e Expr, what string) (int64, bool) {
	op := c.intContext(e, "the "+what, exprCtx{})
	switch {
	case op.typ == InvalidType:
		return 0, false
	case op.dep != 0:
		hint := "use parameters and lets"
		if op.dep&DepRank != 0 {
			hint += ", and state work that differs between ranks under an if on rank"
		}
		c.errorf(e, "the %s of a work item must be the same on every rank and iteration, but %s; %s",
			what, c.varies(e, DepRank|DepIndex), hint)
		return 0, false
	case !op.val.IsValid():
		return 0, false
	}
	n, ok := op.val.Int64()
	switch {
	case !ok && op.val.sign() > 0:
		c.errorf(e, "the %s %s is too large (at most 2^63-1)", what, valueOf(e, op.val.String()))
		return 0, false
	case !ok || n < 0:
		c.errorf(e, "the %s %s must be at least 0", what, valueOf(e, op.val.String()))
		return 0, false
	}
	return n, true
}

// lowerWork makes Kernel the copy of the written kernel with every work
// statement replaced by its nest (a Block); the statements around them are
// copied along the path from the body, the rest is shared. Loop index
// objects point to the copied loops.
func (ck *Checked) lowerWork(nests map[*WorkStmt]*Block, vars map[*VarDecl]bool) {
	if len(nests) == 0 {
		return
	}
	ck.written, ck.workVars = ck.Kernel, vars
	k := *ck.Kernel
	k.Body = ck.replaceWork(k.Body, nests).(*Block)
	ck.Kernel = &k
}

// replaceWork returns s with the work statements inside it replaced, or s
// itself when it holds none.
func (ck *Checked) replaceWork(s Stmt, nests map[*WorkStmt]*Block) Stmt {
	block := func(b *Block) *Block { return ck.replaceWork(b, nests).(*Block) }
	switch s := s.(type) {
	case *WorkStmt:
		return nests[s]
	case *Block:
		var out *Block
		for i, x := range s.Stmts {
			y := ck.replaceWork(x, nests)
			if y == x {
				continue
			}
			if out == nil {
				cp := *s
				cp.Stmts = slices.Clone(s.Stmts)
				out = &cp
			}
			out.Stmts[i] = y
		}
		if out == nil {
			return s
		}
		return out
	case *ForStmt:
		if body := block(s.Body); body != s.Body {
			cp := *s
			cp.Body = body
			if obj := ck.Info.Defs[s.Var]; obj != nil {
				obj.Loop = &cp
			}
			return &cp
		}
	case *RepeatStmt:
		if body := block(s.Body); body != s.Body {
			cp := *s
			cp.Body = body
			return &cp
		}
	case *RegionStmt:
		if body := block(s.Body); body != s.Body {
			cp := *s
			cp.Body = body
			return &cp
		}
	case *IfStmt:
		then := block(s.Then)
		var els Stmt
		if s.Else != nil {
			els = ck.replaceWork(s.Else, nests)
		}
		if then != s.Then || els != s.Else {
			cp := *s
			cp.Then, cp.Else = then, els
			return &cp
		}
	}
	return s
}

// Written returns the kernel as written: Kernel itself, or, when the
// kernel has work statements, the kernel that Kernel lowers.
func (ck *Checked) Written() *Kernel {
	if ck.written != nil {
		return ck.written
	}
	return ck.Kernel
}

// IsWorkVar reports whether d declares a var of a work statement's nest
// (accumulators, operands, loaded and stored values). The generated
// program hides their initial values from the Go compiler and keeps all
// their final values, since the compiler could otherwise fold the
// arithmetic or drop the loads, and the work would disappear from the
// timed program.
func (ck *Checked) IsWorkVar(d *VarDecl) bool { return ck.workVars[d] }

// HasWork reports whether the kernel has work statements, which Kernel
// holds lowered.
func (ck *Checked) HasWork() bool { return ck.written != nil }
