package machines

import (
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
