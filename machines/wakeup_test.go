package machines

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWakeupKey checks messages.wakeup: it loads its time and threshold
// with their source, is absent when not given, needs its own source and
// both numbers, and is refused inside a by_elem variant.
func TestWakeupKey(t *testing.T) {
	m, err := Parse("m.yaml", []byte(header+`
messages:
  source: s
  model: hockney
  t0: 1us
  rinf: 1GB/s
  wakeup: {time: 10us, after: 20us, source: gapped pingpong}
`))
	if err != nil {
		t.Fatal(err)
	}
	w := m.Wakeup()
	if w == nil {
		t.Fatal("no wake-up cost")
	}
	got := []any{w.Time.Value, w.After.Value, w.Source, w.Time.Source}
	if diff := cmp.Diff([]any{10e-6, 20e-6, "gapped pingpong", "gapped pingpong"}, got); diff != "" {
		t.Errorf("wakeup (-want +got):\n%s", diff)
	}
	plain, err := Parse("m.yaml", []byte(header+"messages: {source: s, model: hockney, t0: 1us, rinf: 1GB/s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if plain.Wakeup() != nil {
		t.Error("a wake-up cost where the table gives none")
	}
	const msg = "messages:\n  source: s\n  model: hockney\n  t0: 1us\n  rinf: 1GB/s\n"
	for _, bad := range []struct{ body, want string }{
		{msg + "  wakeup: {time: 10us, after: 20us}\n", "messages.wakeup has no source"},
		{msg + "  wakeup: {time: 10us, source: x}\n", "after"},
		{msg + "  wakeup: {time: 10GB/s, after: 20us, source: x}\n", "time"},
		{msg + "  wakeup: {time: -1us, after: 20us, source: x}\n", "time"},
		{msg + "  by_elem:\n    f32: {model: hockney, t0: 1us, rinf: 1GB/s, wakeup: {time: 1us, after: 1us, source: x}}\n",
			"unknown key 'wakeup'"},
	} {
		_, err := Parse("m.yaml", []byte(header+bad.body))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: got %v, want an error with %q", bad.body, err, bad.want)
		}
	}
}
