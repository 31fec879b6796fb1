package analyze

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"perfc/analyze/cache"
	"perfc/lang"
	"perfc/parser"
)

// conflictHierarchy is an 8-way 32 KiB L1 (64 sets: a 4 KiB way) and a
// 16-way 1 MiB L2, a common desktop geometry.
const conflictHierarchy = "L1=32KiB/64B/8,L2=1MiB/64B/16"

// loadKerncraft checks a kernel of testdata/kerncraft with overrides.
func loadKerncraft(t testing.TB, name string, defs ...string) *lang.Checked {
	t.Helper()
	path := filepath.Join("testdata", "kerncraft", name+".spmd")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(path, src)
	if err != nil {
		t.Fatal(err)
	}
	var ovs []lang.Override
	for _, d := range defs {
		n, v, _ := strings.Cut(d, "=")
		ovs = append(ovs, lang.Override{Name: n, Value: v})
	}
	k, err := lang.Check(f, "", ovs)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestConflictWarnings checks the set-mapping check against the exact
// set-associative simulation with the generated program's layout: where it
// warns of conflict misses at a level, the simulation brings in at least
// 1.5 times the model's lines there (they thrash); where it does not, the
// simulation is within 5 % of the model at every level (the check's own
// threshold, conflictSlack).
func TestConflictWarnings(t *testing.T) {
	cases := []struct {
		name, kernel string
		defs         []string
		want         []string // levels with a conflict
		padding      string   // a text the suggested padding contains
	}{
		{"himeno 48x48", "kc_himeno", []string{"L=12", "M=48", "N=48"}, []string{"L1"}, "leading dimension"},
		{"matvec leading dimension 1024", "kc_matvec", []string{"M=1024", "N=100"}, []string{"L1"}, "a's 1024 to 1032"},
		{"matvec padded to 1032", "kc_matvec", []string{"M=1032", "N=100"}, nil, ""},
		{"matvec leading dimension 100", "kc_matvec", []string{"M=100", "N=200"}, nil, ""},
		{"triad", "kc_triad", []string{"N=100000"}, nil, ""},
		{"2-D 5-point 1024 wide", "kc_2d5pt", []string{"M=40", "N=1000"}, nil, ""},
	}
	h, err := cache.ParseHierarchy(conflictHierarchy)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k := loadKerncraft(t, tc.kernel, tc.defs...)
			rep, err := Analyze(k, Options{Cache: h, OnlyRank: new(int64(0))})
			if err != nil {
				t.Fatal(err)
			}
			sim, err := Simulate(k, h, SimOptions{})
			if err != nil {
				t.Fatal(err)
			}
			warned := map[string]bool{}
			for _, c := range rep.Conflicts {
				warned[c.Level] = true
				t.Logf("%s", c.Message)
				if !strings.Contains(c.Padding, tc.padding) {
					t.Errorf("padding %q, want it to contain %q", c.Padding, tc.padding)
				}
			}
			for i, lv := range rep.Classes[0].Total.Cache {
				model, got := lv.Lines.Float(), float64(sim.Total[i].Lines)
				t.Logf("%s: model %.0f lines, simulation %.0f", lv.Level, model, got)
				switch {
				case warned[lv.Level] && got < 1.5*model:
					t.Errorf("%s: a conflict warning, but the simulation brings in %.0f lines against the model's %.0f", lv.Level, got, model)
				case !warned[lv.Level] && (got > 1.05*model || got < 0.95*model):
					t.Errorf("%s: no conflict warning, but the simulation brings in %.0f lines against the model's %.0f", lv.Level, got, model)
				}
			}
			for _, lv := range tc.want {
				if !warned[lv] {
					t.Errorf("no conflict warning in %s", lv)
				}
			}
			if len(warned) != len(tc.want) {
				t.Errorf("conflicts in %v, want %v", warned, tc.want)
			}
		})
	}
}

// TestSimulateBudget checks that a trace over the budget is refused before
// it starts, naming the flag that raises it.
func TestSimulateBudget(t *testing.T) {
	k := loadKerncraft(t, "kc_triad", "N=1000")
	h, err := cache.ParseHierarchy(conflictHierarchy)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Simulate(k, h, SimOptions{MaxAccesses: 100})
	if err == nil || !strings.Contains(err.Error(), "makes 4,000 loads and stores, more than the budget of 100; raise it with --max-accesses") {
		t.Errorf("Simulate over budget: %v", err)
	}
	var calls int
	sim, err := Simulate(k, h, SimOptions{Progress: func(done, total int64) {
		calls++
		if done != 4000 || total != 4000 {
			t.Errorf("progress %d of %d, want 4000 of 4000", done, total)
		}
	}})
	if err != nil || calls != 1 || sim.Accesses != 4000 {
		t.Errorf("Simulate: %v, %d progress calls, %d accesses", err, calls, sim.Accesses)
	}
	if _, err := Simulate(k, h, SimOptions{Rank: 1}); err == nil {
		t.Error("Simulate of rank 1 of a one-rank kernel: no error")
	}
}
