package lang_test

import (
	"math/big"
	"os"
	"path/filepath"
	"testing"

	"perfc/lang"
	"perfc/parser"
)

// fastKernel exercises every operator the compiled closures handle, at the edges
// of int64 and of the grid.
const fastKernel = `
kernel k(N = 1000, S = 7, BIG = 4611686018427387904) on grid(Px = 4, Py = 3) {
  array a[N]: f64
  let h = floor(N / S)
  for i in 0..8 {
    for j in i..9 {
      a[floor((i*j + rank) / 3) % N] = 1.0
      a[(i - j + P*4) % 13] = 2.0
      a[ceil((rank - 7) / 2) + 4] = 3.0
      a[(1 << i) + (rank ^ j) + (rx | ry) + (i & 5) + (j >> 1)] = 4.0
      a[max(i, j, rank) + min(i - 3, 0) + abs(i - j)] = 5.0
      a[i < j && rank != 2 ? 1 : 2] = 6.0
      a[(BIG / BIG) + log2(Px) + floor(BIG*i / (BIG + 1))] = 7.0
      if east != none || neighbor(i - 4, j - 4) == rank - 1 {
        a[h % 9] = 8.0
      }
    }
  }
}
`

// TestFastEvalAgrees evaluates every static integer, bool and peer
// expression of the examples and of a kernel of edge cases at several ranks
// and loop indices with both evaluators: wherever the compiled int64
// closures answer, they must give the exact evaluator's value.
func TestFastEvalAgrees(t *testing.T) {
	sources := map[string][]byte{"fast.spmd": []byte(fastKernel)}
	files, _ := filepath.Glob("../examples/*.spmd")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sources[filepath.Base(f)] = b
	}
	answered := 0
	for name, src := range sources {
		f, err := parser.ParseFile(name, src)
		if err != nil {
			t.Fatal(err)
		}
		k, err := lang.Check(f, "", nil)
		if err != nil {
			t.Fatal(err.(lang.ErrorList).Format(f.Source))
		}
		ranks := []int64{0, 1, k.NumRanks() / 2, k.NumRanks() - 1}
		for _, r := range ranks {
			for _, idx := range []int64{0, 1, 3, 7} {
				env := &lang.Env{Rank: r, Index: make([]int64, k.Info.NumSlots)}
				for s := range env.Index {
					env.Index[s] = idx + int64(s)
				}
				lang.Inspect(k.Kernel, func(n lang.Node) bool {
					e, ok := n.(lang.Expr)
					if !ok || k.Info.Deps[e]&lang.DepData != 0 {
						return true
					}
					switch k.Info.Types[e] {
					case lang.IntType, lang.BoolType, lang.PeerType:
					default:
						return true
					}
					fast, ok := k.EvalCompiled(e, env)
					if !ok {
						return true
					}
					answered++
					exact, err := k.EvalExact(e, env)
					if err != nil {
						t.Errorf("%s: %s at rank %d, index %d: fast %d, exact error %v", name, lang.ExprString(e), r, idx, fast, err)
						return true
					}
					var want int64
					if exact.Kind() == lang.BoolValue {
						if exact.Bool() {
							want = 1
						}
					} else if !exact.IsInt() || exact.Rat().Cmp(new(big.Rat).SetInt64(fast)) != 0 {
						t.Errorf("%s: %s at rank %d, index %d: fast %d, exact %s", name, lang.ExprString(e), r, idx, fast, exact)
						return true
					} else {
						want = fast
					}
					if want != fast {
						t.Errorf("%s: %s at rank %d, index %d: fast %d, exact %s", name, lang.ExprString(e), r, idx, fast, exact)
					}
					return true
				})
			}
		}
	}
	if answered < 1000 {
		t.Errorf("the compiled closures answered only %d evaluations; the comparison proves little", answered)
	}
}
