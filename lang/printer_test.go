package lang_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	goldenfile "perfc/internal/golden"
	"perfc/lang"
	"perfc/parser"
)

// Builders for hand-made trees: they let the printer be tested on shapes
// the parser never produces (no positions, missing parentheses).

func printID(name string) *lang.Ident              { return &lang.Ident{Name: name} }
func printInt(text string) *lang.IntLit            { return &lang.IntLit{Text: text} }
func printFloat(text string) *lang.FloatLit        { return &lang.FloatLit{Text: text} }
func printParen(x lang.Expr) *lang.ParenExpr       { return &lang.ParenExpr{X: x} }
func printNeg(x lang.Expr) *lang.UnaryExpr         { return &lang.UnaryExpr{Op: lang.Neg, X: x} }
func printNot(x lang.Expr) *lang.UnaryExpr         { return &lang.UnaryExpr{Op: lang.Not, X: x} }
func printBlock(s ...lang.Stmt) *lang.Block        { return &lang.Block{Stmts: s} }
func printParam(n string, d lang.Expr) *lang.Param { return &lang.Param{Name: printID(n), Default: d} }

func printBin(x lang.Expr, op string, y lang.Expr) *lang.BinaryExpr {
	o, ok := lang.BinaryOpNamed(op)
	if !ok {
		panic("bad operator " + op)
	}
	return &lang.BinaryExpr{X: x, Op: o, Y: y}
}

func printIndex(name string, xs ...lang.Expr) *lang.IndexExpr {
	return &lang.IndexExpr{Name: printID(name), Index: xs}
}

func printCall(fun string, args ...lang.Expr) *lang.CallExpr {
	return &lang.CallExpr{Fun: printID(fun), Args: args}
}

func printAssign(lhs lang.Expr, op lang.AssignOp, rhs lang.Expr) *lang.AssignStmt {
	return &lang.AssignStmt{Lhs: lhs, Op: op, Rhs: rhs}
}

// printKernelFile wraps statements in `kernel k() { … }`.
func printKernelFile(stmts ...lang.Stmt) *lang.File {
	return &lang.File{Kernels: []*lang.Kernel{{Name: printID("k"), Body: printBlock(stmts...)}}}
}

// printKernelLines is the expected output of kernelFile: the statement lines,
// indented one level.
func printKernelLines(lines ...string) string {
	var b strings.Builder
	b.WriteString("kernel k() {\n")
	for _, l := range lines {
		b.WriteString("  " + l + "\n")
	}
	b.WriteString("}\n")
	return b.String()
}

func TestFprintExpressionSpacing(t *testing.T) {
	tests := []struct {
		name string
		expr lang.Expr
		want string
	}{
		{"lone multiplication", printBin(printID("N"), "/", printID("P")), "N / P"},
		{"one level", printBin(printBin(printID("a"), "+", printID("b")), "-", printID("c")), "a + b - c"},
		{"mixed levels", printBin(printBin(printInt("8"), "*", printID("n")), "+", printInt("1")), "8*n + 1"},
		{"mixed, tight on the right", printBin(printID("a"), "+", printBin(printID("b"), "*", printID("c"))), "a + b*c"},
		{"parens start a new chain", printBin(printParen(printBin(printID("rank"), "+", printInt("1"))), "%", printID("P")), "(rank + 1) % P"},
		{"comparison of mixed chain", printBin(printBin(printID("a"), "+", printBin(printID("b"), "*", printID("c"))), "<", printID("d")), "a + b*c < d"},
		{"logical", printBin(printBin(printID("a"), "<", printID("b")), "&&", printNot(printID("c"))), "a < b && !c"},
		{"shift in xor", printBin(printID("rank"), "^", printParen(printBin(printInt("1"), "<<", printID("d")))), "rank ^ (1 << d)"},
		{"shift mixed with xor", printBin(printID("rank"), "^", printBin(printInt("1"), "<<", printID("d"))), "rank ^ 1<<d"},
		{"minus of signed operand keeps spaces", printBin(printBin(printID("a"), "*", printNeg(printID("b"))), "+", printID("c")), "a * -b + c"},
		{"operands of a tight operator are compact", printBin(printBin(printParen(printBin(printParen(printBin(printID("ry"), "-", printID("rx"))), "%", printID("q"))), "*", printID("q")), "+", printID("rx")), "((ry-rx)%q)*q + rx"},
		{"call operand of a tight operator", printBin(printInt("1"), "-", printBin(printInt("2"), "*", printCall("floor", printBin(printID("o"), "/", printInt("2"))))), "1 - 2*floor(o/2)"},
		{"unary", printNeg(printCall("abs", printID("x"))), "-abs(x)"},
		{"conditional", &lang.CondExpr{Cond: printBin(printID("i"), "==", printInt("0")), Then: printFloat("1.0"), Else: printFloat("0.5")}, "i == 0 ? 1.0 : 0.5"},
		{"literal spelling kept", printBin(printInt("20_000_000"), "+", printBin(printInt("0x40"), "*", printFloat("1e-6"))), "20_000_000 + 0x40*1e-6"},
		{"index is compact", printIndex("A", printBin(printID("i"), "+", printInt("1")), printBin(printBin(printID("j"), "*", printID("S")), "+", printInt("1"))), "A[i+1][j*S+1]"},
		{"call arguments keep the mode", printCall("max", printBin(printID("a"), "+", printID("b")), printIndex("x", printBin(printID("i"), "-", printInt("1")))), "max(a + b, x[i-1])"},
		{"directions and none", printCall("neighbor", printInt("1"), printNeg(printInt("1"))), "neighbor(1, -1)"},
		// Hand-built trees without ParenExpr get the parentheses they need.
		{"looser operand on the left", printBin(printBin(printID("a"), "+", printID("b")), "*", printID("c")), "(a + b) * c"},
		{"equal operand on the right", printBin(printID("a"), "-", printBin(printID("b"), "-", printID("c"))), "a - (b - c)"},
		{"comparison operand of a comparison", printBin(printBin(printID("a"), "<", printID("b")), "==", printID("c")), "(a < b) == c"},
		{"unary of a binary", printNeg(printBin(printID("a"), "+", printID("b"))), "-(a + b)"},
		{"conditional as an operand", printBin(&lang.CondExpr{Cond: printID("c"), Then: printID("a"), Else: printID("b")}, "+", printInt("1")), "(c ? a : b) + 1"},
		{"nested conditional in the else arm", &lang.CondExpr{Cond: printID("c"), Then: printID("a"), Else: &lang.CondExpr{Cond: printID("d"), Then: printID("e"), Else: printID("f")}}, "c ? a : d ? e : f"},
		{"conditional as a condition", &lang.CondExpr{Cond: &lang.CondExpr{Cond: printID("c"), Then: printID("a"), Else: printID("b")}, Then: printID("e"), Else: printID("f")}, "(c ? a : b) ? e : f"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := printKernelFile(&lang.LetStmt{Name: printID("v"), Value: tt.expr})
			got := string(lang.Format(f))
			if diff := cmp.Diff(printKernelLines("let v = "+tt.want), got); diff != "" {
				t.Errorf("Format mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFprintStatements(t *testing.T) {
	n1 := printBin(printID("N"), "+", printInt("1"))
	tests := []struct {
		name string
		stmt lang.Stmt
		want []string
	}{
		{"arrays", &lang.ArrayDecl{Arrays: []*lang.ArraySpec{{Name: printID("A"), Dims: []lang.Expr{printID("BS"), n1}}, {Name: printID("b"), Dims: []lang.Expr{printID("N")}}}, Elem: lang.F64},
			[]string{"array A[BS][N+1], b[N]: f64"}},
		{"var with init", &lang.VarDecl{Names: []*lang.Ident{printID("s"), printID("t")}, Elem: lang.I32, Init: printInt("0")}, []string{"var s, t: i32 = 0"}},
		{"var without init", &lang.VarDecl{Names: []*lang.Ident{printID("s")}, Elem: lang.F32}, []string{"var s: f32"}},
		{"for with step and compact bounds", &lang.ForStmt{Var: printID("k"), Lo: printID("j"), Hi: n1, Step: printInt("2"), Body: printBlock(printAssign(printIndex("A", printID("k")), lang.SubAssign, printBin(printIndex("f", printID("i")), "*", printIndex("p", printID("k")))))},
			[]string{"for k in j..N+1 step 2 {", "  A[k] -= f[i] * p[k]", "}"}},
		{"empty loop", &lang.ForStmt{Var: printID("i"), Lo: printInt("0"), Hi: printID("N"), Body: printBlock()}, []string{"for i in 0..N {}"}},
		{"repeat", &lang.RepeatStmt{Count: printID("reps"), Body: printBlock(&lang.CommStmt{Kind: lang.Barrier})}, []string{"repeat reps {", "  barrier", "}"}},
		{"if prob else if else", &lang.IfStmt{
			Cond: printBin(printIndex("A", printID("i")), ">", printID("s")), Prob: printFloat("0.5"),
			Then: printBlock(printAssign(printID("s"), lang.Assign, printIndex("A", printID("i")))),
			Else: &lang.IfStmt{Cond: printBin(printID("rank"), "==", printInt("0")), Then: printBlock(), Else: printBlock(printAssign(printID("s"), lang.MulAssign, printFloat("2.0")))},
		}, []string{"if A[i] > s prob 0.5 {", "  s = A[i]", "} else if rank == 0 {} else {", "  s *= 2.0", "}"}},
		{"region name re-escaped", &lang.RegionStmt{Name: `say "hi" \ bye`, Body: printBlock(printAssign(printID("x"), lang.DivAssign, printInt("2")))},
			[]string{`region "say \"hi\" \\ bye" {`, "  x /= 2", "}"}},
		{"send bytes", &lang.CommStmt{Kind: lang.Send, Payload: &lang.Payload{Bytes: printBin(printInt("8"), "*", printID("n"))}, Peer: printBin(printParen(printBin(printID("rank"), "+", printInt("1"))), "%", printID("P"))},
			[]string{"send 8*n bytes to (rank + 1) % P"}},
		{"recv slice", &lang.CommStmt{Kind: lang.Recv, Payload: &lang.Payload{Name: printID("A"), Subs: []*lang.Subscript{{Index: printInt("0")}, {Lo: printInt("0"), Hi: n1}}}, Peer: &lang.DirExpr{Dir: lang.West}},
			[]string{"recv A[0][0:N+1] from west"}},
		{"sendrecv into", &lang.CommStmt{Kind: lang.SendRecv, Payload: &lang.Payload{Name: printID("x")}, Peer: &lang.DirExpr{Dir: lang.East}, From: &lang.NoneLit{}, Into: &lang.Payload{Name: printID("y"), Subs: []*lang.Subscript{{Index: printID("i")}}}},
			[]string{"sendrecv x to east from none into y[i]"}},
		{"exchange", &lang.CommStmt{Kind: lang.Exchange, Payload: &lang.Payload{Name: printID("x"), Subs: []*lang.Subscript{{Lo: printInt("0"), Hi: printID("n")}}}, Peer: printBin(printID("rank"), "^", printParen(printBin(printInt("1"), "<<", printID("d"))))},
			[]string{"exchange x[0:n] with rank ^ (1 << d)"}},
		{"bcast", &lang.CommStmt{Kind: lang.Bcast, Payload: &lang.Payload{Name: printID("row")}, Peer: printBin(printID("j"), "/", printID("BS"))}, []string{"bcast row from j / BS"}},
		{"reduce", &lang.CommStmt{Kind: lang.Reduce, Op: lang.ReduceMax, Payload: &lang.Payload{Name: printID("s")}, Peer: printInt("0")}, []string{"reduce max s to 0"}},
		{"allreduce", &lang.CommStmt{Kind: lang.Allreduce, Op: lang.ReduceSum, Payload: &lang.Payload{Name: printID("sum")}}, []string{"allreduce sum sum"}},
		{"scan", &lang.CommStmt{Kind: lang.Scan, Op: lang.ReduceXor, Payload: &lang.Payload{Name: printID("v")}}, []string{"scan xor v"}},
		{"scatter", &lang.CommStmt{Kind: lang.Scatter, Payload: &lang.Payload{Name: printID("b")}, Peer: printInt("0")}, []string{"scatter b from 0"}},
		{"gather", &lang.CommStmt{Kind: lang.Gather, Payload: &lang.Payload{Name: printID("b")}, Peer: printInt("0")}, []string{"gather b to 0"}},
		{"allgather", &lang.CommStmt{Kind: lang.Allgather, Payload: &lang.Payload{Name: printID("b")}}, []string{"allgather b"}},
		{"alltoall", &lang.CommStmt{Kind: lang.Alltoall, Payload: &lang.Payload{Bytes: printInt("64")}}, []string{"alltoall 64 bytes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			if err := lang.Fprint(&out, printKernelFile(tt.stmt)); err != nil {
				t.Fatalf("Fprint: %v", err)
			}
			if diff := cmp.Diff(printKernelLines(tt.want...), out.String()); diff != "" {
				t.Errorf("Fprint mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFprintKernels(t *testing.T) {
	f := &lang.File{Kernels: []*lang.Kernel{
		{Name: printID("gauss"), Params: []*lang.Param{printParam("N", printInt("256"))},
			Ranks: &lang.RankSpec{Params: []*lang.Param{printParam("P", printInt("32"))}},
			Body:  printBlock(&lang.LetStmt{Name: printID("BS"), Value: printBin(printID("N"), "/", printID("P"))})},
		{Name: printID("wave"), Params: []*lang.Param{printParam("sweeps", printInt("4")), printParam("cells", printBin(printInt("8"), "*", printID("sweeps")))},
			Ranks: &lang.RankSpec{Grid: true, Params: []*lang.Param{printParam("Px", printInt("10")), printParam("Py", printInt("10"))}},
			Body:  printBlock()},
		{Name: printID("one"), Body: printBlock()},
	}}
	want := `kernel gauss(N = 256) on P = 32 ranks {
  let BS = N / P
}

kernel wave(sweeps = 4, cells = 8 * sweeps) on grid(Px = 10, Py = 10) {}

kernel one() {}
`
	if diff := cmp.Diff(want, string(lang.Format(f))); diff != "" {
		t.Errorf("Format mismatch (-want +got):\n%s", diff)
	}
	if got := lang.Format(&lang.File{}); len(got) != 0 {
		t.Errorf("Format of an empty file = %q, want nothing", got)
	}
}

func TestFprintMalformedTree(t *testing.T) {
	tests := []struct {
		name    string
		file    *lang.File
		wantErr string
	}{
		{"nil file", nil, "lang: cannot print a nil *File"},
		{"nil expression", printKernelFile(&lang.LetStmt{Name: printID("x")}), "lang: cannot print nil Expr"},
		{"nil body", &lang.File{Kernels: []*lang.Kernel{{Name: printID("k")}}}, "lang: cannot print nil *Block"},
		{"no element type", printKernelFile(&lang.VarDecl{Names: []*lang.Ident{printID("s")}}), "lang: cannot print element type 0"},
		{"no payload", printKernelFile(&lang.CommStmt{Kind: lang.Send, Peer: printInt("1")}), "lang: cannot print nil *Payload"},
		{"no reduction operator", printKernelFile(&lang.CommStmt{Kind: lang.Allreduce, Payload: &lang.Payload{Name: printID("s")}}), "lang: cannot print reduction operator 0"},
		{"bad else", printKernelFile(&lang.IfStmt{Cond: printID("c"), Then: printBlock(), Else: &lang.LetStmt{Name: printID("x"), Value: printInt("1")}}), "lang: cannot print else branch of type *lang.LetStmt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			err := lang.Fprint(&out, tt.file)
			if err == nil {
				t.Fatalf("Fprint succeeded with %q, want error %q", out.String(), tt.wantErr)
			}
			if diff := cmp.Diff(tt.wantErr, err.Error()); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s", diff)
			}
			if out.Len() != 0 {
				t.Errorf("Fprint wrote %q despite the error", out.String())
			}
		})
	}
}

// printParse parses src with the project's parser, failing the test on an
// error.
func printParse(t *testing.T, name string, src []byte) *lang.File {
	t.Helper()
	f, err := parser.ParseFile(name, src)
	if err != nil {
		var list lang.ErrorList
		if errors.As(err, &list) && f != nil {
			t.Fatalf("parse %s:\n%s", name, list.Format(f.Source))
		}
		t.Fatalf("parse %s: %v", name, err)
	}
	return f
}

// printCommentTexts returns the text of every comment of f, with the
// trailing blanks of each line removed as the printer does.
func printCommentTexts(f *lang.File) []string {
	var texts []string
	for _, c := range f.Comments {
		lines := strings.Split(c.Text, "\n")
		for i, l := range lines {
			lines[i] = strings.TrimRight(l, " \t\r")
		}
		texts = append(texts, strings.Join(lines, "\n"))
	}
	return texts
}

// printCheckFormatted checks the promises of Format on one input: the
// output parses to the same tree (positions aside), keeps every comment in
// order, is a fixed point, and is tidy (no trailing blanks, no tabs, no
// run of blank lines, one final newline).
func printCheckFormatted(t *testing.T, name string, src []byte) []byte {
	t.Helper()
	orig := printParse(t, name, src)
	out := lang.Format(orig)
	again := printParse(t, name+" (formatted)", out)

	ignore := []cmp.Option{
		cmpopts.IgnoreTypes(lang.Pos(0)),
		cmpopts.IgnoreFields(lang.File{}, "Source", "Comments"),
	}
	if diff := cmp.Diff(orig, again, ignore...); diff != "" {
		t.Errorf("%s: the formatted text parses to another tree (-source +formatted):\n%s\nformatted:\n%s", name, diff, out)
	}
	if diff := cmp.Diff(printCommentTexts(orig), printCommentTexts(again)); diff != "" {
		t.Errorf("%s: comments changed (-source +formatted):\n%s\nformatted:\n%s", name, diff, out)
	}
	if diff := cmp.Diff(string(out), string(lang.Format(again))); diff != "" {
		t.Errorf("%s: formatting is not idempotent (-once +twice):\n%s", name, diff)
	}
	printCheckTidy(t, name, out, printCommentTexts(orig))
	return out
}

// printCheckTidy checks the whitespace rules of canonical output outside
// the comments, whose text is the author's.
func printCheckTidy(t *testing.T, name string, out []byte, comments []string) {
	t.Helper()
	text := string(out)
	for _, c := range comments {
		text = strings.Replace(text, c, "/**/", 1)
	}
	if text == "" {
		return
	}
	if !strings.HasSuffix(text, "\n") || strings.HasSuffix(text, "\n\n") {
		t.Errorf("%s: output does not end in exactly one newline", name)
	}
	if strings.HasPrefix(text, "\n") || strings.Contains(text, "\n\n\n") {
		t.Errorf("%s: output has a leading blank line or two blank lines in a row", name)
	}
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if strings.TrimRight(line, " \t") != line {
			t.Errorf("%s:%d: trailing blanks in %q", name, i+1, line)
		}
		if strings.HasPrefix(strings.TrimLeft(line, " "), "\t") {
			t.Errorf("%s:%d: tab in the indentation of %q", name, i+1, line)
		}
	}
}

// TestFmtGolden formats every testdata/fmt/*.spmd (messy layout, comments
// in awkward places) and compares with its .golden file; -update rewrites
// the golden files.
func TestFmtGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "fmt", "*.spmd"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no inputs in testdata/fmt (err %v)", err)
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			got := printCheckFormatted(t, in, src)
			golden := strings.TrimSuffix(in, ".spmd") + ".golden"
			goldenfile.Check(t, golden, got)
		})
	}
}

// TestFmtExamples checks round trip, idempotence and comments on every
// example kernel of the project, whatever examples exist when it runs.
func TestFmtExamples(t *testing.T) {
	examples, err := filepath.Glob(filepath.Join("..", "examples", "*.spmd"))
	if err != nil {
		t.Fatal(err)
	}
	if len(examples) == 0 {
		t.Skip("no ../examples/*.spmd yet")
	}
	for _, ex := range examples {
		t.Run(filepath.Base(ex), func(t *testing.T) {
			src, err := os.ReadFile(ex)
			if err != nil {
				t.Fatal(err)
			}
			printCheckFormatted(t, ex, src)
		})
	}
}

// TestFmtComments pins down where comments go, one rule per case.
func TestFmtComments(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string
	}{
		{"own line above a statement, at its indentation",
			"kernel k() {\n      // c\n x = 1 }",
			"kernel k() {\n  // c\n  x = 1\n}\n"},
		{"trailing stays on its line",
			"kernel k() { x = 1   // c\n y = 2 }",
			"kernel k() {\n  x = 1 // c\n  y = 2\n}\n"},
		{"after the opening brace",
			"kernel k() { // c\n x = 1 }",
			"kernel k() { // c\n  x = 1\n}\n"},
		{"at the end of a block, before the brace",
			"kernel k() { for i in 0..2 { x = 1\n // end\n } }",
			"kernel k() {\n  for i in 0..2 {\n    x = 1\n    // end\n  }\n}\n"},
		{"in an empty block",
			"kernel k() { /* nothing */ }",
			"kernel k() { /* nothing */\n}\n"},
		{"inside an expression, moved to the end of the line",
			"kernel k() { x = a + /* c */ b }",
			"kernel k() {\n  x = a + b /* c */\n}\n"},
		{"a line comment ends the line",
			"kernel k() { x = a + // c\n b /* d */ }",
			"kernel k() {\n  x = a + b // c\n  /* d */\n}\n"},
		{"a comment over two lines ends the line too (the fuzz input c176d92449e8c7ce)",
			"kernel k(N = 1, /* a\nb */) { // c\n x = 1 }",
			"kernel k(N = 1) { /* a\nb */\n  // c\n  x = 1\n}\n"},
		{"header, between kernels, at the end",
			"// head\nkernel a() {} // a\n// b\nkernel b() {}\n// tail",
			"// head\nkernel a() {} // a\n\n// b\nkernel b() {}\n// tail\n"},
		{"between the then block and else",
			"kernel k() { if c { x = 1 }\n // other\n else { x = 2 } }",
			"kernel k() {\n  if c {\n    x = 1\n  } else {\n    // other\n    x = 2\n  }\n}\n"},
		{"blank lines: at most one, none after { or before }",
			"kernel k() {\n\n x = 1\n\n\n\n // c\n y = 2\n\n}",
			"kernel k() {\n  x = 1\n\n  // c\n  y = 2\n}\n"},
		{"CRLF line ends and tabs",
			"kernel k() {\r\n\tx = 1 // c\r\n\r\n\ty = 2\r\n}\r\n",
			"kernel k() {\n  x = 1 // c\n\n  y = 2\n}\n"},
		{"comments only", "// just\n\n\n/* this */", "// just\n\n/* this */\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(printCheckFormatted(t, "c.spmd", []byte(tt.src)))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Format mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzFormat checks the promises of Format on any input the parser
// accepts: go test ./lang -run '^$' -fuzz FuzzFormat.
func FuzzFormat(f *testing.F) {
	for _, pattern := range []string{"testdata/fmt/*.spmd", "../examples/*.spmd"} {
		files, _ := filepath.Glob(pattern)
		for _, name := range files {
			if src, err := os.ReadFile(name); err == nil {
				f.Add(src)
			}
		}
	}
	f.Add([]byte("kernel k() { x = a + // c\n b /* d */ }"))
	f.Fuzz(func(t *testing.T, src []byte) {
		if _, err := parser.ParseFile("fuzz.spmd", src); err != nil {
			return
		}
		printCheckFormatted(t, "fuzz.spmd", src)
	})
}
