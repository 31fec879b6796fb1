// Package perfc is the one-call entry point to perfc, the analytic
// performance-prediction compiler for SPMD kernels: it goes from a kernel
// file or source text to a checked kernel, and from there to its exact
// counts, a prediction, an emulation or a generated Go program, each in one
// call, doing what the perfc command's verbs do. Every options struct's zero
// value is the common case: every rank, the default machine (cm5-32), the
// default budgets. The packages underneath (lang, parser, analyze,
// costmodel, machines, codegen) are there for finer control; docs/api.md
// shows the ten-line program.
//
//	k, err := perfc.Load("examples/gauss.spmd", perfc.LoadOptions{})
//	if err != nil {
//		log.Fatal(err) // file:line:col: message, the line and a caret
//	}
//	pred, err := k.Predict(perfc.PredictOptions{}) // every rank, on cm5-32
//	if err != nil {
//		log.Fatal(err)
//	}
//	fmt.Println(pred.Total) // seconds, predicted (not measured)
package perfc

import (
	"errors"
	"slices"
	"sort"
	"strings"

	"perfc/analyze"
	"perfc/codegen"
	"perfc/costmodel"
	"perfc/costmodel/emulate"
	"perfc/internal/readlimit"
	"perfc/lang"
	"perfc/machines"
	"perfc/parser"
)

// DefaultMachine is the machine table of the zero PredictOptions and
// EmulateOptions, as of perfc predict without -m: the most complete table
// of the seed papers (operation costs, collectives, messages).
const DefaultMachine = "cm5-32"

// Kernel is a parsed and checked kernel, with every parameter bound and
// everything static evaluated; Load and Parse make one.
type Kernel struct {
	// Checked is the checked kernel that the packages underneath take.
	Checked *lang.Checked
}

// LoadOptions choose a kernel in a file and bind its parameters. The zero
// value takes the first kernel with its parameters' defaults.
type LoadOptions struct {
	// Kernel names the kernel of a file that holds several; "" is the
	// first (perfc --kernel).
	Kernel string
	// Params override parameters' defaults by name, each value an
	// expression of the language, as perfc -D N=1024 does:
	// {"N": "1024", "P": "64"}.
	Params map[string]string
}

// Load reads, parses and checks the kernel in the file at path (at most
// 1 MiB). Its errors are a *SourceError when they point into the source.
func Load(path string, opts LoadOptions) (*Kernel, error) {
	src, err := readlimit.File(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, src, opts)
}

// Parse parses and checks kernel source text; name is the file name that
// error positions and reports show. Syntax and type errors are a
// *SourceError (every error with its line and a caret).
func Parse(name string, src []byte, opts LoadOptions) (*Kernel, error) {
	f, err := parser.ParseFile(name, src)
	if err != nil {
		return nil, withSource(err, f.Source)
	}
	names := make([]string, 0, len(opts.Params))
	for n := range opts.Params {
		names = append(names, n)
	}
	sort.Strings(names) // the same errors in the same order every time
	var ovs []lang.Override
	for _, n := range names {
		ovs = append(ovs, lang.Override{Name: n, Value: opts.Params[n]})
	}
	k, err := lang.Check(f, opts.Kernel, ovs)
	if err != nil {
		return nil, withSource(err, f.Source)
	}
	return &Kernel{Checked: k}, nil
}

// Count returns the exact counts of every rank: iterations, operations,
// loads and stores, messages, collectives, footprint (perfc count). The
// zero analyze.Options count every rank, compare footprints with no cache
// and use the default budgets; set Cache to m.CacheHierarchy() of a
// machine, or to cache.HostHierarchy() as perfc count does.
func (k *Kernel) Count(opts analyze.Options) (*analyze.Report, error) {
	rep, err := analyze.Analyze(k.Checked, opts)
	return rep, withSource(err, k.Checked.File.Source)
}

// PredictOptions choose the machine and tune a prediction. The zero value
// predicts on DefaultMachine with the default budgets, exactly priced.
type PredictOptions struct {
	// Machine is a built-in table's name (machines.BuiltinNames) or a
	// YAML file (a name ending in .yaml or .yml, or holding a /); ""
	// is DefaultMachine.
	Machine string
	// Set overrides machine parameters for a what-if study, as perfc
	// predict -M does ("t_send=0.0585us/B"); the prediction records
	// whether each priced anything (Prediction.Overrides).
	Set []string
	// MaxRanks and MaxEnumerated are the analysis budgets (zero: analyze's
	// defaults; docs/counts.md).
	MaxRanks, MaxEnumerated int64
	// Model tunes pricing: paper rules, vector units, no emulation, the
	// emulation's budgets and progress (zero: exact pricing, emulated
	// when ranks wait on each other).
	Model costmodel.Options
}

// Predict counts every rank with the machine's caches and prices the
// counts on the machine, as perfc predict does: the predicted time per
// region and in all, every term as count × unit cost, the bottleneck.
func (k *Kernel) Predict(opts PredictOptions) (*costmodel.Prediction, error) {
	pred, m, err := k.predictOn(opts)
	if err != nil || len(opts.Set) == 0 {
		return pred, err
	}
	without := func(i int) (*costmodel.Prediction, *machines.Machine, error) {
		other := opts
		other.Set = slices.Delete(slices.Clone(opts.Set), i, i+1)
		return k.predictOn(other)
	}
	assignments, err := machines.ParseAssignments(opts.Set)
	if err != nil {
		return nil, err
	}
	if err := costmodel.MarkOverrides(pred, m, assignments, without); err != nil {
		return nil, err
	}
	return pred, nil
}

// predictOn is one prediction, without marking the overrides.
func (k *Kernel) predictOn(opts PredictOptions) (*costmodel.Prediction, *machines.Machine, error) {
	m, err := LoadMachine(opts.Machine, opts.Set)
	if err != nil {
		return nil, nil, err
	}
	rep, err := k.Count(analyze.Options{Cache: m.CacheHierarchy(), MaxRanks: opts.MaxRanks, MaxEnumerated: opts.MaxEnumerated})
	if err != nil {
		return nil, nil, err
	}
	pred, err := costmodel.Predict(k.Checked, rep, m, opts.Model)
	if err != nil {
		return nil, nil, withSource(err, k.Checked.File.Source)
	}
	return pred, m, nil
}

// EmulateOptions choose the machine and tune an emulation. The zero value
// emulates on DefaultMachine with the default budgets.
type EmulateOptions struct {
	// Machine and Set are as in PredictOptions.
	Machine string
	Set     []string
	// MaxRanks and MaxEnumerated are the analysis budgets (zero: the
	// defaults).
	MaxRanks, MaxEnumerated int64
	// Emulation takes a timeline writer, an observer, the emulation's
	// budgets and progress (zero: none, and the default budgets).
	Emulation emulate.EmulateOptions
}

// Emulate runs the discrete-event emulation of every rank's schedule on
// the machine, as perfc emulate does: compute segments cost what Predict
// charges them, messages and collectives wait for their partners, and the
// result holds the critical path and every rank's busy and idle time.
func (k *Kernel) Emulate(opts EmulateOptions) (*emulate.Emulation, error) {
	m, err := LoadMachine(opts.Machine, opts.Set)
	if err != nil {
		return nil, err
	}
	rep, err := k.Count(analyze.Options{Cache: m.CacheHierarchy(), MaxRanks: opts.MaxRanks, MaxEnumerated: opts.MaxEnumerated})
	if err != nil {
		return nil, err
	}
	p := costmodel.PricerFor(k.Checked, rep, m, costmodel.Options{})
	em, err := emulate.Emulate(k.Checked, p, opts.Emulation)
	return em, withSource(err, k.Checked.File.Source)
}

// Generate writes the kernel as a self-contained Go program that runs it
// for real, a goroutine per rank (perfc gen); the zero codegen.Options
// refuse a kernel that needs more than 80% of the available memory.
// Program.WriteDir writes it out.
func (k *Kernel) Generate(opts codegen.Options) (*codegen.Program, error) {
	return codegen.Generate(k.Checked, opts)
}

// LoadMachine returns a machine table by name, as perfc -m and -M take
// it: a built-in name or a YAML file (a name ending in .yaml or .yml, or
// holding a /; "" is DefaultMachine), with the assignments in set
// applied.
func LoadMachine(name string, set []string) (*machines.Machine, error) {
	if name == "" {
		name = DefaultMachine
	}
	var m *machines.Machine
	var err error
	if strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") || strings.Contains(name, "/") {
		m, err = machines.Load(name)
	} else {
		m, err = machines.Builtin(name)
	}
	if err != nil {
		return nil, err
	}
	if len(set) == 0 {
		return m, nil
	}
	assignments, err := machines.ParseAssignments(set)
	if err != nil {
		return nil, err
	}
	return m.With(assignments...)
}

// SourceError is an error that points into a kernel's source: its Error
// prints every message as file:line:col: message, followed by the source
// line and a caret under the column, as the perfc command does. It
// unwraps to the lang.ErrorList, for callers that want the positions.
// Machine tables' errors are of the same type (lang.SourceError).
type SourceError = lang.SourceError

// withSource turns an error that carries positions (a lang.ErrorList, or
// a *lang.Error from the analyzer, the cost model or the emulator) into a
// *SourceError that shows them in src; other errors are returned as they
// are.
func withSource(err error, src *lang.Source) error {
	if err == nil {
		return nil
	}
	var list lang.ErrorList
	if errors.As(err, &list) {
		return &SourceError{List: list, Source: src}
	}
	var pe *lang.Error
	if errors.As(err, &pe) {
		return &SourceError{List: lang.ErrorList{pe}, Source: src}
	}
	return err
}
