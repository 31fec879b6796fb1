package lang

import (
	"fmt"
	"strings"
)

// The checker's side of procedures: it checks the expanded kernel
// (expand.go) and only words its messages for them.

// expand expands the calls of k, turning a panic of the expander (a
// statement kind without a clone rule) into an error. It returns nil when
// the kernel cannot be checked.
func (c *checker) expand(k *Kernel) (expanded *Kernel) {
	defer func() {
		if r := recover(); r != nil {
			c.errs.Addf(c.pos(k.Pos()), "%v", r)
			expanded = nil
		}
	}()
	expanded, c.exp = expandKernel(c.file, k, &c.errs)
	return expanded
}

// callContext is what errorf appends to a message at p inside expanded
// calls: " (in the call of halo at 12:5)", and for calls inside calls
// the chain out to the kernel, innermost first. A position inside the call
// statement itself (an argument) is the caller's: that call is left out.
func (c *checker) callContext(p Pos) string {
	i := len(c.calls) - 1
	for ; i >= 0; i-- {
		call := c.calls[i].Call
		if p < call.CallPos || p > call.Rparen {
			break
		}
	}
	if i < 0 {
		return ""
	}
	var parts []string
	for ; i >= 0; i-- {
		x := c.calls[i]
		parts = append(parts, fmt.Sprintf("in the call of %s at %s", x.Proc.Name.Name, c.lineCol(x.Call.CallPos)))
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// letProblem words a problem of a let: msg for a let the author wrote,
// and for the let that binds a static argument (expand.go) a message about
// the argument, whose problem is that it what.
func (c *checker) letProblem(s *LetStmt, msg, what string) string {
	b, ok := c.exp.bindings[s]
	if !ok {
		return msg
	}
	return fmt.Sprintf("argument %d of proc %s (parameter %s) %s; pass an array or a var by its bare name, "+
		"or a static number", b.index+1, b.exp.Proc.Name.Name, b.param.Name, what)
}

// unusedProcs warns of every proc that no kernel and no other proc of f
// calls: it is never checked either, since only expansions are.
func unusedProcs(f *File) ErrorList {
	called := map[string]bool{}
	Inspect(f, func(n Node) bool {
		if s, ok := n.(*ProcCallStmt); ok {
			called[s.Name.Name] = true
		}
		_, isExpr := n.(Expr)
		return !isExpr
	})
	var out ErrorList
	for _, p := range f.Procs {
		if !called[p.Name.Name] {
			out.Addf(f.Source.Position(p.Name.NamePos), "proc %s is never called", p.Name.Name)
		}
	}
	return out
}
