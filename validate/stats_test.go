package validate

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"perfc/codegen/spmd"
)

// approx compares figures to 1e-12, NaN equal to NaN.
var approx = cmp.Options{cmpopts.EquateApprox(0, 1e-12), cmpopts.EquateNaNs()}

func TestMedian(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		want float64
	}{
		{"none", nil, math.NaN()},
		{"one", []float64{3}, 3},
		{"odd, unsorted", []float64{5, 1, 3}, 3},
		{"even: mean of the middle two", []float64{4, 1, 3, 2}, 2.5},
		{"negative and repeated", []float64{-1, -1, 2, 7, -3}, -1},
	}
	for _, tt := range tests {
		in := append([]float64(nil), tt.xs...)
		if diff := cmp.Diff(tt.want, Median(tt.xs), approx); diff != "" {
			t.Errorf("%s: Median(%v) (-want +got):\n%s", tt.name, tt.xs, diff)
		}
		if diff := cmp.Diff(in, tt.xs); diff != "" {
			t.Errorf("%s: Median changed its argument:\n%s", tt.name, diff)
		}
	}
}

func TestShareWithin(t *testing.T) {
	errs := []float64{0.05, -0.10, 0.149, -0.15, 0.2, -0.5, 0.30, 0.0}
	tests := []struct {
		bound float64
		want  float64
	}{
		{0.10, 3.0 / 8}, // 0.05, -0.10 (a bound is met with equality), 0
		{0.15, 5.0 / 8}, // and 0.149, -0.15
		{0.20, 6.0 / 8}, // and 0.2
		{0.0, 1.0 / 8},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, ShareWithin(errs, tt.bound), approx); diff != "" {
			t.Errorf("ShareWithin(%g) (-want +got):\n%s", tt.bound, diff)
		}
	}
	if got := ShareWithin(nil, 0.1); !math.IsNaN(got) {
		t.Errorf("ShareWithin of no errors = %g, want NaN", got)
	}
}

func TestErrorSpreadNoisy(t *testing.T) {
	tests := []struct {
		name                    string
		predicted, min, med, mx float64
		wantErr, wantSpread     float64
		wantNoisy               bool
	}{
		{"exact within a wide spread is noisy", 10, 9, 10, 11, 0, 0.2, true},
		{"over by 25 %, spread 10 %", 12.5, 9.5, 10, 10.5, 0.25, 0.1, false},
		{"under by 20 %, spread 40 %", 8, 8, 10, 12, -0.2, 0.4, true},
		{"spread equal to |error| is not noisy", 11, 9.5, 10, 10.5, 0.1, 0.1, false},
		{"nothing measured: no error, not noisy", 1, 0, 0, 0, math.NaN(), math.NaN(), false},
		{"zero prediction is -100 %", 0, 1, 1, 1, -1, 0, false},
	}
	for _, tt := range tests {
		e, s := Error(tt.predicted, tt.med), Spread(tt.min, tt.med, tt.mx)
		got := []float64{e, s}
		if diff := cmp.Diff([]float64{tt.wantErr, tt.wantSpread}, got, approx); diff != "" {
			t.Errorf("%s: error, spread (-want +got):\n%s", tt.name, diff)
		}
		if n := Noisy(e, s); n != tt.wantNoisy {
			t.Errorf("%s: Noisy(%g, %g) = %v, want %v", tt.name, e, s, n, tt.wantNoisy)
		}
	}
}

// measured returns a compared case with a total error and spread.
func measured(name, group string, err, spread float64) Case {
	return Case{Name: name, Group: group, Total: &Comparison{Name: "total", Error: ptr(err), Spread: ptr(spread), Noisy: Noisy(err, spread)}}
}

func TestSummarize(t *testing.T) {
	cases := []Case{
		measured("a", GroupHeldOut, 0.05, 0.01),
		measured("b", GroupHeldOut, -0.12, 0.20), // noisy
		measured("c", GroupTuning, 0.30, 0.01),
		measured("d", GroupTuning, -0.02, 0.01),
		{Name: "e", Group: GroupHeldOut, Failure: "the build failed"},
	}
	got := Summarize(cases)
	want := Summary{Cases: 5, Compared: 4, Failed: 1, Noisy: 1,
		MedianAbsError: ptr(0.085), MedianError: ptr(0.015), Within10: ptr(0.5), Within15: ptr(0.75), Within20: ptr(0.75)}
	if diff := cmp.Diff(want, got, approx); diff != "" {
		t.Errorf("Summarize (-want +got):\n%s", diff)
	}
	empty := Summarize(nil)
	if diff := cmp.Diff(Summary{}, empty); diff != "" {
		t.Errorf("Summarize(nil) (-want +got):\n%s", diff)
	}
	var names []string
	for _, c := range Worst(cases, 3) {
		names = append(names, c.Name)
	}
	if diff := cmp.Diff([]string{"c", "b", "a"}, names); diff != "" {
		t.Errorf("Worst(3) (-want +got):\n%s", diff)
	}
	rep := NewReport(cases, nil, Options{MachineName: "m.yaml"})
	counts := map[string]int{}
	for g, s := range rep.Groups {
		counts[g] = s.Cases
	}
	if diff := cmp.Diff(map[string]int{GroupTuning: 2, GroupHeldOut: 3}, counts); diff != "" {
		t.Errorf("report groups (-want +got):\n%s", diff)
	}
	if len(rep.Worst) != 4 || rep.Worst[0].Case != "c" || rep.Schema != Schema || rep.Skipped == nil {
		t.Errorf("report: worst %+v, schema %q, skipped %v", rep.Worst, rep.Schema, rep.Skipped)
	}
}

// TestRunWithoutGo checks that a suite without the Go toolchain on PATH
// fails once, with what to do, instead of once per case.
func TestRunWithoutGo(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	err := Run(t.Context(), []Case{{Name: "a"}, {Name: "b"}}, Options{})
	if err == nil || !strings.Contains(err.Error(), "put the go command on PATH") {
		t.Errorf("Run without go = %v", err)
	}
}

func TestRepsFor(t *testing.T) {
	probe := func(runUs, warmUs float64) *spmd.Measurement {
		return &spmd.Measurement{WarmupUs: warmUs, Total: spmd.Timing{MedianUs: runUs}}
	}
	opts := Options{}.withDefaults() // 1 s over 5 measurements: 0.2 s each
	tests := []struct {
		name         string
		probe        *spmd.Measurement
		bytes, ranks int64
		want         int
	}{
		{"a 100 us run without arrays", probe(100, 50_000), 0, 2, 2000},
		{"a 1 ms run and 8 MB to refill on one rank", probe(1000, 1000), 8e6, 1, 18},
		{"a run longer than a measurement", probe(500_000, 500_000), 0, 1, 1},
		{"a run too short to time: one tick of 50 ns", probe(0, 0), 0, 1, maxReps},
		{"a run too short to time, 40 us of refill", probe(0, 0), 32e3, 1, 4993},
		{"at most maxReps", probe(1e-3, 1e-3), 0, 1, maxReps},
	}
	for _, tt := range tests {
		if got := repsFor(tt.probe, tt.bytes, tt.ranks, opts); got != tt.want {
			t.Errorf("%s: repsFor = %d, want %d", tt.name, got, tt.want)
		}
	}
}

// TestMisses groups the cases beyond 15 % by their dominant term: memory
// terms by their transfer, collectives by their kind, the largest group
// first and each group's cases by |error|; cases within 15 %, failed ones
// and ones without a comparison are left out.
func TestMisses(t *testing.T) {
	mk := func(name string, e float64, d *Dominant) Case {
		return Case{Name: name, Level: "L1", Ranks: 2, Total: &Comparison{Error: ptr(e)}, Dominant: d}
	}
	msg := &Dominant{Resource: "message", What: "send 1"}
	l3 := &Dominant{Resource: "memory", What: "L3 lines from and to memory"}
	bcast := &Dominant{Resource: "collective", What: "bcast (k.spmd:3:5)"}
	cases := []Case{
		mk("a", 0.20, msg), mk("b", -0.50, msg), mk("c", 0.10, msg), mk("d", 0.30, l3),
		mk("e", -0.16, bcast), mk("f", 0.9, nil), {Name: "g", Failure: "build"},
	}
	got := Misses(cases)
	want := []TermMisses{
		{Term: "message", MedianError: -0.15, Cases: []Miss{{"b", "L1", 2, -0.50, false}, {"a", "L1", 2, 0.20, false}}},
		{Term: "collective: bcast", MedianError: -0.16, Cases: []Miss{{"e", "L1", 2, -0.16, false}}},
		{Term: "memory: L3 lines from and to memory", MedianError: 0.30, Cases: []Miss{{"d", "L1", 2, 0.30, false}}},
		{Term: "none", MedianError: 0.9, Cases: []Miss{{"f", "L1", 2, 0.9, false}}},
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(x, y float64) bool { return math.Abs(x-y) < 1e-12 })); diff != "" {
		t.Errorf("Misses (-want +got):\n%s", diff)
	}
}

// TestSummarizeWitnesses: the witnesses' ratios over the cases that have
// them, and the summary of the cases measured with both within 10 % of
// the table.
func TestSummarizeWitnesses(t *testing.T) {
	mk := func(e, core, cp float64) Case {
		return Case{Total: &Comparison{Error: ptr(e)}, Witness: &WitnessTimes{Core: core, Copy: cp, CorePredicted: 1, CopyPredicted: 2}}
	}
	cases := []Case{mk(0.02, 1.05, 2.1), mk(-0.3, 1.5, 2), mk(0.1, 1, 2.5), mk(-0.04, 0.95, 1.9), {Total: &Comparison{Error: ptr(0.5)}}}
	got := summarizeWitnesses(cases)
	want := &WitnessSummary{
		Core:    RatioRange{Median: 1.025, Min: 0.95, Max: 1.5},
		Copy:    RatioRange{Median: 1.025, Min: 0.95, Max: 1.25},
		AtSpeed: Summarize([]Case{cases[0], cases[3]}),
	}
	if diff := cmp.Diff(want, got, approx); diff != "" {
		t.Errorf("summarizeWitnesses (-want +got):\n%s", diff)
	}
	if summarizeWitnesses(cases[4:]) != nil {
		t.Errorf("cases without witnesses have a witness summary")
	}
}
