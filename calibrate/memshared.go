package calibrate

import (
	"context"
	"fmt"

	"perfc/codegen/spmd"
)

// The SHARED benchmark measures what streaming from memory costs a rank
// when every core streams at once (memory.shared, docs/machines.md): a
// triad over arrays of four times the last level on every one of the
// host's C cores, each rank its own arrays, against the same triad on
// rank 0 alone while the others wait at a barrier. Two cores of this host
// streaming at once took 1.35 × the time of one (2026-11-26: a 36 MB
// triad 2.1–2.3 ms a rank against 1.5–1.8 ms alone), which
// main_bandwidth, measured on one core, does not describe: the stencils
// of two ranks from memory were predicted 30–45 % short.

// memSharedRegions are the benchmark's two regions.
const (
	memAlone    = "SHARED alone"
	memTogether = "SHARED together"
)

// memShared is the benchmark's result: the slowdown of a rank's stream
// when every core streams, from the medians of the two regions.
type memShared struct {
	ranks          int
	bytes          int64   // per rank: the three arrays
	alone, shared  float64 // µs, medians of the two regions
	samples        int
	aloneSpread    float64
	togetherSpread float64
}

// factor is the slowdown, at least 1.
func (s *memShared) factor() float64 { return max(1, s.shared/s.alone) }

// memSharedKernel is the benchmark's text: n elements per array on each
// of ranks ranks, a pass on every rank to start, reps passes per region.
func memSharedKernel(ranks int, n, reps int64) string {
	body := fmt.Sprintf("repeat %d {\n      for i in 0..%d {\n        a[i] = b[i] + 3.0 * c[i]\n      }\n    }", reps, n)
	// A first pass on every rank, outside the regions, writes back the
	// dirty lines the harness's refill left in the caches, which would
	// otherwise slow the first region alone.
	warm := fmt.Sprintf("for i in 0..%d {\n    a[i] = b[i] + 3.0 * c[i]\n  }", n)
	return fmt.Sprintf(`// perfc calibrate: SHARED, streaming from memory on one core and on every core (generated)
kernel calibrate_memshared() on P = %d ranks {
  array a[%d], b[%d], c[%d]: f64
  %s
  barrier
  region %q {
    if rank == 0 {
    %s
    }
  }
  barrier
  region %q {
    %s
  }
}
`, ranks, n, n, n, warm, memAlone, body, memTogether, body)
}

// runMemShared runs the SHARED benchmark on the host's cores with arrays
// of 4 × llc bytes a rank (tiny: a small stream, to test the path); nil
// when the host has one core.
func runMemShared(ctx context.Context, st *settler, mode Mode, cores int, llc int64, cacheDir string, built func()) (*memShared, error) {
	if cores < 2 {
		return nil, nil
	}
	n, reps, samples := 4*llc/24, int64(2), 5
	switch mode {
	case Quick:
		reps, samples = 1, 3
	case Tiny:
		n, reps, samples = 1<<14, 1, 2
	}
	m, err := measureBenchmark(ctx, st, "SHARED", kernelSpec{name: "calibrate_memshared", text: memSharedKernel(cores, n, reps)}, cacheDir, built,
		"-reps", "1", "-samples", fmt.Sprint(samples))
	if err != nil {
		return nil, err
	}
	s := &memShared{ranks: cores, bytes: 24 * n, samples: samples}
	for _, t := range m.Regions {
		spread := 0.0
		if t.MedianUs > 0 {
			spread = (t.MaxUs - t.MinUs) / t.MedianUs
		}
		switch t.Name {
		case memAlone:
			s.alone, s.aloneSpread = t.MedianUs, spread
		case memTogether:
			s.shared, s.togetherSpread = t.MedianUs, spread
		}
	}
	if !(s.alone > 0) || !(s.shared > 0) {
		return nil, fmt.Errorf("calibrate: the SHARED benchmark measured %g us alone and %g us together; both must be positive", s.alone, s.shared)
	}
	return s, nil
}

// section is memory.shared, or nil when streaming together costs nothing
// more (a factor within 2 % of 1).
func (s *memShared) section(date string) *sharedYAML {
	if s == nil || s.factor() < 1.02 {
		return nil
	}
	return &sharedYAML{Factor: fmt.Sprintf("%.4g", s.factor()),
		Source: fmt.Sprintf("perfc calibrate SHARED: a triad over %s a rank (4 × the last level), on %d ranks at once %s against rank 0 alone %s per region (medians of %d measurements, spreads %.0f %% and %.0f %%), %s",
			fmtSize(s.bytes), s.ranks, fmtUs(s.shared), fmtUs(s.alone), s.samples, 100*s.togetherSpread, 100*s.aloneSpread, date)}
}

// sharedYAML is memory.shared (docs/machines.md).
type sharedYAML struct {
	Factor string `yaml:"factor"`
	Source string `yaml:"source"`
}

// fmtUs writes microseconds.
func fmtUs(us float64) string { return fmt.Sprintf("%.4gus", us) }

// fmtSize writes bytes with a binary prefix.
func fmtSize(b int64) string { return spmd.FormatBytes(b) }
