package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"perfc/lang"
	"perfc/parser"
)

// everyStmt is a kernel with every statement kind, communication kind and
// assignment operator of the language.
const everyStmt = "testdata/every_stmt.spmd"

// stmtKinds are the statement kinds of lang/ast.go (the types with a
// stmtNode method). Adding one means adding it here, to everyStmt, and to
// every stage: docs/internals.md lists the files.
var stmtKinds = []string{"*lang.LetStmt", "*lang.ArrayDecl", "*lang.VarDecl", "*lang.ForStmt", "*lang.RepeatStmt",
	"*lang.AssignStmt", "*lang.IfStmt", "*lang.RegionStmt", "*lang.CommStmt", "*lang.WaitStmt", "*lang.Block"}

// TestEveryStatementKind checks that everyStmt uses every statement kind,
// communication kind and assignment operator, and runs it through every
// stage: parse and check, fmt, count, predict, emulate, gen (the program
// vetted), and check --counts, which builds and runs the generated program
// and compares what it executed with perfc count exactly.
func TestEveryStatementKind(t *testing.T) {
	src, err := os.ReadFile(everyStmt)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(everyStmt, src)
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	lang.Inspect(f, func(n lang.Node) bool {
		switch n := n.(type) {
		case *lang.CommStmt:
			used["comm "+n.Kind.String()] = true
		case *lang.AssignStmt:
			used["assign "+n.Op.String()] = true
		case *lang.IfStmt:
			if n.Else != nil {
				used["else"] = true
			}
		}
		if _, ok := n.(lang.Stmt); ok {
			used[fmt.Sprintf("%T", n)] = true
		}
		return true
	})
	want := slices.Clone(stmtKinds)
	for _, k := range lang.CommKindNames() {
		want = append(want, "comm "+k)
	}
	for _, op := range lang.AssignOpNames() {
		want = append(want, "assign "+op)
	}
	want = append(want, "else")
	for _, w := range want {
		if !used[w] {
			t.Errorf("%s does not use %s", everyStmt, w)
		}
	}

	dir := t.TempDir()
	stages := [][]string{
		{"parse", everyStmt},
		{"fmt", everyStmt},
		{"count", everyStmt, "--cache", "L1=32KiB/64B/8"},
		{"count", everyStmt, "--cache", "L1=32KiB/64B/8", "--symbolic"},
		{"predict", everyStmt, "-m", "unit"},
		{"predict", everyStmt, "-m", "cm5-32"},
		{"emulate", everyStmt, "-m", "unit"},
		{"gen", everyStmt, "--out", filepath.Join(dir, "gen")},
	}
	for _, args := range stages {
		code, out, errOut := runCLI(t, "", args...)
		if code != 0 || errOut != "" {
			t.Errorf("perfc %v: status %d\n%s%s", args, code, out, errOut)
		}
		if args[0] == "fmt" && out != string(src) {
			t.Errorf("perfc fmt changes %s:\n%s", everyStmt, out)
		}
	}
	if testing.Short() {
		return
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip(err)
	}
	vet := exec.Command("go", "vet", "./...")
	vet.Dir = filepath.Join(dir, "gen")
	if out, err := vet.CombinedOutput(); err != nil {
		t.Errorf("go vet of the generated program: %v\n%s", err, out)
	}
	code, out, errOut := runCLI(t, "", "check", everyStmt, "-m", "unit", "--counts", "--reps", "1", "--samples", "2",
		"--cache-dir", filepath.Join(dir, "cache"))
	if code != 0 {
		t.Errorf("perfc check --counts: status %d\n%s%s", code, out, errOut)
	}
}
