package codegen

import (
	"fmt"
	"strings"

	"perfc/lang"
)

// generator writes the body of one checked kernel as Go.
type generator struct {
	k     *lang.Checked
	info  *lang.Info
	plan  *plan
	names *namer
	body  strings.Builder

	imports map[string]bool
	sites   []site
	regions []string // region names in the analyzer's order; 0 is outside every region
	chain   []level  // the constructs around the statement being written
	region  int      // the region being written
	binds   map[string]string
	temps   int

	// prologue computes, before the body, the subexpressions that are
	// constant for the rank (rankConsts names their locals).
	prologue       strings.Builder
	rankConsts     map[lang.Expr]string
	inRankConstant bool

	// inlineLets writes lets by their expressions: hoisted indices are
	// evaluated before the loop, where a let of the loop body is not yet
	// declared. lenient turns a constant the checker never evaluated
	// (it lies in code that does not run) into unevaluable instead of an
	// error.
	inlineLets, lenient, unevaluable bool

	noHoisting bool                  // Options.NoHoisting
	divisors   map[*lang.Object]bool // arrays whose elements divide
	err        error

	// loopPosts are the post sites of the loop bodies being written,
	// innermost last; varPosts the irecvs into a var by request name
	// (comm_requests.go).
	loopPosts [][]int
	varPosts  map[string][]varPost
	// unpackFuncs names the closures that unpack what a packed irecv
	// received, declared in the prologue (pack.go).
	unpackFuncs map[*lang.CommStmt]string
	// lastSlots numbers the vars of inner blocks whose final values the
	// program keeps in d.last (block).
	lastSlots map[*lang.Object]int
}

// fail records the first error, positioned at n.
func (g *generator) fail(n lang.Node, format string, args ...any) {
	if g.lenient {
		g.unevaluable = true
		return
	}
	if g.err != nil {
		return
	}
	msg := fmt.Sprintf(format, args...)
	if n == nil {
		g.err = fmt.Errorf("%s: cannot generate a program: %s", g.k.File.Source.Name, msg)
		return
	}
	g.err = fmt.Errorf("%s: cannot generate a program: %s", g.pos(n), msg)
}

// pos returns file:line:col of a node, as the analyzer writes positions.
func (g *generator) pos(n lang.Node) string { return g.k.File.Source.Position(n.Pos()).String() }

// lineCol returns line:col of a node, for comments in the generated code
// (never the file name, which is the user's text).
func (g *generator) lineCol(n lang.Node) string {
	p := g.k.File.Source.Position(n.Pos())
	return fmt.Sprintf("%d:%d", p.Line, p.Col)
}

// line writes one line of the body.
func (g *generator) line(format string, args ...any) {
	fmt.Fprintf(&g.body, format, args...)
	g.body.WriteByte('\n')
}

// temp returns a new local name for the generator's own variables; kernel
// names all start with k, so these cannot clash with them.
func (g *generator) temp(prefix string) string {
	g.temps++
	return fmt.Sprintf("%s_%d", prefix, g.temps)
}

// addSite adds a counted place and returns its number.
func (g *generator) addSite(s site) int {
	g.sites = append(g.sites, s)
	return len(g.sites) - 1
}

// count writes the counter of a site; the timed build removes it.
func (g *generator) count(site int) {
	g.line("if counting { r.cnt[%d]++ }", site)
}

// siteRefs describes references for the site table.
func (g *generator) siteRefs(refs []*refUse) []siteRef {
	var out []siteRef
	for _, r := range refs {
		hoisted := ""
		if r.hoistTo != nil {
			hoisted = r.hoistTo.Var.Name
		}
		out = append(out, siteRef{array: r.array.Name, pos: g.pos(r.ref), text: lang.ExprString(r.ref), store: r.store,
			size: int64(r.array.Elem.Size()), hoisted: hoisted, pattern: r.pattern})
	}
	return out
}

// constBool returns the value of a condition the checker found constant.
func (g *generator) constBool(e lang.Expr) (value, ok bool) {
	v, found := g.info.Values[e]
	if !found || v.Kind() != lang.BoolValue {
		return false, false
	}
	return v.Bool(), true
}

// kernelBody writes the whole body of the kernel.
func (g *generator) kernelBody() {
	g.collectVarPosts()
	g.block(g.k.Kernel.Body, true)
	if len(g.info.Requests) > 0 {
		g.line("r.requestsDone(-1)")
	}
}

// block writes the statements of b. Vars declared in it are kept at its
// end (added to the checksum at the top level, stored otherwise), so the
// compiler cannot drop the work that computed them. Each var of an inner
// block is stored to a slot of its own (d.last[k]): several stores to one
// field would keep only the last, and the vars before it, with the work
// that computed them, would be dead. The vars of a work statement's nest
// are all added to the checksum (codegen/work.go).
func (g *generator) block(b *lang.Block, top bool) {
	var vars []*lang.Object
	var sunk []bool
	for _, s := range b.Stmts {
		g.stmt(s)
		if d, ok := s.(*lang.VarDecl); ok {
			for _, id := range d.Names {
				vars = append(vars, g.info.Defs[id])
				sunk = append(sunk, top || g.k.IsWorkVar(d))
			}
		}
	}
	for i, v := range vars {
		if sunk[i] {
			g.line("d.sink += float64(%s)", g.names.name(v))
		} else {
			g.line("d.last[%d] = float64(%s)", g.lastSlot(v), g.names.name(v))
		}
	}
}

// lastSlot returns the slot of d.last that keeps the final value of var
// v of an inner block, numbering the vars as they are first kept.
func (g *generator) lastSlot(v *lang.Object) int {
	if k, ok := g.lastSlots[v]; ok {
		return k
	}
	if g.lastSlots == nil {
		g.lastSlots = map[*lang.Object]int{}
	}
	g.lastSlots[v] = len(g.lastSlots)
	return g.lastSlots[v]
}

// stmt writes one statement.
func (g *generator) stmt(s lang.Stmt) {
	switch s := s.(type) {
	case *lang.Block:
		g.line("{")
		g.block(s, false)
		g.line("}")
	case *lang.LetStmt:
		g.let(s)
	case *lang.ArrayDecl:
		// Arrays are allocated and filled before the run (rankData).
	case *lang.VarDecl:
		g.varDecl(s)
	case *lang.AssignStmt:
		g.assign(s)
	case *lang.ForStmt:
		g.forStmt(s)
	case *lang.RepeatStmt:
		g.repeat(s)
	case *lang.IfStmt:
		g.ifStmt(s)
	case *lang.RegionStmt:
		g.regionStmt(s)
	case *lang.CommStmt:
		g.comm(s)
	case *lang.WaitStmt:
		g.wait(s)
	default:
		g.fail(s, "%s", lang.Unhandled("codegen: statement", s))
	}
}

// let writes a let that varies by rank or iteration; constant lets are
// folded into the expressions that use them.
func (g *generator) let(s *lang.LetStmt) {
	obj := g.info.Defs[s.Name]
	if obj == nil || (obj.Dep == 0 && obj.Value.IsValid()) {
		return
	}
	name := g.names.name(obj)
	g.line("%s := %s // %s", name, g.expr(s.Value, goType(obj.Type)).text, g.lineCol(s))
	g.line("_ = %s", name)
}

// execSite adds and counts the site of an assignment or a var
// initialisation.
func (g *generator) execSite(s lang.Stmt) {
	t := g.plan.tallies[s]
	if t == nil {
		return
	}
	g.count(g.addSite(site{kind: "siteExec", region: g.region, stmt: g.pos(s), prob: hasProb(g.chain),
		pattern: t.pattern, times: t.times, ops: t.ops, madds: t.madds, refs: g.siteRefs(t.refs)}))
}

// varDecl writes `var a, b: T = init`; each name evaluates init.
func (g *generator) varDecl(s *lang.VarDecl) {
	g.execSite(s)
	typ := elemGoType(s.Elem)
	for _, id := range s.Names {
		name := g.names.name(g.info.Defs[id])
		if s.Init == nil {
			g.line("var %s %s // %s", name, typ, g.lineCol(s))
		} else {
			g.line("var %s %s = %s // %s", name, typ, g.workInit(s, typ, g.expr(s.Init, typ).text), g.lineCol(s))
		}
		g.line("_ = %s", name)
	}
}

// assign writes `lhs op rhs`.
func (g *generator) assign(s *lang.AssignStmt) {
	g.execSite(s)
	typ := goType(g.info.Types[s.Lhs])
	lhs := g.natural(s.Lhs)
	g.line("%s %s %s // %s", lhs.text, s.Op, g.expr(s.Rhs, typ).text, g.lineCol(s))
}

// forStmt writes a for loop with the references hoisted out of it loaded
// before it and stored after it.
func (g *generator) forStmt(s *lang.ForStmt) {
	g.entrySite(s)
	g.line("{ // for at %s%s", g.lineCol(s), g.k.LoopSuffix(s))
	hoisted := g.hoistIn(s)
	lo, loConst := g.info.Values[s.Lo]
	hi, hiConst := g.info.Values[s.Hi]
	empty := loConst && hiConst && lo.Rat().Cmp(hi.Rat()) >= 0
	if !empty {
		name := g.names.name(g.info.Defs[s.Var])
		bound := g.expr(s.Hi, "int").text
		if !hiConst {
			if _, simple := lang.Unparen(s.Hi).(*lang.Ident); !simple {
				limit := g.temp("hi")
				g.line("%s := %s", limit, bound)
				bound = limit
			}
		}
		step := "++"
		if s.Step != nil {
			step = " += " + g.expr(s.Step, "int").text
		}
		g.line("for %s := %s; %s < %s; %s%s {", name, g.expr(s.Lo, "int").text, name, bound, name, step)
		g.chain = appendLevel(g.chain, level{kind: loopLevel, loop: s, index: g.info.Defs[s.Var]})
		iter := g.addSite(site{kind: "siteIter", region: g.region, stmt: g.pos(s), prob: hasProb(g.chain)})
		g.count(iter)
		g.loopIteration(s.Body, iter)
		g.chain = g.chain[:len(g.chain)-1]
		g.line("}")
	}
	g.hoistOut(hoisted)
	g.line("}")
}

// entrySite counts a start of loop s, as the analyzer's loop entries do:
// one per execution of the statement, even when its body never runs.
func (g *generator) entrySite(s lang.Stmt) {
	g.count(g.addSite(site{kind: "siteEntry", region: g.region, stmt: g.pos(s), prob: hasProb(g.chain)}))
}

// repeat writes `repeat n { … }`.
func (g *generator) repeat(s *lang.RepeatStmt) {
	g.entrySite(s)
	if v, ok := g.info.Values[s.Count]; ok && v.Rat().Sign() <= 0 {
		return // never runs
	}
	rep := g.temp("rep")
	g.line("for %s := 0; %s < %s; %s++ { // repeat at %s%s", rep, rep, g.expr(s.Count, "int").text, rep, g.lineCol(s), g.k.LoopSuffix(s))
	g.chain = appendLevel(g.chain, level{kind: repeatLevel})
	iter := g.addSite(site{kind: "siteIter", region: g.region, stmt: g.pos(s), prob: hasProb(g.chain)})
	g.count(iter)
	g.loopIteration(s.Body, iter)
	g.chain = g.chain[:len(g.chain)-1]
	g.line("}")
}

// ifStmt writes an if. A data condition is counted (one evaluation, and
// whether it was true); a static one is not, and a constant one keeps
// only the branch that runs.
func (g *generator) ifStmt(s *lang.IfStmt) {
	if v, ok := g.constBool(s.Cond); ok && s.Prob == nil {
		switch {
		case v:
			g.branch(s.Then, guardLevel)
		case s.Else != nil:
			g.elseBranch(s.Else, guardLevel)
		}
		return
	}
	kind := guardLevel
	taken := -1
	if s.Prob != nil {
		kind = probLevel
		t := g.plan.tallies[s]
		cond := g.addSite(site{kind: "siteCond", region: g.region, stmt: g.pos(s), prob: hasProb(g.chain),
			pattern: t.pattern, ops: t.ops, madds: t.madds, refs: g.siteRefs(t.refs), assumed: g.info.Values[s.Prob].Float64()})
		g.count(cond)
		taken = g.addSite(site{kind: "siteTaken", region: g.region, stmt: g.pos(s), prob: true, cond: cond})
	}
	g.line("if %s { // %s", g.expr(s.Cond, "bool").text, g.lineCol(s))
	if taken >= 0 {
		g.count(taken)
	}
	g.chain = appendLevel(g.chain, level{kind: kind})
	g.block(s.Then, false)
	g.chain = g.chain[:len(g.chain)-1]
	if s.Else != nil {
		g.line("} else {")
		g.chain = appendLevel(g.chain, level{kind: kind})
		g.stmt(s.Else)
		g.chain = g.chain[:len(g.chain)-1]
	}
	g.line("}")
}

// branch writes the branch of a constant if that runs, as a block.
func (g *generator) branch(b *lang.Block, kind levelKind) {
	g.chain = appendLevel(g.chain, level{kind: kind})
	g.line("{")
	g.block(b, false)
	g.line("}")
	g.chain = g.chain[:len(g.chain)-1]
}

// elseBranch writes the else of a constant if that runs.
func (g *generator) elseBranch(s lang.Stmt, kind levelKind) {
	g.chain = appendLevel(g.chain, level{kind: kind})
	g.stmt(s)
	g.chain = g.chain[:len(g.chain)-1]
}

// regionStmt writes a region: its time is measured apart.
func (g *generator) regionStmt(s *lang.RegionStmt) {
	outer := g.region
	g.region = g.regionID(s.Name)
	g.line("r.enter(%d) // region %s at %s", g.region, strings.ReplaceAll(fmt.Sprintf("%q", s.Name), "\n", ""), g.lineCol(s))
	g.line("{")
	g.count(g.addSite(site{kind: "siteRegion", region: g.region, stmt: g.pos(s), prob: hasProb(g.chain)}))
	g.count(g.addSite(site{kind: "siteInnerRegion", region: outer, stmt: g.pos(s), prob: hasProb(g.chain)}))
	g.block(s.Body, false)
	g.line("}")
	g.line("r.leave()")
	g.region = outer
}

// regionID returns the number of a region.
func (g *generator) regionID(name string) int {
	if name == "" {
		return 0
	}
	for i, r := range g.regions {
		if i > 0 && r == name {
			return i
		}
	}
	g.fail(nil, "region %q was not collected", name)
	return 0
}

// collectRegions lists the region names in the analyzer's order: outside
// first, then by first appearance, dead code included.
func (g *generator) collectRegions() {
	g.regions = []string{outsideRegions}
	var walk func(s lang.Stmt)
	walk = func(s lang.Stmt) {
		switch s := s.(type) {
		case *lang.Block:
			for _, x := range s.Stmts {
				walk(x)
			}
		case *lang.ForStmt:
			walk(s.Body)
		case *lang.RepeatStmt:
			walk(s.Body)
		case *lang.IfStmt:
			walk(s.Then)
			if s.Else != nil {
				walk(s.Else)
			}
		case *lang.RegionStmt:
			known := false
			for _, r := range g.regions[1:] {
				known = known || r == s.Name
			}
			if !known {
				g.regions = append(g.regions, s.Name)
			}
			walk(s.Body)
		case *lang.LetStmt, *lang.ArrayDecl, *lang.VarDecl, *lang.AssignStmt, *lang.CommStmt, *lang.WaitStmt:
			// No statements inside.
		default:
			panic(lang.Unhandled("codegen: regions", s))
		}
	}
	walk(g.k.Kernel.Body)
}

// outsideRegions names the part of a kernel outside every region, as the
// analyzer does.
const outsideRegions = "(outside regions)"

// hoistGroup is one array element held in a local across a loop.
type hoistGroup struct {
	key    string
	local  string
	outer  string // the local of an enclosing loop that held it, or ""
	target string // the element written back to, when there is no outer
	inside string // the condition under which the element exists
	stores bool
	prev   string
	bound  bool
}

// hoistIn writes, before loop, the loads of the references the analyzer
// hoists out of it (counted once per entry of the loop) and binds their
// elements to locals for the loop's body. The load happens only when the
// element exists: a hoisted reference may sit in a branch or a loop that
// never runs for these indices.
func (g *generator) hoistIn(loop *lang.ForStmt) []*hoistGroup {
	refs := g.plan.hoists[loop]
	var groups []*hoistGroup
	byKey := map[string]*hoistGroup{}
	for _, r := range refs {
		hs := g.siteRefs([]*refUse{r})
		g.count(g.addSite(site{kind: "siteHoist", region: g.regionID(r.region), stmt: g.pos(r.ref), prob: r.prob, refs: hs}))
		key := elementKey(r.array, r.ref)
		if g.noHoisting {
			continue
		}
		if grp, ok := byKey[key]; ok {
			grp.stores = grp.stores || r.store
			continue
		}
		grp := &hoistGroup{key: key, stores: r.store}
		byKey[key] = grp
		groups = append(groups, grp)
		g.hoistLoad(grp, r)
	}
	return groups
}

// hoistLoad writes the local of one hoisted element.
func (g *generator) hoistLoad(grp *hoistGroup, r *refUse) {
	typ := elemGoType(r.array.Elem)
	grp.local = g.temp("h")
	grp.prev, grp.bound = g.binds[grp.key]
	if grp.bound {
		grp.outer = grp.prev
		g.line("%s := %s // %s, hoisted", grp.local, grp.outer, lang.ExprString(r.ref))
	} else {
		g.inlineLets, g.lenient, g.unevaluable = true, true, false
		var idx, conds []string
		for i, ix := range r.ref.Index {
			x := g.temp("x")
			g.line("%s := %s", x, g.expr(ix, "int").text)
			idx = append(idx, "["+x+"]")
			conds = append(conds, fmt.Sprintf("uint(%s) < %d", x, r.array.Dims[i]))
		}
		never := g.unevaluable
		g.inlineLets, g.lenient = false, false
		grp.target = g.names.name(r.array) + strings.Join(idx, "")
		grp.inside = g.temp("in")
		if never {
			g.line("%s := false", grp.inside)
		} else {
			g.line("%s := %s", grp.inside, strings.Join(conds, " && "))
		}
		g.line("var %s %s", grp.local, typ)
		g.line("if %s { %s = %s }", grp.inside, grp.local, grp.target)
	}
	g.line("_ = %s", grp.local)
	g.binds[grp.key] = grp.local
}

// hoistOut writes the hoisted stores back after the loop and unbinds the
// elements.
func (g *generator) hoistOut(groups []*hoistGroup) {
	for i := len(groups) - 1; i >= 0; i-- {
		grp := groups[i]
		if grp.bound {
			g.binds[grp.key] = grp.prev
		} else {
			delete(g.binds, grp.key)
		}
		if !grp.stores {
			continue
		}
		if grp.bound {
			g.line("%s = %s", grp.outer, grp.local)
		} else {
			g.line("if %s { %s = %s }", grp.inside, grp.target, grp.local)
		}
	}
}
