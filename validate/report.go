package validate

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"

	"perfc/internal/units"
	"perfc/lang"
)

// Schema names the JSON schema of a Report (docs/accuracy.md); it changes
// only when a field changes meaning or disappears.
const Schema = "perfc.validate/v1"

// WorstCount is how many of the worst cases a report lists.
const WorstCount = 10

// Report is a validation: the suite's cases with their comparisons, the
// cases that could not be made, and the summaries.
type Report struct {
	Schema      string `json:"schema"` // Schema
	Machine     string `json:"machine"`
	MachineFile string `json:"machine_file,omitempty"`
	Description string `json:"description,omitempty"` // the table's
	Host        Host   `json:"host"`
	Quick       bool   `json:"quick"`
	// Replay names the earlier report whose measurements this one
	// compares with new predictions (perfc validate --replay); empty for
	// a report that measured its cases.
	Replay string `json:"replay,omitempty"`
	// Backend is what ran the cases: "goroutine" (the generated program's
	// own runtime) or "mpi" (perfc validate --mpi: the communicating
	// cases, each rank an MPI process; every case says its launch).
	Backend string `json:"backend"`
	// Summary summarises every case; Groups the tuning and the held-out
	// cases apart (keys GroupTuning and GroupHeldOut, both present).
	Summary Summary            `json:"summary"`
	Groups  map[string]Summary `json:"groups"`
	// Worst names the cases with the largest |error|, largest first, with
	// the term that dominated their prediction.
	Worst []WorstCase `json:"worst"`
	// Misses are every compared case beyond MissBound (15 %), grouped by
	// the term that dominated its prediction.
	Misses []TermMisses `json:"misses"`
	// Drift is the host's drift while the suite ran: its witnesses
	// measured again at the end (Case.Again).
	Drift []Drift `json:"drift"`
	// Witness says how fast the host ran while the suite did, against the
	// table (witness.go); absent when no case has witness times.
	Witness *WitnessSummary `json:"witness,omitempty"`
	// Against sets the report beside other ones (perfc validate
	// --against): the host's reproducibility and the misses every run
	// repeats; absent when none was given.
	Against *Reproducibility `json:"against,omitempty"`
	Cases   []Case           `json:"cases"`
	Skipped []Skip           `json:"skipped"`
}

// Drift is one witness of the host's drift: a case's total measured
// during the suite and again after it.
type Drift struct {
	Case   string  `json:"case"`
	Ranks  int64   `json:"ranks"`
	First  float64 `json:"first_s"` // the median of the suite's measurement, s per run
	Again  float64 `json:"again_s"` // the median measured after the suite
	Change float64 `json:"change"`  // Again/First − 1
	// Moved says that the change exceeds the spread of both
	// measurements: the host's speed moved while the suite ran.
	Moved bool `json:"moved"`
}

// Host says where the measurements were taken.
type Host struct {
	Go    string `json:"go"`
	OS    string `json:"os"`
	Arch  string `json:"arch"`
	Cores int    `json:"cores"`
}

// WorstCase is one of a report's worst cases.
type WorstCase struct {
	Case     string    `json:"case"`
	Group    string    `json:"group"`
	Error    float64   `json:"error"`
	Noisy    bool      `json:"noisy"`
	Dominant *Dominant `json:"dominant"`
}

// NewReport summarises measured cases.
func NewReport(cases []Case, skipped []Skip, opts Options) *Report {
	r := &Report{Schema: Schema, Machine: opts.MachineName, Quick: opts.Quick, Cases: cases, Skipped: skipped, Backend: opts.Launch.Backend.String(),
		Host: Host{Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, Cores: runtime.NumCPU()}}
	if opts.Machine != nil {
		r.Machine, r.Description = opts.Machine.Name(), opts.Machine.Description()
		if opts.MachineName != r.Machine {
			r.MachineFile = opts.MachineName
		}
	}
	if r.Cases == nil {
		r.Cases = []Case{}
	}
	if r.Skipped == nil {
		r.Skipped = []Skip{}
	}
	r.Summary = Summarize(cases)
	r.Groups = map[string]Summary{}
	for _, g := range []string{GroupTuning, GroupHeldOut} {
		var in []Case
		for _, c := range cases {
			if c.Group == g {
				in = append(in, c)
			}
		}
		r.Groups[g] = Summarize(in)
	}
	r.Drift = []Drift{}
	for _, c := range cases {
		if c.Again == nil || c.Total == nil || !(c.Total.Measured > 0) {
			continue
		}
		ch := c.Again.Measured/c.Total.Measured - 1
		spread := max(value(c.Total.Spread), value(c.Again.Spread))
		r.Drift = append(r.Drift, Drift{Case: c.Name, Ranks: c.Ranks, First: c.Total.Measured, Again: c.Again.Measured, Change: ch,
			Moved: math.Abs(ch) > spread})
	}
	r.Misses = Misses(cases)
	r.Witness = summarizeWitnesses(cases)
	r.Worst = []WorstCase{}
	for _, c := range Worst(cases, WorstCount) {
		r.Worst = append(r.Worst, WorstCase{Case: c.Name, Group: c.Group, Error: *c.Total.Error, Noisy: c.Total.Noisy, Dominant: c.Dominant})
	}
	return r
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteTable writes the report for people: one line per case and region,
// then the summaries and the worst cases.
func (r *Report) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "validation of perfc's predictions on %s against this host (%s, %d cores, %s)\n", r.Machine, r.Host.Arch, r.Host.Cores, r.Host.Go)
	if r.Backend == "mpi" {
		fmt.Fprintf(w, "through MPI: the communicating cases, each rank an MPI process%s\n", r.launchLine())
	}
	if r.Replay != "" {
		fmt.Fprintf(w, "replayed: the predictions are new, the measurements are those of %s (nothing ran)\n", r.Replay)
	}
	fmt.Fprintln(w, "error = (predicted - measured)/measured; spread = (max - min)/median of the measurements; noisy: spread > |error|")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "case\tgroup\tlevel\tregion\tpredicted\tmeasured\tspread\terror\t\t")
	for _, c := range r.Cases {
		if c.Failure != "" || c.Total == nil { // no total: a report edited by hand (validate --report)
			fmt.Fprintf(tw, "%s\t%s\t%s\t\t\t\t\tfailed\t\t\n", c.Name, c.Group, c.Level)
			continue
		}
		rows := append([]Comparison{*c.Total}, c.Regions...)
		for i, cmp := range rows {
			name, group, level := "", "", ""
			region := "  " + lang.Printable(cmp.Name)
			if i == 0 {
				name, group, level, region = c.Name, c.Group, c.Level, "total"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", name, group, level, region, units.Time(cmp.Predicted),
				units.Time(cmp.Measured), percent(cmp.Spread, false), percent(cmp.Error, true), noisyMark(cmp.Noisy))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, c := range r.Cases {
		if c.Failure != "" {
			fmt.Fprintf(w, "failed: %s: %s\n", c.Name, firstLine(c.Failure))
		}
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(w, "skipped: %s%s: %s\n", s.Kernel, skipWhere(s), s.Reason)
	}
	fmt.Fprintln(w)
	r.writeSummary(w)
	r.writeAgainst(w)
	return nil
}

// launchLine says how the MPI cases were launched: the first case's
// command line (the others differ in -n) and every note, once.
func (r *Report) launchLine() string {
	var launch string
	var notes []string
	for _, c := range r.Cases {
		if launch == "" {
			launch = c.Launch
		}
		for _, n := range c.LaunchNotes {
			if !slices.Contains(notes, n) {
				notes = append(notes, n)
			}
		}
	}
	s := ""
	if launch != "" {
		s = ", launched as " + launch
	}
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, "; ") + ")"
	}
	return s
}

// writeSummary writes the summaries and the worst cases.
func (r *Report) writeSummary(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "group\tcases\tcompared\tnoisy\tfailed\tmedian |error|\tmedian error\twithin 10%\twithin 15%\twithin 20%\t")
	row := func(name string, s Summary) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t\n", name, s.Cases, s.Compared, s.Noisy, s.Failed,
			percent(s.MedianAbsError, false), percent(s.MedianError, true), share(s.Within10), share(s.Within15), share(s.Within20))
	}
	row("all", r.Summary)
	row(GroupTuning, r.Groups[GroupTuning])
	row(GroupHeldOut, r.Groups[GroupHeldOut])
	tw.Flush()
	r.writeWitness(w)
	r.writeDrift(w)
	if len(r.Worst) == 0 {
		return
	}
	fmt.Fprintf(w, "\nworst cases (the term that dominated the prediction):\n")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range r.Worst {
		term := "-"
		if d := c.Dominant; d != nil {
			term = fmt.Sprintf("%s: %s (%.0f%% of the prediction)", d.Resource, lang.Printable(d.What), d.Share*100)
			if d.Region != "" {
				term += " in " + lang.Printable(d.Region)
			}
		}
		fmt.Fprintf(tw, "  %s\t%s\t%+.1f%%%s\t%s\n", c.Case, c.Group, c.Error*100, noisyMark(c.Noisy), term)
	}
	tw.Flush()
	r.writeMisses(w)
}

// writeMisses lists every case beyond MissBound under the term that
// dominated its prediction.
func (r *Report) writeMisses(w io.Writer) {
	if len(r.Misses) == 0 {
		return
	}
	n := 0
	for _, g := range r.Misses {
		n += len(g.Cases)
	}
	fmt.Fprintf(w, "\n%d case%s beyond %.0f%%, by the term that dominated the prediction:\n", n, plural(int64(n)), MissBound*100)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, g := range r.Misses {
		fmt.Fprintf(tw, "  %s: %d, median error %+.1f%%\n", lang.Printable(g.Term), len(g.Cases), g.MedianError*100)
		for _, m := range g.Cases {
			fmt.Fprintf(tw, "    %s\t%s\t%d rank%s\t%+.1f%%%s\n", m.Case, m.Level, m.Ranks, plural(m.Ranks), m.Error*100, noisyMark(m.Noisy))
		}
	}
	tw.Flush()
}

// writeAgainst sets the summary beside the other reports' (--against):
// the floor their measurements set, and the misses that every run has.
func (r *Report) writeAgainst(w io.Writer) {
	a := r.Against
	if a == nil {
		return
	}
	fmt.Fprintf(w, "\nagainst %d other report%s (%s): %d case%s measured in every one\n", len(a.Reports), plural(int64(len(a.Reports))),
		strings.Join(a.Reports, ", "), a.Cases, plural(int64(a.Cases)))
	if a.Cases == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "on these cases\tmedian |error|\tmedian error\twithin 10%\twithin 15%\twithin 20%\t")
	row := func(name string, s Summary) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", name, percent(s.MedianAbsError, false), percent(s.MedianError, true),
			share(s.Within10), share(s.Within15), share(s.Within20))
	}
	row("the other runs' median measurement", a.Floor)
	row("perfc's prediction", a.Model)
	tw.Flush()
	fmt.Fprintln(w, "(the first row is the host's reproducibility: the error of a prediction that knew what the other runs measured)")
	fmt.Fprintf(w, "%d miss%s beyond %.0f%% here and in the other runs' median error, with one sign (the model's); %d here only (the hour's, or this table's)\n",
		len(a.Repeated), map[bool]string{true: "", false: "es"}[len(a.Repeated) == 1], MissBound*100, a.Once)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, m := range a.Repeated {
		others := make([]string, len(m.Others))
		for i, e := range m.Others {
			others[i] = fmt.Sprintf("%+.0f%%", e*100)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%d rank%s\t%+.1f%%\tothers %s\t%s\n", m.Case, m.Level, m.Ranks, plural(m.Ranks), m.Error*100,
			strings.Join(others, " "), lang.Printable(m.Term))
	}
	tw.Flush()
}

// writeWitness says how fast the host ran against the table, and how
// the cases measured at the table's speed fared.
func (r *Report) writeWitness(w io.Writer) {
	ws := r.Witness
	if ws == nil {
		return
	}
	fmt.Fprintf(w, "\nhost speed before each case (witnesses, measured/predicted): one core %.2f (%.2f to %.2f), a copy between cores %.2f (%.2f to %.2f)\n",
		ws.Core.Median, ws.Core.Min, ws.Core.Max, ws.Copy.Median, ws.Copy.Min, ws.Copy.Max)
	for _, x := range []struct {
		what string
		r    RatioRange
	}{{"a core", ws.Core}, {"a copy between cores", ws.Copy}} {
		if x.r.Median < 1/witnessWarn || x.r.Median > witnessWarn {
			fmt.Fprintf(w, "warning: %s took %.2f × the table's time in the median: the host ran at another speed than when it was calibrated, "+
				"and every error includes that; calibrate again (docs/accuracy.md, \"Witnesses\")\n", x.what, x.r.Median)
		}
	}
	if st := ws.Settle; st != nil {
		fmt.Fprintf(w, "settling: %d of %d case%s waited for the witnesses to come within %.0f%% (a core) and %.0f%% (a copy) of the table, %.0f s in all; %d measured again after the host slowed during the first measurement; %d measured out of the bands\n",
			st.Waited, st.Cases, plural(int64(st.Cases)), SettleCoreBand*100, SettleCopyBand*100, st.Seconds, st.Remeasured, st.Unsettled)
		if st.Spent > 0 {
			fmt.Fprintf(w, "warning: the suite's wait for the host (--settle-total) was spent; the last %d case%s waited less than --settle or not at all, and the host was busy or slow for much of the run: run validate again on a quieter host\n",
				st.Spent, plural(int64(st.Spent)))
		}
		if st.Settled.Compared > 0 {
			fmt.Fprintf(w, "%d case%s measured with the witnesses within those bands before and after: median |error| %s, within 15%% %s\n",
				st.Settled.Compared, plural(int64(st.Settled.Compared)), percent(st.Settled.MedianAbsError, false), share(st.Settled.Within15))
		}
	}
	s := ws.AtSpeed
	if s.Compared == 0 {
		fmt.Fprintf(w, "no case was measured with both witnesses within %.0f%% of the table\n", WitnessBand*100)
		return
	}
	fmt.Fprintf(w, "%d case%s measured with both witnesses within %.0f%% of the table: median |error| %s, within 15%% %s\n",
		s.Compared, plural(int64(s.Compared)), WitnessBand*100, percent(s.MedianAbsError, false), share(s.Within15))
}

// witnessWarn is the median witness ratio (or its inverse) beyond which
// the report warns that the host and its table disagree.
const witnessWarn = 1.2

// writeDrift says how the witnesses measured after the suite compare
// with their measurement during it.
func (r *Report) writeDrift(w io.Writer) {
	if len(r.Drift) == 0 {
		return
	}
	fmt.Fprintf(w, "\nhost drift (the same cases measured again after the suite):\n")
	for _, d := range r.Drift {
		verdict := "within the spreads of the two measurements"
		if d.Moved {
			verdict = "beyond their spreads: the host's speed moved while the suite ran, and the errors include it"
		}
		fmt.Fprintf(w, "  %s (%d rank%s): %s, then %s (%+.1f%%), %s\n", d.Case, d.Ranks, plural(d.Ranks),
			units.Time(d.First), units.Time(d.Again), d.Change*100, verdict)
	}
}

// plural is "s" unless n is 1.
func plural(n int64) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// value is *x, or 0 for none.
func value(x *float64) float64 {
	if x == nil || math.IsNaN(*x) {
		return 0
	}
	return *x
}

// percent writes a fraction as a percentage ("-" for none); signed
// writes the sign.
func percent(x *float64, signed bool) string {
	if x == nil || math.IsNaN(*x) {
		return "-"
	}
	if signed {
		return fmt.Sprintf("%+.1f%%", *x*100)
	}
	return fmt.Sprintf("%.1f%%", *x*100)
}

// share writes a share of cases as a percentage.
func share(x *float64) string {
	if x == nil {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", *x*100)
}

// noisyMark marks a noisy comparison.
func noisyMark(noisy bool) string {
	if noisy {
		return " noisy"
	}
	return ""
}

// skipWhere says which size and rank count a skip is about.
func skipWhere(s Skip) string {
	var parts []string
	if s.Level != "" {
		parts = append(parts, s.Level)
	}
	if s.Ranks > 0 {
		parts = append(parts, fmt.Sprintf("P=%d", s.Ranks))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// firstLine is the first line of a message (a build error's compiler
// output follows it).
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
