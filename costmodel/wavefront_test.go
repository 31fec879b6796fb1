package costmodel

import (
	"os"
	"strings"
	"testing"

	"perfc/machines"
)

// hugeEager prices a message at 4.3·10^306 s and sends it eagerly. On a
// 3 × 3 grid with 10 sweeps a rank's 40 messages (4.3·40 = 172) and the
// emulated pipeline stay below float range (about 1.8·10^308), while the
// LANL closed form, eq. (3), counts 2(3 + 3 − 2) + 4·9 = 44 message steps
// and overflows.
const hugeEager = `
name: hugeeager
description: messages that take most of float range, sent eagerly
source: perfc test
compute: {source: test, peak: {f64: 1Gflop/s}}
messages: {source: test, model: hockney, t0: 4.3e306s, rinf: 1e300B/s, eager_limit: 16KiB}
`

// TestPredictWavefrontErrorIsNoted checks that Predict reports a failed
// wavefront analysis as a note instead of dropping it (here its closed
// form overflows), and that the emulated prediction stands.
func TestPredictWavefrontErrorIsNoted(t *testing.T) {
	m, err := machines.Parse("hugeeager.yaml", []byte(hugeEager))
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("../examples/wave.spmd")
	if err != nil {
		t.Fatal(err)
	}
	pred, err := predictSource(t, m, string(src), Options{}, "Px", "3", "Py", "3", "sweeps", "10", "cells", "1")
	if err != nil {
		t.Fatal(err)
	}
	if pred.Emulation == nil || pred.Total <= 0 {
		t.Fatalf("no emulated prediction: total %g, method %q", pred.Total, pred.Method)
	}
	if pred.Wavefront != nil {
		t.Errorf("a wavefront analysis despite its error: %+v", pred.Wavefront)
	}
	var note string
	for _, n := range pred.Notes {
		if strings.Contains(n, "wavefront analysis") {
			note = n
		}
	}
	if note == "" {
		t.Errorf("no note of the failed wavefront analysis; notes:\n%s", strings.Join(pred.Notes, "\n"))
	}
}
