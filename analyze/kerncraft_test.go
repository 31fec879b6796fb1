package analyze

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"perfc/analyze/cache"
	"perfc/internal/golden"
	"perfc/lang"
)

// TestKerncraftTable makes the side-by-side table of docs/counts.md
// ("Beside Kerncraft"): for Kerncraft's example kernels (testdata/kerncraft)
// at three sizes, the lines per cache line of work each level brings in by
// perfc's analytic model, the exact simulation of a fully associative LRU
// hierarchy of the same capacities (the judge of issue 15), the exact
// simulation of `perfc count --simulate` (set-associative, the program's
// layout; all three over the whole run), perfc's steady state (SteadyState)
// and Kerncraft's layer-condition predictor (a steady state), computed here
// by its published rule (kerncraftLC). It checks that perfc's whole-run
// lines are within 1 % of the fully associative simulation at every level
// of every row. `go test ./analyze -run TestKerncraftTable -update`
// rewrites testdata/kerncraft/table.md, which the docs quote.
func TestKerncraftTable(t *testing.T) {
	h, err := cache.ParseHierarchy(conflictHierarchy)
	if err != nil {
		t.Fatal(err)
	}
	full := fullyAssociative(h)
	cases := []struct {
		kernel string
		sizes  [][]string
	}{
		{"kc_copy", [][]string{{"N=1000"}, {"N=100000"}, {"N=1000000"}}},
		{"kc_daxpy", [][]string{{"N=1000"}, {"N=100000"}, {"N=1000000"}}},
		{"kc_triad", [][]string{{"N=1000"}, {"N=100000"}, {"N=1000000"}}},
		{"kc_sum", [][]string{{"N=1000"}, {"N=100000"}, {"N=1000000"}}},
		{"kc_2d5pt", [][]string{{"M=100", "N=1000"}, {"M=50", "N=5000"}, {"M=20", "N=100000"}}},
		{"kc_3d7pt", [][]string{{"M=10", "N=30"}, {"M=10", "N=100"}, {"M=5", "N=400"}}},
		{"kc_3d27pt", [][]string{{"M=10", "N=30"}, {"M=10", "N=100"}, {"M=5", "N=400"}}},
		{"kc_longrange", [][]string{{"M=12", "N=30"}, {"M=12", "N=100"}, {"M=10", "N=220"}}},
		{"kc_uxx", [][]string{{"M=8", "N=30"}, {"M=8", "N=100"}, {"M=6", "N=250"}}},
		{"kc_himeno", [][]string{{"L=8", "M=30", "N=30"}, {"L=8", "M=48", "N=48"}, {"L=6", "M=100", "N=100"}}},
		{"kc_matvec", [][]string{{"M=100", "N=100"}, {"M=100", "N=2000"}, {"M=1024", "N=100"}}},
		{"kc_matvec_trans", [][]string{{"M=100", "N=100"}, {"M=100", "N=5000"}, {"M=10", "N=200000"}}},
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| kernel | sizes | L1: perfc | FA LRU | set-assoc. | perfc steady | Kerncraft LC | L2: perfc | FA LRU | set-assoc. | perfc steady | Kerncraft LC |\n")
	fmt.Fprintf(&b, "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, tc := range cases {
		for _, defs := range tc.sizes {
			k := loadKerncraft(t, tc.kernel, defs...)
			rep, err := Analyze(k, Options{Cache: h, OnlyRank: new(int64(0))})
			if err != nil {
				t.Fatal(err)
			}
			sim, err := Simulate(k, h, SimOptions{})
			if err != nil {
				t.Fatal(err)
			}
			fa, err := Simulate(k, full, SimOptions{})
			if err != nil {
				t.Fatal(err)
			}
			work := workLines(rep.Classes[0].Total, int64(h[0].Line))
			steady, err := SteadyState(k, Options{Cache: h, OnlyRank: new(int64(0))}, rep, 0)
			if err != nil || len(steady) != 1 {
				t.Fatalf("SteadyState: %v, %d regions", err, len(steady))
			}
			lc, why := kerncraftLC(t, k, h)
			row := []string{strings.TrimPrefix(tc.kernel, "kc_"), strings.Join(defs, " ")}
			for i, lv := range rep.Classes[0].Total.Cache {
				model := lv.Lines.Float() / work
				simulated := float64(sim.Total[i].Lines) / work
				exact := float64(fa.Total[i].Lines) / work
				if math.Abs(lv.Lines.Float()-float64(fa.Total[i].Lines)) > 0.01*float64(fa.Total[i].Lines) {
					t.Errorf("%s %v %s: perfc %.0f lines, fully associative LRU %d: more than 1 %% apart", tc.kernel, defs, lv.Level, lv.Lines.Float(), fa.Total[i].Lines)
				}
				kc := why
				if lc != nil {
					kc = fmt.Sprintf("%d", lc[i])
				}
				st := "-"
				if v := steady[0].Levels[i].SteadyLines; v != nil {
					st = fmt.Sprintf("%.2f", *v)
				}
				row = append(row, fmt.Sprintf("%.2f", model), fmt.Sprintf("%.2f", exact), fmt.Sprintf("%.2f", simulated), st, kc)
			}
			fmt.Fprintf(&b, "| %s |\n", strings.Join(row, " | "))
		}
	}
	golden.Check(t, "testdata/kerncraft/table.md", b.String())
}

// fullyAssociative is h with every level fully associative (Assoc 0), its
// capacity and line kept.
func fullyAssociative(h cache.Hierarchy) cache.Hierarchy {
	out := slices.Clone(h)
	for i := range out {
		out[i].Assoc = 0
	}
	return out
}

// workLines is the work of a kernel in cache lines, Kerncraft's unit: the
// iterations of the innermost loop (the executions of its most executed
// reference) times the element size, over the line size.
func workLines(c Counts, line int64) float64 {
	iters, elem := 0.0, 0
	for _, r := range c.Refs {
		iters = math.Max(iters, r.Count.Float())
		elem = max(elem, r.Size)
	}
	return iters * float64(elem) / float64(line)
}

// kerncraftLC is Kerncraft's layer-condition prediction
// (kerncraft/cacheprediction.py, LayerConditionPredictor) of the lines per
// cache line of work each level of h brings in, by its rule:
//
//   - it refuses a kernel where a reference moves by other than 0 or 1
//     element per iteration of the innermost loop (a column walk);
//   - per array, its distinct accesses as element offsets, sorted in
//     decreasing order, give the distances between neighbours, and one
//     infinite distance per array;
//   - a level holds everything (0 lines) when it is larger than all the
//     arrays together; otherwise, for each finite distance t, largest
//     first, the level needs the sum of the distances up to t plus t for
//     every larger one, in bytes: the first t whose need fits the level
//     gives as many lines as there are distances larger than t; when none
//     fits, every distance is a line.
//
// It returns nil and the reason when Kerncraft refuses the kernel.
func kerncraftLC(t *testing.T, k *lang.Checked, h cache.Hierarchy) ([]int64, string) {
	t.Helper()
	p := newPlan(k)
	walk, err := newTraceWalk(k, p, traceLayout{align: SimArrayAlign}, 0, &lineSink{})
	if err != nil {
		t.Fatal(err)
	}
	offsets := map[*lang.Object][]int64{}
	var elem, total int64
	env := &lang.Env{Index: make([]int64, k.Info.NumSlots)}
	for i := range env.Index {
		env.Index[i] = 10
	}
	for _, lf := range p.leaves {
		for _, r := range lf.refs {
			tr, err := walk.compileRef(r, 0, r.array.Dims)
			if err != nil {
				t.Fatal(err)
			}
			inner := r.stmtChain[len(r.stmtChain)-1].loop
			at := int64(tr.address(env)) / int64(tr.size)
			env.Index[k.Info.Defs[inner.Var].Slot]++
			step := int64(tr.address(env))/int64(tr.size) - at
			env.Index[k.Info.Defs[inner.Var].Slot]--
			if step != 0 && step != 1 {
				return nil, "refused"
			}
			if !slices.Contains(offsets[r.array], at) {
				offsets[r.array] = append(offsets[r.array], at)
			}
			elem = int64(tr.size)
		}
	}
	var dists []float64
	for a, offs := range offsets {
		n := int64(a.Elem.Size())
		for _, d := range a.Dims {
			n *= d
		}
		total += n
		slices.Sort(offs)
		for i := 1; i < len(offs); i++ {
			dists = append(dists, float64(offs[i]-offs[i-1])*float64(elem))
		}
		dists = append(dists, math.Inf(1))
	}
	var out []int64
	for _, lv := range h {
		size := float64(lv.Size)
		if size > float64(total) {
			out = append(out, 0)
			continue
		}
		misses := int64(len(dists))
		tails := slices.Clone(dists)
		slices.Sort(tails)
		tails = slices.Compact(tails)
		for i := len(tails) - 1; i >= 0; i-- {
			tail := tails[i]
			if math.IsInf(tail, 1) {
				continue
			}
			need, larger := 0.0, int64(0)
			for _, d := range dists {
				if d <= tail {
					need += d
				} else {
					need += tail
					larger++
				}
			}
			if need <= size {
				misses = larger
				break
			}
		}
		out = append(out, misses)
	}
	return out, ""
}
