package validate

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfc/analyze/cache"
	"perfc/examples"
	"perfc/lang"
)

const (
	kib = 1 << 10
	mib = 1 << 20
)

// hierarchies are cache tables of different shapes: this host, a machine
// with a small L2 close to its L1, one level only, and none.
var hierarchies = map[string]cache.Hierarchy{
	"epyc":   {{Name: "L1", Size: 48 * kib, Line: 64}, {Name: "L2", Size: 1 * mib, Line: 64}, {Name: "L3", Size: 32 * mib, Line: 64}},
	"close":  {{Name: "L1", Size: 32 * kib, Line: 64}, {Name: "L2", Size: 48 * kib, Line: 64}, {Name: "L3", Size: 8 * mib, Line: 64}},
	"single": {{Name: "S", Size: 96 * kib, Line: 64}},
	"same":   {{Name: "L1", Size: 64 * kib, Line: 64}, {Name: "L2", Size: 64 * kib, Line: 64}},
	"none":   nil,
}

func TestTargets(t *testing.T) {
	want := map[string][]Target{
		"epyc": {{"L1", 0, 48 * kib, 24 * kib}, {"L2", 48 * kib, 1 * mib, 512 * kib}, {"L3", 1 * mib, 32 * mib, 16 * mib},
			{"memory", 32 * mib, 0, 128 * mib}},
		// Half of L2 (24 KiB) is not above L1: the geometric mean of 32 and 48 KiB.
		"close": {{"L1", 0, 32 * kib, 16 * kib}, {"L2", 32 * kib, 48 * kib, 40132}, {"L3", 48 * kib, 8 * mib, 4 * mib},
			{"memory", 8 * mib, 0, 32 * mib}},
		"single": {{"S", 0, 96 * kib, 48 * kib}, {"memory", 96 * kib, 0, 384 * kib}},
		// A level no larger than the one before cannot be told apart.
		"same": {{"L1", 0, 64 * kib, 32 * kib}, {"memory", 64 * kib, 0, 256 * kib}},
		"none": nil,
	}
	for name, h := range hierarchies {
		if diff := cmp.Diff(want[name], Targets(h)); diff != "" {
			t.Errorf("Targets(%s) (-want +got):\n%s", name, diff)
		}
	}
}

// exampleChecker parses an example for the chooser.
func exampleChecker(t *testing.T, name string) *checker {
	t.Helper()
	src, err := examples.Source(name)
	if err != nil {
		t.Fatal(err)
	}
	c, err := newChecker(Kernel{Name: name, File: name + ".spmd", Source: src})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestChooseSizes chooses sizes of kernels with one, two and several
// size parameters for every hierarchy: each chosen footprint lies in its
// level's band and within a factor 2 of the wanted one, and the sizes
// grow with the levels.
func TestChooseSizes(t *testing.T) {
	kernels := []struct {
		name  string
		base  []lang.Override
		sizes []string
	}{
		{"triad", nil, []string{"N"}},
		{"matmul", nil, []string{"N"}},
		{"halo2d", []lang.Override{{Name: "Px", Value: "2"}, {Name: "Py", Value: "1"}}, []string{"nx", "ny"}},
		{"poly1", nil, []string{"n"}}, // k and reps move no array
	}
	for _, k := range kernels {
		c := exampleChecker(t, k.name)
		names, err := SizeParams(c.check, k.base)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(k.sizes, names); diff != "" {
			t.Errorf("%s: SizeParams (-want +got):\n%s", k.name, diff)
			continue
		}
		base, err := c.check(k.base)
		if err != nil {
			t.Fatal(err)
		}
		defaults := make([]int64, len(names))
		for i, n := range names {
			defaults[i] = paramValue(base, n)
		}
		cands := Candidates(c.check, k.base, names, defaults)
		for hname, h := range hierarchies {
			prev := int64(0)
			for _, tg := range Targets(h) {
				s, ok := Choose(cands, tg)
				if !ok {
					t.Errorf("%s on %s: no size for %s", k.name, hname, tg.Level)
					continue
				}
				where := fmt.Sprintf("%s on %s at %s (%v)", k.name, hname, tg.Level, s.Params)
				if !tg.Fits(s.Footprint) || s.Footprint <= prev {
					t.Errorf("%s: footprint %d outside (%d, %d] or not above the previous level's %d", where, s.Footprint, tg.Above, tg.Size, prev)
				}
				if r := float64(s.Footprint) / float64(tg.Want); r < 0.5 || r > 2 {
					t.Errorf("%s: footprint %d is %.2f times the wanted %d", where, s.Footprint, r, tg.Want)
				}
				if got := Footprint(s.Checked); got != s.Footprint {
					t.Errorf("%s: Footprint %d, recorded %d", where, got, s.Footprint)
				}
				prev = s.Footprint
			}
		}
	}
}

// TestChooseNone checks that a band no candidate reaches is reported as
// such, not filled with the nearest size outside it.
func TestChooseNone(t *testing.T) {
	cands := []Sizing{{Footprint: 100}, {Footprint: 5000}}
	if s, ok := Choose(cands, Target{Level: "L1", Above: 200, Size: 4000, Want: 2000}); ok {
		t.Errorf("Choose found %+v in an empty band", s)
	}
	if s, ok := Choose(cands, Target{Level: "memory", Above: 4000, Want: 16000}); !ok || s.Footprint != 5000 {
		t.Errorf("Choose beyond the caches = %+v, %v; want the 5000 B candidate", s, ok)
	}
}

func TestScaleValue(t *testing.T) {
	tests := []struct {
		v    int64
		f    float64
		fine bool
		want int64
	}{
		{1024, 1, false, 1024},
		{1024, 1.5, false, 1536},       // a multiple of 64
		{1024, 0.001, false, 64},       // never below the unit
		{1000, 1.3, false, 1304},       // 1000 = 8·125: multiples of 8
		{10_000_000, 0.1, false, 1e6},  // 10^7 = 128·78125: multiples of 64
		{256, 0.15, false, 64},         // coarse: 38.4 rounds to 64
		{256, 0.15, true, 38},          // fine: even values
		{6, 3, false, 18},              // 6: multiples of 2
		{7, 0.01, false, 1},            // odd: any value from 1
		{10_000, 1.0 / 3, false, 3328}, // 10^4 = 16·625: multiples of 16
	}
	for _, tt := range tests {
		if got := scaleValue(tt.v, tt.f, tt.fine); got != tt.want {
			t.Errorf("scaleValue(%d, %g, %v) = %d, want %d", tt.v, tt.f, tt.fine, got, tt.want)
		}
	}
}
