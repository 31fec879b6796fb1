package codegen

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPrepareLongKernelName checks that a kernel name far longer than a
// file name may be still gives a cache directory (before, the directory's
// name was the whole kernel name and mkdir failed with "file name too
// long"), and that the name keeps a readable prefix.
func TestPrepareLongKernelName(t *testing.T) {
	name := "k" + strings.Repeat("_long", 100) // 501 bytes
	src := "kernel " + name + "(N = 4) {\n  array a[N]: f64\n  for i in 0..N {\n    a[i] = 1.0\n  }\n}\n"
	p, err := Generate(checkSource(t, "long.spmd", []byte(src), ""), Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir, err := p.Prepare(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Base(dir)
	if len(base) > 100 || !strings.HasPrefix(base, name[:maxCachePrefix]+"-") {
		t.Errorf("cache directory %q: want at most 100 bytes starting with the name's first %d", base, maxCachePrefix)
	}
	if _, err := os.Stat(filepath.Join(dir, "main.go")); err != nil {
		t.Error(err)
	}
}

// TestWithBinaryRebuildsBrokenCache checks that a cached binary that does
// not start (truncated, or not executable) is rebuilt once and the run
// succeeds, where before every later check failed on it.
func TestWithBinaryRebuildsBrokenCache(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	if _, err := goTool(); err != nil {
		t.Skip(err)
	}
	p, err := Generate(checkExample(t, "triad", "N=10"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir, err := p.Prepare(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin, err := Build(ctx, dir, false)
	if err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		data []byte
		perm os.FileMode
	}{
		{"truncated", good[:100], 0o755},
		{"not executable", good, 0o644},
	}
	for _, tt := range tests {
		if err := os.Remove(bin); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin, tt.data, tt.perm); err != nil {
			t.Fatal(err)
		}
		runs := 0
		err := WithBinary(ctx, dir, false, func(b string) error {
			runs++
			_, err := Measure(ctx, b, "-reps", "1", "-samples", "1")
			return err
		})
		if err != nil || runs != 2 {
			t.Errorf("%s: %d runs, err %v; want a rebuild and a second run that succeeds", tt.name, runs, err)
		}
	}
}
