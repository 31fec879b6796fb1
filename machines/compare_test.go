package machines

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// compareTable is a small table whose values the compare tests vary.
func compareTable(t *testing.T, compute, messages string) *Machine {
	t.Helper()
	m, err := Parse("m.yaml", []byte(header+`
compute:
  source: s
`+compute+`
memory:
  source: s
  main_bandwidth: 10GB/s
  write_allocate: true
messages:
  source: s
  model: hockney
`+messages))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCompare sets two tables side by side: quantities by their relative
// change (within and beyond the tolerance), a value only one table has, a
// choice that differs, ranges split alike compared field by field and
// ranges split elsewhere compared by the laws' times at fixed lengths.
func TestCompare(t *testing.T) {
	a := compareTable(t, "  loop: {iteration: 1ns, entry: 2ns, source: s}", `  ranges:
    - {below: 1KiB, t0: 1us, rinf: 1GB/s, source: r}
    - {t0: 2us, rinf: 2GB/s, source: r}
`)
	b := compareTable(t, "  loop: {iteration: 1.03ns, entry: 2.2ns, source: s}\n  clock: {region: 1ns, run: 2ns, source: s}", `  ranges:
    - {below: 1KiB, t0: 1us, rinf: 1GB/s, source: r}
    - {t0: 2us, rinf: 2GB/s, source: r}
`)
	c, err := Compare(a, b, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Difference{}
	for _, d := range c.Values {
		got[d.Key] = d
	}
	near := cmp.Comparer(func(x, y float64) bool { return math.Abs(x-y) < 1e-9 || math.IsInf(x, 0) && x == y })
	for _, want := range []Difference{
		{Key: "compute.loop.iteration", A: "1ns", B: "1.03ns", Change: 0.03, Numeric: true},
		{Key: "compute.loop.entry", A: "2ns", B: "2.2ns", Change: 0.1, Numeric: true, Beyond: true},
		{Key: "compute.clock.region", B: "1ns", Beyond: true},
		{Key: "memory.main_bandwidth", A: "10GB/s", B: "10GB/s", Numeric: true},
		{Key: "messages.ranges[0].t0", A: "1us", B: "1us", Numeric: true},
		{Key: "messages at 64KiB", A: "34.77us", B: "34.77us", Numeric: true},
	} {
		if diff := cmp.Diff(want, got[want.Key], near); diff != "" {
			t.Errorf("%s (-want +got):\n%s", want.Key, diff)
		}
	}
	if _, ok := got["description"]; ok {
		t.Errorf("descriptions are compared; they say where a table came from")
	}
	if within, numeric := c.Agree(); numeric < 10 || within != numeric-1 {
		t.Errorf("Agree = %d of %d, want all but compute.loop.entry", within, numeric)
	}

	// Ranges split elsewhere: the splits differ, and the laws are compared
	// by their times (equal below 1 KiB, 40 % apart at 64 KiB).
	b = compareTable(t, "  loop: {iteration: 1ns, entry: 2ns, source: s}", `  ranges:
    - {below: 2KiB, t0: 1us, rinf: 1GB/s, source: r}
    - {t0: 2us, rinf: 4GB/s, source: r}
`)
	if c, err = Compare(a, b, 0.05); err != nil {
		t.Fatal(err)
	}
	got = map[string]Difference{}
	for _, d := range c.Values {
		got[d.Key] = d
	}
	for _, want := range []Difference{
		{Key: "messages.ranges (split at)", A: "1KiB", B: "2KiB", Beyond: true},
		{Key: "messages at 8B", A: "1.008us", B: "1.008us", Numeric: true},
		{Key: "messages at 64KiB", A: "34.77us", B: "18.38us", Change: (18.384e-6 - 34.768e-6) / 34.768e-6, Numeric: true, Beyond: true},
	} {
		if diff := cmp.Diff(want, got[want.Key], cmp.Comparer(func(x, y float64) bool { return math.Abs(x-y) < 1e-3 })); diff != "" {
			t.Errorf("%s (-want +got):\n%s", want.Key, diff)
		}
	}
	if _, ok := got["messages.ranges[0].t0"]; ok {
		t.Errorf("ranges split elsewhere are compared field by field")
	}
}
