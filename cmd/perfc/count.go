package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"perfc/analyze"
	"perfc/analyze/cache"
	"perfc/internal/units"
	"perfc/lang"
)

// countCmd is `perfc count`: exact counts per rank class and region.
type countCmd struct {
	kernelArgs
	budgetArgs
	outputArg
	scheduleArgs
	Rank     int64  `default:"-1" help:"Count only this rank (default: every rank, grouped into classes of alike ranks)."`
	Cache    string `help:"Cache hierarchy, e.g. L1=48KiB/64B/12,L2=1280KiB/64B/20 (default: this machine's, from /sys)." placeholder:"SPEC"`
	Symbolic bool   `help:"Show the closed-form formula of every count."`
	simulateArgs
}

// Run analyses the kernel and prints the report.
func (c *countCmd) Run(e env) error {
	k, err := loadKernel(e, c.kernelArgs)
	if err != nil {
		return err
	}
	h, err := c.hierarchy(c.Cache)
	if err != nil {
		return err
	}
	opts := c.options()
	opts.Cache = h
	if c.Rank >= 0 {
		opts.OnlyRank = &c.Rank
	}
	rep, err := analyze.Analyze(k, opts)
	if err != nil {
		return positioned(e, err, k.File.Source)
	}
	if err := c.simulate(e, k, h, rep); err != nil {
		return positioned(e, err, k.File.Source)
	}
	if err := c.steady(k, opts, rep); err != nil {
		return positioned(e, err, k.File.Source)
	}
	if c.Output == "json" {
		if err := checkCountsForJSON(rep); err != nil {
			return err
		}
		if err := writeJSON(e.stdout, rep); err != nil {
			return err
		}
	} else {
		printCounts(e.stdout, rep, c.Symbolic)
		printSteady(e.stdout, rep)
		printSimulation(e.stdout, rep)
	}
	if err := c.checkSchedule(k, e.stderr); err != nil {
		return positioned(e, err, k.File.Source) // the deadlock predict and emulate report
	}
	return nil
}

// cacheHierarchy parses --cache, or reads this machine's hierarchy.
func cacheHierarchy(spec string) (cache.Hierarchy, error) {
	if spec == "" {
		return cache.HostHierarchy()
	}
	h, err := cache.ParseHierarchy(spec)
	var se *cache.SpecError
	if errors.As(err, &se) {
		// The checker's diagnostic, so that the spec prints with a caret.
		list := lang.ErrorList{{Pos: lang.Position{Filename: "--cache", Line: 1, Col: se.Col}, Msg: se.Msg + "; accepted form: " + cache.SpecForm}}
		return nil, &lang.SourceError{List: list, Source: lang.NewSource("--cache", []byte(spec))}
	}
	if err != nil {
		return nil, fmt.Errorf("--cache: %w", err)
	}
	for i := range h {
		h[i].Source = "--cache"
	}
	return h, nil
}

// printCounts prints a report for people.
func printCounts(w io.Writer, rep *analyze.Report, symbolic bool) {
	fmt.Fprintf(w, "counts (exact, not a measurement) for kernel %s in %s\n", rep.Kernel, rep.File)
	var params []string
	for _, p := range rep.Params {
		params = append(params, p.Name+" = "+p.Value)
	}
	fmt.Fprintf(w, "parameters: %s; %s", strings.Join(params, ", "), plural(rep.Ranks, "rank"))
	if len(rep.Grid) == 2 {
		fmt.Fprintf(w, " on a %d x %d grid", rep.Grid[0], rep.Grid[1])
	}
	fmt.Fprintf(w, "; cache %s\n", rep.Cache)
	for _, cl := range rep.Classes {
		if n := cl.Ranks.Len(); n == 1 {
			fmt.Fprintf(w, "\nrank %s\n", cl.Ranks)
		} else {
			fmt.Fprintf(w, "\nranks %s (%d ranks alike; shown for rank %d)\n", cl.Ranks, n, cl.Rank)
		}
		printRegionTable(w, cl)
		printOps(w, cl.Total, symbolic)
		printRefs(w, cl, symbolic)
		printComm(w, cl, symbolic)
		printRequests(w, cl)
		printCache(w, cl, symbolic)
	}
	printFootprint(w, rep.Footprint)
	for _, c := range rep.Conflicts {
		fmt.Fprintf(w, "warning: %s\n", c.Message)
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

// num prints a count compactly: exact integers in full with grouped digits
// below 10^18, larger ones and fractions with 7 significant digits
// (units.ExactCount; docs/counts.md).
func num(c analyze.Count) string { return units.ExactCount(c.Value) }

// formula prints a count with its closed form.
func formula(c analyze.Count, symbolic bool) string {
	s := num(c)
	if symbolic && c.Symbolic {
		f := c.Formula.String()
		if f != "" && f != c.Exact() {
			s += "  = " + f
		}
	}
	return s
}

// printRegionTable prints one row per region and the total.
func printRegionTable(w io.Writer, cl *analyze.Class) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "region\titerations\tflop\tint ops\tloads\tstores\tbytes moved\tmessages\tmsg bytes\tcollectives\tbarriers\t")
	row := func(name string, c analyze.Counts) {
		var msgs, msgBytes, cols analyze.Count
		for _, m := range c.Messages {
			if m.Kind == "send" || m.Kind == "isend" {
				msgs = addCounts(msgs, m.Count)
				msgBytes = addCounts(msgBytes, m.Bytes)
			}
		}
		for _, col := range c.Collectives {
			cols = addCounts(cols, col.Count)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", name, num(c.Iterations), num(c.Flop), num(c.IntOps),
			num(c.Loads), num(c.Stores), num(addCounts(c.LoadBytes, c.StoreBytes)), num(msgs), num(msgBytes), num(cols), num(c.Barriers))
	}
	for _, r := range cl.Regions {
		row(lang.Printable(r.Name), r.Counts)
	}
	row("total", cl.Total)
	tw.Flush()
}

// addCounts adds two counts that may be unset.
func addCounts(a, b analyze.Count) analyze.Count { return analyze.Sum(a, b) }

// printOps prints the operation counts of a class.
func printOps(w io.Writer, c analyze.Counts, symbolic bool) {
	if len(c.Ops) == 0 {
		return
	}
	fmt.Fprintln(w, "operations (total):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, o := range c.Ops {
		fmt.Fprintf(tw, "  %s %s\t%s\t%s\n", o.Op, o.Type, o.Pattern, formula(o.Count, symbolic))
	}
	if !c.MaddPairs.IsZero() {
		fmt.Fprintf(tw, "  multiply-add pairs\t%s\n", formula(c.MaddPairs, symbolic))
	}
	fmt.Fprintf(tw, "  nominal flop (PARKBENCH)\t%s\n", formula(c.Flop, symbolic))
	tw.Flush()
}

// printRefs prints every array reference of a class.
func printRefs(w io.Writer, cl *analyze.Class, symbolic bool) {
	if len(cl.Total.Refs) == 0 {
		return
	}
	fmt.Fprintln(w, "array references:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, r := range cl.Total.Refs {
		kind := "load"
		if r.Store {
			kind = "store"
		}
		var strides []string
		for _, s := range r.Strides {
			b := s.Bytes.String()
			if b == "" {
				b = "0"
			}
			strides = append(strides, s.Loop+":"+b+" B")
		}
		extra := ""
		if r.Hoisted != "" {
			extra = " (invariant in " + r.Hoisted + ": kept in a register there)"
		}
		fmt.Fprintf(tw, "  %s %s\t%s\t%s\tstride %s\t%s%s\n", kind, r.Text, r.Pos, formula(r.Count, symbolic),
			strings.Join(strides, ", "), r.Pattern, extra)
	}
	tw.Flush()
}

// printComm prints the messages and collectives of a class.
func printComm(w io.Writer, cl *analyze.Class, symbolic bool) {
	c := cl.Total
	if len(c.Messages) == 0 && len(c.Collectives) == 0 {
		return
	}
	fmt.Fprintln(w, "communication:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, m := range c.Messages {
		peer := m.Peer
		if m.Rank >= 0 {
			peer += fmt.Sprintf(" (rank %d)", m.Rank)
		} else {
			peer += " (varies)"
		}
		fmt.Fprintf(tw, "  %s %s\t%s\t%s messages\t%s B\n", m.Kind, peer, m.Stmt, formula(m.Count, symbolic), formula(m.Bytes, symbolic))
	}
	for _, col := range c.Collectives {
		desc := col.Kind
		if col.Op != "" {
			desc += " " + col.Op
		}
		if col.Elem != "" {
			desc += " " + col.Elem
		}
		if col.Root != "" {
			desc += " root " + col.Root
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s calls\t%s B\t%d ranks\n", desc, col.Stmt, formula(col.Count, symbolic), formula(col.Bytes, symbolic), col.Participants)
	}
	tw.Flush()
}

// printCache prints the lines each cache level brings in and writes back,
// per region that touches memory and in total, then the layer conditions
// that decided them (docs/counts.md, "Cache lines").
func printCache(w io.Writer, cl *analyze.Class, symbolic bool) {
	if len(cl.Total.Cache) == 0 {
		return
	}
	fmt.Fprintln(w, "cache lines (analytic model, not a measurement):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  region\tlevel\tlines in\tlines written back")
	row := func(name string, levels []analyze.CacheLines) {
		for i, l := range levels {
			if i > 0 {
				name = ""
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", name, l.Level, formula(l.Lines, symbolic), formula(l.WriteBacks, symbolic))
		}
	}
	shown := 0
	for _, r := range cl.Regions {
		if touchesCache(r.Counts.Cache) {
			row(lang.Printable(r.Name), r.Counts.Cache)
			shown++
		}
	}
	if shown != 1 {
		row("total", cl.Total.Cache)
	}
	tw.Flush()
	if anyConditions(cl.Total.Cache) {
		fmt.Fprintln(w, "layer conditions:")
	}
	for _, l := range cl.Total.Cache {
		for _, c := range l.Conditions {
			fmt.Fprintf(w, "  %s\n", c)
		}
	}
}

// anyConditions reports whether any level states a layer condition.
func anyConditions(levels []analyze.CacheLines) bool {
	for _, l := range levels {
		if len(l.Conditions) > 0 {
			return true
		}
	}
	return false
}

// touchesCache reports whether any level brings in or writes back a line.
func touchesCache(levels []analyze.CacheLines) bool {
	for _, l := range levels {
		if !l.Lines.IsZero() || !l.WriteBacks.IsZero() {
			return true
		}
	}
	return false
}

// printFootprint prints the memory a rank needs.
func printFootprint(w io.Writer, f analyze.Footprint) {
	fmt.Fprintf(w, "\nfootprint per rank: %s, fits in %s\n", formatBytes(f.Bytes), f.Fits)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, a := range f.Arrays {
		dims := ""
		for _, d := range a.Dims {
			dims += fmt.Sprintf("[%d]", d)
		}
		fmt.Fprintf(tw, "  %s%s %s\t%s\tfits in %s\n", a.Name, dims, a.Elem, formatBytes(a.Bytes), a.Fits)
	}
	tw.Flush()
}
