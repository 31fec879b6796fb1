package parser_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"perfc/lang"
	"perfc/parser"
)

// slowParse is the time beyond which a parse counts as a hang. The largest
// input the parser accepts (100000 tokens) takes about a second without
// the fuzzer's instrumentation.
const slowParse = 10 * time.Second

// FuzzParse: whatever the input, ParseFile returns without panicking or
// hanging (taking over slowParse); its errors are reworded (never participle's raw text) and
// positioned inside the file; and a tree it accepts has every position
// inside the source, on the token the node says is there.
//
//	go test -run=^$ -fuzz=FuzzParse -fuzztime=3m ./parser
func FuzzParse(f *testing.F) {
	for _, pattern := range []string{"testdata/*.spmd", "../examples/*.spmd"} {
		files, _ := filepath.Glob(pattern)
		for _, name := range files {
			if src, err := os.ReadFile(name); err == nil {
				f.Add(src)
			}
		}
	}
	for _, tt := range badInputs() {
		if len(tt.src) < 4096 {
			f.Add([]byte(tt.src))
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		start := time.Now()
		file, err := parser.ParseFile("fuzz.spmd", src)
		if d := time.Since(start); d > slowParse {
			t.Errorf("parsing %d bytes took %v, over %v", len(src), d, slowParse)
		}
		if file == nil || file.Source == nil {
			t.Fatalf("ParseFile returned no File")
		}
		if err != nil {
			checkErrors(t, src, err)
			return
		}
		checkPositions(t, src, file)
	})
}

// checkErrors asserts that err is a non-empty lang.ErrorList of worded,
// positioned messages.
func checkErrors(t *testing.T, src []byte, err error) {
	t.Helper()
	list, ok := err.(lang.ErrorList)
	if !ok || len(list) == 0 {
		t.Fatalf("error %T %v is not a non-empty lang.ErrorList", err, err)
	}
	lines := strings.Count(string(src), "\n") + 1
	for _, e := range list {
		if strings.Contains(e.Msg, "internal error") || strings.Contains(e.Msg, "unexpected token \"") || e.Msg == "" {
			t.Errorf("raw or internal message: %v", e)
		}
		if e.Pos.Filename != "fuzz.spmd" || (e.Pos.IsValid() && e.Pos.Line > lines) {
			t.Errorf("error outside the file: %v", e)
		}
	}
}

// checkPositions asserts that every position in the tree lies inside src
// and that nodes which name a token find it there: identifiers and
// literals their text, blocks and brackets their bracket characters.
func checkPositions(t *testing.T, src []byte, file *lang.File) {
	t.Helper()
	at := func(p lang.Pos, n int) string {
		if !p.IsValid() || p.Offset()+n > len(src) {
			return ""
		}
		return string(src[p.Offset() : p.Offset()+n])
	}
	expect := func(n lang.Node, what string, p lang.Pos, text string) {
		if got := at(p, len(text)); got != text {
			t.Errorf("%T %s at offset %d reads %q, want %q", n, what, p.Offset(), got, text)
		}
	}
	for _, c := range file.Comments {
		expect(c, "comment", c.Slash, c.Text)
	}
	lang.Inspect(file, func(n lang.Node) bool {
		if _, isFile := n.(*lang.File); !isFile {
			checkPosFields(t, n, len(src))
		}
		switch n := n.(type) {
		case *lang.Ident:
			expect(n, "name", n.NamePos, n.Name)
		case *lang.IntLit:
			expect(n, "literal", n.LitPos, n.Text)
		case *lang.FloatLit:
			expect(n, "literal", n.LitPos, n.Text)
		case *lang.Block:
			expect(n, "Lbrace", n.Lbrace, "{")
			expect(n, "Rbrace", n.Rbrace, "}")
		case *lang.ParenExpr:
			expect(n, "Lparen", n.Lparen, "(")
			expect(n, "Rparen", n.Rparen, ")")
		case *lang.CallExpr:
			expect(n, "Rparen", n.Rparen, ")")
		case *lang.IndexExpr:
			expect(n, "Rbrack", n.Rbrack, "]")
		case *lang.Kernel:
			expect(n, "keyword", n.KernelPos, "kernel")
		case *lang.Proc:
			expect(n, "keyword", n.ProcPos, "proc")
			expect(n, "Rparen", n.Rparen, ")")
		case *lang.ProcCallStmt:
			expect(n, "keyword", n.CallPos, "call")
			expect(n, "Rparen", n.Rparen, ")")
		case *lang.CommStmt:
			expect(n, "keyword", n.KindPos, n.Kind.String())
			if n.Op != lang.NoReduce {
				expect(n, "operator", n.OpPos, n.Op.String())
			}
		case *lang.Payload:
			if n.End <= n.StartPos {
				t.Errorf("payload ends at %d before it starts at %d", n.End, n.StartPos)
			}
		case *lang.BinaryExpr:
			expect(n, "operator", n.OpPos, n.Op.String())
		case *lang.WorkStmt:
			expect(n, "keyword", n.WorkPos, "work")
		case *lang.WorkOp:
			expect(n, "kind", n.KindPos, n.Kind)
			expect(n, "type", n.ElemPos, n.Elem.String())
		case *lang.WorkMem:
			expect(n, "word", n.KindPos, n.Word())
		}
		return true
	})
}

// checkPosFields asserts that every lang.Pos field of node n is either
// unset where the AST allows it or inside a source of size bytes
// (size itself is allowed: Payload.End may be the end of the file).
func checkPosFields(t *testing.T, n lang.Node, size int) {
	t.Helper()
	if !n.Pos().IsValid() {
		t.Errorf("%T has no position", n)
	}
	v := reflect.ValueOf(n).Elem()
	for i := 0; i < v.NumField(); i++ {
		p, ok := v.Field(i).Interface().(lang.Pos)
		if !ok {
			continue
		}
		name := v.Type().Field(i).Name
		optional := name == "OpPos" && reflect.TypeOf(n) == reflect.TypeOf(&lang.CommStmt{})
		if (!p.IsValid() && !optional) || p.Offset() > size {
			t.Errorf("%T.%s = %d is outside a source of %d bytes", n, name, p, size)
		}
	}
}
