package comms

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go.yaml.in/yaml/v4"

	"perfc/calibrate/fit"
	"perfc/codegen"
	"perfc/codegen/spmd"
	"perfc/lang"
	"perfc/machines"
	"perfc/parser"
)

// TestKernelsCheck: every mode's generated kernels parse, check and
// generate (no build: that is the end-to-end test's).
func TestKernelsCheck(t *testing.T) {
	for _, mode := range []struct {
		name        string
		quick, tiny bool
	}{{"full", false, false}, {"quick", true, false}, {"tiny", false, true}} {
		s := modeSizes(mode.quick, mode.tiny)
		s.cores = 2 // SAMECORE too
		for _, kp := range plan(s) {
			f, err := parser.ParseFile("k.spmd", []byte(kp.source()))
			if err != nil {
				t.Fatalf("%s P=%d: %v\n%s", mode.name, kp.ranks, err, kp.source())
			}
			k, err := lang.Check(f, "", nil)
			if err != nil {
				t.Fatalf("%s P=%d: %v", mode.name, kp.ranks, err)
			}
			if _, err := codegen.Generate(k, codegen.Options{}); err != nil {
				t.Fatalf("%s P=%d: %v", mode.name, kp.ranks, err)
			}
			for _, b := range kp.benches {
				if b.reps < 1 {
					t.Errorf("%s: %d repetitions", b.name, b.reps)
				}
			}
			// Every region starts after a barrier, so that no rank
			// enters one early and waits there (GAP before WAKE).
			lines := strings.Split(kp.source(), "\n")
			for i, l := range lines {
				if strings.HasPrefix(l, "  region ") && (i == 0 || lines[i-1] != "  barrier") {
					t.Errorf("%s P=%d: %q does not follow a barrier", mode.name, kp.ranks, l)
				}
			}
		}
	}
}

// synthetic builds the points a machine with known laws would measure:
// the host's three pingpong regimes, and collectives of known formulas.
func synthetic(coll map[string]Formula) []Point {
	law := func(n float64) float64 {
		switch {
		case n < 16<<10:
			return 0.135e-6 + n/170e9
		case n < 256<<10:
			return 0.2e-6 + n/79e9
		}
		return 2e-6 + n/21e9
	}
	var pts []Point
	s := modeSizes(false, false)
	for _, n := range s.comms1 {
		pts = append(pts, Point{Bench: Comms1, Bytes: float64(n), Ranks: 2, Time: law(float64(n))})
	}
	for _, n := range s.comms2 {
		pts = append(pts, Point{Bench: Comms2, Bytes: float64(n), Ranks: 2, Time: 0.3e-6 + float64(n)/40e9})
	}
	for _, p := range s.ranks {
		for _, n := range comms3Sizes(s, p) {
			pts = append(pts, Point{Bench: Comms3, Bytes: float64(n), Ranks: p, Time: float64(p-1) * (0.5e-6 + float64(n)/20e9)})
		}
		for kind, f := range coll {
			sizes := s.coll
			if kind == "barrier" {
				sizes = []int64{0}
			}
			for _, n := range sizes {
				b := Bench(kind)
				if kind == "barrier" {
					b = Synch1
				}
				pts = append(pts, Point{Bench: b, Bytes: float64(n), Ranks: p, Time: f.Time(float64(n), p)})
			}
		}
	}
	return pts
}

// coef builds a formula from term coefficients.
func coef(c map[term]float64) Formula {
	var f Formula
	for t, v := range c {
		f.Coef[t] = v
	}
	return f
}

// knownFormulas are one formula per collective kind, in each form.
func knownFormulas() map[string]Formula {
	return map[string]Formula{
		"bcast":     coef(map[term]float64{tConst: 0.2e-6, tLog: 0.4e-6, tBytes: 0.05e-9, tBytesLog: 0.1e-9}),
		"reduce":    coef(map[term]float64{tConst: 0.3e-6, tLog: 0.5e-6, tBytesLog: 0.2e-9}),
		"allreduce": coef(map[term]float64{tConst: 0.2e-6, tLog: 0.4e-6, tBytes: 0.1e-9, tBytesLog: 0.3e-9}),
		"scatter":   coef(map[term]float64{tConst: 0.5e-6, tLinear: 0.3e-6, tBytesLinear: 0.08e-9}),
		"gather":    coef(map[term]float64{tConst: 0.5e-6, tLog: 0.3e-6, tBytes: 0.02e-9, tBytesLinear: 0.08e-9}),
		"allgather": coef(map[term]float64{tConst: 0.4e-6, tLinear: 0.6e-6, tBytes: 0.05e-9, tBytesLinear: 0.1e-9}),
		"alltoall":  coef(map[term]float64{tConst: 0.4e-6, tLinear: 1.2e-6, tBytesLinear: 0.25e-9}),
		"scan":      coef(map[term]float64{tConst: 0.3e-6, tPLog: 0.1e-6, tBytesPLog: 0.05e-9}),
		"barrier":   coef(map[term]float64{tConst: 0.05e-6, tPLog: 0.105e-6}),
	}
}

func TestFitFormulaRecoversCoefficients(t *testing.T) {
	pts := synthetic(knownFormulas())
	for kind, want := range knownFormulas() {
		b := Bench(kind)
		if kind == "barrier" {
			b = Synch1
		}
		var kp []Point
		for _, p := range pts {
			if p.Bench == b {
				kp = append(kp, p)
			}
		}
		got, err := FitFormula(kp, 0)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		for tm := range nTerms {
			w, g := want.Coef[tm], got.Coef[tm]
			if math.Abs(g-w) > 0.01*math.Abs(w)+1e-18 {
				t.Errorf("%s: term %d = %g, want %g within 1 %%", kind, tm, g, w)
			}
		}
		if got.RMS() > 1e-6 {
			t.Errorf("%s: rms %g on exact points", kind, got.RMS())
		}
	}
}

// TestFitFormulaKnee: a collective whose bytes cost more beyond a knee
// (the payloads leave the first-level cache) is recovered with the knee
// terms, and written with max(0B, bytes - knee).
func TestFitFormulaKnee(t *testing.T) {
	want := coef(map[term]float64{tConst: 0.2e-6, tPLog: 0.1e-6, tBytesLog: 0.05e-9, tKneePLog: 0.03e-9})
	want.Knee = 16 << 10
	var pts []Point
	for _, p := range []int{2, 4, 8} {
		for _, n := range modeSizes(false, false).coll {
			pts = append(pts, Point{Bench: "allreduce", Bytes: float64(n), Ranks: p, Time: want.Time(float64(n), p)})
		}
	}
	linear, err := FitFormula(pts, 0)
	if err != nil {
		t.Fatal(err)
	}
	if linear.RMS() < 0.05 {
		t.Fatalf("without the knee the fit has rms %g: the test data do not need it", linear.RMS())
	}
	got, err := FitFormula(pts, 16<<10)
	if err != nil {
		t.Fatal(err)
	}
	for tm := range nTerms {
		if w, g := want.Coef[tm], got.Coef[tm]; math.Abs(g-w) > 0.01*math.Abs(w)+1e-18 {
			t.Errorf("term %d = %g, want %g within 1 %%", tm, g, w)
		}
	}
	text := formulaText(got)
	if !strings.Contains(text, "max(0B, bytes - 16KiB) * P * log2(P)") {
		t.Errorf("formula %q", text)
	}
	table := "name: k\ndescription: d\nsource: s\ncollectives:\n  source: test\n  entries:\n    - {kind: allreduce, time: '" + text + "'}\n"
	m, err := machines.Parse("k.yaml", []byte(table))
	if err != nil {
		t.Fatalf("%v\n%s", err, table)
	}
	c, _ := m.Collective("allreduce", "", "")
	for _, n := range []float64{8, 64 << 10} {
		if g, w := c.Eval(machines.Vars{Bytes: n, P: 8}), want.Time(n, 8); math.Abs(g-w) > 0.01*w {
			t.Errorf("table at %g B: %g, want %g", n, g, w)
		}
	}
}

// TestFitFormulaNoisy: 2 % noise keeps every predicted time within 3 %
// of the noiseless law at the measured points.
func TestFitFormulaNoisy(t *testing.T) {
	want := knownFormulas()["allreduce"]
	var kp []Point
	for i, p := range synthetic(map[string]Formula{"allreduce": want}) {
		if p.Bench == "allreduce" {
			p.Time *= 1 + 0.02*math.Sin(float64(i)*1.7)
			kp = append(kp, p)
		}
	}
	got, err := FitFormula(kp, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range kp {
		w := want.Time(p.Bytes, p.Ranks)
		if g := got.Time(p.Bytes, p.Ranks); math.Abs(g-w) > 0.03*w {
			t.Errorf("at %g B, P=%d: %g, want %g within 3 %%", p.Bytes, p.Ranks, g, w)
		}
	}
}

// TestFitFormulaNeverNegative: points a free fit would meet with a
// negative coefficient get a non-negative formula.
func TestFitFormulaNeverNegative(t *testing.T) {
	pts := []Point{
		{Bench: "bcast", Bytes: 8, Ranks: 2, Time: 2e-6},
		{Bench: "bcast", Bytes: 8, Ranks: 4, Time: 1.5e-6},
		{Bench: "bcast", Bytes: 8, Ranks: 8, Time: 1e-6},
		{Bench: "bcast", Bytes: 4096, Ranks: 2, Time: 3e-6},
		{Bench: "bcast", Bytes: 4096, Ranks: 4, Time: 2.5e-6},
		{Bench: "bcast", Bytes: 4096, Ranks: 8, Time: 2e-6},
	}
	f, err := FitFormula(pts, 0)
	if err != nil {
		t.Fatal(err)
	}
	for tm, c := range f.Coef {
		if c < 0 {
			t.Errorf("term %d = %g < 0", tm, c)
		}
	}
}

// tableOf writes a machine table from a result's sections and a minimal
// header, as calibrate does, and loads it.
func tableOf(t *testing.T, r *Result) (*machines.Machine, string) {
	t.Helper()
	body, err := yaml.Marshal(struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
		Source      string `yaml:"source"`
		Ranks       int    `yaml:"ranks"`
		Messages    any    `yaml:"messages"`
		Collectives any    `yaml:"collectives"`
		Results     any    `yaml:"results,omitempty"`
	}{"host", "test table", "perfc calibrate test", r.Ranks(), r.Messages(), r.Collectives(), r.Results()})
	if err != nil {
		t.Fatal(err)
	}
	m, err := machines.Parse("host.yaml", body)
	if err != nil {
		t.Fatalf("%v\n%s", err, body)
	}
	return m, string(body)
}

func TestSectionsLoad(t *testing.T) {
	known := knownFormulas()
	r, err := Analyse(synthetic(known), 9, "2026-11-25")
	if err != nil {
		t.Fatal(err)
	}
	m, body := tableOf(t, r)
	if testing.Verbose() {
		t.Log(body)
	}
	mm := m.Messages("f64")
	if mm == nil || len(mm.HockneyRanges()) != 3 {
		t.Fatalf("messages: want 3 Hockney ranges\n%s", body)
	}
	for _, n := range []float64{8, 4 << 10, 64 << 10, 1 << 20} {
		want := 0.135e-6 + n/170e9
		switch {
		case n >= 256<<10:
			want = 2e-6 + n/21e9
		case n >= 16<<10:
			want = 0.2e-6 + n/79e9
		}
		if got := mm.Time(n, 1); math.Abs(got-want) > 0.01*want {
			t.Errorf("message of %g B: %g s, want %g within 1 %%\n%s", n, got, want, body)
		}
	}
	// Each range but the last ends at its last length (12 KiB, 192 KiB),
	// short of the next range's first (its below): between the two the
	// time is the line from the one law to the other.
	rs := mm.HockneyRanges()
	for i, want := range []float64{12 << 10, 192 << 10} {
		if got := rs[i].FittedTo; !got.Given || got.Value != want {
			t.Errorf("range %d: fitted_to %v, want %g B\n%s", i+1, got, want, body)
		}
	}
	lo, hi := rs[1].FittedTo.Value, rs[1].Below.Value
	a, b := rs[1].Time(lo), rs[2].Time(hi)
	if got, want := mm.Time((lo+hi)/2, 1), (a+b)/2; math.Abs(got-want) > 1e-12*want {
		t.Errorf("message of %g B, between the ranges: %g s, want %g (the line's middle)", (lo+hi)/2, got, want)
	}
	for kind, f := range known {
		c, ok := m.Collective(kind, "sum", "f64")
		if !ok {
			t.Errorf("no collective %s in\n%s", kind, body)
			continue
		}
		for _, p := range []int{2, 4, 8} {
			for _, n := range []float64{8, 32 << 10} {
				if kind == "barrier" {
					n = 0
				}
				want := f.Time(n, p)
				if got := c.Eval(machines.Vars{Bytes: n, P: float64(p)}); math.Abs(got-want) > 0.01*want {
					t.Errorf("%s at %g B, P=%d: %g s, want %g within 1 %%", kind, n, p, got, want)
				}
			}
		}
	}
	// The COMMS2 law (0.3 µs + n / 40 GB/s) feeds messages.exchange.
	if x := m.Exchange(); x == nil {
		t.Errorf("no messages.exchange (COMMS2) in\n%s", body)
	} else {
		for _, n := range []float64{8, 4 << 10, 1 << 20} {
			if want, got := 0.3e-6+n/40e9, x.Time(n, 1); math.Abs(got-want) > 0.01*want {
				t.Errorf("exchange of %g B: %g s, want %g within 1 %%", n, got, want)
			}
		}
		if !strings.Contains(x.Source(), "COMMS2") {
			t.Errorf("exchange source %q does not name COMMS2", x.Source())
		}
	}
	// COMMS3 on two ranks (0.5 µs + n / 20 GB/s a round, one sendrecv
	// each way) feeds messages.sendrecv, over its every length; its
	// saturation result keeps the lengths the other rank counts ran.
	if x := m.SendRecv(); x == nil {
		t.Errorf("no messages.sendrecv (COMMS3 on two ranks) in\n%s", body)
	} else {
		for _, n := range []float64{8, 512, 12 << 10, 1 << 20, 24 << 20} {
			if want, got := 0.5e-6+n/20e9, x.Time(n, 1); math.Abs(got-want) > 0.01*want {
				t.Errorf("sendrecv of %g B: %g s, want %g within 1 %%", n, got, want)
			}
		}
		if !strings.Contains(x.Source(), "COMMS3") || !strings.Contains(x.Source(), "8B..32MiB (39 lengths)") {
			t.Errorf("sendrecv source %q does not name COMMS3 and its 39 lengths", x.Source())
		}
	}
	for _, r := range m.Results() {
		if strings.HasPrefix(r.Name, "COMMS3 t0 (all messages), P=2") && !strings.Contains(r.Source, "8B..1MiB (7 lengths), P=2") {
			t.Errorf("COMMS3 P=2 saturation result %q: want the 7 lengths of the other rank counts", r.Source)
		}
	}
	if n, ok := m.Ranks(); !ok || n.Value != 2 {
		t.Errorf("ranks %v %v, want 2", n, ok)
	}
	if len(m.Results()) == 0 {
		t.Error("no results (COMMS2, COMMS3, SYNCH1)")
	}
	for _, want := range []string{"2026-11-25", "fit rms", "COMMS1", "SYNCH1", "COMMS3 saturation"} {
		if !strings.Contains(body, want) {
			t.Errorf("table lacks %q:\n%s", want, body)
		}
	}
}

// TestSectionsFallBackToPoints: a pingpong that no split fits within 10 %
// keeps Hockney ranges with a source that says so; a collective that no
// formula fits becomes a measured table over bytes by P, its points also in
// results; a barrier that none fits becomes a measured table over P from
// one rank.
func TestSectionsFallBackToPoints(t *testing.T) {
	var pts []Point
	for i, n := range modeSizes(true, false).comms1 {
		pts = append(pts, Point{Bench: Comms1, Bytes: float64(n), Ranks: 2, Time: (1e-6 + float64(n)/1e9) * (1 + 0.4*float64(i%2))})
	}
	for _, p := range []int{2, 4} {
		for i, n := range []float64{8, 512, 32 << 10} {
			pts = append(pts, Point{Bench: "alltoall", Bytes: n, Ranks: p, Time: (1e-6 + n/1e9) * (1 + 0.5*float64(i%2))})
		}
		pts = append(pts, Point{Bench: Synch1, Ranks: p, Time: 1e-6 * float64(p*p*p*p)}) // P^4: no formula

	}
	r, err := Analyse(pts, 5, "2026-11-25")
	if err != nil {
		t.Fatal(err)
	}
	m, body := tableOf(t, r)
	if n := len(m.Messages("").HockneyRanges()); n < 2 || !strings.Contains(body, fmt.Sprintf("no split into at most %d Hockney ranges follows every point", maxRanges)) {
		t.Errorf("a sawtooth pingpong: %d ranges, want several and a source that says they miss\n%s", n, body)
	}
	a, ok := m.Collective("alltoall", "", "")
	if !ok {
		t.Fatalf("no alltoall\n%s", body)
	}
	found := false
	for _, res := range m.Results() {
		found = found || res.Name == "COLL alltoall, 512B, P=4"
	}
	if !found || !strings.Contains(body, "measured points: no formula over bytes and P fits within 10 % (best ") {
		t.Errorf("alltoall's points are not in results, or its source does not say the formula misses:\n%s", body)
	}
	// The grid gives the points back; one rank moves nothing, three are
	// half way between two and four.
	at := func(p, n float64) float64 { return a.Eval(machines.Vars{P: p, Bytes: n}) }
	for _, tt := range []struct{ p, bytes, want float64 }{
		{2, 8, 1e-6 + 8/1e9},
		{4, 512, 1.5 * (1e-6 + 512/1e9)},
		{4, 32 << 10, 1e-6 + 32768/1e9},
		{1, 512, 0},
		{3, 8, 1e-6 + 8/1e9},
	} {
		if got := at(tt.p, tt.bytes); math.Abs(got-tt.want) > 1e-3*tt.want+1e-15 {
			t.Errorf("alltoall at P=%g, %g B: %g, want %g", tt.p, tt.bytes, got, tt.want)
		}
	}
	b, ok := m.Collective("barrier", "", "")
	if !ok {
		t.Fatalf("no barrier\n%s", body)
	}
	if got := b.Eval(machines.Vars{P: 1}); got != 0 {
		t.Errorf("barrier on one rank %g, want 0", got)
	}
}

// TestGridNeverFalls: a collective's point below the one of a shorter
// length, or below the row of fewer ranks at its length, is raised to it,
// and the count of raised points is kept.
func TestGridNeverFalls(t *testing.T) {
	pts := []Point{
		{Bench: "gather", Ranks: 2, Bytes: 8, Time: 1e-6},
		{Bench: "gather", Ranks: 2, Bytes: 1024, Time: 3e-6},
		{Bench: "gather", Ranks: 2, Bytes: 4096, Time: 2e-6}, // below 1 KiB's
		{Bench: "gather", Ranks: 4, Bytes: 8, Time: 0.5e-6},  // below 2 ranks'
		{Bench: "gather", Ranks: 4, Bytes: 4096, Time: 9e-6},
	}
	g := grid(pts)
	want := [][]any{{1, "0B", "0us"}, {2, "8B", "1us"}, {2, "1KiB", "3us"}, {2, "4KiB", "3us"}, {4, "8B", "1us"}, {4, "4KiB", "9us"}}
	if diff := cmp.Diff(want, g.Points); diff != "" || g.raised != 2 {
		t.Errorf("grid points (-want +got):\n%s\nraised %d, want 2", diff, g.raised)
	}
}

// TestBarrierTableNeverFalls: a barrier measured faster on 8 ranks than on
// 4 (noise on a busy host; the flaky TestTinyCalibrationLoads met it)
// becomes a table whose points do not fall, so that its linear extension
// stays positive at any rank count and the table loads.
func TestBarrierTableNeverFalls(t *testing.T) {
	var pts []Point
	for _, n := range modeSizes(true, false).comms1 {
		pts = append(pts, Point{Bench: Comms1, Bytes: float64(n), Ranks: 2, Time: 1e-6 + float64(n)/1e9})
	}
	for _, pt := range []struct {
		p int
		t float64
	}{{2, 1e-6}, {4, 60e-6}, {8, 20e-6}} {
		pts = append(pts, Point{Bench: Synch1, Ranks: pt.p, Time: pt.t})
	}
	r, err := Analyse(pts, 5, "2026-11-26")
	if err != nil {
		t.Fatal(err)
	}
	m, body := tableOf(t, r)
	b, ok := m.Collective("barrier", "", "")
	if !ok {
		t.Fatalf("no barrier\n%s", body)
	}
	for _, p := range []float64{8, 1024} {
		if got := b.Eval(machines.Vars{P: p}); got < 60e-6*(1-1e-9) {
			t.Errorf("barrier on %g ranks %g s, want at least the 4 ranks' 60 us", p, got)
		}
	}
	if !strings.Contains(body, "1 point(s) below the one of fewer ranks raised to it") {
		t.Errorf("the source does not say a point was raised:\n%s", body)
	}
}

func TestFormats(t *testing.T) {
	tests := []struct{ got, want string }{
		{fmtTime(0.135e-6), "135ns"},
		{fmtTime(48.9e-6), "48.9us"},
		{fmtTime(1.23456e-3), "1.235ms"},
		{fmtRate(170e9), "170GB/s"},
		{fmtRate(21.34e9), "21.34GB/s"},
		{fmtPerByte(0.1e-9), "100ps/B"},
		{fmtBytes(16 << 10), "16KiB"},
		{fmtBytes(1536), "1.5KiB"},
		{fmtBytes(13873), "13873B"},
		{fmtBytes(0), "0B"},
		{formulaText(coef(map[term]float64{tConst: 0.2e-6, tLog: 0.4e-6, tBytes: 0.1e-9})), "200ns + 400ns * log2(P) + 100ps/B * bytes"},
		{formulaText(coef(map[term]float64{tPLog: 0.105e-6, tBytesLinear: 2e-12, tBytesPLog: 1e-12})), "105ns * P * log2(P) + 2ps/B * bytes * (P - 1) + 1ps/B * bytes * P * log2(P)"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// TestKneeIsTheLargestDrop: the knee of the collective formulas is the
// boundary of the message law where the bandwidth falls the most.
func TestKneeIsTheLargestDrop(t *testing.T) {
	r := &Result{messages: fit.Piecewise{
		Laws:  []fit.Hockney{{T0: 1e-7, Rinf: 40e9}, {T0: 1e-7, Rinf: 140e9}, {T0: 1e-7, Rinf: 50e9}, {T0: 1e-6, Rinf: 21e9}},
		Below: []float64{512, 16 << 10, 1 << 20},
	}}
	lengths := []float64{8, 512, 4096, 32 << 10, 256 << 10, 2 << 20, 4 << 20}
	if k := r.knee(lengths); k != 16<<10 {
		t.Errorf("knee %g, want 16 KiB", k)
	}
	if k := r.knee(lengths[:5]); k != 16<<10 {
		t.Errorf("knee %g, want 16 KiB", k)
	}
	r.messages.Laws[2].Rinf = 130e9 // no drop by a fifth at 16 KiB; 1 MiB is the largest
	if k := r.knee(lengths); k != 1<<20 {
		t.Errorf("knee %g, want 1 MiB", k)
	}
	if k := r.knee(lengths[:5]); k != 0 { // 1 MiB has no collective lengths beyond it
		t.Errorf("knee %g, want none", k)
	}
	r.messages = fit.Piecewise{Laws: []fit.Hockney{{T0: 1e-7, Rinf: 40e9}}}
	if k := r.knee(lengths); k != 0 {
		t.Errorf("one range: knee %g, want 0", k)
	}
}

// TestAnalyseRejectsTooFewPoints: a pingpong of fewer than three lengths
// is an error that says so, not a table that cannot load.
func TestAnalyseRejectsTooFewPoints(t *testing.T) {
	_, err := Analyse([]Point{{Bench: Comms1, Bytes: 8, Ranks: 2, Time: 1e-7}, {Bench: Comms1, Bytes: 64, Ranks: 2, Time: 1.1e-7}}, 3, "2026-11-25")
	if err == nil || !strings.Contains(err.Error(), "2 COMMS1 pingpong lengths; the message law needs 3 or more") {
		t.Errorf("error %v", err)
	}
}

// TestFasterOfTwoRuns checks the choice between the two runs of the
// two-rank kernel: the one whose shortest COMMS1 message was faster is
// kept, and both times per message are reported.
func TestFasterOfTwoRuns(t *testing.T) {
	kp := kernelPlan{ranks: 2}
	kp.benches = []bench{
		{kind: Comms1, bytes: 8, reps: 100, per: 2, name: "COMMS1 8B"},
		{kind: Comms1, bytes: 0, reps: 100, per: 2, name: "COMMS1 0B"},
		{kind: Comms2, bytes: 0, reps: 10, per: 1, name: "COMMS2 0B"},
	}
	run := func(us float64) *spmd.Measurement {
		return &spmd.Measurement{Regions: []spmd.Timing{{Name: "COMMS1 8B", MedianUs: 2 * us}, {Name: "COMMS1 0B", MedianUs: us}}}
	}
	slow, fast := run(88), run(22) // 440 and 110 ns a message
	for _, tt := range []struct {
		name string
		a, b *spmd.Measurement
	}{{"slow first", slow, fast}, {"fast first", fast, slow}} {
		m, twin := faster(kp, tt.a, tt.b)
		if m != fast || twin == nil || twin.bytes != 0 || math.Abs(twin.kept-110e-9) > 1e-15 || math.Abs(twin.dropped-440e-9) > 1e-15 {
			t.Errorf("%s: kept %p (fast %p), %+v; want the fast run, 0 B, 110 ns kept, 440 ns dropped", tt.name, m, fast, twin)
		}
	}
	if m, twin := faster(kernelPlan{ranks: 2}, slow, fast); m != slow || twin != nil {
		t.Errorf("without COMMS1: kept %p, %+v; want the first run, no twin", m, twin)
	}
}

// TestFasterOfTwoSharedRuns checks the choice between the two runs of the
// sharingRanks kernel: the one whose longest COMMS3 message was faster
// (the bandwidth messages.shared is taken from), whatever its short ones
// did; and which kernels run twice.
func TestFasterOfTwoSharedRuns(t *testing.T) {
	kp := kernelPlan{ranks: sharingRanks}
	kp.benches = []bench{
		{kind: Comms1, bytes: 8, reps: 100, per: 2, name: "COMMS1 8B"},
		{kind: Comms3, bytes: 8, reps: 100, per: 1, name: "COMMS3 8B"},
		{kind: Comms3, bytes: 1 << 20, reps: 10, per: 1, name: "COMMS3 1MiB"},
	}
	run := func(shortUs, longUs float64) *spmd.Measurement {
		return &spmd.Measurement{Regions: []spmd.Timing{{Name: "COMMS1 8B", MedianUs: 1}, {Name: "COMMS3 8B", MedianUs: shortUs}, {Name: "COMMS3 1MiB", MedianUs: longUs}}}
	}
	slow, fast := run(50, 2600), run(90, 1700) // the slow moment in the long copies
	for _, tt := range []struct {
		name string
		a, b *spmd.Measurement
	}{{"slow first", slow, fast}, {"fast first", fast, slow}} {
		m, twin := faster(kp, tt.a, tt.b)
		if m != fast || twin == nil || twin.bytes != 1<<20 || math.Abs(twin.kept-170e-6) > 1e-12 || math.Abs(twin.dropped-260e-6) > 1e-12 {
			t.Errorf("%s: kept %p (fast %p), %+v; want the fast run, 1 MiB, 170 µs kept, 260 µs dropped", tt.name, m, fast, twin)
		}
	}
	for _, tt := range []struct {
		kp   kernelPlan
		o    Options
		want bool
	}{
		{kp, Options{}, true},
		{kernelPlan{ranks: sharingRanks, benches: []bench{{kind: Synch1}}}, Options{}, false},
		{kernelPlan{ranks: 8, benches: kp.benches}, Options{}, false},
		{kernelPlan{ranks: partition, benches: kp.benches[:1]}, Options{}, true},
	} {
		if got := twice(tt.kp, tt.o); got != tt.want {
			t.Errorf("twice(%d ranks, %d benchmarks) = %v, want %v", tt.kp.ranks, len(tt.kp.benches), got, tt.want)
		}
	}
}

// TestOutsideSpells checks the points of the sharingRanks kernel: each
// benchmark takes the median of its measurements in both runs that lie
// within fit.FastFactor of the fastest, whichever run they came from, and its
// spread over those alone.
func TestOutsideSpells(t *testing.T) {
	kp := kernelPlan{ranks: sharingRanks}
	kp.benches = []bench{
		{kind: Comms1, bytes: 8, ranks: sharingRanks, reps: 100, per: 2, name: "COMMS1 8B"},
		{kind: Comms1, bytes: 4096, ranks: sharingRanks, reps: 100, per: 2, name: "COMMS1 4096B"},
		{kind: Comms3, bytes: 8, ranks: sharingRanks, reps: 100, per: 1, name: "COMMS3 8B"},
	}
	// µs a region; a region is 200 messages (COMMS1) or 100 rounds
	// (COMMS3). The min, median and max are what the harness would say of
	// the samples; outsideSpells must use the samples.
	run := func(c1, c4096, c3 []float64) *spmd.Measurement {
		tm := func(name string, v []float64) spmd.Timing {
			s := slices.Sorted(slices.Values(v))
			return spmd.Timing{Name: name, MinUs: s[0], MedianUs: s[len(s)/2], MaxUs: s[len(s)-1], SamplesUs: v}
		}
		return &spmd.Measurement{Regions: []spmd.Timing{tm("COMMS1 8B", c1), tm("COMMS1 4096B", c4096), tm("COMMS3 8B", c3)}}
	}
	// COMMS1 8B: the band (up to 105) keeps 70, 80, 90, 100 and 100 of
	// both runs and drops 300 (a spell) -> median 90. COMMS1 4096B: a in a spell throughout, b out of it
	// in two samples -> their mean. COMMS3 8B: no sample within the band
	// but the fastest -> the fastest.
	a := run([]float64{300, 80, 70}, []float64{800, 900, 1000}, []float64{500, 900, 1000})
	b := run([]float64{100, 90, 100}, []float64{210, 200, 700}, []float64{1200, 1300, 1100})
	got, err := outsideSpells(kp, a, b)
	if err != nil {
		t.Fatal(err)
	}
	want := []Point{
		{Bench: Comms1, Bytes: 8, Ranks: sharingRanks, Time: 90e-6 / 200, Min: 70e-6 / 200, Spread: 30.0 / 90},
		{Bench: Comms1, Bytes: 4096, Ranks: sharingRanks, Time: 205e-6 / 200, Min: 200e-6 / 200, Spread: 10.0 / 205},
		{Bench: Comms3, Bytes: 8, Ranks: sharingRanks, Time: 500e-6 / 100, Min: 500e-6 / 100, Spread: 0},
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(1e-12, 0)); diff != "" {
		t.Errorf("points (-want +got):\n%s", diff)
	}
	if a.Regions[0].SamplesUs[0] != 300 || a.Regions[0].MedianUs != 80 {
		t.Errorf("outsideSpells changed the measurement it was given: %+v", a.Regions[0])
	}

	// Without samples (an older harness) each run's region counts by its
	// fastest: 70 and 90 -> 80.
	a.Regions[0].SamplesUs, b.Regions[0].SamplesUs = nil, nil
	got, err = outsideSpells(kp, a, b)
	if err != nil {
		t.Fatal(err)
	}
	if want := 80e-6 / 200; math.Abs(got[0].Time-want) > 1e-15 {
		t.Errorf("COMMS1 8B without samples: %g s, want the median of both runs' fastest, %g", got[0].Time, want)
	}

	// A sample the harness could not time (NaN, or a zero from a clock
	// that did not move) makes no band: the first run's timing stands,
	// as calibrate's in-core points do (fit.Usable).
	for _, bad := range []float64{math.NaN(), 0} {
		a := run([]float64{300, 80, 70}, []float64{800, 900, 1000}, []float64{500, 900, 1000})
		b := run([]float64{100, bad, 100}, []float64{210, 200, 700}, []float64{1200, 1300, 1100})
		got, err := outsideSpells(kp, a, b)
		if err != nil {
			t.Fatalf("a sample of %g: %v", bad, err)
		}
		if want := 80e-6 / 200; math.Abs(got[0].Time-want) > 1e-15 {
			t.Errorf("COMMS1 8B with a sample of %g: %g s, want the first run's median, %g", bad, got[0].Time, want)
		}
	}
}

// TestSectionsBesideMeasuredPoints: when no Hockney law with a positive r∞
// fits the pingpong (its times fall with the length), the message law is
// its measured points, and the laws measured apart from it (here the
// exchange and LOCAL) are written all the same.
func TestSectionsBesideMeasuredPoints(t *testing.T) {
	var pts []Point
	for _, n := range modeSizes(true, false).comms1 {
		pts = append(pts,
			Point{Bench: Comms1, Bytes: float64(n), Ranks: 2, Time: 10e-6 - float64(n)*1e-12},
			Point{Bench: Local, Bytes: float64(n), Ranks: 2, Time: 0.2e-6 + float64(n)/50e9},
			Point{Bench: Comms2, Bytes: float64(n), Ranks: 2, Time: 0.5e-6 + float64(n)/10e9})
	}
	pts = append(pts, Point{Bench: Synch1, Ranks: 2, Time: 1e-6}, Point{Bench: Synch1, Ranks: 4, Time: 2e-6})
	r, err := Analyse(pts, 5, "2026-11-27")
	if err != nil {
		t.Fatal(err)
	}
	m, body := tableOf(t, r)
	if len(m.Messages("").HockneyRanges()) != 0 || !strings.Contains(body, "measured points: no Hockney law with a positive r∞ fits") {
		t.Fatalf("a falling pingpong: want its measured points\n%s", body)
	}
	if m.Exchange() == nil || m.LocalMessages() == nil {
		t.Fatalf("exchange %v, local %v: want both beside the measured points\n%s", m.Exchange(), m.LocalMessages(), body)
	}
	if got, want := m.Exchange().Time(4096, 1), 0.5e-6+4096/10e9; math.Abs(got-want) > 0.01*want {
		t.Errorf("exchange of 4 KiB: %g s, want %g", got, want)
	}
}
