package calibrate

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"perfc/internal/ctxtime"
	"perfc/internal/units"
)

// Settling the host. This project's host is a 2-vCPU VM whose cores run
// at their speed for minutes and then at two thirds of it for minutes (a
// neighbour on the same physical core): one full calibration of
// 2026-11-26 fitted a cycle of 0.4195 ns where the one before it, three
// minutes earlier, fitted 0.2867 ns, and every prediction of its table
// was 25–70 % long. A table is the host as it was while it was measured,
// so a calibration measured in a slow spell describes the spell.
//
// So every benchmark program waits for the host first, as perfc validate
// waits before every case (validate/settle.go), but with no table to
// compare against: the witnesses are probes of this process, a chain of
// dependent multiply-adds and a load-store stream in L1 on every core at
// once (probeStreams says why both) and a cache line passed
// back and forth between two cores (the VM's copies between its cores
// take 55 ns there and back for minutes, then 340 ns: docs/accuracy.md),
// and each reference is the fastest probe seen in this calibration (the
// probe before the first benchmark takes several). Before a program
// runs, every probe must be within its band of its reference
// (settleBand, settleStreamBand, settleCopyBand), or the calibration waits
// settleStep and probes again, up to the mode's budget; after the program
// the probe runs again, and a program that started in the band and ended
// out of it runs once more. A host that does not settle is measured all
// the same, and the table's source says how many programs ran unsettled.
// A calibration that runs wholly in a slow spell cannot see it (its
// fastest probe is slow too); perfc validate's witnesses then say so.

// settleBand is how much slower than the fastest probe seen the host may
// be for a benchmark to run: the probe's own spread in a steady spell is
// 1–3 %, a slow spell 40–50 %.
const settleBand = 0.10

// settleCopyBand is the copy probe's band: its round trips spread more in
// a steady spell (10–20 %) than a core's chain, and a slow spell is × 3–6.
// perfc validate's copy witness has a band of 30 % for the same reason.
const settleCopyBand = 0.30

// settleStreamBand is the stream probe's band: its runs spread 5-10 % in
// a steady moment, and a slow one is × 1.9 (docs/calibrate.md, "Waiting
// for the host"). perfc validate's core witness, the same loop, has a
// band of 15 %.
const settleStreamBand = 0.15

// streamLen and streamReps size the stream probe: two arrays of 1024
// float64 (16 KiB, in L1) swept 2048 times, about 1.2 ms at this host's
// 0.56 ns an element.
const (
	streamLen  = 1024
	streamReps = 2048
)

// copyTrips is how many round trips of a cache line one copy probe times:
// about 0.1 ms at 55 ns each.
const copyTrips = 2000

// settleStep is the wait between two probes while the host is slow.
const settleStep = time.Second

// probeChain is the length of the probe's chain of dependent
// multiply-adds: about 2 ms on a 3.5 GHz core (4 cycles a link).
const probeChain = 1 << 21

// settleRecord is what settling did over a calibration.
type settleRecord struct {
	Programs   int           // benchmark programs run
	Waited     int           // programs that waited for the host
	WaitedFor  time.Duration // all the waits together
	Unsettled  int           // programs run out of the band (the budget ran out)
	Remeasured int           // programs run again: the host slowed while they ran
	AgainFor   time.Duration // the second runs together
	Spent      int           // waits the total cut short (settler.total)
	Cut        int           // waits and second runs the deadline cut short (settler.deadline)
	Reference  time.Duration // the fastest core probe
	StreamRef  time.Duration // the fastest stream probe; 0 when not probed
	CopyRef    time.Duration // the fastest round trip of the copy probe; 0 on one core
}

// sample is one probe of the host: the core chain's time, the stream's
// time per element and a cache line's round trip between two cores (0
// when there is one core).
type sample struct {
	core, stream, copy time.Duration
}

// String summarises the record for the table's source ("" when nothing
// was settled).
func (r settleRecord) String() string {
	if r.Programs == 0 {
		return ""
	}
	others := "" // the other probes' references
	if r.StreamRef > 0 {
		others += fmt.Sprintf(" and within %.0f%% of the fastest load-store stream (%s an element)", 100*settleStreamBand, units.Time(r.StreamRef.Seconds()/(streamLen*streamReps)))
	}
	if r.CopyRef > 0 {
		others += fmt.Sprintf(" and within %.0f%% of the fastest copy between cores (%s a round trip)", 100*settleCopyBand, r.CopyRef.Round(time.Nanosecond))
	}
	spent := ""
	if r.Spent > 0 {
		spent = fmt.Sprintf(" (the calibration's whole wait was spent before %d of the waits)", r.Spent)
	}
	if r.Cut > 0 {
		what := "waits or second runs"
		if r.Cut == 1 {
			what = "wait or second run"
		}
		spent += fmt.Sprintf(" (the run's deadline cut %d %s short)", r.Cut, what)
	}
	return fmt.Sprintf("settled before each of %d programs within %.0f%% of the fastest probe (%s on every core)%s: %d waited %s in all%s, %d ran unsettled, %d ran again",
		r.Programs, 100*settleBand, r.Reference.Round(time.Microsecond), others, r.Waited, r.WaitedFor.Round(time.Second), spent, r.Unsettled, r.Remeasured)
}

// settler waits for the host around each benchmark program. Its probe
// and sleep are replaced in tests. It is used by one goroutine at a time.
type settler struct {
	probe  func() sample
	sleep  func(context.Context, time.Duration) error
	budget time.Duration // the longest wait before one program
	total  time.Duration // the longest wait of the whole calibration (0: budget a program, no more)
	// deadline, when set, is when the calibration's benchmarks should
	// have ended; left is the work still to come when it is asked (the
	// program about to run included). A wait is cut, and a second run
	// left out, where they would push the work past the deadline: the
	// mode's promise (a full run within 10 minutes) holds on a host
	// that is slow for many of its programs.
	deadline time.Time
	left     func() time.Duration
	now      func() time.Time
	ref      sample // the fastest probes seen; zero before the first
	rec      settleRecord
	// waiting, when set, is told each time the host is found slow and
	// the settler waits (the progress line: a wait of up to the budget
	// must not look like a hang).
	waiting func(what string)
}

// newSettler returns the settler of a mode: a budget of 20 s a program
// and 4 min in all for a full run, 2 s a program and 10 s in all for
// --quick (26 s of work, its 60 s), and nil (no settling) for the tests'
// tiny mode, whose figures mean nothing. Why a total: on 2026-11-27 the
// host was slow in a quarter of the probes taken a twentieth of a second
// apart, and a --quick run whose sixteen programs each waited took 61 s.
// Why 4 min: its last programs are the message kernels, the most
// sensitive to the host's spells, and a total of 3 min was spent before
// them at 01:47 (9 of 17 programs unsettled): messages.sharing came out
// at t0 = 1.372 us against 0.41 in the session's other calibrations, and
// the validation's 4-rank cases at 32.0 % median |error| against 10.2 %;
// but the full run must end within 10 minutes, and its work took 4 min 23 s
// to 5 min 47 s in session 20 (5 min of waiting made 10 min 47 s at 03:38).
func newSettler(mode Mode) *settler {
	budget, total := 20*time.Second, 4*time.Minute
	switch mode {
	case Quick:
		budget, total = 2*time.Second, 10*time.Second
	case Tiny:
		return nil
	}
	return &settler{probe: probeHost, sleep: ctxtime.Sleep, budget: budget, total: total}
}

// programBudget is how long the next program may wait: the budget, or
// what is left of the total or before the deadline when that is less;
// cut says the deadline was the least.
func (s *settler) programBudget() (budget time.Duration, cut bool) {
	budget = s.budget
	if s.total > 0 {
		budget = max(min(budget, s.total-s.rec.WaitedFor), 0)
	}
	if slack, ok := s.slack(); ok && slack < budget {
		return max(slack, 0), true
	}
	return budget, false
}

// slack is the time the deadline leaves beyond the work still to come;
// ok is false without a deadline.
func (s *settler) slack() (time.Duration, bool) {
	if s.deadline.IsZero() || s.left == nil {
		return 0, false
	}
	return s.deadline.Sub(s.clock()) - s.left(), true
}

// clock is the settler's time: now, or the tests' clock.
func (s *settler) clock() time.Time {
	if s.now != nil {
		return s.now()
	}
	return time.Now()
}

// probeOnce probes and keeps the fastest of each probe as its reference.
func (s *settler) probeOnce() sample {
	t := s.probe()
	if s.ref.core == 0 || t.core < s.ref.core {
		s.ref.core = t.core
	}
	if t.stream > 0 && (s.ref.stream == 0 || t.stream < s.ref.stream) {
		s.ref.stream = t.stream
	}
	if t.copy > 0 && (s.ref.copy == 0 || t.copy < s.ref.copy) {
		s.ref.copy = t.copy
	}
	s.rec.Reference, s.rec.StreamRef, s.rec.CopyRef = s.ref.core, s.ref.stream, s.ref.copy
	return t
}

// inBand reports whether a probe is within the bands of the references.
func (s *settler) inBand(t sample) bool {
	return float64(t.core) <= (1+settleBand)*float64(s.ref.core) &&
		float64(t.stream) <= (1+settleStreamBand)*float64(s.ref.stream) &&
		float64(t.copy) <= (1+settleCopyBand)*float64(s.ref.copy)
}

// wait probes until the host is in the band or the budget is spent; it
// reports whether it is, and how long it waited.
func (s *settler) wait(ctx context.Context) (bool, time.Duration, error) {
	if s.ref.core == 0 {
		// The first reference: the fastest of a few probes spread over
		// a few tenths of a second.
		for range 4 {
			s.probeOnce()
			if err := s.sleep(ctx, 50*time.Millisecond); err != nil {
				return false, 0, err
			}
		}
	}
	var waited time.Duration
	budget, cut := s.programBudget()
	if !cut && budget < s.budget {
		s.rec.Spent++
	}
	for {
		if s.inBand(s.probeOnce()) {
			return true, waited, nil
		}
		if waited+settleStep > budget {
			if cut {
				s.rec.Cut++ // the host is slow, and the deadline ends the wait
			}
			return false, waited, nil
		}
		if s.waiting != nil {
			s.waiting(fmt.Sprintf("waiting for the host (a slow spell; %s of at most %s)", waited+settleStep, budget))
		}
		if err := s.sleep(ctx, settleStep); err != nil {
			return false, waited, err
		}
		waited += settleStep
	}
}

// around runs measure between two settlings: it waits for the host, runs
// measure, probes again, and when the host was in the band before and is
// out of it after, waits and runs measure once more (measure must then
// replace what its first call measured). A nil settler just measures.
func (s *settler) around(ctx context.Context, measure func() error) error {
	if s == nil {
		return measure()
	}
	s.rec.Programs++
	for attempt := 0; ; attempt++ {
		ok, waited, err := s.wait(ctx)
		if err != nil {
			return err
		}
		if waited > 0 {
			s.rec.Waited++
			s.rec.WaitedFor += waited
		}
		if !ok {
			s.rec.Unsettled++
		}
		began := s.clock()
		if err := measure(); err != nil {
			return err
		}
		if attempt == 1 {
			s.rec.AgainFor += s.clock().Sub(began)
		}
		if !ok || attempt == 1 || s.inBand(s.probeOnce()) {
			return nil
		}
		// The work still to come counts this program, which is done:
		// its nominal seconds stand in for the run again.
		if slack, ok := s.slack(); ok && slack < 0 {
			s.rec.Cut++ // no time for the run again: keep the first
			return nil
		}
		s.rec.Remeasured++
	}
}

// probeHost probes the cores (a chain and a stream) and, with two cores
// or more, a copy between two of them.
func probeHost() sample {
	t := sample{core: probeCores(), stream: probeStreams()}
	if runtime.GOMAXPROCS(0) >= 2 {
		t.copy = probeCopy()
	}
	return t
}

// probeCopy passes a cache line back and forth between two goroutines
// locked to threads of their own, each spinning on it (with two or more
// Ps, the two threads run on two cores), and returns the time of one
// round trip, the fastest of three tries. A try that outlasts copyBudget
// (two threads that share one CPU, where each trip waits for the other's
// time slice) stops both spinners and counts as that budget: the probe
// never holds a calibration up for more than a few tenths of a second.
func probeCopy() time.Duration {
	best := time.Duration(math.MaxInt64)
	for range 3 {
		var line atomic.Int64
		var stop atomic.Bool
		timer := time.AfterFunc(copyBudget, func() { stop.Store(true) })
		done := make(chan struct{})
		go func() {
			defer close(done)
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			for i := int64(1); i <= 2*copyTrips; i += 2 {
				for line.Load() != i {
					if stop.Load() {
						return
					}
				}
				line.Store(i + 1)
			}
		}()
		runtime.LockOSThread()
		start := time.Now()
		trips := 0
		for i := int64(0); i < 2*copyTrips && !stop.Load(); i += 2 {
			line.Store(i + 1)
			for line.Load() != i+2 && !stop.Load() {
			}
			if line.Load() == i+2 {
				trips++
			}
		}
		d := time.Since(start)
		runtime.UnlockOSThread()
		timer.Stop()
		stop.Store(true) // the partner stops if this side gave up first
		<-done
		if trips < copyTrips {
			d = copyBudget
		}
		best = min(best, d/copyTrips)
	}
	return best
}

// copyBudget bounds one try of the copy probe: 2000 round trips take
// about 0.1 ms at this host's 55–340 ns.
const copyBudget = 100 * time.Millisecond

// probeCores times the chain on every core at once and returns the
// slowest core's time, the fastest of three tries (onEveryCore).
func probeCores() time.Duration {
	return onEveryCore(func(i int) time.Duration {
		start := time.Now()
		sink := chain(probeChain, uint64(i)+1)
		d := time.Since(start)
		if sink == 0 {
			d++ // keeps the chain's result alive
		}
		return d
	})
}

// probeStreams times the stream on every core at once, as probeCores the
// chain. Why a second probe: the chain's latency does not see a
// neighbour that takes the core's loads and stores. This host's L1 loop
// y[i] = y[i]*0.5 + x[i] (validate's core witness) ran at 0.55-0.60 ns an
// element most of the time and at 1.05-1.08 in stretches of 0.1 to 0.5 s,
// 20 % of a run when it ran without pause and 30-70 % when it slept 0.1 s
// between timings, while the chain moved by 3 % (2026-11-27); the 00:02
// calibration's in-core regions, measured so, fitted a 0.485 ns cycle
// against 0.28 on a quiet host, and priced session 17's single-rank
// measurements 28.6 % long in the median.
func probeStreams() time.Duration {
	return onEveryCore(func(i int) time.Duration {
		x, y := make([]float64, streamLen), make([]float64, streamLen)
		x[0] = float64(i)
		start := time.Now()
		stream(x, y, streamReps)
		d := time.Since(start)
		if y[0] == -1 {
			d++ // keeps the stream's stores alive
		}
		return d
	})
}

// onEveryCore runs probe on every core at once (one goroutine locked to a
// thread per core, GOMAXPROCS of them, probe given its index) and returns
// the slowest core's time, the fastest of three tries: a slow spell is
// the whole core's, a preemption one try's.
func onEveryCore(probe func(i int) time.Duration) time.Duration {
	n := max(runtime.GOMAXPROCS(0), 1)
	best := time.Duration(math.MaxInt64)
	for range 3 {
		times := make([]time.Duration, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				times[i] = probe(i)
			}()
		}
		wg.Wait()
		best = min(best, slices.Max(times))
	}
	return best
}

// stream sweeps y[i] = y[i]*0.5 + x[i] reps times: two loads, a store,
// a multiply and an add an element, from L1.
func stream(x, y []float64, reps int) {
	for range reps {
		for i := range y {
			y[i] = y[i]*0.5 + x[i]
		}
	}
}

// chain is n dependent links of a 64-bit linear congruential generator:
// each a multiply and an add on the previous result, so its time is the
// core's latency and nothing else (no memory, no branch to mispredict).
func chain(n int, x uint64) uint64 {
	for range n {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}
