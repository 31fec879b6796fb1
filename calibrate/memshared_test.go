package calibrate

import (
	"math"
	"strings"
	"testing"
)

// TestMemSharedFactor: memory.shared is the median of the runs' ratios of
// together to alone (the five runs of 2026-11-27 by hand give 1.20), its
// source lists them; a median within 2 % of 1 writes no section.
func TestMemSharedFactor(t *testing.T) {
	s := &memShared{ranks: 2, bytes: 96 << 20, alone: 4400, shared: 5300, samples: 5,
		ratios: []float64{1.59, 1.66, 1.20, 1.02, 1.17}}
	sec := s.section("2026-11-27")
	if sec == nil || sec.Factor != "1.2" {
		t.Fatalf("section %+v, want factor 1.2", sec)
	}
	for _, want := range []string{"the median of the ratios of 5 runs 2s apart (1.59, 1.66, 1.2, 1.02, 1.17)", "on 2 ranks at once 5300us against rank 0 alone 4400us"} {
		if !strings.Contains(sec.Source, want) {
			t.Errorf("source %q lacks %q", sec.Source, want)
		}
	}
	s.ratios = []float64{1.01, 0.98, 1.3}
	if sec := s.section("2026-11-27"); sec != nil {
		t.Errorf("a median ratio of 1.01: section %+v, want none", sec)
	}
	s.ratios = []float64{1.1, 1.3}
	if got := s.factor(); math.Abs(got-1.2) > 1e-12 {
		t.Errorf("two runs 1.1 and 1.3: factor %g, want their mean 1.2", got)
	}
}
