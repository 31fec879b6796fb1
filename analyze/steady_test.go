package analyze

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfc/analyze/cache"
)

// TestSteadyState checks the steady state against Kerncraft's layer
// conditions where their assumptions agree (rectangular nests, halos aside)
// and the whole run against the model's totals: a triad that fits a level
// brings in nothing there in steady state, and 4 lines per line of work
// when it streams; a 2-D five-point stencil brings in 2 lines where three
// rows fit the level, and 4 where they do not, its whole run a little more
// for the halo rows; matvec_trans keeps b and c in L2 (and writes c back
// from L1 once per pass).
func TestSteadyState(t *testing.T) {
	h, err := cache.ParseHierarchy(conflictHierarchy)
	if err != nil {
		t.Fatal(err)
	}
	type level struct {
		Level        string
		Whole        float64
		Steady       float64
		SteadyWrites float64
	}
	cases := []struct {
		kernel string
		defs   []string
		want   []level
	}{
		{"kc_triad", []string{"N=1000"}, []level{{"L1", 4, 0, 0}, {"L2", 4, 0, 0}}},
		{"kc_triad", []string{"N=100000"}, []level{{"L1", 4, 4, 1}, {"L2", 4, 4, 1}}},
		{"kc_2d5pt", []string{"M=50", "N=5000"}, []level{{"L1", 4, 4, 1}, {"L2", 2.04, 2, 1}}},
		{"kc_matvec_trans", []string{"M=100", "N=5000"}, []level{{"L1", 3, 3, 1}, {"L2", 1.02, 1, 0}}},
	}
	round := func(x float64) float64 { return float64(int64(x*100+0.5)) / 100 }
	for _, tc := range cases {
		k := loadKerncraft(t, tc.kernel, tc.defs...)
		opts := Options{Cache: h, OnlyRank: new(int64(0))}
		rep, err := Analyze(k, opts)
		if err != nil {
			t.Fatal(err)
		}
		st, err := SteadyState(k, opts, rep, -1)
		if err != nil {
			t.Fatal(err)
		}
		var got []level
		for _, l := range st[0].Levels {
			if l.SteadyLines == nil {
				t.Fatalf("%s %v: no steady state (%s)", tc.kernel, tc.defs, st[0].Why)
			}
			got = append(got, level{l.Level, round(l.Lines), round(*l.SteadyLines), round(*l.SteadyWriteBacks)})
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s %v (-want +got):\n%s", tc.kernel, tc.defs, d)
		}
	}
}

// TestConditionLimits checks the sizes at which layer conditions change,
// on matmul's conditions (docs/counts.md): 72*N + 64 B <= 1 KiB fails at
// N = 24 and holds while N <= 13; 8*N^2 + 16*N B <= 8 KiB holds and breaks
// at N = 32; a condition without a parameter has no limit, and one whose
// formula holds an atom is left alone.
func TestConditionLimits(t *testing.T) {
	k := checkCacheKernel(t, `kernel mm(N = 24) {
  array A[N][N]: f64
  for i in 0..N { A[i][0] = 1.0 }
}`)
	conds := []string{
		"A[i][k], B[k][j], C[i][j] reused across iterations of j (line 22) from L1 while 72*N + 64 B <= 1 KiB: fails (1792 B)",
		"A[i][k] reused across iterations of k (line 24) from L1 while 128 B <= 1 KiB: holds (128 B)",
		"x reused across iterations of i (line 3) from L1 while about [floor(N / 3)]*8 B <= 1 KiB: holds (64 B)",
	}
	got := conditionLimits(k, conds, 1024)
	want := []ConditionLimit{
		{Condition: conds[0], Limits: []string{"holds while N <= 13"}},
		{Condition: conds[1], Holds: true},
		{Condition: conds[2], Holds: true},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	got = conditionLimits(k, []string{"B[k][j] reused across iterations of i (line 21) from L2 while 8*N^2 + 16*N B <= 8 KiB: holds (4992 B)"}, 8192)
	if len(got) != 1 || !cmp.Equal(got[0].Limits, []string{"breaks at N = 32"}) {
		t.Errorf("8*N^2 + 16*N <= 8 KiB: %v, want breaks at N = 32", got)
	}
	for _, s := range []string{"3*N^2/2 - N + 7", "-N + 4", "BS*N^2"} {
		p, ok := parsePoly(s)
		if !ok || p.String() != s {
			t.Errorf("parsePoly(%q) = %v, %v", s, p, ok)
		}
	}
}
