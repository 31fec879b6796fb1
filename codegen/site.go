package codegen

import (
	"fmt"
	"strconv"
	"strings"
)

// site is one counted place of the kernel, as the runtime's site table
// holds it (codegen/spmd/desc.go): the generator writes the table into
// main.go, and compares counts with the analyzer through it.
type site struct {
	kind    string // the runtime's constant: siteExec, siteCond, …
	region  int
	stmt    string
	prob    bool   // inside a prob branch: the analyzer counts expected values here
	pattern string // the statement's operand pattern
	times   int64  // executions per execution of the statement, when more than 1
	ops     []opTally
	madds   []opTally
	refs    []siteRef
	peer    string // p2p: the peer as written; collectives: the root
	varies  bool   // p2p: the peer depends on a loop index
	coll    string // collectives: kind
	redop   string
	elem    string
	assumed float64 // siteCond: the probability after prob
	cond    int     // siteTaken: its siteCond
}

// siteRef is one array reference of a site.
type siteRef struct {
	array, pos, text string
	store            bool
	size             int64
	hoisted          string
	pattern          string
}

// literal writes the site as a Go composite literal of the runtime's
// site type. Every string is quoted with strconv.Quote, so no name or
// position can change the program.
func (s site) literal() string {
	q := strconv.Quote
	var b strings.Builder
	fmt.Fprintf(&b, "{kind: %s, region: %d, stmt: %s", s.kind, s.region, q(s.stmt))
	if s.prob {
		b.WriteString(", prob: true")
	}
	if s.pattern != "" {
		fmt.Fprintf(&b, ", pattern: %s", q(s.pattern))
	}
	if s.times > 1 {
		fmt.Fprintf(&b, ", times: %d", s.times)
	}
	for _, list := range []struct {
		name string
		ops  []opTally
	}{{"ops", s.ops}, {"madds", s.madds}} {
		if len(list.ops) == 0 {
			continue
		}
		fmt.Fprintf(&b, ", %s: []opTally{", list.name)
		for i, o := range list.ops {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "{op: %s, typ: %s, n: %d}", q(o.op), q(o.typ), o.n)
		}
		b.WriteString("}")
	}
	if len(s.refs) > 0 {
		b.WriteString(", refs: []siteRef{")
		for i, r := range s.refs {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "{array: %s, pos: %s, text: %s, store: %t, size: %d, hoisted: %s, pattern: %s}",
				q(r.array), q(r.pos), q(r.text), r.store, r.size, q(r.hoisted), q(r.pattern))
		}
		b.WriteString("}")
	}
	for _, f := range []struct{ name, value string }{{"peer", s.peer}, {"coll", s.coll}, {"redop", s.redop}, {"elem", s.elem}} {
		if f.value != "" {
			fmt.Fprintf(&b, ", %s: %s", f.name, q(f.value))
		}
	}
	if s.varies {
		b.WriteString(", varies: true")
	}
	if s.kind == "siteCond" {
		fmt.Fprintf(&b, ", assumed: %s", strconv.FormatFloat(s.assumed, 'g', -1, 64))
	}
	if s.kind == "siteTaken" {
		fmt.Fprintf(&b, ", cond: %d", s.cond)
	}
	b.WriteString("}")
	return b.String()
}
