package machines

import (
	"strings"
	"testing"
)

// TestCollectiveAfterBarrier checks a collective entry's after_barrier: time: the
// entry Collective picks gives it, an entry without one gives none (its
// time: prices every call), and Describe shows it (TestLoadErrors: it
// needs time:, not ops:).
func TestCollectiveAfterBarrier(t *testing.T) {
	m, err := Parse("m.yaml", []byte(header+`
collectives:
  source: s
  entries:
    - {kind: bcast, time: 1us + 1ns/B * bytes, after_barrier: 3us + 1ns/B * bytes}
    - {kind: bcast, elem: i32, time: 2us}
    - {kind: allreduce, time: 5us}
`))
	if err != nil {
		t.Fatal(err)
	}
	at := Vars{Bytes: 1000, P: 4}
	for _, tt := range []struct {
		kind, elem  string
		time, after float64 // after 0: none
	}{
		{"bcast", "f64", 2e-6, 4e-6},
		{"bcast", "", 2e-6, 4e-6},
		{"bcast", "i32", 2e-6, 0}, // its own entry, which has none
		{"allreduce", "f64", 5e-6, 0},
	} {
		c, ok := m.Collective(tt.kind, "", tt.elem)
		if !ok || !near(c.Eval(at), tt.time, 1e-9) {
			t.Errorf("Collective(%s %s) = %v, %v; want %g s", tt.kind, tt.elem, c, ok, tt.time)
		}
		iso, ok := m.CollectiveAfterBarrier(tt.kind, "", tt.elem)
		switch {
		case tt.after == 0 && ok:
			t.Errorf("CollectiveAfterBarrier(%s %s) = %v, want none", tt.kind, tt.elem, iso)
		case tt.after > 0 && (!ok || !near(iso.Eval(at), tt.after, 1e-9)):
			t.Errorf("CollectiveAfterBarrier(%s %s) = %v, %v; want %g s", tt.kind, tt.elem, iso, ok, tt.after)
		}
	}
	var b strings.Builder
	if err := m.Describe(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "bcast after a barrier") {
		t.Errorf("Describe has no row for bcast's after_barrier: time\n%s", b.String())
	}

}
