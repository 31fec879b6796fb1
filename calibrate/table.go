package calibrate

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"

	"perfc/analyze/cache"
	"perfc/calibrate/fit"
	"perfc/calibrate/host"
	"perfc/internal/units"
)

// The machine table a calibration writes (docs/calibrate.md, the keys in
// docs/machines.md): every number with a source naming its benchmark, its
// sizes, the date and the fit's quality. The structs keep the documented
// key order (go.yaml.in/yaml/v4 writes fields in order).

type tableYAML struct {
	Name        string      `yaml:"name"`
	Description string      `yaml:"description"`
	Source      string      `yaml:"source"`
	Cores       int         `yaml:"cores"`                 // the cores goroutine ranks share
	CoreSwitch  *numberYAML `yaml:"core_switch,omitempty"` // MPI on one host: a message between ranks sharing cores
	Host        hostYAML    `yaml:"host"`
	Compute     computeYAML `yaml:"compute"`
	Memory      memoryYAML  `yaml:"memory"`
	Messages    any         `yaml:"messages,omitempty"`
	Collectives any         `yaml:"collectives,omitempty"`
	Ranks       int         `yaml:"ranks,omitempty"`
	Results     []any       `yaml:"results,omitempty"`
}

type hostYAML struct {
	CPU     string `yaml:"cpu"`
	Cores   int    `yaml:"cores"`
	Caches  string `yaml:"caches"`
	Go      string `yaml:"go"`
	GOAMD64 string `yaml:"goamd64,omitempty"`
	Date    string `yaml:"date"`
	// Backend, MPI and Launcher say what carried the messages of a table
	// calibrated with --mpi: "mpi", the library ("Open MPI 4.1.4") and
	// the command line that started the largest run's ranks. A goroutine
	// calibration leaves them out (its messages are memory copies inside
	// one process).
	Backend  string `yaml:"backend,omitempty"`
	MPI      string `yaml:"mpi,omitempty"`
	Launcher string `yaml:"launcher,omitempty"`
}

type computeYAML struct {
	Source  string      `yaml:"source"`
	Loop    loopYAML    `yaml:"loop,flow"`
	Access  accessYAML  `yaml:"access,flow"`
	Clock   *clockYAML  `yaml:"clock,omitempty,flow"`
	Ops     opTableYAML `yaml:"ops"`
	Latency opTableYAML `yaml:"latency"`
	Core    *coreYAML   `yaml:"core,omitempty"`
}

type loopYAML struct {
	Iteration string `yaml:"iteration"`
	Entry     string `yaml:"entry"`
	Source    string `yaml:"source"`
}

type accessYAML struct {
	Load   string `yaml:"load"`
	Store  string `yaml:"store"`
	Source string `yaml:"source"`
}

type opTableYAML struct {
	Source  string        `yaml:"source"`
	Window  *numberYAML   `yaml:"window,omitempty,flow"` // latency only: the reorder window
	Entries []opEntryYAML `yaml:"entries"`
}

type opEntryYAML struct {
	Op     string `yaml:"op"`
	F64    string `yaml:"f64,omitempty"`
	F32    string `yaml:"f32,omitempty"`
	I64    string `yaml:"i64,omitempty"`
	I32    string `yaml:"i32,omitempty"`
	Source string `yaml:"source"`
}

type memoryYAML struct {
	Source        string      `yaml:"source"`
	Compose       string      `yaml:"compose"`
	Caches        []cacheYAML `yaml:"caches"`
	MainBandwidth *numberYAML `yaml:"main_bandwidth,omitempty"`
	WriteAllocate *bool       `yaml:"write_allocate,omitempty"`
	// Shared is the slowdown of a rank's stream from memory when every
	// core streams at once (the SHARED benchmark).
	Shared *sharedYAML `yaml:"shared,omitempty"`
}

type cacheYAML struct {
	Name      string `yaml:"name"`
	Size      string `yaml:"size"`
	Line      string `yaml:"line"`
	Assoc     any    `yaml:"assoc"` // ways, or "full"
	Bandwidth string `yaml:"bandwidth,omitempty"`
	Source    string `yaml:"source,omitempty"` // the memory section's when empty
}

type numberYAML struct {
	Value  string `yaml:"value"`
	Source string `yaml:"source"`
}

type resultYAML struct {
	Name   string `yaml:"name"`
	Value  string `yaml:"value"`
	Source string `yaml:"source"`
}

// Table writes the calibration as a machine table (YAML) that
// machines.Load reads and perfc predict -m uses.
func (r *Result) Table() ([]byte, error) {
	if r.Core == nil || r.Memory == nil {
		return nil, errors.New("calibrate: this calibration measured the communication benchmarks alone; write them into a table of this host with MergeInto (perfc calibrate --comms-into)")
	}
	t := tableYAML{
		Name:        "host",
		Description: "calibrated by perfc calibrate on " + r.Host.Describe(),
		Source:      fmt.Sprintf("perfc calibrate %s (%s mode), %s, host %s, took %s%s", host.Version(), r.Mode, r.Date, r.Host.Describe(), r.Elapsed.Round(1e9), settleNote(r.Settle)+coreAgainNote(r.CoreAgain)),
		Cores:       r.Host.Cores,
		Host: hostYAML{CPU: r.Host.CPU, Cores: r.Host.Cores, Caches: r.Host.CachesString(), Go: r.Host.Go,
			GOAMD64: r.Host.GOAMD64, Date: r.Date},
		Compute: r.computeSection(),
		Memory:  r.memorySection(),
	}
	t.Results = r.results()
	header := "# Machine table of this host, written by perfc calibrate (docs/calibrate.md).\n"
	if r.Comms != nil {
		c, err := r.commsSections()
		if err != nil {
			return nil, err
		}
		t.Messages, t.Collectives, t.Ranks = c.messages, c.collectives, c.ranks
		t.Results = append(t.Results, c.results...)
		if tr := r.Comms.Transport(); tr.MPI() {
			t.Name = "host-mpi"
			t.Description = strings.Replace(t.Description, "perfc calibrate", tr.Command(), 1) + "; messages and collectives " + tr.Describe(0)
			t.Source = strings.Replace(t.Source, "perfc calibrate", tr.Command(), 1)
			t.Host.Backend, t.Host.MPI, t.Host.Launcher = tr.Backend, tr.Library, tr.Launcher(0)
			if cs, src, ok := r.Comms.CoreSwitch(); ok {
				t.CoreSwitch = &numberYAML{Value: ns(cs), Source: src}
			}
			header = "# Machine table of this host with MPI's messages, written by perfc calibrate --mpi (docs/calibrate.md, docs/mpi.md).\n"
		}
	}
	return encodeTable(header, t)
}

// encodeTable writes a table, v, after its header comment and the line
// that says how to use it, indented by two as docs/machines.md shows.
func encodeTable(header string, v any) ([]byte, error) {
	var b strings.Builder
	b.WriteString(header)
	b.WriteString("# Use it with: perfc predict -m FILE KERNEL, perfc check -m FILE KERNEL.\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

// commsTable is what the communication benchmarks write into a table.
type commsTable struct {
	messages, collectives any
	ranks                 int
	results               []any
}

// commsSections are the sections of the communication benchmarks: the
// messages (with the NOISE benchmark's noise), the collectives, the ranks
// of the message law and their results.
func (r *Result) commsSections() (commsTable, error) {
	c := commsTable{messages: r.Comms.Messages(), collectives: r.Comms.Collectives(), ranks: r.Comms.Ranks(),
		results: anySlice(r.Comms.Results())}
	if r.Noise != nil {
		var err error
		if c.messages, err = withNoise(c.messages, r.Noise.section(r.Date)); err != nil {
			return commsTable{}, err
		}
	}
	return c, nil
}

// anySlice turns a slice held in an any into its elements.
func anySlice(v any) []any {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice {
		return nil
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = rv.Index(i).Interface()
	}
	return out
}

// sig4 writes v in a machine table's number syntax (units.TableNumber).
func sig4(v float64) string { return units.TableNumber(v) }

// ns writes seconds in nanoseconds.
func ns(s float64) string { return sig4(s*1e9) + "ns" }

// gbs writes bytes per second in GB/s (decimal, as the tables' bandwidths).
func gbs(bps float64) string { return sig4(bps/1e9) + "GB/s" }

// pct writes a share as a percentage.
func pct(v float64) string { return strconv.FormatFloat(v*100, 'f', 1, 64) + "%" }

// lengths writes a list of loop lengths as "1..512 (10 lengths)".
func lengths(ls []int64) string {
	if len(ls) == 0 {
		return "none"
	}
	return fmt.Sprintf("n=%d..%d (%d lengths)", ls[0], ls[len(ls)-1], len(ls))
}

// computeSection writes compute: loop, access, ops and latency, from the
// throughput and latency fits.
func (r *Result) computeSection() computeYAML {
	cf := r.Core
	tp := cf.throughput
	coef := func(name string) float64 { v, _ := tp.Coefficient(name); return v }
	fitSrc := fmt.Sprintf("NNLS of %d region times on the analyzer's counts, inner loops of %d elements in L1, %s, fit rms %s",
		len(cf.tp), r.sz.inner, r.Date, pct(tp.RelRMS))
	c := computeYAML{
		Source: fmt.Sprintf("perfc calibrate in-core benchmarks, %s", r.Date),
		Loop: loopYAML{Iteration: ns(coef(featIteration)), Entry: ns(coef(featEntry)),
			Source: fmt.Sprintf("perfc calibrate empty loops %s, RINF1 and every in-core region, %s", lengths(r.sz.loopLens), fitSrc)},
		Access: accessYAML{Load: ns(coef(featLoad)), Store: ns(coef(featStore)),
			Source: fmt.Sprintf("perfc calibrate copy, copy2, store, gather3, gather5 and every in-core region, %s", fitSrc)},
	}
	c.Clock = r.clockSection()
	c.Ops = opTable(tp, cf.tp, groupOps, r.sz, r.Date, fmt.Sprintf("perfc calibrate independent operations (y[i] = x[i] OP z[i], one and two statements per iteration), cost beyond the loop and the accesses, %s", fitSrc))
	c.Latency = opTable(cf.latency, cf.lat, groupLatency, r.sz, r.Date, fmt.Sprintf("perfc calibrate chains through a var (s = s OP x[i]), NNLS of %d region times on the chains' operations, %d iterations each, %s, fit rms %s",
		len(cf.lat), r.sz.work, r.Date, pct(cf.latency.RelRMS)))
	if w := cf.window; w != nil {
		c.Latency.Window = &numberYAML{Value: ns(w.window), Source: fmt.Sprintf(
			"perfc calibrate window (POLY1: Horner's chain of k multiply-adds restarted at each of %d elements), k = %s, "+
				"law max(T_e, L_e/(1 + W/T_e)) per element on the fitted throughput and latency costs, latency shown at %d of %d k, %s, fit rms %s",
			r.sz.inner, joinInts(w.ks), w.shown, len(w.ks), r.Date, pct(w.rms))}
		if w.shown == 0 {
			c.Latency.Window.Source += "; no k showed its latency, so the window is only a lower bound (the least that hides every chain measured)"
		}
	}
	c.Core = r.coreSection()
	return c
}

// joinInts writes numbers separated by commas.
func joinInts(v []int64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(s, ",")
}

// opTable writes one entry per operation with a positive fitted cost per
// type; the entry's source gives the rms of its own benchmarks. Costs the
// fit puts at 0 (the operation hides behind the loop and the accesses)
// are left out: a table's operation costs must be positive, and an
// operation without a cost is priced at 0 with a note (docs/calibrate.md).
func opTable(l *fit.Linear, pts []point, group string, sz sizes, date, src string) opTableYAML {
	out := opTableYAML{Source: src}
	for _, op := range sz.ops {
		e := opEntryYAML{Op: op}
		var zero []string
		for _, t := range sz.elems {
			v, ok := l.Coefficient(opFeature(op, t))
			if !ok || !allowed(op, t) {
				continue
			}
			if v <= 0 {
				zero = append(zero, t)
				continue
			}
			s := ns(v)
			switch t {
			case "f64":
				e.F64 = s
			case "f32":
				e.F32 = s
			case "i64":
				e.I64 = s
			case "i32":
				e.I32 = s
			}
		}
		mine := func(p point) bool { return p.group == group && p.op == op }
		n := 0
		for _, p := range pts {
			if mine(p) {
				n++
			}
		}
		e.Source = fmt.Sprintf("perfc calibrate %s %s, %d regions of %d iterations over %d-element arrays in L1, %s, rms %s over them (whole fit %s)",
			group, op, n, sz.work, sz.inner, date, pct(rmsOf(l, pts, mine)), pct(l.RelRMS))
		if len(zero) > 0 {
			e.Source += fmt.Sprintf("; %s fitted at 0 (hidden by the loop and accesses), left out", strings.Join(zero, " "))
		}
		if e.F64 == "" && e.F32 == "" && e.I64 == "" && e.I32 == "" {
			continue
		}
		out.Entries = append(out.Entries, e)
	}
	return out
}

// tableCaches is the hierarchy the table gives: the measured one, or
// sysfs's when no sweep measured it.
func (r *Result) tableCaches() cache.Hierarchy {
	if r.Caches != nil {
		return r.Caches
	}
	return r.Host.Caches
}

// memorySection writes memory: the caches from sysfs with their fitted
// delivery rates, main_bandwidth and write_allocate.
func (r *Result) memorySection() memoryYAML {
	mf := r.Memory
	caches := r.tableCaches()
	m := memoryYAML{
		Source:  fmt.Sprintf("perfc calibrate working-set sweep (load, store, read-modify-write and one load per line over 4KiB..%s), %s", host.Bytes(r.sz.memMax), r.Date),
		Compose: "ecm",
	}
	byLevel := map[string]levelFit{}
	for _, l := range mf.levels {
		byLevel[l.level] = l
	}
	for i, c := range caches {
		var assoc any = c.Assoc
		if c.Assoc == 0 {
			assoc = "full"
		}
		cy := cacheYAML{Name: c.Name, Size: host.Bytes(int64(c.Size)), Line: fmt.Sprintf("%dB", c.Line), Assoc: assoc, Source: c.Source}
		if _, ok := byLevel[c.Name]; !ok && i > 0 {
			if d, ok := deeperFit(caches, byLevel, i); ok {
				cy.Bandwidth = gbs(d.bw)
				cy.Source = fmt.Sprintf("[derived] no working set of the sweep lay between %s and %s: taken as %s's rate (%s)",
					caches[i-1].Name, c.Name, d.level, levelSource(d, caches, r.Date))
			}
		}
		if lf, ok := byLevel[c.Name]; ok && i > 0 {
			cy.Bandwidth = gbs(lf.bw)
			cy.Source = levelSource(lf, caches, r.Date)
			if c.Source != "" {
				cy.Source += "; geometry: " + c.Source
			}
		}
		m.Caches = append(m.Caches, cy)
	}
	if lf, ok := byLevel["main"]; ok {
		m.MainBandwidth = &numberYAML{Value: gbs(lf.bw), Source: levelSource(lf, caches, r.Date)}
	}
	if mf.writeAllocate != nil {
		wa := *mf.writeAllocate >= 0.5
		m.WriteAllocate = &wa
	}
	m.Shared = r.MemShared.section(r.Date)
	return m
}

// deeperFit is the fit of the first level after level i that has one
// (main memory last): an ecm table needs a rate for every level, and a
// deeper level's rate bounds an unmeasured one from below.
func deeperFit(h cache.Hierarchy, byLevel map[string]levelFit, i int) (levelFit, bool) {
	for j := i + 1; j < len(h); j++ {
		if lf, ok := byLevel[h[j].Name]; ok {
			return lf, true
		}
	}
	lf, ok := byLevel["main"]
	return lf, ok
}

// levelSource says how a level's rate was fitted.
func levelSource(lf levelFit, h cache.Hierarchy, date string) string {
	above := h[len(h)-1].Name // main memory delivers to the last level
	for i := 1; i < len(h); i++ {
		if h[i].Name == lf.level {
			above = h[i-1].Name
		}
	}
	var kinds []string
	for _, k := range streamKinds() {
		if v, ok := lf.all[k]; ok {
			kinds = append(kinds, fmt.Sprintf("%s %s", k, gbs(v.bw)))
		}
	}
	distinct := slices.Compact(slices.Sorted(slices.Values(lf.sizes)))
	where := ""
	if lf.relaxed {
		where = ", no working set on the level's plateau (2× the level above to half the level): the sizes between the two levels instead"
	}
	return fmt.Sprintf("perfc calibrate working-set sweep, %s stream at %s..%s (%s%s), bytes of the lines brought into %s per second (%s), %s, fit rms %s",
		lf.kind, host.Bytes(distinct[0]), host.Bytes(distinct[len(distinct)-1]), plural(len(distinct), "size"), where, above, strings.Join(kinds, ", "), date, pct(lf.rms))
}

// results writes the measurements kept for reference: TICK1, TICK2,
// RINF1's r∞ and n½, the levels' knees, write-allocate, the IMH strides.
func (r *Result) results() []any {
	cf, mf := r.Core, r.Memory
	var out []any
	add := func(name, value, src string) { out = append(out, resultYAML{Name: name, Value: value, Source: src}) }
	add("TICK1 timer resolution", ns(cf.tick1), fmt.Sprintf("perfc calibrate TICK1 (the generated program's runtime), %s", r.Date))
	add("TICK2 clock-read overhead", ns(cf.tick2), fmt.Sprintf("perfc calibrate TICK2, an empty region entered %d times, %s", r.sz.tick2Reps, r.Date))
	for _, x := range []struct {
		name string
		f    *fit.Rinf
		lens []int64
	}{{"RINF1 A=B*C f64", cf.rinf1, rinfLens(r.sz)}, {"empty loop", cf.loopRinf, r.sz.loopLens}} {
		src := fmt.Sprintf("perfc calibrate %s, time per loop entry against %s, t = (n + n½)/r∞, %s, fit rms %s", x.name, lengths(x.lens), r.Date, pct(x.f.Line.RelRMS))
		if x.f == cf.rinf1 {
			add(x.name+" r_inf", sig4(x.f.Rinf/1e6)+"Mflop/s", src)
		} else {
			add(x.name+" time per iteration (1/r_inf)", ns(1/x.f.Rinf), src)
		}
		add(x.name+" n_1/2", sig4(x.f.NHalf), src)
	}
	for _, f := range cf.forms {
		add("in-core composition "+f.form.name+": relative rms on held-out regions", strconv.FormatFloat(f.heldRMS, 'f', 3, 64), fmt.Sprintf(
			"perfc calibrate in-core benchmarks, fitted on %d regions (loop sweep, one statement per iteration, copy, store; rms %s there), "+
				"measured on %d held out (RINF1, two statements per iteration, two copies); worst %+.1f%% (%s), %s; the pricing adds (docs/predict.md)",
			f.trainN, pct(f.trainRMS), f.heldN, 100*f.heldWorst, f.heldWorstName, r.Date))
	}
	r.coreResults(add)
	if w := cf.window; w != nil {
		for i, p := range w.pts {
			per := float64(p.reps) * float64(p.n)
			add(fmt.Sprintf("window k=%d: time per element (Horner chain of %d multiply-adds, restarted)", p.k, p.k), ns(p.seconds/per),
				fmt.Sprintf("perfc calibrate window, %s; the law with the fitted window gives %s (%+.1f%%)", r.Date, ns(w.fitted[i]/per), 100*(w.fitted[i]-p.seconds)/p.seconds))
		}
	}
	for _, k := range mf.knees {
		verdict := "confirmed"
		if !k.confirmed {
			verdict = fmt.Sprintf("not seen (below %s): the scalar stream is core-bound on both sides", sig4(kneeRatio))
		}
		add(fmt.Sprintf("knee at %s %s (load stream time per element, 2-4x over 1/4-1/2x the size)", k.level, host.Bytes(k.size)), sig4(k.ratio),
			fmt.Sprintf("perfc calibrate working-set sweep, %s; sysfs level %s", r.Date, verdict))
	}
	for _, s := range mf.extraKnees {
		add(fmt.Sprintf("knee at %s not at a sysfs level", host.Bytes(s)), "1", fmt.Sprintf("perfc calibrate working-set sweep, %s: the curve jumps where sysfs lists no cache", r.Date))
	}
	if wa := mf.writeAllocate; wa != nil {
		add("store-only stream: share of lines read before written (write-allocate 1, none 0)", sig4(*wa),
			fmt.Sprintf("perfc calibrate working-set sweep out of cache: (store − (rmw − load))/load per element, %s", r.Date))
	}
	for _, l := range mf.levels {
		for _, k := range streamKinds() {
			if v, ok := l.all[k]; ok && k != l.kind {
				add(fmt.Sprintf("%s delivery rate, %s stream", l.level, k), gbs(v.bw),
					fmt.Sprintf("perfc calibrate working-set sweep, %s stream on %s's plateau (%s), %s, fit rms %s", k, l.level, plural(v.sizes, "size"), r.Date, pct(v.rms)))
			}
		}
	}
	for _, s := range mf.strides {
		src := fmt.Sprintf("perfc calibrate IMH strided read over %s (4 independent sums), %s", host.Bytes(r.sz.memMax), r.Date)
		add(fmt.Sprintf("IMH stride %dB: time per access", s.strideBytes), ns(s.perAccess), src)
		if s.perLine > 0 {
			add(fmt.Sprintf("IMH stride %dB: time per line counted into L1", s.strideBytes), ns(s.perLine), src)
		}
	}
	return out
}

// plural writes a count and its noun: "1 size", "3 sizes".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// rinfLens is the RINF1 loop lengths (those that fit the inner arrays).
func rinfLens(sz sizes) []int64 {
	var out []int64
	for _, l := range sz.loopLens {
		if l <= sz.inner {
			out = append(out, l)
		}
	}
	return out
}

// coreAgainNote is the table source's account of the in-core guard: "; the
// in-core benchmarks ran twice …", or "" when they ran once.
func coreAgainNote(c *coreAgain) string {
	if c == nil {
		return ""
	}
	return "; " + c.String()
}

// settleNote is the table source's account of settling: "; settled …",
// or "" when the calibration did not settle (the tests' tiny mode).
func settleNote(r settleRecord) string {
	if s := r.String(); s != "" {
		return "; " + s
	}
	return ""
}
