package machines

import (
	"math"
	"strings"
	"testing"
)

// TestSubLawKeys checks the message laws beside the top-level one,
// messages.exchange and messages.same_core: each loads as a message model
// of its own (ranges and all), is absent when not given, needs its own
// source, and is refused inside a by_elem variant.
func TestSubLawKeys(t *testing.T) {
	for _, key := range []struct {
		name string
		law  func(*Machine) *MessageModel
	}{
		{"exchange", (*Machine).Exchange},
		{"same_core", (*Machine).SameCoreMessages},
	} {
		t.Run(key.name, func(t *testing.T) {
			m, err := Parse("m.yaml", []byte(header+`
messages:
  source: s
  model: hockney
  t0: 1us
  rinf: 1GB/s
  `+key.name+`:
    source: LAW
    model: hockney
    ranges:
      - {below: 4KiB, t0: 2us, rinf: 2GB/s, source: r1}
      - {t0: 1ns, rinf: 0.5GB/s, source: r2}
`))
			if err != nil {
				t.Fatal(err)
			}
			x := key.law(m)
			if x == nil {
				t.Fatalf("no %s law", key.name)
			}
			for _, c := range []struct{ bytes, want float64 }{{1024, 2e-6 + 1024/2e9}, {8192, 1e-9 + 8192/0.5e9}} {
				if got := x.Time(c.bytes, 1); math.Abs(got-c.want) > 1e-15 {
					t.Errorf("%s of %g B: %g s, want %g", key.name, c.bytes, got, c.want)
				}
			}
			if x.Source() != "LAW" {
				t.Errorf("source %q, want LAW", x.Source())
			}
			plain, err := Parse("m.yaml", []byte(header+"messages: {source: s, model: hockney, t0: 1us, rinf: 1GB/s}\n"))
			if err != nil {
				t.Fatal(err)
			}
			if key.law(plain) != nil {
				t.Errorf("a %s law where the table gives none", key.name)
			}
			top := "messages:\n  source: s\n  model: hockney\n  t0: 1us\n  rinf: 1GB/s\n"
			for _, bad := range []struct{ body, want string }{
				{top + "  " + key.name + ": {model: hockney, t0: 1us, rinf: 1GB/s}\n", "messages." + key.name + " has no source"},
				{top + "  by_elem:\n    f32: {model: hockney, t0: 1us, rinf: 1GB/s, " + key.name + ": {model: hockney, t0: 1us, rinf: 1GB/s}}\n",
					"unknown key '" + key.name + "'"},
			} {
				_, err := Parse("m.yaml", []byte(header+bad.body))
				if err == nil || !strings.Contains(err.Error(), bad.want) {
					t.Errorf("got %v, want an error with %q", err, bad.want)
				}
			}
		})
	}
}
