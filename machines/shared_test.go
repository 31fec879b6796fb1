package machines

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSharedKey checks messages.shared: it loads its factor with its
// source, is absent when not given, needs its own source and a factor of
// at least 1, and is refused inside a by_elem variant.
func TestSharedKey(t *testing.T) {
	m, err := Parse("m.yaml", []byte(header+`
messages:
  source: s
  model: hockney
  t0: 1us
  rinf: 1GB/s
  shared: {factor: 1.9, source: COMMS3 at P=2 and P=4}
`))
	if err != nil {
		t.Fatal(err)
	}
	sc := m.SharedCopies()
	if sc == nil {
		t.Fatal("no messages.shared")
	}
	got := []any{sc.Factor.Value, sc.Source, sc.Factor.Source}
	if diff := cmp.Diff([]any{1.9, "COMMS3 at P=2 and P=4", "COMMS3 at P=2 and P=4"}, got); diff != "" {
		t.Errorf("shared (-want +got):\n%s", diff)
	}
	plain, err := Parse("m.yaml", []byte(header+"messages: {source: s, model: hockney, t0: 1us, rinf: 1GB/s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if plain.SharedCopies() != nil {
		t.Error("a messages.shared where the table gives none")
	}
	const msg = "messages:\n  source: s\n  model: hockney\n  t0: 1us\n  rinf: 1GB/s\n"
	for _, bad := range []struct{ body, want string }{
		{msg + "  shared: {factor: 2}\n", "messages.shared has no source"},
		{msg + "  shared: {source: x}\n", "factor"},
		{msg + "  shared: {factor: 0.8, source: x}\n", "below 1"},
		{msg + "  shared: {factor: 2us, source: x}\n", "factor"},
		{msg + "  shared: {factor: 2, above: 1KiB, source: x}\n", "unknown key 'above'"},
		{msg + "  by_elem:\n    f32: {model: hockney, t0: 1us, rinf: 1GB/s, shared: {factor: 2, source: x}}\n",
			"unknown key 'shared'"},
	} {
		_, err := Parse("m.yaml", []byte(header+bad.body))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: got %v, want an error with %q", bad.body, err, bad.want)
		}
	}
}
