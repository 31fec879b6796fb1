package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"perfc/codegen/spmd"
	"perfc/lang"
)

// fixedPredictor predicts the same time for every region.
type fixedPredictor struct{}

func (fixedPredictor) Machine() string { return "test" }
func (fixedPredictor) PredictRegions(k *lang.Checked) (map[string]float64, error) {
	return map[string]float64{"round trips": 1e-6, "total": 2e-6}, nil
}

// TestCheck generates, builds and runs a small pingpong with its counts,
// as text and as JSON, without and with a predictor.
func TestCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip(err)
	}
	cache := t.TempDir()
	args := []string{"check", "../../examples/pingpong.spmd", "-D", "n=16", "-D", "reps=3", "--reps", "1", "--samples", "2",
		"--cache-dir", cache, "--counts"}
	code, out, errOut := runCLI(t, "", args...)
	for _, want := range []string{
		"check of kernel pingpong (../../examples/pingpong.spmd): n = 16, reps = 3, P = 2; 2 ranks",
		"measured: wall clock per run of the slowest rank; 2 measurements of 1 runs each",
		"round trips", "predicted us (cm5-32)", "the prediction is for the built-in table cm5-32, not for this computer",
		"exact counts over 2 ranks:", "agree, 0 differ; 0 depend on data",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	code, out, errOut = runCLI(t, "", append(args, "-o", "json")...)
	var res checkResult
	if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil {
		t.Fatalf("exit %d, %v: %s %s", code, err, out, errOut)
	}
	if res.Schema != CheckSchema || res.Measurement == nil || len(res.Measurement.Regions) != 2 || res.Counts == nil || !res.Counts.OK() || res.Machine != "cm5-32" || res.Predicted["total"] <= 0 {
		t.Errorf("JSON %+v", res)
	}
	var buf, errBuf bytes.Buffer
	c := &checkCmd{kernelArgs: kernelArgs{File: "../../examples/pingpong.spmd", Define: []string{"n=16", "reps=3"}},
		outputArg: outputArg{Output: "table"}, Reps: 1, Samples: 1, MinTime: 1, Timeout: 60e9, CacheDir: cache}
	if err := c.check(env{stdout: &buf, stderr: &errBuf}, fixedPredictor{}); err != nil {
		t.Fatal(err, errBuf.String())
	}
	if !strings.Contains(buf.String(), "predicted us (test)") || !strings.Contains(buf.String(), "1.000") || strings.Contains(buf.String(), noPrediction) {
		t.Errorf("with a predictor:\n%s", buf.String())
	}
}

// TestCheckSettle runs check with --settle on a table of this project's
// host: the witnesses are timed around the measurement and reported, as
// text and as JSON. Whether the host settles belongs to the machine, so
// only the record is checked, not its verdict.
func TestCheckSettle(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs three programs")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip(err)
	}
	cache := t.TempDir()
	args := []string{"check", "../../examples/pingpong.spmd", "-D", "n=16", "-D", "reps=3", "--reps", "1", "--samples", "2",
		"--cache-dir", cache, "-m", hostTable, "--settle", "1s"}
	code, out, errOut := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "host (witnesses, measured/predicted on "+hostTable+"): before the measurement a core x") || !strings.Contains(out, "after it a core x") {
		t.Errorf("output lacks the witnesses' line:\n%s", out)
	}
	code, out, errOut = runCLI(t, "", append(args, "-o", "json")...)
	var res checkResult
	if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil {
		t.Fatalf("exit %d, %v: %s %s", code, err, out, errOut)
	}
	if res.Settle == nil || res.Witness == nil || !(res.Witness.CorePredicted > 0) || !(res.Witness.Copy > 0) ||
		res.Settle.WitnessAfter == nil || res.Settle.Waited > 1 {
		t.Errorf("JSON settle %+v, witness %+v", res.Settle, res.Witness)
	}
	code, _, errOut = runCLI(t, "", "check", "../../examples/pingpong.spmd", "--mpi", "--settle", "1s", "-m", hostTable, "--cache-dir", cache)
	if code == 0 || !strings.Contains(errOut, "--settle times witness kernels of goroutine ranks") {
		t.Errorf("check --mpi --settle: exit %d, %s", code, errOut)
	}
}

// TestCheckTimeout checks that a build stopped by --timeout says so and
// names the flag, and leaves no partial binary in the cache.
func TestCheckTimeout(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip(err)
	}
	cache := t.TempDir()
	code, _, errOut := runCLI(t, "", "check", "../../examples/pingpong.spmd", "--cache-dir", cache, "--timeout", "1ns")
	if code != 1 || !strings.Contains(errOut, "did not finish") || !strings.Contains(errOut, "--timeout 1ns") {
		t.Errorf("check --timeout 1ns: exit %d, stderr %q; want 1 and a message naming --timeout", code, errOut)
	}
	bins, _ := filepath.Glob(filepath.Join(cache, "*", "kernel*"))
	if len(bins) != 0 {
		t.Errorf("a stopped build left %q in the cache", bins)
	}
}

// TestCheckErrorSign checks the error column's convention, the one perfc
// validate uses: (predicted − measured)/measured, negative when perfc
// predicts too short.
func TestCheckErrorSign(t *testing.T) {
	m := &spmd.Measurement{Kernel: "k", File: "k.spmd", Ranks: 1, Samples: 1, Runs: 1,
		Regions: []spmd.Timing{{Name: "r", MinUs: 2, MedianUs: 2, MaxUs: 2}},
		Total:   spmd.Timing{Name: "total", MinUs: 4, MedianUs: 4, MaxUs: 4}}
	var buf bytes.Buffer
	printCheck(&buf, checkResult{Measurement: m, Machine: "t", Predicted: map[string]float64{"r": 1e-6, "total": 6e-6}})
	for _, want := range []string{"-50.0%", "+50.0%"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, buf.String())
		}
	}
}
