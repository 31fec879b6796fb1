package costmodel

import (
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"perfc/analyze"
	"perfc/machines"
)

// ecmTable loads the compose: ecm test table, whose round numbers make
// every term a hand computation: loop 0.25 ns per iteration and 2 ns per
// entry, 0.05 ns per load and 0.1 ns per store, madd f64 0.5 ns, latency
// add f64 1 ns and mul f64 0.75 ns; a 64 B line costs 1 ns from L2
// (32 KiB L1), 2 ns from L3 (1 MiB L2) and 4 ns from memory (8 MiB L3).
func ecmTable(t *testing.T) *machines.Machine {
	t.Helper()
	m, err := machines.Load("testdata/ecm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// n is a count of value v.
func n(v int64) analyze.Count { return analyze.Count{Value: big.NewRat(v, 1)} }

// f64 is a count of one operation kind in f64 with the given pattern.
func f64(op analyze.OpKind, pattern string, v int64) analyze.OpCount {
	return analyze.OpCount{Op: op, Type: "f64", Pattern: pattern, Count: n(v)}
}

// lines is the cache-line model's count for the three levels of the ecm
// table: the same lines and write-backs at every level.
func lines(in, out int64) []analyze.CacheLines {
	var c []analyze.CacheLines
	for _, l := range []string{"L1", "L2", "L3"} {
		c = append(c, analyze.CacheLines{Level: l, Lines: n(in), WriteBacks: n(out)})
	}
	return c
}

// priceRegion prices counts c as the one region of a one-rank kernel whose
// working set is footprint bytes, as Predict prices a region, and returns
// the region and the pricing's notes.
func priceRegion(t *testing.T, m *machines.Machine, c analyze.Counts, footprint int64, opts Options) (RegionPrediction, []string) {
	t.Helper()
	k := checkSource(t, "k.spmd", `kernel k(N = 8) {
  array a[N]: f64
  region "r" {
    for i in 0..N {
      a[i] = 1.0
    }
  }
}`)
	rep, err := analyze.Analyze(k, analyze.Options{Cache: m.CacheHierarchy()})
	if err != nil {
		t.Fatal(err)
	}
	rep.Footprint.Bytes = footprint
	rep.Classes[0].Regions[0].Counts = c
	p := newOptionsPricer(m, k, opts)
	r := p.priceClass(rep.Classes[0], rep)[0]
	var notes []string
	for note := range p.notes {
		notes = append(notes, note)
	}
	return r, notes
}

// term is a breakdown line as the tests write it: what, count, unit cost
// and time (seconds).
type term struct {
	What            string
	Count, UnitCost float64
	Time            float64
}

// triadCounts are the counts of a[i] = b[i] + s*c[i] over N elements of
// f64 (2 loads, 1 store, 1 multiply-add pair per element; 3N/8 lines and
// N/8 write-backs at each level when nothing is reused).
func triadCounts(N int64) analyze.Counts {
	return analyze.Counts{Iterations: n(N), LoopEntries: n(1), Loads: n(2 * N), Stores: n(N),
		Ops:   []analyze.OpCount{f64(analyze.OpMul, "a&b&c", N), f64(analyze.OpAdd, "a&b&c", N)},
		Madds: []analyze.OpCount{f64(analyze.OpAdd, "a&b&c", N)},
		Cache: lines(3*N/8, N/8)}
}

// triadCore are the T_core terms of triadCounts(N): 0.25 ns per iteration,
// 2 ns per entry, 0.05 ns per load, 0.1 ns per store, 0.5 ns per pair.
func triadCore(N float64) []term {
	ns := 1e-9
	return []term{
		{"loop iterations", N, 0.25 * ns, N * 0.25 * ns},
		{"loop entries", 1, 2 * ns, 2 * ns},
		{"loads (in-core)", 2 * N, 0.05 * ns, 2 * N * 0.05 * ns},
		{"stores (in-core)", N, 0.1 * ns, N * 0.1 * ns},
		{"madd f64 a&b&c", N, 0.5 * ns, N * 0.5 * ns},
	}
}

// transfers are the T_data terms of in lines and out write-backs at each
// of the levels named (1, 2 and 4 ns per line from L2, L3 and memory), one
// term per level.
func transfers(in, out float64, levels ...string) []term {
	ns := 1e-9
	from := map[string]string{"L1": "L2", "L2": "L3", "L3": "memory"}
	cost := map[string]float64{"L1": 1 * ns, "L2": 2 * ns, "L3": 4 * ns}
	var ts []term
	for _, l := range levels {
		ts = append(ts, term{l + " lines from and to " + from[l], in + out, cost[l], (in + out) * cost[l]})
	}
	return ts
}

// TestECMByHand checks every term of compose: ecm against hand
// computation: a triad in cache and beyond L3, cold and warm; a dot
// product whose add chain outlasts its throughput; a copy loop that has no
// operations and is priced by its loop and accesses; T_data the largest
// level's transfers; T = max(T_core, T_data).
func TestECMByHand(t *testing.T) {
	ns := 1e-9
	m := ecmTable(t)
	dotBody := analyze.LoopBody{Iterations: n(1000), Loads: n(2000),
		Ops:   []analyze.OpCount{f64(analyze.OpMul, "a&b&s", 1000), f64(analyze.OpAdd, "a&b&s", 1000)},
		Madds: []analyze.OpCount{f64(analyze.OpAdd, "a&b&s", 1000)}}
	dot := analyze.Counts{Iterations: n(1000), LoopEntries: n(1), Loads: n(2000),
		Ops:   dotBody.Ops,
		Madds: dotBody.Madds,
		Chains: []analyze.Chain{
			// s = s + a[i]*b[i]: the add is on the chain (1000 × 1 ns).
			{Loop: "k.spmd:4:3", Var: "s", Iterations: n(1000), Ops: []analyze.OpCount{f64(analyze.OpAdd, "a&b&s", 1000)}, Body: dotBody},
			// A shorter chain of the same loop (1000 × 0.75 ns) is not the bound.
			{Loop: "k.spmd:4:3", Var: "p", Iterations: n(1000), Ops: []analyze.OpCount{f64(analyze.OpMul, "a&b&s", 1000)}, Body: dotBody},
			// A loop whose chain (100 × 0.75 ns) is shorter than its
			// throughput time (100 × 0.25 ns + 100 × 0.5 ns) adds nothing.
			{Loop: "k.spmd:9:3", Var: "q", Iterations: n(100), Ops: []analyze.OpCount{f64(analyze.OpMul, "a&s&s", 100)},
				Body: analyze.LoopBody{Iterations: n(100), Ops: []analyze.OpCount{f64(analyze.OpDiv, "a&s&s", 100)}}},
		}}
	copyLoop := analyze.Counts{Iterations: n(1000), LoopEntries: n(1), Loads: n(1000), Stores: n(1000), Cache: lines(250, 125)}
	copyCore := []term{
		{"loop iterations", 1000, 0.25 * ns, 250 * ns},
		{"loop entries", 1, 2 * ns, 2 * ns},
		{"loads (in-core)", 1000, 0.05 * ns, 50 * ns},
		{"stores (in-core)", 1000, 0.1 * ns, 100 * ns},
	}
	tests := []struct {
		name      string
		counts    analyze.Counts
		footprint int64
		warm      bool
		want      []term
		time      float64
	}{
		// 952 ns in core; 500 lines in and out at 1, 2 and 4 ns: the
		// memory's 2 us bound.
		{"triad N=1000 cold", triadCounts(1000), 24000, false,
			append(triadCore(1000), transfers(375, 125, "L1", "L2", "L3")...), 2000 * ns},
		// 24,000 B fits L1: no lines in steady state.
		{"triad N=1000 warm", triadCounts(1000), 24000, true, triadCore(1000), 952 * ns},
		// 2.4 MB fits L3 only: L1 and L2 lines still move, L3's at 2 ns
		// bound it.
		{"triad N=1e5 warm", triadCounts(100000), 2400000, true,
			append(triadCore(1e5), transfers(37500, 12500, "L1", "L2")...), 50000 * 2 * ns},
		{"triad N=1e5 cold", triadCounts(100000), 2400000, false,
			append(triadCore(1e5), transfers(37500, 12500, "L1", "L2", "L3")...), 50000 * 4 * ns},
		// 24 MB is beyond L3: warm and cold alike, bound by memory.
		{"triad N=1e6 warm, beyond L3", triadCounts(1000000), 24000000, true,
			append(triadCore(1e6), transfers(375000, 125000, "L1", "L2", "L3")...), 500000 * 4 * ns},
		// Throughput 250 + 100 + 500 = 850 ns; the add chain 1000 ns.
		{"dot product with a chain", dot, 16000, true, []term{
			{"loop iterations", 1000, 0.25 * ns, 250 * ns},
			{"loop entries", 1, 2 * ns, 2 * ns},
			{"loads (in-core)", 2000, 0.05 * ns, 100 * ns},
			{"madd f64 a&b&s", 1000, 0.5 * ns, 500 * ns},
			{"latency bound of the loop at k.spmd:4:3 (chain s)", 1000, 0.15 * ns, 150 * ns},
		}, 1002 * ns},
		{"copy cold", copyLoop, 16000, false, append(copyCore, transfers(250, 125, "L1", "L2", "L3")...), 375 * 4 * ns},
		{"copy warm", copyLoop, 16000, true, copyCore, 402 * ns},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, notes := priceRegion(t, m, tt.counts, tt.footprint, Options{Warm: tt.warm})
			var got []term
			for _, x := range r.Terms {
				got = append(got, term{x.What, x.Count, x.UnitCost, x.Time})
				if x.How == "" || x.Source == "" {
					t.Errorf("term %q has no How or no Source: %+v", x.What, x)
				}
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateApprox(1e-12, 0)); diff != "" {
				t.Errorf("terms (-want +got):\n%s", diff)
			}
			if !sameTime(r.Time, tt.time) || !sameTime(r.Time, max(r.Compute, r.Memory)) {
				t.Errorf("time %g s (compute %g, memory %g), want %g s = max(T_core, T_data)", r.Time, r.Compute, r.Memory, tt.time)
			}
			var tData float64
			for _, x := range got {
				if strings.Contains(x.What, " lines from and to ") {
					tData = max(tData, x.Time)
				}
			}
			if !sameTime(r.Memory, tData) {
				t.Errorf("memory %g s, want the largest level's transfers %g s", r.Memory, tData)
			}
			warmNote := false
			for _, note := range notes {
				warmNote = warmNote || strings.HasPrefix(note, "warm caches:")
			}
			if dropped := tt.warm && tt.footprint <= 8<<20; warmNote != dropped {
				t.Errorf("warm note %v, want %v (notes %q)", warmNote, dropped, notes)
			}
		})
	}
}

// TestECMPredict checks compose: ecm end to end on the triad example: the
// analyzer's counts priced into T = max(T_core, T_data) with every
// transfer term, warm caches dropping the lines of the levels that hold
// the working set, and the emulation charging what the region table does.
func TestECMPredict(t *testing.T) {
	m := ecmTable(t)
	k := loadKernel(t, "../examples/triad.spmd", "N", "1000")
	rep, err := analyze.Analyze(k, analyze.Options{Cache: m.CacheHierarchy()})
	if err != nil {
		t.Fatal(err)
	}
	cold, err := Predict(k, rep, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	warm, err := Predict(k, rep, m, Options{Warm: true})
	if err != nil {
		t.Fatal(err)
	}
	if has(cold.Warnings, "has no compute model") {
		t.Errorf("an ecm table's loop, access and ops are a compute model; warnings %q", cold.Warnings)
	}
	r := triadRegion(t, cold)
	if cold.Compose != "ecm" || !sameTime(cold.Total, max(r.Compute, r.Memory)) || r.Memory <= r.Compute {
		t.Errorf("cold: compose %s, total %g s, compute %g s, memory %g s; want ecm, the max, memory-bound", cold.Compose, cold.Total, r.Compute, r.Memory)
	}
	// 375 lines and 125 write-backs at each level, the memory's 4 ns per
	// line the largest: 500 × 4 ns.
	if !sameTime(r.Memory, 2000e-9) {
		t.Errorf("cold memory %g s, want 2 us", r.Memory)
	}
	w := triadRegion(t, warm)
	if w.Memory != 0 || !sameTime(warm.Total, w.Compute) || !sameTime(w.Compute, r.Compute) {
		t.Errorf("warm: memory %g s, total %g s, compute %g s (cold compute %g s); the 24,000 B working set fits L1", w.Memory, warm.Total, w.Compute, r.Compute)
	}
	if !has(warm.Notes, "warm caches: the working set of one rank (23.44 KiB) fits L1") {
		t.Errorf("warm notes %q lack the warm-caches note", warm.Notes)
	}
}

// TestWarmEveryTable checks that Options.Warm applies to tables without
// compose: ecm: on the host-style table (line bandwidths, compose max) the
// triad's lines are dropped when its working set fits, and kept when it
// does not.
func TestWarmEveryTable(t *testing.T) {
	m, err := machines.Load("testdata/host.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		n          string
		warmMemory bool // whether warm caches still charge memory
	}{{"1000", false}, {"1000000", true}} {
		k := loadKernel(t, "../examples/triad.spmd", "N", tt.n)
		rep, err := analyze.Analyze(k, analyze.Options{Cache: m.CacheHierarchy()})
		if err != nil {
			t.Fatal(err)
		}
		cold, err := Predict(k, rep, m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		warm, err := Predict(k, rep, m, Options{Warm: true})
		if err != nil {
			t.Fatal(err)
		}
		if triadRegion(t, cold).Memory == 0 || (triadRegion(t, warm).Memory > 0) != tt.warmMemory {
			t.Errorf("%s: memory cold %g s, warm %g s; want warm memory charged: %v", "N="+tt.n, triadRegion(t, cold).Memory, triadRegion(t, warm).Memory, tt.warmMemory)
		}
		if tt.warmMemory && triadRegion(t, warm).Memory != triadRegion(t, cold).Memory {
			t.Errorf("%s: a working set beyond every level is priced alike warm and cold: %g s against %g s", "N="+tt.n, triadRegion(t, warm).Memory, triadRegion(t, cold).Memory)
		}
	}
}

// TestMainBandwidthWithOpTable checks the trap of a per-operation table
// with main_bandwidth (the CM-5's): it is not charged, and a prediction
// whose working set exceeds the last cache level says so, while one that
// fits does not.
func TestMainBandwidthWithOpTable(t *testing.T) {
	m, err := machines.Builtin("cm5-32")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		n     string
		noted bool
	}{{"1000", false}, {"100000", true}} {
		k := loadKernel(t, "../examples/triad.spmd", "N", tt.n)
		rep, err := analyze.Analyze(k, analyze.Options{Cache: m.CacheHierarchy()})
		if err != nil {
			t.Fatal(err)
		}
		pred, err := Predict(k, rep, m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := has(pred.Notes, "main_bandwidth (512MB/s) is not charged"); got != tt.noted {
			t.Errorf("%s: note %v, want %v (notes %q)", "N="+tt.n, got, tt.noted, pred.Notes)
		}
		if triadRegion(t, pred).Memory != 0 {
			t.Errorf("%s: memory %g s, want 0 (the CM-5's operation costs include their accesses)", "N="+tt.n, triadRegion(t, pred).Memory)
		}
	}
}

// triadRegion is the region "triad" of a prediction.
func triadRegion(t *testing.T, p *Prediction) RegionPrediction {
	t.Helper()
	for _, r := range p.Regions {
		if r.Name == "triad" {
			return r
		}
	}
	t.Fatalf("no region triad in %+v", p.Regions)
	return RegionPrediction{}
}

// TestECMKeysNoted checks that an ecm table composed otherwise (-M
// compose=max) says that its loop, access and latency costs are not
// charged, and that the ecm composition does not.
func TestECMKeysNoted(t *testing.T) {
	k := loadKernel(t, "../examples/triad.spmd", "N", "1000")
	for _, compose := range []string{"ecm", "max"} {
		m, err := ecmTable(t).With(machines.Assignment{Name: "compose", Value: compose})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := analyze.Analyze(k, analyze.Options{Cache: m.CacheHierarchy()})
		if err != nil {
			t.Fatal(err)
		}
		pred, err := Predict(k, rep, m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := has(pred.Notes, "are priced only with compose: ecm"), compose != "ecm"; got != want {
			t.Errorf("compose %s: note %v, want %v (notes %q)", compose, got, want, pred.Notes)
		}
	}
}

// hornerCounts are the counts of Horner's rule over 1000 elements with k
// terms, `acc = c` then `repeat k { acc = c + x*acc }` (register
// operands): its chain of k adds and k multiplies per entry of the repeat,
// restarted at each entry or not.
func hornerCounts(k int64, restarts bool) analyze.Counts {
	iters := 1000 * k
	ops := []analyze.OpCount{f64(analyze.OpMul, "s&s&s", iters), f64(analyze.OpAdd, "s&s&s", iters)}
	madds := []analyze.OpCount{f64(analyze.OpAdd, "s&s&s", iters)}
	body := analyze.LoopBody{Iterations: n(iters), Ops: ops, Madds: madds}
	return analyze.Counts{Iterations: n(iters), LoopEntries: n(1000), Ops: ops, Madds: madds,
		Chains: []analyze.Chain{{Loop: "k.spmd:6:5", Var: "acc", Iterations: n(iters), Entries: n(1000), Restarts: restarts, Ops: ops, Body: body}}}
}

// TestECMRestartingChains checks the latency bound of chains that restart
// at every entry of their loop against hand computation, with the test
// table's window W = 20 ns, latency 1 ns (add) + 0.75 ns (mul) per link,
// and 0.25 ns (iteration) + 0.5 ns (madd) of throughput per link; n = 1 +
// W/T_e entries are in flight:
//
//   - k = 10: L_e = 17.5 ns, T_e = 7.5 ns, n = 11/3, L_e/n = 4.77 ns < T_e:
//     throughput-bound, no latency term;
//   - k = 40: L_e = 70 ns, T_e = 30 ns, n = 5/3, L_e/n = 42 ns: the term
//     is 1000 × (42 − 30) ns = 12,000 ns;
//   - k = 80: L_e = 140 ns, T_e = 60 ns, n = 4/3, L_e/n = 105 ns: 1000 ×
//     45 ns;
//   - k = 40 not restarting: one chain, 70,000 − 30,000 ns;
//   - k = 40 restarting on a table without a window: as one chain, noted.
func TestECMRestartingChains(t *testing.T) {
	ns := 1e-9
	m := ecmTable(t)
	noWindow, err := machines.Parse("nowindow.yaml", []byte(strings.Replace(mustRead(t, "testdata/ecm.yaml"),
		"    window: {value: 20ns, source: test POLY1 window}\n", "", 1)))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		m      *machines.Machine
		counts analyze.Counts
		extra  float64
		note   string
	}{
		{"k=10 throughput-bound", m, hornerCounts(10, true), 0, ""},
		{"k=40 partly overlapped", m, hornerCounts(40, true), 12000 * ns, ""},
		{"k=80 less overlapped", m, hornerCounts(80, true), 45000 * ns, ""},
		{"k=40 one chain across entries", m, hornerCounts(40, false), 40000 * ns, ""},
		{"k=40 restarting, no window", noWindow, hornerCounts(40, true), 40000 * ns, "no reorder window"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, notes := priceRegion(t, tt.m, tt.counts, 8000, Options{Warm: true})
			var extra, throughput float64
			for _, x := range r.Terms {
				if strings.HasPrefix(x.What, "latency bound") {
					extra += x.Time
					if tt.m == m && tt.counts.Chains[0].Restarts && !strings.Contains(x.Source, "test POLY1 window") {
						t.Errorf("the term's source %q does not name the window's", x.Source)
					}
				} else {
					throughput += x.Time
				}
			}
			if !sameTime(extra, tt.extra) && !(tt.extra == 0 && extra == 0) {
				t.Errorf("latency term %g s, want %g s", extra, tt.extra)
			}
			if !sameTime(r.Time, throughput+tt.extra) {
				t.Errorf("time %g s, want throughput %g s + latency term %g s", r.Time, throughput, tt.extra)
			}
			noted := tt.note == ""
			for _, x := range notes {
				noted = noted || strings.Contains(x, tt.note)
			}
			if !noted {
				t.Errorf("no note saying %q among %q", tt.note, notes)
			}
		})
	}
}

// mustRead returns a test file's text.
func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
