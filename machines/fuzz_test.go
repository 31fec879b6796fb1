package machines

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse loads every text as a machine table. Whatever the text, Parse
// returns without panicking; a table it refuses says why at a position of
// the file ("m.yaml:LINE:COL: …" or the file alone), and a table it
// accepts prices every message length at a finite, non-negative time (the
// pieces of a Hockney law, fitted_to's line between them included). The
// seeds are the built-in tables, the test tables and a calibrated law with
// fitted_to.
//
//	go test -run=^$ -fuzz=FuzzParse -fuzztime=3m ./machines
func FuzzParse(f *testing.F) {
	for _, pattern := range []string{"builtin/*.yaml", "testdata/*.yaml"} {
		files, _ := filepath.Glob(pattern)
		for _, name := range files {
			if src, err := os.ReadFile(name); err == nil {
				f.Add(src)
			}
		}
	}
	f.Add([]byte(header + `messages:
  source: test
  model: hockney
  ranges:
    - {below: 16MiB, fitted_to: 12MiB, t0: 1ns, rinf: 26.84GB/s}
    - {t0: 1ns, rinf: 20.87GB/s}
`))
	f.Add([]byte(coreTable(coreWidths + ", window: {value: 15ns, source: w}, window_exponent: {value: 8, source: p}, entry: 0.6, divider: {div: {f64: 1.2ns}}")))
	f.Fuzz(func(t *testing.T, src []byte) {
		m, err := Parse("m.yaml", src)
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "m.yaml") {
				t.Errorf("error without the file's name: %q", msg)
			}
			return
		}
		mm := m.Messages("")
		if mm == nil {
			return
		}
		for _, n := range []float64{0, 1, 100, 4096, 1 << 20, 12 << 20, 15 << 20, 16 << 20, 1 << 30} {
			if got := mm.Time(n, 1); math.IsNaN(got) || math.IsInf(got, 0) || got < 0 && mm.Kind() == HockneyModel {
				t.Errorf("a message of %g B costs %v s", n, got)
			}
		}
	})
}

// FuzzOverride applies one -M assignment, whatever its name and value, to
// the calibrated-host test table. With never panics; an assignment it
// refuses says why at the assignment ("-M …: …") or, when the value is
// valid YAML that the table's own checks refuse elsewhere, at the table;
// a machine it returns is written out and loads back.
//
//	go test -run=^$ -fuzz=FuzzOverride -fuzztime=3m ./machines
func FuzzOverride(f *testing.F) {
	for _, seed := range [][2]string{
		{"memory.caches.L2.bandwidth", "64GB/s"}, {"memory.caches.0.size", "32KiB"},
		{"core_switch", "0.3us"}, {"cores", "2"}, {"compute.loop", "{iteration: 0.3ns}"},
		{"compute.ops.entries.0", "{op: div, f64: 1ns}"}, {"memory.caches", "[]"},
		{"compose", "max"}, {"memory..x", "1"}, {"memory.main_bandwidth", "[1"},
	} {
		f.Add(seed[0], seed[1])
	}
	base, err := Load(filepath.Join("testdata", "ecm.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, name, value string) {
		as, err := ParseAssignments([]string{name + "=" + value})
		if err != nil {
			return
		}
		m, err := base.With(as...)
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "-M ") && !strings.HasPrefix(msg, "testdata") || strings.Contains(msg, ".yaml:-") {
				t.Errorf("error neither at the assignment nor in the table: %q", msg)
			}
			return
		}
		var text bytes.Buffer
		if err := m.WriteYAML(&text); err != nil {
			t.Fatalf("%s=%s: %v", name, value, err)
		}
		if _, err := Parse("back.yaml", text.Bytes()); err != nil {
			t.Errorf("%s=%s: the table written with it does not load back: %v", name, value, err)
		}
	})
}
