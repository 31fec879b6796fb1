package calibrate

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfc/analyze/cache"
)

// sweep returns load-stream points at the given working sets (bytes) and
// times per element (ns), 1000 repetitions of each.
func sweep(sizes []int64, perElNs []float64) []point {
	var pts []point
	for i, b := range sizes {
		n := b / 8
		pts = append(pts, point{bench: bench{group: groupLoad, n: n, reps: 1000}, seconds: perElNs[i] * 1e-9 * float64(n) * 1000})
	}
	return pts
}

// sysfsHost is this project's host as sysfs gives it (L1 32 KiB, L2
// 1 MiB, L3 32 MiB) and the sweep's working sets from 64 KiB to 128 MiB.
func sysfsHost() (cache.Hierarchy, []int64) {
	const K, M = 1 << 10, 1 << 20
	return cache.Hierarchy{
			{Name: "L1", Size: 32 * K, Line: 64, Assoc: 8, Source: "sysfs L1"},
			{Name: "L2", Size: 1 * M, Line: 64, Assoc: 8, Source: "sysfs L2"},
			{Name: "L3", Size: 32 * M, Line: 64, Assoc: 16, Source: "sysfs L3"},
		},
		[]int64{64 * K, 128 * K, 256 * K, 512 * K, 1 * M, 2 * M, 4 * M, 8 * M, 16 * M, 32 * M, 64 * M, 128 * M}
}

// TestEffectiveHierarchy checks the measured capacities on synthetic
// curves: a level that ends at a quarter of its sysfs size gets that size
// (a whole number of sets), one that holds to its size keeps it, and a
// single slow point does not end a level.
func TestEffectiveHierarchy(t *testing.T) {
	const K, M = 1 << 10, 1 << 20
	h, sizes := sysfsHost()
	for _, tc := range []struct {
		name  string
		perEl []float64
		want  []int // sizes of L1, L2, L3
		ratio float64
	}{
		{"L3 ends at 8 MiB", []float64{.14, .14, .14, .14, .15, .16, .16, .17, .22, .23, .38, .4},
			[]int{32 * K, 1 * M, 8 * M}, .22 / .16},
		{"every level as sysfs says", []float64{.14, .14, .14, .14, .15, .16, .16, .16, .17, .18, .38, .4},
			[]int{32 * K, 1 * M, 32 * M}, 0},
		{"one disturbed point", []float64{.14, .14, .14, .14, .15, .16, .16, .16, .25, .18, .38, .4},
			[]int{32 * K, 1 * M, 32 * M}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, changed := effectiveHierarchy(sweep(sizes, tc.perEl), h)
			var gotSizes []int
			for _, l := range got {
				gotSizes = append(gotSizes, l.Size)
			}
			if d := cmp.Diff(tc.want, gotSizes); d != "" {
				t.Errorf("sizes (-want +got):\n%s", d)
			}
			if tc.ratio == 0 {
				if len(changed) != 0 || got[2].Source != "sysfs L3" {
					t.Errorf("changed %v, L3 source %q; want none, sysfs's", changed, got[2].Source)
				}
				return
			}
			if len(changed) != 1 || changed[0].level != "L3" || changed[0].next != 16*M {
				t.Fatalf("changed %+v, want L3 ending before 16 MiB", changed)
			}
			if r := changed[0].ratio; r < tc.ratio*0.999 || r > tc.ratio*1.001 {
				t.Errorf("ratio %g, want %g", r, tc.ratio)
			}
			if !strings.Contains(got[2].Source, "sysfs: sysfs L3") || !strings.Contains(got[2].Source, "holds 8MiB") {
				t.Errorf("L3 source %q: want the measurement and sysfs's", got[2].Source)
			}
			if h[2].Size != 32*M {
				t.Error("effectiveHierarchy changed its argument")
			}
		})
	}
}

// TestKeepSmaller checks the two looks: each level keeps the smaller of
// their sizes, the second look's source names the first's size, and a
// second look that saw more changes nothing.
func TestKeepSmaller(t *testing.T) {
	const M = 1 << 20
	sysfs, sizes := sysfsHost()
	whole := []float64{.14, .14, .14, .14, .15, .16, .16, .16, .17, .18, .38, .4} // L3 holds 32 MiB
	at8 := []float64{.14, .14, .14, .14, .15, .16, .16, .17, .22, .23, .38, .4}   // L3 ends at 8 MiB
	for _, tc := range []struct {
		name          string
		first, second []float64
		l3            int
		changed       bool
		firstLook     int64
	}{
		{"the second look sees less", whole, at8, 8 * M, true, 32 * M},
		{"the second look sees more", at8, whole, 8 * M, false, 0},
		{"both see all", whole, whole, 32 * M, false, 0},
		{"both see less", at8, at8, 8 * M, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			caches, first := effectiveHierarchy(sweep(sizes, tc.first), sysfs)
			_, second := effectiveHierarchy(sweep(sizes, tc.second), sysfs)
			got, eff, changed := keepSmaller(caches, first, second, sysfs)
			if got[2].Size != tc.l3 || changed != tc.changed {
				t.Fatalf("L3 %d, changed %v; want %d, %v", got[2].Size, changed, tc.l3, tc.changed)
			}
			if tc.l3 == 32*M {
				if len(eff) != 0 {
					t.Errorf("measured levels %+v, want none", eff)
				}
				return
			}
			if len(eff) != 1 || eff[0].firstLook != tc.firstLook {
				t.Fatalf("measured levels %+v, want L3 with first look %d", eff, tc.firstLook)
			}
			if tc.changed && (!strings.Contains(got[2].Source, "second look") || !strings.Contains(got[2].Source, "first look: L3 32MiB") ||
				!strings.HasSuffix(got[2].Source, "; sysfs: sysfs L3")) {
				t.Errorf("L3 source %q: want the second look, the first's size and sysfs's source", got[2].Source)
			}
			if tc.changed && caches[2].Size != 32*M {
				t.Error("keepSmaller changed its argument")
			}
		})
	}
}
