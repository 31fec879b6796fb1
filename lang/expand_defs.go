package lang

import (
	"fmt"
	"slices"
	"strings"
)

// The checks of proc definitions, made once per Check for every proc of
// the file, whether the checked kernel calls it or not: a proc is part of
// the file, as a Go function is part of its package.

// procDef is what the expander needs to know of one proc.
type procDef struct {
	locals    []string // the names the body declares (let, array, var, for), each once
	calls     []*ProcCallStmt
	recursive bool  // on a cycle of calls: never expanded
	broken    bool  // its parameters or names are wrong (reported): never expanded
	size      int64 // nodes of one expansion, saturated at sizeSaturated
	depth     int   // the blocks one expansion nests, its own block included
}

// sizeSaturated caps expansion sizes, which multiply along chains of
// calls; anything at the cap is over every budget.
const sizeSaturated = int64(1) << 40

// checkProcDefinitions reports duplicate procs, bad parameters, names a
// body uses without declaring them, calls of unknown procs or with the
// wrong number of arguments inside procs, and recursion. It returns the
// first proc of each name and the facts of every proc.
func checkProcDefinitions(f *File, errs *ErrorList) (map[string]*Proc, map[*Proc]*procDef) {
	d := &defChecker{file: f, src: f.Source, errs: errs, procs: map[string]*Proc{}, defs: map[*Proc]*procDef{}}
	for _, p := range f.Procs {
		if first := d.procs[p.Name.Name]; first != nil {
			d.errorf(p.Name.NamePos, "proc %s is declared twice; the first is at %s: rename one of them",
				p.Name.Name, d.lineCol(first.Name.NamePos))
			continue
		}
		d.procs[p.Name.Name] = p
	}
	for _, p := range f.Procs {
		d.defs[p] = d.definition(p)
	}
	for _, p := range f.Procs {
		if d.procs[p.Name.Name] == p {
			d.checkCalls(p)
		}
	}
	d.findRecursion(f.Procs)
	for _, p := range f.Procs {
		d.sizeOf(p, map[*Proc]bool{})
		d.depthOf(p, map[*Proc]bool{})
	}
	return d.procs, d.defs
}

// defChecker holds the state of checkProcDefinitions.
type defChecker struct {
	file  *File
	src   *Source
	errs  *ErrorList
	procs map[string]*Proc
	defs  map[*Proc]*procDef
}

func (d *defChecker) errorf(p Pos, format string, args ...any) {
	d.errs.Addf(d.src.Position(p), format, args...)
}

func (d *defChecker) lineCol(p Pos) string {
	pos := d.src.Position(p)
	return fmt.Sprintf("%d:%d", pos.Line, pos.Col)
}

// definition checks one proc's parameters and names and collects its
// locals and calls.
func (d *defChecker) definition(p *Proc) *procDef {
	def := &procDef{}
	before := len(*d.errs)
	params := map[string]*Ident{}
	for _, id := range p.Params {
		switch {
		case params[id.Name] != nil:
			d.errorf(id.NamePos, "parameter %s of proc %s is declared twice; the first is at %s: rename one of them",
				id.Name, p.Name.Name, d.lineCol(params[id.Name].NamePos))
			continue
		case predeclaredMeaning(id.Name, true) != "":
			d.errorf(id.NamePos, "'%s' is predeclared (%s); choose another parameter name", id.Name, predeclaredMeaning(id.Name, true))
		case isIntrinsic(id.Name):
			d.errorf(id.NamePos, "'%s' is an intrinsic; choose another parameter name", id.Name)
		}
		params[id.Name] = id
	}
	w := &nameWalk{d: d, proc: p, params: params, reported: map[string]bool{}, locals: map[string]bool{}}
	w.block(p.Body, &nameScope{names: map[string]bool{}})
	def.broken = len(*d.errs) > before
	for name := range w.locals {
		def.locals = append(def.locals, name)
	}
	slices.Sort(def.locals)
	def.calls = w.calls
	return def
}

// nameWalk follows a proc body's scopes to find names used but not
// declared, and redeclared parameters.
type nameWalk struct {
	d        *defChecker
	proc     *Proc
	params   map[string]*Ident
	reported map[string]bool // free names already reported
	locals   map[string]bool
	calls    []*ProcCallStmt
}

func (w *nameWalk) block(b *Block, sc *nameScope) {
	inner := sc.child()
	for _, s := range b.Stmts {
		w.stmt(s, inner)
	}
}

// declare records a name the body declares.
func (w *nameWalk) declare(id *Ident, sc *nameScope) {
	if prm := w.params[id.Name]; prm != nil {
		w.d.errorf(id.NamePos, "'%s' is a parameter of proc %s (at %s); choose another name (a name cannot be redeclared or shadowed)",
			id.Name, w.proc.Name.Name, w.d.lineCol(prm.NamePos))
		return
	}
	w.locals[id.Name] = true
	sc.names[id.Name] = true
}

// stmt walks one statement: its expressions in sc, then its declarations.
func (w *nameWalk) stmt(s Stmt, sc *nameScope) {
	switch s := s.(type) {
	case *Block:
		w.block(s, sc)
		return
	case *ForStmt:
		w.exprs(sc, s.Lo, s.Hi, s.Step)
		inner := sc.child()
		w.declare(s.Var, inner)
		w.block(s.Body, inner)
		return
	case *RepeatStmt:
		w.exprs(sc, s.Count)
		w.block(s.Body, sc)
		return
	case *IfStmt:
		w.exprs(sc, s.Cond, s.Prob)
		w.block(s.Then, sc)
		if s.Else != nil {
			w.stmt(s.Else, sc)
		}
		return
	case *RegionStmt:
		w.block(s.Body, sc)
		return
	case *ProcCallStmt:
		w.calls = append(w.calls, s)
		w.exprs(sc, s.Args...)
		return
	case *CommStmt:
		w.payload(s.Payload, sc)
		w.payload(s.Into, sc)
		w.exprs(sc, s.Peer, s.From)
		if s.Req != nil { // request names are a namespace of their own, the proc's
			w.locals[s.Req.Name] = true
		}
		return
	case *WaitStmt:
		for _, r := range s.Reqs {
			w.locals[r.Name] = true
		}
		return
	case *LetStmt:
		w.exprs(sc, s.Value)
	case *ArrayDecl:
		for _, a := range s.Arrays {
			w.exprs(sc, a.Dims...)
		}
	case *VarDecl:
		w.exprs(sc, s.Init)
	case *AssignStmt:
		w.exprs(sc, s.Lhs, s.Rhs)
	default:
		// A statement kind without blocks or declarations: its
		// expressions are uses.
		Inspect(s, func(n Node) bool {
			if x, ok := n.(Expr); ok {
				w.exprs(sc, x)
				return false
			}
			return true
		})
	}
	for _, id := range declaredBy(s) {
		w.declare(id, sc)
	}
}

// payload checks the names a payload uses: its array or var, and every
// name in its sizes, indices and ranges, whatever their form.
func (w *nameWalk) payload(p *Payload, sc *nameScope) {
	if p == nil {
		return
	}
	Inspect(p, func(n Node) bool {
		if x, ok := n.(Expr); ok {
			w.exprs(sc, x)
			return false
		}
		return true
	})
}

// exprs checks the names used in xs (nil entries are skipped).
func (w *nameWalk) exprs(sc *nameScope, xs ...Expr) {
	for _, x := range xs {
		if x == nil {
			continue
		}
		Inspect(x, func(n Node) bool {
			switch n := n.(type) {
			case *CallExpr:
				w.exprs(sc, n.Args...) // the function is an intrinsic, not a name of the proc
				return false
			case *Ident:
				w.use(n, sc)
			}
			return true
		})
	}
}

// use reports a name that is neither a parameter, a name the body has
// declared where it is used, nor predeclared.
func (w *nameWalk) use(id *Ident, sc *nameScope) {
	name := id.Name
	if w.params[name] != nil || sc.has(name) || predeclaredMeaning(name, true) != "" || isIntrinsic(name) || w.reported[name] {
		return
	}
	w.reported[name] = true
	w.d.errorf(id.NamePos, "'%s' is not a parameter of proc %s nor declared in it before this use; "+
		"a proc sees only its parameters, its own declarations and rank, P (on a grid rx, ry, Px, Py): "+
		"add %s to the parameters of %s and pass it at the calls", name, w.proc.Name.Name, name, w.proc.Name.Name)
}

// checkCalls reports the calls inside p of procs the file lacks or with
// the wrong number of arguments.
func (d *defChecker) checkCalls(p *Proc) {
	for _, s := range d.defs[p].calls {
		callee := d.procs[s.Name.Name]
		switch {
		case callee == nil:
			d.errorf(s.Name.NamePos, "%s", unknownProcMessage(s.Name.Name, d.procs, d.file))
		case len(s.Args) != len(callee.Params):
			d.errorf(s.CallPos, "%s", arityMessage(callee, len(s.Args), d.lineCol(callee.ProcPos)))
		}
	}
}

// findRecursion reports every cycle of calls once, at the call that closes
// it, and marks the procs on it as never to be expanded.
func (d *defChecker) findRecursion(procs []*Proc) {
	const (
		unseen = iota
		open
		done
	)
	state := map[*Proc]int{}
	var stack []*Proc
	var visit func(p *Proc)
	visit = func(p *Proc) {
		state[p] = open
		stack = append(stack, p)
		for _, s := range d.defs[p].calls {
			callee := d.procs[s.Name.Name]
			if callee == nil {
				continue
			}
			switch state[callee] {
			case unseen:
				visit(callee)
			case open:
				i := slices.Index(stack, callee)
				var names []string
				for _, q := range stack[i:] {
					names = append(names, q.Name.Name)
					d.defs[q].recursive = true
				}
				names = append(names, callee.Name.Name)
				what := "calls itself"
				if len(names) > 2 {
					what = "calls itself through " + strings.Join(names[1:len(names)-1], ", ")
				}
				d.errorf(s.CallPos, "proc %s %s (%s); procs are expanded where they are called, so recursion never ends: "+
					"write the repetition as a loop", callee.Name.Name, what, strings.Join(names, " → "))
			}
		}
		stack = stack[:len(stack)-1]
		state[p] = done
	}
	for _, p := range procs {
		if d.procs[p.Name.Name] == p && state[p] == unseen {
			visit(p)
		}
	}
}

// sizeOf computes the nodes of one expansion of p (its own nodes, plus
// those of every call in it), memoised in its procDef.
func (d *defChecker) sizeOf(p *Proc, visiting map[*Proc]bool) int64 {
	def := d.defs[p]
	if def.size > 0 || def.recursive || visiting[p] {
		return def.size
	}
	visiting[p] = true
	size := countNodes(p.Body) + int64(len(p.Params))
	for _, s := range def.calls {
		if callee := d.procs[s.Name.Name]; callee != nil && len(s.Args) == len(callee.Params) {
			size = min(size+d.sizeOf(callee, visiting), sizeSaturated)
		}
	}
	visiting[p] = false
	def.size = size
	return size
}

// depthOf computes the blocks nested by one expansion of p, memoised in
// its procDef; calls of recursive procs count as nothing, since they are
// not expanded. The depth saturates at a bound far above every budget.
func (d *defChecker) depthOf(p *Proc, visiting map[*Proc]bool) int {
	def := d.defs[p]
	if def.depth > 0 || def.recursive || visiting[p] {
		return def.depth
	}
	visiting[p] = true
	var walk func(b *Block) int
	walk = func(b *Block) int {
		deepest := 0
		for _, s := range b.Stmts {
			Inspect(s, func(n Node) bool {
				switch n := n.(type) {
				case *Block:
					if n != b {
						deepest = max(deepest, walk(n))
						return false
					}
				case *ProcCallStmt:
					if callee := d.procs[n.Name.Name]; callee != nil && len(n.Args) == len(callee.Params) {
						deepest = max(deepest, d.depthOf(callee, visiting))
					}
					return false
				case Expr:
					return false
				}
				return true
			})
		}
		return min(1+deepest, 1<<20)
	}
	def.depth = walk(p.Body)
	visiting[p] = false
	return def.depth
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
