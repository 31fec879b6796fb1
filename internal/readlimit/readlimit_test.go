package readlimit

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFile reads files at, over and far over the limit, and an endless
// device.
func TestFile(t *testing.T) {
	dir := t.TempDir()
	atLimit := filepath.Join(dir, "at.spmd")
	over := filepath.Join(dir, "over.spmd")
	if err := os.WriteFile(atLimit, bytes.Repeat([]byte("x"), Max), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(over, bytes.Repeat([]byte("x"), 3*Max), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path    string
		wantErr string
	}{
		{atLimit, ""},
		{over, over + ": the input is 3145728 bytes; perfc reads at most 1 MiB (1048576 bytes)"},
		{"/dev/zero", "/dev/zero: the input is more than 1 MiB; perfc reads at most 1 MiB"},
		{filepath.Join(dir, "missing.spmd"), "no such file"},
	}
	for _, tt := range tests {
		if tt.path == "/dev/zero" {
			if _, err := os.Stat(tt.path); err != nil {
				continue
			}
		}
		data, err := File(tt.path)
		switch {
		case tt.wantErr == "" && (err != nil || len(data) != Max):
			t.Errorf("%s: %d bytes, err %v; want %d bytes", tt.path, len(data), err, Max)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s: err %v, want %q", tt.path, err, tt.wantErr)
		}
	}
}

// TestReader refuses an endless stream without reading it whole.
func TestReader(t *testing.T) {
	_, err := Reader(endless{}, "<stdin>")
	if err == nil || !strings.Contains(err.Error(), "<stdin>: the input is more than 1 MiB") {
		t.Fatalf("err %v", err)
	}
}

// endless is a stream that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) { return len(p), nil }
