package lang

// work returns the fields of a WorkStmt: its items, in order.
func (b *jsonBuilder) work(s *WorkStmt) *jsonObject {
	o := b.object("Work", s)
	o.set("items", jsonList(s.Items, b.workItem))
	return o
}

// workItem returns the object of one item of a work statement: a WorkOp
// ("count", "kind", "elem") or a WorkMem ("kind" load or store, "bytes",
// and "array" or "set" when given).
func (b *jsonBuilder) workItem(it WorkItem) *jsonObject {
	switch it := it.(type) {
	case *WorkOp:
		o := b.object("WorkOp", it)
		o.set("count", b.required(it.Count, "operation count"))
		o.set("kind", it.Kind)
		o.set("elem", b.elem(it.Elem))
		return b.finish(o, it)
	case *WorkMem:
		o := b.object("WorkMem", it)
		o.set("kind", it.Word())
		o.set("bytes", b.required(it.Bytes, "byte count"))
		if it.Array != nil {
			o.set("array", b.name(it.Array))
		}
		o.set("set", b.optional(it.Set))
		return b.finish(o, it)
	}
	b.fail("unknown work item type %T", it)
	return nil
}
