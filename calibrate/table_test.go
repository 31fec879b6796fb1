package calibrate

import (
	"strings"
	"testing"
	"time"

	"perfc/analyze/cache"
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

// A level with no working set of the sweep between it and the level above
// (L2 only a little larger than L1) takes the next level's rate, marked
// derived, so that the ecm table still loads.
func TestTableDerivesUnsweptLevel(t *testing.T) {
	h := cache.Hierarchy{
		{Name: "L1", Size: 4 << 10, Line: 64, Assoc: 8},
		{Name: "L2", Size: 5 << 10, Line: 64, Assoc: 5},
		{Name: "L3", Size: 512 << 10, Line: 64, Assoc: 16},
	}
	sz := modeSizes(Tiny, 512<<10)
	pts := countedPoints(t, memoryKernel(sz), h)
	for i := range pts {
		pts[i].seconds = 1e-6 * float64(pts[i].n*pts[i].reps) / 1e3
	}
	mf, err := fitMemory(&measuredKernel{points: pts}, h)
	if err != nil {
		t.Fatal(err)
	}
	cf, _, _ := syntheticCore(t)
	res := &Result{Host: host.Info{CPU: "Test", Cores: 2, Caches: h, Go: "go1.26.0"}, Date: "2026-11-25", Core: cf, Memory: mf, sz: sz}
	data, err := res.Table()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := machines.Parse("derived.yaml", data); err != nil {
		t.Fatalf("the table does not load: %v\n%s", err, data)
	}
	if !strings.Contains(string(data), "[derived] no working set of the sweep lay between L1 and L2") {
		t.Errorf("L2's rate is not marked derived:\n%s", data)
	}
}
