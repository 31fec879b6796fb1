package analyze

import (
	"math/big"

	"perfc/analyze/symbolic"
	"perfc/lang"
)

// A plan is the static structure of a kernel, computed once and shared by
// every rank: the leaves (statements that count something) with the chain
// of constructs that encloses each. Ranks differ only in the decisions the
// engine makes when it sums a leaf over its chain.

// leafKind says what a leaf counts.
type leafKind uint8

const (
	leafExec        leafKind = iota // an assignment or var initialisation: its ops and refs
	leafCond                        // the evaluation of a data condition: its ops and refs
	leafIter                        // one iteration of a for or repeat loop
	leafHoist                       // a reference hoisted out of the loops where it is invariant
	leafComm                        // a communication statement
	leafVector                      // an innermost loop a vector unit could run (vector.go)
	leafEntry                       // one start of a for or repeat loop (chain encloses the loop)
	leafChain                       // the dependency chains a loop carries (chains.go)
	leafRegion                      // one start of a region (its clock reads; chain encloses the region)
	leafInnerRegion                 // the same start, counted in the enclosing region (Counts.InnerRegionEntries)
)

// leaf is one counted thing at one place.
type leaf struct {
	kind       leafKind
	region     string
	chain      []level
	stmt       lang.Stmt      // leafExec, leafComm, leafIter (the loop)
	expr       lang.Expr      // leafCond: the condition
	ops        []opTally      // leafExec, leafCond: ops of one execution
	madd       []opTally      // multiply-add pairs of one execution, by additive op and type
	pattern    string         // the statement's operand pattern (CM-5 Table 1)
	refs       []*refInfo     // leafExec, leafCond: refs that are not hoisted; leafHoist: the one ref
	pos        lang.Pos       // position for messages
	times      int64          // leafExec of a var declaration: the initialiser runs once per name
	vectorForm string         // leafVector: the form, as in a=s*b+c
	vectorElem lang.ElemType  // leafVector: the element type
	carried    []carriedChain // leafChain: the chains, in order of the carried location's name
	body       []*leaf        // leafChain: the leaves of the loop's body (its iterations, ops and refs)
}

// opTally is a count of one operation kind in one type per execution.
type opTally struct {
	op  OpKind
	typ OpType
	n   int64
}

// refInfo is one array reference of a statement.
type refInfo struct {
	ref     *lang.IndexExpr
	array   *lang.Object
	store   bool
	hoisted string  // loop index it was hoisted out of ("" if not)
	pattern string  // the operand pattern of its statement
	chain   []level // where it is counted (shorter than stmtChain when hoisted)
	// stmtChain encloses the statement the reference belongs to; strides
	// are taken with respect to its loops.
	stmtChain []level
}

// plan is the shared structure of one checked kernel.
type plan struct {
	k       *lang.Checked
	barrier map[*lang.CommStmt]bool // AfterBarrier of the kernel's body, made on first use
	leaves  []*leaf
	regions []string // region names in order of first appearance; "" is outside every region
	specs   map[*lang.Object]*lang.ArraySpec
	// slotCache memoises the loop-index slots one or two nodes read
	// (engine.go).
	slotCache map[[2]lang.Node][]int
	// shared keeps closed-form execution counts for other ranks (rank.go).
	shared map[chainKey][]*sharedSum
	// variables keeps the polynomial of each variable (expr.go).
	variables map[string]symbolic.Poly
	// rowBytes keeps every array's bytes per index step (rank.go).
	rowBytes map[*lang.Object][]symbolic.Poly
	// strideCache keeps every reference's strides (rank.go).
	strideCache map[*refInfo][]Stride
	// offsetCache keeps every reference's address with its loop indices
	// at 0, a polynomial in the symbols (rank.go).
	offsetCache map[*refInfo]*symbolic.Poly
	// sharedTraces keeps enumerated sums for other ranks (rank.go).
	sharedTraces map[sharedTraceKey][]*sharedTrace
	// runs are the leaves in runs of one region, and runMemos one
	// rank's counts of them for the others (leafrun.go).
	runs     []*leafRun
	runMemos map[*leafRun]*runMemo
	// places and sources keep formatted positions and expressions
	// (expr.go).
	places  map[lang.Node]string
	sources map[lang.Expr]string
	// payloadSizes keeps payload sizes that hold on every rank (comm.go).
	payloadSizes map[*lang.Payload]*symbolic.Poly
	// baseEnv holds the symbol values every rank shares (rank.go).
	baseEnv map[string]*big.Rat
	// innerSums keeps closed-form sums of the levels inside enumerated
	// ones (engine.go).
	innerSums map[innerKey]innerSum
	// cacheShare keeps what the cache models of the rank classes share
	// (cachemodel_share.go).
	cacheShare *cacheShare
	// enumerated counts the iterations enumerated so far, every rank's,
	// against maxEnumerated (Options.MaxEnumerated; 0 is the default).
	enumerated    int64
	maxEnumerated int64
	// chains says whether loops are searched for dependency chains
	// (chains.go): the counting plan is, a schedule's segment plans are
	// not (they price no latency). nodes keeps what the search needs of
	// the statements, references and loops planned (one map: a small
	// kernel's plan takes microseconds, and every map costs).
	chains  bool
	nodes   map[lang.Node]nodeInfo
	scratch bodyScan // planChains' lists, reused
}

// newPlan walks the kernel once.
func newPlan(k *lang.Checked) *plan {
	p := &plan{k: k, specs: map[*lang.Object]*lang.ArraySpec{}, chains: true}
	packSpecs(p)
	p.region("")
	p.block(k.Kernel.Body, nil, "")
	p.runs = p.leafRuns()
	return p
}

// packSpecs records the declarations of the pack buffers, which are in
// no block of the kernel (lang.Pack).
func packSpecs(p *plan) {
	for _, pk := range p.k.Info.Packs {
		if pk.Buffer != nil {
			p.specs[pk.Buffer] = pk.Decl.Arrays[0]
		}
	}
}

// region notes a region name in order of appearance.
func (p *plan) region(name string) {
	for _, r := range p.regions {
		if r == name {
			return
		}
	}
	p.regions = append(p.regions, name)
}

// block plans every statement of b under chain.
func (p *plan) block(b *lang.Block, chain []level, region string) {
	for _, s := range b.Stmts {
		p.stmt(s, chain, region)
	}
}

// stmt plans one statement.
func (p *plan) stmt(s lang.Stmt, chain []level, region string) {
	info := p.k.Info
	switch s := s.(type) {
	case *lang.Block:
		p.block(s, chain, region)
	case *lang.ArrayDecl:
		for _, a := range s.Arrays {
			if obj := info.Defs[a.Name]; obj != nil {
				p.specs[obj] = a
			}
		}
	case *lang.VarDecl:
		if s.Init != nil && info.Deps[s.Init] != 0 {
			p.exec(s, nil, s.Init, chain, region, int64(len(s.Names)))
		}
	case *lang.AssignStmt:
		p.exec(s, s.Lhs, s.Rhs, chain, region, 1)
	case *lang.ForStmt:
		obj := info.Defs[s.Var]
		inner := appendLevel(chain, level{kind: loopLevel, loop: s, index: obj})
		p.loop(s, s.Body, chain, inner, region)
		p.planVector(s, chain, region)
	case *lang.RepeatStmt:
		inner := appendLevel(chain, level{kind: repeatLevel, repeat: s})
		p.loop(s, s.Body, chain, inner, region)
	case *lang.IfStmt:
		p.ifStmt(s, chain, region)
	case *lang.RegionStmt:
		p.region(s.Name)
		p.leaves = append(p.leaves,
			&leaf{kind: leafInnerRegion, region: region, chain: chain, stmt: s, pos: s.Pos()},
			&leaf{kind: leafRegion, region: s.Name, chain: chain, stmt: s, pos: s.Pos()})
		p.block(s.Body, chain, s.Name)
	case *lang.CommStmt:
		// A payload that is not contiguous is copied through a buffer
		// (lang.CommPack): its pack loops run before the transfer and its
		// unpack loops after, counted as the kernel's own loops are.
		cp := info.CommPacks[s]
		if cp != nil {
			for _, st := range cp.Before {
				p.stmt(st, chain, region)
			}
		}
		p.leaves = append(p.leaves, &leaf{kind: leafComm, region: region, chain: chain, stmt: s, pos: s.Pos()})
		if cp != nil {
			for _, st := range cp.After {
				p.stmt(st, chain, region)
			}
		}
	case *lang.WaitStmt:
		// Completes requests: counted from the schedule (requests.go).
	case *lang.LetStmt:
		// Static: the checker evaluated it and expressions read it through
		// Info; it costs nothing.
	default:
		panic(lang.Unhandled("analyze: plan", s))
	}
}

// loop plans a for or repeat loop: its entry (counted over chain, the
// levels around it), its iterations (over inner, which adds the loop), its
// body and the dependency chains it carries.
func (p *plan) loop(s lang.Stmt, body *lang.Block, chain, inner []level, region string) {
	p.leaves = append(p.leaves, &leaf{kind: leafEntry, region: region, chain: chain, stmt: s, pos: s.Pos()})
	first := len(p.leaves)
	p.leaves = append(p.leaves, &leaf{kind: leafIter, region: region, chain: inner, stmt: s, pos: s.Pos()})
	p.block(body, inner, region)
	if p.chains {
		p.planChains(s, body, inner, region, p.leaves[first:])
	}
}

// ifStmt plans both branches of an if: a static condition becomes guard
// levels, a data condition a counted evaluation and prob levels.
func (p *plan) ifStmt(s *lang.IfStmt, chain []level, region string) {
	info := p.k.Info
	if s.Prob == nil {
		p.block(s.Then, appendLevel(chain, level{kind: guardLevel, cond: s, then: true}), region)
		if s.Else != nil {
			p.stmt(s.Else, appendLevel(chain, level{kind: guardLevel, cond: s, then: false}), region)
		}
		return
	}
	p.exec(s, nil, s.Cond, chain, region, 1)
	prob := info.Values[s.Prob].Rat()
	if prob == nil {
		prob = ratFromFloat(info.Values[s.Prob].Float64())
	}
	p.block(s.Then, appendLevel(chain, level{kind: probLevel, prob: prob}), region)
	if s.Else != nil {
		rest := ratOne()
		rest.Sub(rest, prob)
		p.stmt(s.Else, appendLevel(chain, level{kind: probLevel, prob: rest}), region)
	}
}

// exec plans a statement that computes: lhs (nil for a var init or a
// condition) and the expression rhs, executed times per run of the
// statement (a var declaration initialises every name).
func (p *plan) exec(s lang.Stmt, lhs, rhs lang.Expr, chain []level, region string, times int64) {
	kind := leafExec
	if _, ok := s.(*lang.IfStmt); ok {
		kind = leafCond
	}
	l := &leaf{kind: kind, region: region, chain: chain, stmt: s, expr: rhs, pos: s.Pos()}
	t := tallier{info: p.k.Info}
	t.expr(rhs)
	refs := t.refs
	if a, ok := s.(*lang.AssignStmt); ok {
		if op, compound := a.Op.Binary(); compound {
			t.count(binaryOpKind(op), opTypeOf(p.k.Info.Types[a.Lhs]))
			// A pair needs the multiply in the add's type (as tallier.pairMadd):
			// s += i*j multiplies integers and adds floats.
			if m, ok := lang.Unparen(a.Rhs).(*lang.BinaryExpr); ok && m.Op == lang.Mul && (op == lang.Add || op == lang.Sub) && t.counted(m) &&
				opTypeOf(p.k.Info.Types[m]) == opTypeOf(p.k.Info.Types[a.Lhs]) {
				t.madd = addTally(t.madd, opTally{op: binaryOpKind(op), typ: opTypeOf(p.k.Info.Types[a.Lhs]), n: 1})
			}
		}
		if ix, ok := lang.Unparen(lhs).(*lang.IndexExpr); ok {
			if _, compound := a.Op.Binary(); compound {
				refs = append(refs, &refInfo{ref: ix, array: p.k.Info.Uses[ix.Name]})
			}
			refs = append(refs, &refInfo{ref: ix, array: p.k.Info.Uses[ix.Name], store: true})
		}
	}
	l.ops, l.madd, l.times = t.ops, t.madd, times
	p.placeRefs(l, refs, chain, region)
	p.leaves = append(p.leaves, l)
	if p.chains {
		p.setNode(s, func(info *nodeInfo) { info.leaf = l })
	}
}

// placeRefs decides for every reference whether it is hoisted out of the
// innermost loops in which it is invariant, and fixes the statement's
// operand pattern (array elements that vary in the innermost loop count as
// array operands; hoisted ones are register scalars).
func (p *plan) placeRefs(l *leaf, refs []*refInfo, chain []level, region string) {
	arrays := 0
	seenStore := map[string]bool{}
	for _, r := range refs {
		r.stmtChain = chain
		cut := p.hoistLevel(r, chain)
		if p.chains && cut < len(chain) {
			// Only hoisted references can be carried (chains.go).
			p.setNode(r.ref, func(info *nodeInfo) { info.cut, info.hoisted = cut, true })
		}
		if cut < len(chain) {
			r.hoisted = chain[lastLoop(chain[:cut+1])].index.Name
			r.chain = chain[:cut]
			p.leaves = append(p.leaves, &leaf{kind: leafHoist, region: region, chain: r.chain, refs: []*refInfo{r}, pos: r.ref.Pos()})
			continue
		}
		r.chain = chain
		l.refs = append(l.refs, r)
		key := lang.ExprString(r.ref)
		if r.store && seenStore[key] {
			continue
		}
		seenStore[key] = true
		arrays++
	}
	pattern := operandPattern(arrays)
	l.pattern = pattern
	for _, r := range refs {
		r.pattern = pattern
	}
}

// operandPattern names the CM-5 Table 1 class of a statement with n array
// element operands.
func operandPattern(n int) string {
	switch n {
	case 0:
		return "s&s&s"
	case 1:
		return "a&s&s"
	case 2:
		return "a&b&s"
	}
	return "a&b&c"
}

// hoistLevel returns the chain position the reference can be hoisted to:
// the level of the outermost loop of the innermost run of loops in which it
// is invariant and the only reference to its array (or one with the same
// indices), or len(chain) when it stays where it is.
func (p *plan) hoistLevel(r *refInfo, chain []level) int {
	cut := len(chain)
	for i := len(chain) - 1; i >= 0; i-- {
		l := chain[i]
		if l.kind != loopLevel && l.kind != repeatLevel {
			continue
		}
		if l.kind == repeatLevel {
			break // a repeat re-executes everything; keep loads inside it
		}
		if dependsOn(p.k.Info, r.ref, l.index) || !p.onlyReference(l.loop.Body, r) {
			break
		}
		cut = i
	}
	return cut
}

// onlyReference reports whether every reference to r's array inside body
// has the same indices as r.
func (p *plan) onlyReference(body *lang.Block, r *refInfo) bool {
	want := lang.ExprString(r.ref)
	only := true
	lang.Inspect(body, func(n lang.Node) bool {
		if ix, ok := n.(*lang.IndexExpr); ok && p.k.Info.Uses[ix.Name] == r.array {
			if lang.ExprString(ix) != want {
				only = false
			}
		}
		if c, ok := n.(*lang.CommStmt); ok {
			for _, pl := range []*lang.Payload{c.Payload, c.Into} {
				if pl != nil && pl.Name != nil && p.k.Info.Uses[pl.Name] == r.array {
					only = false
				}
			}
		}
		return only
	})
	return only
}

// dependsOn reports whether e reads the loop index obj, directly or
// through lets.
func dependsOn(info *lang.Info, e lang.Node, obj *lang.Object) bool {
	found := false
	lang.Inspect(e, func(n lang.Node) bool {
		if found {
			return false
		}
		if id, ok := n.(*lang.Ident); ok {
			o := info.Uses[id]
			if o == obj {
				found = true
			} else if o != nil && o.Kind == lang.LetObj && o.Expr != nil && o.Dep&lang.DepIndex != 0 {
				found = dependsOn(info, o.Expr, obj)
			}
		}
		return !found
	})
	return found
}

// lastLoop returns the position of the last loop level in chain.
func lastLoop(chain []level) int {
	for i := len(chain) - 1; i >= 0; i-- {
		if chain[i].kind == loopLevel {
			return i
		}
	}
	return 0
}

// appendLevel returns chain + l without sharing chain's spare capacity.
func appendLevel(chain []level, l level) []level {
	out := make([]level, len(chain), len(chain)+1)
	copy(out, chain)
	return append(out, l)
}

// afterBarrier is AfterBarrier of the kernel's body, made once.
func (p *plan) afterBarrier() map[*lang.CommStmt]bool {
	if p.barrier == nil {
		p.barrier = AfterBarrier(p.k.Kernel.Body)
	}
	return p.barrier
}
