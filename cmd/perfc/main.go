// Command perfc predicts how long an SPMD kernel takes on a machine before
// the real code is written, says why, and generates a program that measures
// it. Every verb is a thin call into the packages lang, parser, analyze,
// costmodel, machines and codegen; see README.md and docs/.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/alecthomas/kong"
)

// cli is the command line. Each verb is a struct with a Run method; kong
// generates --help for every one of them.
type cli struct {
	Version   kong.VersionFlag `help:"Print the version of perfc and of the Go it was built with."`
	Parse     parseCmd         `cmd:"" help:"Check a kernel and print a summary or its AST as JSON."`
	Fmt       fmtCmd           `cmd:"" help:"Print a kernel in canonical form."`
	Predict   predictCmd       `cmd:"" help:"Predict how long a kernel takes on a machine, and why."`
	Emulate   emulateCmd       `cmd:"" help:"Emulate each rank's schedule: critical path, idle time, timeline."`
	Sweep     sweepCmd         `cmd:"" help:"Predict over lists of parameter values, one row per point."`
	Roofline  rooflineCmd      `cmd:"" help:"Place each region on the machine's roofline: intensity, ceilings."`
	Count     countCmd         `cmd:"" help:"Count exactly what every rank does, per region."`
	Gen       genCmd           `cmd:"" help:"Write a kernel as a Go program that runs and times it."`
	Check     checkCmd         `cmd:"" help:"Run a kernel's generated program; measured against predicted."`
	Calibrate calibrateCmd     `cmd:"" help:"Benchmark this machine into a machine table for -m."`
	Validate  validateCmd      `cmd:"" help:"Predict and run a suite of kernels: a machine table's accuracy."`
	Machines  machinesCmd      `cmd:"" help:"List the built-in machine tables, or print one with its sources."`
	Examples  examplesCmd      `cmd:"" help:"List the built-in example kernels, or print one."`
	Help      helpCmd          `cmd:"" help:"List the verbs, or show the help of one."`
}

// env carries the streams a verb writes to, so tests can run verbs in
// process without touching os.Stdout.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// exitError is an error that has already been reported to the user; main
// only sets the exit status.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func main() {
	os.Exit(run(os.Args[1:], env{os.Stdin, os.Stdout, os.Stderr}))
}

// run parses args and runs one verb, returning the process exit status.
// A verb whose output could not be written (a full disk, a closed pipe)
// fails even when it returned no error itself, so that no one mistakes a
// lost table for a printed one.
func run(args []string, e env) int {
	out := &outputWriter{w: e.stdout}
	e.stdout = out
	code := runVerb(args, e)
	if out.err != nil {
		fmt.Fprintf(e.stderr, "perfc: writing output: %v\n", out.err)
		return max(code, 1)
	}
	return code
}

// outputWriter is a verb's standard output: it remembers the first write
// error, so that run can report it whichever printer (fmt, tabwriter, a
// JSON encoder) met it and whether or not that printer passed it on.
type outputWriter struct {
	w   io.Writer
	err error
}

// Write writes p, or after a failure returns the first error again
// without writing, so a printer's later lines cannot land after a gap.
func (o *outputWriter) Write(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	o.err = err
	return n, err
}

// writeFailed reports whether err is the write error of the verb's
// standard output, which run reports once on its own.
func writeFailed(e env, err error) bool {
	o, ok := e.stdout.(*outputWriter)
	return ok && o.err != nil && errors.Is(err, o.err)
}

// runVerb parses args and runs one verb, returning the exit status.
// perfc alone prints the list of verbs, as perfc help does, but exits with
// status 1 because it did nothing.
func runVerb(args []string, e env) int {
	if len(args) == 0 {
		if code := runVerb([]string{"help"}, e); code != 0 {
			return code
		}
		return 1
	}
	var c cli
	parser, err := kong.New(&c,
		kong.Name("perfc"),
		kong.Description(overview+"\n\nThis is "+version()+"."),
		kong.UsageOnError(),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true, NoExpandSubcommands: true}),
		kong.Vars{"version": version()},
		kong.Writers(e.stdout, e.stderr),
		kong.Exit(func(code int) { panic(exitError{code}) }),
		kong.BindTo(e, (*env)(nil)),
	)
	if err != nil {
		fmt.Fprintln(e.stderr, "perfc:", err)
		return 2
	}
	code := 0
	func() {
		defer func() {
			if r := recover(); r != nil {
				ee, ok := r.(exitError)
				if !ok {
					panic(r)
				}
				code = ee.code
			}
		}()
		ctx, err := parser.Parse(args)
		if err != nil {
			if writeFailed(e, err) {
				code = 1 // kong's help could not be written; run reports it
				return
			}
			fmt.Fprintf(e.stderr, "perfc: %v\n", err)
			code = 2
			return
		}
		if err := ctx.Run(e); err != nil {
			var ee exitError
			if errors.As(err, &ee) {
				code = ee.code
				return
			}
			if writeFailed(e, err) {
				code = 1 // run reports it
				return
			}
			fmt.Fprintf(e.stderr, "perfc: %v\n", err)
			code = 1
		}
	}()
	return code
}

// writeJSON writes v as indented JSON, the form of every -o json.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
