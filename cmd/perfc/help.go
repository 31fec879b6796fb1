package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/alecthomas/kong"
)

// overview heads perfc --help and perfc help: what perfc is, where the
// documentation is, and how to start without a kernel of one's own.
const overview = `perfc: analytic performance prediction for SPMD kernels. Predictions are
predictions: only measured timings are results.

A kernel is a .spmd file (docs/language.md) or the name of a built-in example
(perfc examples lists them): perfc predict gauss. Documentation: README.md and
docs/ in the perfc repository; perfc VERB --help for each verb.`

// helpCmd is `perfc help [VERB]`: the list of verbs, or one verb's help.
type helpCmd struct {
	Verb []string `arg:"" optional:"" help:"The verb to explain (default: list them all)."`
}

// Run prints the help kong generates, as --help would, exiting with its
// status. An unknown verb is an error that lists the verbs.
func (c *helpCmd) Run(ctx *kong.Context, e env) error {
	if len(c.Verb) > 0 {
		var names []string
		for _, n := range ctx.Model.Children {
			names = append(names, n.Name)
		}
		if !slices.Contains(names, c.Verb[0]) {
			return fmt.Errorf("help: perfc has no verb %q; the verbs are %s", c.Verb[0], strings.Join(names, ", "))
		}
	}
	if code := run(append(c.Verb, "--help"), e); code != 0 {
		return exitError{code}
	}
	return nil
}

// version says which perfc this is: the main module's version and, when the
// binary was built from a git checkout, the revision, its date and whether
// the tree had changes; then the Go release that built it. go install of a
// tagged module gives the tag; go build in a checkout gives the revision.
func version() string {
	v := "perfc"
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return v + " (no build information) " + runtime.Version()
	}
	if info.Main.Version != "" {
		v += " " + info.Main.Version
	}
	var vcs []string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			vcs = append(vcs, "revision "+s.Value)
		case "vcs.time":
			vcs = append(vcs, s.Value)
		case "vcs.modified":
			if s.Value == "true" {
				vcs = append(vcs, "with uncommitted changes")
			}
		}
	}
	if len(vcs) > 0 {
		v += " (" + strings.Join(vcs, ", ") + ")"
	}
	return fmt.Sprintf("%s, built with %s", v, info.GoVersion)
}

// The Help methods give each verb's --help the detail its one-line summary
// in the verb list leaves out.

func (parseCmd) Help() string {
	return "Parses and checks a kernel; prints a summary (table) or the checked AST as JSON (docs/ast-json.md). Exit status 1 with positioned errors if it does not check."
}

func (fmtCmd) Help() string {
	return "Prints the canonical form of a kernel file, comments kept; idempotent. --write rewrites the file."
}

func (predictCmd) Help() string {
	return "Predicts the time per region (compute, memory, messages, collectives), every term as count x unit cost = time, the bottleneck, PARKBENCH R_B and R_T, and warnings (docs/predict.md). For lists of values (-D N=64,128) use perfc sweep."
}

func (rooflineCmd) Help() string {
	return "Predicts the kernel and places each region on the machine's roofline: its arithmetic intensity at every cache level and main memory (nominal flop per byte of the lines the analytic cache model brings in and writes back), its predicted Gflop/s, and the table's ceilings (peak rate, each level's bandwidth), with the ceiling min(peak, bandwidth x intensity) that bounds it; a ceiling the table does not give is named as missing. --plot draws the log-log figure (docs/roofline.md)."
}

func (emulateCmd) Help() string {
	return "Emulates every rank's schedule event by event: the time of the critical path, per-rank busy and idle time, link waits, deadlocks with the chain of waits, the LANL wavefront closed forms, a timeline (JSON lines) and a Gantt chart (docs/emulate.md)."
}

func (sweepCmd) Help() string {
	return "Predicts every point of the cartesian product of the listed values (-D N=64,128,256 -D P=16,32), printing each row as it is predicted. A point that fails prints its error in its row and the sweep goes on; the exit status is 1 if any failed. --max-points bounds the number of points."
}

func (countCmd) Help() string {
	return "Counts exactly what every rank does, per rank class and region: iterations, operations by kind, type and operand pattern, nominal flop, loads and stores with byte strides, messages, collectives, footprint; closed-form formulas with --symbolic (docs/counts.md)."
}

func (genCmd) Help() string {
	return "Writes a self-contained Go program (standard library only) that runs the kernel for real: a goroutine per rank, per-region timing, and a counting build (-tags perfc_count) that reports what ran (docs/codegen.md)."
}

func (checkCmd) Help() string {
	return "Predicts, generates, builds (cached by content hash), runs, and prints measured against predicted per region; --counts compares what ran with perfc count (docs/codegen.md)."
}

func (machinesCmd) Help() string {
	return "Without a name, lists the built-in machine tables. With a name or a YAML file, prints the table with every number's unit and source; -o yaml prints a table that perfc loads back (-m FILE.yaml), -o json the same keys as JSON (docs/machines.md)."
}

func (examplesCmd) Help() string {
	return "Lists the built-in example kernels with one line each. Every verb that reads a kernel accepts an example's name in place of a file (perfc predict gauss); perfc examples NAME prints its source."
}

func (validateCmd) Help() string {
	return "Runs a suite of kernels (every example and a few held-out ones, each at sizes that straddle the table's cache levels, communicating kernels at 2 and 4 ranks), predicts each on -m's table, runs its generated program as perfc check does, and reports predicted against measured per case and region: the error, the spread, the median |error|, the shares within 10/15/20 %, tuning and held-out cases apart, and the worst cases with the term that dominated their prediction; --json and --plot write the report and the figure (docs/accuracy.md)."
}
