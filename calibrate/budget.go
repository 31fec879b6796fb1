package calibrate

import (
	"time"

	"perfc/calibrate/comms"
	"perfc/codegen"
)

// The work of a calibration and its deadline.
//
// A full calibration must end within 10 minutes and --quick within 60 s.
// Its work (builds, counting, the programs' runs) took 6 to 7 minutes on
// this project's 2-core host in session 22; the waits for the host's
// quiet moments (settle.go) and the second runs of programs during which
// the host slowed come on top, and in a busy hour they made 10 min 34 s
// (2026-11-27 08:23: 15 of 21 programs ran again). So the waits and the
// second runs have a deadline: before each, the settler asks how much
// work is still to come, and waits or runs again only as long as that
// work still ends by the deadline. The deadline is not a kill: a host
// whose work alone outlasts it is measured whole, without waits.
//
// The work still to come is the nominal seconds of the benchmarks not yet
// run (their builds and their measurements, as the progress line counts
// them; the one about to run, or just run, included) times the pace: how
// much longer than nominal the work so far has taken on this host, waits
// and second runs left out. The pace is at least 1 (a fast host does not
// lend its speed to the work to come) and at most maxPace; before a tenth
// of the work is done it is priorPace. A second run is made when the
// deadline leaves time for the work to come: the program just run counts
// in it, and its nominal seconds stand in for the run again.

// modeDeadline is how long after its start a mode's benchmarks should
// end, leaving the fits and the table's writing (a second or two) and a
// margin within the mode's promise; 0 for the tests' tiny mode, which
// does not settle.
func modeDeadline(m Mode) time.Duration {
	switch m {
	case Full:
		return 9*time.Minute + 15*time.Second
	case Quick:
		return 50 * time.Second
	}
	return 0
}

// priorPace is the pace before the work so far says: the full run of
// 2026-11-27 10:42 did 282 s of work (7 min 56 s less 3 min 14 s of
// waits, 3 programs run again) against 264 nominal; a little more is the
// margin of a first guess.
const priorPace = 1.2

// maxPace bounds the pace: a host three times slower than nominal is in a
// spell that the work to come need not inherit whole.
const maxPace = 3.0

// overshoot is how much longer than (samples + 2) × -min-time a kernel's
// measurement takes: each repeats the kernel until it lasts -min-time, so
// it ends up to one run of the kernel late. Measured on this host
// (2026-11-27): the in-core kernel 6.9 s, the clock's 9.3 s and the
// sweep's 6.3 s against 4.6 s nominal.
const overshoot = 1.6

// progressWork counts a calibration's nominal work: total, what is done,
// and with the clock and the settler's waits, the work still to come.
type progressWork struct {
	total, done float64 // nominal seconds
	start       time.Time
	now         func() time.Time
	aside       func() time.Duration // the settler's waits and second runs so far
}

// pace is how much longer than nominal the work so far took.
func (w *progressWork) pace() float64 {
	if w.done < w.total/10 || w.done <= 0 {
		return priorPace
	}
	worked := w.now().Sub(w.start)
	if w.aside != nil {
		worked -= w.aside()
	}
	return min(max(worked.Seconds()/w.done, 1), maxPace)
}

// left is the work still to come, at the pace so far.
func (w *progressWork) left() time.Duration {
	return time.Duration(max(w.total-w.done, 0) * w.pace() * float64(time.Second))
}

// hostSeconds is the nominal work of the host's benchmarks: the three
// kernels (in-core, clock, sweep), START, SHARED and the second look at
// the capacities; none with OnlyComms.
func hostSeconds(o Options, sz sizes, cores int) float64 {
	if o.OnlyComms {
		return 0
	}
	t := 3*(buildSeconds+sz.runSeconds()) + buildSeconds + lookSizes(sz).runSeconds()
	if cores >= 2 && o.Launch.Backend != codegen.BackendMPI {
		t += startSeconds(o.Mode)
	}
	if cores >= 2 {
		t += memSharedSeconds(o.Mode)
	}
	return t
}

// commsSeconds is the nominal work of the communication benchmarks and
// NOISE; none with NoComms.
func commsSeconds(o Options, co comms.Options) (float64, error) {
	if o.NoComms {
		return 0, nil
	}
	t, err := comms.Estimate(co)
	if o.Launch.Backend != codegen.BackendMPI {
		t += noiseSeconds(o.Mode)
	}
	return t, err
}
