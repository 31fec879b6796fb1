package calibrate

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

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
// when every core streams, from the runs of the benchmark program at
// moments apart.
type memShared struct {
	ranks         int
	bytes         int64   // per rank: the three arrays
	alone, shared float64 // µs, the medians over the runs of each run's region medians
	samples       int     // measurements per run
	ratios        []float64
}

// memSharedRuns is how many times a full calibration runs the SHARED
// program, memSharedGap apart. The slowdown is the host's moment: run by
// hand six times five seconds apart (2026-11-27), the program measured
// 1.59, 1.66, 1.20, 1.02, 1.17 and 1.03, each run within itself steady
// (samples within 5-10 %), and one calibration wrote 1.31, the next 1.58,
// which priced the 2 × 1 stencils from memory of one validation at
// +10..+19 % and +25..+36 %. The median of runs at several moments is the
// host's usual slowdown, as a validation meets it case after case.
const (
	memSharedRuns = 5
	memSharedGap  = 2 * time.Second
)

// factor is the slowdown, at least 1: the median of the runs' ratios of
// together to alone.
func (s *memShared) factor() float64 { return max(1, median(s.ratios)) }

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
	n, reps, samples, runs := 4*llc/24, int64(2), 5, memSharedRuns
	switch mode {
	case Quick:
		reps, samples, runs = 1, 3, 2
	case Tiny:
		n, reps, samples, runs = 1<<14, 1, 2, 1
	}
	s := &memShared{ranks: cores, bytes: 24 * n, samples: samples}
	var alone, together []float64
	for i := range runs {
		if i > 0 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(memSharedGap):
			}
			built = func() {} // one build, counted once
		}
		m, err := measureBenchmark(ctx, st, "SHARED", kernelSpec{name: "calibrate_memshared", text: memSharedKernel(cores, n, reps)}, cacheDir, built,
			"-reps", "1", "-samples", fmt.Sprint(samples))
		if err != nil {
			return nil, err
		}
		var a, t float64
		for _, r := range m.Regions {
			switch r.Name {
			case memAlone:
				a = r.MedianUs
			case memTogether:
				t = r.MedianUs
			}
		}
		if !(a > 0) || !(t > 0) || math.IsInf(a, 1) || math.IsInf(t, 1) {
			return nil, fmt.Errorf("calibrate: the SHARED benchmark measured %g us alone and %g us together; both must be positive and finite", a, t)
		}
		alone, together, s.ratios = append(alone, a), append(together, t), append(s.ratios, t/a)
	}
	s.alone, s.shared = median(alone), median(together)
	return s, nil
}

// section is memory.shared, or nil when streaming together costs nothing
// more (a factor within 2 % of 1).
func (s *memShared) section(date string) *sharedYAML {
	if s == nil || s.factor() < 1.02 {
		return nil
	}
	ratios := make([]string, len(s.ratios))
	for i, r := range s.ratios {
		ratios[i] = fmt.Sprintf("%.3g", r)
	}
	return &sharedYAML{Factor: fmt.Sprintf("%.4g", s.factor()),
		Source: fmt.Sprintf("perfc calibrate SHARED: a triad over %s a rank (4 × the last level), on %d ranks at once %s against rank 0 alone %s per region; the median of the ratios of %d runs %s apart (%s), each of the medians of %d measurements, %s",
			fmtSize(s.bytes), s.ranks, fmtUs(s.shared), fmtUs(s.alone), len(s.ratios), memSharedGap, strings.Join(ratios, ", "), s.samples, date)}
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

// memSharedSeconds is SHARED's nominal work in the progress and the
// deadline: one build, the runs (0.13–0.15 s each in a full run on this
// host, 2026-11-27) and the gaps between them.
func memSharedSeconds(m Mode) float64 {
	runs := map[Mode]int{Full: memSharedRuns, Quick: 2, Tiny: 1}[m]
	return buildSeconds + float64(runs)*0.2 + float64(runs-1)*memSharedGap.Seconds()
}
