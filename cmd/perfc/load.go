package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"perfc/analyze"
	"perfc/examples"
	"perfc/internal/readlimit"
	"perfc/lang"
	"perfc/machines"
	"perfc/parser"
)

// budgetArgs are the analysis budgets of the verbs that count a kernel
// (count, predict, emulate, sweep, check); zero means analyze's defaults.
type budgetArgs struct {
	MaxRanks      int64 `placeholder:"N" help:"Analysis budget: the most ranks taken one by one rather than a range of alike ranks at a time (default 1000000; docs/counts.md)."`
	MaxEnumerated int64 `placeholder:"N" help:"Analysis budget: the most loop iterations enumerated where closed forms fail, over every rank (default 5000000; docs/counts.md)."`
}

// options returns analysis options for every rank with these budgets.
func (b budgetArgs) options() analyze.Options {
	return analyze.Options{MaxRanks: b.MaxRanks, MaxEnumerated: b.MaxEnumerated}
}

// countOn loads the machine ma names and counts every rank of k with these
// budgets and the machine's caches, as pricing needs them (predict,
// emulate, roofline); an analysis error is positioned in the kernel's
// source.
func (b budgetArgs) countOn(e env, k *lang.Checked, ma machineArgs) (*analyze.Report, *machines.Machine, error) {
	m, err := ma.load()
	if err != nil {
		return nil, nil, err
	}
	opts := b.options()
	opts.Cache = m.CacheHierarchy()
	rep, err := analyze.Analyze(k, opts)
	if err != nil {
		return nil, nil, positioned(e, err, k.File.Source)
	}
	return rep, m, nil
}

// kernelArgs are the arguments every verb that reads a kernel shares.
type kernelArgs struct {
	File   string   `arg:"" help:"Kernel file (.spmd), - for standard input, or the name of a built-in example (perfc examples lists them)."`
	Kernel string   `help:"Kernel to use when the file holds several (default: the first)." placeholder:"NAME"`
	Define []string `short:"D" name:"define" sep:"none" help:"Override a kernel parameter, e.g. -D N=1024 (repeatable)." placeholder:"NAME=VALUE"`
}

// outputArg chooses how a verb prints its result.
type outputArg struct {
	Output string `short:"o" enum:"table,json" default:"table" help:"Output format: table (for people) or json (for programs)."`
}

// readSource reads a file, or standard input for "-", refusing more than
// readlimit.Max bytes before reading further (so /dev/zero is an error,
// not a crash).
func readSource(path string, stdin io.Reader) ([]byte, string, error) {
	if path == "-" {
		b, err := readlimit.Reader(stdin, "<stdin>")
		return b, "<stdin>", err
	}
	b, err := readlimit.File(path)
	if errors.Is(err, fs.ErrNotExist) {
		return exampleSource(path, err)
	}
	return b, path, err
}

// exampleSource resolves a kernel argument that names no file to a built-in
// example, so that an installed perfc runs `perfc predict gauss` anywhere:
// "gauss", "gauss.spmd" and "examples/gauss.spmd" all name it. Its source
// name, which reports and error positions show, says that it is built in.
// Anything else keeps the file error and lists the examples.
func exampleSource(arg string, notFound error) ([]byte, string, error) {
	base := strings.TrimSuffix(strings.TrimPrefix(arg, "examples/"), ".spmd")
	if src, err := examples.Source(base); err == nil && !strings.ContainsAny(base, `/\.`) {
		return src, "examples/" + base + ".spmd (built in)", nil
	}
	return nil, "", fmt.Errorf("%w; nor is %q a built-in example (perfc examples lists them: %s)",
		notFound, arg, strings.Join(examples.Names(), ", "))
}

// parseFile reads and parses a file, printing syntax errors with carets.
func parseFile(e env, path string) (*lang.File, error) {
	src, name, err := readSource(path, e.stdin)
	if err != nil {
		return nil, err
	}
	f, err := parser.ParseFile(name, src)
	if err != nil {
		reportErrors(e, err, lang.NewSource(name, src))
		return nil, exitError{1}
	}
	return f, nil
}

// overrides turns -D NAME=VALUE flags into checker overrides.
func overrides(defs []string) ([]lang.Override, error) {
	var out []lang.Override
	for _, d := range defs {
		name, value, ok := strings.Cut(d, "=")
		if !ok || strings.TrimSpace(name) == "" {
			return nil, fmt.Errorf("-D %s: write -D NAME=VALUE, e.g. -D N=1024", d)
		}
		out = append(out, lang.Override{Name: strings.TrimSpace(name), Value: strings.TrimSpace(value)})
	}
	return out, nil
}

// noValueLists points a -D with a list of values (-D N=64,128), which only
// perfc sweep takes, to perfc sweep with the same arguments.
func noValueLists(a kernelArgs) error {
	for _, d := range a.Define {
		if _, value, _ := strings.Cut(d, "="); strings.Contains(value, ",") {
			return fmt.Errorf("-D %s: one value per parameter here; to predict every value of a list, run perfc sweep %s -D %s", d, a.File, strings.Join(a.Define, " -D "))
		}
	}
	return nil
}

// loadKernel parses and checks the kernel the arguments name.
func loadKernel(e env, a kernelArgs) (*lang.Checked, error) {
	f, err := parseFile(e, a.File)
	if err != nil {
		return nil, err
	}
	if err := noValueLists(a); err != nil {
		return nil, err
	}
	ovs, err := overrides(a.Define)
	if err != nil {
		return nil, err
	}
	k, err := lang.Check(f, a.Kernel, ovs)
	if err != nil {
		reportErrors(e, err, f.Source)
		return nil, exitError{1}
	}
	for _, w := range k.Warnings {
		fmt.Fprintf(e.stderr, "%s: warning: %s\n", w.Pos, lang.Printable(w.Msg))
	}
	return k, nil
}

// reportErrors prints positioned errors with their source lines.
func reportErrors(e env, err error, src *lang.Source) {
	var list lang.ErrorList
	if errors.As(err, &list) {
		fmt.Fprint(e.stderr, list.Format(src))
		if len(list) > 1 {
			fmt.Fprintf(e.stderr, "%d errors\n", len(list))
		}
		return
	}
	fmt.Fprintln(e.stderr, err)
}

// positioned prints an error found after checking (by the analyzer, the
// cost model, the emulator) with its source line and caret when it carries
// a position, and returns the exit status to use.
func positioned(e env, err error, src *lang.Source) error {
	var pe *lang.Error
	if errors.As(err, &pe) {
		reportErrors(e, lang.ErrorList{pe}, src)
		return exitError{1}
	}
	return err
}
