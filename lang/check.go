package lang

import (
	"fmt"
	"math/big"
	"strings"
)

// Override is one -D NAME=VALUE from the command line.
type Override struct{ Name, Value string }

// Checked is a kernel that passed the checker, with its parameters bound.
type Checked struct {
	File   *File
	Kernel *Kernel // with every proc call expanded (expand.go); File holds it as written
	Info   *Info
	Params []*Object // kernel parameters in order, then P (or Px, Py, then P); each with its Value
	geom   rankGeometry
	// Warnings are what is suspicious but not wrong, such as a proc that
	// nothing calls; callers print them and go on.
	Warnings ErrorList
	// compiled holds the int64 closures of the static expressions
	// (compile.go); read-only after Check, so a Checked may be shared.
	compiled map[Expr]compiledExpr
	// written is the kernel as written when Kernel is its copy with the
	// work statements lowered (checkwork.go); workVars are the lowered
	// vars whose initial values code generation hides (IsWorkVar).
	written  *Kernel
	workVars map[*VarDecl]bool
	// loopOrdinals tells apart loops at one position (loopkeys.go).
	loopOrdinals map[Node]int
}

// NumRanks returns P, the number of ranks.
func (c *Checked) NumRanks() int64 { return c.geom.ranks }

// Grid returns the grid shape of a kernel declared 'on grid(Px, Py)'.
func (c *Checked) Grid() (px, py int64, ok bool) { return c.geom.px, c.geom.py, c.geom.grid }

// Param returns the value of a parameter (P, Px and Py included).
func (c *Checked) Param(name string) (Value, bool) {
	for _, p := range c.Params {
		if p.Name == name {
			return p.Value, true
		}
	}
	return Value{}, false
}

// overrideFile names the position of errors in -D NAME=VALUE arguments.
const overrideFile = "-D"

// Check type-checks kernel `name` of f ("" = the first kernel) with its
// parameters bound to their defaults overridden by overrides, and evaluates
// everything static. It returns a Checked kernel, or every error found
// (sorted, de-duplicated) as an error whose concrete type is ErrorList, as
// parser.ParseFile does: errors.As(err, &list) recovers the list, and
// list.Format(f.Source) prints each error with its source line and a caret.
func Check(f *File, name string, overrides []Override) (*Checked, error) {
	if f == nil {
		return nil, ErrorList{{Msg: "no file to check"}}
	}
	c := &checker{file: f, src: f.Source, info: newInfo()}
	if k := c.selectKernel(name); k != nil {
		if k = c.expand(k); k != nil {
			c.checkKernel(k, overrides)
		}
	}
	c.errs.RemoveMultiples()
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	ck := &Checked{File: f, Kernel: c.kernel, Info: c.info, Params: c.params, geom: c.geom,
		compiled: compileAll(c.info, c.geom), Warnings: unusedProcs(f)}
	ck.lowerWork(c.workNests, c.workVars)
	ck.loopOrdinals = loopOrdinals(ck.Kernel)
	return ck, nil
}

// checker holds the state of checking one kernel. Scopes, loop and
// condition stacks follow the walk; Info accumulates what was found.
type checker struct {
	file   *File
	src    *Source
	info   *Info
	errs   ErrorList
	kernel *Kernel
	params []*Object

	geom   rankGeometry
	geomOK bool // P (and Px, Py) are known; peers can be range-checked
	rankV  struct{ rank, rx, ry *Object }

	scope      *scope
	decls      map[string]Pos       // first declaration of each name in the kernel, for messages
	declaring  []*Ident             // the names whose initialiser is being checked
	inDefaults bool                 // checking parameter defaults: rank is not available yet
	dead       int                  // > 0 inside statements that never run for these parameters
	loops      []loopFrame          // enclosing for and repeat loops, outermost first
	conds      []condFrame          // enclosing ifs whose condition is not constant
	arrayBytes big.Int              // the bytes of the arrays declared so far: one rank's footprint
	reqs       requestState         // the requests of isend and irecv (checkreq.go)
	workNests  map[*WorkStmt]*Block // the lowered nest of every work statement (checkwork.go)
	workVars   map[*VarDecl]bool    // the vars of those nests whose values are hidden (IsWorkVar)

	exp   expansions   // the expanded calls of the kernel (expand.go)
	calls []*Expansion // the expansions being checked, outermost first
}

// loopFrame is an enclosing for or repeat loop.
type loopFrame struct {
	stmt  Stmt    // *ForStmt or *RepeatStmt
	index *Object // the for loop's index; nil for repeat
	dep   Dep     // what the bounds or the count depend on
	step  int64   // for loops: the step, 0 when unknown
}

// condFrame is an enclosing if whose condition varies by rank, iteration or
// data.
type condFrame struct {
	stmt *IfStmt
	dep  Dep
}

// pos resolves a compact position.
func (c *checker) pos(p Pos) Position { return c.src.Position(p) }

// unhandled reports a statement or expression kind the checker has no
// rule for (lang.Unhandled), at n's position when n is not nil.
func (c *checker) unhandled(stage string, n Node) {
	var pos Position
	if n != nil {
		pos = c.pos(n.Pos())
	}
	c.errs.Add(pos, Unhandled(stage, n))
}

// errorf reports an error at node n; inside an expanded proc call the
// message ends with the call it came from (checkproc.go).
func (c *checker) errorf(n Node, format string, args ...any) {
	c.errorAt(n.Pos(), fmt.Sprintf(format, args...))
}

// errorAt reports msg at p, with the call context of errorf.
func (c *checker) errorAt(p Pos, msg string) {
	c.errs.Add(c.pos(p), msg+c.callContext(p))
}

// overrideErrorf reports an error in the -D arguments.
func (c *checker) overrideErrorf(format string, args ...any) {
	c.errs.Addf(Position{Filename: overrideFile}, format, args...)
}

// lineCol formats p as line:col for "declared at" hints.
func (c *checker) lineCol(p Pos) string {
	pos := c.pos(p)
	if !pos.IsValid() {
		return "an unknown position"
	}
	return fmt.Sprintf("%d:%d", pos.Line, pos.Col)
}

// fileName is the name of the checked file, for errors without a line.
func (c *checker) fileName() string {
	if c.src == nil {
		return ""
	}
	return c.src.Name
}

// selectKernel finds the kernel to check and reports kernels declared
// twice, since `perfc predict -k name` could not tell them apart.
func (c *checker) selectKernel(name string) *Kernel {
	seen := map[string]*Kernel{}
	var names []string
	for _, k := range c.file.Kernels {
		if first := seen[k.Name.Name]; first != nil {
			c.errorf(k.Name, "kernel %s is declared twice; the first is at %s: rename one of them",
				k.Name.Name, c.lineCol(first.Name.Pos()))
			continue
		}
		seen[k.Name.Name] = k
		names = append(names, k.Name.Name)
	}
	switch {
	case len(c.file.Kernels) == 0:
		c.errs.Add(Position{Filename: c.fileName()}, "the file declares no kernel; write 'kernel name(…) { … }'")
		return nil
	case name == "":
		return c.file.Kernels[0]
	}
	if k := seen[name]; k != nil {
		return k
	}
	c.errs.Addf(Position{Filename: c.fileName()}, "the file has no kernel %s; its kernels are %s",
		name, strings.Join(names, ", "))
	return nil
}

// checkKernel checks one kernel: parameters, the rank clause, the body.
func (c *checker) checkKernel(k *Kernel, overrides []Override) {
	c.kernel = k
	c.decls = collectDecls(k)
	universe := newUniverse()
	c.rankV.rank = universe.lookup("rank")
	c.scope = newScope(universe)

	ovs := c.indexOverrides(overrides)
	c.inDefaults = true
	for _, p := range k.Params {
		c.declName(p.Name)
		c.param(p, ovs)
	}
	c.rankClause(k, ovs)
	c.inDefaults = false
	c.unknownOverrides(k, ovs)
	c.collectRequests(k)

	if k.Body != nil {
		c.block(k.Body)
	}
}

// collectDecls records where each name of the kernel is first declared,
// so that an undefined name can be explained ("used before its
// declaration", "declared in a block that has ended").
func collectDecls(k *Kernel) map[string]Pos {
	decls := map[string]Pos{}
	add := func(id *Ident) {
		if id == nil {
			return
		}
		if _, ok := decls[id.Name]; !ok {
			decls[id.Name] = id.NamePos
		}
	}
	for _, p := range k.Params {
		add(p.Name)
	}
	if k.Ranks != nil {
		for _, p := range k.Ranks.Params {
			add(p.Name)
		}
	}
	Inspect(k.Body, func(n Node) bool {
		switch n := n.(type) {
		case *LetStmt:
			add(n.Name)
		case *ArraySpec:
			add(n.Name)
		case *VarDecl:
			for _, id := range n.Names {
				add(id)
			}
		case *ForStmt:
			add(n.Var)
		case Expr:
			return false // names in expressions are uses
		}
		return true
	})
	return decls
}

// indexOverrides maps -D names to their overrides; a name given twice is
// an error rather than a silent "last one wins".
func (c *checker) indexOverrides(overrides []Override) map[string]Override {
	byName := map[string]Override{}
	for _, ov := range overrides {
		if ov.Name == "" {
			c.overrideErrorf("=%s has no name; write -D NAME=VALUE", ov.Value)
			continue
		}
		if prev, ok := byName[ov.Name]; ok {
			c.overrideErrorf("%s is set twice (%s=%s and %s=%s); give it once",
				ov.Name, ov.Name, prev.Value, ov.Name, ov.Value)
			continue
		}
		byName[ov.Name] = ov
	}
	return byName
}

// unknownOverrides reports -D names that are not parameters of the kernel.
func (c *checker) unknownOverrides(k *Kernel, ovs map[string]Override) {
	var names []string
	for _, p := range c.params {
		if p.Kind == ParamObj {
			names = append(names, p.Name)
		}
	}
	for name := range ovs {
		if len(names) == 0 {
			c.overrideErrorf("kernel %s has no parameter '%s'; it has no parameters", k.Name.Name, name)
			continue
		}
		c.overrideErrorf("kernel %s has no parameter '%s'; its parameters are %s",
			k.Name.Name, name, strings.Join(names, ", "))
	}
}

// param checks a parameter's default, binds the parameter to the default
// or to its -D override, and declares it. It reports whether the value
// came from the command line.
func (c *checker) param(p *Param, ovs map[string]Override) (obj *Object, overridden bool) {
	op := c.value(p.Default, exprCtx{})
	obj = &Object{Kind: ParamObj, Name: p.Name.Name, Ident: p.Name, Type: InvalidType}
	switch {
	case op.typ == InvalidType:
	case op.typ.IsInteger():
		obj.Type = IntType
	case op.typ.IsFloat():
		obj.Type = FloatType
	default:
		c.errorf(p.Default, "the default of %s must be a number, not %s", p.Name.Name, op.typ.article())
	}
	if obj.Type != InvalidType && op.val.IsValid() {
		obj.Value = op.val
		if obj.Type == IntType && !fitsInt64(op.val.rat) {
			c.errorf(p.Default, "the default of %s is %s; an integer parameter must fit 64 bits", p.Name.Name, op.val)
			obj.Value = Value{}
		}
	}
	if ov, ok := ovs[p.Name.Name]; ok {
		delete(ovs, p.Name.Name)
		overridden = true
		if obj.Type != InvalidType {
			v, err := parseOverride(ov, obj.Type)
			if err != nil {
				c.overrideErrorf("%v", err)
			}
			obj.Value = v
		}
	}
	c.info.Defs[p.Name] = obj
	c.scope.insert(obj)
	c.params = append(c.params, obj)
	return obj, overridden
}

// rankClause declares P (and on a grid Px, Py, rx, ry) from the kernel's
// 'on' clause, and checks that the rank counts are at least 1.
func (c *checker) rankClause(k *Kernel, ovs map[string]Override) {
	rs := k.Ranks
	if ov, ok := ovs["P"]; ok && (rs == nil || rs.Grid) {
		delete(ovs, "P")
		if rs == nil {
			c.overrideErrorf("P=%s: kernel %s runs on one rank; declare 'on P = … ranks' to make P a parameter",
				ov.Value, k.Name.Name)
		} else {
			c.overrideErrorf("P=%s: on a grid P is Px*Py; set -D Px=… and -D Py=… instead", ov.Value)
		}
	}
	switch {
	case rs == nil:
		c.declareP(1)
		c.geom, c.geomOK = rankGeometry{ranks: 1}, true
	case !rs.Grid:
		if len(rs.Params) != 1 || rs.Params[0].Name.Name != "P" {
			c.errorf(rs, "write the rank count as 'on P = 32 ranks'")
			c.declareP(1)
			return
		}
		obj, ovd := c.param(rs.Params[0], ovs)
		p, ok := c.rankCount(obj, rs.Params[0], ovd)
		c.geom, c.geomOK = rankGeometry{ranks: p}, ok
	default:
		c.gridClause(rs, ovs)
	}
}

// gridClause declares Px, Py as parameters and P = Px*Py, rx, ry as
// builtins.
func (c *checker) gridClause(rs *RankSpec, ovs map[string]Override) {
	if len(rs.Params) != 2 || rs.Params[0].Name.Name != "Px" || rs.Params[1].Name.Name != "Py" {
		c.errorf(rs, "write the grid as 'on grid(Px = 4, Py = 4)'")
		c.declareP(1)
		return
	}
	objX, ovdX := c.param(rs.Params[0], ovs)
	px, okX := c.rankCount(objX, rs.Params[0], ovdX)
	objY, ovdY := c.param(rs.Params[1], ovs)
	py, okY := c.rankCount(objY, rs.Params[1], ovdY)
	ranks := new(big.Int).Mul(big.NewInt(px), big.NewInt(py))
	ok := okX && okY
	if !ranks.IsInt64() {
		c.errorf(rs, "the grid has %s ranks; that is too many", ranks)
		ranks, ok = big.NewInt(1), false
	}
	c.declareP(ranks.Int64())
	c.geom, c.geomOK = rankGeometry{ranks: ranks.Int64(), grid: true, px: px, py: py}, ok
	c.rankV.rx = &Object{Kind: BuiltinObj, Name: "rx", Type: IntType, Dep: DepRank}
	c.rankV.ry = &Object{Kind: BuiltinObj, Name: "ry", Type: IntType, Dep: DepRank}
	c.scope.insert(c.rankV.rx)
	c.scope.insert(c.rankV.ry)
}

// declareP declares P as a builtin with a known value (one rank without
// 'on', Px*Py on a grid).
func (c *checker) declareP(ranks int64) {
	obj := &Object{Kind: BuiltinObj, Name: "P", Type: IntType, Value: MakeInt(ranks)}
	c.scope.insert(obj)
	c.params = append(c.params, obj)
}

// rankCount checks that a rank count (P, Px or Py) is an integer ≥ 1 and
// returns it. After an error it returns 1, so that checking can go on, and
// forgets the parameter's value, so that it causes no further errors.
func (c *checker) rankCount(obj *Object, p *Param, overridden bool) (int64, bool) {
	n, ok := c.rankValue(obj, p, overridden)
	if !ok {
		obj.Value = Value{}
	}
	return n, ok
}

// rankValue is rankCount without the clean-up.
func (c *checker) rankValue(obj *Object, p *Param, overridden bool) (int64, bool) {
	n, ok := obj.Value.Int64()
	switch {
	case obj.Type == InvalidType || !obj.Value.IsValid():
		return 1, false
	case obj.Type != IntType:
		c.errorf(p.Default, "%s must be an integer, not %s", p.Name.Name, obj.Value)
		return 1, false
	case ok && n >= 1:
		return n, true
	case overridden:
		c.overrideErrorf("%s=%s: the number of ranks must be at least 1", p.Name.Name, obj.Value)
	default:
		c.errorf(p.Default, "%s is %s; the number of ranks must be at least 1", p.Name.Name, obj.Value)
	}
	return 1, false
}

// declName checks that a new name may be declared here: not a keyword,
// a predeclared name or an intrinsic, and not already visible (no
// shadowing). It reports whether the name is acceptable.
func (c *checker) declName(id *Ident) bool {
	name := id.Name
	switch {
	case IsKeyword(name): // the parser rejects keywords as names already; a tree built by other means may not
		c.errorf(id, "'%s' is a keyword; choose another name", name)
	case predeclaredMeaning(name, c.isGrid()) != "":
		c.errorf(id, "'%s' is predeclared (%s); choose another name", name, predeclaredMeaning(name, c.isGrid()))
	case isIntrinsic(name):
		c.errorf(id, "'%s' is an intrinsic; choose another name", name)
	default:
		prev := c.scope.lookup(name)
		if prev == nil || prev.Ident == nil {
			return true
		}
		c.errorf(id, "'%s' is already declared at %s; choose another name (a name cannot be redeclared or shadowed)",
			name, c.lineCol(prev.Ident.Pos()))
	}
	return false
}

// isGrid reports whether the kernel runs on a grid.
func (c *checker) isGrid() bool { return c.kernel.Ranks != nil && c.kernel.Ranks.Grid }

// declare adds obj to the current scope and records its identifier.
func (c *checker) declare(obj *Object) {
	c.info.Defs[obj.Ident] = obj
	if c.declName(obj.Ident) {
		c.scope.insert(obj)
	}
}

// openScope starts a block scope; closeScope ends it.
func (c *checker) openScope()  { c.scope = newScope(c.scope) }
func (c *checker) closeScope() { c.scope = c.scope.parent }
