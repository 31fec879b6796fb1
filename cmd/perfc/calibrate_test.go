package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"perfc/machines"
)

// TestCalibrateEndToEnd runs perfc calibrate in its test mode (every
// benchmark and fit once, on few sizes) with -o and --plot, and checks
// that the table loads, has every section and that perfc predict uses
// it; not its numbers, which belong to the machine.
func TestCalibrateEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs generated programs")
	}
	dir := t.TempDir()
	table, plots := filepath.Join(dir, "host.yaml"), filepath.Join(dir, "plots")
	var stdout, stderr bytes.Buffer
	code := run([]string{"calibrate", "--test-mode", "-o", table, "--plot", plots, "--cache-dir", filepath.Join(dir, "cache")},
		env{stdout: &stdout, stderr: &stderr})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "wrote the table") || stdout.Len() != 0 {
		t.Errorf("stdout %q, stderr %q: want the table in the file and a note on stderr", stdout.String(), stderr.String())
	}
	m, err := machines.Load(table)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Host()) == 0 {
		t.Error("no host: entries")
	}
	data, _ := os.ReadFile(table)
	for _, key := range []string{"\ncores:", "\ncompute:", "  loop:", "  access:", "  ops:", "  latency:", "\nmemory:", "compose: ecm",
		"main_bandwidth:", "write_allocate:", "\nmessages:", "\ncollectives:", "\nresults:"} {
		if !strings.Contains(string(data), key) {
			t.Errorf("the table has no %q", strings.TrimSpace(key))
		}
	}
	for _, f := range []string{"incore-fit", "op-costs", "loops", "bandwidth", "stride", "comms-pingpong", "comms-exchange", "comms-sendrecv", "comms-collectives"} {
		for _, ext := range []string{".png", ".svg"} {
			if st, err := os.Stat(filepath.Join(plots, f+ext)); err != nil || st.Size() == 0 {
				t.Errorf("plot %s%s: %v", f, ext, err)
			}
		}
	}
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"predict", "-m", table, "triad"}, env{stdout: &stdout, stderr: &stderr}); code != 0 {
		t.Errorf("perfc predict -m %s triad: exit %d: %s", table, code, stderr.String())
	}
}

// Paths that cannot be written are refused before any benchmark runs.
func TestCalibrateBadPaths(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-o", filepath.Join(dir, "nosuch", "host.yaml")}, "does not exist"},
		{[]string{"--plot", filepath.Join(file, "plots")}, "--plot"},
		{[]string{"-o", file, "--plot", file}, "different paths"},
	} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"calibrate", "--test-mode"}, tc.args...)
		if code := run(args, env{stdout: &stdout, stderr: &stderr}); code == 0 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("perfc %v: exit %d, stderr %q; want an error saying %q", args, code, stderr.String(), tc.want)
		}
	}
}
