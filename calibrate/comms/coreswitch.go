package comms

import "fmt"

// CoreSwitch is the machine table's core_switch of an MPI calibration on
// one host (docs/machines.md, "cores"): what a blocking message between
// ranks that share the host's cores costs beyond the message law. It is
// fitted as docs/machines.md says, from COMMS3 (a ring of sendrecv steps)
// at its shortest length on P = C and P = 2C ranks, C the host's cores:
// a step costs t_C at P = C and P/C × (t_C + core_switch) at P = 2C, so
// core_switch = t_2C / 2 − t_C. Open MPI's oversubscribed ranks yield
// the core at every poll, so this is microseconds where the goroutine
// runtime's hand-off costs 0.05 µs; without it the emulator would price
// the messages of 4 ranks on 2 cores as those of 2. ok is false for a
// goroutine calibration, a launch that may span nodes (Transport.Cores
// 0), without both rank counts, or when the difference is not positive.
func (r *Result) CoreSwitch() (seconds float64, source string, ok bool) {
	c := r.transport.Cores
	if !r.transport.MPI() || c < 1 {
		return 0, "", false
	}
	step := func(p int) (float64, float64, bool) {
		n, t := series(r.points, Comms3, p)
		if len(n) == 0 || p < 2 {
			return 0, 0, false
		}
		return t[0] / float64(p-1), n[0], true
	}
	tc, n, ok1 := step(c)
	t2c, n2, ok2 := step(2 * c)
	if !ok1 || !ok2 || n != n2 {
		return 0, "", false
	}
	cs := t2c/2 - tc
	if !(cs > 0) {
		return 0, "", false
	}
	return cs, fmt.Sprintf("%s COMMS3 ring of sendrecv steps at %s, per step %s on P=%d and %s on P=%d (2 × the %d cores): core_switch = t(P=%d)/2 − t(P=%d), %s",
		r.transport.Command(), fmtBytes(n), fmtTime(tc), c, fmtTime(t2c), 2*c, c, 2*c, c, r.date), true
}
