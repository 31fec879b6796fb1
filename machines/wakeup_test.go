package machines

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWakeupKey checks messages.wakeup: it loads its time and threshold
// with their source, is absent when not given, needs its own source and
// both numbers, and is refused inside a by_elem variant.
func TestWakeupKey(t *testing.T) {
	m := parseWithMessageKey(t, "  wakeup: {time: 10us, after: 20us, source: gapped pingpong}\n")
	w := m.Wakeup()
	if w == nil {
		t.Fatal("no wake-up cost")
	}
	got := []any{w.Time.Value, w.After.Value, w.Source, w.Time.Source}
	if diff := cmp.Diff([]any{10e-6, 20e-6, "gapped pingpong", "gapped pingpong"}, got); diff != "" {
		t.Errorf("wakeup (-want +got):\n%s", diff)
	}
	checkOptionalMessageKey(t, "wakeup", func(m *Machine) bool { return m.Wakeup() == nil }, []badKey{
		{messagesHead + "  wakeup: {time: 10us, after: 20us}\n", "messages.wakeup has no source"},
		{messagesHead + "  wakeup: {time: 10us, source: x}\n", "after"},
		{messagesHead + "  wakeup: {time: 10GB/s, after: 20us, source: x}\n", "time"},
		{messagesHead + "  wakeup: {time: -1us, after: 20us, source: x}\n", "time"},
		{messagesHead + "  by_elem:\n    f32: {model: hockney, t0: 1us, rinf: 1GB/s, wakeup: {time: 1us, after: 1us, source: x}}\n",
			"unknown key 'wakeup'"},
	})
}
