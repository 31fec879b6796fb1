package parser_test

import (
	"fmt"
	"strings"
	"testing"

	"perfc/lang"
	"perfc/parser"
)

// grouped prints an expression with every operation in brackets, so that
// a test can state the tree a precedence rule must produce. Parentheses
// the author wrote show as paren(…).
func grouped(e lang.Expr) string {
	switch e := e.(type) {
	case *lang.Ident:
		return e.Name
	case *lang.IntLit:
		return e.Text
	case *lang.FloatLit:
		return e.Text
	case *lang.NoneLit:
		return "none"
	case *lang.DirExpr:
		return e.Dir.String()
	case *lang.BinaryExpr:
		return fmt.Sprintf("[%s %s %s]", grouped(e.X), e.Op, grouped(e.Y))
	case *lang.UnaryExpr:
		return fmt.Sprintf("[%s%s]", e.Op, grouped(e.X))
	case *lang.CondExpr:
		return fmt.Sprintf("[%s ? %s : %s]", grouped(e.Cond), grouped(e.Then), grouped(e.Else))
	case *lang.ParenExpr:
		return "paren(" + grouped(e.X) + ")"
	case *lang.CallExpr:
		args := make([]string, len(e.Args))
		for i, a := range e.Args {
			args[i] = grouped(a)
		}
		return e.Fun.Name + "(" + strings.Join(args, ", ") + ")"
	case *lang.IndexExpr:
		var b strings.Builder
		b.WriteString(e.Name.Name)
		for _, x := range e.Index {
			b.WriteString("[" + grouped(x) + "]")
		}
		return b.String()
	}
	return fmt.Sprintf("?%T", e)
}

func TestPrecedence(t *testing.T) {
	tests := []struct{ src, want string }{
		{"a - b - c", "[[a - b] - c]"},
		{"a / b * c", "[[a / b] * c]"},
		{"1<<20", "[1 << 20]"},
		{"rank ^ (1<<d)", "[rank ^ paren([1 << d])]"},
		{"c ? a : b ? d : e", "[c ? a : [b ? d : e]]"},
		{"c ? a ? b : d : e", "[c ? [a ? b : d] : e]"},
		{"-x*y", "[[-x] * y]"},
		{"- -x", "[-[-x]]"},
		{"!a && b", "[[!a] && b]"},
		{"a + b * c", "[a + [b * c]]"},
		{"a * b + c", "[[a * b] + c]"},
		{"x & y + z", "[[x & y] + z]"},
		{"a | b ^ c", "[[a | b] ^ c]"},
		{"a << b >> c", "[[a << b] >> c]"},
		{"a + b == c * d", "[[a + b] == [c * d]]"},
		{"a == b && c != d || e", "[[[a == b] && [c != d]] || e]"},
		{"a || b && c", "[a || [b && c]]"},
		{"a < b ? x : y", "[[a < b] ? x : y]"},
		{"(rank + P - 1) % P", "[paren([[rank + P] - 1]) % P]"},
		{"j / BS", "[j / BS]"},
		{"max(s, abs(A[i][j]))", "max(s, abs(A[i][j]))"},
		{"floor(log2(N)) + ceil(N / 3)", "[floor(log2(N)) + ceil([N / 3])]"},
		{"neighbor(-1, 0)", "neighbor([-1], 0)"},
		{"A[i*S][j+1]", "A[[i * S]][[j + 1]]"},
		{"i32(x) % 2", "[i32(x) % 2]"},
	}
	for _, tt := range tests {
		x, err := parser.ParseExpr(tt.src)
		if err != nil {
			t.Errorf("ParseExpr(%q): %v", tt.src, err)
			continue
		}
		if got := grouped(x); got != tt.want {
			t.Errorf("ParseExpr(%q) = %s, want %s", tt.src, got, tt.want)
		}
	}
}

// TestLexicalForms checks the literal spellings of docs/language.md.
func TestLexicalForms(t *testing.T) {
	tests := []struct {
		src  string
		want lang.Expr
	}{
		{"1024", &lang.IntLit{LitPos: 1, Text: "1024"}},
		{"20_000_000", &lang.IntLit{LitPos: 1, Text: "20_000_000"}},
		{"0x40", &lang.IntLit{LitPos: 1, Text: "0x40"}},
		{"3.0", &lang.FloatLit{LitPos: 1, Text: "3.0"}},
		{"1e-6", &lang.FloatLit{LitPos: 1, Text: "1e-6"}},
		{"2.5E+3", &lang.FloatLit{LitPos: 1, Text: "2.5E+3"}},
		{"none", &lang.NoneLit{NonePos: 1}},
		{"south", &lang.DirExpr{DirPos: 1, Dir: lang.South}},
		{"/* c */ x // d", &lang.Ident{NamePos: 9, Name: "x"}},
	}
	for _, tt := range tests {
		got, err := parser.ParseExpr(tt.src)
		if err != nil {
			t.Errorf("ParseExpr(%q): %v", tt.src, err)
			continue
		}
		if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", tt.want) {
			t.Errorf("ParseExpr(%q) = %#v, want %#v", tt.src, got, tt.want)
		}
	}
	// `0..N` is three tokens: a range, which is not an expression.
	if _, err := parser.ParseExpr("0..N"); err == nil || err.Error() != "1:2: unexpected '..' after the expression" {
		t.Errorf("ParseExpr(\"0..N\") = %v, want the '..' reported at 1:2", err)
	}
}
