package costmodel

import (
	"math"
	"os"
	"strings"
	"testing"

	"perfc/analyze"
	"perfc/analyze/symbolic"
	"perfc/machines"
)

// stencilRefs are the loads of a 2-D stencil's u at u[j+d][i] for each of
// the row offsets, and the store of v[j][i], in the loop at k.spmd:5:7 of
// a grid rowBytes wide (strides: a row per j, 8 B per i).
func stencilRefs(rowBytes int64, rows ...int64) []analyze.RefCount {
	strides := []analyze.Stride{{Loop: "j", Bytes: symbolic.Int(rowBytes)}, {Loop: "i", Bytes: symbolic.Int(8)}}
	var refs []analyze.RefCount
	for _, d := range rows {
		refs = append(refs, analyze.RefCount{Array: "u", Pos: "k.spmd:6:20", Text: "u[j+d][i]", Strides: strides,
			Loop: "k.spmd:5:7", Offset: d * rowBytes, OffsetKnown: true})
	}
	return append(refs, analyze.RefCount{Array: "v", Pos: "k.spmd:6:9", Text: "v[j][i]", Store: true, Strides: strides,
		Loop: "k.spmd:5:7", OffsetKnown: true})
}

// TestRereadAddsInCoreTime prices a triad's counts beyond L3 (T_core
// 0.952 µs, T_data the memory transfer 2 µs at N = 1000: 375 lines + 125
// write-backs at 4 ns) with the references of a stencil: where one array
// is read twice a page or more apart in one loop, T = T_core + T_mem
// (2.952 µs) with a term saying why; closer, or in two loops, or with
// different strides, or with the second access a store, it stays
// max(T_core, T_data) (2 µs). From L3 (no memory term) it stays
// max(T_core, T_data) too: the L2 transfer's 1 µs.
func TestRereadAddsInCoreTime(t *testing.T) {
	ns := 1e-9
	m := ecmTable(t)
	const N = 1000
	tCore, tMem := 952*ns, 2000*ns // triadCore(N), transfers(375, 125, "L3")
	priced := func(refs []analyze.RefCount, cache []analyze.CacheLines) RegionPrediction {
		c := triadCounts(N)
		c.Refs, c.Cache = refs, cache
		r, _ := priceRegion(t, m, c, 1<<30, Options{})
		return r
	}
	beyond := lines(375, 125)
	cases := []struct {
		name string
		refs []analyze.RefCount
		want float64
	}{
		{"rows two apart", stencilRefs(8192, -1, 0, 1), tCore + tMem},
		{"rows a page apart", stencilRefs(2048, 0, 2), tCore + tMem},
		{"rows less than a page apart", stencilRefs(2040, 0, 2), tMem},
		{"one reference", stencilRefs(8192, 0), tMem},
		{"different loops", func() []analyze.RefCount {
			r := stencilRefs(8192, 0, 1)
			r[1].Loop = "k.spmd:9:7"
			return r
		}(), tMem},
		{"different strides", func() []analyze.RefCount {
			r := stencilRefs(8192, 0, 1)
			r[1].Strides = stencilRefs(4096, 0)[0].Strides
			return r
		}(), tMem},
		{"a store a page ahead", func() []analyze.RefCount {
			r := stencilRefs(8192, 0, 1)
			r[1].Store = true
			return r
		}(), tMem},
		{"unknown offset", func() []analyze.RefCount {
			r := stencilRefs(8192, 0, 1)
			r[1].OffsetKnown = false
			return r
		}(), tMem},
	}
	for _, tc := range cases {
		r := priced(tc.refs, beyond)
		if math.Abs(r.Time-tc.want) > 1e-15 {
			t.Errorf("%s: T = %g s, want %g", tc.name, r.Time, tc.want)
		}
		has := false
		for _, x := range r.Terms {
			if strings.HasPrefix(x.What, "in-core time not overlapped with the memory transfer (u read again") {
				has = true
				if math.Abs(x.Time-tCore) > 1e-15 || r.Bottleneck != "memory" {
					t.Errorf("%s: term %g s, bottleneck %q; want %g s, memory", tc.name, x.Time, r.Bottleneck, tCore)
				}
			}
		}
		if has != (tc.want != tMem) {
			t.Errorf("%s: term given %v, want %v", tc.name, has, tc.want != tMem)
		}
	}
	// From L3 (no memory transfer) the rule does not apply.
	if r := priced(stencilRefs(8192, -1, 0, 1), lines(375, 125)[:2]); math.Abs(r.Time-1000*ns) > 1e-15 {
		t.Errorf("from L3: T = %g s, want the L2 transfer's 1 µs", r.Time)
	}
}

// TestRereadSharedMemory prices a 2-D stencil from memory on one rank and
// on two that share the memory (memory.shared 1.5): on one, T = T_core +
// T_mem; on two, whose lines cost 1.5 × as much, the ranks' transfers
// interleave, T = max(T_core + T_mem/1.5, T_mem), and the term is what
// the first exceeds the shared transfer by. The same rule, called with
// less in-core time than the shared transfer saves, adds no term.
func TestRereadSharedMemory(t *testing.T) {
	src, err := os.ReadFile("testdata/ecm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(src), "  write_allocate: true\n", "  write_allocate: true\n  shared: {factor: 1.5, source: test}\n", 1)
	m, err := machines.Parse("ecm-shared.yaml", []byte(text+"cores: 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	// Rows of 8 KiB, two arrays of 16 MiB: beyond the 8 MiB L3; the divide
	// (1 ns) gives the loop more in-core time than sharing adds.
	const kernel = `kernel k() on P = RANKS ranks {
  array u[2048][1024], v[2048][1024]: f64
  region "stencil" {
    for j in 1..2047 {
      for i in 0..1024 {
        v[j][i] = (u[j - 1][i] + u[j + 1][i]) / 3.0
      }
    }
  }
}`
	region := func(ranks string) (RegionPrediction, float64) {
		k := checkSource(t, "k.spmd", strings.Replace(kernel, "RANKS", ranks, 1))
		for _, r := range predictCached(t, k, m, Options{}).Regions {
			if r.Name == "stencil" {
				return r, memoryTransfer(r.Terms)
			}
		}
		t.Fatalf("P = %s: no region stencil", ranks)
		return RegionPrediction{}, 0
	}
	one, mem1 := region("1")
	if !sameTime(one.Time, one.Compute+mem1) {
		t.Fatalf("one rank: T = %g s, want T_core %g + T_mem %g", one.Time, one.Compute, mem1)
	}
	// Two ranks share the 8 MiB L3 too, so their lines from memory are
	// not one rank's: the rule is checked on the two ranks' own terms.
	two, mem2 := region("2")
	if want := max(two.Compute+mem2/1.5, mem2); !sameTime(two.Time, want) {
		t.Errorf("two ranks: T = %g s, want max(T_core + T_mem alone, T_mem shared) = %g (T_core %g, T_mem shared %g)", two.Time, want, two.Compute, mem2)
	}
	if two.Compute <= mem2-mem2/1.5 || two.Time >= two.Compute+mem2 {
		t.Errorf("two ranks: T_core %g s, T_mem %g s, T %g s: the test must price a term, less than T_core", two.Compute, mem2, two.Time)
	}

	memory := []Term{{Resource: "memory", What: "L3 lines from and to memory", Time: 3e-6}}
	refs := stencilRefs(8192, -1, 0, 1)
	for _, tc := range []struct {
		compute, shared, want float64 // want 0: no term
	}{
		{1.5e-6, 1, 1.5e-6},   // one rank: the in-core time
		{1.5e-6, 1.5, 0.5e-6}, // 1.5 + 2 (alone) − 3 (shared)
		{0.5e-6, 1.5, 0},      // hidden by the shared transfer
	} {
		term, ok := rereadTerm(refs, memory, tc.compute, tc.shared)
		if ok != (tc.want > 0) || ok && !sameTime(term.Time, tc.want) {
			t.Errorf("rereadTerm(compute %g, shared %g) = %g s, %v; want %g", tc.compute, tc.shared, term.Time, ok, tc.want)
		}
	}
}
