package calibrate

import (
	"testing"
	"time"

	"perfc/calibrate/host"
	"perfc/internal/golden"
	"perfc/machines"
)

// TestTableGolden writes the table of a calibration whose fits were made
// on synthetic times (known costs on the analyzer's counts): the keys,
// their order, the units and every source, against a golden file
// (go test ./calibrate -update rewrites it); the table must load.
func TestTableGolden(t *testing.T) {
	cf, _, _ := syntheticCore(t)
	mf, _ := syntheticMemory(t)
	res := &Result{
		Host: host.Info{CPU: "Test CPU 9000", Cores: 2, Caches: testCaches, Go: "go1.26.0", GOAMD64: "v1",
			Date: time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)},
		Mode: Tiny, Date: "2026-11-25", Core: cf, Memory: mf, sz: modeSizes(Tiny, 512<<10),
	}
	res.sz.memSteps = 2
	data, err := res.Table()
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/table.golden.yaml", data)
	if _, err := machines.Parse("table.golden.yaml", data); err != nil {
		t.Errorf("the table does not load: %v", err)
	}
}
