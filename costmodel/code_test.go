package costmodel

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"perfc/analyze"
	"perfc/machinecode"
	"perfc/machines"
)

// loopCode is compiled code with one machine loop for the kernel loop at
// 4:5 (priceRegion's kernel), of the given body.
func loopCode(b machinecode.Body) *machinecode.Code {
	return &machinecode.Code{Loops: []machinecode.Loop{{Kernel: "4:5", Parent: -1, Body: b}},
		Spans: []machinecode.Span{{Pos: "4:5", First: 10, Last: 20}}, ByKernel: map[string]int{"4:5": 0}}
}

// ecmCore is testdata/ecm_core.yaml with options added to its
// compute.core ("entry: 2"), parsed.
func ecmCore(t *testing.T, options string) *machines.Machine {
	t.Helper()
	data, err := os.ReadFile("testdata/ecm_core.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m, err := machines.Parse("ecm_core.yaml", []byte(strings.Replace(string(data), "blocks_per_cycle: 1,", "blocks_per_cycle: 1, "+options+",", 1)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPriceByCompiledCode prices a region's loop by its machine code with
// hand-computed cycles: 2 blocks, 10 instructions, 2 loads, 1 store and 2
// floating-point per iteration on a core of 1 block, 4 instructions, 2
// loads, 1 store and 2 FP per cycle is max(2, 2.5, 1, 1, 1) = 2.5 cycles,
// 0.625 ns at 0.25 ns; the divides keep their table cost (1 ns each).
func TestPriceByCompiledCode(t *testing.T) {
	ns := 1e-9
	m, err := machines.Load("testdata/ecm_core.yaml")
	if err != nil {
		t.Fatal(err)
	}
	counts := analyze.Counts{Iterations: n(1000), LoopEntries: n(1), Loads: n(2000), Stores: n(1000),
		Ops:   []analyze.OpCount{f64(analyze.OpAdd, "a&b&c", 1000), f64(analyze.OpDiv, "a&b&c", 1000)},
		Loops: []analyze.LoopCount{{Stmt: "k.spmd:4:5", Iterations: n(1000), Entries: n(1)}}}
	body := machinecode.Body{Bytes: 70, Blocks: 2, Insts: 10, Loads: 2, Stores: 1, FP: 2}
	r, _ := priceRegion(t, m, counts, 0, Options{Code: loopCode(body)})
	got := terms(r.Terms)
	want := []term{
		{"loop at k.spmd:4:5 (compiled code)", 1000, 0.625 * ns, 625 * ns},
		{"div f64 a&b&c", 1000, 1 * ns, 1000 * ns},
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(1e-12, 0)); diff != "" {
		t.Errorf("terms (-want +got):\n%s", diff)
	}
	if math.Abs(r.Compute-1625*ns) > 1e-15 {
		t.Errorf("compute %g s, want 1625 ns", r.Compute)
	}

	// Without code, or on the table without compute.core, the counts price
	// it as before: the loop, access and operation costs.
	plain, _ := priceRegion(t, m, counts, 0, Options{})
	old, _ := priceRegion(t, ecmTable(t), counts, 0, Options{Code: loopCode(body)})
	if diff := cmp.Diff(terms(old.Terms), terms(plain.Terms)); diff != "" || !strings.HasPrefix(plain.Terms[0].What, "loop iterations") {
		t.Errorf("without code (-table without core +without code):\n%s\nfirst term %q", diff, plain.Terms[0].What)
	}

	// A loop the code does not have falls back to the counts, with a note;
	// one that runs at most once per entry is straight-line code.
	missing := counts
	missing.Loops = append([]analyze.LoopCount{{Stmt: "k.spmd:3:1", Iterations: n(5), Entries: n(1)}}, counts.Loops...)
	r, notes := priceRegion(t, m, missing, 0, Options{Code: loopCode(body)})
	if !strings.HasPrefix(r.Terms[0].What, "loop iterations") || !containsPrefix(notes, "no machine loop of the compiled program runs the loop at k.spmd:3:1") {
		t.Errorf("a loop without code: first term %q, notes %q", r.Terms[0].What, notes)
	}
	once := counts
	once.Loops = append([]analyze.LoopCount{{Stmt: "k.spmd:3:1", Iterations: n(1), Entries: n(1)}}, counts.Loops...)
	r, _ = priceRegion(t, m, once, 0, Options{Code: loopCode(body)})
	if math.Abs(r.Compute-1625*ns) > 1e-15 {
		t.Errorf("a loop of one iteration per entry: compute %g s, want 1625 ns", r.Compute)
	}
}

// TestPriceLoopEntriesByCode charges compute.core.entry cycles per entry
// of a machine loop: a loop of 1,000 iterations entered 100 times (10 per
// entry) at 2.5 cycles an iteration and 2 cycles an entry, 0.25 ns each,
// is 625 ns of iterations and 50 ns of entries; a table without entry
// charges none.
func TestPriceLoopEntriesByCode(t *testing.T) {
	ns := 1e-9
	m := ecmCore(t, "entry: {value: 2, source: test loop sweep}")
	counts := analyze.Counts{Iterations: n(1000), LoopEntries: n(100), Loads: n(2000), Stores: n(1000),
		Loops: []analyze.LoopCount{{Stmt: "k.spmd:4:5", Iterations: n(1000), Entries: n(100)}}}
	body := machinecode.Body{Bytes: 70, Blocks: 2, Insts: 10, Loads: 2, Stores: 1, FP: 2}
	r, _ := priceRegion(t, m, counts, 0, Options{Code: loopCode(body)})
	want := []term{
		{"loop at k.spmd:4:5 (compiled code)", 1000, 0.625 * ns, 625 * ns},
		{"entries of the loop at k.spmd:4:5 (compiled code)", 100, 0.5 * ns, 50 * ns},
	}
	if diff := cmp.Diff(want, terms(r.Terms), cmpopts.EquateApprox(1e-12, 0)); diff != "" {
		t.Errorf("terms (-want +got):\n%s", diff)
	}
	plain, err := machines.Load("testdata/ecm_core.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r, _ = priceRegion(t, plain, counts, 0, Options{Code: loopCode(body)})
	if math.Abs(r.Compute-625*ns) > 1e-15 || len(r.Terms) != 1 {
		t.Errorf("without compute.core.entry: compute %g s in %d terms, want 625 ns in one", r.Compute, len(r.Terms))
	}
}

// TestChainBodyCountsInnerEntries checks the body time the latency bound
// compares a restarted chain with (codeBodyTime): the loop's own code and
// its nested loop's, with the nested loop's entries (one per iteration of
// the chain's loop, 2 cycles each) but not the chain loop's own entry,
// which its parent pays: 100 × 3 + 1,000 × 1 + 100 × 2 = 1,500 cycles of
// 0.25 ns.
func TestChainBodyCountsInnerEntries(t *testing.T) {
	m := ecmCore(t, "entry: {value: 2, source: test loop sweep}")
	code := &machinecode.Code{
		Loops: []machinecode.Loop{{Kernel: "4:5", Parent: -1, Body: machinecode.Body{Blocks: 1, Insts: 12}}, {Kernel: "6:7", Parent: 0, Body: machinecode.Body{Blocks: 1, Insts: 4}}},
		Spans: []machinecode.Span{{Pos: "4:5", First: 10, Last: 30}, {Pos: "6:7", First: 12, Last: 20}}, ByKernel: map[string]int{"4:5": 0, "6:7": 1}}
	k := checkSource(t, "k.spmd", "kernel k(N = 8) {\n  array a[N]: f64\n  region \"r\" {\n    for i in 0..N {\n      a[i] = 1.0\n    }\n  }\n}")
	p := newOptionsPricer(m, k, Options{Code: code})
	w := &workload{region: true, loops: []analyze.LoopCount{
		{Stmt: "k.spmd:4:5", Iterations: n(100), Entries: n(1)},
		{Stmt: "k.spmd:6:7", Iterations: n(1000), Entries: n(100)},
	}}
	got, ok := p.codeBodyTime(w, "k.spmd:4:5", analyze.LoopBody{})
	if want := 1500 * 0.25e-9; !ok || math.Abs(got-want) > 1e-15 {
		t.Errorf("body time %g s (ok %v), want %g s", got, ok, want)
	}
}

// TestWindowExponentBound prices a restarted chain's bound with the code
// window's smooth maximum: 100 entries of 10 ns work and 40 ns latency in
// a window of 20 ns (n = 3, L_e/n = 13.33 ns) with p = 4 is 100 ×
// (10^4 + 13.33^4)^(1/4) ns = 1,428.19 ns; priced by the counts (the
// latency section's window, no exponent) the plain 1,333.33 ns.
func TestWindowExponentBound(t *testing.T) {
	m := ecmCore(t, "window: {value: 20ns, source: test code window}, window_exponent: {value: 4, source: test fit}")
	k := checkSource(t, "k.spmd", "kernel k(N = 8) {\n  array a[N]: f64\n  region \"r\" {\n    for i in 0..N {\n      a[i] = 1.0\n    }\n  }\n}")
	p := newOptionsPricer(m, k, Options{})
	ch := analyze.Chain{Loop: "k.spmd:4:5", Restarts: true, Entries: n(100)}
	for _, tt := range []struct {
		byCode bool
		want   float64
		says   string
	}{{true, 1428.1907649846057e-9, "p = 4"}, {false, 1333.3333333333333e-9, "max(T_e, L_e/n)"}} {
		got, how, src := p.chainBound(ch, 4000e-9, 1000e-9, tt.byCode)
		if math.Abs(got/tt.want-1) > 1e-12 || !strings.Contains(how, tt.says) {
			t.Errorf("by code %v: bound %g s, want %g s; how %q should say %q (source %q)", tt.byCode, got, tt.want, how, tt.says, src)
		}
	}
}

// TestPriceDividerByCode prices a loop's divides by the table's
// compute.core.divider: one more resource of the loop's max, not their
// operation cost added. With a divide f64 holding the divider 1.25 ns (5
// cycles of 0.25 ns), the loop of 2.5 cycles of other work takes 5 cycles,
// and a loop of 6 cycles (24 instructions) hides its divide; a divide i64,
// whose kind the divider does not give, keeps its table cost (4 ns).
func TestPriceDividerByCode(t *testing.T) {
	ns := 1e-9
	m := ecmCore(t, "divider: {div: {f64: 1.25ns}}")
	counts := analyze.Counts{Iterations: n(1000), LoopEntries: n(1), Loads: n(2000), Stores: n(1000),
		Ops:   []analyze.OpCount{f64(analyze.OpAdd, "a&b&c", 1000), f64(analyze.OpDiv, "a&b&c", 1000)},
		Loops: []analyze.LoopCount{{Stmt: "k.spmd:4:5", Iterations: n(1000), Entries: n(1)}}}
	divides := map[string]int{"div f64": 1}
	for _, tc := range []struct {
		name  string
		body  machinecode.Body
		ops   []analyze.OpCount
		want  []term
		bound string
	}{
		{"bound by the divider", machinecode.Body{Bytes: 70, Blocks: 2, Insts: 10, Loads: 2, Stores: 1, FP: 2, Divides: 1, Dividers: divides}, counts.Ops,
			[]term{{"loop at k.spmd:4:5 (compiled code)", 1000, 1.25 * ns, 1250 * ns}}, "1 div f64 × 5 cycles on the divider"},
		{"hidden under the loop's instructions", machinecode.Body{Bytes: 70, Blocks: 2, Insts: 24, Loads: 2, Stores: 1, FP: 2, Divides: 1, Dividers: divides}, counts.Ops,
			[]term{{"loop at k.spmd:4:5 (compiled code)", 1000, 1.5 * ns, 1500 * ns}}, "24 instructions / 4 per cycle"},
		{"a kind the divider does not give", machinecode.Body{Bytes: 70, Blocks: 2, Insts: 10, Loads: 2, Stores: 1, Divides: 1, Dividers: map[string]int{"div i64": 1}},
			[]analyze.OpCount{{Op: analyze.OpDiv, Type: "i64", Pattern: "a&b&c", Count: n(1000)}},
			[]term{{"loop at k.spmd:4:5 (compiled code)", 1000, 0.625 * ns, 625 * ns}, {"div i64 a&b&c", 1000, 4 * ns, 4000 * ns}}, "10 instructions / 4 per cycle"},
	} {
		c := counts
		c.Ops = tc.ops
		r, _ := priceRegion(t, m, c, 0, Options{Code: loopCode(tc.body)})
		if diff := cmp.Diff(tc.want, terms(r.Terms), cmpopts.EquateApprox(1e-12, 0)); diff != "" {
			t.Errorf("%s: terms (-want +got):\n%s", tc.name, diff)
		}
		if !strings.Contains(r.Terms[0].How, tc.bound) {
			t.Errorf("%s: how %q, want it to say %q", tc.name, r.Terms[0].How, tc.bound)
		}
	}
}

// terms turns a breakdown into the tests' form.
func terms(ts []Term) []term {
	var out []term
	for _, x := range ts {
		out = append(out, term{x.What, x.Count, x.UnitCost, x.Time})
	}
	return out
}

// containsPrefix reports whether some note starts with prefix.
func containsPrefix(notes []string, prefix string) bool {
	for _, n := range notes {
		if strings.HasPrefix(n, prefix) {
			return true
		}
	}
	return false
}

// TestEmulationChargesCodeCosts is TestEmulationChargesRegionCosts with
// the regions priced by compiled code: every loop of every example is
// given a machine loop (a made-up body: 2 blocks, 9 instructions, 3 loads,
// 1 store, 2 floating-point), and the emulated ranks' compute must still
// be what the region table charges (the segments' weights stay their
// counts' prices, their shares the region's code-priced time).
func TestEmulationChargesCodeCosts(t *testing.T) {
	m, err := machines.Load("testdata/ecm_core.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"jacobi_blocking", "jacobi_overlap", "halo2d", "gauss", "stencil1d", "poly1", "matmul"} {
		k := loadKernel(t, "../examples/"+name+".spmd")
		rep, err := analyze.Analyze(k, analyze.Options{Cache: m.CacheHierarchy()})
		if err != nil {
			t.Fatal(err)
		}
		code := &machinecode.Code{ByKernel: map[string]int{}}
		for _, cl := range rep.Classes {
			for _, r := range cl.Regions {
				for _, l := range r.Counts.Loops {
					if _, ok := code.ByKernel[lineCol(l.Stmt)]; !ok {
						code.ByKernel[lineCol(l.Stmt)] = len(code.Loops)
						code.Loops = append(code.Loops, machinecode.Loop{Kernel: lineCol(l.Stmt), Parent: -1,
							Body: machinecode.Body{Blocks: 2, Insts: 9, Loads: 3, Stores: 1, FP: 2}})
					}
				}
			}
		}
		if len(code.Loops) == 0 {
			t.Fatalf("%s: no loops", name)
		}
		t.Run(name, func(t *testing.T) {
			opts := Options{Code: code, Warm: true}
			pred, err := Predict(k, rep, m, opts)
			if err != nil {
				t.Fatal(err)
			}
			priced := false
			for _, r := range pred.Regions {
				for _, x := range r.Terms {
					priced = priced || strings.HasSuffix(x.What, "(compiled code)")
				}
			}
			if !priced {
				t.Fatalf("no region priced by its code")
			}
			emulationChargesRegionCosts(t, k, rep, m, opts)
		})
	}
}
