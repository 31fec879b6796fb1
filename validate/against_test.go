package validate

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// againstCase is a compared case of one rank in L1 with the given
// predicted and measured seconds, dominated by compute.
func againstCase(name string, predicted, measured float64) Case {
	return Case{Name: name, Kernel: strings.Fields(name)[0], Level: "L1", Ranks: 1,
		Total:    &Comparison{Name: "total", Predicted: predicted, Measured: measured, Error: ptr(Error(predicted, measured))},
		Dominant: &Dominant{Resource: "compute", What: "loop iterations", Share: 1}}
}

// againstReports is a report and two others: a and b miss with one sign
// in all three, g here and in the others' median (one of them within
// 15 %), d only here, c never; e is not in the others, and f failed.
func againstReports() (*Report, []*Report) {
	failed := Case{Name: "f n=1", Failure: "the build failed"}
	this := NewReport([]Case{
		againstCase("a n=1", 1.3, 1.0), againstCase("b n=1", 0.65, 1.0), againstCase("c n=1", 1.0, 1.0),
		againstCase("d n=1", 1.2, 1.0), againstCase("e n=1", 2.0, 1.0), againstCase("g n=1", 0.8, 1.0), failed}, nil, Options{})
	first := NewReport([]Case{
		againstCase("a n=1", 1.4, 1.1), againstCase("b n=1", 0.6, 0.9), againstCase("c n=1", 1.0, 1.3),
		againstCase("d n=1", 1.1, 1.0), againstCase("g n=1", 0.6, 1.0), failed}, nil, Options{})
	second := NewReport([]Case{
		againstCase("d n=1", 1.18, 1.0), againstCase("g n=1", 1.02, 1.0), againstCase("c n=1", 1.0, 0.8), againstCase("b n=1", 0.8, 1.05),
		againstCase("a n=1", 1.2, 0.9), againstCase("e n=2", 1.0, 1.0)}, nil, Options{})
	return this, []*Report{first, second}
}

// TestAgainst checks the floor (the others' median measurement as the
// prediction), the model's errors on the same cases, and which misses
// every report repeats.
func TestAgainst(t *testing.T) {
	this, others := againstReports()
	got, err := Against(this, others, []string{"first.json", "second.json"})
	if err != nil {
		t.Fatal(err)
	}
	want := &Reproducibility{
		Reports: []string{"first.json", "second.json"},
		Cases:   5, // a b c d g: e is not in the others, f failed
		// The others' medians: a 1.0, b 0.975, c 1.05, d 1.0, g 1.0;
		// errors 0, -2.5, +5, 0 and 0 %.
		Floor: Summary{Cases: 5, Compared: 5, MedianAbsError: ptr(0), MedianError: ptr(0),
			Within10: ptr(1), Within15: ptr(1), Within20: ptr(1)},
		// Errors +30, -35, 0, +20 and -20 %.
		Model: Summary{Cases: 5, Compared: 5, MedianAbsError: ptr(0.2), MedianError: ptr(0),
			Within10: ptr(0.2), Within15: ptr(0.2), Within20: ptr(0.6)},
		Repeated: []RepeatedMiss{
			{Case: "b n=1", Level: "L1", Ranks: 1, Term: "compute", Error: -0.35, Others: []float64{0.6/0.9 - 1, 0.8/1.05 - 1}},
			{Case: "a n=1", Level: "L1", Ranks: 1, Term: "compute", Error: 0.3, Others: []float64{1.4/1.1 - 1, 1.2/0.9 - 1}},
			{Case: "g n=1", Level: "L1", Ranks: 1, Term: "compute", Error: -0.2, Others: []float64{-0.4, 0.02}},
		},
		Once: 1, // d: +10 and +18 %, +14 % in the median
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("Against (-want +got):\n%s", diff)
	}

	this.Against = got
	var table bytes.Buffer
	if err := this.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"against 2 other reports (first.json, second.json): 5 cases measured in every one",
		"3 misses beyond 15% here and in the other runs' median error, with one sign (the model's); 1 here only (the hour's, or this table's)",
		"b n=1  L1  1 rank  -35.0%  others -33% -24%  compute",
	} {
		if !strings.Contains(table.String(), line) {
			t.Errorf("the table has no %q:\n%s", line, table.String())
		}
	}
}

// TestAgainstRefuses: no reports, or one of another backend.
func TestAgainstRefuses(t *testing.T) {
	this, others := againstReports()
	if _, err := Against(this, nil, nil); err == nil || !strings.Contains(err.Error(), "give one or more reports") {
		t.Errorf("Against with none: %v", err)
	}
	others[1].Backend = "mpi"
	_, err := Against(this, others, []string{"first.json", "mpi.json"})
	if err == nil || !strings.Contains(err.Error(), "mpi.json: its cases ran on the mpi backend, this report's on the goroutine backend") {
		t.Errorf("Against another backend: %v", err)
	}
}

// FuzzAgainst reads two reports as --against does and sets the first
// beside the second: whatever the files hold, no panic, and the figures
// count only the cases compared in both.
func FuzzAgainst(f *testing.F) {
	var js bytes.Buffer
	if err := syntheticReport().WriteJSON(&js); err != nil {
		f.Fatal(err)
	}
	f.Add(js.Bytes(), js.Bytes())
	one := `{"schema": "perfc.validate/v1", "backend": "goroutine", "cases": [{"name": "a", "total": {"predicted_s": 2, "measured_s": 1, "error": 1}}, {"name": "b"}]}`
	f.Add([]byte(one), []byte(strings.ReplaceAll(one, `"measured_s": 1`, `"measured_s": -1`)))
	f.Add([]byte(one), []byte(`{"schema": "perfc.validate/v1", "backend": "mpi", "cases": []}`))
	f.Fuzz(func(t *testing.T, this, other []byte) {
		r, err := ReadReport(bytes.NewReader(this))
		if err != nil {
			return
		}
		o, err := ReadReport(bytes.NewReader(other))
		if err != nil {
			return
		}
		a, err := Against(r, []*Report{o}, []string{"other.json"})
		if err != nil {
			return
		}
		n := 0
		for _, c := range r.Cases {
			if compared(c) {
				n++
			}
		}
		if a.Cases > n || a.Floor.Compared != a.Cases || a.Model.Compared != a.Cases || len(a.Repeated)+a.Once > a.Cases {
			t.Fatalf("%d cases compared here; Against gives %d, floor %d, model %d, %d repeated and %d once", n, a.Cases, a.Floor.Compared, a.Model.Compared, len(a.Repeated), a.Once)
		}
		r.Against = a
		r.writeAgainst(io.Discard)
	})
}
