package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGen writes a program, rewrites it, and refuses a directory that
// holds other code, an empty directory name and a kernel too large for
// the limit.
func TestGen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "triad")
	for range 2 {
		code, out, errOut := runCLI(t, "", "gen", "../../examples/triad.spmd", "-D", "N=1000", "--out", dir)
		if code != 0 || !strings.Contains(out, "wrote "+dir+": kernel triad on 1 rank, ") || !strings.Contains(out, "files; it needs 23.5 KiB of memory to run") ||
			!strings.Contains(out, "go run -tags perfc_count . -count") {
			t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "main.go")); err != nil {
		t.Error(err)
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "go.mod"), []byte("module mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--out", other}, "holds go.mod, which perfc did not write"},
		{[]string{"--out", dir, "--mem-limit", "1000"}, "needs 23.5 KiB of memory for its arrays and message buffers, more than the limit of 1000 B"},
		{[]string{"--out", ""}, "perfc: the directory name is empty: name the directory to write the program into, e.g. --out ./kernel"},
	}
	for _, tt := range tests {
		code, _, errOut := runCLI(t, "", append([]string{"gen", "../../examples/triad.spmd", "-D", "N=1000"}, tt.args...)...)
		if code != 1 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, stderr %q, want 1 and %q", tt.args, code, errOut, tt.want)
		}
	}
}
