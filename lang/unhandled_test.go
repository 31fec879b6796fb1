package lang

import (
	"strings"
	"testing"
)

// bogusStmt is a statement kind no stage has a rule for.
type bogusStmt struct{}

func (bogusStmt) Pos() Pos  { return NoPos }
func (bogusStmt) stmtNode() {}

// TestUnhandled checks the message of a missing rule and that a walk over
// a tree with an unknown statement kind fails loudly instead of skipping
// its children.
func TestUnhandled(t *testing.T) {
	want := "internal error: analyze: plan: unhandled statement kind lang.bogusStmt; please report it"
	if got := Unhandled("analyze: plan", bogusStmt{}); got != want {
		t.Errorf("Unhandled = %q, want %q", got, want)
	}
	if got := Unhandled("x", &Ident{}); !strings.Contains(got, "unhandled expression kind *lang.Ident") {
		t.Errorf("Unhandled of an expression = %q", got)
	}
	if got, want := UnhandledComm("analyze: count communication", CommKind(200)), "internal error: analyze: count communication: unhandled communication kind CommKind(200); please report it"; got != want {
		t.Errorf("UnhandledComm = %q, want %q", got, want)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "lang: Inspect: unhandled statement kind lang.bogusStmt") {
			t.Errorf("Inspect of an unknown statement kind: recovered %v", r)
		}
	}()
	Inspect(&Block{Stmts: []Stmt{bogusStmt{}}}, func(Node) bool { return true })
	t.Error("Inspect did not panic")
}
