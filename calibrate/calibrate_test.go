package calibrate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"perfc/machines"
)

// TestTinyCalibrationLoads runs the whole calibration in its test mode and
// checks that the table it writes loads and has every section (not its
// numbers, which belong to the machine).
func TestTinyCalibrationLoads(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs generated programs")
	}
	var names []string
	res, err := Run(context.Background(), Options{Mode: Tiny, CacheDir: t.TempDir(), Progress: func(name string, done, total float64) {
		if done > total+1e-9 {
			t.Errorf("progress %g of %g", done, total)
		}
		names = append(names, name)
	}})
	if err != nil {
		t.Fatal(err)
	}
	data, err := res.Table()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "host.yaml")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("CALIB_SHOW") != "" {
		t.Logf("%s", data)
	}
	m, err := machines.Load(path)
	if err != nil {
		t.Fatalf("the table does not load: %v\n%s", err, data)
	}
	if m.LocalMessages() == nil {
		t.Errorf("the table has no messages.local (the LOCAL pingpong's law)")
	}
	for _, key := range []string{"\nhost:", "\ncompute:", "  loop:", "  access:", "  ops:", "  latency:", "\nmemory:",
		"compose: ecm", "main_bandwidth:", "write_allocate:", "\nmessages:", "\ncollectives:", "\nresults:", "TICK2", "RINF1", "IMH stride"} {
		if !strings.Contains(string(data), key) {
			t.Errorf("the table has no %q", strings.TrimSpace(key))
		}
	}
	if len(names) == 0 {
		t.Error("no progress reported")
	}
}
