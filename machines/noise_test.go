package machines

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNoiseKey checks messages.noise: it loads its law with its source,
// evaluates it (0 after no compute), is absent when not given, needs its
// own source and both numbers in their units, is refused inside a by_elem
// variant, and perfc machines prints it.
func TestNoiseKey(t *testing.T) {
	m := parseWithMessageKey(t, "  noise: {time: 2us, per_compute: 0.25, source: NOISE benchmark}\n")
	n := m.Noise()
	if n == nil {
		t.Fatal("no noise law")
	}
	got := []any{n.Time.Value, n.PerCompute.Value, n.Source, n.Time.Source, n.Excess(0), n.Excess(-1), n.Excess(8e-6)}
	if diff := cmp.Diff([]any{2e-6, 0.25, "NOISE benchmark", "NOISE benchmark", 0.0, 0.0, 4e-6}, got); diff != "" {
		t.Errorf("noise (-want +got):\n%s", diff)
	}
	var out bytes.Buffer
	if err := m.Describe(&out); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"synchronisation noise", "per_compute", "NOISE benchmark"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("perfc machines does not print %q:\n%s", s, out.String())
		}
	}
	checkOptionalMessageKey(t, "noise", func(m *Machine) bool { return m.Noise() == nil }, []badKey{
		{messagesHead + "  noise: {time: 1us, per_compute: 0.1}\n", "messages.noise has no source"},
		{messagesHead + "  noise: {time: 1us, source: x}\n", "per_compute"},
		{messagesHead + "  noise: {time: 1GB/s, per_compute: 0.1, source: x}\n", "time"},
		{messagesHead + "  noise: {time: 1us, per_compute: 1us, source: x}\n", "per_compute"},
		{messagesHead + "  noise: {time: 1us, per_compute: -0.1, source: x}\n", "per_compute"},
		{messagesHead + "  by_elem:\n    f32: {model: hockney, t0: 1us, rinf: 1GB/s, noise: {time: 1us, per_compute: 0.1, source: x}}\n",
			"unknown key 'noise'"},
	})
}
