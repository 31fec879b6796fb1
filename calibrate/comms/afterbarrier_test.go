package comms

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfc/codegen/spmd"
	"perfc/machines"
)

// TestCollectivesAfterBarrier checks the benchmark of a collective after a
// barrier: its kernel enters the region once per repetition after a
// barrier, and its point is the region's time per call less the Entry
// region's (the clock reads), the back-to-back point as it was; a region
// no slower than the clock reads keeps them.
func TestCollectivesAfterBarrier(t *testing.T) {
	kp := kernelPlan{ranks: 2}
	kp.add(Bench("bcast"), 8, 1, 1e-3)
	kp.add(AfterBarrier("bcast"), 8, 1, 1e-3)
	kp.add(AfterBarrier("bcast"), 64, 1, 1e-3)
	kp.add(Entry, 0, 1, 1e-3)
	for i := range kp.benches {
		kp.benches[i].reps = 100
	}
	src := kp.source()
	for _, want := range []string{
		"  region \"bcast 8B\" {\n    repeat 100 {\n      bcast x[0:1] from 0\n",
		"  repeat 100 {\n    barrier\n    region \"bcast 8B after a barrier\" {\n      bcast x[0:1] from 0\n    }\n  }\n",
		"  repeat 100 {\n    barrier\n    region \"ENTRY\" {\n    }\n  }\n",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("the kernel has no\n%s\nin\n%s", want, src)
		}
	}
	if _, err := kp.checked(); err != nil {
		t.Fatal(err)
	}
	m := &spmd.Measurement{Regions: []spmd.Timing{
		{Name: "bcast 8B", MinUs: 10, MedianUs: 11, MaxUs: 12},
		{Name: "bcast 8B after a barrier", MinUs: 30, MedianUs: 32, MaxUs: 40},
		{Name: "bcast 64B after a barrier", MinUs: 4, MedianUs: 5, MaxUs: 6},
		{Name: "ENTRY", MinUs: 4, MedianUs: 6, MaxUs: 7},
	}}
	pts, err := kp.points(m)
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		Bench     Bench
		Bytes     float64
		Time, Min float64 // ns
	}
	var out []got
	for _, p := range pts {
		out = append(out, got{p.Bench, p.Bytes, round(p.Time * 1e9), round(p.Min * 1e9)})
	}
	want := []got{
		{"bcast", 8, 110, 100},
		{"bcast after a barrier", 8, 320 - 60, 300 - 60},
		{"bcast after a barrier", 64, 50, 40}, // its fastest (40 ns) is not above the clock reads (60 ns)
	}
	if d := cmp.Diff(want, out); d != "" {
		t.Errorf("points -want +got:\n%s", d)
	}
}

// round is x to the nearest thousandth.
func round(x float64) float64 { return float64(int64(x*1000+0.5)) / 1000 }

// TestAfterBarrierInTable checks that the points of collectives after a
// barrier become their entries' after_barrier: times, fitted as the back-to-back ones
// are, and that an entry without them has none.
func TestAfterBarrierInTable(t *testing.T) {
	pts := withBcastAfterBarrier(synthetic(map[string]Formula{
		"bcast":     coef(map[term]float64{tConst: 1e-6, tBytes: 1e-10}),
		"allreduce": coef(map[term]float64{tConst: 2e-6}),
	}))
	r, err := Analyse(pts, 9, "2026-11-27")
	if err != nil {
		t.Fatal(err)
	}
	m, body := tableOf(t, r)
	iso, ok := m.CollectiveAfterBarrier("bcast", "", "f64")
	if !ok {
		t.Fatalf("bcast has no after_barrier: time in\n%s", body)
	}
	for _, n := range []float64{8, 1 << 20} {
		if got, want := iso.Eval(machines.Vars{Bytes: n, P: 4}), 3e-6+n*1e-10; math.Abs(got-want) > 0.01*want {
			t.Errorf("bcast of %g B after a barrier: %g s, want %g\n%s", n, got, want, body)
		}
	}
	if _, ok := m.CollectiveAfterBarrier("allreduce", "sum", "f64"); ok {
		t.Errorf("allreduce, measured only back to back, has an after_barrier: time in\n%s", body)
	}
}

// TestAfterBarrierPlotted checks that --plot draws the calls after a
// barrier in their kind's panel, beside the back-to-back ones.
func TestAfterBarrierPlotted(t *testing.T) {
	pts := withBcastAfterBarrier(synthetic(map[string]Formula{"bcast": coef(map[term]float64{tConst: 1e-6, tBytes: 1e-10})}))
	r, err := Analyse(pts, 9, "2026-11-27")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := r.Plot(dir); err != nil {
		t.Fatal(err)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "comms-collectives.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("P=%d after a barrier", modeSizes(false, false).ranks[0]); !strings.Contains(string(svg), want) {
		t.Errorf("the collectives' figure has no %q series", want)
	}
}

// withBcastAfterBarrier adds to pts a bcast timed after a barrier at
// every rank count and length of a full run: 3 µs + 0.1 ns/B.
func withBcastAfterBarrier(pts []Point) []Point {
	s := modeSizes(false, false)
	for _, p := range s.ranks {
		for _, n := range s.coll {
			pts = append(pts, Point{Bench: AfterBarrier("bcast"), Bytes: float64(n), Ranks: p, Time: 3e-6 + float64(n)*1e-10})
		}
	}
	return pts
}
