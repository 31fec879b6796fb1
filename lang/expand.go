package lang

import (
	"fmt"
	"strings"
)

// Expansion of procedure calls (docs/language.md, "Procedures"). Check
// expands the calls of the kernel it checks before anything else looks at
// the kernel: each `call p(args)` becomes a block holding p's body, cloned
// with fresh nodes (so that the Info of one call is not the Info of
// another), its parameters bound to the arguments and its own names renamed
// where they would collide with the caller's. The checked kernel therefore
// holds no call, and the analyzer, pricing, emulation and codegen see
// ordinary statements: a region inside a proc is a region of the kernel,
// and a proc called twice adds up in that region as a loop's body does,
// since regions are keyed by name.
//
// Binding a parameter:
//
//   - An argument that is a bare name visible at the call (an array, a var,
//     a parameter, a let, a loop index, rank, P …) makes the parameter
//     another name for it: every use of the parameter in the body is
//     replaced by that name. This is how arrays and vars are passed.
//   - A direction (east …), none or a neighbor(dx, dy) call is a peer,
//     which no let can hold: it replaces the parameter wherever the body
//     uses it (a fresh copy at each use).
//   - Any other argument is a static value: the expansion starts with
//     `let PARAM = ARG`, which the checker checks as a let, so that the
//     argument may be any number a let may hold (an int or a float, also one
//     that depends on the rank or a loop index, never on data).
//
// Hygiene: a proc sees only its parameters, its own declarations and the
// predeclared names (checked once per definition, checkProcDefinitions). A
// name the body declares, or a let-bound parameter, that is visible at the
// call or spelled in the call's arguments is renamed NAME_PROC (NAME_PROC2,
// … when that is taken too) in the expansion, so that neither side can
// capture the other's names; messages about the expansion show the new name.
// Request names (isend/irecv … as NAME) of a proc are renamed in the same
// way when the calling kernel's own body uses the name.

// Budgets of an expansion, so that no file can make Check run away: a
// proc that calls another twice, thirty deep, would expand to 2^30 copies.
const (
	// maxExpandedNodes bounds the nodes of one expanded kernel: ten times
	// the nodes the largest file the parser accepts can hold (about one a
	// token, parser.maxTokens).
	maxExpandedNodes = 1_000_000
	// maxExpandedNesting bounds the blocks nested in an expanded kernel
	// (each call adds one, around the proc's body, so this bounds calls
	// inside calls too): the parser's bound on a kernel written by hand,
	// so that no stage meets deeper nests from procs than from a file.
	maxExpandedNesting = 64
)

// Expansion is one expanded call: the call, the proc it called and the
// expansion the call itself was in (nil for a call in the kernel's body).
type Expansion struct {
	Call   *ProcCallStmt
	Proc   *Proc
	Parent *Expansion
}

// expansions is what Check needs to know of the expanded kernel: which
// blocks are expansions (for the "in the call of" part of messages) and
// which lets bind parameters (for their messages).
type expansions struct {
	blocks   map[*Block]*Expansion
	bindings map[*LetStmt]paramBinding
}

// paramBinding is a `let PARAM = ARG` made for a static argument.
type paramBinding struct {
	exp   *Expansion
	param *Ident // the parameter as the proc declares it
	index int    // its position, from 0
}

// expander holds the state of expanding one kernel.
type expander struct {
	file  *File
	src   *Source
	errs  *ErrorList
	procs map[string]*Proc // the first proc of each name
	defs  map[*Proc]*procDef
	taken map[string]bool // every name spelled in the file, and the names made up
	reqs  map[string]bool // request names the kernel's own body uses
	nodes int64           // nodes of the expanded kernel so far
	over  bool            // the node budget was exceeded (reported once)
	out   expansions
}

// expandKernel returns k with every call expanded, and what it recorded
// on the way. A kernel without calls is returned as it is. Errors (unknown
// proc, wrong argument count, recursion, a budget) are added to errs and
// the call is replaced by an empty block, so that checking can go on.
func expandKernel(f *File, k *Kernel, errs *ErrorList) (*Kernel, expansions) {
	out := expansions{blocks: map[*Block]*Expansion{}, bindings: map[*LetStmt]paramBinding{}}
	e := &expander{file: f, src: f.Source, errs: errs, out: out}
	e.procs, e.defs = checkProcDefinitions(f, errs)
	if !hasCalls(k.Body) {
		return k, out
	}
	e.taken = namesSpelled(f)
	e.reqs = requestNames(k.Body)
	e.nodes = countNodes(k.Body)
	sc := &nameScope{names: map[string]bool{"rank": true, "P": true}}
	if k.Ranks != nil && k.Ranks.Grid {
		for _, n := range []string{"Px", "Py", "rx", "ry"} {
			sc.names[n] = true
		}
	}
	for _, p := range k.Params {
		sc.names[p.Name.Name] = true
	}
	body := e.block(k.Body, sc, nil)
	expanded := *k
	expanded.Body = body
	return &expanded, e.out
}

// errorf reports an error at p.
func (e *expander) errorf(p Pos, format string, args ...any) {
	e.errs.Addf(e.src.Position(p), format, args...)
}

// lineCol formats p as line:col.
func (e *expander) lineCol(p Pos) string {
	pos := e.src.Position(p)
	return fmt.Sprintf("%d:%d", pos.Line, pos.Col)
}

// nameScope is the names visible at a point of the kernel being expanded,
// block by block; only whether a name is visible matters here.
type nameScope struct {
	parent *nameScope
	names  map[string]bool
	depth  int // the blocks around this scope's names, its own included
}

// has reports whether name is visible in s.
func (s *nameScope) has(name string) bool {
	for ; s != nil; s = s.parent {
		if s.names[name] {
			return true
		}
	}
	return false
}

// child returns the scope of a block inside s.
func (s *nameScope) child() *nameScope {
	return &nameScope{parent: s, names: map[string]bool{}, depth: s.depth + 1}
}

// index returns the scope of a loop index, which is no block: the loop's
// body is.
func (s *nameScope) index() *nameScope {
	return &nameScope{parent: s, names: map[string]bool{}, depth: s.depth}
}

// block expands the calls in b, returning b itself when it has none.
func (e *expander) block(b *Block, sc *nameScope, exp *Expansion) *Block {
	stmts, changed := e.stmts(b.Stmts, sc.child(), exp)
	if !changed {
		return b
	}
	return &Block{Lbrace: b.Lbrace, Stmts: stmts, Rbrace: b.Rbrace}
}

// stmts expands a list of statements in scope sc, declaring their names
// in sc as it goes; changed says whether any statement was replaced.
func (e *expander) stmts(list []Stmt, sc *nameScope, exp *Expansion) ([]Stmt, bool) {
	out := make([]Stmt, len(list))
	changed := false
	for i, s := range list {
		out[i] = e.stmt(s, sc, exp)
		changed = changed || out[i] != s
		for _, id := range declaredBy(s) {
			sc.names[id.Name] = true
		}
	}
	return out, changed
}

// stmt expands the calls in s; a statement without calls is returned as
// it is (statements of kinds the expander has no rule for hold no block,
// so they hold no call either).
func (e *expander) stmt(s Stmt, sc *nameScope, exp *Expansion) Stmt {
	switch s := s.(type) {
	case *ProcCallStmt:
		return e.call(s, sc, exp)
	case *Block:
		return e.block(s, sc, exp)
	case *ForStmt:
		inner := sc.index()
		inner.names[s.Var.Name] = true
		if body := e.block(s.Body, inner, exp); body != s.Body {
			c := *s
			c.Body = body
			return &c
		}
	case *RepeatStmt:
		if body := e.block(s.Body, sc, exp); body != s.Body {
			c := *s
			c.Body = body
			return &c
		}
	case *RegionStmt:
		if body := e.block(s.Body, sc, exp); body != s.Body {
			c := *s
			c.Body = body
			return &c
		}
	case *IfStmt:
		then := e.block(s.Then, sc, exp)
		var els Stmt
		if s.Else != nil {
			els = e.stmt(s.Else, sc, exp)
		}
		if then != s.Then || els != s.Else {
			c := *s
			c.Then, c.Else = then, els
			return &c
		}
	}
	return s
}

// emptyExpansion stands for a call that cannot be expanded (the error is
// reported): an empty block at the call.
func emptyExpansion(s *ProcCallStmt) *Block {
	return &Block{Lbrace: s.CallPos, Rbrace: s.Rparen}
}

// call expands one call: the bindings of its parameters, then the proc's
// body, cloned and renamed, with the calls inside it expanded in turn.
func (e *expander) call(s *ProcCallStmt, sc *nameScope, exp *Expansion) Stmt {
	p := e.procs[s.Name.Name]
	inProc := exp != nil
	switch {
	case p == nil:
		if !inProc { // calls inside procs are reported at their definition
			e.errorf(s.Name.NamePos, "%s", e.unknownProc(s.Name.Name))
		}
		return emptyExpansion(s)
	case len(s.Args) != len(p.Params):
		if !inProc {
			e.errorf(s.CallPos, "%s", arityMessage(p, len(s.Args), e.lineCol(p.ProcPos)))
		}
		return emptyExpansion(s)
	case e.defs[p].recursive || e.defs[p].broken:
		return emptyExpansion(s) // reported at the definition
	}
	x := &Expansion{Call: s, Proc: p, Parent: exp}
	if nest := sc.depth + e.defs[p].depth; nest > maxExpandedNesting {
		e.errorf(s.CallPos, "expanding the call of %s would nest blocks %d deep, more than %d; "+
			"flatten the procs it calls, or call it from a shallower place", p.Name.Name, nest, maxExpandedNesting)
		return emptyExpansion(s)
	}
	size := e.defs[p].size
	if e.over || e.nodes+size > maxExpandedNodes {
		if !e.over {
			e.errorf(s.CallPos, "expanding the call of %s would make the expanded kernel larger than %d nodes (this call alone expands to %s); "+
				"procs that call procs multiply: call fewer times, or use a loop", p.Name.Name, maxExpandedNodes, sizeText(size))
			e.over = true
		}
		return emptyExpansion(s)
	}
	e.nodes += size

	conflicts := func(name string) bool { return sc.has(name) || mentions(s.Args, name) }
	rename := map[string]string{}
	peers := map[string]Expr{}
	var lets []Stmt
	for i, param := range p.Params {
		arg := s.Args[i]
		if id, ok := arg.(*Ident); ok && sc.has(id.Name) {
			rename[param.Name] = id.Name
			continue
		}
		if isPeerArgument(arg) {
			peers[param.Name] = arg
			continue
		}
		name := param.Name
		if conflicts(name) {
			name = e.fresh(name, p.Name.Name)
			rename[param.Name] = name
		}
		let := &LetStmt{LetPos: arg.Pos(), Name: &Ident{NamePos: param.NamePos, Name: name}, Value: arg}
		e.out.bindings[let] = paramBinding{exp: x, param: param, index: i}
		lets = append(lets, let)
	}
	for _, name := range e.defs[p].locals {
		if conflicts(name) || e.reqs[name] {
			rename[name] = e.fresh(name, p.Name.Name)
		}
	}
	body := cloneBlock(p.Body, &renaming{names: rename, peers: peers})
	stmts, _ := e.stmts(append(lets, body.Stmts...), sc.child(), x)
	expanded := &Block{Lbrace: body.Lbrace, Stmts: stmts, Rbrace: body.Rbrace}
	e.out.blocks[expanded] = x
	return expanded
}

// isPeerArgument reports whether arg is a direction, none or a
// neighbor(…) call, which no let can hold: such an argument replaces the
// parameter wherever the body uses it.
func isPeerArgument(arg Expr) bool {
	switch a := Unparen(arg).(type) {
	case *DirExpr, *NoneLit:
		return true
	case *CallExpr:
		return a.Fun.Name == "neighbor"
	}
	return false
}

// fresh returns a name made from name and proc that is spelled nowhere in
// the file and was not made before.
func (e *expander) fresh(name, proc string) string {
	base := name + "_" + proc
	for n := 1; ; n++ {
		cand := base
		if n > 1 {
			cand = fmt.Sprintf("%s%d", base, n)
		}
		if !e.taken[cand] {
			e.taken[cand] = true
			return cand
		}
	}
}

// unknownProc explains a call of a proc the file does not declare.
func (e *expander) unknownProc(name string) string {
	return unknownProcMessage(name, e.procs, e.file)
}

// unknownProcMessage is the message of a call of an undeclared proc; f
// tells a kernel of that name apart.
func unknownProcMessage(name string, procs map[string]*Proc, f *File) string {
	if f.Kernel(name) != nil {
		return fmt.Sprintf("%s is a kernel, not a proc, and kernels cannot be called; move the code both need into a proc", name)
	}
	if len(procs) == 0 {
		return fmt.Sprintf("no proc named %s: the file declares no proc; declare it with 'proc %s(…) { … }'", name, name)
	}
	return fmt.Sprintf("no proc named %s; the file's procs are %s", name, strings.Join(sortedKeys(procs), ", "))
}

// arityMessage explains a call with the wrong number of arguments.
func arityMessage(p *Proc, got int, at string) string {
	names := make([]string, len(p.Params))
	for i, id := range p.Params {
		names[i] = id.Name
	}
	return fmt.Sprintf("proc %s takes %s (%s), declared at %s, but the call passes %d",
		p.Name.Name, plural(len(p.Params), "argument", "arguments"), strings.Join(names, ", "), at, got)
}

// sizeText writes a node count, "more than a billion" once it saturates.
func sizeText(n int64) string {
	if n >= sizeSaturated {
		return "more than a billion nodes"
	}
	return fmt.Sprintf("%d nodes", n)
}

// mentions reports whether any of xs uses name.
func mentions(xs []Expr, name string) bool {
	found := false
	for _, x := range xs {
		Inspect(x, func(n Node) bool {
			if id, ok := n.(*Ident); ok && id.Name == name {
				found = true
			}
			return !found
		})
	}
	return found
}

// declaredBy returns the names a statement declares in its enclosing
// block (not those of its own body, such as a loop index).
func declaredBy(s Stmt) []*Ident {
	switch s := s.(type) {
	case *LetStmt:
		return []*Ident{s.Name}
	case *ArrayDecl:
		out := make([]*Ident, 0, len(s.Arrays))
		for _, a := range s.Arrays {
			out = append(out, a.Name)
		}
		return out
	case *VarDecl:
		return s.Names
	}
	return nil
}

// hasCalls reports whether n holds a call.
func hasCalls(n Node) bool {
	found := false
	Inspect(n, func(n Node) bool {
		if _, ok := n.(*ProcCallStmt); ok {
			found = true
		}
		_, isExpr := n.(Expr)
		return !found && !isExpr
	})
	return found
}

// namesSpelled returns every identifier written in f.
func namesSpelled(f *File) map[string]bool {
	names := map[string]bool{}
	Inspect(f, func(n Node) bool {
		if id, ok := n.(*Ident); ok {
			names[id.Name] = true
		}
		return true
	})
	return names
}

// requestNames returns the request names used in n.
func requestNames(n Node) map[string]bool {
	names := map[string]bool{}
	Inspect(n, func(n Node) bool {
		switch s := n.(type) {
		case *CommStmt:
			if s.Req != nil {
				names[s.Req.Name] = true
			}
		case *WaitStmt:
			for _, r := range s.Reqs {
				names[r.Name] = true
			}
		}
		_, isExpr := n.(Expr)
		return !isExpr
	})
	return names
}

// countNodes counts the nodes of n, calls left out: what n adds to an
// expanded kernel by itself.
func countNodes(n Node) int64 {
	var count int64
	Inspect(n, func(n Node) bool {
		if _, ok := n.(*ProcCallStmt); ok {
			return false
		}
		count++
		return true
	})
	return count
}
