package analyze

import (
	"testing"

	"perfc/lang"
	"perfc/parser"
)

// TestVectorForm classifies innermost loops by the vector kernel forms of
// CM-5 Tables 2-3.
func TestVectorForm(t *testing.T) {
	tests := []struct {
		stmt string
		want string
	}{
		{"a[i] = b[i] + s", "a=b+s"},
		{"a[i] = 2.0 + b[i]", "a=b+s"},
		{"a[i] = b[i] - c[i]", "a=b+c"},
		{"a[i] = b[i] * s", "a=b*s"},
		{"a[i] = b[i] * c[i]", "a=b*c"},
		{"a[i] = s * b[i] + c[i]", "a=s*b+c"},
		{"a[i] = c[i] + b[i] * 3.0", "a=s*b+c"},
		{"a[i] += s * b[i]", "a=s*b+c"},
		{"a[i] = b[i] * c[i] + d[i] * e[i]", "a=b*c+d*e"},
		{"a[i] = b[i] * c[i] + d[i]", ""}, // not a Table 2 form
		{"a[i] = sqrt(b[i])", ""},
		{"a[i] = b[i] / c[i]", ""},
		{"a[0] = b[i] + s", ""}, // the target does not move with the loop
		{"s = s + b[i]", ""},    // a reduction into a register
	}
	for _, tt := range tests {
		src := "kernel k(N = 8) {\n  array a[N], b[N], c[N], d[N], e[N]: f64\n  var s: f64 = 1.0\n  for i in 0..N {\n    " + tt.stmt + "\n  }\n}\n"
		f, err := parser.ParseFile("v.spmd", []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", tt.stmt, err)
		}
		k, err := lang.Check(f, "", nil)
		if err != nil {
			t.Fatalf("%s: %v", tt.stmt, err)
		}
		var loop *lang.ForStmt
		lang.Inspect(k.Kernel.Body, func(n lang.Node) bool {
			if l, ok := n.(*lang.ForStmt); ok {
				loop = l
			}
			return true
		})
		got, _ := vectorForm(k.Info, loop)
		if got != tt.want {
			t.Errorf("%s: form %q, want %q", tt.stmt, got, tt.want)
		}
		rep, err := Analyze(k, Options{})
		if err != nil {
			t.Fatal(err)
		}
		vs := rep.Classes[0].Total.Vectors
		if (len(vs) == 1) != (tt.want != "") {
			t.Errorf("%s: %d vector loops in the counts", tt.stmt, len(vs))
		} else if len(vs) == 1 && (vs[0].Entries.Exact() != "1" || vs[0].Iterations.Exact() != "8") {
			t.Errorf("%s: entries %s iterations %s, want 1 and 8", tt.stmt, vs[0].Entries.Exact(), vs[0].Iterations.Exact())
		}
	}
}
