package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRooflineJSON checks the JSON's schema key and points.
func TestRooflineJSON(t *testing.T) {
	code, out, errOut := runCLI(t, "", "roofline", "triad", "-m", "../../costmodel/testdata/host.yaml", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r struct {
		Schema string `json:"schema"`
		Points []struct {
			Region    string  `json:"region"`
			Level     string  `json:"level"`
			Intensity float64 `json:"intensity"`
		} `json:"points"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Schema != "perfc.roofline/v1" || len(r.Points) != 3 || r.Points[2].Level != "memory" || r.Points[2].Intensity != 0.0625 {
		t.Fatalf("%+v", r)
	}
}

// TestRooflinePlot checks that --plot writes an SVG naming the regions and
// refuses another extension before any work.
func TestRooflinePlot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "roof.svg")
	code, _, errOut := runCLI(t, "", "roofline", "halo2d", "-m", "../../costmodel/testdata/host.yaml", "--plot", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	svg, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(svg) == 0 || !strings.Contains(string(svg), "<svg") || !strings.Contains(string(svg), "stencil @ ") {
		t.Fatalf("SVG of %d bytes without the stencil region", len(svg))
	}
	code, _, errOut = runCLI(t, "", "roofline", "triad", "--plot", filepath.Join(t.TempDir(), "roof.pdf"))
	if code == 0 || !strings.Contains(errOut, ".svg or .png") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}
