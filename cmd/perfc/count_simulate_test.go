package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// matvecArgs count Kerncraft's matvec with a leading dimension of 1024 on
// an 8-way 32 KiB L1, where its column walk thrashes.
var matvecArgs = []string{"count", "../../analyze/testdata/kerncraft/kc_matvec.spmd", "-D", "M=1024", "-D", "N=100",
	"--cache", "L1=32KiB/64B/8,L2=1MiB/64B/16"}

// TestCountSimulate runs perfc count --simulate: the simulation prints
// beside the model, the conflict warning names the padding, and the
// budget, -m and the JSON work as docs/counts.md says.
func TestCountSimulate(t *testing.T) {
	code, out, errOut := runCLI(t, "", append(matvecArgs, "--simulate")...)
	if code != 0 {
		t.Fatalf("status %d, stderr %s", code, errOut)
	}
	for _, want := range []string{
		"warning: conflict misses in L1: reuse across iterations of j",
		"pad the leading dimension: a's 1024 to 1032 to remove them",
		"exact LRU simulation of rank 0 (cache L1=32KiB/64B/8,L2=1MiB/64B/16; 409,600 loads and stores; arrays in declaration order, each at a multiple of 8,192 B (8 KiB)):",
		"total     L1              102,882  12,826     -87.5 %",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	code, _, errOut = runCLI(t, "", append(matvecArgs, "--simulate", "--max-accesses", "1000")...)
	if want := "the simulation of rank 0 makes 409,600 loads and stores, more than the budget of 1,000; raise it with --max-accesses"; code != 1 || !strings.Contains(errOut, want) {
		t.Errorf("over budget: status %d, stderr %q, want %q", code, errOut, want)
	}

	code, _, errOut = runCLI(t, "", append(matvecArgs, "-m", "t3e")...)
	if want := "-m and --cache both name the caches"; code != 1 || !strings.Contains(errOut, want) {
		t.Errorf("-m with --cache: status %d, stderr %q, want %q", code, errOut, want)
	}
	code, out, errOut = runCLI(t, "", "count", "../../analyze/testdata/kerncraft/kc_triad.spmd", "-m", "t3e", "--simulate")
	if code != 0 || !strings.Contains(out, "exact LRU simulation of rank 0 (cache L1=8KiB/32B/1,") {
		t.Errorf("-m t3e --simulate: status %d, stderr %s:\n%s", code, errOut, out)
	}

	code, out, errOut = runCLI(t, "", append(matvecArgs, "--simulate", "--per-iteration", "-o", "json")...)
	var doc struct {
		Simulation struct {
			Total []struct {
				Level string `json:"level"`
				Lines int64  `json:"lines"`
			} `json:"total"`
		} `json:"simulation"`
		Conflicts []struct {
			Level   string `json:"level"`
			Padding string `json:"padding"`
		} `json:"conflicts"`
		Steady []struct {
			Levels []struct {
				SteadyLines *float64 `json:"steady_lines"`
			} `json:"levels"`
		} `json:"steady"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 0 {
		t.Fatalf("-o json: status %d, %v; stderr %s", code, err, errOut)
	}
	if len(doc.Simulation.Total) != 2 || doc.Simulation.Total[0].Lines != 102882 || len(doc.Conflicts) != 1 ||
		len(doc.Steady) != 1 || len(doc.Steady[0].Levels) != 2 || doc.Steady[0].Levels[0].SteadyLines == nil {
		t.Errorf("-o json: %+v", doc)
	}
}

// TestCountPerIteration checks --per-iteration's table and the sizes at
// which matmul's layer conditions change (docs/counts.md).
func TestCountPerIteration(t *testing.T) {
	code, out, errOut := runCLI(t, "", "count", "../../examples/matmul.spmd", "-D", "N=24", "--cache", "L1=1KiB/64B/4,L2=8KiB/64B/8", "--per-iteration")
	if code != 0 {
		t.Fatalf("status %d, stderr %s", code, errOut)
	}
	for _, want := range []string{
		"multiply          1728     L1              9.33    9.33           597.3 B  597.3 B                     0.33    0.33",
		"from L1 while 72*N + 64 B <= 1 KiB: fails (1792 B); holds while N <= 13",
		"from L2 while 8*N^2 + 16*N B <= 8 KiB: holds (4992 B); breaks at N = 32",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestPredictConflictWarning checks that perfc predict carries the
// conflict warning.
func TestPredictConflictWarning(t *testing.T) {
	code, out, errOut := runCLI(t, "", "predict", "../../analyze/testdata/kerncraft/kc_matvec.spmd", "-D", "M=1024", "-D", "N=100", "-m", "t3e")
	if code != 0 || !strings.Contains(out, "warning: conflict misses in L1") {
		t.Errorf("predict: status %d, stderr %s:\n%s", code, errOut, out)
	}
}
