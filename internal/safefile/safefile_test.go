package safefile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWrite checks that a complete write replaces the file with the new
// permission bits, and that a write failing half-way leaves the old file
// and no temporary file behind.
func TestWrite(t *testing.T) {
	errFull := errors.New("no space left on device")
	tests := []struct {
		name     string
		fill     func(io.Writer) error
		wantErr  bool
		wantData string
	}{
		{"complete", func(w io.Writer) error { _, err := io.WriteString(w, "new contents\n"); return err }, false, "new contents\n"},
		{"fails half-way", func(w io.Writer) error {
			if _, err := io.WriteString(w, "new con"); err != nil {
				return err
			}
			return errFull
		}, true, "old contents\n"},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		path := filepath.Join(dir, "k.spmd")
		if err := os.WriteFile(path, []byte("old contents\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		err := Write(path, 0o640, tt.fill)
		if (err != nil) != tt.wantErr || (tt.wantErr && !errors.Is(err, errFull)) {
			t.Errorf("%s: err = %v, want error %v", tt.name, err, tt.wantErr)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.wantData, string(data)); diff != "" {
			t.Errorf("%s: contents (-want +got):\n%s", tt.name, diff)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 1 {
			t.Errorf("%s: the directory holds %d entries, want only k.spmd (no temporary file left)", tt.name, len(entries))
		}
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		wantPerm := os.FileMode(0o640)
		if tt.wantErr {
			wantPerm = 0o600
		}
		if info.Mode().Perm() != wantPerm {
			t.Errorf("%s: mode %v, want %v", tt.name, info.Mode().Perm(), wantPerm)
		}
	}
}

// TestWriteFileMissingDirectory checks that a directory that does not
// exist is an error naming the file.
func TestWriteFileMissingDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no", "k.spmd")
	err := WriteFile(path, []byte("x"), 0o644)
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err = %v, want a not-exist error", err)
	}
}
