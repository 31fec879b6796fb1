package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"perfc/calibrate"
	"perfc/internal/progress"
	"perfc/internal/safefile"
)

// calibrateCmd is `perfc calibrate`: benchmark this machine into a machine
// table that perfc predict -m uses at once (docs/calibrate.md).
type calibrateCmd struct {
	Out       string        `short:"o" type:"path" placeholder:"FILE.yaml" help:"Write the table to this file (default: standard output)."`
	Quick     bool          `help:"Fewer sizes and shorter measurements: under a minute on a 2-core host, with noisier numbers."`
	Plot      string        `type:"path" placeholder:"DIR" help:"Draw every fit against its points into DIR, as PNG and SVG."`
	CacheDir  string        `type:"path" placeholder:"DIR" help:"Where the benchmark programs are built (default: the user cache directory, perfc/)."`
	NoComms   bool          `help:"Leave out the communication benchmarks (the table then has no messages or collectives)."`
	CommsInto string        `type:"existingfile" placeholder:"BASE.yaml" help:"Measure the communication benchmarks alone and write BASE, a table perfc calibrate wrote on this host, with its messages, collectives and their results replaced (about half of a full run)."`
	Timeout   time.Duration `default:"30m" help:"Stop if the calibration runs longer than this."`
	TestMode  bool          `hidden:"" help:"For tests: every benchmark once on a few sizes, in seconds; not a calibration."`
	MPI       bool          `name:"mpi" help:"Measure messages and collectives through MPI (mpirun, or the launcher --mpirun names): a table of MPI's messages between the nodes the launch spans (docs/mpi.md)."`
	Ranks     int           `short:"n" placeholder:"RANKS" help:"With --mpi: the most ranks the collectives, COMMS3 and SYNCH1 run on (2, 4, 8 … below it and RANKS itself; default 2 and 4 with --quick, 2, 4 and 8 without)."`
	Hostfile  string        `type:"existingfile" placeholder:"FILE" help:"With --mpi: mpirun's hostfile (the nodes and their slots)."`
	Mpirun    string        `placeholder:"'srun …'" help:"With --mpi: the launcher instead of mpirun, split at spaces (e.g. 'srun --mpi=pmix'); it is given the rank count and the program."`
}

// Run calibrates, writes the table and, with --plot, the figures.
func (c *calibrateCmd) Run(e env) error {
	if c.Plot != "" && c.Plot == c.Out {
		return errors.New("calibrate: --plot names a directory, -o a file; give them different paths")
	}
	if err := c.checkPaths(); err != nil {
		return err
	}
	launch, err := mpiLaunchArgs{MPI: c.MPI, Hostfile: c.Hostfile, Mpirun: c.Mpirun}.launch("calibrate")
	if err != nil {
		return err
	}
	if c.Ranks != 0 && !c.MPI {
		return errors.New("calibrate: -n sets the ranks of an MPI calibration; add --mpi (the goroutine calibration runs 2, 4 and 8 ranks)")
	}
	if c.Ranks < 0 || c.Ranks == 1 {
		return fmt.Errorf("calibrate: -n %d: the pingpong needs 2 ranks at least", c.Ranks)
	}
	if c.MPI && c.NoComms {
		return errors.New("calibrate: --mpi measures the communication benchmarks through MPI; it cannot go with --no-comms")
	}
	var base []byte
	if c.CommsInto != "" {
		if c.NoComms || c.MPI || c.Plot != "" {
			return errors.New("calibrate: --comms-into measures the goroutine messages alone; it goes with neither --no-comms, --mpi nor --plot")
		}
		if base, err = os.ReadFile(c.CommsInto); err != nil {
			return fmt.Errorf("calibrate: --comms-into: %w", err)
		}
		if err := calibrate.CheckCommsBase(base, c.CommsInto); err != nil {
			return fmt.Errorf("calibrate: --comms-into: %w", err)
		}
	}
	mode := calibrate.Full
	switch {
	case c.TestMode:
		mode = calibrate.Tiny
	case c.Quick:
		mode = calibrate.Quick
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.Timeout)
	defer cancel()
	line := newCalibrateLine(e)
	res, err := calibrate.Run(ctx, calibrate.Options{Mode: mode, CacheDir: c.CacheDir, NoComms: c.NoComms, OnlyComms: base != nil,
		Progress: line.update, Launch: launch, MaxRanks: c.Ranks})
	line.finish()
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("%w: calibrate stops after --timeout %s; raise it to let it finish", err, c.Timeout)
		}
		return err
	}
	var table []byte
	if base != nil {
		table, err = res.MergeInto(base, c.CommsInto)
	} else {
		table, err = res.Table()
	}
	if err != nil {
		return err
	}
	if c.Out == "" {
		if _, err := e.stdout.Write(table); err != nil {
			return err
		}
	} else if err := safefile.WriteFile(c.Out, table, 0o644); err != nil {
		return err
	}
	where := "standard output"
	if c.Out != "" {
		where = c.Out
	}
	res.Summary(e.stderr)
	if res.Comms != nil {
		for _, n := range res.Comms.Transport().Notes {
			fmt.Fprintf(e.stderr, "calibrate: %s\n", n)
		}
	}
	fmt.Fprintf(e.stderr, "calibrate: %s mode took %s; wrote the table of %s to %s\n", mode, res.Elapsed.Round(time.Second), res.Host.Describe(), where)
	if c.Plot != "" {
		files, err := res.Plots(c.Plot)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "calibrate: drew %d figures into %s\n", len(files), c.Plot)
	}
	if c.Out != "" {
		fmt.Fprintf(e.stderr, "use it: perfc predict -m %s KERNEL, perfc check -m %s KERNEL\n", c.Out, c.Out)
	}
	return nil
}

// checkPaths refuses, before minutes of benchmarks, an -o whose directory
// does not exist and a --plot directory that cannot be made.
func (c *calibrateCmd) checkPaths() error {
	if c.Out != "" {
		dir := filepath.Dir(c.Out)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return fmt.Errorf("calibrate: -o %s: the directory %s does not exist; create it or write the table elsewhere", c.Out, dir)
		}
	}
	if c.Plot != "" {
		if err := os.MkdirAll(c.Plot, 0o755); err != nil {
			return fmt.Errorf("calibrate: --plot %s: %w", c.Plot, err)
		}
	}
	return nil
}

// calibrateLine is the progress line of perfc calibrate on standard error
// (when it is a terminal): the benchmark that runs, the share done and
// the time left, in per mille of the estimated seconds of work. A ticker
// redraws it, because one measurement runs for seconds with nothing to
// report.
type calibrateLine struct {
	bar  *progress.Bar
	mu   sync.Mutex
	last int64
	stop chan struct{}
	once sync.Once
}

// newCalibrateLine starts the line.
func newCalibrateLine(e env) *calibrateLine {
	l := &calibrateLine{bar: progress.New(e.stderr, "calibrate", 1000), stop: make(chan struct{})}
	go func() {
		tick := time.NewTicker(stepTick)
		defer tick.Stop()
		for {
			select {
			case <-l.stop:
				return
			case <-tick.C:
				l.mu.Lock()
				l.bar.Set(l.last)
				l.mu.Unlock()
			}
		}
	}()
	return l
}

// update is calibrate.Options.Progress.
func (l *calibrateLine) update(name string, done, total float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if total > 0 {
		l.last = min(int64(done/total*1000), 1000)
	}
	l.bar.Describe(name)
	l.bar.Set(l.last)
}

// finish stops the ticker and clears the line.
func (l *calibrateLine) finish() {
	l.once.Do(func() {
		close(l.stop)
		l.bar.Finish()
	})
}
