package calibrate

import (
	"context"
	"fmt"
	"math"

	"perfc/codegen/spmd"
)

// The start of a run whose ranks outnumber the cores (compute.clock.
// shared_start, docs/predict.md "The program's clock"). Between two runs
// the generated program's ranks wait at its gate while the harness
// refills their arrays; with more ranks than cores the ones without a
// core sleep there, and the next run's first synchronisation waits for
// them to be woken and to take the cores in turn: 20–25 µs a run on this
// host at P = 4 on 2 cores, against the 1.5–2 µs of a barrier between
// ranks already running (SYNCH1). A kernel whose run is short pays it
// every run (broadcast, scatter and ddot at P = 4 in L1 measured 15–37 µs
// a run against 3–5 µs predicted without it).
//
// START runs 2 × cores ranks; each run enters a region of one barrier and
// then one of startLater barriers. The later barriers are the steady
// cost of one; the excess is the run's time less its clock (compute.clock,
// measured just before), less one steady barrier per barrier of the run.

// startLater is how many barriers START's second region repeats.
const startLater = 8

// Region names of the START kernel.
const (
	startFirst = "first barrier"
	startMore  = "later barriers"
)

// startKernel is START on ranks ranks.
func startKernel(ranks int) kernelSpec {
	text := fmt.Sprintf(`// perfc calibrate START: the start of a run whose ranks outnumber the cores.
kernel calibrate_start() on P = %d ranks {
  region %q {
    barrier
  }
  region %q {
    repeat %d {
      barrier
    }
  }
}
`, ranks, startFirst, startMore, startLater)
	return kernelSpec{name: "calibrate_start", text: text}
}

// startFit is START's outcome.
type startFit struct {
	ranks, cores int
	total        float64 // seconds per run, median
	barrier      float64 // seconds per later barrier
	excess       float64 // the run's start beyond its clock and barriers, ≥ 0
	spread       float64 // of the total
	samples      int
}

// runStart runs START on 2 × cores ranks; nil on a host of one core
// (its ranks always outnumber the cores, and the clock's run is such a
// run already).
func runStart(ctx context.Context, mode Mode, cores int, clock *clockFit, cacheDir string, built func()) (*startFit, error) {
	if cores < 2 || clock == nil {
		return nil, nil
	}
	samples, minTime := 9, "50ms"
	switch mode {
	case Quick:
		samples, minTime = 7, "20ms"
	case Tiny:
		samples, minTime = 3, "1ms"
	}
	m, err := measureBenchmark(ctx, "START", startKernel(2*cores), cacheDir, built, "-samples", fmt.Sprint(samples), "-min-time", minTime)
	if err != nil {
		return nil, err
	}
	return fitStart(m, clock, cores, samples)
}

// fitStart reads START's measurement: the run's median time less its
// clock (a run, two region entries) and its barriers at the later ones'
// mean, at least 0.
func fitStart(m *spmd.Measurement, clock *clockFit, cores, samples int) (*startFit, error) {
	f := &startFit{ranks: 2 * cores, cores: cores, samples: samples}
	var more float64
	for _, t := range m.Regions {
		if t.Name == startMore {
			more = t.MedianUs * 1e-6
		}
	}
	f.total = m.Total.MedianUs * 1e-6
	if !(f.total > 0) || !(more > 0) {
		return nil, fmt.Errorf("calibrate: the START benchmark measured %g s a run and %g s of later barriers; both must be positive", f.total, more)
	}
	f.spread = (m.Total.MaxUs - m.Total.MinUs) / m.Total.MedianUs
	f.barrier = more / startLater
	f.excess = math.Max(0, f.total-clock.run-2*clock.region-(startLater+1)*f.barrier)
	return f, nil
}
