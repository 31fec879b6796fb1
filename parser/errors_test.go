package parser_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfc/lang"
	"perfc/parser"
)

// badInput is a file that must not parse and the exact errors it gives.
type badInput struct {
	name string
	src  string
	want []string // "line:col: message", in order
}

// badInputs is shared by TestBadInputs and the seeds of FuzzParse.
func badInputs() []badInput {
	deepParens := "kernel k() {\n  x = " + strings.Repeat("(", 70) + "1" + strings.Repeat(")", 70) + "\n}\n"
	deepLoops := "kernel k() {\n" + strings.Repeat("for i in 0..2 {\n", 64) + strings.Repeat("}\n", 64) + "}\n"
	deepConds := "kernel k() {\n  x = " + strings.Repeat("a ? ", 70) + "1" + strings.Repeat(" : 2", 70) + "\n}\n"
	return []badInput{
		{"missing expression", "kernel k() {\n  x = }\n",
			[]string{"2:7: expected an expression, found '}'"}},
		{"missing loop body", "kernel k(N = 4) {\n  for i in 0..N x = 1\n}\n",
			[]string{"2:17: expected '{' to start the loop body, found 'x'"}},
		{"missing range dots", "kernel k(N = 4) {\n  for i in 0 N { }\n}\n",
			[]string{"2:14: '..' expected in range 'for i in lo..hi', found 'N'"}},
		{"missing in", "kernel k(N = 4) {\n  for i 0..N { }\n}\n",
			[]string{"2:9: expected 'in' after the loop variable, as in 'for i in 0..N', found '0'"}},
		{"missing close brace", "kernel k(N = 4) {\n  array a[N]: f64\n  for i in 0..N {\n    a[i] = 1\n}\n",
			[]string{"6:1: missing '}' to close the block opened at 1:17"}},
		{"missing close brace before next kernel", "kernel a() {\n  x = 1\nkernel b() {\n}\n",
			[]string{"3:1: missing '}' to close the block opened at 1:12"}},
		{"missing close paren", "kernel k() {\n  x = max(a, b\n}\n",
			[]string{"3:1: missing ')' to close the '(' opened at 2:10"}},
		{"unmatched close bracket", "kernel k() {\n  x = a]\n}\n",
			[]string{"2:8: unmatched ']': no '[' is open here"}},
		{"unterminated string", "kernel k() {\n  region \"update {\n  }\n}\n",
			[]string{"2:10: unterminated string: add a closing '\"' on the same line"}},
		{"unterminated comment", "kernel k() {\n}\n/* trailing\n",
			[]string{"3:1: unterminated comment: '/*' has no closing '*/'"}},
		{"invalid character", "kernel k() {\n  x = a @ b\n}\n",
			[]string{"2:9: invalid character '@'"}},
		{"invalid byte", "kernel k() {\n  x = \xff\n}\n",
			[]string{"2:7: invalid UTF-8 byte 0xff"}},
		{"bad escape", "kernel k() {\n  region \"a\\tb\" { }\n}\n",
			[]string{"2:12: unknown escape '\\t' in string; only \\\" and \\\\ are allowed"}},
		{"malformed numbers", "kernel k(N = 1_, M = 0x, E = 2.) {}\n",
			[]string{
				"1:14: malformed number '1_'; write digits with single underscores between them, as in 20_000_000, 0x40 or 1.5e-3",
				"1:22: malformed number '0x'; write digits with single underscores between them, as in 20_000_000, 0x40 or 1.5e-3",
				"1:30: malformed number '2.'; a float needs a digit after the '.', as in 2.0",
			}},
		{"keyword as a name", "kernel k() {\n  let n = 1\n  var for: f64\n}\n",
			[]string{"3:7: 'for' is a keyword; choose another name"}},
		{"keywords as names everywhere", "kernel to(in = 1) {\n  array step[2]: f64\n  for bytes in 0..2 { }\n}\n",
			[]string{
				"1:8: 'to' is a keyword; choose another name",
				"1:11: 'in' is a keyword; choose another name",
				"2:9: 'step' is a keyword; choose another name",
				"3:7: 'bytes' is a keyword; choose another name",
			}},
		{"kernel as a name", "kernel k() {\n  let kernel = 1\n}\n",
			[]string{"2:7: 'kernel' is a keyword; choose another name"}},
		{"keyword assigned to", "kernel k() {\n  step = 2\n}\n",
			[]string{"2:3: 'step' is a keyword; choose another name"}},
		{"rank count not P", "kernel k() on Q = 4 ranks {\n}\n",
			[]string{"1:15: the rank count must be named P, as in 'on P = 32 ranks'"}},
		{"grid names swapped", "kernel k() on grid(Py = 4, Px = 4) {\n}\n",
			[]string{
				"1:20: the grid dimensions must be named Px and Py, in that order, as in 'on grid(Px = 4, Py = 4)'",
				"1:28: the grid dimensions must be named Px and Py, in that order, as in 'on grid(Px = 4, Py = 4)'",
			}},
		{"missing ranks", "kernel k() on P = 4 {\n}\n",
			[]string{"1:21: expected 'ranks' after the rank count, as in 'on P = 32 ranks', found '{'"}},
		{"bad on clause", "kernel k() on 4 ranks {\n}\n",
			[]string{"1:15: expected 'P = N ranks' or 'grid(Px = X, Py = Y)' after 'on', found '4'"}},
		{"range outside a payload", "kernel k() {\n  x[0:2] = y[1:3]\n}\n",
			[]string{
				"2:6: a range 'lo:hi' is allowed only as the last index of a payload, as in 'send x[0:n] to 1'",
				"2:15: a range 'lo:hi' is allowed only as the last index of a payload, as in 'send x[0:n] to 1'",
			}},
		{"range before the last index", "kernel k() {\n  send A[0:2][1] to 1\n}\n",
			[]string{"2:11: a range 'lo:hi' is allowed only as the last index of a payload, as in 'send x[0:n] to 1'"}},
		{"size without bytes", "kernel k() {\n  send 8*n to 1\n}\n",
			[]string{"2:8: a payload is an array slice such as x[0:n], a row A[i], a var, or a size 'SIZE bytes'; add 'bytes' after a size"}},
		{"missing payload", "kernel k() {\n  send to 1\n}\n",
			[]string{"2:8: expected a payload (an array slice such as x[0:n], a var, or 'SIZE bytes'), found 'to'"}},
		{"missing to", "kernel k() {\n  send x 1\n}\n",
			[]string{"2:10: expected 'to' and a rank after the payload, found '1'"}},
		{"missing reduction operator", "kernel k() {\n  reduce s to 0\n}\n",
			[]string{"2:10: expected a reduction operator (sum, prod, max, min, and, or, xor) after 'reduce', found 's'"}},
		{"chained comparison", "kernel k() {\n  if a < b < c { }\n}\n",
			[]string{"2:12: comparisons do not chain; write 'a < b && b < c' to test both"}},
		{"conditional without colon", "kernel k() {\n  x = c ? a b\n}\n",
			[]string{"2:13: expected ':' in the conditional 'c ? a : b', found 'b'"}},
		{"else without body", "kernel k() {\n  if x > 0 { } else y = 1\n}\n",
			[]string{"2:21: expected 'if' or '{' after 'else', found 'y'"}},
		{"else after the final else", "kernel k() {\n  if x > 0 { } else { } else { }\n}\n",
			[]string{"2:25: 'else' after the final 'else { … }' of this 'if'; make the earlier one 'else if'"}},
		{"missing if body", "kernel k() {\n  if x > 0 prob 0.5 x = 1\n}\n",
			[]string{"2:21: expected '{' to start the if body, found 'x'"}},
		{"type used as a value", "kernel k() {\n  x = f64 + 1\n}\n",
			[]string{"2:7: 'f64' is a type; write f64(x) to convert a value"}},
		{"unknown element type", "kernel k() {\n  var s: float = 0\n}\n",
			[]string{"2:10: expected an element type (f64, f32, i64 or i32), found 'float'"}},
		{"array without size", "kernel k() {\n  array a: f64\n}\n",
			[]string{"2:10: expected '[' and a size after the array name, as in 'array a[N]: f64', found ':'"}},
		{"var without type", "kernel k() {\n  var s = 0\n}\n",
			[]string{"2:9: expected ':' and an element type (f64, f32, i64 or i32) after the names, found '='"}},
		{"not an assignment", "kernel k() {\n  x y\n}\n",
			[]string{"2:5: expected '=' or another assignment operator ('+=', '-=', '*=', '/=') after 'x', found 'y'"}},
		{"statement expected", "kernel k() {\n  x = 1\n  3\n}\n",
			[]string{"3:3: expected a statement or '}', found '3'"}},
		{"statement outside a kernel", "x = 1\n",
			[]string{"1:1: expected 'kernel' to start a kernel, found 'x'"}},
		{"kernel without parameter list", "kernel k {\n}\n",
			[]string{"1:10: expected '(' to start the parameter list (write '()' when there are none), found '{'"}},
		{"missing comma between parameters", "kernel k(N = 1 M = 2) {\n}\n",
			[]string{"1:16: missing ',' before parameter 'M'"}},
		{"double comma in parameters", "kernel k(N = 1,, M = 2) {\n}\n",
			[]string{"1:16: expected a parameter 'name = value' or ')', found ','"}},
		{"region without name", "kernel k() {\n  region update { }\n}\n",
			[]string{"2:10: expected the region's name as a string, as in 'region \"update\" { … }', found 'update'"}},
		{"missing let value", "kernel k() {\n  let n\n}\n",
			[]string{"3:1: expected '=' and a value after 'n', found '}'"}},
		{"nesting of parentheses", deepParens,
			[]string{"2:70: nesting deeper than 64 levels; split the expression or the loop nest"}},
		{"nesting of loops", deepLoops,
			[]string{"65:15: nesting deeper than 64 levels; split the expression or the loop nest"}},
		{"nesting of conditionals", deepConds,
			[]string{"2:261: nesting deeper than 64 levels; split the expression or the loop nest"}},
		{"isend with from", "kernel k() {\n  isend x[0:1] from 1 as r\n}\n",
			[]string{"2:16: isend sends to a peer: write 'isend to', not 'from'"}},
		{"irecv with to", "kernel k() {\n  irecv x[0:1] to 1 as r\n}\n",
			[]string{"2:16: irecv receives from a peer: write 'irecv from', not 'to'"}},
		{"post without a request", "kernel k() {\n  isend x[0:1] to 1\n}\n",
			[]string{"3:1: expected 'as NAME' after the peer, naming the request that 'wait NAME' completes, found '}'"}},
		{"post without a direction", "kernel k() {\n  irecv x[0:1] 1 as r\n}\n",
			[]string{"2:16: expected 'to' (isend) or 'from' (irecv) and a rank after the payload, found '1'"}},
		{"request name missing", "kernel k() {\n  isend x[0:1] to 1 as\n}\n",
			[]string{"3:1: expected a name after 'as', found '}'"}},
		{"request named by a keyword", "kernel k() {\n  isend x[0:1] to 1 as for\n}\n",
			[]string{"2:24: 'for' is a keyword; choose another name"}},
		{"wait without a request", "kernel k() {\n  wait\n}\n",
			[]string{"3:1: expected a name after 'wait', found '}'"}},
		{"wait list ends in a comma", "kernel k() {\n  wait r,\n}\n",
			[]string{"3:1: expected a name after ',', found '}'"}},
	}
}

func TestBadInputs(t *testing.T) {
	for _, tt := range badInputs() {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parser.ParseFile("f.spmd", []byte(tt.src))
			list, ok := err.(lang.ErrorList)
			if !ok {
				t.Fatalf("ParseFile returned %T %v, want a lang.ErrorList", err, err)
			}
			var got []string
			for _, e := range list {
				got = append(got, strings.TrimPrefix(e.Error(), "f.spmd:"))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors differ (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTooLarge checks that an oversized file is refused before lexing.
func TestTooLarge(t *testing.T) {
	src := []byte("kernel k() {}\n" + strings.Repeat(" ", 1<<20))
	_, err := parser.ParseFile("big.spmd", src)
	want := "big.spmd: file is 1048590 bytes; perfc accepts at most 1 MiB"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

// TestErrorFormat checks the caret display of a parse error, which is
// what a user sees.
func TestErrorFormat(t *testing.T) {
	src := "kernel k() {\n\tfor i in 0..4 x = 1\n}\n"
	file, err := parser.ParseFile("f.spmd", []byte(src))
	got := err.(lang.ErrorList).Format(file.Source)
	want := "f.spmd:2:16: expected '{' to start the loop body, found 'x'\n" +
		"     for i in 0..4 x = 1\n" +
		"                   ^\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("format differs (-want +got):\n%s", diff)
	}
}

// TestLimits checks the bounds that keep a hostile input cheap: the token
// count and the number of errors reported.
func TestLimits(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		count int
		first string
	}{
		{"too many tokens", "kernel k() {" + strings.Repeat(" x = 1", 40_000) + " }", 1,
			"f.spmd:1:200004: file has more than 100000 tokens; perfc accepts at most 100000, split it"},
		{"ten lexical errors at most", strings.Repeat("@ ", 100), 10, "f.spmd:1:1: invalid character '@'"},
		{"ten bracket errors at most", strings.Repeat(") ", 100), 10, "f.spmd:1:1: unmatched ')': no '(' is open here"},
		{"ten lowering errors at most", "kernel k(" + strings.Repeat("for = 1, ", 100) + ") {}", 10,
			"f.spmd:1:10: 'for' is a keyword; choose another name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parser.ParseFile("f.spmd", []byte(tt.src))
			list, ok := err.(lang.ErrorList)
			if !ok || len(list) != tt.count || list[0].Error() != tt.first {
				t.Errorf("got %d errors, first %v; want %d, first %s", len(list), err, tt.count, tt.first)
			}
		})
	}
}
