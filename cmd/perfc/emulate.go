package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"perfc/analyze"
	"perfc/costmodel"
	"perfc/costmodel/emulate"
	"perfc/gantt"
	"perfc/internal/progress"
	"perfc/internal/units"
	"perfc/lang"
)

// emulateCmd is `perfc emulate`: the discrete-event emulation of every
// rank's schedule, for kernels whose ranks wait on each other.
type emulateCmd struct {
	kernelArgs
	budgetArgs
	machineArgs
	outputArg
	Timeline string `placeholder:"FILE" help:"Write every event of every rank as JSON lines (schema perfc.timeline/v1) to FILE, or - for standard output."`
	Plot     string `placeholder:"FILE.svg|FILE.png" help:"Draw a Gantt chart of the timeline (one row per rank; large runs summarised)."`
	limitArgs
	MaxTimelineEvents int64 `placeholder:"N" help:"Write at most N events to the timeline; the rest are counted, not written (default 1,000,000: about 120 to 190 MB)."`
}

// limitArgs are the emulation's budgets (emulate.EmulateLimits), shared
// by emulate and predict.
type limitArgs struct {
	MaxEvents int64    `placeholder:"N" help:"Stop an emulation with an error after N events, all ranks together (default 100,000,000: a few seconds)."`
	MaxMemory byteSize `placeholder:"SIZE" help:"Refuse to emulate when its memory is estimated above SIZE, e.g. 4GiB (default 2GiB)."`
}

// limits returns the budgets the flags set (zero: the defaults).
func (a limitArgs) limits() (emulate.EmulateLimits, error) {
	if a.MaxEvents < 0 {
		return emulate.EmulateLimits{}, fmt.Errorf("--max-events=%d: give a positive number of events", a.MaxEvents)
	}
	return emulate.EmulateLimits{MaxEvents: a.MaxEvents, MaxMemory: int64(a.MaxMemory)}, nil
}

// byteSize is a flag's size in bytes, written as a number with an optional
// unit: 2GiB, 512MiB, 1.5GB, 4096.
type byteSize int64

// byteUnits are the units byteSize accepts, longest first.
var byteUnits = []struct {
	name string
	size float64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1},
}

// UnmarshalText parses a size such as 4GiB.
func (b *byteSize) UnmarshalText(text []byte) error {
	s := strings.TrimSpace(string(text))
	scale := 1.0
	for _, u := range byteUnits {
		if strings.HasSuffix(strings.ToLower(s), strings.ToLower(u.name)) {
			s, scale = strings.TrimSpace(s[:len(s)-len(u.name)]), u.size
			break
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v > 0) || v*scale >= math.MaxInt64 {
		return fmt.Errorf("%q is not a size: write a positive number of bytes with an optional unit, e.g. 4GiB, 512MiB or 1.5GB", text)
	}
	*b = byteSize(v * scale)
	return nil
}

// EmulationSchema names the JSON schema of `perfc emulate -o json`
// (docs/emulate.md).
const EmulationSchema = "perfc.emulation/v1"

// emulationReport is what `perfc emulate` prints: a prediction.
type emulationReport struct {
	Schema    string             `json:"schema"`
	Kernel    string             `json:"kernel"`
	File      string             `json:"file"`
	Machine   string             `json:"machine"`
	Params    []analyze.Param    `json:"params"`
	Emulation *emulate.Emulation `json:"emulation"`
	Wavefront *emulate.Wavefront `json:"wavefront,omitempty"`
}

// Run emulates the kernel and prints the report.
func (c *emulateCmd) Run(e env) error {
	if err := checkPlotName(c.Plot, "the chart"); err != nil {
		return err
	}
	if c.Timeline == "-" && c.Output == "json" {
		return fmt.Errorf("--timeline - and -o json both want standard output; write the timeline to a file (--timeline FILE)")
	}
	k, err := loadKernel(e, c.kernelArgs)
	if err != nil {
		return err
	}
	// Segments cost what the region table charges (predict): analyse with
	// the machine's caches for the cache-line model.
	counts, m, err := c.budgetArgs.countOn(e, k, c.machineArgs)
	if err != nil {
		return err
	}
	p := costmodel.PricerFor(k, counts, m, costmodel.Options{})
	if c.MaxTimelineEvents < 0 {
		return fmt.Errorf("--max-timeline-events=%d: give a positive number of events", c.MaxTimelineEvents)
	}
	limits, err := c.limits()
	if err != nil {
		return err
	}
	limits.MaxTimelineEvents = c.MaxTimelineEvents
	bar := progress.New(e.stderr, "emulating (events)", 0)
	opts := emulate.EmulateOptions{Limits: limits, Progress: bar.Set}
	if c.Timeline != "" {
		w, closeTimeline, err := openOutput(e, c.Timeline)
		if err != nil {
			return err
		}
		defer closeTimeline()
		opts.Timeline = w
	}
	var chart *gantt.Chart
	if c.Plot != "" {
		chart = gantt.New(k.NumRanks())
		opts.Observe = chart.Observe
	}
	em, err := emulate.Emulate(k, p, opts)
	bar.Finish()
	if err != nil {
		return positioned(e, err, k.File.Source)
	}
	if em.TimelineDropped > 0 {
		fmt.Fprintf(e.stderr, "perfc: note: the timeline holds only the first %s of %s events; raise the limit with --max-timeline-events\n",
			units.Int(em.Events-em.TimelineDropped), units.Int(em.Events))
	}
	wf, err := emulate.AnalyzeWavefront(k, p, em)
	if err != nil {
		return positioned(e, err, k.File.Source)
	}
	rep := &emulationReport{Schema: EmulationSchema, Kernel: em.Kernel, File: k.File.Source.Name, Machine: m.Name(),
		Params: paramsOf(k), Emulation: em, Wavefront: wf}
	if chart != nil {
		title := fmt.Sprintf("kernel %s on %s: %s (emulated prediction)", rep.Kernel, rep.Machine, formatTime(em.Total))
		if err := chart.Save(c.Plot, title); err != nil {
			return err
		}
	}
	if c.Output == "json" {
		return writeJSON(e.stdout, rep)
	}
	printEmulation(reportWriter(e, c.Timeline), rep)
	return nil
}

// reportWriter is where the report for people goes: standard output, or
// standard error when the timeline takes standard output, so that what a
// pipe reads is JSON lines only.
func reportWriter(e env, timeline string) io.Writer {
	if timeline == "-" {
		return e.stderr
	}
	return e.stdout
}

// openOutput opens a file for writing, or standard output for "-".
func openOutput(e env, path string) (io.Writer, func(), error) {
	if path == "-" {
		return e.stdout, func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}

// paramsOf lists a checked kernel's parameters with their values.
func paramsOf(k *lang.Checked) []analyze.Param {
	var out []analyze.Param
	for _, obj := range k.Params {
		out = append(out, analyze.Param{Name: obj.Name, Value: obj.Value.String()})
	}
	return out
}

// printEmulation prints an emulation for people.
func printEmulation(w io.Writer, r *emulationReport) {
	em := r.Emulation
	fmt.Fprintf(w, "emulation (a prediction, not a measurement) of kernel %s on %s (%s)\n", r.Kernel, r.Machine, r.File)
	var params []string
	for _, q := range r.Params {
		params = append(params, q.Name+" = "+q.Value)
	}
	where := plural(em.Ranks, "rank")
	if len(em.Grid) == 2 {
		where += fmt.Sprintf(" on a %d x %d grid", em.Grid[0], em.Grid[1])
	}
	fmt.Fprintf(w, "parameters: %s; %s\n", strings.Join(params, ", "), where)
	fmt.Fprintf(w, "\npredicted time: %s   (%s, %s, %s)\n", formatTime(em.Total), count(em.Events, "event", "events"),
		count(em.Messages, "message", "messages"), count(em.Collectives, "collective call", "collective calls"))
	if len(em.Nodes) == 2 {
		fmt.Fprintf(w, "cluster: %d x %d nodes; %s waited for a link across a node boundary, %s in all\n",
			em.Nodes[0], em.Nodes[1], count(em.LinkWaits, "message", "messages"), formatTime(em.LinkWait))
	}
	if em.Cores > 0 {
		var wait float64
		for _, r := range em.PerRank {
			wait += r.CoreWait
		}
		fmt.Fprintf(w, "cores: %d ranks share %d cores (a run queue, docs/emulate.md); the ranks waited %s for a core in all\n",
			em.Ranks, em.Cores, formatTime(wait))
	}
	printLongCopies(w, em.LongCopies)
	if em.Requests > 0 {
		var wait float64
		for _, r := range em.PerRank {
			wait += r.RequestWait
		}
		fmt.Fprintf(w, "requests: %s posted (isend, irecv); the ranks waited %s in wait and waitall in all (part of their waiting)\n",
			units.Int(em.Requests), formatTime(wait))
	}
	if em.Noise != nil {
		var wait float64
		for _, r := range em.Noise {
			wait += r.Wait
		}
		fmt.Fprintf(w, "waiting: noise: the ranks waited %s in all for the jitter of each other's compute (messages.noise; part of their waiting, docs/emulate.md)\n",
			formatTime(wait))
	}
	printCriticalPath(w, em)
	printRankTimes(w, em)
	if r.Wavefront != nil {
		printWavefront(w, r.Wavefront)
	}
}

// pathRows is how many stretches of the critical path a table shows at
// each end before it elides the middle.
const pathRows = 12

// printCriticalPath prints the critical path, eliding a long middle.
func printCriticalPath(w io.Writer, em *emulate.Emulation) {
	tot := em.CriticalTotals
	fmt.Fprintf(w, "\ncritical path: %s of one rank, %s of rank; computing %s, communicating %s\n", count(tot.Steps, "stretch", "stretches"),
		count(tot.Hops, "change", "changes"), formatTime(tot.Compute), formatTime(tot.Comm))
	if em.Truncated {
		fmt.Fprintln(w, "(the emulation stopped early: the times are those of the events it reached)")
	}
	if em.CriticalCut {
		fmt.Fprintf(w, "(only the last %d stretches are kept; the totals cover all of it)\n", len(em.Critical))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  start\tend\trank\tevents\tentered by\tfirst\tlast")
	row := func(s emulate.PathStep) {
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%s\t%s\t%s\n", formatTime(s.Start), formatTime(s.End), s.Rank, s.Events,
			s.Via, orDash(s.First), orDash(s.Last))
	}
	steps := em.Critical
	if len(steps) <= 2*pathRows {
		for _, s := range steps {
			row(s)
		}
	} else {
		for _, s := range steps[:pathRows] {
			row(s)
		}
		fmt.Fprintf(tw, "  ...\t%d more\n", len(steps)-2*pathRows)
		for _, s := range steps[len(steps)-pathRows:] {
			row(s)
		}
	}
	tw.Flush()
}

// count writes "1 stretch" or "3 stretches".
func count(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return units.Int(n) + " " + many
}

// orDash prints "-" for an empty field.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// rankRows is how many ranks the busy/idle table lists before it
// summarises.
const rankRows = 16

// printRankTimes prints every rank's busy and idle time, or for many
// ranks a summary and the extremes.
func printRankTimes(w io.Writer, em *emulate.Emulation) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	// The columns: waiting for a core when ranks share cores, and the part
	// of the waiting in wait statements when the kernel posts requests.
	idle, head := "waiting", "rank\tcompute\tcommunication\twaiting\t"
	if em.Requests > 0 {
		head += "in waits\t"
	}
	if em.Noise != nil {
		head += "noise\t"
	}
	if em.Cores > 0 {
		idle += " + waiting for a core"
		head += "for a core\t"
	}
	fmt.Fprintf(w, "\nper rank: busy = compute + communication; idle = %s + after finishing\n", idle)
	fmt.Fprintln(tw, head+"finished at\tbusy\t")
	row := func(r emulate.RankTime) {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t", r.Rank, formatTime(r.Compute), formatTime(r.Comm), formatTime(r.Wait))
		if em.Requests > 0 {
			fmt.Fprintf(tw, "%s\t", formatTime(r.RequestWait))
		}
		if em.Noise != nil {
			fmt.Fprintf(tw, "%s\t", formatTime(em.Noise[r.Rank].Wait))
		}
		if em.Cores > 0 {
			fmt.Fprintf(tw, "%s\t", formatTime(r.CoreWait))
		}
		fmt.Fprintf(tw, "%s\t%s\t\n", formatTime(r.End), busyShare(r, em.Total))
	}
	ranks := em.PerRank
	if len(ranks) <= rankRows {
		for _, r := range ranks {
			row(r)
		}
		tw.Flush()
		return
	}
	sorted := append([]emulate.RankTime(nil), ranks...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Busy() > sorted[j].Busy() })
	for _, r := range sorted[:rankRows/2] {
		row(r)
	}
	fmt.Fprintf(tw, "...\t%d more\t%s\n", len(sorted)-rankRows, strings.Repeat("\t", strings.Count(head, "\t")))
	for _, r := range sorted[len(sorted)-rankRows/2:] {
		row(r)
	}
	tw.Flush()
	var sum float64
	for _, r := range ranks {
		sum += r.Busy()
	}
	fmt.Fprintf(w, "(%d ranks, busiest first; mean busy %s of %s)\n", len(ranks), formatTime(sum/float64(len(ranks))), formatTime(em.Total))
}

// busyShare is a rank's busy time as a percentage of the total.
func busyShare(r emulate.RankTime, total float64) string {
	if total == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*r.Busy()/total)
}

// printWavefront prints the LANL wavefront analysis.
func printWavefront(w io.Writer, wf *emulate.Wavefront) {
	fmt.Fprintf(w, "\nwavefront (LANL model, [002] eqs. 1-4): %d sweeps over %d x %d ranks\n", wf.Sweeps, wf.Px, wf.Py)
	fmt.Fprintf(w, "  pipeline depth: %d computation steps (Px + Py - 1), %d message steps (2(Px + Py - 2)); repetition delay %d and %d\n",
		wf.DepthComp, wf.DepthComm, wf.DelayComp, wf.DelayComm)
	fmt.Fprintf(w, "  T_cpu = %s per wave, T_msg = %s per message (eq. 4)\n", formatTime(wf.Tcpu), formatTime(wf.Tmsg))
	fmt.Fprintf(w, "  eq. (2) T_comp = %s   eq. (3) T_comm = %s   sum = %s   emulated = %s\n",
		formatTime(wf.TComp), formatTime(wf.TComm), formatTime(wf.ClosedForm), formatTime(wf.Emulated))
	if cw := wf.Cluster; cw != nil {
		fmt.Fprintf(w, "  cluster ([002] sec. 3, checked against a step emulation): %d x %d nodes of %d x %d ranks, L = %d\n",
			cw.M, cw.N, cw.Sx, cw.Sy, cw.L)
		collide := "no wave waits for a link"
		if cw.Collide {
			collide = fmt.Sprintf("waves collide at node boundaries (%s waited)", count(cw.LinkWaits, "message", "messages"))
		}
		fmt.Fprintf(w, "    %s; conditions: (7) S_x >= 2L %v, (10) S_x >= 4L + 1 %v, general max(S_x, S_y) > 4L + 1 %v\n",
			collide, cw.Eq7, cw.Eq10, cw.Eq10General)
		fmt.Fprintf(w, "    steady-state delay at the boundary: %s steps; the source follows after %s (paper: %d groups of %d)\n",
			cycleText(cw.SteadyCycle), transitionalText(cw.Transitional), cw.TransitionalPaper, cw.L)
		for _, c := range cw.Checks {
			verdict := "agrees with the emulation"
			if !c.Agrees {
				verdict = "DISAGREES"
				if c.First > 0 {
					verdict += fmt.Sprintf(" from wave %d: emulated %d, formula %d", c.First, c.Got, c.Want)
				} else if c.Want != 0 || c.Got != 0 {
					verdict += fmt.Sprintf(": emulated %d, formula %d", c.Got, c.Want)
				}
			}
			fmt.Fprintf(w, "    %s: %s\n", c.Formula, verdict)
		}
	}
	for _, n := range wf.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

// cycleText writes a cycle of delays, or says there is none.
func cycleText(c []int64) string {
	if len(c) == 0 {
		return "not settled within the run"
	}
	var parts []string
	for _, d := range c {
		parts = append(parts, fmt.Sprint(d))
	}
	return strings.Join(parts, ", ")
}

// transitionalText writes the number of transitional waves.
func transitionalText(n int64) string {
	if n < 0 {
		return "no wave within the run"
	}
	return plural(n, "wave")
}

// checkPlotName refuses a --plot file whose name does not say SVG or PNG,
// the formats gonum/plot draws here, before any work is done; "" (no
// plot) passes.
func checkPlotName(path, what string) error {
	if path == "" {
		return nil
	}
	if ext := strings.ToLower(filepath.Ext(path)); ext != ".svg" && ext != ".png" {
		return fmt.Errorf("--plot %s: %s is written as .svg or .png; name the file so", path, what)
	}
	return nil
}

// printLongCopies says what the copies priced by the copies beside them
// took (emulate.SharedCopier), when there were any.
func printLongCopies(w io.Writer, lc *emulate.LongCopies) {
	if lc == nil {
		return
	}
	fmt.Fprintf(w, "long copies: %s beyond the private caches, priced by the copies beside them (docs/emulate.md, \"Copies beside copies\"): %s alone, %s each beside another, %s emulated\n",
		count(lc.Copies, "blocking copy", "blocking copies"), formatTime(lc.Alone), formatTime(lc.Beside), formatTime(lc.Took))
}
