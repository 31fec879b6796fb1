// Package golden compares test output with golden files, for every package
// whose tests keep them. It registers the -update flag once: go test
// ./PKG -update rewrites the files instead of comparing against them.
// Only tests import it.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/ instead of comparing against them")

// Updating reports whether the test run rewrites golden files (-update).
func Updating() bool { return *update }

// Check compares got with the golden file at path and reports a difference
// as a test error with a -want +got diff; with -update it writes got to
// path instead, creating its directory.
func Check[T ~string | ~[]byte](t testing.TB, path string, got T) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, diff)
	}
}
