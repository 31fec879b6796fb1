package calibrate

import (
	"maps"
	"math"
	"slices"
	"testing"

	"perfc/analyze/cache"
	"perfc/machines"
)

// testCaches is a small hierarchy, so that the memory kernel stays small.
var testCaches = cache.Hierarchy{
	{Name: "L1", Size: 4 << 10, Line: 64, Assoc: 8},
	{Name: "L2", Size: 64 << 10, Line: 64, Assoc: 8},
	{Name: "L3", Size: 512 << 10, Line: 64, Assoc: 16},
}

// countedPoints counts a generated kernel with the analyzer and returns
// its benchmarks with their counts and no times yet.
func countedPoints(t *testing.T, spec kernelSpec, h cache.Hierarchy) []point {
	t.Helper()
	_, rep, err := countKernel(spec, h)
	if err != nil {
		t.Fatal(err)
	}
	counts := regionCounts(rep)
	var pts []point
	for _, b := range spec.benches {
		c, ok := counts[b.name]
		if !ok {
			t.Fatalf("region %q not counted", b.name)
		}
		pts = append(pts, point{bench: b, counts: c})
	}
	return pts
}

func near(got, want float64) bool { return math.Abs(got-want) <= 0.01*math.Abs(want) }

// The in-core fits recover known costs from times made with them on the
// analyzer's counts of the real benchmark kernel: the benchmarks tell
// every cost apart.
func TestFitCoreRecoversKnownCosts(t *testing.T) {
	cf, tp, lat := syntheticCore(t)
	for k, want := range tp {
		if got, _ := cf.throughput.Coefficient(k); !near(got, want) {
			t.Errorf("throughput %s: got %g, want %g", k, got, want)
		}
	}
	for k, want := range lat {
		if got, _ := cf.latency.Coefficient(k); !near(got, want) {
			t.Errorf("latency %s: got %g, want %g", k, got, want)
		}
	}
	if !near(cf.tick2, syntheticTick2) {
		t.Errorf("TICK2 %g, want %g", cf.tick2, syntheticTick2)
	}
	// The empty loop: t per entry = entry + n·iteration (one entry of the
	// for per repetition; the repeat's own iteration and entry are shared).
	wantRinf := 1 / tp[featIteration]
	if !near(cf.loopRinf.Rinf, wantRinf) {
		t.Errorf("empty loop r∞ %g, want %g", cf.loopRinf.Rinf, wantRinf)
	}
}

// The window fit recovers a known reorder window from times made with the
// pricing's law on the analyzer's counts of the window benchmarks and the
// fitted throughput and latency costs; the law's latency shows at k = 64.
func TestFitWindowRecoversKnownWindow(t *testing.T) {
	cf, _, _ := syntheticCore(t)
	if cf.window == nil || len(cf.window.pts) != len(modeSizes(Tiny, 0).windowKs) {
		t.Fatalf("window fit %+v: want one point per k of the test mode", cf.window)
	}
	const want = 15e-9
	pts := cf.window.pts
	for i := range pts {
		row, err := windowRowOf(cf, pts[i])
		if err != nil {
			t.Fatal(err)
		}
		pts[i].seconds = row.law(want, machines.CoreModel{})
	}
	wf, err := fitWindow(cf, pts)
	if err != nil {
		t.Fatal(err)
	}
	if !near(wf.window, want) || wf.rms > 1e-6 || wf.shown != 1 {
		t.Errorf("window %g s (rms %g, latency shown at %d k), want %g s, rms 0, shown at 1 k", wf.window, wf.rms, wf.shown, want)
	}
}

// syntheticTick2 is the clock-read cost of the synthetic in-core times.
const syntheticTick2 = 48e-9

// syntheticCore fits in-core times made from known costs on the
// analyzer's counts of the test-mode kernel, and returns the fit and the
// costs.
func syntheticCore(t *testing.T) (*coreFit, map[string]float64, map[string]float64) {
	t.Helper()
	sz := modeSizes(Tiny, 0)
	pts := countedPoints(t, inCoreKernel(sz), testCaches)
	tp := map[string]float64{featIteration: 0.25e-9, featEntry: 1.9e-9, featLoad: 0.03e-9, featStore: 0.08e-9,
		"add f64": 0.02e-9, "div f64": 0.9e-9, "madd f64": 0.15e-9, "sqrt f64": 2.1e-9,
		"add i64": 0.05e-9, "div i64": 1.6e-9, "madd i64": 0.2e-9, "mul f64": 0.01e-9, "mul i64": 0.1e-9}
	lat := map[string]float64{"add f64": 0.8e-9, "div f64": 3.5e-9, "madd f64": 1.6e-9, "sqrt f64": 5.6e-9,
		"add i64": 0.27e-9, "div i64": 2.4e-9, "madd i64": 1.1e-9, "mul f64": 0.75e-9, "mul i64": 0.8e-9}
	for i := range pts {
		p := &pts[i]
		var f, costs map[string]float64
		switch p.group {
		case groupTick2:
			p.seconds = syntheticTick2 * float64(p.reps)
			continue
		case groupLatency:
			f, costs = chainFeatures(*p), lat
		default:
			f, costs = coreFeatures(*p), tp
		}
		// In a fixed order: the sums must not change in their last bit
		// from run to run, for the golden table.
		for _, k := range slices.Sorted(maps.Keys(f)) {
			v := f[k]
			c, ok := costs[k]
			if v != 0 && !ok {
				t.Fatalf("%s: feature %s has no cost in the test", p.name, k)
			}
			p.seconds += v * c
		}
	}
	cf, err := fitCore(&measuredKernel{points: pts, tick1: 40e-9})
	if err != nil {
		t.Fatal(err)
	}
	return cf, tp, lat
}

// The memory fits recover each level's delivery rate and main memory's
// from times made with them on the analyzer's line counts, and the
// store stream's read share.
func TestFitMemoryRecoversBandwidths(t *testing.T) {
	mf, bw := syntheticMemory(t)
	got := map[string]float64{}
	for _, l := range mf.levels {
		got[l.level] = l.bw
	}
	for k, want := range bw {
		if !near(got[k], want) {
			t.Errorf("%s: got %g B/s, want %g", k, got[k], want)
		}
	}
	const readShare = 1.0 // the cache model counts every store as write-allocate
	if mf.writeAllocate == nil || math.Abs(*mf.writeAllocate-readShare) > 0.05 {
		t.Errorf("store read share %v, want about %g", mf.writeAllocate, readShare)
	}
}

// syntheticMemory fits memory times made from known delivery rates on
// the analyzer's line counts of the memory kernel on testCaches. As on a
// core whose load and store ports bound its streams in the caches, the
// load, store and rmw streams run at half a cache level's rate and only
// the lines stream at the rate itself; from memory every stream runs at
// memory's rate but the lines stream, at half of it, which main's fit
// must not take.
func syntheticMemory(t *testing.T) (*memoryFit, map[string]float64) {
	t.Helper()
	sz := modeSizes(Tiny, 512<<10)
	sz.memSteps = 2
	pts := countedPoints(t, memoryKernel(sz), testCaches)
	bw := map[string]float64{"L2": 100e9, "L3": 60e9, "main": 25e9}
	for i := range pts {
		p := &pts[i]
		switch {
		case isStream(p.group) || p.group == groupLines:
			lvl := len(testCaches) // which level's plateau, if any
			for j := 1; j <= len(testCaches); j++ {
				if plateau(p.n*8, testCaches, j) {
					lvl = j
				}
			}
			above := testCaches[lvl-1]
			in, wb := linesOf(p.counts, above.Name)
			name := "main"
			if lvl < len(testCaches) {
				name = testCaches[lvl].Name
			}
			rate := bw[name]
			if (name == "main") == (p.group == groupLines) {
				rate /= 2
			}
			p.seconds = (in+wb)*64/rate + 1e-9
		default:
			p.seconds = 1e-3
		}
	}
	mf, err := fitMemory(&measuredKernel{points: pts}, testCaches)
	if err != nil {
		t.Fatal(err)
	}
	return mf, bw
}

func TestWorkingSets(t *testing.T) {
	ws := workingSets(64<<10, 2)
	if ws[0] != 4096 || ws[len(ws)-1] != 64<<10 || len(ws) != 9 {
		t.Errorf("got %v, want 9 sizes from 4KiB to 64KiB", ws)
	}
	for i, s := range ws {
		if s%64 != 0 || (i > 0 && s <= ws[i-1]) {
			t.Errorf("size %d: %d is not a rising multiple of 64", i, s)
		}
	}
}

func TestFindKnees(t *testing.T) {
	h := cache.Hierarchy{{Name: "L1", Size: 32 << 10}, {Name: "L2", Size: 1 << 20}}
	var curve []sweepPoint
	for _, ws := range workingSets(8<<20, 1) {
		per := 1e-10
		if ws > 1<<20 {
			per = 3e-10 // a knee at L2, none at L1
		}
		curve = append(curve, sweepPoint{kind: groupLoad, bytes: ws, perEl: per})
	}
	knees, extra := findKnees(curve, h)
	if len(knees) != 2 || knees[0].confirmed || !knees[1].confirmed || len(extra) != 0 {
		t.Errorf("knees %+v extra %v: want L1 not seen, L2 confirmed, no other", knees, extra)
	}
}

// The composition study tells the forms apart: on times made with one
// time per port group (the busiest of loop, accesses and operations), the
// port-group form fits the held-out regions exactly and the additive form
// does not; on times made additively, the additive form does.
func TestStudyCompositionsTellsFormsApart(t *testing.T) {
	sz := modeSizes(Tiny, 0)
	base := countedPoints(t, inCoreKernel(sz), testCaches)
	costs := map[string]float64{featIteration: 0.25e-9, featEntry: 1.9e-9, featLoad: 0.1e-9, featStore: 0.2e-9,
		"add f64": 0.3e-9, "div f64": 0.9e-9, "madd f64": 0.35e-9, "sqrt f64": 2.1e-9, "mul f64": 0.3e-9,
		"add i64": 0.3e-9, "div i64": 1.6e-9, "madd i64": 0.4e-9, "mul i64": 0.3e-9}
	for truth, form := range []composition{compositions[0], compositions[2]} {
		pts := slices.Clone(base)
		for i := range pts {
			pts[i].seconds = predictComposition(form, costs, coreFeatures(pts[i]))
		}
		res, err := studyCompositions(pts)
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != len(compositions) {
			t.Fatalf("%d results, want one per form", len(res))
		}
		right, wrong := res[0], res[2]
		if truth == 1 {
			right, wrong = res[2], res[0]
		}
		if right.heldRMS > 1e-3 || wrong.heldRMS < 0.02 {
			t.Errorf("times made by %q: held-out rms %g for it, %g for %q; want below 0.1%% and at least 2%%",
				form.name, right.heldRMS, wrong.heldRMS, wrong.form.name)
		}
	}
}

// The access benchmarks must tell a load's cost from a store's and an
// iteration's: with at most two loads per store (copy, copy2, store) the
// load's column is nearly a combination of the other two, and a noisy
// fit sets access.load to 0, which under-prices a 5-point stencil by
// half. Some access benchmark must load one element at most per store
// and some at least five, in every element type.
func TestAccessBenchmarksSeparateLoadsFromStores(t *testing.T) {
	pts := countedPoints(t, inCoreKernel(modeSizes(Tiny, 0)), testCaches)
	lo, hi := map[string]float64{}, map[string]float64{}
	for _, p := range pts {
		if p.group != groupAccess || p.counts.Stores.Float() == 0 {
			continue
		}
		r := p.counts.Loads.Float() / p.counts.Stores.Float()
		if v, ok := lo[p.elem]; !ok || r < v {
			lo[p.elem] = r
		}
		hi[p.elem] = max(hi[p.elem], r)
	}
	if len(lo) == 0 {
		t.Fatal("no access benchmarks")
	}
	for elem := range lo {
		if lo[elem] > 1 || hi[elem] < 5 {
			t.Errorf("%s: loads per store span %.3g..%.3g, want from ≤ 1 to ≥ 5", elem, lo[elem], hi[elem])
		}
	}
}
