package machines

import (
	"strings"
	"testing"
)

// messagesHead is the messages section the optional-key tests extend: a
// Hockney law with its source, every line indented as the keys under it.
const messagesHead = "messages:\n  source: s\n  model: hockney\n  t0: 1us\n  rinf: 1GB/s\n"

// badKey is a messages section with something wrong, and a part of the
// error it must give.
type badKey struct{ body, want string }

// parseWithMessageKey parses the test header and messagesHead with one more
// key line (such as "  wakeup: {…}\n").
func parseWithMessageKey(t *testing.T, line string) *Machine {
	t.Helper()
	m, err := Parse("m.yaml", []byte(header+messagesHead+line))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// checkOptionalMessageKey checks what every optional key of messages
// shares: a table without it has none (absent reports so), and each bad
// section is refused with an error that says why.
func checkOptionalMessageKey(t *testing.T, key string, absent func(*Machine) bool, bads []badKey) {
	t.Helper()
	plain, err := Parse("m.yaml", []byte(header+"messages: {source: s, model: hockney, t0: 1us, rinf: 1GB/s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !absent(plain) {
		t.Errorf("a messages.%s where the table gives none", key)
	}
	for _, bad := range bads {
		_, err := Parse("m.yaml", []byte(header+bad.body))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: got %v, want an error with %q", bad.body, err, bad.want)
		}
	}
}
