package costmodel

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"perfc/analyze"
	"perfc/lang"
	"perfc/machines"
)

// predictOn analyses and prices k on the built-in machine name with the
// given overrides.
func predictOn(t *testing.T, k *lang.Checked, name string, opts Options, overrides ...string) (*Prediction, *machines.Machine, error) {
	t.Helper()
	m, err := machines.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	if len(overrides) > 0 {
		as, err := machines.ParseAssignments(overrides)
		if err != nil {
			t.Fatal(err)
		}
		if m, err = m.With(as...); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := analyze.Analyze(k, analyze.Options{Cache: m.CacheHierarchy()})
	if err != nil {
		t.Fatal(err)
	}
	pred, err := Predict(k, rep, m, opts)
	return pred, m, err
}

// has reports whether some string of list contains want.
func has(list []string, want string) bool {
	for _, s := range list {
		if strings.Contains(s, want) {
			return true
		}
	}
	return false
}

// TestUnpriced checks that a table without a compute (or message) model
// says so: a warning when it prices part of what the kernel does, an
// UnpricedError when it prices nothing, instead of 0 s.
func TestUnpriced(t *testing.T) {
	tests := []struct {
		kernel, machine string
		warning         string // a warning that must be there; "" for none about pricing
		err             bool   // Predict fails with an *UnpricedError
	}{
		{"gauss", "delta", "machine delta has no compute model", false},
		{"gauss", "i860xp", "machine i860xp has no message model: the collectives of kernel gauss", false},
		{"broadcast", "i860xp", "", true},
		{"triad", "delta", "", true},
		{"pingpong", "dec-alpha", "", true},
		{"gauss", "cm5-32", "", false},
		{"wave", "unit", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.kernel+"/"+tt.machine, func(t *testing.T) {
			k := loadKernel(t, "../examples/"+tt.kernel+".spmd")
			pred, _, err := predictOn(t, k, tt.machine, Options{})
			var unpriced *UnpricedError
			if got := errors.As(err, &unpriced); got != tt.err {
				t.Fatalf("error %v, want an UnpricedError: %v", err, tt.err)
			}
			if tt.err {
				if !strings.Contains(err.Error(), "prices nothing kernel ") || !strings.Contains(err.Error(), "docs/machines.md") {
					t.Errorf("error does not say what is missing and what to do: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.warning == "" {
				if has(pred.Warnings, "has no compute model") || has(pred.Warnings, "has no message model") {
					t.Errorf("unexpected warnings %q", pred.Warnings)
				}
				return
			}
			if !has(pred.Warnings, tt.warning) {
				t.Errorf("warnings %q lack %q", pred.Warnings, tt.warning)
			}
		})
	}
}

// TestVectorNote checks that --vector-units says when it priced nothing
// on the vector units: the machine has none, or no loop has one of its
// forms.
func TestVectorNote(t *testing.T) {
	noForm := checkSource(t, "k.spmd", `kernel k(N = 4096) on P = 1 ranks {
  array a[N], b[N], c[N]: i64
  for i in 0..N {
    a[i] = b[i] + c[i]
  }
}`)
	tests := []struct {
		name    string
		k       *lang.Checked
		machine string
		note    string // "" when no such note may appear
	}{
		{"no vector units", loadKernel(t, "../examples/triad.spmd"), "sp2", "machine sp2 has no vector units"},
		{"no vector form", loadKernel(t, "../examples/pingpong.spmd"), "cm5-32", "has a vector form"},
		{"form not in the table", noForm, "cm5-32", "is in the vector table of cm5-32"},
		{"priced on the vector units", loadKernel(t, "../examples/triad.spmd", "N", "4096"), "cm5-32", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pred, _, err := predictOn(t, tt.k, tt.machine, Options{VectorUnits: true})
			if err != nil {
				t.Fatal(err)
			}
			if tt.note == "" {
				if has(pred.Notes, "--vector-units") {
					t.Errorf("unexpected note: %q", pred.Notes)
				}
				return
			}
			if !has(pred.Notes, tt.note) {
				t.Errorf("notes %q lack %q", pred.Notes, tt.note)
			}
			if without, _, _ := predictOn(t, tt.k, tt.machine, Options{}); has(without.Notes, "--vector-units") {
				t.Errorf("a note about --vector-units without the flag: %q", without.Notes)
			}
		})
	}
}

// TestMarkOverrides checks that the overrides of a prediction are listed
// with whether each priced anything, and that one which priced nothing
// gets a note naming what priced that kind of work instead.
func TestMarkOverrides(t *testing.T) {
	tests := []struct {
		kernel, machine string
		defs            []string // kernel parameters, name and value
		overrides       []string
		used            []bool
		note            []string // in the note of the first override not used
	}{
		{"gauss", "cm5-32", nil, []string{"t_send=0.0585us/B"}, []bool{false},
			[]string{"-M t_send=0.0585us/B was not used", "messages (rinf", "kernel gauss sends no point-to-point messages", "bcast f64 (gauss.spmd:75:7) by table: 6.96us + 1.15us/B * bytes"}},
		{"pingpong", "cm5-32", nil, []string{"t_send=0.0585us/B", "compose=max"}, []bool{true, false},
			[]string{"-M compose=max was not used", "memory (compose)", "kernel pingpong has no memory traffic this table prices"}},
		{"wave", "unit", []string{"sweeps", "12"}, []string{"sx=5", "sy=5", "lx=2", "ly=2"}, []bool{true, true, true, true}, nil},
		{"wave", "unit", nil, []string{"lx=1"}, []bool{false}, []string{"-M lx=1 was not used", "cluster (links lx)"}},
	}
	for _, tt := range tests {
		t.Run(tt.kernel+"/"+strings.Join(tt.overrides, ","), func(t *testing.T) {
			k := loadKernel(t, "../examples/"+tt.kernel+".spmd", tt.defs...)
			pred, m, err := predictOn(t, k, tt.machine, Options{}, tt.overrides...)
			if err != nil {
				t.Fatal(err)
			}
			without := func(i int) (*Prediction, *machines.Machine, error) {
				rest := append(append([]string(nil), tt.overrides[:i]...), tt.overrides[i+1:]...)
				return predictOn(t, k, tt.machine, Options{}, rest...)
			}
			if err := MarkOverrides(pred, m, mustAssign(t, tt.overrides), without); err != nil {
				t.Fatal(err)
			}
			if len(pred.Overrides) != len(tt.overrides) {
				t.Fatalf("overrides %+v, want %d", pred.Overrides, len(tt.overrides))
			}
			for i, o := range pred.Overrides {
				if name, value, _ := strings.Cut(tt.overrides[i], "="); o.Name != name || o.Value != value || o.Used != tt.used[i] {
					t.Errorf("override %d: %+v, want %s = %s used %v", i, o, name, value, tt.used[i])
				}
			}
			notes := 0
			for _, n := range pred.Notes {
				if strings.Contains(n, "was not used") {
					notes++
					for _, want := range tt.note {
						if !strings.Contains(n, want) {
							t.Errorf("note %q lacks %q", n, want)
						}
					}
				}
			}
			if want := strings.Count(fmt.Sprint(tt.used), "false"); notes != want {
				t.Errorf("%d notes about unused overrides, want %d: %q", notes, want, pred.Notes)
			}
		})
	}
}

// TestPartitionNote checks that a communicating kernel on another number of
// ranks than the table was measured on gets a note, and that a kernel on
// the table's partition, one that does not communicate, or a table that
// names no partition gets none.
func TestPartitionNote(t *testing.T) {
	const note = "were measured on"
	tests := []struct {
		kernel, machine string
		ranks           []string // -D overrides (none for the defaults)
		want            bool
	}{
		{"gauss", "cm5-32", nil, false},                // P = 32
		{"gauss", "cm5-32", []string{"P", "64"}, true}, // collectives on 64 ranks
		{"gauss", "cm5-512", nil, true},                // 32 ranks of a 512-node table
		{"gauss", "cm5-512", []string{"P", "512", "N", "512"}, false},
		{"triad", "cm5-32", nil, false},              // one rank, no communication
		{"gauss", "sp2", []string{"P", "64"}, false}, // the table names no partition
	}
	for _, tt := range tests {
		t.Run(tt.kernel+"/"+tt.machine+"/"+strings.Join(tt.ranks, "="), func(t *testing.T) {
			k := loadKernel(t, "../examples/"+tt.kernel+".spmd", tt.ranks...)
			pred, _, err := predictOn(t, k, tt.machine, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := has(pred.Notes, note); got != tt.want {
				t.Errorf("notes %q: a partition note %v, want %v", pred.Notes, got, tt.want)
			}
		})
	}
}

// mustAssign parses -M assignments.
func mustAssign(t *testing.T, list []string) []machines.Assignment {
	t.Helper()
	as, err := machines.ParseAssignments(list)
	if err != nil {
		t.Fatal(err)
	}
	return as
}
