package machines

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRequestsKey checks messages.requests: it loads its post and wait
// costs with their source, is absent when not given, needs its own source
// and both numbers, and is refused inside a by_elem variant.
func TestRequestsKey(t *testing.T) {
	m := parseWithMessageKey(t, "  requests: {post: 120ns, wait: 200ns, source: REQ benchmark}\n")
	q := m.Requests()
	if q == nil {
		t.Fatal("no request costs")
	}
	got := []any{q.Post.Value, q.Wait.Value, q.Source, q.Wait.Source}
	if diff := cmp.Diff([]any{120e-9, 0.2e-6, "REQ benchmark", "REQ benchmark"}, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	checkOptionalMessageKey(t, "requests", func(m *Machine) bool { return m.Requests() == nil }, []badKey{
		{messagesHead + "  requests: {post: 1us, wait: 1us}\n", "messages.requests has no source"},
		{messagesHead + "  requests: {post: 1us, source: x}\n", "wait"},
		{messagesHead + "  requests: {post: 1GB/s, wait: 1us, source: x}\n", "post"},
		{messagesHead + "  requests: {post: 1us, wait: -1us, source: x}\n", "wait"},
		{messagesHead + "  by_elem:\n    f32: {model: hockney, t0: 1us, rinf: 1GB/s, requests: {post: 1us, wait: 1us, source: x}}\n",
			"unknown key 'requests'"},
	})
}
