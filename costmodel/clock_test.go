package costmodel

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfc/machines"
)

// clockTable is the ecm test table with compute.clock: 50 ns per region
// entry and 80 ns per run.
func clockTable(t *testing.T) (with, without *machines.Machine) {
	t.Helper()
	src, err := os.ReadFile("testdata/ecm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	withText := strings.Replace(string(src), "  access: {load: 0.05ns, store: 0.1ns}\n",
		"  access: {load: 0.05ns, store: 0.1ns}\n  clock: {region: 50ns, run: 80ns, source: test clock}\n", 1)
	if withText == string(src) {
		t.Fatal("testdata/ecm.yaml no longer has the access line this test extends")
	}
	if with, err = machines.Parse("clock.yaml", []byte(withText)); err != nil {
		t.Fatal(err)
	}
	if without, err = machines.Parse("ecm.yaml", src); err != nil {
		t.Fatal(err)
	}
	return with, without
}

// TestClockReads checks the program's clock by hand: a region entered 3
// times costs 3 × 50 ns more, the run 80 ns more in a region
// "(outside regions)" (added when the kernel has none, kept first), and
// each region entered after the run's first at the top level 50 ns more
// there; a region with two entries of another inside it 2 × 50 ns more
// beside its own entry; the total all of it; an emulated kernel's
// critical path adds its slowest rank's region clock reads too; a table
// without clock prices as before.
func TestClockReads(t *testing.T) {
	with, without := clockTable(t)
	type region struct {
		Name  string
		Clock float64 // ns
		Extra float64 // ns, time beyond the table without clock
	}
	for _, tc := range []struct {
		name, src string
		want      []region
		extra     float64 // ns, on the total
	}{
		{"one region entered three times", `kernel k(N = 64) {
  array a[N]: f64
  repeat 3 {
    region "r" {
      for i in 0..N {
        a[i] = 2.0 * a[i]
      }
    }
  }
}`, []region{{"(outside regions)", 180, 180}, {"r", 150, 150}}, 330},
		{"a region inside another and work outside", `kernel k(N = 64) {
  array a[N]: f64
  for i in 0..N {
    a[i] = 1.0
  }
  region "outer" {
    repeat 2 {
      region "inner" {
        a[0] = a[1] + a[2]
      }
    }
  }
}`, []region{{"(outside regions)", 80, 80}, {"outer", 150, 150}, {"inner", 100, 100}}, 330},
		{"a ring whose ranks wait (emulated)", `kernel k(N = 64) on P = 2 ranks {
  array a[N]: f64
  region "ring" {
    sendrecv a[0:N] to (rank + 1) % P from (rank + P - 1) % P
  }
}`, []region{{"(outside regions)", 80, 80}, {"ring", 50, 50}}, 130},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := predictSource(t, with, tc.src, Options{})
			if err != nil {
				t.Fatal(err)
			}
			q, err := predictSource(t, without, tc.src, Options{})
			if err != nil {
				t.Fatal(err)
			}
			base := map[string]float64{}
			for _, r := range q.Regions {
				base[r.Name] = r.Time
				if r.Clock != 0 {
					t.Errorf("region %s: clock %g without compute.clock", r.Name, r.Clock)
				}
			}
			var got []region
			for _, r := range p.Regions {
				got = append(got, region{r.Name, math.Round(r.Clock * 1e9), math.Round((r.Time - base[r.Name]) * 1e9)})
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("regions (-want +got):\n%s", d)
			}
			if d := (p.Total - q.Total) * 1e9; math.Abs(d-tc.extra) > 1e-6 {
				t.Errorf("total: %g ns more than without the clock, want %g", d, tc.extra)
			}
		})
	}
}

// TestSharedStart: a table with compute.clock.shared_start charges it
// once per run, beside the run's clock reads, to a kernel whose ranks
// outnumber the table's cores, and not to one whose ranks have a core each.
func TestSharedStart(t *testing.T) {
	src, err := os.ReadFile("testdata/ecm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(src), "  access: {load: 0.05ns, store: 0.1ns}\n",
		"  access: {load: 0.05ns, store: 0.1ns}\n  clock: {region: 50ns, run: 80ns, shared_start: 10us, source: test clock}\n", 1)
	m, err := machines.Parse("start.yaml", []byte("cores: 2\n"+text))
	if err != nil {
		t.Fatal(err)
	}
	kernel := `kernel k(N = 64) on P = 2 ranks {
  array a[N]: f64
  region "ring" {
    sendrecv a[0:N] to (rank + 1) % P from (rank + P - 1) % P
  }
}`
	for _, tc := range []struct {
		ranks int
		want  float64 // ns, the run's clock
	}{{2, 80}, {4, 10080}} {
		p, err := predictSource(t, m, strings.Replace(kernel, "P = 2", fmt.Sprintf("P = %d", tc.ranks), 1), Options{})
		if err != nil {
			t.Fatal(err)
		}
		var got float64
		for _, r := range p.Regions {
			if r.Name == outsideRegions {
				got = math.Round(r.Clock * 1e9)
				for _, term := range r.Terms {
					if term.Resource == "clock" && tc.ranks > 2 && !strings.Contains(term.How, "shared_start") {
						t.Errorf("P=%d: the clock term does not say it includes the start: %q", tc.ranks, term.How)
					}
				}
			}
		}
		if got != tc.want {
			t.Errorf("P=%d: the run's clock is %g ns, want %g", tc.ranks, got, tc.want)
		}
	}
}
