package costmodel

import (
	"strings"
	"testing"

	"perfc/analyze"
)

// TestPredictEveryRank: the zero analyze.Options count every rank, so a
// kernel where rank r loops N·r times is priced at its slowest rank, not
// at rank 0's 0 s; counts of one rank are refused.
func TestPredictEveryRank(t *testing.T) {
	const src = `kernel k(N = 1000) on P = 4 ranks {
  array a[N * P]: f64
  for i in 0..N * rank {
    a[i] = a[i] * 2.0
  }
}
`
	m := toyMachineTable(t)
	k := checkSource(t, "k.spmd", src)
	rep, err := analyze.Analyze(k, analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pred, err := Predict(k, rep, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if pred.Total <= 0 || pred.Slowest.Rank != 3 {
		t.Errorf("predicted %g s, slowest rank %d; want > 0 s on rank 3", pred.Total, pred.Slowest.Rank)
	}
	one, err := analyze.Analyze(k, analyze.Options{OnlyRank: new(int64(0))})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Predict(k, one, m, Options{})
	if want := "the counts of kernel k cover 1 of its 4 ranks"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Predict of rank 0's counts: %v, want an error containing %q", err, want)
	}
}
