package calibrate

import (
	"context"
	"fmt"
	"time"

	"perfc/analyze/cache"
	"perfc/calibrate/comms"
	"perfc/calibrate/host"
	"perfc/codegen"
)

// Mode is how much a calibration measures.
type Mode int

const (
	// Full is perfc calibrate: every size and repetition (minutes).
	Full Mode = iota
	// Quick is perfc calibrate --quick: fewer sizes and shorter
	// measurements (under a minute on a 2-core host).
	Quick
	// Tiny is for tests: every benchmark kind and fit once, on a few
	// operations and sizes, in seconds. Its numbers are not a calibration.
	Tiny
)

func (m Mode) String() string { return [...]string{"full", "quick", "tiny (test)"}[m] }

// Options choose what Run measures and where it builds.
type Options struct {
	Mode Mode
	// CacheDir is where generated programs are built ("" = the user cache
	// directory's perfc/, as perfc check).
	CacheDir string
	// Progress, when set, is told the benchmark that runs and the share
	// done, in estimated seconds (done of total).
	Progress func(name string, done, total float64)
	// NoComms leaves out the communication benchmarks (messages and
	// collectives sections).
	NoComms bool
	// OnlyComms runs the communication benchmarks alone (and the NOISE
	// benchmark, which messages.noise comes from), for Result.MergeInto:
	// the in-core, clock, start, memory and SHARED benchmarks are left
	// out, and Table cannot be written.
	OnlyComms bool
	// Now dates the sources (nil: time.Now).
	Now func() time.Time
	// Launch runs the communication benchmarks through MPI when its
	// Backend is codegen.BackendMPI (perfc calibrate --mpi), so that the
	// messages: and collectives: sections describe MPI's messages between
	// the nodes the launch spans; MaxRanks (-n) is the most ranks they
	// run on (comms.Options). The in-core and memory benchmarks run on
	// this host as always: one core's costs do not depend on the
	// transport.
	Launch   codegen.Launch
	MaxRanks int
}

// Result is a calibration: the host, every fit with its points, and what
// the communication benchmarks found.
type Result struct {
	Host  host.Info
	Mode  Mode
	Date  string // YYYY-MM-DD (UTC), in every source
	Core  *coreFit
	Clock *clockFit // nil when the clock kernel was not run
	// Start is the START benchmark (start.go); nil on one core and
	// through MPI.
	Start *startFit
	// Caches is the hierarchy the table gives: sysfs's, with the sizes
	// the sweep measured where they are smaller (Effective lists those).
	Caches    cache.Hierarchy
	Effective []effectiveLevel
	Memory    *memoryFit
	Comms     *comms.Result // nil with NoComms
	Noise     *noiseFit     // the NOISE benchmark; nil with NoComms or --mpi
	MemShared *memShared    // the SHARED benchmark; nil on one core
	// CoreAgain, when set, says that the in-core kernel ran twice because
	// its first fit's cycle was slow for the probe's chain (coreguard.go).
	CoreAgain *coreAgain
	// Looked is the hierarchy the second look at the capacities measured
	// (effective.go, lookAgain); nil when it was not taken.
	Looked  cache.Hierarchy
	Elapsed time.Duration
	// Settle is what waiting for the host did (settle.go).
	Settle settleRecord
	sz     sizes
	// memSpec and sweep are the working-set sweep and its measurement,
	// counted on sysfs's caches, which the memory fits count again when
	// a level's measured size changes.
	memSpec kernelSpec
	sweep   *measuredKernel
}

// modeSizes returns the sizes of a mode on a host whose last-level cache
// holds llc bytes. Many short measurements, of which the fits take each
// region's least, keep the numbers of a busy machine nearer its own than
// a few long ones would: a long measurement always includes some time
// when another program had the core.
func modeSizes(m Mode, llc int64) sizes {
	all := sizes{ops: opKinds, elems: elemTypes, inner: 256}
	switch m {
	case Full:
		all.work, all.tick2Reps = 1<<17, 4000
		all.loopLens = []int64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512}
		all.windowKs = []int64{1, 2, 4, 6, 8, 10, 12, 14, 16, 20, 24, 32, 48, 64, 96, 128}
		all.memMax, all.memWork, all.memSteps = 4*llc, 1<<22, 2
		all.strides = []int64{1, 2, 4, 8, 16, 32}
		all.samples, all.minTime = 21, "200ms"
	case Quick:
		all.work, all.tick2Reps = 1<<15, 1000
		all.loopLens = []int64{1, 4, 16, 64, 256}
		all.windowKs = []int64{2, 8, 12, 16, 32, 64, 128}
		all.memMax, all.memWork, all.memSteps = 4*llc, 1<<20, 1
		all.strides = []int64{1, 4, 16}
		all.samples, all.minTime = 9, "50ms"
	case Tiny:
		all.inner, all.work, all.tick2Reps = 64, 1<<10, 100
		all.ops, all.elems = []string{"add", "mul", "div", "madd", "sqrt"}, []string{"f64", "i64"}
		all.loopLens = []int64{1, 8, 64}
		all.windowKs = []int64{4, 64}
		all.memMax, all.memWork, all.memSteps = 2*llc, 1<<14, 1
		all.strides = []int64{1, 16}
		// Three samples, not one: the median of three survives the
		// preemption of one sample on a busy test machine (a single
		// preempted RINF1 sample once made t(1) exceed t(64) in CI).
		all.samples, all.minTime = 3, "1ms"
	}
	return all
}

// maxSweep bounds the working-set sweep's array.
const maxSweep = 1 << 30

// buildSeconds is what one build of a generated program is assumed to
// cost in the progress estimate (1–2 s on the 2-core host).
const buildSeconds = 2.0

// runSeconds estimates one kernel's measurement: a warm-up and the
// measurements of at least minTime each, each overshooting it.
func (s sizes) runSeconds() float64 {
	d, _ := time.ParseDuration(s.minTime)
	return float64(s.samples+2) * max(d.Seconds(), 0.05) * overshoot
}

// Run benchmarks this host: the in-core kernel, the memory kernel and,
// unless NoComms, the communication benchmarks of calibrate/comms (with
// OnlyComms those alone); and fits every benchmark's parameters.
func Run(ctx context.Context, o Options) (*Result, error) {
	start := time.Now()
	if o.NoComms && o.Launch.Backend == codegen.BackendMPI {
		return nil, fmt.Errorf("calibrate: --mpi measures the communication benchmarks through MPI; it cannot go with --no-comms")
	}
	if o.OnlyComms && (o.NoComms || o.Launch.Backend == codegen.BackendMPI) {
		return nil, fmt.Errorf("calibrate: measuring the communication benchmarks alone goes with neither --no-comms nor --mpi")
	}
	if !o.NoComms {
		if err := comms.Preflight(comms.Options{Quick: o.Mode == Quick, Tiny: o.Mode == Tiny, Launch: o.Launch}); err != nil {
			return nil, err
		}
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	info, err := host.Read()
	if err != nil {
		return nil, err
	}
	info.Date = now().UTC()
	// The sweep's array is about 4× the last level; a last level of
	// hundreds of MiB (a server's whole L3) is swept to 1 GiB at most.
	llc := min(int64(info.Caches[len(info.Caches)-1].Size), maxSweep/4)
	sz := modeSizes(o.Mode, llc)
	res := &Result{Host: info, Mode: o.Mode, Date: info.Date.Format("2006-01-02"), sz: sz}
	st := newSettler(o.Mode)

	co := comms.Options{
		Quick: o.Mode == Quick, Tiny: o.Mode == Tiny, CacheDir: o.CacheDir, Now: o.Now, Launch: o.Launch, MaxRanks: o.MaxRanks,
		Around: st.around,
	}
	mine := hostSeconds(o, sz, info.Cores)
	theirs, err := commsSeconds(o, co)
	if err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	w := &progressWork{total: mine + theirs, start: start, now: time.Now}
	report := func(name string, extra float64) {
		if o.Progress != nil {
			o.Progress(name, min(w.done+extra, w.total), w.total)
		}
	}
	if st != nil {
		st.waiting = func(what string) { report(what, 0) }
		if d := modeDeadline(o.Mode); d > 0 {
			st.deadline, st.left = start.Add(d), w.left
			w.aside = func() time.Duration { return st.rec.WaitedFor + st.rec.AgainFor }
		}
	}

	run := func(spec kernelSpec, sz sizes, what string) (*measuredKernel, error) {
		report(what+": counting", 0)
		mk, err := runKernel(ctx, st, spec, info.Caches, o.CacheDir, sz, func(step string) {
			if step == "running" {
				w.done += buildSeconds
			}
			report(what+": "+step, 0)
		})
		if err != nil {
			return nil, err
		}
		w.done += sz.runSeconds()
		return mk, nil
	}
	if !o.OnlyComms {
		if err := runHost(ctx, o, st, info, res, run, report, func(s float64) { w.done += s }); err != nil {
			return nil, err
		}
	}
	if !o.NoComms {
		w.done = mine
		co.Progress = func(name string, d, _ float64) {
			w.done = mine + d
			report(name, 0)
		}
		if res.Comms, err = comms.Run(ctx, co); err != nil {
			return nil, fmt.Errorf("calibrate: %w", err)
		}
		if o.Launch.Backend != codegen.BackendMPI {
			report("synchronisation noise: building", 0)
			if res.Noise, err = runNoise(ctx, st, o.Mode, o.CacheDir, func() { report("synchronisation noise: running", 0) }); err != nil {
				return nil, err
			}
			w.done += noiseSeconds(o.Mode)
		}
	}
	if !o.OnlyComms {
		if err := lookAgain(res, run); err != nil {
			return nil, err
		}
	}
	res.Elapsed = time.Since(start)
	if st != nil {
		res.Settle = st.rec
	}
	return res, nil
}

// runFunc builds and measures a generated kernel with the sizes' samples
// and counts it (Run's run).
type runFunc func(spec kernelSpec, sz sizes, what string) (*measuredKernel, error)

// runHost runs the benchmarks of this host's cores and memory (in-core,
// clock, start, working-set sweep, SHARED) into res, through run; did
// counts the nominal work of the benchmarks run otherwise (START, SHARED).
func runHost(ctx context.Context, o Options, st *settler, info host.Info, res *Result,
	run runFunc, report func(string, float64), did func(float64)) error {
	sz := res.sz
	inCore := func(what string) (*coreFit, error) {
		mk, err := run(inCoreKernel(sz), sz, what)
		if err != nil {
			return nil, err
		}
		return fitCore(mk)
	}
	var err error
	if res.Core, err = inCore("in-core benchmarks"); err != nil {
		return err
	}
	if err := guardCore(res, st, func() (*coreFit, error) { return inCore("in-core benchmarks again (their cycle was slow)") }); err != nil {
		return err
	}
	clk, err := run(clockKernel(), sz, "the program's clock")
	if err != nil {
		return err
	}
	if res.Clock, err = fitClock(clk); err != nil {
		return err
	}
	if o.Launch.Backend != codegen.BackendMPI {
		report("the start of a run on shared cores: building", 0)
		if res.Start, err = runStart(ctx, st, o.Mode, info.Cores, res.Clock, o.CacheDir,
			func() { report("the start of a run on shared cores: running", 0) }); err != nil {
			return err
		}
		if res.Start != nil {
			did(startSeconds(o.Mode))
		}
	}
	res.memSpec = memoryKernel(sz)
	if res.sweep, err = run(res.memSpec, sz, "working-set sweep and strides"); err != nil {
		return err
	}
	res.Caches, res.Effective = effectiveHierarchy(res.sweep.points, info.Caches)
	if err := res.fitSweep(); err != nil {
		return err
	}
	report("streaming on every core: building", 0)
	caches := res.Caches
	if caches == nil {
		caches = info.Caches
	}
	if res.MemShared, err = runMemShared(ctx, st, o.Mode, info.Cores, int64(caches[len(caches)-1].Size), o.CacheDir,
		func() { report("streaming on every core: running", 0) }); err != nil {
		return err
	}
	if res.MemShared != nil {
		did(memSharedSeconds(o.Mode))
	}
	return nil
}
