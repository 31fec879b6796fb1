package comms

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFitShared checks the slowdown of concurrent copies by hand: COMMS3
// times per step at P = 2 (2 messages) and P = 4 (12) on 2 cores give,
// per length, 2 × (t4/12) / (t2/2); the section takes the median from the
// shortest length from which every one is at least sharedMin.
func TestFitShared(t *testing.T) {
	pt := func(p int, n, perMsg float64) Point {
		return Point{Bench: Comms3, Ranks: p, Bytes: n, Time: perMsg * float64(p*(p-1))}
	}
	for _, tt := range []struct {
		name   string
		pts    []Point
		cores  int
		ok     bool
		factor []float64
		above  string // "" when no section
		median string
	}{
		{"slowed from 32KiB", []Point{
			pt(2, 8, 1e-6), pt(4, 8, 0.5e-6), // 2 × 0.5/1 = 1
			pt(2, 512, 2e-6), pt(4, 512, 1.1e-6), // 1.1
			pt(2, 32768, 4e-6), pt(4, 32768, 3e-6), // 1.5
			pt(2, 1<<20, 10e-6), pt(4, 1<<20, 10e-6), // 2
			pt(8, 1<<20, 10e-6), // P = 8 is not the first beyond the cores
		}, 2, true, []float64{1, 1.1, 1.5, 2}, "32KiB", "1.75"},
		{"a dip: only the lengths after it", []Point{
			pt(2, 512, 1e-6), pt(4, 512, 1e-6), // 2
			pt(2, 32768, 1e-6), pt(4, 32768, 0.5e-6), // 1
			pt(2, 1<<20, 1e-6), pt(4, 1<<20, 1.5e-6), // 3
		}, 2, true, []float64{2, 1, 3}, "1MiB", "3"},
		{"never slowed", []Point{pt(2, 512, 1e-6), pt(4, 512, 0.5e-6)}, 2, true, []float64{1}, "", ""},
		{"no rank count beyond the cores", []Point{pt(2, 512, 1e-6), pt(4, 512, 1e-6)}, 4, false, nil, "", ""},
		{"cores unknown", []Point{pt(2, 512, 1e-6), pt(4, 512, 1e-6)}, 0, false, nil, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sf, ok := fitShared(tt.pts, tt.cores)
			if ok != tt.ok {
				t.Fatalf("fitShared ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			if diff := cmp.Diff(tt.factor, sf.factor, cmp.Comparer(func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 })); diff != "" {
				t.Errorf("factors (-want +got):\n%s", diff)
			}
			r := &Result{shared: &sf, samples: 7, date: "2026-11-26", transport: Transport{Backend: "goroutine"}}
			sec := r.sharedSection()
			if tt.above == "" {
				if sec != nil {
					t.Errorf("a section %+v where no length is slowed", sec)
				}
				return
			}
			if sec == nil {
				t.Fatal("no section")
			}
			if sec.Above != tt.above || sec.Factor != tt.median || !strings.Contains(sec.Source, "COMMS3, P=4 on 2 cores") {
				t.Errorf("section %+v, want above %s, factor %s", sec, tt.above, tt.median)
			}
		})
	}
}
