package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"perfc/costmodel"
)

// TestBuiltinExamples checks that a kernel argument naming no file but an
// example loads the embedded example, that reports and error positions name
// it as built in, and that any other name lists the examples.
func TestBuiltinExamples(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		contains []string // in stdout+stderr
	}{
		{"bare name", []string{"predict", "gauss"}, 0, []string{"for kernel gauss on cm5-32 (examples/gauss.spmd (built in))"}},
		{"with extension", []string{"parse", "wave.spmd"}, 0, []string{"kernel      wave (examples/wave.spmd (built in):"}},
		{"examples path outside the repository", []string{"parse", "examples/triad.spmd"}, 0, []string{"examples/triad.spmd (built in)"}},
		{"error position", []string{"count", "gauss", "-D", "N=3"}, 1, []string{"examples/gauss.spmd (built in):35:12: N / P = 3/32 is not an integer"}},
		{"unknown name", []string{"predict", "gausss"}, 1, []string{"open gausss: no such file or directory", `nor is "gausss" a built-in example (perfc examples lists them: broadcast, cannon,`, "wave)"}},
		{"not an example path", []string{"predict", "other/gauss.spmd"}, 1, []string{"open other/gauss.spmd: no such file", "perfc examples lists them"}},
		{"list", []string{"examples"}, 0, []string{"gauss              Gaussian elimination with partial pivoting, row-block distribution.\n", "perfc examples NAME prints its source"}},
		{"list as json", []string{"examples", "-o", "json"}, 0, []string{`"schema": "perfc.examples/v1"`, `"name": "triad"`}},
		{"unknown example", []string{"examples", "nosuch"}, 1, []string{`no example named "nosuch"; known examples: broadcast`}},
	}
	// The test runs in cmd/perfc, where neither gauss nor examples/ exist as
	// files: every name below must come from the embedded examples.
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, "", tt.args...)
			if code != tt.code {
				t.Errorf("exit status %d, want %d; stderr:\n%s", code, tt.code, errOut)
			}
			for _, want := range tt.contains {
				if !strings.Contains(out+errOut, want) {
					t.Errorf("output does not contain %q:\n%s%s", want, out, errOut)
				}
			}
		})
	}
	code, out, _ := runCLI(t, "", "examples", "gauss")
	want, err := os.ReadFile("../../examples/gauss.spmd")
	if err != nil {
		t.Fatal(err)
	}
	if code != 0 || out != string(want) {
		t.Errorf("perfc examples gauss: status %d, output differs from examples/gauss.spmd", code)
	}
}

// verbs are every verb perfc has, in the order perfc help lists them.
var verbs = []string{"parse", "fmt", "predict", "emulate", "sweep", "roofline", "count", "gen", "check", "calibrate", "validate", "machines", "examples", "help"}

// TestVerbList checks that perfc help and perfc alone list every verb with
// a one-line summary, the version and where the documentation is; perfc
// help exits with status 0 and perfc alone with 1.
func TestVerbList(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
	}{{[]string{"help"}, 0}, {nil, 1}, {[]string{"--help"}, 0}} {
		code, out, errOut := runCLI(t, "", tt.args...)
		if code != tt.code {
			t.Errorf("perfc %v: exit status %d, want %d; stderr:\n%s", tt.args, code, tt.code, errOut)
		}
		_, commands, ok := strings.Cut(out, "\nCommands:\n")
		if !ok {
			t.Fatalf("perfc %v: no Commands section:\n%s", tt.args, out)
		}
		commands, _, _ = strings.Cut(commands, "\n\n")
		lines := strings.Split(commands, "\n")
		if len(lines) != len(verbs) {
			t.Errorf("perfc %v: %d lines of commands, want one per verb (%d):\n%s", tt.args, len(lines), len(verbs), commands)
		}
		for i, line := range lines {
			fields := strings.Fields(line)
			if i < len(verbs) && (len(fields) < 3 || fields[0] != verbs[i]) {
				t.Errorf("perfc %v: line %q, want verb %s and its summary", tt.args, line, verbs[i])
			}
		}
		for _, want := range []string{"This is perfc", "docs/", "perfc examples"} {
			if !strings.Contains(out, want) {
				t.Errorf("perfc %v: output does not mention %q:\n%s", tt.args, want, out)
			}
		}
	}
	code, _, errOut := runCLI(t, "", "help", "nosuch")
	if want := "perfc: help: perfc has no verb \"nosuch\"; the verbs are parse, fmt, predict, emulate, sweep, roofline, count, gen, check, calibrate, validate, machines, examples, help\n"; code != 1 || errOut != want {
		t.Errorf("perfc help nosuch: status %d, stderr %q; want 1, %q", code, errOut, want)
	}
	code, out, _ := runCLI(t, "", "help", "sweep")
	if code != 0 || !strings.Contains(out, "Usage: perfc sweep <file>") || !strings.Contains(out, "--max-points") {
		t.Errorf("perfc help sweep: status %d, output:\n%s", code, out)
	}
}

// TestVersion checks that --version prints the module and the Go release.
func TestVersion(t *testing.T) {
	code, out, errOut := runCLI(t, "", "--version")
	if code != 0 || !strings.HasPrefix(out, "perfc ") || !strings.Contains(out, "built with "+runtime.Version()) {
		t.Errorf("perfc --version: status %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestValueListPointsToSweep checks that a list of values where one is
// expected names the sweep command that takes it.
func TestValueListPointsToSweep(t *testing.T) {
	for _, verb := range []string{"predict", "count", "emulate"} {
		code, out, errOut := runCLI(t, "", verb, "gauss", "-D", "N=64,128", "-D", "P=4")
		want := "perfc: -D N=64,128: one value per parameter here; to predict every value of a list, run perfc sweep gauss -D N=64,128 -D P=4\n"
		if code != 1 || out != "" || errOut != want {
			t.Errorf("perfc %s: status %d, stdout %q, stderr %q; want status 1 and %q", verb, code, out, errOut, want)
		}
	}
}

// TestMachinesYAMLLoadsBack checks that perfc machines NAME -o yaml writes
// a table that -m loads to the machine the overrides describe: the
// prediction with the file equals the one with the overrides.
func TestMachinesYAMLLoadsBack(t *testing.T) {
	overrides := []string{"-M", "t_send=0.0585us/B", "-M", "compose=max"}
	code, table, errOut := runCLI(t, "", append([]string{"machines", "cm5-32", "-o", "yaml"}, overrides...)...)
	if code != 0 {
		t.Fatalf("machines -o yaml: status %d: %s", code, errOut)
	}
	path := t.TempDir() + "/fast.yaml"
	if err := os.WriteFile(path, []byte(table), 0o644); err != nil {
		t.Fatal(err)
	}
	_, want, _ := runCLI(t, "", append([]string{"predict", "gauss", "-o", "json"}, overrides...)...)
	want = withoutOverrides(t, want)
	code, got, errOut := runCLI(t, "", "predict", "gauss", "-o", "json", "-m", path)
	if code != 0 || got != want {
		t.Errorf("predict -m the YAML: status %d, stderr %s; output differs from predict with the overrides:\n%s\n---\n%s", code, errOut, got, want)
	}
	code, _, errOut = runCLI(t, "", "machines", "-o", "yaml")
	if code != 1 || !strings.Contains(errOut, "-o yaml prints one table: name it, as in perfc machines bluemountain -o yaml") {
		t.Errorf("machines -o yaml without a name: status %d, stderr %q", code, errOut)
	}
}

// TestPathOverrideLoadsBack: on a calibrated host's table, which has no
// params, -M by path changes the prediction, and perfc machines -o yaml
// with the same overrides writes a table that predicts the same.
func TestPathOverrideLoadsBack(t *testing.T) {
	ecm := "../../machines/testdata/ecm.yaml"
	overrides := []string{"-M", "memory.caches.L2.bandwidth=32GB/s", "-M", "memory.main_bandwidth=8GB/s"}
	_, plain, _ := runCLI(t, "", "predict", "triad", "-o", "json", "-m", ecm)
	code, want, errOut := runCLI(t, "", append([]string{"predict", "triad", "-o", "json", "-m", ecm}, overrides...)...)
	if code != 0 {
		t.Fatalf("predict with path overrides: status %d: %s", code, errOut)
	}
	want = withoutOverrides(t, want)
	if want == plain {
		t.Error("the path overrides changed no prediction")
	}
	code, table, errOut := runCLI(t, "", append([]string{"machines", ecm, "-o", "yaml"}, overrides...)...)
	if code != 0 {
		t.Fatalf("machines -o yaml: status %d: %s", code, errOut)
	}
	path := filepath.Join(t.TempDir(), "what-if.yaml")
	if err := os.WriteFile(path, []byte(table), 0o644); err != nil {
		t.Fatal(err)
	}
	code, got, errOut := runCLI(t, "", "predict", "triad", "-o", "json", "-m", path)
	if code != 0 || got != want {
		t.Errorf("predict -m the YAML: status %d, stderr %s; output differs from predict with the overrides:\n%s\n---\n%s", code, errOut, got, want)
	}
}

// TestMachinesCompare sets a built-in table beside itself with one value
// changed: every quantity agrees but that one, which the table names with
// both values and the change; bad tolerances and -o yaml are refused.
func TestMachinesCompare(t *testing.T) {
	code, out, errOut := runCLI(t, "", "machines", "sp2", "--compare", "sp2", "-M", "bw=20MB/s")
	if code != 0 || !strings.Contains(out, "sp2 (A) against sp2 (B): ") {
		t.Fatalf("machines --compare: status %d, stderr %q:\n%s", code, errOut, out)
	}
	// -M applies to both: nothing differs.
	if strings.Contains(out, "beyond 5%") {
		t.Errorf("a table against itself has values beyond the tolerance:\n%s", out)
	}
	path := filepath.Join(t.TempDir(), "sp2.yaml")
	code, table, _ := runCLI(t, "", "machines", "sp2", "-o", "yaml", "-M", "bw=20MB/s")
	if code != 0 || os.WriteFile(path, []byte(table), 0o644) != nil {
		t.Fatal("writing the changed table")
	}
	code, out, errOut = runCLI(t, "", "machines", "sp2", "--compare", path, "--tolerance", "1")
	if code != 0 || !strings.Contains(out, "quantities beyond 1%:") || !strings.Contains(out, "20MB/s") {
		t.Errorf("machines --compare a changed table: status %d, stderr %q:\n%s", code, errOut, out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--tolerance=-1"}, "--tolerance -1: give a per cent of 0 or more"},
		{[]string{"-o", "yaml"}, "--compare prints a table or -o json"},
	} {
		code, _, errOut := runCLI(t, "", append([]string{"machines", "sp2", "--compare", "sp2"}, tc.args...)...)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("machines --compare %v: status %d, stderr %q; want %q", tc.args, code, errOut, tc.want)
		}
	}
	if code, _, errOut := runCLI(t, "", "machines", "--compare", "sp2"); code != 1 || !strings.Contains(errOut, "name the first, as in perfc machines host.yaml --compare sp2") {
		t.Errorf("machines --compare without a first table: status %d, stderr %q", code, errOut)
	}
}

// TestJSONSchemas checks that every JSON document perfc prints is an object
// whose "schema" names its format (perfc check's is tested in TestCheck).
func TestJSONSchemas(t *testing.T) {
	tests := []struct {
		args   []string
		schema string
	}{
		{[]string{"parse", "triad", "-o", "json"}, "perfc.ast/v1"},
		{[]string{"count", "triad", "-o", "json", "--cache", "L1=32KiB/64B/8"}, "perfc.counts/v1"},
		{[]string{"predict", "triad", "-o", "json"}, "perfc.prediction/v1"},
		{[]string{"emulate", "pingpong", "-o", "json"}, "perfc.emulation/v1"},
		{[]string{"sweep", "triad", "-D", "N=1024,2048", "-o", "json"}, "perfc.sweep/v1"},
		{[]string{"roofline", "triad", "-o", "json"}, "perfc.roofline/v1"},
		{[]string{"machines", "-o", "json"}, "perfc.machines/v1"},
		{[]string{"machines", "sp2", "-o", "json"}, "perfc.machine/v1"},
		{[]string{"examples", "-o", "json"}, "perfc.examples/v1"},
		{[]string{"machines", "sp2", "--compare", "t3e", "-o", "json"}, CompareSchema},
	}
	for _, tt := range tests {
		code, out, errOut := runCLI(t, "", tt.args...)
		var doc map[string]any
		if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 0 {
			t.Errorf("perfc %s: status %d, %v; stderr %s", strings.Join(tt.args, " "), code, err, errOut)
			continue
		}
		if doc["schema"] != tt.schema {
			t.Errorf("perfc %s: schema %v, want %q", strings.Join(tt.args, " "), doc["schema"], tt.schema)
		}
	}
}

// TestTimelineOnStdout checks that --timeline - leaves standard output to
// the timeline alone: every line is a JSON event, the report goes to
// standard error, and -o json, which would mix in, is refused.
func TestTimelineOnStdout(t *testing.T) {
	code, out, errOut := runCLI(t, "", "emulate", "pingpong", "--timeline", "-")
	if code != 0 {
		t.Fatalf("status %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for i, line := range lines {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil || ev["rank"] == nil {
			t.Fatalf("stdout line %d is not a timeline event: %q", i+1, line)
		}
	}
	if !strings.Contains(errOut, "emulation (a prediction, not a measurement) of kernel pingpong") {
		t.Errorf("the report is not on stderr:\n%s", errOut)
	}
	code, out, errOut = runCLI(t, "", "emulate", "pingpong", "--timeline", "-", "-o", "json")
	if code != 1 || out != "" || !strings.Contains(errOut, "--timeline - and -o json both want standard output") {
		t.Errorf("--timeline - -o json: status %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// withoutOverrides is a prediction's JSON without the list of -M overrides
// it names and the notes on them, re-encoded as predict encodes it: a table that has the
// overrides written in predicts the same, but names none.
func withoutOverrides(t *testing.T, js string) string {
	t.Helper()
	var p costmodel.Prediction
	if err := json.Unmarshal([]byte(js), &p); err != nil {
		t.Fatalf("decoding the prediction: %v\n%s", err, js)
	}
	if len(p.Overrides) == 0 {
		t.Fatalf("the prediction with -M names no overrides:\n%s", js)
	}
	p.Overrides = nil
	var notes []string
	for _, n := range p.Notes {
		if !strings.HasPrefix(n, "-M ") {
			notes = append(notes, n)
		}
	}
	p.Notes = notes
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&p); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
