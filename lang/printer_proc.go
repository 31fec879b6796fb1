package lang

import "slices"

// The printer's rules for procedures: `proc name(a, b) { … }` at file
// level, in source order among the kernels, and `call name(args)`.

// printFileItems returns the kernels and procs of f in source order. In a
// hand-built tree without positions the kernels come first, then the procs.
func printFileItems(f *File) []Node {
	items := make([]Node, 0, len(f.Kernels)+len(f.Procs))
	allPlaced := true
	for _, k := range f.Kernels {
		items = append(items, k)
		allPlaced = allPlaced && k != nil && k.Pos().IsValid()
	}
	for _, pr := range f.Procs {
		items = append(items, pr)
		allPlaced = allPlaced && pr != nil && pr.Pos().IsValid()
	}
	if allPlaced {
		slices.SortStableFunc(items, func(a, b Node) int { return int(a.Pos()) - int(b.Pos()) })
	}
	// A nil *Kernel or *Proc in a Node is not a nil Node: report it as one.
	for i, it := range items {
		switch it := it.(type) {
		case *Kernel:
			if it == nil {
				items[i] = nil
			}
		case *Proc:
			if it == nil {
				items[i] = nil
			}
		}
	}
	return items
}

// proc prints `proc name(a, b) { body }`.
func (p *printer) proc(pr *Proc) {
	p.text("proc ")
	p.ident(pr.Name)
	p.text("(")
	for i, id := range pr.Params {
		if i > 0 {
			p.text(", ")
		}
		p.ident(id)
	}
	p.text(") ")
	p.block(pr.Body)
	p.advance(printEnd(pr.Body))
}

// procCall prints `call name(args)`.
func (p *printer) procCall(s *ProcCallStmt) {
	p.text("call ")
	p.ident(s.Name)
	p.text("(")
	for i, a := range s.Args {
		if i > 0 {
			p.text(", ")
		}
		p.expr(a, false)
	}
	p.text(")")
}
