package machines

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSharedKey checks messages.shared: it loads its factor with its
// source, is absent when not given, needs its own source and a factor of
// at least 1, and is refused inside a by_elem variant.
func TestSharedKey(t *testing.T) {
	m := parseWithMessageKey(t, "  shared: {factor: 1.9, source: COMMS3 at P=2 and P=4}\n")
	sc := m.SharedCopies()
	if sc == nil {
		t.Fatal("no messages.shared")
	}
	got := []any{sc.Factor.Value, sc.Source, sc.Factor.Source}
	if diff := cmp.Diff([]any{1.9, "COMMS3 at P=2 and P=4", "COMMS3 at P=2 and P=4"}, got); diff != "" {
		t.Errorf("shared (-want +got):\n%s", diff)
	}
	checkOptionalMessageKey(t, "shared", func(m *Machine) bool { return m.SharedCopies() == nil }, []badKey{
		{messagesHead + "  shared: {factor: 2}\n", "messages.shared has no source"},
		{messagesHead + "  shared: {source: x}\n", "factor"},
		{messagesHead + "  shared: {factor: 0.8, source: x}\n", "below 1"},
		{messagesHead + "  shared: {factor: 2us, source: x}\n", "factor"},
		{messagesHead + "  shared: {factor: 2, above: 1KiB, source: x}\n", "unknown key 'above'"},
		{messagesHead + "  by_elem:\n    f32: {model: hockney, t0: 1us, rinf: 1GB/s, shared: {factor: 2, source: x}}\n",
			"unknown key 'shared'"},
	})
}
