package validate

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReplay predicts a report's cases again and compares them with the
// report's own measurements: every compared case gets today's prediction
// for its parameters on the table, against the medians, minima and maxima
// it stored; a failed case stays failed, and the drift witnesses keep
// their second measurement.
func TestReplay(t *testing.T) {
	var js bytes.Buffer
	if err := syntheticReport().WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	prev, err := ReadReport(&js)
	if err != nil {
		t.Fatal(err)
	}
	kernels, err := DefaultKernels(nil)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Machine: hostTable(t), Model: ModelOptions()}
	cases, err := Replay(context.Background(), prev, kernels, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != len(prev.Cases) {
		t.Fatalf("%d cases, want %d", len(cases), len(prev.Cases))
	}
	byFile := map[string]Kernel{}
	for _, k := range kernels {
		byFile[k.File] = k
	}
	for i, c := range cases {
		old := prev.Cases[i]
		if old.Failure != "" {
			if c.Failure != old.Failure || c.Total != nil {
				t.Errorf("%s: failure %q, total %v; want the report's failure kept", c.Name, c.Failure, c.Total)
			}
			continue
		}
		chk, err := newChecker(byFile[old.File])
		if err != nil {
			t.Fatal(err)
		}
		ck, err := chk.check(overrides(old.Params))
		if err != nil {
			t.Fatal(err)
		}
		want, err := Predict(ck, opts)
		if err != nil {
			t.Fatal(err)
		}
		if c.Total == nil || c.Total.Predicted != want.Total {
			t.Errorf("%s: replayed total %+v, want the prediction %g", c.Name, c.Total, want.Total)
			continue
		}
		if diff := cmp.Diff([]float64{old.Total.Measured, old.Total.Min, old.Total.Max}, []float64{c.Total.Measured, c.Total.Min, c.Total.Max},
			cmp.Comparer(relNear)); diff != "" {
			t.Errorf("%s: the measurement changed (-report +replay):\n%s", c.Name, diff)
		}
		if !near(*c.Total.Error, Error(want.Total, old.Total.Measured)) {
			t.Errorf("%s: error %g, want (predicted − measured)/measured = %g", c.Name, *c.Total.Error, Error(want.Total, old.Total.Measured))
		}
		if (old.Again == nil) != (c.Again == nil) || c.Again != nil && (!relNear(c.Again.Measured, old.Again.Measured) || c.Again.Predicted != want.Total) {
			t.Errorf("%s: again %+v, want the report's second measurement against the new prediction", c.Name, c.Again)
		}
		if old.Witness != nil && (c.Witness == nil || c.Witness.Core != old.Witness.Core || c.Witness.Copy != old.Witness.Copy ||
			!(c.Witness.CorePredicted > 0) || c.Witness.CorePredicted == old.Witness.CorePredicted) {
			t.Errorf("%s: witness %+v, want the report's times with the table's predictions of the witnesses", c.Name, c.Witness)
		}
		if c.Runs != old.Runs || c.Samples != old.Samples || c.Dominant == nil {
			t.Errorf("%s: runs %d samples %d dominant %v", c.Name, c.Runs, c.Samples, c.Dominant)
		}
	}
	prev.Cases[0].File = "examples/nosuch.spmd"
	if _, err := Replay(context.Background(), prev, kernels, opts); err == nil || !strings.Contains(err.Error(), "examples/nosuch.spmd") {
		t.Errorf("a case of a kernel not given: %v, want an error naming its file", err)
	}
}

// TestReadReport refuses what is not a report of this schema.
func TestReadReport(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"schema": "perfc.validate/v0", "cases": []}`, `the report's schema is "perfc.validate/v0"`},
		{`[1, 2]`, "not a validate report"},
		{`{"schema": "perfc.validate/v1", "cases": [`, "not a validate report"},
		// The position of what is wrong, line:col.
		{"{\n  \"schema\": x}", "2:13: not a validate report"},
		{"{\"schema\": \"perfc.validate/v1\",\n\"cases\": 7}", "2:10: not a validate report"},
	} {
		if _, err := ReadReport(strings.NewReader(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadReport(%q) = %v, want an error saying %q", tc.in, err, tc.want)
		}
	}
}

// relNear compares two times that went through a report's JSON and back.
func relNear(a, b float64) bool { return a == b || (a-b)/b < 1e-12 && (b-a)/b < 1e-12 }
