package analyze

import (
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// These are table tests of specific counts whose closed forms are known by
// hand: triangular and clamped nests, strides, guards, probabilities, the
// hoisting of Gaussian elimination's multiplier, messages and collectives,
// at small sizes and at N = 10^12 (where only a closed form can answer).

// countField selects one count of a region.
type countField func(c *Counts) Count

var (
	iterations = func(c *Counts) Count { return c.Iterations }
	flop       = func(c *Counts) Count { return c.Flop }
	intOps     = func(c *Counts) Count { return c.IntOps }
	maddPairs  = func(c *Counts) Count { return c.MaddPairs }
	loads      = func(c *Counts) Count { return c.Loads }
	stores     = func(c *Counts) Count { return c.Stores }
)

// regionCounts returns rank r's counts in region name ("" for the class
// total) or fails the test.
func regionCounts(t *testing.T, rep *Report, r int64, name string) *Counts {
	t.Helper()
	cl := classOf(rep, r)
	if cl == nil {
		t.Fatalf("rank %d is in no class", r)
	}
	if name == "" {
		return &cl.Total
	}
	for i := range cl.Regions {
		if cl.Regions[i].Name == name {
			return &cl.Regions[i].Counts
		}
	}
	t.Fatalf("no region %q; the report has %v", name, regionNames(cl))
	return nil
}

// regionNames lists the regions of a class.
func regionNames(cl *Class) []string {
	var out []string
	for _, r := range cl.Regions {
		out = append(out, r.Name)
	}
	return out
}

// analyzeSource parses, checks and analyses src with overrides.
func analyzeSource(t *testing.T, name string, src []byte, settings string) *Report {
	t.Helper()
	k := loadKernel(t, name, src, parseSetting(t, settings))
	rep, err := Analyze(k, Options{})
	if err != nil {
		t.Fatalf("Analyze: %v", err)
	}
	return rep
}

// exampleSource reads an example kernel.
func exampleSource(t testing.TB, name string) []byte {
	t.Helper()
	src, err := os.ReadFile("../examples/" + name + ".spmd")
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// TestKnownCounts checks counts with hand-derived closed forms.
func TestKnownCounts(t *testing.T) {
	const triangular = `kernel tri(N = 10) {
  array x[N+1]: f64
  for i in 0..N {
    for j in i..N {
      x[j] = x[j] * 2.0
    }
  }
}`
	const clamped = `kernel clamp(N = 10, M = 4) {
  array x[N+M]: f64
  for i in 0..N {
    for j in 0..min(i, M) {
      x[j] = 1.0
    }
  }
}`
	const strided = `kernel strided(N = 10) {
  array x[N]: f64
  for i in 2..N step 3 {
    x[i] = 0.0
  }
}`
	const offDiagonal = `kernel offdiag(N = 10) {
  array a[N][N]: f64
  for i in 0..N {
    for j in 0..N {
      if i != j {
        a[i][j] = a[j][i] + 1.0
      }
    }
  }
}`
	const quarter = `kernel quarter(N = 10) {
  array x[N]: f64
  for i in 0..N {
    if x[i] > 0.0 prob 0.25 {
      x[i] = 1.0
    } else {
      x[i] = sqrt(x[i])
    }
  }
}`
	const simplex = `kernel simplex(N = 10) {
  array x[N]: f64
  var s: f64 = 0
  for i in 0..N {
    for j in 0..i+1 {
      for k in j..i+1 {
        s += x[k] * x[j]
      }
    }
  }
}`
	tests := []struct {
		name, src, settings string
		rank                int64
		region              string // "" = total
		field               countField
		value               string // exact value
		formula             string // "" = not checked
	}{
		{"triangle body", triangular, "", 0, "", stores, "55", "N^2/2 + N/2"},
		{"triangle iterations", triangular, "", 0, "", iterations, "65", "N^2/2 + 3*N/2"},
		{"triangle at 10^12", triangular, "N=1_000_000_000_000", 0, "", flop, "500000000000500000000000", "N^2/2 + N/2"},
		{"triangle empty", triangular, "N=0", 0, "", loads, "0", ""},
		{"min bound", clamped, "", 0, "", stores, "30", ""}, // 0+1+2+3+4·6
		{"min bound at 10^12", clamped, "N=1_000_000_000_000 M=1_000_000", 0, "", stores, "999999499999500000", "-M^2/2 + M*N - M/2"},
		{"min bound, M beyond N", clamped, "N=5 M=9", 0, "", stores, "10", ""}, // 0+1+2+3+4
		{"step 3", strided, "", 0, "", stores, "3", ""},                        // 2, 5, 8
		{"step 3 at 10^12", strided, "N=1_000_000_000_000", 0, "", stores, "333333333333", ""},
		{"step 3, too short", strided, "N=2", 0, "", stores, "0", ""},
		{"i != j", offDiagonal, "", 0, "", stores, "90", "N^2 - N"},
		{"i != j at 10^9", offDiagonal, "N=1_000_000_000", 0, "", loads, "999999999000000000", "N^2 - N"},
		{"prob then", quarter, "", 0, "", stores, "10", ""},                          // 10/4 + 30/4
		{"prob sqrt", quarter, "", 0, "", flop, "40", "4*N"},                         // 10 compares + 7.5 sqrt × 4
		{"prob loads", quarter, "N=3", 0, "", loads, "21/4", ""},                     // 3 conditions + 3·3/4 sqrt operands
		{"simplex", simplex, "N=10", 0, "", maddPairs, "220", "N^3/6 + N^2/2 + N/3"}, // C(N+2, 3)
		{"simplex at 10^12", simplex, "N=1_000_000_000_000", 0, "", maddPairs, "166666666667166666666667000000000000", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := analyzeSource(t, "known.spmd", []byte(tc.src), tc.settings)
			c := tc.field(regionCounts(t, rep, tc.rank, tc.region))
			if got := c.Exact(); got != tc.value {
				t.Errorf("value = %s, want %s", got, tc.value)
			}
			if tc.formula == "" {
				return
			}
			if !c.Symbolic {
				t.Errorf("formula %s is not a closed form", c.Formula)
			}
			if got := c.Formula.String(); got != tc.formula {
				t.Errorf("formula = %s, want %s", got, tc.formula)
			}
		})
	}
}

// TestGaussCounts checks Gaussian elimination at N = 64 on 32 ranks
// (BS = 2) against counts derived by hand.
func TestGaussCounts(t *testing.T) {
	rep := analyzeSource(t, "gauss.spmd", exampleSource(t, "gauss"), "N=64 P=32")
	// Every rank does the same amount of work: one class after merging.
	if len(rep.Classes) != 1 || rep.Classes[0].Ranks.Len() != 32 {
		var sets []string
		for _, cl := range rep.Classes {
			sets = append(sets, cl.Ranks.String())
		}
		t.Errorf("classes = %v, want one class of 32 ranks", sets)
	}
	tests := []struct {
		region string
		field  countField
		value  string
		why    string
	}{
		{"(outside regions)", iterations, "64", "the j loop"},
		{"pivot search", iterations, "128", "N·BS"},
		{"pivot search", flop, "128", "one f64 compare per i"},
		{"pivot search", intOps, "64", "rank*BS + i, taken with prob 1/2"},
		{"pivot search", loads, "192", "A[i][j] in the condition, and in the branch with prob 1/2"},
		{"multipliers", flop, "512", "one division (4 flop) per i"},
		{"update", iterations, "2272", "N·BS for i, Σ_j BS/2·(N+1−j) = 2144 for k"},
		{"update", flop, "4288", "a multiply and a subtract per k"},
		{"update", maddPairs, "2144", "one pair per k"},
		{"update", intOps, "128", "the i32 compare done[i] == 0"},
		{"update", loads, "4480", "A[i][k] and pivotrow[k] per k, fac[i] once per k loop (64), done[i] (128)"},
		{"update", stores, "2144", "A[i][k] per k"},
		{"permutation", stores, "66", "perm[j] per j, done[j % BS] on the owner only"},
		{"integer reduction", flop, "64", "the f64 compare pivval == locval per j"},
		{"", flop, "4992", "128 + 64 + 512 + 4288"},
	}
	for _, tc := range tests {
		for _, r := range []int64{0, 17, 31} {
			c := tc.field(regionCounts(t, rep, r, tc.region))
			if got := c.Exact(); got != tc.value {
				t.Errorf("rank %d %s: got %s, want %s (%s)", r, tc.region, got, tc.value, tc.why)
			}
		}
	}
	update := regionCounts(t, rep, 0, "update")
	if got, want := update.Flop.Formula.String(), "BS*N^2/2 + 3*BS*N/2"; got != want {
		t.Errorf("update flop formula = %s, want %s", got, want)
	}
	var hoisted []string
	for _, r := range update.Refs {
		if r.Hoisted != "" {
			hoisted = append(hoisted, r.Text+" out of "+r.Hoisted+": "+r.Count.Exact())
		}
	}
	if diff := cmp.Diff([]string{"fac[i] out of k: 64"}, hoisted); diff != "" {
		t.Errorf("hoisted references (-want +got):\n%s", diff)
	}
	bcast := regionCounts(t, rep, 5, "broadcast").Collectives
	if len(bcast) != 1 || bcast[0].Count.Exact() != "64" || bcast[0].Bytes.Exact() != "33280" || bcast[0].Root != "floor(j / BS)" {
		t.Errorf("broadcast = %+v, want 64 bcasts of 520 bytes from floor(j / BS)", bcast)
	}
}

// TestMessageCounts checks point-to-point traffic per rank, peers that are
// none included.
func TestMessageCounts(t *testing.T) {
	type msg struct {
		Kind   string
		Peer   int64
		Count  string
		Bytes  string
		Region string
	}
	tests := []struct {
		example, settings string
		rank              int64
		want              []msg
	}{
		{"pingpong", "n=8 reps=3", 0, []msg{
			{"send", 1, "3", "192", "round trips"}, {"recv", 1, "3", "192", "round trips"}}},
		{"pingpong", "n=8 reps=3 P=3", 2, nil},
		{"stencil1d", "n=10 iters=3 P=4", 0, []msg{
			{"send", 3, "3", "24", "halo exchange"}, {"recv", 1, "3", "24", "halo exchange"},
			{"send", 1, "3", "24", "halo exchange"}, {"recv", 3, "3", "24", "halo exchange"}}},
		{"wave", "sweeps=2 cells=4 Px=3 Py=2", 0, []msg{
			{"send", 1, "2", "64", "send"}, {"send", 3, "2", "64", "send"}}},
		{"wave", "sweeps=2 cells=4 Px=3 Py=2", 5, []msg{
			{"recv", 4, "2", "64", "receive"}, {"recv", 2, "2", "64", "receive"}}},
		{"comms3", "n=4 reps=2 P=4", 1, []msg{
			{"send", peerVaries, "6", "192", "all to all others"}, {"recv", peerVaries, "6", "192", "all to all others"}}},
	}
	for _, tc := range tests {
		t.Run(tc.example+" "+tc.settings, func(t *testing.T) {
			k := loadKernel(t, tc.example, exampleSource(t, tc.example), parseSetting(t, tc.settings))
			rep, err := Analyze(k, rankOptions(tc.rank))
			if err != nil {
				t.Fatal(err)
			}
			var got []msg
			for _, reg := range rep.Classes[0].Regions {
				for _, m := range reg.Counts.Messages {
					got = append(got, msg{m.Kind, m.Rank, m.Count.Exact(), m.Bytes.Exact(), reg.Name})
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("messages of rank %d (-want +got):\n%s", tc.rank, diff)
			}
		})
	}
}

// TestFormulaTransfer checks that a closed form found at one size gives
// the exact count at another: the formula of a nest analysed at a huge
// size must equal the oracle's walk at small sizes (no decision in these
// kernels depends on the size's value).
func TestFormulaTransfer(t *testing.T) {
	for _, name := range []string{"matmul", "triad", "poly2"} {
		t.Run(name, func(t *testing.T) {
			huge := analyzeSource(t, name, exampleSource(t, name), sizeSetting(name, hugeSize(name)))
			total := &huge.Classes[0].Total
			for _, small := range []string{"1", "2", "7"} {
				setting := sizeSetting(name, small)
				k := loadKernel(t, name, exampleSource(t, name), parseSetting(t, setting))
				want, _, err := newOracleProgram(k).run(0)
				if err != nil {
					t.Fatal(err)
				}
				env := symbolEnv(k, 0)
				sum := withTotal(want)["(total)"]
				for _, c := range []struct {
					what string
					got  Count
					want *big.Rat
				}{
					{"iterations", total.Iterations, sum.Iterations},
					{"flop", total.Flop, sum.Flop},
					{"loads", total.Loads, sum.Loads},
					{"stores", total.Stores, sum.Stores},
					{"madd pairs", total.MaddPairs, sum.MaddPairs},
				} {
					if !c.got.Symbolic {
						t.Errorf("%s: %s is not a closed form", c.what, c.got.Formula)
						continue
					}
					v, err := c.got.Formula.Eval(env)
					if err != nil || v.Cmp(c.want) != 0 {
						t.Errorf("%s -D %s: formula %s gives %v (%v), the walk counts %s", c.what, setting, c.got.Formula, v, err, c.want.RatString())
					}
				}
			}
		})
	}
}

// hugeSize is the size an example's closed forms are found at: 10^12, or
// 10^6 for matmul, whose three N×N arrays must fit 2^63 bytes.
func hugeSize(name string) string {
	if name == "matmul" {
		return "1_000_000"
	}
	return "1_000_000_000_000"
}

// sizeSetting sets an example's size parameter to size.
func sizeSetting(name, size string) string {
	if name == "poly2" {
		return "k=3 n=" + size
	}
	return "N=" + size
}

// TestAnalyzeErrors checks that bad requests get clear errors. (A nest
// that must be enumerated past maxEnumerated also gets one, but only after
// about 16 s of enumeration on a 2-core machine: too slow for a unit test.)
func TestAnalyzeErrors(t *testing.T) {
	tests := []struct {
		name, src, settings string
		rank                int64
		want                string
	}{
		{"rank out of range", "kernel k() on P = 4 ranks {\n  barrier\n}", "", 4, "rank 4 does not exist: kernel k has 4 ranks (0 to 3)"},
		// A peer outside the ranks is an error on a rank where its
		// statement runs (guards that keep it from running are fine:
		// TestOracleTestdata/guardedpeers.spmd), with both ways out.
		{"peer past the last rank", "kernel k() on P = 4 ranks {\n  array b[2]: f64\n  if rank < P {\n    send b[0:2] to rank + 1\n  }\n}", "", everyRank,
			"k.spmd:4:20: peer rank + 1 is 4 on rank 3, where the statement runs, but the ranks are 0 to 3; guard the statement with 'if rank + 1 < P { … }'" +
				" so that it runs only on ranks that have the peer (a pipeline), or use a periodic form such as (rank + 1) % P (a ring), or none"},
		{"peer before the first rank", "kernel k() on P = 4 ranks {\n  array b[2]: f64\n  if rank < P - 1 {\n    recv b[0:2] from rank - 2\n  }\n}", "", everyRank,
			"k.spmd:4:22: peer rank - 2 is -2 on rank 0, where the statement runs, but the ranks are 0 to 3; guard the statement with 'if rank - 2 >= 0 { … }'"},
		{"let peer under the wrong guard", "kernel k() on P = 4 ranks {\n  array b[2]: f64\n  let next = rank + 1\n  if rank > 0 {\n    send b[0:2] to next\n  }\n}", "", everyRank,
			"k.spmd:5:20: peer next is 4 on rank 3, where the statement runs, but the ranks are 0 to 3; guard the statement with 'if next < P { … }'" +
				" so that it runs only on ranks that have the peer (a pipeline), or use a periodic form such as next % P (a ring), or none"},
		{"loop guard that reaches the last rank", "kernel k() on P = 4 ranks {\n  array b[2]: f64\n  for s in 0..P {\n    if rank == s {\n      send b[0:2] to rank + 1\n    }\n  }\n}", "", everyRank,
			"k.spmd:5:22: peer rank + 1 is 4 on rank 3, where the statement runs"},
		{"a data branch runs sometimes", "kernel k() on P = 4 ranks {\n  array b[2]: f64\n  if b[0] > 0.0 prob 0.25 {\n    send b[0:2] to rank + 1\n  }\n}", "", everyRank,
			"k.spmd:4:20: peer rank + 1 is 4 on rank 3, where the statement runs"},
		{"peer that varies in a loop", "kernel k() on P = 4 ranks {\n  array b[2]: f64\n  for i in 1..3 {\n    if rank < P {\n      send b[0:2] to rank + i\n    }\n  }\n}", "", everyRank,
			"k.spmd:5:22: peer rank + i is 4 on rank 2, where the statement runs"},
		{"only the rank asked for is checked", "kernel k() on P = 4 ranks {\n  array b[2]: f64\n  send b[0:2] to (rank + 1) % P\n  if rank < P {\n    send b[0:2] to rank + 1\n  }\n}", "", 3,
			"k.spmd:5:20: peer rank + 1 is 4 on rank 3, where the statement runs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := loadKernel(t, "k.spmd", []byte(tc.src), parseSetting(t, tc.settings))
			_, err := Analyze(k, rankOptions(tc.rank))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestRankClasses checks which ranks share a class: ranks that make the
// same decisions, or whose counts are equal, are reported together.
func TestRankClasses(t *testing.T) {
	tests := []struct {
		example, settings string
		want              []string
	}{
		{"stencil1d", "n=10 iters=3 P=4", []string{"0-3"}},
		// Ranks 2 and 3 have no partner and do nothing.
		{"pingpong", "n=8 reps=3 P=4", []string{"0", "1", "2-3"}},
		// Every rank of a 3×3 wave receives and sends through a different
		// set of statements (corners, edges, interior).
		{"wave", "sweeps=2 cells=4 Px=3 Py=3", []string{"0", "1", "2", "3", "4", "5", "6", "7", "8"}},
		// Interior ranks of a 4×3 halo exchange are alike; the left and
		// right columns also pack or unpack only one side.
		{"halo2d", "nx=4 ny=3 iters=2 Px=4 Py=3", []string{"0", "1-2", "3", "4", "5-6", "7", "8", "9-10", "11"}},
	}
	for _, tc := range tests {
		t.Run(tc.example, func(t *testing.T) {
			rep := analyzeSource(t, tc.example, exampleSource(t, tc.example), tc.settings)
			var got []string
			for _, cl := range rep.Classes {
				got = append(got, cl.Ranks.String())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("classes (-want +got):\n%s", diff)
			}
		})
	}
}

// everyRank in a test table means the zero Options: every rank.
const everyRank = -1

// rankOptions returns the Options that analyse rank r alone, or every rank
// for everyRank.
func rankOptions(r int64) Options {
	if r == everyRank {
		return Options{}
	}
	return Options{OnlyRank: &r}
}
