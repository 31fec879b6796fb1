package validate

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeHost is a host whose witnesses give a fixed sequence of
// measured/predicted ratios (core, copy), one pair per timing, on a clock
// that only sleeping moves.
type fakeHost struct {
	ratios [][2]float64
	timed  int
	clock  time.Time
	slept  time.Duration
}

func (h *fakeHost) settler(budget time.Duration) settler {
	return settler{
		measure: func(context.Context) (*WitnessTimes, error) {
			h.timed++
			if h.timed > len(h.ratios) {
				return nil, errors.New("no more timings")
			}
			r := h.ratios[h.timed-1]
			return &WitnessTimes{Core: r[0], Copy: r[1] * 2, CorePredicted: 1, CopyPredicted: 2}, nil
		},
		sleep: func(_ context.Context, d time.Duration) error {
			h.clock = h.clock.Add(d)
			h.slept += d
			return nil
		},
		now:    func() time.Time { return h.clock },
		budget: budget,
	}
}

func TestInSettleBands(t *testing.T) {
	for _, tc := range []struct {
		core, copy float64
		want       bool
	}{
		{1, 1, true},
		{1.149, 0.701, true}, // both at their bands' edges
		{1.16, 1, false},     // a core slowed by a neighbour
		{1, 3.5, false},      // a copy in a slow spell
		{0.84, 1, false},     // a core faster than the table
		{1, 0.69, false},     // a copy faster than the table
		{0, 1, false},        // a failed timing
		{1, -1, false},       // nonsense
		{1.1, 1.29, true},    // within both
		{1.14, 1.31, false},  // the copy just out
	} {
		w := &WitnessTimes{Core: tc.core, Copy: tc.copy, CorePredicted: 1, CopyPredicted: 1}
		if got := inSettleBands(w); got != tc.want {
			t.Errorf("inSettleBands(core %g, copy %g) = %v, want %v", tc.core, tc.copy, got, tc.want)
		}
	}
	if inSettleBands(nil) {
		t.Errorf("inSettleBands(nil) = true")
	}
}

func TestSettle(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ratios [][2]float64
		budget time.Duration
		ok     bool
		waited time.Duration
		timed  int
	}{
		{"settled at once", [][2]float64{{1, 1}}, 10 * time.Second, true, 0, 1},
		{"a slow spell of two timings", [][2]float64{{1, 3.5}, {1, 3.4}, {1.02, 0.95}}, 10 * time.Second, true, 2 * time.Second, 3},
		{"a slow core", [][2]float64{{1.8, 1}, {1.01, 1}}, 10 * time.Second, true, time.Second, 2},
		{"a failed timing waits like a slow one", [][2]float64{}, 3 * time.Second, false, 3 * time.Second, 4},
		{"the budget runs out", [][2]float64{{1, 4}, {1, 4}, {1, 4}, {1, 4}, {1, 1}}, 3 * time.Second, false, 3 * time.Second, 4},
		{"no budget for a wait", [][2]float64{{1, 4}, {1, 1}}, 500 * time.Millisecond, false, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &fakeHost{ratios: tc.ratios}
			w, ok, waited, err := h.settler(tc.budget).settle(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if ok != tc.ok || waited != tc.waited || h.timed != tc.timed || h.slept != waited {
				t.Errorf("settle: ok %v, waited %v, %d timings, slept %v; want ok %v, waited %v, %d timings", ok, waited, h.timed, h.slept, tc.ok, tc.waited, tc.timed)
			}
			if ok && !inSettleBands(w) {
				t.Errorf("settle returned %+v as settled", w)
			}
		})
	}
}

func TestSettleCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	h := &fakeHost{ratios: [][2]float64{{1, 4}, {1, 4}, {1, 4}}}
	s := h.settler(time.Minute)
	s.sleep = func(context.Context, time.Duration) error { cancel(); return context.Canceled }
	if _, _, _, err := s.settle(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("settle on a cancelled context: %v, want context.Canceled", err)
	}
}

func TestMeasureSettled(t *testing.T) {
	for _, tc := range []struct {
		name     string
		ratios   [][2]float64 // the witnesses' timings in order
		measures []bool       // the first argument of every measurement
		want     SettleRecord
	}{
		{
			name:     "settled before and after",
			ratios:   [][2]float64{{1, 1}, {1, 1.1}},
			measures: []bool{true},
			want:     SettleRecord{Settled: true, After: true},
		},
		{
			name:     "waits, then measures",
			ratios:   [][2]float64{{1, 3.5}, {1, 1}, {1, 1}},
			measures: []bool{true},
			want:     SettleRecord{Waited: 1, Settled: true, After: true},
		},
		{
			name:     "the host slows during the measurement: measured again",
			ratios:   [][2]float64{{1, 1}, {1, 3.5}, {1, 3.4}, {1, 1}, {1, 1}},
			measures: []bool{true, false},
			want:     SettleRecord{Waited: 1, Settled: true, After: true, Remeasured: true},
		},
		{
			name:     "slowed during both measurements: the second is kept",
			ratios:   [][2]float64{{1, 1}, {1, 3.5}, {1, 1}, {1.5, 1}},
			measures: []bool{true, false},
			want:     SettleRecord{Settled: true, After: false, Remeasured: true},
		},
		{
			name:     "never settled: measured once, not again",
			ratios:   [][2]float64{{1, 4}, {1, 4}, {1, 4}, {1, 4}},
			measures: []bool{true},
			want:     SettleRecord{Waited: 2, Settled: false, After: false},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &fakeHost{ratios: tc.ratios}
			var c Case
			var got []bool
			var err error
			c.Settle, c.Witness, err = h.settler(2500*time.Millisecond).measureSettled(context.Background(), func(first bool) error {
				got = append(got, first)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.measures, got); diff != "" {
				t.Errorf("measurements (-want +got):\n%s", diff)
			}
			if c.Settle == nil || c.Witness == nil {
				t.Fatalf("the case has no settle record or witness: %+v", c)
			}
			rec := *c.Settle
			rec.WitnessAfter = nil
			if diff := cmp.Diff(tc.want, rec); diff != "" {
				t.Errorf("settle record (-want +got):\n%s", diff)
			}
			if c.Settle.WitnessAfter == nil {
				t.Errorf("no witness timing after the measurement")
			}
			if h.timed != len(tc.ratios) {
				t.Errorf("%d witness timings, want %d", h.timed, len(tc.ratios))
			}
		})
	}
}

// TestSuiteWait: a host that never settles makes each case wait its
// budget until the suite's total is spent; the cases whose budget the
// total cut are marked Spent.
func TestSuiteWait(t *testing.T) {
	never := make([][2]float64, 100)
	for i := range never {
		never[i] = [2]float64{1, 4}
	}
	h := &fakeHost{ratios: never}
	wait := &suiteWait{left: 3500 * time.Millisecond}
	var waited []float64
	var spent []bool
	for range 4 {
		s := h.settler(wait.budget(2500 * time.Millisecond))
		rec, _, err := s.measureSettled(context.Background(), func(bool) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		wait.spend(rec, s.budget, 2500*time.Millisecond)
		waited, spent = append(waited, rec.Waited), append(spent, rec.Spent)
	}
	// 2.5 s a case: 2 s of waiting (a third step would pass it); then
	// 1.5 s left (cut): 1 s; then 0.5 s, less than a step: none.
	if diff := cmp.Diff([]float64{2, 1, 0, 0}, waited); diff != "" {
		t.Errorf("seconds waited per case (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]bool{false, true, true, true}, spent); diff != "" {
		t.Errorf("cases marked spent (-want +got):\n%s", diff)
	}
	if h.slept != 3*time.Second {
		t.Errorf("slept %v in all, want 3s", h.slept)
	}
	wait.spend(nil, 0, time.Second) // a case that was cancelled: nothing to take
}

func TestMeasureSettledFailure(t *testing.T) {
	h := &fakeHost{ratios: [][2]float64{{1, 1}}}
	var c Case
	var err error
	c.Settle, c.Witness, err = h.settler(time.Second).measureSettled(context.Background(), func(bool) error { return errors.New("build failed") })
	if err == nil || err.Error() != "build failed" {
		t.Fatalf("measureSettled: %v, want the measurement's error", err)
	}
	if c.Settle == nil || !c.Settle.Settled || c.Settle.WitnessAfter != nil {
		t.Errorf("settle record of a failed case: %+v", c.Settle)
	}
}

func TestSummarizeSettle(t *testing.T) {
	mk := func(e float64, rec *SettleRecord) Case {
		return Case{Total: &Comparison{Error: ptr(e)}, Settle: rec}
	}
	cases := []Case{
		mk(0.02, &SettleRecord{Settled: true, After: true}),
		mk(-0.3, &SettleRecord{Waited: 3, Settled: true, After: true, Remeasured: true}),
		mk(0.5, &SettleRecord{Waited: 10, Settled: false, After: false}),
		mk(0.1, &SettleRecord{Settled: true, After: false}),
		mk(0.4, nil),
	}
	cases[3].Settle.Spent = true
	want := &SettleSummary{Cases: 4, Waited: 2, Seconds: 13, Unsettled: 2, Remeasured: 1, Spent: 1, Settled: Summarize(cases[:2])}
	if diff := cmp.Diff(want, summarizeSettle(cases), approx); diff != "" {
		t.Errorf("summarizeSettle (-want +got):\n%s", diff)
	}
	if summarizeSettle(cases[4:]) != nil {
		t.Errorf("cases without settling have a settle summary")
	}
}
