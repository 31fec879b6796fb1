package roofline_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"perfc"
	"perfc/analyze"
	"perfc/costmodel"
	"perfc/internal/kerneltest"
	"perfc/roofline"
)

// build predicts the example kernel on machine and places it on the
// roofline.
func build(t *testing.T, example, machine string, defs ...string) *roofline.Roofline {
	t.Helper()
	k := kerneltest.Load(t, "../examples/"+example+".spmd", defs...)
	m, err := perfc.LoadMachine(machine, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := analyze.Analyze(k, analyze.Options{Cache: m.CacheHierarchy()})
	if err != nil {
		t.Fatal(err)
	}
	pred, err := costmodel.Predict(k, rep, m, costmodel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := roofline.Build(rep, pred, m)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestTriadByHand checks the triad's intensities on a host-style table
// (L1 and L2 with bandwidths, main bandwidth, peak 8 Gflop/s) against a
// count by hand. Per element the triad does 2 flop and touches 8 B of each
// of a, b and c; every level sees a stream (the arrays are far larger than
// L2), so the model brings in 3N/8 lines of 64 B and writes back the N/8
// lines of a (write-allocate, write-back): 32 B per element, not STREAM's
// 24, and the intensity is 2/32 = 1/16 flop/B at L1, L2 and main memory
// (whose traffic is the last level's).
func TestTriadByHand(t *testing.T) {
	const n = 1_000_000
	r := build(t, "triad", "../costmodel/testdata/host.yaml", "N", "1000000")
	if r.Schema != roofline.Schema || r.Peak == nil || r.Peak.Peak != 8e9 || r.Peak.Name != "peak f64" {
		t.Fatalf("schema %q, peak %+v", r.Schema, r.Peak)
	}
	want := map[string]float64{"L1": 100e9, "L2": 50e9, "memory": 10e9}
	if len(r.Points) != 3 {
		t.Fatalf("points %+v, want L1, L2 and memory", r.Points)
	}
	for _, p := range r.Points {
		if p.Region != "triad" {
			t.Fatalf("region %q", p.Region)
		}
		if p.Flop != 2*n || p.Bytes != (3*n/8+n/8)*64 || p.Intensity != 1.0/16 {
			t.Errorf("%s: flop %g, bytes %g, intensity %g; want %d, %d, 1/16", p.Level, p.Flop, p.Bytes, p.Intensity, 2*n, 32*n)
		}
		bw, ok := want[p.Level]
		if !ok {
			t.Fatalf("level %q", p.Level)
		}
		if b := bw / 16; math.Abs(p.Bound-b) > 1e-6*b || p.BoundBy != p.Level+" bandwidth" {
			t.Errorf("%s: bound %g by %q, want %g by the %s bandwidth", p.Level, p.Bound, p.BoundBy, b, p.Level)
		}
		if p.Time <= 0 || math.Abs(p.Predicted-p.Flop/p.Time) > 1e-9*p.Predicted {
			t.Errorf("%s: predicted %g flop/s in %g s", p.Level, p.Predicted, p.Time)
		}
	}
}

// TestECMCeilings checks the roofline of a compose: ecm table, where a
// level's bandwidth is the rate at which it delivers lines to the level
// above: the traffic of L1 is bounded by L2's bandwidth, L2's by L3's, and
// L3's by main memory's; L1's own bandwidth (not given) bounds nothing.
func TestECMCeilings(t *testing.T) {
	r := build(t, "triad", "../costmodel/testdata/ecm.yaml", "N", "1000000")
	want := map[string]string{"L1": "L2 bandwidth", "L2": "L3 bandwidth", "L3": "memory bandwidth", "memory": "memory bandwidth"}
	bw := map[string]float64{"L2 bandwidth": 64e9, "L3 bandwidth": 32e9, "memory bandwidth": 16e9}
	if len(r.Points) != 4 {
		t.Fatalf("points %+v, want L1, L2, L3 and memory", r.Points)
	}
	for _, p := range r.Points {
		// 32 B per element at every level (a stream), 2 flop: 1/16 flop/B.
		if b := bw[want[p.Level]] / 16; p.BoundBy != want[p.Level] || math.Abs(p.Bound-b) > 1e-6*b {
			t.Errorf("%s: bound %g by %q, want %g by %s", p.Level, p.Bound, p.BoundBy, b, want[p.Level])
		}
	}
	for _, n := range r.Notes {
		if strings.Contains(n, "is above its ceiling") {
			t.Errorf("the ecm prediction charges every level's traffic at the bandwidth it is bounded by; note %q", n)
		}
	}
}

// TestMissingCeilings checks that a table without a peak rate or a
// bandwidth says so rather than inventing one, and that without caches the
// main-memory traffic is the bytes loaded and stored (24 B per element).
func TestMissingCeilings(t *testing.T) {
	r := build(t, "triad", "unit", "N", "1000")
	if r.Peak != nil {
		t.Fatalf("unit has no peak, got %+v", r.Peak)
	}
	if len(r.Points) != 1 || r.Points[0].Level != "memory" || r.Points[0].Intensity != 2.0/24 {
		t.Fatalf("points %+v", r.Points)
	}
	var buf bytes.Buffer
	if err := r.WriteTable(&buf); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"no ceiling: the table gives no peak rate", "no ceiling: the table gives no bandwidth", "bytes loaded and stored"} {
		if !strings.Contains(buf.String(), s) {
			t.Errorf("table lacks %q:\n%s", s, buf.String())
		}
	}
	// cm5-32 has a peak and a main bandwidth but no L1 bandwidth.
	r = build(t, "triad", "cm5-32", "N", "100000")
	buf.Reset()
	if err := r.WriteTable(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "L1 bandwidth: no ceiling: the table gives no bandwidth") {
		t.Errorf("cm5-32 table:\n%s", buf.String())
	}
}

// TestPlot checks that the figure is drawn and names the regions.
func TestPlot(t *testing.T) {
	for _, tc := range []struct{ example, machine string }{{"triad", "../costmodel/testdata/host.yaml"}, {"halo2d", "../costmodel/testdata/host.yaml"}, {"triad", "unit"}} {
		r := build(t, tc.example, tc.machine)
		var buf bytes.Buffer
		if err := r.WriteTo(&buf, "svg"); err != nil {
			t.Fatal(err)
		}
		if buf.Len() == 0 {
			t.Fatal("empty SVG")
		}
		for _, p := range r.Points {
			if p.Predicted > 0 && !strings.Contains(buf.String(), p.Region+" @ ") {
				t.Errorf("%s on %s: the SVG does not name region %s", tc.example, tc.machine, p.Region)
			}
		}
	}
}

// TestNoFlop checks that a kernel without floating-point work still shows
// the table's ceilings and says why it has no points.
func TestNoFlop(t *testing.T) {
	r := build(t, "pingpong", "../costmodel/testdata/host.yaml")
	if r.Peak == nil || r.Peak.Peak != 8e9 || len(r.Points) != 0 {
		t.Fatalf("peak %+v, points %+v", r.Peak, r.Points)
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "no region does floating-point work") {
		t.Errorf("notes %q", r.Notes)
	}
}
