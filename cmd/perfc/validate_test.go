package main

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfc/validate"
)

// hostTable is the hand-written table of this host that validate's tests
// predict with (the figures do not matter here, only that they load).
const hostTable = "../../validate/testdata/host-baseline.yaml"

// TestValidateQuick runs perfc validate --quick end to end on two small
// kernels, one marked as tuning, and checks that the report is complete:
// its schema, one case per file with every field of a comparison, both
// groups, the summary's counts, the worst cases, the JSON file and the
// plot. It does not check the error figures, which belong to the machine.
func TestValidateQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs two programs")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	jsonFile, plotFile := filepath.Join(dir, "report.json"), filepath.Join(dir, "accuracy.svg")
	// --settle 2s: this host may run at another speed than the table
	// says, and a case then waits that long for it, not 10 s.
	args := []string{"validate", "--quick", "-m", hostTable, "--tuning", "sum", "--samples", "2", "--case-time", "100ms", "--settle", "2s",
		"--cache-dir", filepath.Join(dir, "cache"), "--json", jsonFile, "--plot", plotFile,
		"../../validate/kernels/sum.spmd", "../../validate/kernels/scale.spmd"}
	code, out, errOut := runCLI(t, "", append(args, "-o", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep validate.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	saved, err := os.ReadFile(jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(saved) != out {
		t.Errorf("--json wrote a different report than -o json printed")
	}
	type caseShape struct {
		Kernel, Group, Level string
		Ranks                int64
		Regions              []string
	}
	var shapes []caseShape
	for _, c := range rep.Cases {
		s := caseShape{Kernel: c.Kernel, Group: c.Group, Level: c.Level, Ranks: c.Ranks}
		for _, r := range c.Regions {
			if r.Name != "(outside regions)" { // listed when it is 1 % of the total or more: machine-dependent
				s.Regions = append(s.Regions, r.Name)
			}
		}
		shapes = append(shapes, s)
		if c.Failure != "" || c.Total == nil || c.Dominant == nil || c.Footprint <= 0 || c.Runs < 1 || c.Samples != 2 || len(c.Params) != 1 ||
			c.Witness == nil || !(c.Witness.Core > 0) || !(c.Witness.CopyPredicted > 0) ||
			c.Settle == nil || c.Settle.WitnessAfter == nil || c.Settle.Waited > 2 {
			t.Errorf("case %s incomplete: %+v", c.Name, c)
			continue
		}
		for i, cmp := range append([]validate.Comparison{*c.Total}, c.Regions...) {
			// Only the harness's time outside regions may be predicted 0.
			if cmp.Predicted <= 0 && (i == 0 || cmp.Name != "(outside regions)") || cmp.Measured <= 0 || cmp.Min > cmp.Measured || cmp.Max < cmp.Measured || cmp.Error == nil || cmp.Spread == nil {
				t.Errorf("case %s, %s: comparison incomplete: %+v", c.Name, cmp.Name, cmp)
			}
		}
	}
	want := []caseShape{
		{Kernel: "sum", Group: validate.GroupTuning, Level: "L1", Ranks: 1, Regions: []string{"sum"}},
		{Kernel: "scale", Group: validate.GroupHeldOut, Level: "L1", Ranks: 1, Regions: []string{"scale"}},
	}
	if diff := cmp.Diff(want, shapes); diff != "" {
		t.Errorf("cases (-want +got):\n%s", diff)
	}
	counts := func(s validate.Summary) [3]int { return [3]int{s.Cases, s.Compared, s.Failed} }
	if diff := cmp.Diff(map[string][3]int{"all": {2, 2, 0}, validate.GroupTuning: {1, 1, 0}, validate.GroupHeldOut: {1, 1, 0}},
		map[string][3]int{"all": counts(rep.Summary), validate.GroupTuning: counts(rep.Groups[validate.GroupTuning]),
			validate.GroupHeldOut: counts(rep.Groups[validate.GroupHeldOut])}); diff != "" {
		t.Errorf("summary counts (cases, compared, failed) (-want +got):\n%s", diff)
	}
	s := rep.Summary
	if rep.Schema != validate.Schema || rep.Machine != "host-baseline" || !rep.Quick || s.MedianAbsError == nil || s.Within10 == nil ||
		s.Within15 == nil || s.Within20 == nil || len(rep.Worst) != 2 || rep.Worst[0].Dominant == nil || rep.Witness == nil ||
		rep.Witness.Settle == nil || rep.Witness.Settle.Cases != 2 {
		t.Errorf("report header or summary incomplete: %+v", rep)
	}
	// Both cases have one rank: the first is the drift witness, measured
	// again after the suite.
	if len(rep.Drift) != 1 || rep.Drift[0].Case != rep.Cases[0].Name || !(rep.Drift[0].Again > 0) || rep.Cases[0].Again == nil || rep.Cases[1].Again != nil {
		t.Errorf("drift: %+v, want the first case measured again", rep.Drift)
	}
	plot, err := os.ReadFile(plotFile)
	if err != nil || !strings.Contains(string(plot), "<svg") {
		t.Errorf("--plot: %v, %d bytes", err, len(plot))
	}

	// The table for people, from the cached binaries, with the witnesses
	// (above, with the JSON) and without them.
	if !strings.Contains(out, `"witness"`) {
		t.Errorf("the JSON report has no witness summary")
	}
	code, out, errOut = runCLI(t, "", append(args, "--no-witness")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, w := range []string{"validation of perfc's predictions on host-baseline", "sum n=", "scale n=", "tuning", "held-out",
		"median |error|", "within 15%", "worst cases"} {
		if !strings.Contains(out, w) {
			t.Errorf("table lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "host speed") {
		t.Errorf("--no-witness: the table still says how fast the host ran:\n%s", out)
	}
	// The report (of the second run, which wrote the file again) replayed
	// on the same table: nothing runs, and every prediction and
	// measurement comes back as it was.
	saved, err = os.ReadFile(jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	rep = validate.Report{}
	if err := json.Unmarshal(saved, &rep); err != nil {
		t.Fatal(err)
	}
	// Set beside itself (--against), its measurements are their own
	// floor: no error, and its misses are all repeated.
	code, out, errOut = runCLI(t, "", "validate", "--replay", jsonFile, "-m", hostTable, "--tuning", "sum", "-o", "json",
		"--against", jsonFile, "../../validate/kernels/sum.spmd", "../../validate/kernels/scale.spmd")
	if code != 0 {
		t.Fatalf("validate --replay: exit %d: %s", code, errOut)
	}
	var again validate.Report
	if err := json.Unmarshal([]byte(out), &again); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if again.Replay != jsonFile || len(again.Cases) != len(rep.Cases) {
		t.Fatalf("replay names %q with %d cases, want %q and %d", again.Replay, len(again.Cases), jsonFile, len(rep.Cases))
	}
	if a := again.Against; a == nil || a.Cases != len(rep.Cases) || *a.Floor.MedianAbsError > 1e-9 || a.Once != 0 {
		t.Errorf("--against itself: %+v, want %d cases, a floor of 0 and no miss of one run", a, len(rep.Cases))
	}
	for i, c := range again.Cases {
		was := rep.Cases[i]
		// The measurement goes through µs and back: equal within rounding.
		same := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Abs(b) }
		if c.Total == nil || c.Total.Predicted != was.Total.Predicted || !same(c.Total.Measured, was.Total.Measured) || !same(*c.Total.Error, *was.Total.Error) {
			t.Errorf("replayed %s: %+v, want %+v", c.Name, c.Total, was.Total)
		}
	}
	// --report prints the report as written, here beside itself.
	code, out, errOut = runCLI(t, "", "validate", "--report", jsonFile, "--against", jsonFile, "-o", "json")
	if code != 0 {
		t.Fatalf("validate --report: exit %d: %s", code, errOut)
	}
	var printed validate.Report
	if err := json.Unmarshal([]byte(out), &printed); err != nil || len(printed.Cases) != len(rep.Cases) || printed.Against == nil || printed.Against.Cases != len(rep.Cases) {
		t.Errorf("validate --report --against: %v, %d cases, against %+v; want %d cases beside themselves", err, len(printed.Cases), printed.Against, len(rep.Cases))
	}
	code, _, errOut = runCLI(t, "", "validate", "--report", jsonFile, "--quick")
	if code != 1 || !strings.Contains(errOut, "leave out --replay, --quick") {
		t.Errorf("validate --report --quick: exit %d, %q", code, errOut)
	}
	// A hand-edited report whose case has neither a total nor a failure
	// prints as failed.
	edited := filepath.Join(t.TempDir(), "edited.json")
	if err := os.WriteFile(edited, []byte(`{"schema": "perfc.validate/v1", "backend": "goroutine", "cases": [{"name": "x n=1"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, "", "validate", "--report", edited)
	if code != 0 || !strings.Contains(out, "failed") {
		t.Errorf("validate --report of a case without a total: exit %d, %q, %q", code, out, errOut)
	}
	code, _, errOut = runCLI(t, "", "validate", "-m", hostTable, "--against", hostTable)
	if code != 1 || !strings.Contains(errOut, "host-baseline.yaml: 1:1: not a validate report") {
		t.Errorf("validate --against a table: exit %d, %q", code, errOut)
	}
	code, _, errOut = runCLI(t, "", "validate", "--replay", jsonFile, "--quick", "-m", hostTable)
	if code != 1 || !strings.Contains(errOut, "leave out --quick") {
		t.Errorf("validate --replay --quick: exit %d, %q", code, errOut)
	}
}

// TestValidateErrors checks the errors a user meets first: no table of
// this host yet, and a plot file of another kind.
func TestValidateErrors(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := runCLI(t, "", "validate", "-m", filepath.Join(dir, "host.yaml"))
	if code != 1 || !strings.Contains(errOut, "perfc calibrate -o") {
		t.Errorf("validate without a table: exit %d, %q; want 1 and the calibrate command", code, errOut)
	}
	code, _, errOut = runCLI(t, "", "validate", "-m", hostTable, "--plot", filepath.Join(dir, "a.pdf"))
	if code != 1 || !strings.Contains(errOut, ".svg or .png") {
		t.Errorf("validate --plot a.pdf: exit %d, %q", code, errOut)
	}
}
