package validate

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"perfc/codegen"
	"perfc/internal/golden"
)

// syntheticReport is a report of fixed figures: two compared cases of
// each group, a noisy one, a failure and a skip.
func syntheticReport() *Report {
	cmpOf := func(name string, pred, med, lo, hi float64) Comparison {
		e, s := Error(pred, med), Spread(lo, med, hi)
		return Comparison{Name: name, Predicted: pred, Measured: med, Min: lo, Max: hi, Error: ptr(e), Spread: ptr(s), Noisy: Noisy(e, s)}
	}
	total := func(c Comparison) *Comparison { c.Name = "total"; return &c }
	cases := []Case{
		{Name: "triad N=1024", Kernel: "triad", File: "examples/triad.spmd", Group: GroupTuning, Level: "L1", Ranks: 1,
			Params: []Param{{"N", "1024"}}, Footprint: 24576, Runs: 1000, Samples: 5,
			Total:    total(cmpOf("", 3.6e-7, 4.0e-7, 3.9e-7, 4.2e-7)),
			Again:    total(cmpOf("", 3.6e-7, 4.1e-7, 4.0e-7, 4.2e-7)),
			Witness:  &WitnessTimes{Core: 37e-6, Copy: 260e-6, CorePredicted: 36e-6, CopyPredicted: 250e-6},
			Regions:  []Comparison{cmpOf("triad", 3.6e-7, 3.9e-7, 3.8e-7, 4.1e-7)},
			Dominant: &Dominant{Resource: "compute", What: "loop iterations", Region: "triad", Time: 2.5e-7, Share: 0.69}},
		{Name: "triad N=5946036", Kernel: "triad", File: "examples/triad.spmd", Group: GroupTuning, Level: "memory", Ranks: 1,
			Params: []Param{{"N", "5946036"}}, Footprint: 142704864, Runs: 10, Samples: 5,
			Total:    total(cmpOf("", 3.7e-3, 3.5e-3, 3.3e-3, 3.9e-3)),
			Regions:  []Comparison{cmpOf("triad", 3.7e-3, 3.5e-3, 3.3e-3, 3.9e-3)},
			Dominant: &Dominant{Resource: "memory", What: "L3 lines", Region: "triad", Time: 3.7e-3, Share: 1}},
		{Name: "pingpong P=2 n=2896", Kernel: "pingpong", File: "examples/pingpong.spmd", Group: GroupHeldOut, Level: "L1", Ranks: 2,
			Params: []Param{{"P", "2"}, {"n", "2896"}}, Footprint: 23168, Runs: 200, Samples: 5,
			Total:    total(cmpOf("", 30e-6, 40e-6, 35e-6, 41e-6)),
			Again:    total(cmpOf("", 30e-6, 52e-6, 50e-6, 53e-6)),
			Witness:  &WitnessTimes{Core: 54e-6, Copy: 500e-6, CorePredicted: 36e-6, CopyPredicted: 250e-6},
			Regions:  []Comparison{cmpOf("round \x1b[31mtrips", 30e-6, 40e-6, 35e-6, 41e-6)},
			Dominant: &Dominant{Resource: "waiting", What: "emulated critical path beyond the slowest rank's own costs", Time: 1.6e-5, Share: 0.53}},
		{Name: "dot n=1562", Kernel: "dot", File: "validate/kernels/dot.spmd", Group: GroupHeldOut, Level: "L1", Ranks: 1,
			Params: []Param{{"n", "1562"}}, Footprint: 24992, Runs: 5000, Samples: 5,
			Total:    total(cmpOf("", 7.1e-7, 7.3e-7, 6.0e-7, 9.0e-7)),
			Regions:  []Comparison{cmpOf("dot", 7.1e-7, 7.3e-7, 6.0e-7, 9.0e-7)},
			Dominant: &Dominant{Resource: "compute", What: "latency bound of the loop at dot.spmd:15:5 (chain s)", Region: "dot", Time: 3.3e-7, Share: 0.46}},
		{Name: "sum n=3126", Kernel: "sum", File: "validate/kernels/sum.spmd", Group: GroupHeldOut, Level: "L1", Ranks: 1,
			Params: []Param{{"n", "3126"}}, Footprint: 25008, Failure: "building the generated program failed (exit status 1):\ncompiler output"},
	}
	skips := []Skip{{Kernel: "matmul", Level: "memory", Ranks: 1, Reason: "a run is predicted to take 12.93 s, over the 250ms cap, and no repetition parameter shortens it"}}
	rep := NewReport(cases, skips, Options{MachineName: "testdata/host-baseline.yaml"})
	rep.Machine = "host-baseline"
	rep.Host = Host{Go: "go1.26", OS: "linux", Arch: "amd64", Cores: 2}
	return rep
}

// TestReportGolden prints a report of fixed figures as a table and as
// JSON, against golden files (go test -update rewrites them).
func TestReportGolden(t *testing.T) {
	rep := syntheticReport()
	var table, js bytes.Buffer
	if err := rep.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/report.txt", table.String())
	if strings.ContainsRune(table.String(), 0x1b) {
		t.Errorf("a region name's escape character reached the table")
	}
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/report.json", js.String())
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Schema != Schema || len(back.Cases) != 5 {
		t.Errorf("the JSON does not load back: %v", err)
	}
}

// TestDrift checks the drift of the witnesses measured again: a change
// within the spreads of both measurements has not moved, one beyond them
// has.
func TestDrift(t *testing.T) {
	rep := syntheticReport()
	if len(rep.Drift) != 2 {
		t.Fatalf("%d drift witnesses, want 2 (the cases measured again): %+v", len(rep.Drift), rep.Drift)
	}
	for _, tt := range []struct {
		i      int
		change float64
		moved  bool
	}{{0, 0.025, false}, {1, 0.3, true}} {
		d := rep.Drift[tt.i]
		if !near(d.Change, tt.change) || d.Moved != tt.moved {
			t.Errorf("%s: change %+.3f moved %v, want %+.3f %v", d.Case, d.Change, d.Moved, tt.change, tt.moved)
		}
	}
}

// TestSavePlot draws the synthetic report as SVG and PNG and refuses
// another extension.
func TestSavePlot(t *testing.T) {
	rep := syntheticReport()
	dir := t.TempDir()
	for _, name := range []string{"a.svg", "a.png"} {
		path := filepath.Join(dir, name)
		if err := rep.SavePlot(path); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil || len(data) < 1000 {
			t.Errorf("%s: %v, %d bytes", name, err, len(data))
		}
		if strings.HasSuffix(name, ".svg") && !bytes.Contains(data, []byte("held-out (2)")) {
			t.Errorf("%s: no legend entry for the held-out group", name)
		}
	}
	if err := rep.SavePlot(filepath.Join(dir, "a.pdf")); err == nil || !strings.Contains(err.Error(), ".svg or .png") {
		t.Errorf("SavePlot(a.pdf) = %v", err)
	}
}

// TestReportMPI: a report of cases run through MPI names the backend, the
// launch and its notes once, in the table and in the JSON.
func TestReportMPI(t *testing.T) {
	base := syntheticReport()
	cases := []Case{base.Cases[2], base.Cases[2]}
	cases[0].Launch, cases[0].LaunchNotes = "mpirun --allow-run-as-root -n 2", []string{"running as root: passed --allow-run-as-root"}
	cases[1].Name = "pingpong P=4 n=2896"
	cases[1].Launch, cases[1].LaunchNotes = "mpirun --allow-run-as-root --oversubscribe -n 4",
		[]string{"running as root: passed --allow-run-as-root", "4 ranks on 2 cores: passed --oversubscribe"}
	rep := NewReport(cases, nil, Options{MachineName: "host-mpi.yaml", Launch: codegen.Launch{Backend: codegen.BackendMPI}})
	var table, js bytes.Buffer
	if err := rep.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	want := "through MPI: the communicating cases, each rank an MPI process, launched as mpirun --allow-run-as-root -n 2 " +
		"(running as root: passed --allow-run-as-root; 4 ranks on 2 cores: passed --oversubscribe)\n"
	if !strings.Contains(table.String(), want) {
		t.Errorf("the table does not say how the cases were launched; want %q in\n%s", want, table.String())
	}
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`"backend": "mpi"`, `"launch": "mpirun --allow-run-as-root --oversubscribe -n 4"`, `"launch_notes": [`} {
		if !strings.Contains(js.String(), w) {
			t.Errorf("the JSON has no %s", w)
		}
	}
	if strings.Contains(syntheticReportTable(t), "through MPI") {
		t.Error("a goroutine report says MPI")
	}
}

// syntheticReportTable is the goroutine report's table.
func syntheticReportTable(t *testing.T) string {
	var b bytes.Buffer
	if err := syntheticReport().WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// near reports whether two fractions agree to 1e-9.
func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
