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
	m, err := Parse("m.yaml", []byte(header+`
messages:
  source: s
  model: hockney
  t0: 1us
  rinf: 1GB/s
  noise: {time: 2us, per_compute: 0.25, source: NOISE benchmark}
`))
	if err != nil {
		t.Fatal(err)
	}
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
	plain, err := Parse("m.yaml", []byte(header+"messages: {source: s, model: hockney, t0: 1us, rinf: 1GB/s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if plain.Noise() != nil {
		t.Error("a noise law where the table gives none")
	}
	const msg = "messages:\n  source: s\n  model: hockney\n  t0: 1us\n  rinf: 1GB/s\n"
	for _, bad := range []struct{ body, want string }{
		{msg + "  noise: {time: 1us, per_compute: 0.1}\n", "messages.noise has no source"},
		{msg + "  noise: {time: 1us, source: x}\n", "per_compute"},
		{msg + "  noise: {time: 1GB/s, per_compute: 0.1, source: x}\n", "time"},
		{msg + "  noise: {time: 1us, per_compute: 1us, source: x}\n", "per_compute"},
		{msg + "  noise: {time: 1us, per_compute: -0.1, source: x}\n", "per_compute"},
		{msg + "  by_elem:\n    f32: {model: hockney, t0: 1us, rinf: 1GB/s, noise: {time: 1us, per_compute: 0.1, source: x}}\n",
			"unknown key 'noise'"},
	} {
		_, err := Parse("m.yaml", []byte(header+bad.body))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: got %v, want an error with %q", bad.body, err, bad.want)
		}
	}
}
