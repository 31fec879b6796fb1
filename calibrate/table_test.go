package calibrate

import (
	"math"
	"strings"
	"testing"
	"time"

	"perfc/analyze/cache"
	"perfc/calibrate/comms"
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

// TestTableMPIGolden writes the table of a calibration whose messages went
// through MPI (perfc calibrate --mpi): its name, description, source and
// host: entries say so (backend, library, launcher), and every source of
// messages: and collectives: says perfc calibrate --mpi; golden file
// testdata/table-mpi.golden.yaml (go test ./calibrate -update rewrites
// it). The table must load, and validate --mpi must see it as MPI's.
func TestTableMPIGolden(t *testing.T) {
	cf, _, _ := syntheticCore(t)
	mf, _ := syntheticMemory(t)
	var pts []comms.Point
	for _, n := range []float64{0, 8, 64, 512, 4 << 10, 32 << 10, 256 << 10} {
		pts = append(pts, comms.Point{Bench: comms.Comms1, Bytes: n, Ranks: 2, Time: 2e-6 + n/2e9})
	}
	for _, p := range []int{2, 4} {
		lg := math.Log2(float64(p))
		// COMMS3 at 8 B: a step of 1.208 µs on 2 ranks, 20.008 µs on 4 (2
		// cores): core_switch 20.008/2 − 1.208 = 8.796 µs.
		step := map[int]float64{2: 1.2e-6, 4: 20e-6}[p]
		for _, n := range []float64{8, 32 << 10} {
			pts = append(pts, comms.Point{Bench: comms.Comms3, Bytes: n, Ranks: p, Time: float64(p-1) * (step + n/1e9)})
		}
		pts = append(pts, comms.Point{Bench: comms.Synch1, Ranks: p, Time: 0.4e-6 * lg * float64(p)})
		for _, n := range []float64{8, 4 << 10, 32 << 10} {
			pts = append(pts, comms.Point{Bench: "allreduce", Bytes: n, Ranks: p, Time: 0.5e-6 + lg*(1e-6+n/1e9)})
		}
	}
	cr, err := comms.Analyse(pts, 7, "2026-11-25")
	if err != nil {
		t.Fatal(err)
	}
	cr.SetTransport(comms.Transport{Backend: "mpi", Library: "Open MPI 4.1.4", Cores: 2,
		Launchers: map[int]string{2: "mpirun --allow-run-as-root -n 2", 4: "mpirun --allow-run-as-root --oversubscribe -n 4"}})
	res := &Result{
		Host: host.Info{CPU: "Test CPU 9000", Cores: 2, Caches: testCaches, Go: "go1.26.0", GOAMD64: "v1",
			Date: time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)},
		Mode: Quick, Date: "2026-11-25", Core: cf, Memory: mf, Comms: cr, sz: modeSizes(Tiny, 512<<10),
	}
	res.sz.memSteps = 2
	data, err := res.Table()
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/table-mpi.golden.yaml", data)
	m, err := machines.Parse("table-mpi.golden.yaml", data)
	if err != nil {
		t.Fatalf("the table does not load: %v", err)
	}
	got := map[string]string{}
	for _, h := range m.Host() {
		got[h.Key] = h.Value
	}
	want := map[string]string{"backend": "mpi", "mpi": "Open MPI 4.1.4", "launcher": "mpirun --allow-run-as-root --oversubscribe -n 4"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("host %s: %q, want %q", k, got[k], v)
		}
	}
	if m.Name() != "host-mpi" || !strings.Contains(m.Description(), "through MPI (Open MPI 4.1.4)") {
		t.Errorf("name %q, description %q: want host-mpi and a description that says MPI", m.Name(), m.Description())
	}
	if src := m.Messages("f64").Source(); !strings.HasPrefix(src, "perfc calibrate --mpi COMMS1 pingpong through MPI") {
		t.Errorf("messages source %q does not say MPI", src)
	}
	if cs, ok := m.CoreSwitch(); !ok || math.Abs(cs.Value-8.796e-6) > 1e-10 {
		t.Errorf("core_switch %+v %v, want 8.796us from COMMS3's steps", cs, ok)
	}
}
