package analyze

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// chainSummary is one reported chain reduced for comparison: the carrying
// loop's line and column, the location, the loop's iterations and the
// chain's operations as "op type count".
type chainSummary struct {
	Loop       string
	Var        string
	Iterations string
	Ops        []string
}

// summarizeChains reduces the chains of a total.
func summarizeChains(c *Counts) []chainSummary {
	var out []chainSummary
	for _, ch := range c.Chains {
		_, line, col := splitPlace(ch.Loop)
		s := chainSummary{Loop: fmt.Sprintf("%d:%d", line, col), Var: ch.Var, Iterations: ch.Iterations.Exact()}
		for _, o := range ch.Ops {
			s.Ops = append(s.Ops, fmt.Sprintf("%s %s %s", o.Op, o.Type, o.Count.Exact()))
		}
		out = append(out, s)
	}
	return out
}

// chainKernel wraps a loop nest in a kernel with arrays a, b, c of n+1
// f64 elements, scalars s, t, u, x, y, acc and s0..s3, n = 10 and m = 4; the
// body starts on line 5, column 3.
func chainKernel(body string) string {
	return "kernel k(n = 10, m = 4) {\n" +
		"  array a[n+1], b[n+1], c[n+1]: f64\n" +
		"  var s, t, u, x, y, acc, s0, s1, s2, s3: f64 = 1\n" +
		"  var coef: f64 = 0.5\n" +
		body + "\n}\n"
}

// TestChains checks which chains the analyzer finds, with their
// operations, on small loop nests and on examples.
func TestChains(t *testing.T) {
	cases := []struct {
		name, src string
		want      []chainSummary
	}{
		{"dot product: the add, not the multiply",
			chainKernel("  for i in 0..n {\n    s = s + a[i]*b[i]\n  }"),
			[]chainSummary{{"5:3", "s", "10", []string{"add f64 10"}}}},
		{"sum with a compound assignment",
			chainKernel("  for i in 0..n {\n    s += a[i]\n  }"),
			[]chainSummary{{"5:3", "s", "10", []string{"add f64 10"}}}},
		{"x = x / y + 1: divide and add",
			chainKernel("  for i in 0..n {\n    x = x / y + 1.0\n  }"),
			[]chainSummary{{"5:3", "x", "10", []string{"add f64 10", "div f64 10"}}}},
		{"four independent accumulators: four chains of one add",
			chainKernel("  for i in 0..n-2 step 4 {\n    s0 += a[i]\n    s1 += a[i+1]\n    s2 += a[i+2]\n    s3 += a[i+3]\n  }"),
			[]chainSummary{
				{"5:3", "s0", "2", []string{"add f64 2"}}, {"5:3", "s1", "2", []string{"add f64 2"}},
				{"5:3", "s2", "2", []string{"add f64 2"}}, {"5:3", "s3", "2", []string{"add f64 2"}},
			}},
		{"a stream carries nothing",
			chainKernel("  for i in 0..n {\n    a[i] = b[i] + s*c[i]\n  }"),
			nil},
		{"a compound store to a moving element carries nothing",
			chainKernel("  for i in 0..n {\n    a[i] += s\n  }"),
			nil},
		{"a location set before it is read is not carried",
			chainKernel("  for i in 0..n {\n    t = a[i]\n    t = t * t + 1.0\n    b[i] = t\n  }"),
			nil},
		{"a chain through two locations: multiply and add",
			chainKernel("  for i in 0..n {\n    t = s * a[i]\n    s = t + 1.0\n  }"),
			[]chainSummary{{"5:3", "s", "10", []string{"add f64 10", "mul f64 10"}}}},
		{"the longest of two paths",
			chainKernel("  for i in 0..n {\n    s = (s + 1.0) * (s * 2.0 + 3.0)\n  }"),
			[]chainSummary{{"5:3", "s", "10", []string{"add f64 10", "mul f64 20"}}}},
		{"a data if weighs its branch by its probability",
			chainKernel("  for i in 0..n {\n    if a[i] > 0.0 prob 0.25 {\n      s = s * 2.0\n    }\n    s = s + 1.0\n  }"),
			[]chainSummary{{"5:3", "s", "10", []string{"add f64 10", "mul f64 5/2"}}}},
		{"a data if that breaks the chain in one branch",
			chainKernel("  for i in 0..n {\n    if a[i] > 0.0 prob 0.25 {\n      s = a[i]\n    } else {\n      s = s + a[i]\n    }\n  }"),
			[]chainSummary{{"5:3", "s", "10", []string{"add f64 15/2"}}}},
		{"a step before a data if that breaks the chain counts in the other branch's share",
			chainKernel("  for i in 0..n {\n    s = s * 2.0\n    if a[i] > 0.0 prob 0.25 {\n      s = a[i]\n    }\n  }"),
			[]chainSummary{{"5:3", "s", "10", []string{"mul f64 15/2"}}}},
		{"a step that never runs on the rank is left out, and a chain of none",
			chainKernel("  for i in 0..n {\n    s = s * 2.0\n    if i > n {\n      s = s + a[i]\n    }\n  }\n  for j in 0..m {\n    if j > m {\n      u = u + 1.0\n    }\n  }"),
			[]chainSummary{{"5:3", "s", "10", []string{"mul f64 10"}}}},
		{"a static if: each branch's operations in the iterations it runs",
			chainKernel("  for i in 0..n {\n    if i % 2 == 0 {\n      s = s + a[i]\n    } else {\n      s = s * a[i]\n    }\n  }"),
			[]chainSummary{{"5:3", "s", "10", []string{"add f64 5", "mul f64 5"}}}},
		{"a step before a static if counts in every iteration",
			chainKernel("  for i in 0..n {\n    s = s * 2.0\n    if i > 6 {\n      s = s + a[i]\n    }\n  }"),
			[]chainSummary{{"5:3", "s", "10", []string{"add f64 3", "mul f64 10"}}}},
		{"a select: the compare is on the chain",
			chainKernel("  for i in 0..n {\n    s = (a[i] > s) ? a[i] : s\n  }"),
			[]chainSummary{{"5:3", "s", "10", []string{"cmp f64 10"}}}},
		{"builtins: sqrt and a three-argument max",
			chainKernel("  for i in 0..n {\n    s = sqrt(max(s, a[i], b[i]))\n  }"),
			[]chainSummary{{"5:3", "s", "10", []string{"sqrt f64 10", "max f64 20"}}}},
		{"only the innermost loop that carries a location reports it",
			chainKernel("  for i in 0..n {\n    s = s * 2.0\n    for j in 0..m {\n      s = s + a[j]\n    }\n  }"),
			[]chainSummary{{"7:5", "s", "40", []string{"add f64 40"}}}},
		{"a dependence through a nested loop that does not carry it",
			chainKernel("  for i in 0..n {\n    for j in 0..m {\n      u = s * a[j]\n    }\n    s = u + 1.0\n  }"),
			[]chainSummary{{"5:3", "s", "10", []string{"add f64 10"}}}},
		{"a hoisted array element carried by the inner loop",
			chainKernel("  for i in 0..n {\n    for k in 0..m {\n      c[i] = c[i] + a[k] * b[k]\n    }\n  }"),
			[]chainSummary{{"6:5", "c[i]", "40", []string{"add f64 40"}}}},
		{"no element is hoisted out of a repeat: no chain",
			chainKernel("  repeat m {\n    c[0] = c[0] + 1.0\n  }"),
			nil},
		{"a repeat carries a var",
			chainKernel("  repeat m {\n    s = s * coef + 1.0\n  }"),
			[]chainSummary{{"5:3", "s", "4", []string{"add f64 4", "mul f64 4"}}}},
		{"a loop that communicates carries no chain",
			"kernel k(n = 4) on P = 2 ranks {\n  var s: f64 = 1\n  for i in 0..n {\n    s = s + 1.0\n    allreduce sum s\n  }\n}\n",
			nil},
		{"a loop that holds a region carries no chain",
			chainKernel("  for i in 0..n {\n    region \"r\" {\n      s = s + a[i]\n    }\n  }"),
			nil},
		{"a triangular nest (enumerated where not affine)",
			chainKernel("  for i in 0..n {\n    for j in 0..i*i {\n      s = s + 1.0\n    }\n  }"),
			[]chainSummary{{"6:5", "s", "285", []string{"add f64 285"}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k := loadKernel(t, "k.spmd", []byte(tc.src), nil)
			rep, err := Analyze(k, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := summarizeChains(&rep.Classes[0].Total)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("chains (-want +got):\n%s\n%s", d, tc.src)
			}
		})
	}
}

// TestChainsExamples checks the chains of the examples the pricing leans on:
// Horner's rule in poly1 and poly2 (carried by the repeat over the order,
// not by the loop over elements, which sets acc first), the dot product in
// matmul's k loop, and none in gauss.
func TestChainsExamples(t *testing.T) {
	cases := []struct {
		example, settings string
		want              []chainSummary
	}{
		{"poly1", "n=10 k=3 reps=2", []chainSummary{{"33:9", "acc", "60", []string{"add f64 60", "mul f64 60"}}}},
		{"poly2", "n=10 k=3", []chainSummary{{"29:7", "acc", "30", []string{"add f64 30", "mul f64 30"}}}},
		{"matmul", "N=5", []chainSummary{{"24:9", "s", "125", []string{"add f64 125"}}}},
		{"gauss", "N=8 P=4", nil},
		{"triad", "N=10", nil},
	}
	for _, tc := range cases {
		t.Run(tc.example, func(t *testing.T) {
			k := loadKernel(t, tc.example, exampleSource(t, tc.example), parseSetting(t, tc.settings))
			rep, err := Analyze(k, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, cl := range rep.Classes {
				if d := cmp.Diff(tc.want, summarizeChains(&cl.Total)); d != "" {
					t.Errorf("ranks %v: chains (-want +got):\n%s", cl.Ranks, d)
				}
			}
		})
	}
}

// TestChainBody checks what a chain says of its loop's body: the dot
// product's iterations, operations, pair and loads; and that the pattern of
// a chain's operation is its statement's.
func TestChainBody(t *testing.T) {
	k := loadKernel(t, "k.spmd", []byte(chainKernel("  for i in 0..n {\n    s = s + a[i]*b[i]\n  }")), nil)
	rep, err := Analyze(k, Options{})
	if err != nil {
		t.Fatal(err)
	}
	chains := rep.Classes[0].Total.Chains
	if len(chains) != 1 {
		t.Fatalf("got %d chains, want 1", len(chains))
	}
	b := chains[0].Body
	got := []string{"iterations " + b.Iterations.Exact(), "loads " + b.Loads.Exact(), "stores " + b.Stores.Exact()}
	for _, o := range b.Ops {
		got = append(got, fmt.Sprintf("op %s %s %s %s", o.Op, o.Type, o.Pattern, o.Count.Exact()))
	}
	for _, o := range b.Madds {
		got = append(got, fmt.Sprintf("madd %s %s %s %s", o.Op, o.Type, o.Pattern, o.Count.Exact()))
	}
	for _, o := range chains[0].Ops {
		got = append(got, fmt.Sprintf("chain %s %s %s %s", o.Op, o.Type, o.Pattern, o.Count.Exact()))
	}
	want := []string{"iterations 10", "loads 20", "stores 0",
		"op add f64 a&b&s 10", "op mul f64 a&b&s 10", "madd add f64 a&b&s 10", "chain add f64 a&b&s 10"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("body (-want +got):\n%s", d)
	}
	if f := chains[0].Iterations.Formula.String(); f != "n" {
		t.Errorf("iterations formula %q, want n", f)
	}
}

// TestChainsDeterministic checks that every example's chains come out in
// the same order on every analysis, sorted by loop position and location.
func TestChainsDeterministic(t *testing.T) {
	files, err := filepath.Glob("../examples/*.spmd")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples found: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".spmd")
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		k := loadKernel(t, file, src, parseSetting(t, exampleSettings[name][0]))
		var first []chainSummary
		for run := range 3 {
			rep, err := Analyze(k, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []chainSummary
			for _, cl := range rep.Classes {
				for i := 1; i < len(cl.Total.Chains); i++ {
					if compareChains(cl.Total.Chains[i-1], cl.Total.Chains[i]) > 0 {
						t.Errorf("%s: chains out of order: %s %s before %s %s", name,
							cl.Total.Chains[i-1].Loop, cl.Total.Chains[i-1].Var, cl.Total.Chains[i].Loop, cl.Total.Chains[i].Var)
					}
				}
				got = append(got, summarizeChains(&cl.Total)...)
			}
			if run == 0 {
				first = got
			} else if d := cmp.Diff(first, got); d != "" {
				t.Errorf("%s: run %d differs (-first +now):\n%s", name, run, d)
			}
		}
	}
}

// TestChainRestarts checks Chain.Entries and Chain.Restarts: a chain
// restarts at every entry of its loop when the enclosing loop sets the
// location anew in each iteration (before or after the nested loop), and
// runs on from entry to entry when nothing does, when the reset is
// conditional, or when the enclosing loop is not the immediate one.
func TestChainRestarts(t *testing.T) {
	type summary struct {
		Var      string
		Entries  string
		Restarts bool
	}
	cases := []struct {
		name, body string
		want       []summary
	}{
		{"reset before the nested loop (Horner)",
			"  for i in 0..n {\n    acc = coef\n    repeat m {\n      acc = coef + a[i]*acc\n    }\n    b[i] = acc\n  }",
			[]summary{{"acc", "10", true}}},
		{"reset after the nested loop",
			"  for i in 0..n {\n    repeat m {\n      acc = coef + a[i]*acc\n    }\n    b[i] = acc\n    acc = coef\n  }",
			[]summary{{"acc", "10", true}}},
		{"reset from another var",
			"  for i in 0..n {\n    acc = a[i] * coef\n    repeat m {\n      acc = coef + a[i]*acc\n    }\n  }",
			[]summary{{"acc", "10", true}}},
		{"no reset: one chain across entries",
			"  for i in 0..n {\n    repeat m {\n      acc = coef + a[i]*acc\n    }\n  }",
			[]summary{{"acc", "10", false}}},
		{"reset that reads the location",
			"  for i in 0..n {\n    acc = acc * 0.5\n    repeat m {\n      acc = coef + a[i]*acc\n    }\n  }",
			[]summary{{"acc", "10", false}}},
		{"conditional reset",
			"  for i in 0..n {\n    if i % 2 == 0 {\n      acc = coef\n    }\n    repeat m {\n      acc = coef + a[i]*acc\n    }\n  }",
			[]summary{{"acc", "10", false}}},
		{"reset two loops up",
			"  repeat 3 {\n    acc = coef\n    for i in 0..n {\n      repeat m {\n        acc = coef + a[i]*acc\n      }\n    }\n  }",
			[]summary{{"acc", "30", false}}},
		{"top-level loop: entered once, not restarted",
			"  for i in 0..n {\n    s = s + a[i]\n  }",
			[]summary{{"s", "1", false}}},
		{"nested loop inside an if of the enclosing loop",
			"  for i in 0..n {\n    s = 0.0\n    if i < m {\n      for j in 0..n {\n        s = s + a[j]\n      }\n    }\n    c[i] = s\n  }",
			[]summary{{"s", "4", true}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k := loadKernel(t, "k.spmd", []byte(chainKernel(tc.body)), nil)
			rep, err := Analyze(k, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []summary
			for _, ch := range rep.Classes[0].Total.Chains {
				got = append(got, summary{ch.Var, ch.Entries.Exact(), ch.Restarts})
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("chains (-want +got):\n%s", d)
			}
		})
	}
}
