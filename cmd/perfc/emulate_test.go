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
