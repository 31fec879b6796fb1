package codegen

import (
	"perfc/analyze"
	"perfc/lang"
)

// The plan is what the generator must know before it writes a statement:
// what one execution of each counted statement does, and which array
// references are hoisted out of which loops. It is the analyzer's own
// counting plan (analyze.PlanStatements; docs/counts.md), so that the
// instrumented program counts what the analyzer predicts and the generated
// loops keep invariant elements in registers where the analyzer assumes
// they are kept there. The CI test that runs every example's instrumented
// program against analyze.Analyze checks the result.

// levelKind says what a level of a chain is.
type levelKind uint8

const (
	loopLevel   levelKind = iota // for i in lo..hi
	repeatLevel                  // repeat n
	guardLevel                   // a branch of a static if
	probLevel                    // a branch of a data if
)

// level is one construct enclosing a statement; chains list them
// outermost first.
type level struct {
	kind  levelKind
	loop  *lang.ForStmt // loopLevel
	index *lang.Object  // loopLevel: the loop's index
}

// hasProb reports whether a chain passes through a prob branch, where the
// analyzer counts expected values.
func hasProb(chain []level) bool {
	for _, l := range chain {
		if l.kind == probLevel {
			return true
		}
	}
	return false
}

// refUse is one array reference of a counted statement.
type refUse struct {
	ref    *lang.IndexExpr
	array  *lang.Object
	store  bool
	region string
	// hoistTo is the loop the reference is hoisted out of (nil when it is
	// not hoisted), and prob whether the place it is counted at, before
	// that loop, lies in a prob branch.
	hoistTo *lang.ForStmt
	prob    bool
	pattern string // the operand pattern of its statement
}

// stmtTally is what one execution of a counted statement does.
type stmtTally struct {
	ops     []opTally
	madds   []opTally // multiply-add pairs, by the add or sub they pair with
	refs    []*refUse // references that are not hoisted
	pattern string    // the operand pattern (CM-5 Table 1) of the statement
	times   int64     // executions per execution of the statement (a var declaration's names)
}

// opTally is n operations of one kind and type.
type opTally struct {
	op, typ string
	n       int64
}

// plan is the result of the planning walk.
type plan struct {
	tallies map[lang.Stmt]*stmtTally
	hoists  map[*lang.ForStmt][]*refUse // references hoisted out of each loop, in source order
}

// makePlan takes the analyzer's counting plan of a checked kernel.
func makePlan(k *lang.Checked) *plan {
	sp := analyze.PlanStatements(k)
	p := &plan{tallies: map[lang.Stmt]*stmtTally{}, hoists: map[*lang.ForStmt][]*refUse{}}
	for s, t := range sp.Statements {
		st := &stmtTally{pattern: t.Pattern, times: t.Times}
		for _, o := range t.Ops {
			st.ops = append(st.ops, opTally{op: o.Op.String(), typ: string(o.Type), n: o.N})
		}
		for _, o := range t.Madds {
			st.madds = append(st.madds, opTally{op: o.Op.String(), typ: string(o.Type), n: o.N})
		}
		for _, r := range t.Refs {
			st.refs = append(st.refs, refUseOf(r))
		}
		p.tallies[s] = st
	}
	for loop, refs := range sp.Hoisted {
		for _, r := range refs {
			p.hoists[loop] = append(p.hoists[loop], refUseOf(r))
		}
	}
	return p
}

// refUseOf converts one planned reference.
func refUseOf(r *analyze.PlannedRef) *refUse {
	return &refUse{ref: r.Ref, array: r.Array, store: r.Store, region: r.Region, hoistTo: r.HoistedFrom, prob: r.InProb, pattern: r.Pattern}
}

// appendLevel returns chain + l without sharing chain's spare capacity.
func appendLevel(chain []level, l level) []level {
	out := make([]level, len(chain), len(chain)+1)
	copy(out, chain)
	return append(out, l)
}
