package calibrate

import (
	"fmt"

	"perfc/internal/units"
)

// The in-core benchmarks against the probe's chain.
//
// The settler's probes run before and after each program, not during it,
// and two full calibrations of 2026-11-27 (09:13 and 10:22) measured
// their in-core kernel in a slow spell that the probes did not see: the
// fitted compute.core.cycle came out 0.347 and 0.356 ns where every other
// calibration of the day fitted 0.276–0.283, and their tables priced the
// validation's single-rank cases 20–30 % long (validate's core witness
// measured 0.82 and 0.78 × the table). The probe's chain says what a
// cycle is: 2^21 links of a 64-bit multiply and an add, 4 cycles a link,
// took 2.271 ms at its fastest in every calibration of the day, 0.271 ns
// a cycle. So when the in-core fit's cycle is more than coreGuardRatio
// times the chain's, the in-core kernel runs once more (if the deadline
// leaves time) and the fit with the shorter cycle is kept.

// coreGuardRatio is how much longer than the chain's cycle the in-core
// fit's may be: ×1.04–1.05 on a quiet host (0.2828 against 0.2707 ns),
// ×1.28 and ×1.31 in the slow spells of 09:13 and 10:22.
const coreGuardRatio = 1.15

// chainLinkCycles is the cycles of one link of the probe's chain: a
// 64-bit multiply (3 cycles of latency on current x86 and Arm cores) and
// an add (1). A core whose multiply takes longer makes the chain's cycle
// too long, and the guard then never runs the kernel again: it errs on
// the side of the measurement.
const chainLinkCycles = 4

// probeCycle is the cycle the settler's fastest chain says, in seconds
// (0 without a settler or a probe).
func (s *settler) probeCycle() float64 {
	if s == nil || s.ref.core <= 0 {
		return 0
	}
	return s.ref.core.Seconds() / (probeChain * chainLinkCycles)
}

// coreAgain is what the guard did: the cycle of each run's fit and the
// chain's.
type coreAgain struct {
	first, second, chain float64 // seconds
}

// String says it for the table's source and the summary.
func (c coreAgain) String() string {
	kept := "the second run's fit kept"
	if c.second <= 0 || c.first <= c.second {
		kept = "the first run's fit kept"
	}
	return fmt.Sprintf("the in-core benchmarks ran twice: the first fit's cycle %s was ×%s the probe chain's %s (more than ×%g), the second's %s; %s",
		units.Time(c.first), sig4(c.first/c.chain), units.Time(c.chain), coreGuardRatio, units.Time(c.second), kept)
}

// fitCycle is a fit's compute.core cycle (0 without one).
func fitCycle(cf *coreFit) float64 {
	if cf == nil || cf.core == nil {
		return 0
	}
	return cf.core.cycle
}

// guardCore runs the in-core benchmarks again through refit when their
// fit's cycle is too slow for the probe's chain and the deadline leaves
// time, and keeps the faster fit in res.Core; res.CoreAgain says so.
func guardCore(res *Result, st *settler, refit func() (*coreFit, error)) error {
	chain, first := st.probeCycle(), fitCycle(res.Core)
	if chain <= 0 || first <= coreGuardRatio*chain {
		return nil
	}
	if slack, ok := st.slack(); ok && slack < 0 {
		return nil
	}
	cf, err := refit()
	if err != nil {
		return err
	}
	second := fitCycle(cf)
	res.CoreAgain = &coreAgain{first: first, second: second, chain: chain}
	if second > 0 && second < first {
		res.Core = cf
	}
	return nil
}
