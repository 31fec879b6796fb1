package machines

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testScope has the variables bytes, P, level and n and two parameters.
func testScope() *exprScope {
	params := map[string]Quantity{"T_s": {54e-6, Time}, "bw": {50e6, Bandwidth}}
	return &exprScope{
		vars: setOf(varBytes, varP, varLevel, varN),
		params: func(name string) (Quantity, bool) {
			q, ok := params[name]
			return q, ok
		},
		paramNames: []string{"T_s", "bw"},
	}
}

func TestExprEval(t *testing.T) {
	tests := []struct {
		text string
		vars Vars
		want float64
		dim  Dim
	}{
		// precedence and associativity
		{"1 + 2 * 3", Vars{}, 7, Dimensionless},
		{"(1 + 2) * 3", Vars{}, 9, Dimensionless},
		{"10 - 4 - 3", Vars{}, 3, Dimensionless},
		{"8 / 4 / 2", Vars{}, 1, Dimensionless},
		{"2 * 3 ^ 2", Vars{}, 18, Dimensionless},
		{"-2^2", Vars{}, -4, Dimensionless},
		{"2^-1", Vars{}, 0.5, Dimensionless},
		{"- -3 + +1", Vars{}, 4, Dimensionless},
		// the costs of the papers
		{"84.65us + 0.117us/B * bytes", Vars{Bytes: 1000}, 201.65e-6, Time},
		{"6.96us + 1.15us/B * bytes", Vars{Bytes: 520}, 604.96e-6, Time},
		{"23.44us + 0.975us/B * P * bytes", Vars{Bytes: 8, P: 32}, 273.04e-6, Time},
		{"T_s + bytes / bw", Vars{Bytes: 16e6}, 54e-6 + 0.32, Time},
		{"T_s + (P - 1) * bytes / bw / 2", Vars{Bytes: 2e6, P: 8}, 54e-6 + 0.14, Time},
		{"log2(P) * 5us", Vars{P: 32}, 25e-6, Time},
		// functions
		{"max(0, level - 1) * 1us", Vars{Level: 3}, 2e-6, Time},
		{"max(0, level - 1) * 1us", Vars{Level: 0}, 0, Time},
		{"min(1us, 2us, 0.5us)", Vars{}, 0.5e-6, Time},
		{"ceil(bytes/16KiB) * 1us", Vars{Bytes: 20000}, 2e-6, Time},
		{"floor(n/2)", Vars{N: 7}, 3, Dimensionless},
		// a '/' continues a literal's unit only before a unit symbol
		{"2us/level", Vars{Level: 4}, 0.5e-6, Time},
		{"2us/B*bytes", Vars{Bytes: 3}, 6e-6, Time},
		{"n^2 * 1ns", Vars{N: 3}, 9e-9, Time},
		{"50MB/s", Vars{}, 50e6, Bandwidth},
		{"1/bw", Vars{}, 20e-9, InvBandwidth},
	}
	for _, tt := range tests {
		c, _, _, err := compileExpr(tt.text, testScope())
		if err != nil {
			t.Errorf("%q: %v", tt.text, err)
			continue
		}
		if got := c.Eval(tt.vars); math.Abs(got-tt.want) > 1e-12*math.Max(1, math.Abs(tt.want)) {
			t.Errorf("%q at %+v = %g, want %g", tt.text, tt.vars, got, tt.want)
		}
		if c.Dim() != tt.dim {
			t.Errorf("%q has dimension %v, want %v", tt.text, c.Dim(), tt.dim)
		}
	}
}

func TestExprErrors(t *testing.T) {
	tests := []struct {
		text string
		off  int
		want string
	}{
		{"1us + 1B", 4, "cannot add a time and a size in bytes"},
		{"T_s - bw", 4, "cannot subtract a time and a bandwidth"},
		{"foo * 2us", 0, "unknown name foo: not a variable available here (bytes, P, n, level) nor a parameter (T_s, bw)"},
		{"stride * 1us", 0, "variable stride is not available here (available: bytes, P, n, level)"},
		{"1us * max", 6, "max is a function: write max(…)"},
		{"ceil(bytes)", 5, "ceil needs a number, got a size in bytes: divide by a unit first, as in ceil(bytes/16KiB)"},
		{"log2(1, 2)", 0, "log2 takes one argument"},
		{"min(1us)", 0, "min needs two or more arguments"},
		{"max(1us, 1B)", 9, "max mixes a time and a size in bytes"},
		{"sqrt(4)", 0, "unknown function sqrt (functions: min, max, ceil, floor, log2)"},
		{"2P", 1, `unknown unit 'P': want s ms us ns, B kB MB GB KiB MiB GiB, flop Mflop, Hz MHz or mref, joined by / as in us/B or Mflop/s (for a product write 2*P)`},
		{"50 MB/s", 2, "write the unit directly after the number, without a blank: 50MB"},
		{"64KB", 2, `unit 'KB' is ambiguous: write KiB (1024) or kB (1000) (for a product write 64*KB)`},
		{"(1 + 2", 6, "expected ')', found end of expression"},
		{"1 +", 3, "expected a number, a name or '(', found end of expression"},
		{"1 2", 2, `unexpected '2' after the expression`},
		{"bytes bw", 6, `unexpected 'bw' after the expression`},
		{"1us ^ x", 6, "the power after ^ must be an integer from -8 to 8"},
		{"n ^ 9", 4, "the power after ^ must be an integer from -8 to 8"},
		{"max(1, 2", 8, "expected ',' or ')' in the call of max, found end of expression"},
		{strings.Repeat("(", 100) + "1" + strings.Repeat(")", 100), 64, "expression nests more than 64 levels deep"},
		{"", 0, "expected a number, a name or '(', found end of expression"},
	}
	for _, tt := range tests {
		_, _, _, err := compileExpr(tt.text, testScope())
		var ee *exprError
		if !errors.As(err, &ee) {
			t.Errorf("%q: got %v, want an error at %d: %s", tt.text, err, tt.off, tt.want)
			continue
		}
		if ee.off != tt.off || ee.msg != tt.want {
			t.Errorf("%q: got error at %d: %s\nwant error at %d: %s", tt.text, ee.off, ee.msg, tt.off, tt.want)
		}
	}
}

// TestExprStackLimit checks that an expression too wide for the fixed
// evaluation stack is refused at compile time instead of overflowing.
func TestExprStackLimit(t *testing.T) {
	wide := "bytes" + strings.Repeat("*(bytes", 40) + strings.Repeat(")", 40)
	_, _, _, err := compileExpr(wide, testScope())
	if err == nil || !strings.Contains(err.Error(), "more than 32 pending values") {
		t.Errorf("got %v, want the stack limit error", err)
	}
}

// TestExprFolding checks that parameters and constant subtrees are folded,
// leaving only the variable parts to evaluate.
func TestExprFolding(t *testing.T) {
	tests := []struct {
		text  string
		instr int
	}{
		{"1us + 2us * 3", 1},
		{"T_s + 1/bw * 1MB", 1},
		{"T_s + bytes / bw", 5},
		{"(T_s + 2us) + bytes * (1/bw)", 5},
	}
	for _, tt := range tests {
		c, _, _, err := compileExpr(tt.text, testScope())
		if err != nil {
			t.Fatalf("%q: %v", tt.text, err)
		}
		if n := len(c.prog.code); n != tt.instr {
			t.Errorf("%q compiles to %d instructions, want %d", tt.text, n, tt.instr)
		}
		if got := c.IsConstant(); got != (tt.instr == 1) {
			t.Errorf("%q: IsConstant() = %v", tt.text, got)
		}
	}
}

func TestExprUsedParams(t *testing.T) {
	_, _, used, err := compileExpr("T_s + bytes/bw + T_s", testScope())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"T_s", "bw"}, used); diff != "" {
		t.Errorf("used parameters (-want +got):\n%s", diff)
	}
}

func TestTableInterpolation(t *testing.T) {
	c := &Cost{dim: Time, table: &table{x: varBytes, xs: []float64{0, 100, 300}, ys: []float64{10e-6, 20e-6, 30e-6}}}
	tests := []struct{ bytes, want float64 }{
		{0, 10e-6},     // first point
		{50, 15e-6},    // first segment
		{100, 20e-6},   // inner point
		{200, 25e-6},   // second segment, chosen by x
		{300, 30e-6},   // last point
		{500, 40e-6},   // extended from the last segment
		{-100, 0},      // extended from the first segment
		{-200, -10e-6}, // the extension is linear, even below zero
	}
	for _, tt := range tests {
		if got := c.Eval(Vars{Bytes: tt.bytes}); math.Abs(got-tt.want) > 1e-18 {
			t.Errorf("table at %g B = %g, want %g", tt.bytes, got, tt.want)
		}
	}
}

// TestGridInterpolation checks a table over bytes and P: linear in bytes
// within a row, linear in P between the two rows around it, rows of one
// point constant, both extended beyond their ends.
func TestGridInterpolation(t *testing.T) {
	g := &grid{by: varP, at: []float64{1, 2, 4}, rows: []table{
		{x: varBytes, xs: []float64{0}, ys: []float64{0}},
		{x: varBytes, xs: []float64{0, 100}, ys: []float64{1e-6, 3e-6}},
		{x: varBytes, xs: []float64{0, 100, 200}, ys: []float64{2e-6, 4e-6, 10e-6}},
	}}
	c := &Cost{dim: Time, table: g}
	tests := []struct{ p, bytes, want float64 }{
		{1, 1e9, 0},          // a row of one point is constant
		{2, 50, 2e-6},        // on a row, within it
		{2, 300, 7e-6},       // on a row, extended beyond its last point
		{4, 150, 7e-6},       // the last row's second segment
		{3, 100, 3.5e-6},     // between rows 2 and 4: (3 + 4)/2
		{3, 200, 7.5e-6},     // row 2 extended to 5us, row 4 10us
		{8, 0, 4e-6},         // beyond the last row: extended in P from 2 to 4
		{1.5, 0, 0.5e-6},     // between the rows 1 and 2
		{2, -100, -1e-6},     // extensions are linear, even below zero
		{4, 100, 4e-6},       // a point of the table
		{1, 100, 0},          // the first row exactly
		{2, 100, 3e-6},       // a row's last point
		{16, 100, 10e-6},     // 3 + (4 - 3)·(16 - 2)/2: the last segment is rows 2..4
		{4.5, 200, 11.25e-6}, // 5 + (10 - 5)·(4.5 - 2)/2
	}
	for _, tt := range tests {
		if got := c.Eval(Vars{P: tt.p, Bytes: tt.bytes}); math.Abs(got-tt.want) > 1e-15 {
			t.Errorf("grid at P=%g, %g B = %g, want %g", tt.p, tt.bytes, got, tt.want)
		}
	}
}

// TestEvalDoesNotAllocate checks the promise that evaluating a cost, an
// expression with functions or a measured table, allocates nothing.
func TestEvalDoesNotAllocate(t *testing.T) {
	expr, _, _, err := compileExpr("max(T_s, min(1us, 2us*level)) + log2(P)*bytes/bw + ceil(n/3)*1ns", testScope())
	if err != nil {
		t.Fatal(err)
	}
	tab := &Cost{dim: Time, table: &table{x: varBytes, xs: []float64{0, 100, 300}, ys: []float64{1, 2, 3}}}
	grd := &Cost{dim: Time, table: &grid{by: varP, at: []float64{2, 128}, rows: []table{
		{x: varBytes, xs: []float64{0, 100}, ys: []float64{1, 2}}, {x: varBytes, xs: []float64{0, 100}, ys: []float64{3, 4}}}}}
	v := Vars{Bytes: 1000, P: 64, Level: 2, N: 10}
	for _, c := range []*Cost{expr, tab, grd} {
		if n := testing.AllocsPerRun(100, func() { c.Eval(v) }); n != 0 {
			t.Errorf("%s: %v allocations per evaluation, want 0", c, n)
		}
	}
}

func BenchmarkEval(b *testing.B) {
	c, _, _, err := compileExpr("T_s + bytes/bw + max(0, level - 1)*1us", testScope())
	if err != nil {
		b.Fatal(err)
	}
	v := Vars{Bytes: 1000, Level: 3}
	for b.Loop() {
		c.Eval(v)
	}
}
