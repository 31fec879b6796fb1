package analyze

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Kernels for the budgets. noRank never reads the rank; oddRanks decides on
// rank ^ 1 (even ranks), which is no affine comparison, and evenRanks on
// rank % 2, which is affine on ranges of one or two ranks; blocks on
// floor and ceil of quotients, constant on blocks of ranks; rankTrip's loop runs rank times,
// so every rank's counts differ; nonAffine enumerates N² iterations whose
// condition reads the rank.
const (
	noRankSrc = `kernel norank(N = 100) on P = 1_000_000_000 ranks {
  array a[N]: f64
  region "r" {
    for i in 0..N {
      a[i] = a[i] + 1.0
    }
  }
}`
	oddRanksSrc = `kernel odd(N = 100) on P = 1000 ranks {
  array a[N]: f64
  region "r" {
    if rank ^ 1 > rank {
      for i in 0..N {
        a[i] = a[i] + 1.0
      }
    }
  }
}`
	evenRanksSrc = `kernel even(N = 100) on P = 1000 ranks {
  array a[N]: f64
  region "r" {
    if rank % 2 == 0 {
      for i in 0..N {
        a[i] = a[i] + 1.0
      }
    }
  }
}`
	blocksSrc = `kernel blocks(N = 100) on P = 1_000_000 ranks {
  array a[N]: f64
  let block = floor(rank / 250_000)
  region "r" {
    if block == 1 || ceil((rank + 1) / 500_000) == 3 {
      for i in 0..N {
        a[i] = a[i] + 1.0
      }
    }
  }
}`
	rankTripSrc = `kernel trip() on P = 1000 ranks {
  array a[4]: f64
  region "r" {
    for i in 0..rank {
      a[0] = a[0] + 1.0
    }
  }
}`
	nonAffineSrc = `kernel nonaffine(N = 400) on P = 2 ranks {
  array a[N]: f64
  region "r" {
    for i in 0..N {
      for j in 0..N {
        if (i*j + rank) % 3 == 0 {
          a[j] = a[j] + 1.0
        }
      }
    }
  }
}`
)

// TestRankRanges checks that ranks shown alike by affine comparisons of the
// rank join their class a range at a time: within a budget of a few ranks
// taken one by one, a billion ranks are classified, and the classes are
// the ranges the decisions make. (TestOracleTestdata checks every rank of
// rankranges.spmd and gridranges.spmd against the brute-force walk.)
func TestRankRanges(t *testing.T) {
	tests := []struct {
		name, file, src, settings string
		maxRanks                  int64
		want                      []string // the classes' rank sets
	}{
		{name: "a kernel that never reads the rank", src: noRankSrc, maxRanks: 1, want: []string{"0-999999999"}},
		{name: "a pipeline", file: "../examples/pipeline.spmd", settings: "P=1_000_000_000", maxRanks: 10,
			want: []string{"0", "1-999999998", "999999999"}},
		{name: "comparisons, lets and peers", file: "testdata/oracle/rankranges.spmd", settings: "P=1_000_000", maxRanks: 20},
		{name: "blocks of ranks", src: blocksSrc, maxRanks: 10, want: []string{"0-249999,500000-999999", "250000-499999"}},
		{name: "a ring", file: "../examples/stencil1d.spmd", settings: "P=1_000_000_000", maxRanks: 4,
			want: []string{"0-999999999"}},
		{name: "a grid, row by row", file: "testdata/oracle/gridranges.spmd", settings: "Px=1000 Py=1000", maxRanks: 10_000},
		{name: "a halo exchange on a grid", file: "../examples/halo2d.spmd", settings: "Px=1000 Py=1000", maxRanks: 10_000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := []byte(tc.src)
			name := "k.spmd"
			if tc.file != "" {
				var err error
				if src, err = os.ReadFile(tc.file); err != nil {
					t.Fatal(err)
				}
				name = tc.file
			}
			k := loadKernel(t, name, src, parseSetting(t, tc.settings))
			start := time.Now()
			rep, err := Analyze(k, Options{MaxRanks: tc.maxRanks, rangesFrom: 1})
			if err != nil {
				t.Fatalf("Analyze with MaxRanks %d: %v", tc.maxRanks, err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("Analyze took %v", d)
			}
			var total int64
			var got []string
			for _, c := range rep.Classes {
				total += c.Ranks.Len()
				got = append(got, c.Ranks.String())
			}
			if total != k.NumRanks() {
				t.Errorf("the classes hold %d ranks, want %d", total, k.NumRanks())
			}
			if tc.want != nil {
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("classes (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestBudgets checks that analyses past their budgets end in errors that
// name the statement and the flag that raises the limit, and that the
// budgets are what bounds them (a larger one lets the analysis finish).
func TestBudgets(t *testing.T) {
	tests := []struct {
		name, src string
		opts      Options
		want      []string // substrings of the error; none: no error
	}{
		{"ranks that differ rank by rank", oddRanksSrc, Options{MaxRanks: 100}, []string{
			"k.spmd:4:8: kernel odd has 1000 ranks, and they cannot all be shown alike in ranges: a rank-dependent decision is not an affine comparison of the rank;",
			"after 100 ranks taken one by one (up to rank 99) the budget is spent; raise it with --max-ranks, or count one rank with perfc count --rank R"}},
		{"the same within the budget", oddRanksSrc, Options{MaxRanks: 1000}, nil},
		{"more ranges than the budget", oddRanksSrc, Options{MaxRanks: 2}, []string{"after 2 ranks taken one by one (up to rank 1)"}},
		{"a decision that changes from rank to rank", evenRanksSrc, Options{MaxRanks: 100}, []string{
			"k.spmd:4:8: kernel even has 1000 ranks, and they cannot all be shown alike in ranges: a rank-dependent decision changes from one rank to the next (as from rank ",
			"after 100 ranks taken one by one (up to rank 99)"}},
		{"counts that depend on the rank", rankTripSrc, Options{MaxRanks: 10}, []string{
			"kernel trip has 1000 ranks, and they cannot all be shown alike in ranges: the ranks' counts differ in ways only an analysis of each rank shows",
			"raise it with --max-ranks"}},
		{"enumeration past its budget", nonAffineSrc, Options{MaxEnumerated: 50_000}, []string{
			"k.spmd:5:7: cannot count this loop nest in closed form, and enumerating it would pass the budget of 50000 iterations",
			"make its bounds and conditions affine in the loop indices, or raise the budget with --max-enumerated"}},
		{"the budget counts every rank's enumeration", nonAffineSrc, Options{MaxEnumerated: 300_000}, []string{
			"enumerating it would pass the budget of 300000 iterations (this loop alone runs 400 times here, on rank 1;"}},
		{"enumeration within the budget", nonAffineSrc, Options{MaxEnumerated: 1_000_000}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := loadKernel(t, "k.spmd", []byte(tc.src), nil)
			tc.opts.rangesFrom = 1
			_, err := Analyze(k, tc.opts)
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("Analyze: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Analyze succeeded, want an error containing %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\ndoes not contain %q", err, w)
				}
			}
		})
	}
}

// TestTraceSetBounded checks that an enumeration whose condition reads the
// rank stops recording which evaluations it traced once the rank has
// traced maxTraced of them: the set grew by a key per iteration past the
// limit (about 1 GB per rank at 2 million iterations).
func TestTraceSetBounded(t *testing.T) {
	k := loadKernel(t, "k.spmd", []byte(nonAffineSrc), nil)
	p := newPlan(k)
	ra := newRankAnalysis(p, 0)
	if _, err := ra.run(); err != nil {
		t.Fatal(err)
	}
	if !ra.untraceable {
		t.Errorf("rank 0 is traceable after enumerating 160,000 rank-dependent conditions; want untraceable past %d", maxTraced)
	}
	if n := len(ra.traceSeen.keys); n > maxTraced {
		t.Errorf("the trace set holds %d keys, want at most maxTraced = %d", n, maxTraced)
	}
}
