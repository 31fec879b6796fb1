package analyze

import "perfc/lang"

// The counting plan, exported for code generators: what one execution of
// every counted statement does and which references are hoisted out of
// which loops, under exactly the rules the analyzer counts with
// (docs/counts.md). The generated programs count with it, so that what
// they execute can be compared with the analyzer's counts, and keep the
// hoisted elements in locals as the analyzer assumes.

// StatementPlan is the counting plan of a checked kernel.
type StatementPlan struct {
	// Statements holds the assignments, var initialisations and data
	// conditions (the *lang.IfStmt) that count something.
	Statements map[lang.Stmt]*StatementTally
	// Hoisted lists, per loop, the references hoisted out of it, in source
	// order: loaded once before each entry of the loop (and stored once
	// after it).
	Hoisted map[*lang.ForStmt][]*PlannedRef
}

// StatementTally is what one execution of a statement does.
type StatementTally struct {
	Ops     []Tally
	Madds   []Tally       // multiply-add pairs, by the add or sub they pair with
	Refs    []*PlannedRef // references that are not hoisted
	Pattern string        // the operand pattern (CM-5 Table 1)
	Times   int64         // executions per execution of the statement (a var declaration's names)
}

// Tally is n operations of one kind and type.
type Tally struct {
	Op   OpKind
	Type OpType
	N    int64
}

// PlannedRef is one array reference of a counted statement.
type PlannedRef struct {
	Ref    *lang.IndexExpr
	Array  *lang.Object
	Store  bool
	Region string
	// HoistedFrom is the loop the reference is hoisted out of, nil when it
	// is not; InProb says whether the place it is counted at, before that
	// loop, lies in a prob branch (its counts are expected values).
	HoistedFrom *lang.ForStmt
	InProb      bool
	Pattern     string
}

// PlanStatements returns the counting plan of a checked kernel.
func PlanStatements(k *lang.Checked) *StatementPlan {
	p := newPlan(k)
	sp := &StatementPlan{Statements: map[lang.Stmt]*StatementTally{}, Hoisted: map[*lang.ForStmt][]*PlannedRef{}}
	for _, l := range p.leaves {
		switch l.kind {
		case leafExec, leafCond:
			t := &StatementTally{Pattern: l.pattern, Times: max(l.times, 1)}
			for _, o := range l.ops {
				t.Ops = append(t.Ops, Tally{o.op, o.typ, o.n})
			}
			for _, o := range l.madd {
				t.Madds = append(t.Madds, Tally{o.op, o.typ, o.n})
			}
			for _, r := range l.refs {
				t.Refs = append(t.Refs, plannedRef(r, l.region))
			}
			sp.Statements[l.stmt] = t
		case leafHoist:
			r := l.refs[0]
			loop := r.stmtChain[len(r.chain)].loop
			pr := plannedRef(r, l.region)
			pr.HoistedFrom = loop
			for _, lv := range r.chain {
				if lv.kind == probLevel {
					pr.InProb = true
				}
			}
			sp.Hoisted[loop] = append(sp.Hoisted[loop], pr)
		}
	}
	return sp
}

// plannedRef exports one reference.
func plannedRef(r *refInfo, region string) *PlannedRef {
	return &PlannedRef{Ref: r.ref, Array: r.array, Store: r.store, Region: region, Pattern: r.pattern}
}
