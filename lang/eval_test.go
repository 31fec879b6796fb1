package lang_test

import (
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfc/lang"
)

// evalKernel puts the expression under test into `let e = …` inside two
// loops on a 4×3 grid, so that it may read rank, the grid builtins and the
// indices i (slot 0) and j (slot 1).
const evalKernel = `kernel k(N = 1000, M = 12, half = 0.5) on grid(Px = 4, Py = 3) {
  for i in 0..N {
    for j in 0..M {
      let e = %s
      send 8 bytes to %s
    }
  }
}`

// evalSetup checks evalKernel with expr as the let and peer as the
// destination, and returns them with the checked kernel.
func evalSetup(t *testing.T, expr, peer string) (c *lang.Checked, let, dest lang.Expr) {
	t.Helper()
	c = checkMust(t, fmt.Sprintf(evalKernel, expr, peer))
	lang.Inspect(c.Kernel, func(n lang.Node) bool {
		switch n := n.(type) {
		case *lang.LetStmt:
			let = n.Value
		case *lang.CommStmt:
			dest = n.Peer
		}
		return true
	})
	return c, let, dest
}

func TestEval(t *testing.T) {
	f32 := float64(float32(0.1))
	tests := []struct {
		expr       string
		rank, i, j int64
		want       lang.Value
	}{
		{"N / 8", 0, 0, 0, lang.MakeInt(125)},
		{"floor(N / 3)", 0, 0, 0, lang.MakeInt(333)},
		{"ceil(N / 3)", 0, 0, 0, lang.MakeInt(334)},
		{"floor(-7 / 2)", 0, 0, 0, lang.MakeInt(-4)},
		{"ceil((0 - 7) / 2)", 0, 0, 0, lang.MakeInt(-3)},
		{"floor(i / 4)", 0, 7, 0, lang.MakeInt(1)},
		{"ceil(i / 4)", 0, 7, 0, lang.MakeInt(2)},
		{"ceil(i / 4)", 0, 8, 0, lang.MakeInt(2)},
		{"floor(N / 3 + 2 / 3)", 0, 0, 0, lang.MakeInt(334)},
		{"(rank - 1) % P", 0, 0, 0, lang.MakeInt(11)},
		{"-7 % 3", 0, 0, 0, lang.MakeInt(2)},
		{"7 % -3", 0, 0, 0, lang.MakeInt(1)},
		{"i % 3", 0, 10, 0, lang.MakeInt(1)},
		{"1 << 20", 0, 0, 0, lang.MakeInt(1 << 20)},
		{"N >> 3", 0, 0, 0, lang.MakeInt(125)},
		{"-9 >> 1", 0, 0, 0, lang.MakeInt(-5)},
		{"rank ^ 1", 6, 0, 0, lang.MakeInt(7)},
		{"M & 5", 0, 0, 0, lang.MakeInt(4)},
		{"M | 1", 0, 0, 0, lang.MakeInt(13)},
		{"1 << j", 0, 0, 5, lang.MakeInt(32)},
		{"log2(1 << 10)", 0, 0, 0, lang.MakeInt(10)},
		{"log2(Px)", 0, 0, 0, lang.MakeInt(2)},
		{"floor(log2(N))", 0, 0, 0, lang.MakeInt(9)},
		{"ceil(log2(N))", 0, 0, 0, lang.MakeInt(10)},
		{"ceil(log2(1024))", 0, 0, 0, lang.MakeInt(10)},
		{"floor(log2(N / 3))", 0, 0, 0, lang.MakeInt(8)},
		{"floor(log2(j + 1))", 0, 0, 6, lang.MakeInt(2)},
		{"log2(half)", 0, 0, 0, lang.MakeFloat(-1)},
		{"min(i, j, 5)", 0, 7, 3, lang.MakeInt(3)},
		{"max(i, j, 5)", 0, 7, 3, lang.MakeInt(7)},
		{"min(half, 1)", 0, 0, 0, lang.MakeFloat(0.5)},
		{"max(half, 1)", 0, 0, 0, lang.MakeFloat(1)},
		{"abs(j - i)", 0, 7, 3, lang.MakeInt(4)},
		{"rank == 0 ? 1 : 2", 0, 0, 0, lang.MakeInt(1)},
		{"rank == 0 ? 1 : 2", 5, 0, 0, lang.MakeInt(2)},
		{"i > j ? half : 2", 0, 0, 0, lang.MakeFloat(2)},
		{"N / 8 == 125 && !(i < j) ? 1 : 0", 0, 0, 0, lang.MakeInt(1)},
		{"P > 100 && N % (P - 12) == 0 ? 1 : 0", 0, 0, 0, lang.MakeInt(0)},
		{"rx * 10 + ry", 7, 0, 0, lang.MakeInt(31)},
		{"P + Px * Py", 0, 0, 0, lang.MakeInt(24)},
		{"i * M + j + rank", 2, 3, 4, lang.MakeInt(42)},
		{"sqrt(16.0)", 0, 0, 0, lang.MakeFloat(4)},
		{"sqrt(N * 10)", 0, 0, 0, lang.MakeFloat(100)},
		{"half * N", 0, 0, 0, lang.MakeFloat(500)},
		{"exp(0.0) + cos(0.0) + sin(0.0) + log(1.0)", 0, 0, 0, lang.MakeFloat(2)},
		{"f32(0.1)", 0, 0, 0, lang.MakeFloat(f32)},
		{"f64(N) / 8", 0, 0, 0, lang.MakeFloat(125)},
		{"i64(2.9) + i64(-2.9)", 0, 0, 0, lang.MakeInt(0)},
		{"(1 << 62) * 4", 0, 0, 0, lang.MakeRat(new(big.Rat).SetFrac(big.NewInt(1<<62), big.NewInt(1)).Mul(new(big.Rat).SetInt64(1<<62), big.NewRat(4, 1)))},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s@%d,%d,%d", tt.expr, tt.rank, tt.i, tt.j), func(t *testing.T) {
			c, let, _ := evalSetup(t, tt.expr, "0")
			got, err := c.Eval(let, &lang.Env{Rank: tt.rank, Index: []int64{tt.i, tt.j}})
			if err != nil {
				t.Fatalf("Eval: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Eval (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEvalPeers: directions and neighbor() on a 4×3 grid give the rank in
// that direction, or -1 (none) at the edge.
func TestEvalPeers(t *testing.T) {
	tests := []struct {
		peer string
		rank int64
		want int64
	}{
		{"east", 0, 1}, {"west", 0, -1}, {"north", 0, -1}, {"south", 0, 4},
		{"east", 11, -1}, {"west", 11, 10}, {"north", 11, 7}, {"south", 11, -1},
		{"east", 5, 6}, {"west", 5, 4}, {"north", 5, 1}, {"south", 5, 9},
		{"east", 3, -1}, {"west", 4, -1}, {"south", 8, -1}, {"north", 3, -1},
		{"neighbor(1, 1)", 0, 5}, {"neighbor(-1, 0)", 0, -1}, {"neighbor(2, 2)", 0, 10},
		{"neighbor(0, -3)", 11, -1}, {"neighbor(-3, -2)", 11, 0}, {"neighbor(4, 0)", 0, -1},
		{"none", 3, -1},
		{"rank == 0 ? none : rank - 1", 0, -1},
		{"rank == 0 ? none : rank - 1", 3, 2},
		{"(rank + 1) % P", 11, 0},
		{"east == none ? west : east", 3, 2},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s@%d", tt.peer, tt.rank), func(t *testing.T) {
			c, _, dest := evalSetup(t, "0", tt.peer)
			got, err := c.EvalInt(dest, &lang.Env{Rank: tt.rank, Index: []int64{0, 0}})
			if err != nil {
				t.Fatalf("EvalInt: %v", err)
			}
			if got != tt.want {
				t.Errorf("EvalInt = %d, want %d", got, tt.want)
			}
		})
	}
}

// TestEvalErrors: what cannot be evaluated is an error naming the place,
// never a panic.
func TestEvalErrors(t *testing.T) {
	c := checkMust(t, `kernel k(N = 8, half = 0.5) on P = 4 ranks {
  let big = (1 << 62) * 4
  let r = rank + N
  var s: f64 = 0
  for i in 0..N { s = s + half * i }
  let h = half
}`)
	exprs := map[string]lang.Expr{}
	lang.Inspect(c.Kernel, func(n lang.Node) bool {
		switch n := n.(type) {
		case *lang.LetStmt:
			exprs[n.Name.Name] = n.Value
		case *lang.AssignStmt:
			exprs["assign"] = n.Rhs
		case *lang.BinaryExpr:
			if n.Op == lang.Mul && exprs["i"] == nil {
				if id, ok := n.Y.(*lang.Ident); ok && id.Name == "i" {
					exprs["i"] = n.Y
				}
			}
		}
		return true
	})
	env := &lang.Env{Rank: 1, Index: []int64{0}}
	tests := []struct {
		name string
		run  func() error
		want string
	}{
		{"int64 overflow", func() error { _, err := c.EvalInt(exprs["big"], env); return err },
			"test.spmd:2:13: (1 << 62) * 4 = 18446744073709551616 does not fit a 64-bit integer"},
		{"float in an integer context", func() error { _, err := c.EvalInt(exprs["h"], env); return err },
			"test.spmd:6:11: half = 0.5 is not an integer"},
		{"data", func() error { _, err := c.Eval(exprs["assign"], env); return err },
			"test.spmd:5:23: s is a var: it is data, with no static value"},
		{"no rank", func() error { _, err := c.Eval(exprs["r"], nil); return err },
			"test.spmd:3:11: rank depends on the rank, and no rank was given"},
		{"rank out of range", func() error { _, err := c.Eval(exprs["r"], &lang.Env{Rank: 4}); return err },
			"test.spmd:3:11: rank 4 is outside 0..3"},
		{"no index", func() error { _, err := c.Eval(exprs["i"], &lang.Env{}); return err },
			"test.spmd:5:34: i depends on the loop index i, and no value was given for it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.run()
			if err == nil || err.Error() != tt.want {
				t.Errorf("error = %v, want %q", err, tt.want)
			}
		})
	}
	r, err := c.EvalInt(exprs["r"], env)
	if err != nil || r != 9 {
		t.Errorf("EvalInt(rank + N) = %d, %v; want 9", r, err)
	}
}

// TestValueBasics covers the Value API on its own.
func TestValueBasics(t *testing.T) {
	third := lang.MakeRat(big.NewRat(1, 3))
	tests := []struct {
		v              lang.Value
		str            string
		isInt, int64OK bool
		f              float64
	}{
		{lang.MakeInt(-42), "-42", true, true, -42},
		{third, "1/3", false, false, 1.0 / 3},
		{lang.MakeRat(new(big.Rat).SetFrac(new(big.Int).Lsh(big.NewInt(1), 70), big.NewInt(1))), "1180591620717411303424", true, false, math.Ldexp(1, 70)},
		{lang.MakeFloat(2), "2.0", false, false, 2},
		{lang.MakeFloat(1e-6), "1e-06", false, false, 1e-6},
		{lang.MakeBool(true), "true", false, false, 0},
		{lang.Value{}, "<invalid>", false, false, 0},
	}
	for _, tt := range tests {
		_, ok := tt.v.Int64()
		got := []any{tt.v.String(), tt.v.IsInt(), ok, tt.v.Float64()}
		want := []any{tt.str, tt.isInt, tt.int64OK, tt.f}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.str, diff)
		}
	}
	if !third.Equal(lang.MakeRat(big.NewRat(2, 6))) || third.Equal(lang.MakeFloat(1.0/3)) {
		t.Errorf("Equal compares kind and exact value")
	}
	r := third.Rat()
	r.SetInt64(5) // a copy: the value must not change
	if third.String() != "1/3" {
		t.Errorf("Rat() exposed the value's own rational")
	}
	if !lang.MakeBool(true).Bool() || lang.MakeInt(1).Bool() {
		t.Errorf("Bool()")
	}
	if strings.Contains(lang.MakeFloat(1e21).String(), ".0") {
		t.Errorf("large float printed with a spurious .0: %s", lang.MakeFloat(1e21))
	}
}
