package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmulateGolden runs perfc emulate as a user would.
func TestEmulateGolden(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"emulate_wave_unit.golden", []string{"emulate", "../../examples/wave.spmd", "-m", "unit"}, 0},
		{"emulate_wave_cluster.golden", []string{"emulate", "../../examples/wave.spmd", "-m", "unit", "-D", "sweeps=12",
			"-M", "sx=5", "-M", "sy=5", "-M", "lx=2", "-M", "ly=2"}, 0},
		{"emulate_wave_json.golden", []string{"emulate", "../../examples/wave.spmd", "-m", "unit", "-D", "Px=3", "-D", "Py=2", "-D", "sweeps=2", "-o", "json"}, 0},
		{"emulate_pingpong_cm5.golden", []string{"emulate", "../../examples/pingpong.spmd", "-m", "cm5-32"}, 0},
		{"emulate_deadlock.golden", []string{"emulate", "testdata/emulate_deadlock.spmd", "-m", "unit"}, 1},
		{"emulate_requests.golden", []string{"emulate", "testdata/emulate_requests.spmd", "-m", "cm5-32"}, 0},
		{"emulate_requests_deadlock.golden", []string{"emulate", "testdata/emulate_requests_deadlock.spmd", "-m", "unit"}, 1},
		{"emulate_bad_plot.golden", []string{"emulate", "../../examples/wave.spmd", "--plot", "chart.pdf"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, "", tt.args...)
			if code != tt.code {
				t.Errorf("exit status %d, want %d; stderr:\n%s", code, tt.code, errOut)
			}
			golden(t, tt.name, out+errOut)
		})
	}
}

// TestEmulateFiles checks --timeline and --plot: one JSON object per event,
// and a chart in the format the file name asks for.
func TestEmulateFiles(t *testing.T) {
	dir := t.TempDir()
	timeline, chart := filepath.Join(dir, "t.jsonl"), filepath.Join(dir, "gantt.png")
	code, out, errOut := runCLI(t, "", "emulate", "../../examples/wave.spmd", "-m", "unit", "-D", "Px=4", "-D", "Py=3",
		"--timeline", timeline, "--plot", chart, "-o", "json")
	if code != 0 {
		t.Fatalf("exit status %d: %s", code, errOut)
	}
	var rep struct {
		Schema    string `json:"schema"`
		Emulation struct {
			Events int64   `json:"events"`
			Total  float64 `json:"total_s"`
		} `json:"emulation"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Schema != EmulationSchema || rep.Emulation.Total != 2*(4+3-2)+4*3 {
		t.Errorf("schema %q total %g", rep.Schema, rep.Emulation.Total)
	}
	f, err := os.Open(timeline)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if !json.Valid(sc.Bytes()) {
			t.Fatalf("timeline line %d is not JSON: %s", lines+1, sc.Text())
		}
		lines++
	}
	if lines != rep.Emulation.Events {
		t.Errorf("%d timeline lines for %d events", lines, rep.Emulation.Events)
	}
	png, err := os.ReadFile(chart)
	if err != nil || !strings.HasPrefix(string(png), "\x89PNG") {
		t.Errorf("no PNG chart written: %v", err)
	}
}

// TestEmulateHelp checks that emulate answers --help.
func TestEmulateHelp(t *testing.T) {
	code, out, _ := runCLI(t, "", "emulate", "--help")
	if code != 0 || !strings.Contains(out, "Usage: perfc emulate") || !strings.Contains(out, "--timeline") {
		t.Errorf("emulate --help: status %d, output %q", code, out)
	}
}

// TestEmulateBudgets checks the budget flags of emulate and predict: each
// budget ends a run that would exceed it with an error naming the
// statement and the flag that raises it, and a bad value is refused.
func TestEmulateBudgets(t *testing.T) {
	timeline := filepath.Join(t.TempDir(), "t.jsonl")
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr []string
	}{
		{"ten million ranks", []string{"emulate", "../../examples/stencil1d.spmd", "-D", "P=10000000"}, 1,
			[]string{"stencil1d.spmd:20:1: emulating 10,000,000 ranks needs about 25.09 GiB of memory", "raise it with --max-memory (e.g. --max-memory=26GiB)"}},
		{"memory enough", []string{"emulate", "../../examples/stencil1d.spmd", "-D", "P=100", "--max-memory=2MiB"}, 0, nil},
		{"memory lowered", []string{"emulate", "../../examples/stencil1d.spmd", "-D", "P=100", "--max-memory=1MB"}, 1,
			[]string{"emulating 100 ranks needs about", "the budget is 976.6 KiB"}},
		{"events", []string{"emulate", "../../examples/pingpong.spmd", "-D", "reps=1000000000", "--max-events=1000"}, 1,
			[]string{"pingpong.spmd:21:9: the emulation reached its budget of 1,000 events", "raise it with --max-events", "send buf[0:n] to 1\n"}},
		{"events in predict", []string{"predict", "../../examples/pingpong.spmd", "-D", "reps=1000000000", "--max-events=1000"}, 1,
			[]string{"pingpong.spmd:21:9: the emulation reached its budget of 1,000 events", "--max-events"}},
		{"negative events", []string{"emulate", "../../examples/pingpong.spmd", "--max-events=-1"}, 1,
			[]string{"--max-events=-1: give a positive number of events"}},
		{"not a size", []string{"predict", "../../examples/pingpong.spmd", "--max-memory=2 apples"}, 2,
			[]string{`"2 apples" is not a size: write a positive number of bytes with an optional unit, e.g. 4GiB`}},
		{"timeline", []string{"emulate", "../../examples/pingpong.spmd", "--timeline", timeline, "--max-timeline-events=5"}, 0,
			[]string{"perfc: note: the timeline holds only the first 5 of 400 events; raise the limit with --max-timeline-events"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, "", tt.args...)
			if code != tt.code {
				t.Errorf("exit status %d, want %d; stderr:\n%s", code, tt.code, errOut)
			}
			for _, s := range tt.stderr {
				if !strings.Contains(errOut, s) {
					t.Errorf("stderr does not contain %q:\n%s", s, errOut)
				}
			}
			if tt.stderr == nil && errOut != "" {
				t.Errorf("stderr: %s", errOut)
			}
		})
	}
	if data, err := os.ReadFile(timeline); err != nil || strings.Count(string(data), "\n") != 5 {
		t.Errorf("the timeline has %d lines, want 5 (%v)", strings.Count(string(data), "\n"), err)
	}
}

// TestByteSize checks the sizes --max-memory accepts.
func TestByteSize(t *testing.T) {
	tests := []struct {
		in   string
		want byteSize
		ok   bool
	}{
		{"4096", 4096, true},
		{"2GiB", 2 << 30, true},
		{"512 MiB", 512 << 20, true},
		{"1.5GB", 1_500_000_000, true},
		{"3kib", 3 << 10, true},
		{"10B", 10, true},
		{"0", 0, false},
		{"-1GiB", 0, false},
		{"GiB", 0, false},
		{"1e30", 0, false},
		{"NaN", 0, false},
	}
	for _, tt := range tests {
		var b byteSize
		err := b.UnmarshalText([]byte(tt.in))
		if (err == nil) != tt.ok || b != tt.want {
			t.Errorf("%q: got %d, %v; want %d, ok %v", tt.in, b, err, tt.want, tt.ok)
		}
	}
}
