package parser_test

import (
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

// ignorePos compares trees by shape alone.
var ignorePos = cmpopts.IgnoreTypes(lang.Pos(0))

// TestParseExamples parses the acceptance kernels of LANGUAGE.md and
// compares the whole tree, positions included, with a golden dump.
func TestParseExamples(t *testing.T) {
	files, err := filepath.Glob("testdata/*.spmd")
	if err != nil || len(files) < 4 {
		t.Fatalf("want the 4 example kernels under testdata/, found %v (%v)", files, err)
	}
	for _, name := range files {
		t.Run(filepath.Base(name), func(t *testing.T) {
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			file, err := parser.ParseFile(name, src)
			if err != nil {
				t.Fatalf("ParseFile: %v", err)
			}
			if len(file.Kernels) != 1 || len(file.Comments) != 1 {
				t.Errorf("got %d kernels and %d comments, want 1 and 1", len(file.Kernels), len(file.Comments))
			}
			checkPositions(t, src, file)
			got := dumpAST(file.Source, file)
			golden := strings.TrimSuffix(name, ".spmd") + ".ast.golden"
			goldenfile.Check(t, golden, got)
		})
	}
}

// Shorthands that keep the expected trees below readable; positions are
// ignored by the comparisons that use them.
func id(name string) *lang.Ident     { return &lang.Ident{Name: name} }
func num(text string) *lang.IntLit   { return &lang.IntLit{Text: text} }
func flt(text string) *lang.FloatLit { return &lang.FloatLit{Text: text} }
func elem(name string, ix ...lang.Expr) *lang.IndexExpr {
	return &lang.IndexExpr{Name: id(name), Index: ix}
}
func bin(x lang.Expr, op lang.BinaryOp, y lang.Expr) *lang.BinaryExpr {
	return &lang.BinaryExpr{X: x, Op: op, Y: y}
}
func block(stmts ...lang.Stmt) *lang.Block { return &lang.Block{Stmts: stmts} }

// parseBody parses one kernel whose body is body and returns its statements.
func parseBody(t *testing.T, body string) []lang.Stmt {
	t.Helper()
	file, err := parser.ParseFile("t.spmd", []byte("kernel k() {\n"+body+"\n}\n"))
	if err != nil {
		t.Fatalf("ParseFile(%q): %v", body, err)
	}
	return file.Kernels[0].Body.Stmts
}

func TestStatementShapes(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []lang.Stmt
	}{
		{
			name: "reduction operators are not reserved",
			body: "var sum: f64 = 0\nreduce sum sum to 0\nallreduce max max",
			want: []lang.Stmt{
				&lang.VarDecl{Names: []*lang.Ident{id("sum")}, Elem: lang.F64, Init: num("0")},
				&lang.CommStmt{Kind: lang.Reduce, Op: lang.ReduceSum, Payload: &lang.Payload{Name: id("sum")}, Peer: num("0")},
				&lang.CommStmt{Kind: lang.Allreduce, Op: lang.ReduceMax, Payload: &lang.Payload{Name: id("max")}},
			},
		},
		{
			name: "payload forms",
			body: "send A[0][0:N+1] to east\nrecv x[0:n] from west\nbcast A[i] from 0\nscan min best\nsend 8*n bytes to (rank+1) % P",
			want: []lang.Stmt{
				&lang.CommStmt{Kind: lang.Send, Payload: &lang.Payload{Name: id("A"), Subs: []*lang.Subscript{
					{Index: num("0")}, {Lo: num("0"), Hi: bin(id("N"), lang.Add, num("1"))}}}, Peer: &lang.DirExpr{Dir: lang.East}},
				&lang.CommStmt{Kind: lang.Recv, Payload: &lang.Payload{Name: id("x"), Subs: []*lang.Subscript{{Lo: num("0"), Hi: id("n")}}},
					Peer: &lang.DirExpr{Dir: lang.West}},
				&lang.CommStmt{Kind: lang.Bcast, Payload: &lang.Payload{Name: id("A"), Subs: []*lang.Subscript{{Index: id("i")}}}, Peer: num("0")},
				&lang.CommStmt{Kind: lang.Scan, Op: lang.ReduceMin, Payload: &lang.Payload{Name: id("best")}},
				&lang.CommStmt{Kind: lang.Send, Payload: &lang.Payload{Bytes: bin(num("8"), lang.Mul, id("n"))},
					Peer: bin(&lang.ParenExpr{X: bin(id("rank"), lang.Add, num("1"))}, lang.Rem, id("P"))},
			},
		},
		{
			name: "peers and the remaining communication statements",
			body: "sendrecv x[0:n] to neighbor(1, 0) from none into y[0:n]\nexchange x[0:n] with rank ^ (1<<d)\n" +
				"scatter b[0:m] from 0; gather b[0:m] to 0; allgather b[0:m]; alltoall b[0:m]; barrier",
			want: []lang.Stmt{
				&lang.CommStmt{Kind: lang.SendRecv, Payload: &lang.Payload{Name: id("x"), Subs: []*lang.Subscript{{Lo: num("0"), Hi: id("n")}}},
					Peer: &lang.CallExpr{Fun: id("neighbor"), Args: []lang.Expr{num("1"), num("0")}},
					From: &lang.NoneLit{}, Into: &lang.Payload{Name: id("y"), Subs: []*lang.Subscript{{Lo: num("0"), Hi: id("n")}}}},
				&lang.CommStmt{Kind: lang.Exchange, Payload: &lang.Payload{Name: id("x"), Subs: []*lang.Subscript{{Lo: num("0"), Hi: id("n")}}},
					Peer: bin(id("rank"), lang.Xor, &lang.ParenExpr{X: bin(num("1"), lang.Shl, id("d"))})},
				&lang.CommStmt{Kind: lang.Scatter, Payload: &lang.Payload{Name: id("b"), Subs: []*lang.Subscript{{Lo: num("0"), Hi: id("m")}}}, Peer: num("0")},
				&lang.CommStmt{Kind: lang.Gather, Payload: &lang.Payload{Name: id("b"), Subs: []*lang.Subscript{{Lo: num("0"), Hi: id("m")}}}, Peer: num("0")},
				&lang.CommStmt{Kind: lang.Allgather, Payload: &lang.Payload{Name: id("b"), Subs: []*lang.Subscript{{Lo: num("0"), Hi: id("m")}}}},
				&lang.CommStmt{Kind: lang.Alltoall, Payload: &lang.Payload{Name: id("b"), Subs: []*lang.Subscript{{Lo: num("0"), Hi: id("m")}}}},
				&lang.CommStmt{Kind: lang.Barrier},
			},
		},
		{
			name: "declarations, loops and assignments",
			body: "let BS = N / P\narray a[N], b[N][M+1]: i32\nfor k in j..N+1 step 2 { b[k][0] -= f64(a[k]) * 2.5e-3 }\nrepeat reps { s *= 2; s /= a / 4 }",
			want: []lang.Stmt{
				&lang.LetStmt{Name: id("BS"), Value: bin(id("N"), lang.Quo, id("P"))},
				&lang.ArrayDecl{Arrays: []*lang.ArraySpec{
					{Name: id("a"), Dims: []lang.Expr{id("N")}},
					{Name: id("b"), Dims: []lang.Expr{id("N"), bin(id("M"), lang.Add, num("1"))}},
				}, Elem: lang.I32},
				&lang.ForStmt{Var: id("k"), Lo: id("j"), Hi: bin(id("N"), lang.Add, num("1")), Step: num("2"),
					Body: block(&lang.AssignStmt{Lhs: elem("b", id("k"), num("0")), Op: lang.SubAssign,
						Rhs: bin(&lang.CallExpr{Fun: id("f64"), Args: []lang.Expr{elem("a", id("k"))}}, lang.Mul, flt("2.5e-3"))})},
				&lang.RepeatStmt{Count: id("reps"), Body: block(
					&lang.AssignStmt{Lhs: id("s"), Op: lang.MulAssign, Rhs: num("2")},
					&lang.AssignStmt{Lhs: id("s"), Op: lang.DivAssign, Rhs: bin(id("a"), lang.Quo, num("4"))})},
			},
		},
		{
			name: "else-if chain",
			body: "if rank == 0 { x = 1 } else if A[i] > s prob 0.25 { x = 2 } else { x = 3 }",
			want: []lang.Stmt{
				&lang.IfStmt{
					Cond: bin(id("rank"), lang.Eql, num("0")),
					Then: block(&lang.AssignStmt{Lhs: id("x"), Rhs: num("1")}),
					Else: &lang.IfStmt{
						Cond: bin(elem("A", id("i")), lang.Gtr, id("s")), Prob: flt("0.25"),
						Then: block(&lang.AssignStmt{Lhs: id("x"), Rhs: num("2")}),
						Else: block(&lang.AssignStmt{Lhs: id("x"), Rhs: num("3")}),
					},
				},
			},
		},
		{
			name: "region names are unquoted",
			body: `region "say \"hi\" \\ bye" { }`,
			want: []lang.Stmt{&lang.RegionStmt{Name: `say "hi" \ bye`, Body: block()}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseBody(t, tt.body)
			if diff := cmp.Diff(tt.want, got, ignorePos, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("statements differ (-want +got):\n%s", diff)
			}
		})
	}
}

func TestKernelHeaders(t *testing.T) {
	tests := []struct {
		src  string
		want *lang.Kernel
	}{
		{
			src:  "kernel triad(N = 20_000_000,) {}",
			want: &lang.Kernel{Name: id("triad"), Params: []*lang.Param{{Name: id("N"), Default: num("20_000_000")}}, Body: block()},
		},
		{
			src: "kernel g(N = 0x40, eps = 1e-6) on P = 32 ranks {}",
			want: &lang.Kernel{Name: id("g"),
				Params: []*lang.Param{{Name: id("N"), Default: num("0x40")}, {Name: id("eps"), Default: flt("1e-6")}},
				Ranks:  &lang.RankSpec{Params: []*lang.Param{{Name: id("P"), Default: num("32")}}},
				Body:   block()},
		},
		{
			src: "kernel w() on grid(Px = 4, Py = 2*2) {}",
			want: &lang.Kernel{Name: id("w"),
				Ranks: &lang.RankSpec{Grid: true, Params: []*lang.Param{
					{Name: id("Px"), Default: num("4")}, {Name: id("Py"), Default: bin(num("2"), lang.Mul, num("2"))}}},
				Body: block()},
		},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			file, err := parser.ParseFile("t.spmd", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, file.Kernels[0], ignorePos, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("kernel differs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEmptyAndCommentOnlyFiles also checks that a leading byte order
// mark is skipped.
func TestEmptyAndCommentOnlyFiles(t *testing.T) {
	src := "\uFEFF// only a comment\n/* and a\n   block */\n"
	file, err := parser.ParseFile("c.spmd", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []*lang.Comment{
		{Slash: lang.PosOf(3), Text: "// only a comment"},
		{Slash: lang.PosOf(21), Text: "/* and a\n   block */"},
	}
	if diff := cmp.Diff(want, file.Comments); diff != "" {
		t.Errorf("comments differ (-want +got):\n%s", diff)
	}
	if len(file.Kernels) != 0 || file.Source == nil || file.Source.Name != "c.spmd" {
		t.Errorf("got %d kernels, source %v; want none and c.spmd", len(file.Kernels), file.Source)
	}
}

// TestPositions checks exact positions, closing tokens included, in the
// gauss example.
func TestPositions(t *testing.T) {
	src, err := os.ReadFile("testdata/gauss.spmd")
	if err != nil {
		t.Fatal(err)
	}
	file, err := parser.ParseFile("gauss.spmd", src)
	if err != nil {
		t.Fatal(err)
	}
	k := file.Kernels[0]
	forJ := k.Body.Stmts[6].(*lang.ForStmt)
	pivot := forJ.Body.Stmts[0].(*lang.RegionStmt)
	bcast := forJ.Body.Stmts[2].(*lang.CommStmt)
	update := forJ.Body.Stmts[3].(*lang.RegionStmt)
	ifData := update.Body.Stmts[0].(*lang.ForStmt).Body.Stmts[0].(*lang.IfStmt)
	cmpExpr := ifData.Cond.(*lang.BinaryExpr)
	tests := []struct {
		what string
		pos  lang.Pos
		want string
	}{
		{"comment", file.Comments[0].Slash, "1:1"},
		{"kernel", k.KernelPos, "2:1"},
		{"kernel name", k.Name.NamePos, "2:8"},
		{"on", k.Ranks.OnPos, "2:23"},
		{"body {", k.Body.Lbrace, "2:39"},
		{"body }", k.Body.Rbrace, "29:1"},
		{"for j", forJ.ForPos, "9:3"},
		{"for j {", forJ.Body.Lbrace, "9:17"},
		{"region name", pivot.NamePos, "10:12"},
		{"bcast", bcast.KindPos, "20:5"},
		{"bcast payload", bcast.Payload.StartPos, "20:11"},
		{"bcast payload end", bcast.Payload.End, "20:26"},
		{"bcast root", bcast.Peer.Pos(), "20:32"},
		{"if", ifData.IfPos, "23:9"},
		{"!=", cmpExpr.OpPos, "23:20"},
		{"A[i][j] ]", cmpExpr.X.(*lang.IndexExpr).Rbrack, "23:18"},
		{"prob value", ifData.Prob.Pos(), "23:32"},
	}
	for _, tt := range tests {
		p := file.Source.Position(tt.pos)
		if got := strings.TrimPrefix(p.String(), "gauss.spmd:"); got != tt.want {
			t.Errorf("%s at %s, want %s", tt.what, got, tt.want)
		}
	}
}

// TestParseExpr checks the entry point used for -D values, errors included.
func TestParseExpr(t *testing.T) {
	x, err := parser.ParseExpr("2 * (N + 1)")
	if err != nil {
		t.Fatal(err)
	}
	want := bin(num("2"), lang.Mul, &lang.ParenExpr{X: bin(id("N"), lang.Add, num("1"))})
	if diff := cmp.Diff(want, x, ignorePos); diff != "" {
		t.Errorf("tree differs (-want +got):\n%s", diff)
	}
	if p := x.(*lang.BinaryExpr).Y.(*lang.ParenExpr).Rparen; p.Offset() != 10 {
		t.Errorf("Rparen at offset %d, want 10", p.Offset())
	}
	for src, want := range map[string]string{
		"":        "1:1: expected an expression, found end of file",
		"1 2":     "1:3: unexpected '2' after the expression",
		"x[0:2]":  "1:4: a range 'lo:hi' selects part of an array only in a payload, as in 'send x[0:n] to 1'; an element needs one index per dimension",
		"(1":      "1:3: missing ')' to close the '(' opened at 1:1",
		"a < b <": "1:8: expected an expression, found end of file",
	} {
		if _, err := parser.ParseExpr(src); err == nil || err.Error() != want {
			t.Errorf("ParseExpr(%q) = %v, want %s", src, err, want)
		}
	}
}
