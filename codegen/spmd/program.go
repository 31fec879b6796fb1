package spmd

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"
	"unicode/utf8"
)

// options are the command-line flags of a generated program.
type options struct {
	json     bool
	count    bool
	reps     int
	samples  int
	minTime  time.Duration
	memLimit int64
}

// parseOptions reads the flags; extra, when not nil, adds a transport's
// own.
func parseOptions(name string, args []string, stderr io.Writer, extra func(*flag.FlagSet)) (options, error) {
	var o options
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&o.json, "json", false, "print the results as JSON")
	fs.BoolVar(&o.count, "count", false, "run once and count what runs, instead of timing (needs a build with -tags perfc_count)")
	fs.IntVar(&o.reps, "reps", 0, "runs per measurement (default: as many as make a measurement last -min-time)")
	fs.IntVar(&o.samples, "samples", 5, "measurements; the report gives their minimum, median and maximum")
	fs.DurationVar(&o.minTime, "min-time", 200*time.Millisecond, "the least duration of one measurement")
	fs.Int64Var(&o.memLimit, "mem-limit", 0, "refuse to run a kernel that needs more bytes than this (default: 80% of MemAvailable)")
	if extra != nil {
		extra(fs)
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected argument %q; the program takes flags only (-h lists them)", fs.Arg(0))
	case o.reps < 0:
		return o, fmt.Errorf("-reps %d: give at least 1 run per measurement (or 0 to choose by -min-time)", o.reps)
	case o.samples < 1:
		return o, fmt.Errorf("-samples %d: give at least 1 measurement", o.samples)
	case o.minTime <= 0:
		return o, fmt.Errorf("-min-time %v: give a positive duration such as 0.2s", o.minTime)
	}
	return o, nil
}

// report prints v as JSON or as a table.
func (w *world) report(out io.Writer, asJSON bool, v any) int {
	if asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			fmt.Fprintln(w.stderr, "error:", err)
			return 1
		}
		return 0
	}
	switch v := v.(type) {
	case Measurement:
		printMeasurement(out, v)
	case Executed:
		printExecuted(out, v)
	}
	return 0
}

// params and grid are the fields every report shares.
func (w *world) params() []Param { return append([]Param(nil), w.k.params...) }

func (w *world) grid() []int {
	if w.k.gridX == 0 {
		return nil
	}
	return []int{w.k.gridX, w.k.gridY}
}

// measure times the kernel: TICK1, a warm-up run, the runs per
// measurement, then o.samples measurements.
func (w *world) measure(o options) Measurement {
	m := Measurement{Schema: MeasurementSchema, Kernel: w.k.name, File: w.k.file, Params: w.params(), Ranks: w.size,
		Grid: w.grid(), Cores: hostCores(), Procs: runtime.GOMAXPROCS(0), Samples: o.samples,
		MinTimeS: o.minTime.Seconds(), Instrumented: counting, Backend: backend}
	m.Tick1Us = float64(tick1()) / 1e3
	defer w.keepRanks()()
	_, m.WarmupUs = slowest(w.runs(1), 1)
	m.Runs = o.reps
	if m.Runs == 0 {
		m.Runs = w.calibrate(m.WarmupUs, o.minTime)
	}
	regions := make([][]float64, len(w.k.regions))
	var totals []float64
	var perRank [][][]float64 // [rank][region, then total][sample]
	if perRankTimes {
		perRank = make([][][]float64, w.size)
		for i := range perRank {
			perRank[i] = make([][]float64, len(w.k.regions)+1)
		}
	}
	for range o.samples {
		ns := w.runs(m.Runs)
		perRegion, total := slowest(ns, m.Runs)
		for i, t := range perRegion {
			regions[i] = append(regions[i], t)
		}
		totals = append(totals, total)
		for i := range perRank {
			own, total := slowest(ns[i:i+1], m.Runs)
			for j, t := range append(own, total) {
				perRank[i][j] = append(perRank[i][j], t)
			}
		}
	}
	for i, name := range w.k.regions {
		m.Regions = append(m.Regions, stats(name, regions[i]))
	}
	m.Total = stats("total", totals)
	for i, samples := range perRank {
		rt := RankTimes{Rank: i}
		for j, name := range w.k.regions {
			rt.Regions = append(rt.Regions, stats(name, samples[j]))
		}
		rt.Total = stats("total", samples[len(w.k.regions)])
		m.PerRank = append(m.PerRank, rt)
	}
	m.Checksum, m.Finite = w.checksum()
	m.Notes = w.notes(m.Finite)
	return m
}

// notes says what a reader of the times must know.
func (w *world) notes(finite bool) []string {
	notes := w.transportNotes()
	if counting {
		notes = append(notes, "this is the counting build (-tags perfc_count): the times include the counters")
	}
	if !finite {
		notes = append(notes, "the data became infinite or NaN during the run; arithmetic on such values may run at another speed than on ordinary numbers")
	}
	return notes
}

// countRun runs the kernel once with the counters of the instrumented
// build and returns what every rank did.
func (w *world) countRun() Executed {
	w.clearCounters()
	w.runs(1)
	ex := Executed{Schema: ExecutedSchema, Kernel: w.k.name, File: w.k.file, Params: w.params(), Ranks: w.size, Grid: w.grid()}
	for id, c := range w.rankCounters() {
		ex.PerRank = append(ex.PerRank, w.k.executedCounts(w.size, id, c))
	}
	ex.Checksum, ex.Finite = w.checksum()
	return ex
}

// describe is the first line of both reports.
func describe(kernel, file string, params []Param, ranks int, grid []int) string {
	var ps []string
	for _, p := range params {
		ps = append(ps, p.Name+" = "+p.Value)
	}
	s := fmt.Sprintf("kernel %s (%s): %s; %d rank", kernel, file, strings.Join(ps, ", "), ranks)
	if ranks != 1 {
		s += "s"
	}
	if len(grid) == 2 {
		s += fmt.Sprintf(" on a %d x %d grid", grid[0], grid[1])
	}
	return s
}

// printMeasurement prints the times for people.
func printMeasurement(out io.Writer, m Measurement) {
	fmt.Fprintf(out, "measured times of %s\n", describe(m.Kernel, m.File, m.Params, m.Ranks, m.Grid))
	fmt.Fprintf(out, "timer resolution (TICK1) %.3f us; warm-up run %.1f us; %d runs per measurement (at least %g s), %d measurements\n",
		m.Tick1Us, m.WarmupUs, m.Runs, m.MinTimeS, m.Samples)
	fmt.Fprintln(out, "time per run of the slowest rank (wall clock):")
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "region\tmin us\tmedian us\tmax us\tspread\t")
	row := func(t Timing) {
		spread := 0.0
		if t.MedianUs > 0 {
			spread = (t.MaxUs - t.MinUs) / t.MedianUs * 100
		}
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.3f\t%.1f%%\t\n", printable(t.Name), t.MinUs, t.MedianUs, t.MaxUs, spread)
	}
	for _, t := range m.Regions {
		row(t)
	}
	row(m.Total)
	tw.Flush()
	fmt.Fprintf(out, "checksum %s\n", m.Checksum)
	for _, n := range m.Notes {
		fmt.Fprintf(out, "note: %s\n", n)
	}
}

// printExecuted prints the counts for people.
func printExecuted(out io.Writer, ex Executed) {
	fmt.Fprintf(out, "executed counts (one run, counted by the instrumented build) of %s\n",
		describe(ex.Kernel, ex.File, ex.Params, ex.Ranks, ex.Grid))
	for _, rc := range ex.PerRank {
		fmt.Fprintf(out, "\nrank %d\n", rc.Rank)
		tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "region\titerations\tflop\tint ops\tloads\tstores\tmessages\tmsg bytes\tcollectives\tbarriers\t")
		row := func(name string, c Counts) {
			var msgs, msgBytes, colls int64
			for _, m := range c.Messages {
				if m.Kind == "send" || m.Kind == "isend" {
					msgs += m.Count
					msgBytes += m.Bytes
				}
			}
			for _, col := range c.Collectives {
				colls += col.Count
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", name, c.Iterations, c.Flop, c.IntOps,
				c.Loads, c.Stores, msgs, msgBytes, colls, c.Barriers)
		}
		for _, r := range rc.Regions {
			row(printable(r.Name), r.Counts)
		}
		row("total", rc.Total)
		tw.Flush()
		for _, b := range rc.Branches {
			fmt.Fprintf(out, "  data condition %s (%s): assumed prob %g, true %d of %d times (%.3f)\n",
				b.Stmt, printable(b.Region), b.Prob, b.Taken, b.Evaluated, b.Observed())
		}
	}
	fmt.Fprintf(out, "checksum %s\n", ex.Checksum)
}

// printable returns a region name as the tables print it: every control
// character (C0, DEL, C1), every invalid UTF-8 byte and the Unicode line
// and paragraph separators written as Go escapes (\n, \x1b, \u2028), so
// that a name can neither drive the terminal nor break a table's columns.
// It follows lang.Printable, which perfc's own printers use; the runtime
// keeps a copy because it is copied into programs that import nothing but
// the standard library.
func printable(name string) string {
	var b strings.Builder
	for i, w := 0, 0; i < len(name); i += w {
		r, size := utf8.DecodeRuneInString(name[i:])
		w = size
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, name[i])
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029':
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(name[i : i+size])
		}
	}
	return b.String()
}
