// Package validate measures how well perfc predicts the machine it runs
// on: it runs a suite of kernels (by default every example and a few
// kernels of its own, each at sizes that straddle the machine table's
// cache levels, communicating kernels at 2 and 4 ranks), predicts each
// case with costmodel, runs the generated program as perfc check does,
// and compares the two per case and region. perfc validate is its
// command; docs/accuracy.md says what it measures and shows the latest
// figures.
package validate

import (
	"time"

	"perfc/codegen"
	"perfc/costmodel"
	"perfc/lang"
	"perfc/machines"
)

// Param is a parameter binding of a case, as -D NAME=VALUE sets it.
type Param struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Case is one kernel at one size and rank count, and what validate found
// for it.
type Case struct {
	Name      string  `json:"name"` // kernel and the parameters the suite set: "triad N=2048"
	Kernel    string  `json:"kernel"`
	File      string  `json:"file"`
	Group     string  `json:"group"` // GroupTuning or GroupHeldOut
	Level     string  `json:"level"` // the cache level the per-rank footprint fits ("L1" …) or "memory"
	Ranks     int64   `json:"ranks"`
	Params    []Param `json:"params"`          // the parameters the suite set (sizes, ranks, repetitions)
	Footprint int64   `json:"footprint_bytes"` // per rank, the arrays (perfc count's footprint)
	// Runs and Samples are how the program measured: runs per
	// measurement, measurements (the median and spread are over these).
	Runs    int `json:"runs_per_measurement,omitempty"`
	Samples int `json:"measurements,omitempty"`
	// Total compares the whole kernel (the slowest rank's wall clock per
	// run against the predicted total), Regions each region.
	Total   *Comparison  `json:"total,omitempty"`
	Regions []Comparison `json:"regions,omitempty"`
	// Dominant is the largest term of the prediction: what the model
	// thought the time was made of.
	Dominant *Dominant `json:"dominant,omitempty"`
	// Failure says why the case has no comparison (the build, the run or
	// the prediction failed).
	Failure string `json:"failure,omitempty"`
	// Launch is the command line that started an MPI case's ranks (the
	// program's path and arguments left out); empty for goroutines.
	Launch string `json:"launch,omitempty"`
	// LaunchNotes are what the launch had to add (Open MPI's
	// allow-run-as-root switches as root, --oversubscribe beyond the
	// cores), as the report must say.
	LaunchNotes []string `json:"launch_notes,omitempty"`
	// ByCounts is the total as the counts alone predict it (the loop,
	// access and operation costs), when the table prices compiled code
	// (compute.core) and Total is the prediction from the binary's machine
	// code: the two side by side on one measurement.
	ByCounts *Comparison `json:"by_counts,omitempty"`
	// Again is the total measured a second time, the same way, after the
	// whole suite (for the first compared case of one rank and of several
	// ranks: Run's drift check), so that a report shows how much the
	// host's speed moved while it ran; nil for the other cases.
	Again *Comparison `json:"again,omitempty"`
	// Witness is the host's speed just before the case was measured: the
	// witness kernels' times (witness.go); nil with Options.NoWitness and
	// through MPI.
	Witness *WitnessTimes `json:"witness,omitempty"`
	// Settle says how validate waited for the host around the case's
	// measurement (settle.go); nil without settling.
	Settle *SettleRecord `json:"settle,omitempty"`

	checked    *lang.Checked         // the kernel with the case's parameters
	pred       *costmodel.Prediction // its prediction, made when the case was planned
	countsPred *costmodel.Prediction // the plan's prediction from the counts, when pred was made from the code
}

// Comparison is predicted against measured for one region or the total.
// Times are seconds per run.
type Comparison struct {
	Name      string  `json:"name"`
	Predicted float64 `json:"predicted_s"`
	Measured  float64 `json:"measured_s"` // the median of the measurements
	Min       float64 `json:"min_s"`
	Max       float64 `json:"max_s"`
	// Error is (predicted − measured)/measured, Spread (max − min)/median;
	// null when nothing was measured. Noisy: the spread exceeds |error|.
	Error  *float64 `json:"error"`
	Spread *float64 `json:"spread"`
	Noisy  bool     `json:"noisy"`
}

// Dominant is the term that dominated a prediction.
type Dominant struct {
	// Resource is compute, memory, message, collective, barrier or cores
	// (a term of the breakdown), or waiting (the emulated critical path
	// beyond the slowest rank's own costs).
	Resource string  `json:"resource"`
	What     string  `json:"what"`   // the term ("madd f64 a&b&c", "L2 lines")
	Region   string  `json:"region"` // the region it was priced in ("" for waiting)
	Time     float64 `json:"time_s"`
	Share    float64 `json:"share"` // of the predicted total
}

// Skip is a kernel size or rank count the suite could not make a case of,
// and why.
type Skip struct {
	Kernel string `json:"kernel"`
	Level  string `json:"level,omitempty"`
	Ranks  int64  `json:"ranks,omitempty"`
	Reason string `json:"reason"`
}

// Options choose the suite and how it is measured.
type Options struct {
	// Machine is the table predictions are made on; MachineName names it
	// in the report (the file or built-in name).
	Machine     *machines.Machine
	MachineName string
	// Model tunes the predictions (ModelOptions: Warm, as perfc check).
	Model costmodel.Options
	// Quick picks a small subset of the suite (about 8 cases, or one per
	// file when files are given).
	Quick bool
	// Samples is the number of measurements of each case (default 5);
	// CaseTime how long a case's measurements should last together
	// (default 1 s); Timeout stops a case's build and run (default 5 min).
	Samples  int
	CaseTime time.Duration
	Timeout  time.Duration
	// MaxRun is the longest predicted run a case may have (default
	// 250 ms): larger cases are shrunk by halving their non-size
	// parameters (repetitions, iterations) or skipped. MaxMemory bounds
	// the arrays of all ranks together (default 1 GiB).
	MaxRun    time.Duration
	MaxMemory int64
	// CacheDir is where generated programs are built ("" is the user
	// cache directory, as for perfc check).
	CacheDir string
	// Progress, when not nil, is told before each case is measured:
	// the case, how many are done and how many there are.
	Progress func(name string, done, total int)
	// Launch runs the cases through MPI when its Backend is
	// codegen.BackendMPI (perfc validate --mpi): Plan then keeps only the
	// communicating cases (those whose prediction prices a message, a
	// collective or a barrier), each launched on its own rank count
	// (Launch.WithRanks; Launch.Ranks is ignored), to validate a table of
	// MPI's messages (perfc calibrate --mpi) against MPI.
	Launch codegen.Launch
	// NoWitness leaves out the witness kernels measured before every case
	// (Case.Witness; witness.go), and with them the settling.
	NoWitness bool
	// Settle is how long validate may wait, before each case, for the
	// witnesses to come within their settle bands (settle.go; default
	// 10 s); SettleTotal how long in all (default 5 min: a host that never
	// settles would otherwise add Settle to every case, 40 minutes to a
	// full suite), after which each case is measured after one timing of
	// the witnesses; NoSettle times them once before each case and never
	// waits.
	Settle      time.Duration
	SettleTotal time.Duration
	NoSettle    bool
}

// mpi reports whether the cases run through MPI.
func (o Options) mpi() bool { return o.Launch.Backend == codegen.BackendMPI }

// withDefaults fills the zero options.
func (o Options) withDefaults() Options {
	if o.Samples <= 0 {
		o.Samples = 5
	}
	if o.CaseTime <= 0 {
		o.CaseTime = time.Second
	}
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Minute
	}
	if o.MaxRun <= 0 {
		o.MaxRun = 250 * time.Millisecond
	}
	if o.MaxMemory <= 0 {
		o.MaxMemory = 1 << 30
	}
	if o.Settle <= 0 {
		o.Settle = defaultSettle
	}
	if o.SettleTotal <= 0 {
		o.SettleTotal = defaultSettleTotal
	}
	return o
}

// ModelOptions are the pricing options validate predicts with, as perfc
// check's predicted column does: exact counts, ranks that wait on each
// other emulated, and warm caches (the generated program refills its
// arrays before every timed run, so data that fits a level is resident
// there; docs/predict.md, "Warm caches").
func ModelOptions() costmodel.Options {
	return costmodel.Options{Warm: true}
}
