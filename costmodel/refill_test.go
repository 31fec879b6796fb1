package costmodel

import (
	"os"
	"slices"
	"strings"
	"testing"

	"perfc/analyze"
	"perfc/machines"
)

// TestRefillWriteBacks checks the write-backs of the harness's refill on
// a table of this host (with cores): every level the working set
// overflows starts the run full of dirty lines, written back once, by the
// first region that moves lines there; the last level's over the ranks
// that share it. A table without cores (a paper's machine) has none.
func TestRefillWriteBacks(t *testing.T) {
	src, err := os.ReadFile("testdata/ecm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	plain, err := machines.Parse("ecm.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	host, err := machines.Parse("ecm-host.yaml", append(src, "cores: 2\n"...))
	if err != nil {
		t.Fatal(err)
	}
	// 32 MiB read twice, in two regions: past the 8 MiB L3.
	const kernel = `kernel k() on P = RANKS ranks {
  array a[4194304]: f64
  var s: f64 = 0
  region "first" {
    for i in 0..4194304 {
      s = s + a[i]
    }
  }
  region "second" {
    for i in 0..4194304 {
      s = s + a[i]
    }
  }
}`
	regions := []string{"first", "second"}
	writeBacks := func(m *machines.Machine, ranks string) map[string][2]float64 {
		k := checkSource(t, "k.spmd", strings.Replace(kernel, "RANKS", ranks, 1))
		rep, err := analyze.Analyze(k, analyze.Options{Cache: m.CacheHierarchy()})
		if err != nil {
			t.Fatal(err)
		}
		p := newOptionsPricer(m, k, Options{})
		out := map[string][2]float64{}
		refilled := map[string]bool{}
		for _, r := range rep.Classes[0].Regions {
			w := fromCounts(r.Counts, rep.Footprint.Bytes, true)
			p.applyRefill(w, refilled)
			i := slices.Index(regions, r.Name)
			if i < 0 {
				continue
			}
			for level, n := range w.writeBacks {
				v := out[level]
				v[i] = n
				out[level] = v
			}
		}
		return out
	}
	base := writeBacks(plain, "1")
	for _, tt := range []struct {
		ranks string
		want  map[string][2]float64 // the refill's write-backs by level, per region
	}{
		{"1", map[string][2]float64{"L1": {512, 0}, "L2": {16384, 0}, "L3": {131072, 0}}},
		{"2", map[string][2]float64{"L1": {512, 0}, "L2": {16384, 0}, "L3": {65536, 0}}},
	} {
		got := writeBacks(host, tt.ranks)
		for level, want := range tt.want {
			for i := range 2 {
				if d := got[level][i] - base[level][i]; d != want[i] {
					t.Errorf("P = %s, %s, region %d: %g more write-backs than without cores, want %g", tt.ranks, level, i, d, want[i])
				}
			}
		}
	}
	if got := writeBacks(plain, "1"); got["L3"] != base["L3"] {
		t.Errorf("a table without cores charged the refill: %v, want %v", got["L3"], base["L3"])
	}
}

// TestMemoryShared checks memory.shared: the last level's lines from
// memory cost its factor more when two or more ranks stream at once (the
// kernel's ranks, at most the table's cores), and nothing more on one
// rank.
func TestMemoryShared(t *testing.T) {
	src, err := os.ReadFile("testdata/ecm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(src), "  write_allocate: true\n", "  write_allocate: true\n  shared: {factor: 1.5, source: test}\n", 1)
	if text == string(src) {
		t.Fatal("testdata/ecm.yaml no longer has the write_allocate line this test extends")
	}
	m, err := machines.Parse("ecm-shared.yaml", []byte(text+"cores: 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	const kernel = `kernel k() on P = RANKS ranks {
  array a[4194304]: f64
  var s: f64 = 0
  region "sum" {
    for i in 0..4194304 {
      s = s + a[i]
    }
  }
}`
	unit := func(ranks string) (float64, string) {
		k := checkSource(t, "k.spmd", strings.Replace(kernel, "RANKS", ranks, 1))
		pred := predictCached(t, k, m, Options{})
		for _, r := range pred.Regions {
			for _, term := range r.Terms {
				if strings.HasSuffix(term.What, "lines from and to memory") {
					return term.UnitCost, term.How
				}
			}
		}
		t.Fatalf("P = %s: no term from memory", ranks)
		return 0, ""
	}
	one, how1 := unit("1")
	for _, ranks := range []string{"2", "4"} {
		got, how := unit(ranks)
		if !sameTime(got, 1.5*one) || !strings.Contains(how, "memory.shared: 2 ranks") {
			t.Errorf("P = %s: %g s a line (%s), want 1.5 × %g s with memory.shared's note", ranks, got, how, one)
		}
	}
	if strings.Contains(how1, "memory.shared") {
		t.Errorf("one rank: %s; want no memory.shared", how1)
	}
}
