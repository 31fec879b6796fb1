package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"perfc/costmodel"
	"perfc/internal/units"
	"perfc/lang"
)

// sweepCmd is `perfc sweep FILE -D N=64,128,256,512`: a prediction per
// point of the cartesian product of the listed values, each row printed as
// soon as it is predicted.
type sweepCmd struct {
	kernelArgs
	budgetArgs
	machineArgs
	Output      string `short:"o" enum:"table,json,csv" default:"table" help:"Output format: table, json or csv."`
	MaxPoints   int64  `default:"10000" placeholder:"N" help:"Refuse a sweep of more points than this (the product of the lengths of the -D lists)."`
	PaperRules  bool   `help:"Price the way the source paper did (docs/predict.md)."`
	VectorUnits bool   `help:"Price vector-form loops on the machine's vector units."`
	Warm        bool   `help:"Warm caches: a level that holds a rank's working set brings no lines in (docs/predict.md)."`
	NoEmulation bool   `help:"Sum per-rank costs instead of emulating kernels whose ranks wait on each other."`
}

// SweepSchema names the JSON schema of `perfc sweep -o json` (docs/predict.md).
const SweepSchema = "perfc.sweep/v1"

// sweepRow is one point of a sweep: its prediction, or why it has none.
type sweepRow struct {
	Params      map[string]string `json:"params"`
	Total       float64           `json:"total"`
	Compute     float64           `json:"compute"`
	Memory      float64           `json:"memory"`
	Messages    float64           `json:"messages"`
	Collectives float64           `json:"collectives"`
	RB          float64           `json:"rb_mflops"`
	Bottleneck  string            `json:"bottleneck"`
	Error       string            `json:"error,omitempty"`
}

// MarshalJSON leaves the prediction's fields out of a point that failed, so
// that no zero reads as a predicted time.
func (r sweepRow) MarshalJSON() ([]byte, error) {
	type row sweepRow // without this method
	if r.Error != "" {
		return json.Marshal(struct {
			Params map[string]string `json:"params"`
			Error  string            `json:"error"`
		}{r.Params, r.Error})
	}
	return json.Marshal(row(r))
}

// Run predicts every point, printing each row as it comes, and goes on past
// a point that fails; the exit status is 1 if any failed.
func (c *sweepCmd) Run(e env) error {
	space, err := parseSweep(c.Define, c.MaxPoints)
	if err != nil {
		return err
	}
	f, err := parseFile(e, c.File)
	if err != nil {
		return err
	}
	m, err := c.machineArgs.load() // a bad table fails once, not at every point
	if err != nil {
		return err
	}
	var out sweepWriter
	switch c.Output {
	case "json":
		out = &sweepJSON{w: e.stdout, machine: m.Name()}
	case "csv":
		out = &sweepCSV{w: csv.NewWriter(e.stdout), names: space.names}
	default:
		out = newSweepTable(e.stdout, c.Machine, space)
	}
	if err := out.header(); err != nil {
		return err
	}
	bar := rowProgress(e, "sweep", space.points)
	defer bar.Finish()
	failed := 0
	err = space.each(func(values []string) error {
		defer bar.Add(1)
		row := c.predictPoint(e, f, space.names, values)
		if row.Error != "" {
			failed++
		}
		return out.row(row)
	})
	if err == nil {
		err = out.end()
	}
	if err != nil {
		return err
	}
	bar.Finish()
	if failed > 0 {
		fmt.Fprintf(e.stderr, "perfc: %d of %d points failed\n", failed, space.points)
		return exitError{1}
	}
	return nil
}

// predictPoint predicts one point. A point that does not check or price
// gets its error in the row and in full, with the source line, on standard
// error.
func (c *sweepCmd) predictPoint(e env, f *lang.File, names, values []string) sweepRow {
	row := sweepRow{Params: map[string]string{}}
	var ovs []lang.Override
	var point []string
	for i, n := range names {
		row.Params[n] = values[i]
		ovs = append(ovs, lang.Override{Name: n, Value: values[i]})
		point = append(point, n+"="+values[i])
	}
	var report bytes.Buffer
	fail := func(err error) sweepRow {
		if report.Len() == 0 && err != nil {
			report.WriteString(err.Error() + "\n")
		}
		fmt.Fprintf(e.stderr, "point %s:\n%s", strings.Join(point, ", "), report.String())
		row.Error, _, _ = strings.Cut(report.String(), "\n")
		return row
	}
	k, err := lang.Check(f, c.Kernel, ovs)
	if err != nil {
		reportErrors(env{stderr: &report}, err, f.Source)
		return fail(nil)
	}
	pred, err := predict(env{stdout: io.Discard, stderr: &report}, k, c.budgetArgs, c.machineArgs,
		costmodel.Options{PaperRules: c.PaperRules, VectorUnits: c.VectorUnits, NoEmulation: c.NoEmulation, Warm: c.Warm})
	if err != nil {
		var ee exitError
		if errors.As(err, &ee) {
			err = nil // reported in full into report
		}
		return fail(err)
	}
	row.Total, row.RB, row.Bottleneck = pred.Total, pred.RB, pred.Bottleneck
	for _, r := range pred.Regions {
		row.Compute += r.Compute
		row.Memory += r.Memory
		row.Messages += r.Messages
		row.Collectives += r.Collectives
	}
	return row
}

// sweepSpace is the cartesian product of the -D lists, walked one point at
// a time so that a long sweep never holds its points in memory.
type sweepSpace struct {
	names  []string
	lists  [][]string
	points int64 // the product of the lengths of the lists
}

// parseSweep reads -D NAME=V1,V2,… and refuses more than maxPoints points,
// computing their number without overflow.
func parseSweep(defs []string, maxPoints int64) (*sweepSpace, error) {
	s := &sweepSpace{points: 1}
	var lengths []string
	overflow := false
	for _, d := range defs {
		name, values, ok := strings.Cut(d, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" || values == "" {
			return nil, fmt.Errorf("-D %s: write -D NAME=V1,V2,... e.g. -D N=64,128,256", d)
		}
		if slices.Contains(s.names, name) {
			return nil, fmt.Errorf("-D %s: %s has a list already; give each parameter one list, e.g. -D %s=64,128", d, name, name)
		}
		var vs []string
		for _, v := range strings.Split(values, ",") {
			if v = strings.TrimSpace(v); v == "" {
				return nil, fmt.Errorf("-D %s: an empty value in the list; write -D NAME=V1,V2,... e.g. -D N=64,128,256", d)
			}
			vs = append(vs, v)
		}
		s.names, s.lists = append(s.names, name), append(s.lists, vs)
		lengths = append(lengths, strconv.Itoa(len(vs)))
		hi, lo := bits.Mul64(uint64(s.points), uint64(len(vs)))
		overflow = overflow || hi != 0 || lo > 1<<62
		s.points = int64(lo)
	}
	if overflow || s.points > maxPoints {
		count := fmt.Sprintf("%s = %d points", strings.Join(lengths, " x "), s.points)
		if overflow {
			count = strings.Join(lengths, " x ") + " points, more than 2^62"
		}
		return nil, fmt.Errorf("the -D lists make %s, more than --max-points %d; shorten the lists or raise the limit with --max-points N", count, maxPoints)
	}
	return s, nil
}

// each calls f with every point in turn, the first list outermost, and
// stops at f's first error. values is reused between calls.
func (s *sweepSpace) each(f func(values []string) error) error {
	idx := make([]int, len(s.lists))
	values := make([]string, len(s.lists))
	for {
		for i, l := range s.lists {
			values[i] = l[idx[i]]
		}
		if err := f(values); err != nil {
			return err
		}
		i := len(idx) - 1
		for ; i >= 0; i-- {
			if idx[i]++; idx[i] < len(s.lists[i]) {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return nil
		}
	}
}

// sweepWriter prints a sweep row by row, as each point is predicted.
type sweepWriter interface {
	header() error
	row(r sweepRow) error
	end() error
}

// sweepTable prints rows for people in fixed-width columns, which (unlike a
// tabwriter) need not see every row before printing the first.
type sweepTable struct {
	w       io.Writer
	machine string
	names   []string
	widths  []int // of the parameter columns: the longest of name and values
}

// sweepTimeColumns are the headers of the time columns, in row order.
func sweepTimeColumns() []string {
	return []string{"total", "compute", "memory", "messages", "collectives"}
}

// sweepTimeWidth is the width of a time column: wide enough for "999.9 ms"
// and "18.38 years" (units.Time), or for its header.
func sweepTimeWidth(header string) int { return max(11, len(header)) }

// sweepRateWidth is the width of the R_B column: wide enough for "999.9
// Mflop/s" and "21.72 Gflop/s" (units.Rate).
const sweepRateWidth = 13

func newSweepTable(w io.Writer, machine string, s *sweepSpace) *sweepTable {
	t := &sweepTable{w: w, machine: machine, names: s.names}
	for i, n := range s.names {
		width := len(n)
		for _, v := range s.lists[i] {
			width = max(width, len(v))
		}
		t.widths = append(t.widths, width)
	}
	return t
}

func (t *sweepTable) header() error {
	fmt.Fprintf(t.w, "predictions (not measurements) on %s\n", t.machine)
	var b strings.Builder
	for i, n := range t.names {
		fmt.Fprintf(&b, "%*s  ", t.widths[i], n)
	}
	for _, h := range sweepTimeColumns() {
		fmt.Fprintf(&b, "%*s  ", sweepTimeWidth(h), h)
	}
	fmt.Fprintf(&b, "%*s  bottleneck\n", sweepRateWidth, "R_B")
	_, err := io.WriteString(t.w, b.String())
	return err
}

func (t *sweepTable) row(r sweepRow) error {
	var b strings.Builder
	for i, n := range t.names {
		fmt.Fprintf(&b, "%*s  ", t.widths[i], r.Params[n])
	}
	if r.Error != "" {
		fmt.Fprintf(&b, "error: %s\n", r.Error)
	} else {
		for i, v := range []float64{r.Total, r.Compute, r.Memory, r.Messages, r.Collectives} {
			fmt.Fprintf(&b, "%*s  ", sweepTimeWidth(sweepTimeColumns()[i]), formatTime(v))
		}
		fmt.Fprintf(&b, "%*s  %s\n", sweepRateWidth, units.Rate(r.RB*1e6), r.Bottleneck)
	}
	_, err := io.WriteString(t.w, b.String())
	return err
}

func (t *sweepTable) end() error { return nil }

// sweepCSV prints one record per point, flushed at once; error is empty
// for a point that was predicted.
type sweepCSV struct {
	w     *csv.Writer
	names []string
}

func (s *sweepCSV) header() error {
	s.w.Write(append(append([]string{}, s.names...), "total_s", "compute_s", "memory_s", "messages_s", "collectives_s", "rb_mflops", "bottleneck", "error"))
	s.w.Flush()
	return s.w.Error()
}

func (s *sweepCSV) row(r sweepRow) error {
	rec := []string{}
	for _, n := range s.names {
		rec = append(rec, r.Params[n])
	}
	if r.Error != "" {
		rec = append(rec, "", "", "", "", "", "", "", r.Error)
	} else {
		rec = append(rec, fmt.Sprintf("%g", r.Total), fmt.Sprintf("%g", r.Compute), fmt.Sprintf("%g", r.Memory),
			fmt.Sprintf("%g", r.Messages), fmt.Sprintf("%g", r.Collectives), fmt.Sprintf("%g", r.RB), r.Bottleneck, "")
	}
	s.w.Write(rec)
	s.w.Flush()
	return s.w.Error()
}

func (s *sweepCSV) end() error { return nil }

// sweepJSON prints one JSON document, {"schema", "machine", "points": […]},
// writing each element of points as it comes.
type sweepJSON struct {
	w       io.Writer
	machine string
	rows    int
}

func (s *sweepJSON) header() error {
	_, err := fmt.Fprintf(s.w, "{\n  \"schema\": %q,\n  \"machine\": %q,\n  \"points\": [", SweepSchema, s.machine)
	return err
}

func (s *sweepJSON) row(r sweepRow) error {
	b, err := json.MarshalIndent(r, "    ", "  ")
	if err != nil {
		return err
	}
	sep := ",\n    "
	if s.rows == 0 {
		sep = "\n    "
	}
	s.rows++
	_, err = fmt.Fprintf(s.w, "%s%s", sep, b)
	return err
}

func (s *sweepJSON) end() error {
	closing := "\n  ]\n}\n"
	if s.rows == 0 {
		closing = "]\n}\n"
	}
	_, err := io.WriteString(s.w, closing)
	return err
}
