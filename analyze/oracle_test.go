package analyze

import (
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfc/lang"
	"perfc/parser"
)

// This file is the brute-force reference for Analyze: an interpreter that
// walks one rank's control flow concretely — every for and repeat really
// iterated, every static if evaluated, every data if taken with weight p and
// 1 − p — and adds up what each statement does each time it runs. It shares
// only the per-statement operation tally (tallier) with the analyzer; the
// control flow, the hoisting of invariant references and the rank handling
// are its own, so agreement checks the engine's closed-form sums, its domain
// splitting and its rank classes.

// maxOracleSteps bounds the loop iterations of one rank's walk, so that a
// test with a careless parameter setting fails instead of hanging.
const maxOracleSteps = 2_000_000

// flatCounts is one rank's counts in one region, reduced to values and keyed
// by name, so that the analyzer's report and the oracle's tally compare with
// go-cmp. Entries whose count is zero are left out on both sides.
type flatCounts struct {
	Iterations, Flop, IntOps, MaddPairs  *big.Rat
	Loads, Stores, LoadBytes, StoreBytes *big.Rat
	Barriers                             *big.Rat
	Ops                                  map[string]*big.Rat       // "mul f64"
	Refs                                 map[string]*big.Rat       // "k.spmd:3:5 A[i] load hoisted(k)"
	Messages                             map[string]flatMessage    // "send k.spmd:4:3 to (rank + 1) % P"
	Collectives                          map[string]flatCollective // "allreduce k.spmd:5:3"
	LoopEntries, RegionEntries           *big.Rat
	InnerRegionEntries                   *big.Rat
	Chains                               map[string]flatChain // "k.spmd:4:5 s" (oracle_chains_test.go)
	Requests                             map[string]*big.Rat  // "posted", "completed", "overlapped" (oracle_requests_test.go)
}

// flatMessage is the traffic of one direction of one point-to-point
// statement. PeerRank is the peer's rank, peerVaries when the peer reads a
// loop index, and 0 where the report cannot know it (a rank that is not its
// class's representative).
type flatMessage struct {
	PeerRank     int64
	Count, Bytes *big.Rat
}

// flatCollective is the traffic of one collective statement.
type flatCollective struct {
	Op, Elem, Root string
	Participants   int64
	Count, Bytes   *big.Rat
}

// newFlatCounts returns zero counts.
func newFlatCounts() *flatCounts {
	z := func() *big.Rat { return new(big.Rat) }
	return &flatCounts{
		Iterations: z(), Flop: z(), IntOps: z(), MaddPairs: z(),
		Loads: z(), Stores: z(), LoadBytes: z(), StoreBytes: z(), Barriers: z(),
		Ops: map[string]*big.Rat{}, Refs: map[string]*big.Rat{},
		Messages: map[string]flatMessage{}, Collectives: map[string]flatCollective{},
		LoopEntries: z(), RegionEntries: z(), InnerRegionEntries: z(), Chains: map[string]flatChain{}, Requests: map[string]*big.Rat{},
	}
}

// addTo adds n to the entry key of m.
func addTo(m map[string]*big.Rat, key string, n *big.Rat) {
	if m[key] == nil {
		m[key] = new(big.Rat)
	}
	m[key].Add(m[key], n)
}

// ratOrZero returns r, or a new zero for an unset count.
func ratOrZero(r *big.Rat) *big.Rat {
	if r == nil {
		return new(big.Rat)
	}
	return r
}

// dropZeros removes the entries whose count is zero: the analyzer lists a
// reference or collective whose guard never holds, the oracle never sees it.
func (f *flatCounts) dropZeros() {
	for k, v := range f.Ops {
		if v.Sign() == 0 {
			delete(f.Ops, k)
		}
	}
	for k, v := range f.Refs {
		if v.Sign() == 0 {
			delete(f.Refs, k)
		}
	}
	for k, v := range f.Messages {
		if v.Count.Sign() == 0 && v.Bytes.Sign() == 0 {
			delete(f.Messages, k)
		}
	}
	for k, v := range f.Collectives {
		if v.Count.Sign() == 0 && v.Bytes.Sign() == 0 {
			delete(f.Collectives, k)
		}
	}
	for k, v := range f.Requests {
		if v.Sign() == 0 {
			delete(f.Requests, k)
		}
	}
}

// plus returns f + g, for the total over every region.
func (f *flatCounts) plus(g *flatCounts) *flatCounts {
	out := newFlatCounts()
	for _, x := range []*flatCounts{f, g} {
		for _, p := range [][2]*big.Rat{
			{out.Iterations, x.Iterations}, {out.Flop, x.Flop}, {out.IntOps, x.IntOps}, {out.MaddPairs, x.MaddPairs},
			{out.Loads, x.Loads}, {out.Stores, x.Stores}, {out.LoadBytes, x.LoadBytes}, {out.StoreBytes, x.StoreBytes},
			{out.Barriers, x.Barriers}, {out.LoopEntries, x.LoopEntries}, {out.RegionEntries, x.RegionEntries}, {out.InnerRegionEntries, x.InnerRegionEntries},
		} {
			p[0].Add(p[0], p[1])
		}
		for k, v := range x.Ops {
			addTo(out.Ops, k, v)
		}
		for k, v := range x.Refs {
			addTo(out.Refs, k, v)
		}
		for k, v := range x.Messages {
			out.Messages[k] = v
		}
		for k, v := range x.Collectives {
			out.Collectives[k] = v
		}
		for k, v := range x.Chains {
			out.Chains[k] = v
		}
		for k, v := range x.Requests {
			addTo(out.Requests, k, v)
		}
	}
	return out
}

// refKey names one array reference for the comparison.
func refKey(pos, text string, store bool, hoisted string) string {
	dir := "load"
	if store {
		dir = "store"
	}
	key := pos + " " + text + " " + dir
	if hoisted != "" {
		key += " hoisted(" + hoisted + ")"
	}
	return key
}

// messageKey names one direction of one point-to-point statement.
func messageKey(kind, stmt, peer string) string {
	dir := " to "
	if kind == "recv" || kind == "irecv" {
		dir = " from "
	}
	return kind + " " + stmt + dir + peer
}

// flatten reduces the analyzer's counts of one region. keepPeers is false
// for a rank that is not its class's representative: the report holds the
// representative's peer ranks.
func flatten(c *Counts, keepPeers bool) *flatCounts {
	f := newFlatCounts()
	f.Iterations.Set(ratOrZero(c.Iterations.Value))
	f.Flop.Set(ratOrZero(c.Flop.Value))
	f.IntOps.Set(ratOrZero(c.IntOps.Value))
	f.MaddPairs.Set(ratOrZero(c.MaddPairs.Value))
	f.Loads.Set(ratOrZero(c.Loads.Value))
	f.Stores.Set(ratOrZero(c.Stores.Value))
	f.LoadBytes.Set(ratOrZero(c.LoadBytes.Value))
	f.StoreBytes.Set(ratOrZero(c.StoreBytes.Value))
	f.Barriers.Set(ratOrZero(c.Barriers.Value))
	f.LoopEntries.Set(ratOrZero(c.LoopEntries.Value))
	f.RegionEntries.Set(ratOrZero(c.RegionEntries.Value))
	f.InnerRegionEntries.Set(ratOrZero(c.InnerRegionEntries.Value))
	for _, ch := range c.Chains {
		f.Chains[ch.Loop+" "+ch.Var] = flattenChain(ch)
	}
	for _, o := range c.Ops {
		addTo(f.Ops, o.Op.String()+" "+string(o.Type), ratOrZero(o.Count.Value))
	}
	for _, r := range c.Refs {
		addTo(f.Refs, refKey(r.Pos, r.Text, r.Store, r.Hoisted), ratOrZero(r.Count.Value))
	}
	flattenRequests(f, c.Requests)
	for _, m := range c.Messages {
		key := messageKey(m.Kind, m.Stmt, m.Peer)
		fm := f.Messages[key]
		if fm.Count == nil {
			fm = flatMessage{Count: new(big.Rat), Bytes: new(big.Rat)}
		}
		fm.Count.Add(fm.Count, ratOrZero(m.Count.Value))
		fm.Bytes.Add(fm.Bytes, ratOrZero(m.Bytes.Value))
		if keepPeers {
			fm.PeerRank = m.Rank
		}
		f.Messages[key] = fm
	}
	for _, col := range c.Collectives {
		key := col.Kind + " " + col.Stmt
		fc := f.Collectives[key]
		if fc.Count == nil {
			fc = flatCollective{Op: col.Op, Elem: col.Elem, Root: col.Root, Participants: col.Participants,
				Count: new(big.Rat), Bytes: new(big.Rat)}
		}
		fc.Count.Add(fc.Count, ratOrZero(col.Count.Value))
		fc.Bytes.Add(fc.Bytes, ratOrZero(col.Bytes.Value))
		f.Collectives[key] = fc
	}
	f.dropZeros()
	return f
}

// ---------------------------------------------------------------------------
// The static part of the oracle: what one execution of each statement does.

// oracleRef is one array reference of a counted statement.
type oracleRef struct {
	key    string // refKey, with the hoisting the oracle decided
	size   int64  // element size in bytes
	store  bool
	region string
}

// oracleLocal is what one execution of an assignment, a var initialisation
// or a data condition does, apart from its hoisted references.
type oracleLocal struct {
	region    string
	enclosing []lang.Stmt // the loops, repeats and ifs around it, outermost first
	ops       []opTally
	madd      []opTally
	refs      []oracleRef
}

// oracleProgram is a checked kernel prepared for concrete walks: the local
// counts of every statement that computes, and for every loop the
// references hoisted out of it.
type oracleProgram struct {
	k       *lang.Checked
	local   map[lang.Node]*oracleLocal
	hoisted map[*lang.ForStmt][]oracleRef
	regions []string // in order of first appearance, "" first
	// loops holds every for and repeat with what encloses it and its
	// region; chains the analyzer's chain leaves (oracle_chains_test.go).
	loops  map[lang.Stmt]oracleLoop
	chains []*leaf
}

// newOracleProgram prepares k.
func newOracleProgram(k *lang.Checked) *oracleProgram {
	pr := &oracleProgram{k: k, local: map[lang.Node]*oracleLocal{}, hoisted: map[*lang.ForStmt][]oracleRef{}, regions: []string{""},
		loops: map[lang.Stmt]oracleLoop{}}
	pr.prepareBlock(k.Kernel.Body, nil, "")
	pr.chains = chainLeaves(k)
	return pr
}

// prepareBlock prepares every statement of b; enclosing lists the loops,
// repeats and ifs around it, outermost first.
func (pr *oracleProgram) prepareBlock(b *lang.Block, enclosing []lang.Stmt, region string) {
	for _, s := range b.Stmts {
		pr.prepareStmt(s, enclosing, region)
	}
}

// prepareStmt prepares one statement.
func (pr *oracleProgram) prepareStmt(s lang.Stmt, enclosing []lang.Stmt, region string) {
	inner := append(enclosing[:len(enclosing):len(enclosing)], s)
	switch s := s.(type) {
	case *lang.Block:
		pr.prepareBlock(s, enclosing, region)
	case *lang.RegionStmt:
		if !containsString(pr.regions, s.Name) {
			pr.regions = append(pr.regions, s.Name)
		}
		pr.prepareBlock(s.Body, enclosing, s.Name)
	case *lang.ForStmt:
		pr.loops[s] = oracleLoop{enclosing: enclosing, region: region}
		pr.prepareBlock(s.Body, inner, region)
	case *lang.RepeatStmt:
		pr.loops[s] = oracleLoop{enclosing: enclosing, region: region}
		pr.prepareBlock(s.Body, inner, region)
	case *lang.IfStmt:
		if s.Prob != nil {
			pr.prepareLocal(s, nil, s.Cond, 0, 1, enclosing, region)
		}
		pr.prepareBlock(s.Then, inner, region)
		if s.Else != nil {
			pr.prepareStmt(s.Else, inner, region)
		}
	case *lang.AssignStmt:
		pr.prepareLocal(s, s.Lhs, s.Rhs, s.Op, 1, enclosing, region)
	case *lang.VarDecl:
		if s.Init != nil && pr.k.Info.Deps[s.Init] != 0 {
			pr.prepareLocal(s, nil, s.Init, lang.Assign, int64(len(s.Names)), enclosing, region)
		}
	case *lang.CommStmt:
		if cp := pr.k.Info.CommPacks[s]; cp != nil {
			for _, st := range append(append([]lang.Stmt(nil), cp.Before...), cp.After...) {
				pr.prepareStmt(st, enclosing, region)
			}
		}
	}
}

// prepareLocal counts one execution of a statement that computes rhs (and
// stores to lhs, when it is an array element) and decides for each of its
// references whether it is hoisted. A var declaration initialises each of
// its names, so its operations count once per name.
func (pr *oracleProgram) prepareLocal(s lang.Stmt, lhs, rhs lang.Expr, op lang.AssignOp, times int64, enclosing []lang.Stmt, region string) {
	info := pr.k.Info
	t := tallier{info: info}
	t.expr(rhs)
	refs := t.refs
	if bin, compound := op.Binary(); compound && lhs != nil {
		typ := opTypeOf(info.Types[lhs])
		t.count(binaryOpKind(bin), typ)
		// a += x*y is a = a + x*y: a pair when the multiply has a's type.
		if m, ok := lang.Unparen(rhs).(*lang.BinaryExpr); ok && m.Op == lang.Mul && t.counted(m) &&
			(bin == lang.Add || bin == lang.Sub) && opTypeOf(info.Types[m]) == typ {
			t.madd = addTally(t.madd, opTally{op: OpMul, typ: typ, n: 1})
		}
	}
	if ix, ok := lang.Unparen(lhs).(*lang.IndexExpr); ok {
		if _, compound := op.Binary(); compound {
			refs = append(refs, &refInfo{ref: ix, array: info.Uses[ix.Name]})
		}
		refs = append(refs, &refInfo{ref: ix, array: info.Uses[ix.Name], store: true})
	}
	loc := &oracleLocal{region: region, enclosing: enclosing}
	for _, o := range t.ops {
		loc.ops = append(loc.ops, opTally{op: o.op, typ: o.typ, n: o.n * times})
	}
	for _, m := range t.madd {
		loc.madd = append(loc.madd, opTally{op: m.op, typ: m.typ, n: m.n * times})
	}
	for _, r := range refs {
		pos := pr.k.File.Source.Position(r.ref.Pos()).String()
		text := lang.ExprString(r.ref)
		ref := oracleRef{size: int64(r.array.Elem.Size()), store: r.store, region: region}
		if loop := pr.hoistLoop(r.ref, r.array, enclosing); loop != nil {
			// Held in a register: one load per entry of the loop, however
			// often the statement reads it.
			ref.key = refKey(pos, text, r.store, loop.Var.Name)
			pr.hoisted[loop] = append(pr.hoisted[loop], ref)
			continue
		}
		ref.key = refKey(pos, text, r.store, "")
		for range times {
			loc.refs = append(loc.refs, ref)
		}
	}
	pr.local[s] = loc
}

// hoistLoop returns the loop a reference is hoisted out of, or nil. Going
// outward from the statement, every for loop in which the reference reads
// no index and is the only form of reference to its array joins the run;
// the run ends at the first loop that fails and at a repeat (which re-runs
// its body on purpose). The reference is loaded once per entry of the
// outermost loop of the run, as a compiler keeps it in a register.
func (pr *oracleProgram) hoistLoop(ref *lang.IndexExpr, array *lang.Object, enclosing []lang.Stmt) *lang.ForStmt {
	var out *lang.ForStmt
	for i := len(enclosing) - 1; i >= 0; i-- {
		switch s := enclosing[i].(type) {
		case *lang.RepeatStmt:
			return out
		case *lang.ForStmt:
			if pr.readsIndexOf(ref, s) || !pr.onlyForm(s.Body, ref, array) {
				return out
			}
			out = s
		}
	}
	return out
}

// readsIndexOf reports whether n reads the index of loop, directly or
// through a let defined from it.
func (pr *oracleProgram) readsIndexOf(n lang.Node, loop *lang.ForStmt) bool {
	reads := false
	lang.Inspect(n, func(n lang.Node) bool {
		id, ok := n.(*lang.Ident)
		if !ok || reads {
			return !reads
		}
		obj := pr.k.Info.Uses[id]
		switch {
		case obj == nil:
		case obj.Kind == lang.IndexObj && obj.Loop == loop:
			reads = true
		case obj.Kind == lang.LetObj && obj.Expr != nil && obj.Dep&lang.DepIndex != 0:
			reads = pr.readsIndexOf(obj.Expr, loop)
		}
		return !reads
	})
	return reads
}

// onlyForm reports whether every reference to array in body is written
// exactly like ref, and no communication statement in body moves it.
func (pr *oracleProgram) onlyForm(body *lang.Block, ref *lang.IndexExpr, array *lang.Object) bool {
	want := lang.ExprString(ref)
	only := true
	lang.Inspect(body, func(n lang.Node) bool {
		switch n := n.(type) {
		case *lang.IndexExpr:
			if pr.k.Info.Uses[n.Name] == array && lang.ExprString(n) != want {
				only = false
			}
		case *lang.CommStmt:
			for _, pl := range []*lang.Payload{n.Payload, n.Into} {
				if pl != nil && pl.Name != nil && pr.k.Info.Uses[pl.Name] == array {
					only = false
				}
			}
		}
		return only
	})
	return only
}

// containsString reports whether s is in list.
func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ---------------------------------------------------------------------------
// The concrete walk of one rank.

// oracleMessage accumulates one direction of one point-to-point statement.
type oracleMessage struct {
	region       string
	kind, peer   string
	stmt         string
	varies       bool
	peers        map[int64]bool
	count, bytes *big.Rat
}

// oracleCollective accumulates one collective statement.
type oracleCollective struct {
	region string
	key    string
	col    flatCollective
}

// oracleRun is the walk of one rank: how often (in expectation) every
// statement ran, every loop body ran and every hoisted reference was
// loaded.
type oracleRun struct {
	pr    *oracleProgram
	env   *lang.Env
	steps int64
	execs map[*oracleLocal]*big.Rat
	hoist map[*lang.ForStmt]*big.Rat // entries of each loop with hoisted refs
	iters map[string]*big.Rat        // loop body executions by region
	// entries counts loop starts by region, loopIters the body
	// executions of each loop.
	entries      map[string]*big.Rat
	regions      map[string]*big.Rat // region starts, by region
	innerRegions map[string]*big.Rat // region starts, by the enclosing region
	loopIters    map[lang.Stmt]*big.Rat
	// loopEntries counts the starts of each loop (Chain.Entries).
	loopEntries map[lang.Stmt]*big.Rat
	msgs        map[string]*oracleMessage
	cols        map[string]*oracleCollective
	barrs       map[string]*big.Rat
	reqs        oracleRequests // oracle_requests_test.go
}

// run walks rank's execution and returns its counts by region name (as the
// report names regions) in the order of first appearance.
func (pr *oracleProgram) run(rank int64) (map[string]*flatCounts, []string, error) {
	w := &oracleRun{
		pr:    pr,
		env:   &lang.Env{Rank: rank, Index: make([]int64, pr.k.Info.NumSlots)},
		execs: map[*oracleLocal]*big.Rat{}, hoist: map[*lang.ForStmt]*big.Rat{},
		iters: map[string]*big.Rat{}, msgs: map[string]*oracleMessage{},
		cols: map[string]*oracleCollective{}, barrs: map[string]*big.Rat{},
		entries: map[string]*big.Rat{}, regions: map[string]*big.Rat{}, innerRegions: map[string]*big.Rat{}, loopIters: map[lang.Stmt]*big.Rat{}, loopEntries: map[lang.Stmt]*big.Rat{},
	}
	if err := w.block(pr.k.Kernel.Body, big.NewRat(1, 1), ""); err != nil {
		return nil, nil, err
	}
	if err := w.reqs.done(); err != nil {
		return nil, nil, err
	}
	return w.tally()
}

// block walks the statements of b, each run weighted mult.
func (w *oracleRun) block(b *lang.Block, mult *big.Rat, region string) error {
	for _, s := range b.Stmts {
		if err := w.stmt(s, mult, region); err != nil {
			return err
		}
	}
	return nil
}

// stmt walks one statement.
func (w *oracleRun) stmt(s lang.Stmt, mult *big.Rat, region string) error {
	k := w.pr.k
	switch s := s.(type) {
	case *lang.Block:
		return w.block(s, mult, region)
	case *lang.RegionStmt:
		addTo(w.regions, s.Name, mult)
		addTo(w.innerRegions, region, mult)
		return w.block(s.Body, mult, s.Name)
	case *lang.AssignStmt, *lang.VarDecl:
		if loc := w.pr.local[s]; loc != nil {
			addTo2(w.execs, loc, mult)
			w.computed(loc, mult)
		}
	case *lang.WaitStmt:
		w.wait(s)
	case *lang.ForStmt:
		return w.forLoop(s, mult, region)
	case *lang.RepeatStmt:
		n, err := k.EvalInt(s.Count, w.env)
		if err != nil {
			return err
		}
		addTo(w.entries, region, mult)
		addTo2(w.loopEntries, lang.Stmt(s), mult)
		for range n {
			if err := w.iterate(s, mult, region); err != nil {
				return err
			}
			if err := w.block(s.Body, mult, region); err != nil {
				return err
			}
		}
	case *lang.IfStmt:
		return w.ifStmt(s, mult, region)
	case *lang.CommStmt:
		return w.comm(s, mult, region)
	}
	return nil
}

// forLoop runs every iteration of a for loop; the references hoisted out
// of it are loaded once on entry, however many times the body runs.
func (w *oracleRun) forLoop(s *lang.ForStmt, mult *big.Rat, region string) error {
	k := w.pr.k
	lo, err := k.EvalInt(s.Lo, w.env)
	if err != nil {
		return err
	}
	hi, err := k.EvalInt(s.Hi, w.env)
	if err != nil {
		return err
	}
	step := int64(1)
	if s.Step != nil {
		if step, err = k.EvalInt(s.Step, w.env); err != nil {
			return err
		}
	}
	if len(w.pr.hoisted[s]) > 0 {
		if w.hoist[s] == nil {
			w.hoist[s] = new(big.Rat)
		}
		w.hoist[s].Add(w.hoist[s], mult)
		w.reqs.compute()
	}
	slot := k.Info.Defs[s.Var].Slot
	addTo(w.entries, region, mult)
	addTo2(w.loopEntries, lang.Stmt(s), mult)
	for x := lo; x < hi; x += step {
		if err := w.iterate(s, mult, region); err != nil {
			return err
		}
		w.env.Index[slot] = x
		if err := w.block(s.Body, mult, region); err != nil {
			return err
		}
	}
	return nil
}

// iterate counts one execution of a loop body.
func (w *oracleRun) iterate(loop lang.Stmt, mult *big.Rat, region string) error {
	addTo2(w.loopIters, loop, mult)
	w.steps++
	if w.steps > maxOracleSteps {
		return fmt.Errorf("oracle: more than %d loop iterations on rank %d; choose smaller parameters", maxOracleSteps, w.env.Rank)
	}
	if w.iters[region] == nil {
		w.iters[region] = new(big.Rat)
	}
	w.iters[region].Add(w.iters[region], mult)
	return nil
}

// ifStmt takes the branch a static condition selects, or both branches of
// a data condition weighted by p and 1 − p after evaluating the condition.
func (w *oracleRun) ifStmt(s *lang.IfStmt, mult *big.Rat, region string) error {
	k := w.pr.k
	if s.Prob == nil {
		v, err := k.Eval(s.Cond, w.env)
		if err != nil {
			return err
		}
		if v.Kind() != lang.BoolValue {
			return fmt.Errorf("oracle: condition %s is %s, not a bool", lang.ExprString(s.Cond), v)
		}
		if v.Bool() {
			return w.block(s.Then, mult, region)
		}
		if s.Else != nil {
			return w.stmt(s.Else, mult, region)
		}
		return nil
	}
	addTo2(w.execs, w.pr.local[s], mult)
	w.computed(w.pr.local[s], mult)
	pv, err := k.Eval(s.Prob, nil)
	if err != nil {
		return err
	}
	p := pv.Rat()
	if err := w.block(s.Then, new(big.Rat).Mul(mult, p), region); err != nil {
		return err
	}
	if s.Else != nil {
		q := new(big.Rat).Sub(big.NewRat(1, 1), p)
		return w.stmt(s.Else, new(big.Rat).Mul(mult, q), region)
	}
	return nil
}

// comm counts one run of a communication statement, with the pack loops
// it runs before its transfer and the unpack loops after (lang.CommPack).
func (w *oracleRun) comm(s *lang.CommStmt, mult *big.Rat, region string) error {
	cp := w.pr.k.Info.CommPacks[s]
	if cp == nil {
		return w.transfer(s, mult, region)
	}
	for _, st := range cp.Before {
		if err := w.stmt(st, mult, region); err != nil {
			return err
		}
	}
	if err := w.transfer(s, mult, region); err != nil {
		return err
	}
	for _, st := range cp.After {
		if err := w.stmt(st, mult, region); err != nil {
			return err
		}
	}
	return nil
}

// transfer counts the messages or the collective of one run of a
// communication statement.
func (w *oracleRun) transfer(s *lang.CommStmt, mult *big.Rat, region string) error {
	switch s.Kind {
	case lang.Send, lang.Recv:
		return w.p2p(s.Kind.String(), s, s.Payload, s.Peer, mult, region)
	case lang.ISend, lang.IRecv:
		if err := w.p2p(s.Kind.String(), s, s.Payload, s.Peer, mult, region); err != nil {
			return err
		}
		return w.post(s, region)
	case lang.SendRecv:
		if err := w.p2p("send", s, s.Payload, s.Peer, mult, region); err != nil {
			return err
		}
		into := s.Into
		if into == nil {
			into = s.Payload
		}
		return w.p2p("recv", s, into, s.From, mult, region)
	case lang.Exchange:
		if err := w.p2p("send", s, s.Payload, s.Peer, mult, region); err != nil {
			return err
		}
		return w.p2p("recv", s, s.Payload, s.Peer, mult, region)
	case lang.Barrier:
		addTo(w.barrs, region, mult)
		return nil
	}
	return w.collective(s, mult, region)
}

// p2p counts one direction of a point-to-point statement; a peer that is
// none does nothing.
func (w *oracleRun) p2p(kind string, s *lang.CommStmt, pl *lang.Payload, peer lang.Expr, mult *big.Rat, region string) error {
	k := w.pr.k
	to, err := k.EvalInt(peer, w.env)
	if err != nil {
		return err
	}
	if to < 0 {
		return nil
	}
	if to >= k.NumRanks() {
		return fmt.Errorf("oracle: peer %s = %d is not a rank", lang.ExprString(peer), to)
	}
	n, err := w.payloadBytes(pl)
	if err != nil {
		return err
	}
	stmt := k.File.Source.Position(s.Pos()).String()
	key := messageKey(kind, stmt, lang.ExprString(peer))
	m := w.msgs[key]
	if m == nil {
		m = &oracleMessage{region: region, kind: kind, stmt: stmt, peer: lang.ExprString(peer),
			varies: k.Info.Deps[peer]&lang.DepIndex != 0, peers: map[int64]bool{},
			count: new(big.Rat), bytes: new(big.Rat)}
		w.msgs[key] = m
	}
	m.peers[to] = true
	m.count.Add(m.count, mult)
	m.bytes.Add(m.bytes, new(big.Rat).Mul(mult, new(big.Rat).SetInt64(n)))
	return nil
}

// collective counts one run of a collective.
func (w *oracleRun) collective(s *lang.CommStmt, mult *big.Rat, region string) error {
	k := w.pr.k
	n, err := w.payloadBytes(s.Payload)
	if err != nil {
		return err
	}
	key := s.Kind.String() + " " + k.File.Source.Position(s.Pos()).String()
	c := w.cols[key]
	if c == nil {
		col := flatCollective{Participants: k.NumRanks(), Count: new(big.Rat), Bytes: new(big.Rat)}
		if s.Op != lang.NoReduce {
			col.Op = s.Op.String()
		}
		if s.Payload != nil && s.Payload.Name != nil {
			col.Elem = k.Info.Uses[s.Payload.Name].Elem.String()
		}
		if s.Peer != nil {
			col.Root = lang.ExprString(s.Peer)
		}
		c = &oracleCollective{region: region, key: key, col: col}
		w.cols[key] = c
	}
	c.col.Count.Add(c.col.Count, mult)
	c.col.Bytes.Add(c.col.Bytes, new(big.Rat).Mul(mult, new(big.Rat).SetInt64(n)))
	return nil
}

// payloadBytes is the size of a payload at the current iteration: an
// abstract size, one var, or the elements of an array slice or row.
func (w *oracleRun) payloadBytes(pl *lang.Payload) (int64, error) {
	k := w.pr.k
	if pl.Bytes != nil {
		return k.EvalInt(pl.Bytes, w.env)
	}
	obj := k.Info.Uses[pl.Name]
	n := int64(obj.Elem.Size())
	if obj.Kind != lang.ArrayObj {
		return n, nil
	}
	for _, sub := range pl.Subs {
		if !sub.IsRange() {
			continue
		}
		lo, err := k.EvalInt(sub.Lo, w.env)
		if err != nil {
			return 0, err
		}
		hi, err := k.EvalInt(sub.Hi, w.env)
		if err != nil {
			return 0, err
		}
		step := int64(1)
		if sub.Step != nil {
			if step, err = k.EvalInt(sub.Step, w.env); err != nil {
				return 0, err
			}
		}
		if hi > lo {
			n *= (hi - lo + step - 1) / step
		} else {
			n = 0
		}
	}
	for _, d := range obj.Dims[min(len(pl.Subs), len(obj.Dims)):] {
		n *= d
	}
	return n, nil
}

// tally turns the execution counts into counts per region.
func (w *oracleRun) tally() (map[string]*flatCounts, []string, error) {
	out := map[string]*flatCounts{}
	var order []string
	for _, r := range w.pr.regions {
		name := regionName(r)
		out[name] = newFlatCounts()
		order = append(order, name)
	}
	at := func(region string) *flatCounts { return out[regionName(region)] }
	for region, n := range w.iters {
		at(region).Iterations.Add(at(region).Iterations, n)
	}
	for region, n := range w.barrs {
		at(region).Barriers.Add(at(region).Barriers, n)
	}
	for region, n := range w.entries {
		at(region).LoopEntries.Add(at(region).LoopEntries, n)
	}
	for region, n := range w.regions {
		at(region).RegionEntries.Add(at(region).RegionEntries, n)
	}
	for region, n := range w.innerRegions {
		at(region).InnerRegionEntries.Add(at(region).InnerRegionEntries, n)
	}
	w.tallyChains(at)
	for loc, n := range w.execs {
		f := at(loc.region)
		for _, o := range loc.ops {
			addTo(f.Ops, o.op.String()+" "+string(o.typ), new(big.Rat).Mul(n, big.NewRat(o.n, 1)))
		}
		for _, m := range loc.madd {
			f.MaddPairs.Add(f.MaddPairs, new(big.Rat).Mul(n, big.NewRat(m.n, 1)))
		}
		for _, r := range loc.refs {
			w.addRef(at(r.region), r, n)
		}
	}
	for loop, n := range w.hoist {
		for _, r := range w.pr.hoisted[loop] {
			w.addRef(at(r.region), r, n)
		}
	}
	for _, m := range w.msgs {
		fm := flatMessage{Count: m.count, Bytes: m.bytes, PeerRank: peerVaries}
		if !m.varies {
			if len(m.peers) != 1 {
				return nil, nil, fmt.Errorf("oracle: %s reads no loop index but reached %d peers", m.stmt, len(m.peers))
			}
			for p := range m.peers {
				fm.PeerRank = p
			}
		}
		at(m.region).Messages[messageKey(m.kind, m.stmt, m.peer)] = fm
	}
	for _, c := range w.cols {
		at(c.region).Collectives[c.key] = c.col
	}
	for region, n := range w.reqs.tally {
		for k, v := range n {
			addTo(at(region).Requests, k, v)
		}
	}
	for _, f := range out {
		f.deriveTotals()
		f.dropZeros()
	}
	return out, order, nil
}

// addRef adds n executions of reference r to f.
func (w *oracleRun) addRef(f *flatCounts, r oracleRef, n *big.Rat) {
	addTo(f.Refs, r.key, n)
	bytes := new(big.Rat).Mul(n, big.NewRat(r.size, 1))
	if r.store {
		f.Stores.Add(f.Stores, n)
		f.StoreBytes.Add(f.StoreBytes, bytes)
	} else {
		f.Loads.Add(f.Loads, n)
		f.LoadBytes.Add(f.LoadBytes, bytes)
	}
}

// deriveTotals computes the nominal flop and the integer operations from
// the operation counts: PARKBENCH weights for floating-point operations,
// every integer operation but a conversion once.
func (f *flatCounts) deriveTotals() {
	for key, n := range f.Ops {
		kind, typ, _ := strings.Cut(key, " ")
		op := opKindNamed(kind)
		if isFloatType(OpType(typ)) {
			f.Flop.Add(f.Flop, new(big.Rat).Mul(n, big.NewRat(op.NominalFlop(), 1)))
		} else if op != OpConv {
			f.IntOps.Add(f.IntOps, n)
		}
	}
}

// opKindNamed returns the operation kind called name.
func opKindNamed(name string) OpKind {
	for k := OpKind(0); k < numOpKinds; k++ {
		if k.String() == name {
			return k
		}
	}
	panic("oracle: unknown operation " + name)
}

// addTo2 adds n to the entry of m at key.
func addTo2[K comparable](m map[K]*big.Rat, key K, n *big.Rat) {
	if m[key] == nil {
		m[key] = new(big.Rat)
	}
	m[key].Add(m[key], n)
}

// ---------------------------------------------------------------------------
// Comparison.

// ratComparer compares exact counts by value.
var ratComparer = cmp.Comparer(func(a, b *big.Rat) bool { return ratOrZero(a).Cmp(ratOrZero(b)) == 0 })

// loadKernel parses and checks the first kernel of src with overrides.
func loadKernel(t testing.TB, name string, src []byte, overrides []lang.Override) *lang.Checked {
	t.Helper()
	f, err := parser.ParseFile(name, src)
	if err != nil {
		t.Fatalf("parse %s: %v\n%s", name, err, src)
	}
	k, err := lang.Check(f, "", overrides)
	if err != nil {
		t.Fatalf("check %s %v: %v\n%s", name, overrides, err, src)
	}
	return k
}

// oracleMismatch compares Analyze with the oracle on every rank of k,
// both analysing all ranks together (rank classes) and each rank alone,
// and describes the first differences, or returns "".
func oracleMismatch(k *lang.Checked) string {
	rep, err := Analyze(k, Options{rangesFrom: 1})
	if err != nil {
		return "Analyze: " + err.Error()
	}
	pr := newOracleProgram(k)
	var out strings.Builder
	problems := 0
	for r := int64(0); r < k.NumRanks() && problems < 3; r++ {
		want, order, err := pr.run(r)
		if err != nil {
			return err.Error()
		}
		want = withTotal(want)
		got, gotOrder, err := reportRank(rep, r)
		if err != nil {
			return err.Error()
		}
		alone, err := Analyze(k, Options{OnlyRank: new(r)})
		if err != nil {
			return fmt.Sprintf("Analyze rank %d alone: %v", r, err)
		}
		gotAlone, _, err := reportRank(alone, r)
		if err != nil {
			return err.Error()
		}
		if d := formulaMismatch(k, alone, r); d != "" {
			fmt.Fprintf(&out, "rank %d analysed alone: %s", r, d)
			problems++
		}
		if d := cmp.Diff(order, gotOrder); d != "" {
			fmt.Fprintf(&out, "rank %d: regions (-oracle +analyze):\n%s", r, d)
			problems++
		}
		// Peer ranks of a shared class are the representative's.
		wantShared := want
		if cl := classOf(rep, r); cl != nil && cl.Rank != r {
			wantShared = withoutPeers(want)
		}
		if d := cmp.Diff(wantShared, got, ratComparer); d != "" {
			fmt.Fprintf(&out, "rank %d, all ranks analysed (-oracle +analyze):\n%s", r, d)
			problems++
		}
		if d := cmp.Diff(want, gotAlone, ratComparer); d != "" {
			fmt.Fprintf(&out, "rank %d analysed alone (-oracle +analyze):\n%s", r, d)
			problems++
		}
	}
	return out.String()
}

// formulaMismatch checks every count of rank r's class in rep against its
// formula: a closed form evaluated at the parameters, lets and rank must
// give the value (formulas with atoms such as (rank + 1) % P are skipped),
// and a count found by enumeration carries its value as a constant.
func formulaMismatch(k *lang.Checked, rep *Report, r int64) string {
	cl := classOf(rep, r)
	if cl == nil {
		return fmt.Sprintf("rank %d is in no class of the report", r)
	}
	env := symbolEnv(k, r)
	var out strings.Builder
	check := func(where string, c *Counts) {
		c.forEachCount(func(n Count) {
			if out.Len() > 2000 {
				return
			}
			value := ratOrZero(n.Value)
			if !n.Symbolic {
				if v, ok := n.Formula.Constant(); (!ok || v.Cmp(value) != 0) && !(n.Formula.IsZero() && value.Sign() == 0) {
					fmt.Fprintf(&out, "%s: a count found by enumeration has value %s but formula %s, not the constant\n", where, value.RatString(), n.Formula)
				}
				return
			}
			for _, v := range n.Formula.Vars() {
				if env[v] == nil {
					return
				}
			}
			got, err := n.Formula.Eval(env)
			if err != nil || got.Cmp(value) != 0 {
				fmt.Fprintf(&out, "%s: formula %s evaluates to %v (%v), but the value is %s\n", where, n.Formula, got, err, value.RatString())
			}
		})
	}
	check("total", &cl.Total)
	for _, reg := range cl.Regions {
		check("region "+reg.Name, &reg.Counts)
	}
	return out.String()
}

// symbolEnv gives the symbols of formulas their values on rank r:
// parameters, lets that are integers for the run, rank and the grid
// coordinates.
func symbolEnv(k *lang.Checked, r int64) map[string]*big.Rat {
	env := map[string]*big.Rat{"rank": big.NewRat(r, 1), "P": big.NewRat(k.NumRanks(), 1)}
	for _, p := range k.Params {
		if v := p.Value.Rat(); v != nil {
			env[p.Name] = v
		}
	}
	lang.Inspect(k.Kernel.Body, func(n lang.Node) bool {
		if s, ok := n.(*lang.LetStmt); ok {
			if obj := k.Info.Defs[s.Name]; obj != nil && obj.Dep == 0 && obj.Value.IsInt() {
				env[obj.Name] = obj.Value.Rat()
			}
		}
		return true
	})
	if px, _, ok := k.Grid(); ok {
		env["rx"] = big.NewRat(r%px, 1)
		env["ry"] = big.NewRat(r/px, 1)
	}
	return env
}

// classOf returns the class of rank r in rep.
func classOf(rep *Report, r int64) *Class {
	for _, cl := range rep.Classes {
		if cl.Ranks.Contains(r) {
			return cl
		}
	}
	return nil
}

// reportRank extracts rank r's counts by region from a report, with the
// class total under "(total)".
func reportRank(rep *Report, r int64) (map[string]*flatCounts, []string, error) {
	cl := classOf(rep, r)
	if cl == nil {
		return nil, nil, fmt.Errorf("rank %d is in no class of the report", r)
	}
	keep := cl.Rank == r
	out := map[string]*flatCounts{}
	var order []string
	for _, reg := range cl.Regions {
		out[reg.Name] = flatten(&reg.Counts, keep)
		order = append(order, reg.Name)
	}
	out["(total)"] = flatten(&cl.Total, keep)
	return out, order, nil
}

// withoutPeers returns a copy of counts with every peer rank cleared.
func withoutPeers(in map[string]*flatCounts) map[string]*flatCounts {
	out := map[string]*flatCounts{}
	for name, f := range in {
		g := *f
		g.Messages = map[string]flatMessage{}
		for k, m := range f.Messages {
			m.PeerRank = 0
			g.Messages[k] = m
		}
		out[name] = &g
	}
	return out
}

// withTotal adds the "(total)" entry: the sum over regions.
func withTotal(in map[string]*flatCounts) map[string]*flatCounts {
	total := newFlatCounts()
	for _, f := range in {
		total = total.plus(f)
	}
	total.dropZeros()
	in["(total)"] = total
	return in
}

// exampleSettings gives every example the -D settings it is checked at:
// small enough for the walk (well under a million iterations per rank), and
// chosen to reach edge cases (a rank with no partner, uneven grids, empty
// loops). An example without settings fails the test, so a new one is
// noticed.
var exampleSettings = map[string][]string{
	"broadcast":         {"m=1000 P=4", "m=7 root=2 P=3"},
	"cannon":            {"N=8 Px=2", "N=9 Px=3", "N=8 Px=4"},
	"comms2":            {"n=8 reps=3", "n=5 reps=2 P=4"},
	"comms3":            {"n=4 reps=2 P=4", "n=3 reps=1 P=5"},
	"concat":            {"l=100 P=4", "l=0 P=1"},
	"gauss":             {"N=8 P=4", "N=12 P=3", "N=16 P=4", "N=5 P=1"},
	"halo2d":            {"nx=4 ny=3 iters=2 Px=2 Py=2", "nx=3 ny=2 iters=1 Px=3 Py=2", "nx=2 ny=2 iters=1 Px=1 Py=1"},
	"halo2d_columns":    {"nx=4 ny=3 iters=2 Px=2 Py=2", "nx=3 ny=2 iters=1 Px=3 Py=2", "nx=2 ny=2 iters=1 Px=1 Py=1"},
	"hypercube":         {"n=16 P=8", "n=3 P=2"},
	"jacobi_blocking":   {"nx=4 ny=3 iters=2 Px=2 Py=2", "nx=3 ny=2 iters=1 Px=3 Py=2", "nx=2 ny=2 iters=1 Px=1 Py=1"},
	"jacobi_overlap":    {"nx=4 ny=3 iters=2 Px=2 Py=2", "nx=3 ny=2 iters=1 Px=3 Py=2", "nx=2 ny=1 iters=1 Px=1 Py=1"},
	"matmul":            {"N=5", "N=8"},
	"matmul_transposed": {"N=5", "N=1"},
	"meshshift":         {"size=64 Px=3 Py=2", "size=8 Px=2 Py=2"},
	"permutation":       {"m=100 P=4", "m=8 dist=3 P=5"},
	"pingpong":          {"n=8 reps=3", "n=2 reps=2 P=3"},
	"pipeline":          {"m=4 b=3 P=5", "m=1 b=1 P=2", "m=2 b=2 P=1"},
	"poly1":             {"n=10 k=3 reps=2", "n=4 k=0 reps=3"},
	"poly2":             {"n=10 k=3", "n=7 k=1"},
	"poly3":             {"n=10 k=3 reps=2", "n=4 k=2 reps=1 P=3"},
	"procs":             {"nx=4 ny=3 iters=2 Px=2 Py=2", "nx=3 ny=2 iters=1 Px=3 Py=2"},
	"reductions":        {"reps=3 P=4", "reps=1 P=1"},
	"rinf1":             {"n=10 reps=3", "n=1 reps=1"},
	"ring":              {"n=5 P=4", "n=1 P=1", "n=3 P=2"},
	"scatter":           {"m=1000 P=4", "m=7 root=2 P=3"},
	"stencil1d":         {"n=10 iters=3 P=4", "n=3 iters=2 P=2"},
	"stride":            {"N=10 S=4", "N=7 S=1"},
	"sweep3d":           {"it=2 jt=2 kt=4 mk=2 mm=4 mmi=2 Px=2 Py=2", "it=2 jt=3 kt=2 mk=2 mm=2 mmi=1 Px=3 Py=2"},
	"sweep3d_abstract":  {"it=2 jt=2 kt=4 mk=2 mm=4 mmi=2 Px=2 Py=2", "it=2 jt=3 kt=2 mk=2 mm=2 mmi=1 Px=3 Py=2"},
	"synch1":            {"reps=5 P=4", "reps=2 P=1"},
	"triad":             {"N=10", "N=1"},
	"wave":              {"sweeps=2 cells=4 Px=3 Py=2", "sweeps=1 cells=2 Px=2 Py=3"},
}

// parseSetting turns "N=8 P=4" into overrides.
func parseSetting(t testing.TB, s string) []lang.Override {
	t.Helper()
	var out []lang.Override
	for _, f := range strings.Fields(s) {
		name, value, ok := strings.Cut(f, "=")
		if !ok {
			t.Fatalf("bad setting %q: want NAME=VALUE", f)
		}
		out = append(out, lang.Override{Name: name, Value: value})
	}
	return out
}

// TestOracleExamples checks Analyze against the oracle on every example at
// its settings, every rank, every region.
func TestOracleExamples(t *testing.T) {
	files, err := filepath.Glob("../examples/*.spmd")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples found: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".spmd")
		t.Run(name, func(t *testing.T) {
			settings, ok := exampleSettings[name]
			if !ok {
				t.Fatalf("example %s has no oracle settings; add small -D values to exampleSettings", name)
			}
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range settings {
				k := loadKernel(t, file, src, parseSetting(t, s))
				if d := oracleMismatch(k); d != "" {
					t.Errorf("%s -D %s:\n%s", name, s, d)
				}
			}
		})
	}
}

// TestOracleTestdata checks Analyze against the oracle on the kernels of
// testdata/oracle, each at the settings its "// oracle: N=3 M=2" lines
// name (and at its defaults when it names none).
func TestOracleTestdata(t *testing.T) {
	oracleDir(t, "testdata/oracle")
}

// oracleDir checks Analyze against the oracle on the kernels of dir, each
// at the settings its "// oracle: N=3 M=2" lines name (and at its defaults
// when it names none).
func oracleDir(t *testing.T, dir string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.spmd"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no kernels in %s: %v", dir, err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			settings := oracleSettings(src)
			if len(settings) == 0 {
				settings = []string{""}
			}
			for _, s := range settings {
				k := loadKernel(t, file, src, parseSetting(t, s))
				if d := oracleMismatch(k); d != "" {
					t.Errorf("-D %s:\n%s", s, d)
				}
			}
		})
	}
}

// oracleSettings returns the settings of the "// oracle:" lines of src.
func oracleSettings(src []byte) []string {
	var out []string
	for _, line := range strings.Split(string(src), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "// oracle:"); ok {
			out = append(out, strings.TrimSpace(rest))
		}
	}
	sort.Strings(out)
	return out
}
