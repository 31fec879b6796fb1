package calibrate

import (
	"context"
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeSettler returns a settler whose core probes return probes in turn
// (the last one ever after), with no copy probe, and whose sleeps only add
// up.
func fakeSettler(budget time.Duration, probes ...time.Duration) (*settler, *time.Duration) {
	samples := make([]sample, len(probes))
	for i, p := range probes {
		samples[i] = sample{core: p}
	}
	return fakeSamples(budget, samples...)
}

// fakeSamples is fakeSettler with both probes given.
func fakeSamples(budget time.Duration, samples ...sample) (*settler, *time.Duration) {
	slept := new(time.Duration)
	i := 0
	return &settler{
		probe: func() sample {
			t := samples[min(i, len(samples)-1)]
			i++
			return t
		},
		sleep: func(ctx context.Context, d time.Duration) error {
			*slept += d
			return ctx.Err()
		},
		now:    func() time.Time { return time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC).Add(*slept) },
		budget: budget,
	}, slept
}

// TestSettlerAround checks settling around one program: the reference is
// the fastest probe; a slow host is waited for up to the budget and then
// measured all the same; a program during which the host slowed runs
// once more; the record counts each.
func TestSettlerAround(t *testing.T) {
	const ms = time.Millisecond
	tests := []struct {
		name   string
		probes []time.Duration // the first four make the reference
		runs   int             // calls of measure
		rec    settleRecord
	}{
		{"steady", []time.Duration{10 * ms}, 1,
			settleRecord{Programs: 1, Reference: 10 * ms}},
		{"slow, then settled", []time.Duration{10 * ms, 10 * ms, 10 * ms, 10 * ms, 15 * ms, 15 * ms, 10 * ms}, 1,
			settleRecord{Programs: 1, Waited: 1, WaitedFor: 2 * time.Second, Reference: 10 * ms}},
		{"never settles", []time.Duration{10 * ms, 10 * ms, 10 * ms, 10 * ms, 15 * ms}, 1,
			settleRecord{Programs: 1, Waited: 1, WaitedFor: 3 * time.Second, Unsettled: 1, Reference: 10 * ms}},
		{"slowed while it ran", []time.Duration{10 * ms, 10 * ms, 10 * ms, 10 * ms, 10 * ms, 15 * ms, 10 * ms, 10 * ms}, 2,
			settleRecord{Programs: 1, Remeasured: 1, Reference: 10 * ms}},
		{"within the band", []time.Duration{10 * ms, 10 * ms, 10 * ms, 10 * ms, 10*ms + 900*time.Microsecond}, 1,
			settleRecord{Programs: 1, Reference: 10 * ms}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := fakeSettler(3*time.Second, tt.probes...)
			runs := 0
			if err := s.around(context.Background(), func() error { runs++; return nil }); err != nil {
				t.Fatal(err)
			}
			if runs != tt.runs {
				t.Errorf("measure ran %d times, want %d", runs, tt.runs)
			}
			if diff := cmp.Diff(tt.rec, s.rec); diff != "" {
				t.Errorf("record (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSettlerCopy: a host whose cores run at speed while its copies
// between cores are slow waits for the copies, within their wider band.
func TestSettlerCopy(t *testing.T) {
	const ms, ns = time.Millisecond, time.Nanosecond
	steady := sample{core: 10 * ms, copy: 60 * ns}
	s, slept := fakeSamples(time.Minute, steady, steady, steady, steady,
		sample{core: 10 * ms, copy: 340 * ns}, sample{core: 10 * ms, copy: 300 * ns}, sample{core: 10 * ms, copy: 75 * ns}, steady)
	if err := s.around(context.Background(), func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	want := settleRecord{Programs: 1, Waited: 1, WaitedFor: 2 * time.Second, Reference: 10 * ms, CopyRef: 60 * ns}
	if diff := cmp.Diff(want, s.rec); diff != "" {
		t.Errorf("record (-want +got):\n%s", diff)
	}
	if *slept < 2*time.Second {
		t.Errorf("slept %v, want the two seconds of the wait at least", *slept)
	}
	s, _ = fakeSamples(time.Minute, steady, steady, steady, steady, sample{core: 10 * ms, copy: 340 * ns}, steady)
	var said []string
	s.waiting = func(what string) { said = append(said, what) }
	if err := s.around(context.Background(), func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	if len(said) != 1 || !strings.Contains(said[0], "waiting for the host") {
		t.Errorf("progress %q, want one line saying it waits for the host", said)
	}
	if got := s.rec.String(); !strings.Contains(got, "within 30% of the fastest copy between cores (60ns a round trip)") {
		t.Errorf("%q does not name the copy probe", got)
	}
}

// TestSettlerTotal: a host that never settles makes each program wait
// its budget until the calibration's total is spent; the waits the total
// cut short are counted, and the source says so.
func TestSettlerTotal(t *testing.T) {
	const ms = time.Millisecond
	steady, slow := sample{core: 10 * ms}, sample{core: 20 * ms}
	s, slept := fakeSamples(3*time.Second, steady, steady, steady, steady, slow)
	s.total = 4 * time.Second
	for range 3 {
		if err := s.around(context.Background(), func() error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	// 3 s, then the 1 s left of the total, then none.
	want := settleRecord{Programs: 3, Waited: 2, WaitedFor: 4 * time.Second, Unsettled: 3, Spent: 2, Reference: 10 * ms}
	if diff := cmp.Diff(want, s.rec); diff != "" {
		t.Errorf("record (-want +got):\n%s", diff)
	}
	if *slept != 4*time.Second+200*ms {
		t.Errorf("slept %v, want the 4 s of waiting and the first reference's 0.2 s", *slept)
	}
	if got := s.rec.String(); !strings.Contains(got, "2 waited 4s in all (the calibration's whole wait was spent before 2 of the waits), 3 ran unsettled") {
		t.Errorf("%q does not say the total was spent", got)
	}
}

// TestSettlerDeadline checks the deadline: a wait is cut to what the
// work still to come leaves before it, and a program during which the
// host slowed runs again only when its run fits before it too.
func TestSettlerDeadline(t *testing.T) {
	const ms = time.Millisecond
	steady, slow := sample{core: 10 * ms}, sample{core: 20 * ms}
	tests := []struct {
		name    string
		samples []sample      // probes in turn; the first four make the reference
		slack   time.Duration // the deadline beyond the work to come, at the start
		run     time.Duration // one measurement on the clock
		runs    int
		rec     settleRecord
	}{
		{"wait cut", []sample{steady, steady, steady, steady, slow}, 2500 * ms, 0, 1,
			settleRecord{Programs: 1, Waited: 1, WaitedFor: 2 * time.Second, Unsettled: 1, Cut: 1, Reference: 10 * ms}},
		{"wait within it", []sample{steady, steady, steady, steady, slow, steady}, time.Minute, 0, 1,
			settleRecord{Programs: 1, Waited: 1, WaitedFor: time.Second, Reference: 10 * ms}},
		{"no time to run again", []sample{steady, steady, steady, steady, steady, slow}, 5 * time.Second, 8 * time.Second, 1,
			settleRecord{Programs: 1, Cut: 1, Reference: 10 * ms}},
		{"time to run again", []sample{steady, steady, steady, steady, steady, slow, steady}, 10 * time.Second, 8 * time.Second, 2,
			settleRecord{Programs: 1, Remeasured: 1, AgainFor: 8 * time.Second, Reference: 10 * ms}},
		{"past it", []sample{steady, steady, steady, steady, slow}, -time.Second, 0, 1,
			settleRecord{Programs: 1, Unsettled: 1, Cut: 1, Reference: 10 * ms}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, slept := fakeSamples(3*time.Second, tt.samples...)
			t0 := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
			ran := time.Duration(0)
			s.now = func() time.Time { return t0.Add(*slept + ran) }
			// The work to come is a minute; the deadline leaves slack
			// beyond it, counted from the first reference's 0.2 s.
			s.left = func() time.Duration { return time.Minute }
			s.deadline = t0.Add(200*ms + time.Minute + tt.slack)
			runs := 0
			err := s.around(context.Background(), func() error { runs++; ran += tt.run; return nil })
			if err != nil {
				t.Fatal(err)
			}
			if runs != tt.runs {
				t.Errorf("measure ran %d times, want %d", runs, tt.runs)
			}
			if diff := cmp.Diff(tt.rec, s.rec); diff != "" {
				t.Errorf("record (-want +got):\n%s", diff)
			}
			if got := s.rec.String(); tt.rec.Cut == 1 && !strings.Contains(got, "(the run's deadline cut 1 wait or second run short)") {
				t.Errorf("%q does not say the deadline cut one", got)
			}
		})
	}
}

// TestProgressWorkPace checks the pace of the work to come: the prior
// before a tenth of the work is done, then the work so far (waits left
// out) over its nominal seconds, within 1 and maxPace.
func TestProgressWorkPace(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name          string
		done          float64
		elapsed, wait time.Duration
		pace          float64
	}{
		{"too early to say", 5, 50 * time.Second, 0, priorPace},
		{"as nominal", 50, 50 * time.Second, 0, 1},
		{"slower", 50, 80 * time.Second, 0, 1.6},
		{"waits and second runs left out", 50, 110 * time.Second, 30 * time.Second, 1.6},
		{"faster counts as nominal", 50, 20 * time.Second, 0, 1},
		{"bounded", 50, 500 * time.Second, 0, maxPace},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &progressWork{total: 100, done: tt.done, start: t0,
				now:   func() time.Time { return t0.Add(tt.elapsed) },
				aside: func() time.Duration { return tt.wait }}
			if got := w.pace(); math.Abs(got-tt.pace) > 1e-9 {
				t.Errorf("pace %g, want %g", got, tt.pace)
			}
			want := time.Duration((100 - tt.done) * tt.pace * float64(time.Second))
			if got := w.left(); (got - want).Abs() > time.Millisecond {
				t.Errorf("left %v, want %v", got, want)
			}
		})
	}
}

// TestSettlerStream: a host whose chain runs at speed while a neighbour
// halves its loads and stores (the stream probe × 1.9) waits for the
// stream, within its band of 15 %; the source names the stream probe.
func TestSettlerStream(t *testing.T) {
	const ms = time.Millisecond
	steady := sample{core: 10 * ms, stream: 1200 * time.Microsecond}
	slow := sample{core: 10 * ms, stream: 2280 * time.Microsecond}
	edge := sample{core: 10 * ms, stream: 1380 * time.Microsecond} // × 1.15
	s, slept := fakeSamples(time.Minute, steady, steady, steady, steady, slow, slow, edge, steady)
	if err := s.around(context.Background(), func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	want := settleRecord{Programs: 1, Waited: 1, WaitedFor: 2 * time.Second, Reference: 10 * ms, StreamRef: 1200 * time.Microsecond}
	if diff := cmp.Diff(want, s.rec); diff != "" {
		t.Errorf("record (-want +got):\n%s", diff)
	}
	if *slept < 2*time.Second {
		t.Errorf("slept %v, want the two seconds of the wait at least", *slept)
	}
	// 1.2 ms for 2048 sweeps of 1024 elements: 0.5722 ns an element.
	if got := s.rec.String(); !strings.Contains(got, "within 15% of the fastest load-store stream (0.5722 ns an element)") {
		t.Errorf("%q does not name the stream probe", got)
	}
	// With a copy probe too, the source names both.
	s.rec.CopyRef = 60 * time.Nanosecond
	if got := s.rec.String(); !strings.Contains(got, "within 15% of the fastest load-store stream (0.5722 ns an element) and within 30% of the fastest copy between cores (60ns a round trip)") {
		t.Errorf("%q does not name both probes", got)
	}
}

// TestProbeStreams: the real probe gives a positive time, in the range of
// one sweep's elements at 0.05 to 50 ns each.
func TestProbeStreams(t *testing.T) {
	d := probeStreams()
	per := d.Seconds() / (streamLen * streamReps)
	if !(per > 0.05e-9 && per < 50e-9) {
		t.Errorf("probeStreams: %v, %g s an element", d, per)
	}
}

// TestSettlerErrors: a failed measurement is returned and not retried, a
// cancelled context stops the wait, and a nil settler just measures.
func TestSettlerErrors(t *testing.T) {
	s, _ := fakeSettler(time.Minute, time.Millisecond)
	boom := errors.New("boom")
	runs := 0
	if err := s.around(context.Background(), func() error { runs++; return boom }); !errors.Is(err, boom) || runs != 1 {
		t.Errorf("error %v after %d runs, want boom after 1", err, runs)
	}
	slow, _ := fakeSettler(time.Minute, time.Millisecond, time.Millisecond, time.Millisecond, time.Millisecond, time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := slow.around(ctx, func() error { t.Error("measured with a cancelled context"); return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	var none *settler
	runs = 0
	if err := none.around(context.Background(), func() error { runs++; return nil }); err != nil || runs != 1 {
		t.Errorf("nil settler: error %v, %d runs; want nil and 1", err, runs)
	}
	if newSettler(Tiny) != nil {
		t.Error("the tiny mode settles")
	}
}

// TestSettleNote checks the table's account of settling.
func TestSettleNote(t *testing.T) {
	if got := settleNote(settleRecord{}); got != "" {
		t.Errorf("no settling: %q, want none", got)
	}
	got := settleNote(settleRecord{Programs: 12, Waited: 2, WaitedFor: 7 * time.Second, Unsettled: 1, Remeasured: 1, Reference: 2345 * time.Microsecond})
	for _, want := range []string{"settled before each of 12 programs within 10% of the fastest probe (2.345ms on every core)", "2 waited 7s in all", "1 ran unsettled", "1 ran again"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
}

// TestProbeCores: the probes take time on this host and the chain is not
// folded away (two lengths take different times).
func TestProbeCores(t *testing.T) {
	if d := probeCores(); d <= 0 {
		t.Errorf("probe took %v", d)
	}
	if p := probeHost(); p.core <= 0 || runtime.GOMAXPROCS(0) >= 2 && p.copy <= 0 {
		t.Errorf("host probe %+v", p)
	}
	if chain(3, 1) == chain(4, 1) {
		t.Error("the chain does not depend on its length")
	}
}

// TestProbeCopyBounded: two spinners that cannot run at once (one P) do
// not hang the probe; each try gives up at copyBudget and the probe says
// the copies are slow.
func TestProbeCopyBounded(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	start := time.Now()
	d := probeCopy()
	if took := time.Since(start); took > 3*copyBudget+2*time.Second {
		t.Errorf("the probe took %v on one P", took)
	}
	if d < time.Microsecond {
		t.Errorf("a round trip of %v on one P, want the budget's share (%v)", d, copyBudget/copyTrips)
	}
}

// TestUnsettledMany: the summary warns when more than one benchmark
// program in ten ran unsettled.
func TestUnsettledMany(t *testing.T) {
	for _, tc := range []struct {
		programs, unsettled int
		want                bool
	}{
		{0, 0, false},  // not settled (tiny mode)
		{16, 0, false}, // a quiet host
		{16, 1, false}, // one program in sixteen
		{10, 1, false}, // one in ten: at the line
		{16, 2, true},  // two in sixteen
		{16, 11, true}, // the 22:16 calibration of session 18
		{1, 1, true},   // a one-program run, unsettled
	} {
		if got := unsettledMany(settleRecord{Programs: tc.programs, Unsettled: tc.unsettled}); got != tc.want {
			t.Errorf("%d of %d programs unsettled: warn %v, want %v", tc.unsettled, tc.programs, got, tc.want)
		}
	}
}
