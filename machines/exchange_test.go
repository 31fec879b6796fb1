package machines

import (
	"math"
	"strings"
	"testing"
)

// TestExchangeKey checks messages.exchange: it loads as a message model of
// its own (ranges and all), is absent when not given, needs its own
// source, and is refused inside a by_elem variant.
func TestExchangeKey(t *testing.T) {
	m, err := Parse("m.yaml", []byte(header+`
messages:
  source: s
  model: hockney
  t0: 1us
  rinf: 1GB/s
  exchange:
    source: COMMS2
    model: hockney
    ranges:
      - {below: 4KiB, t0: 2us, rinf: 2GB/s, source: r1}
      - {t0: 1ns, rinf: 0.5GB/s, source: r2}
`))
	if err != nil {
		t.Fatal(err)
	}
	x := m.Exchange()
	if x == nil {
		t.Fatal("no exchange law")
	}
	for _, c := range []struct{ bytes, want float64 }{{1024, 2e-6 + 1024/2e9}, {8192, 1e-9 + 8192/0.5e9}} {
		if got := x.Time(c.bytes, 1); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("exchange of %g B: %g s, want %g", c.bytes, got, c.want)
		}
	}
	if x.Source() != "COMMS2" {
		t.Errorf("source %q, want COMMS2", x.Source())
	}
	plain, err := Parse("m.yaml", []byte(header+"messages: {source: s, model: hockney, t0: 1us, rinf: 1GB/s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if plain.Exchange() != nil {
		t.Error("an exchange law where the table gives none")
	}
	for _, bad := range []struct{ body, want string }{
		{"messages:\n  source: s\n  model: hockney\n  t0: 1us\n  rinf: 1GB/s\n  exchange: {model: hockney, t0: 1us, rinf: 1GB/s}\n",
			"messages.exchange has no source"},
		{"messages:\n  source: s\n  model: hockney\n  t0: 1us\n  rinf: 1GB/s\n  by_elem:\n    f32: {model: hockney, t0: 1us, rinf: 1GB/s, exchange: {model: hockney, t0: 1us, rinf: 1GB/s}}\n",
			"unknown key 'exchange'"},
	} {
		_, err := Parse("m.yaml", []byte(header+bad.body))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("got %v, want an error with %q", err, bad.want)
		}
	}
}

// TestSameCoreKey checks messages.same_core: it loads as a message model
// of its own, is absent when not given, needs its own source, and is
// refused inside a by_elem variant.
func TestSameCoreKey(t *testing.T) {
	m, err := Parse("m.yaml", []byte(header+`
messages:
  source: s
  model: hockney
  t0: 1us
  rinf: 1GB/s
  same_core: {source: SAMECORE, model: hockney, t0: 0.2us, rinf: 50GB/s}
`))
	if err != nil {
		t.Fatal(err)
	}
	sc := m.SameCoreMessages()
	if sc == nil {
		t.Fatal("no same-core law")
	}
	if got, want := sc.Time(8192, 1), 0.2e-6+8192/50e9; math.Abs(got-want) > 1e-15 {
		t.Errorf("same-core message of 8 KiB: %g s, want %g", got, want)
	}
	if sc.Source() != "SAMECORE" {
		t.Errorf("source %q, want SAMECORE", sc.Source())
	}
	plain, err := Parse("m.yaml", []byte(header+"messages: {source: s, model: hockney, t0: 1us, rinf: 1GB/s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if plain.SameCoreMessages() != nil {
		t.Error("a same-core law where the table gives none")
	}
	for _, bad := range []struct{ body, want string }{
		{"messages:\n  source: s\n  model: hockney\n  t0: 1us\n  rinf: 1GB/s\n  same_core: {model: hockney, t0: 1us, rinf: 1GB/s}\n",
			"messages.same_core has no source"},
		{"messages:\n  source: s\n  model: hockney\n  t0: 1us\n  rinf: 1GB/s\n  by_elem:\n    f32: {model: hockney, t0: 1us, rinf: 1GB/s, same_core: {model: hockney, t0: 1us, rinf: 1GB/s}}\n",
			"unknown key 'same_core'"},
	} {
		_, err := Parse("m.yaml", []byte(header+bad.body))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("got %v, want an error with %q", err, bad.want)
		}
	}
}
