package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCheck checks that an equal file passes; -update writing is exercised
// by every package's golden tests.
func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.golden")
	if err := os.WriteFile(path, []byte("same\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	Check(t, path, "same\n")
	Check(t, path, []byte("same\n"))
}
