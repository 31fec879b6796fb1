package validate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"perfc/codegen"
	"perfc/codegen/spmd"
	"perfc/lang"
)

// ReadReport reads a report that WriteJSON wrote, for Replay; a report of
// another schema is refused, since its fields may mean something else.
func ReadReport(r io.Reader) (*Report, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var rep Report
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, fmt.Errorf("%snot a validate report (perfc validate --json writes one): %w", jsonPosition(data, err), err)
	}
	if rep.Schema != Schema {
		return nil, fmt.Errorf("the report's schema is %q; this perfc reads %q (write it again with this perfc's validate --json)", rep.Schema, Schema)
	}
	return &rep, nil
}

// jsonPosition is "line:col: " of a JSON error's byte offset in data, ""
// for an error that has none.
func jsonPosition(data []byte, err error) string {
	var offset int64
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		offset = syntax.Offset
	case errors.As(err, &typ):
		offset = typ.Offset
	default:
		return ""
	}
	// The offset is just past the byte at fault.
	before := data[:max(0, min(offset-1, int64(len(data))))]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return fmt.Sprintf("%d:%d: ", line, col)
}

// Replay predicts again, on opts.Machine and with today's model, every
// case of an earlier report, and compares the new predictions with that
// report's measurements: nothing is measured. A change to the model, or a
// table calibrated again, is then judged on the same measurements, apart
// from the host's noise from one run to the next (on this project's VM,
// several per cent between two runs of the suite: docs/accuracy.md).
// Cases are found in kernels by file; a case that failed in prev stays
// failed; a table that prices compiled code (compute.core) has each
// program built again for its machine code (from the build cache when the
// program was built before). Progress, when set, is called per case.
func Replay(ctx context.Context, prev *Report, kernels []Kernel, opts Options) ([]Case, error) {
	opts = opts.withDefaults()
	byFile := map[string]Kernel{}
	for _, k := range kernels {
		byFile[k.File] = k
	}
	checkers := map[string]*checker{}
	predicted, err := replayWitnesses(ctx, prev, opts)
	if err != nil {
		return nil, err
	}
	cases := make([]Case, 0, len(prev.Cases))
	for i, old := range prev.Cases {
		if opts.Progress != nil {
			opts.Progress(old.Name, i, len(prev.Cases))
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		k, ok := byFile[old.File]
		if !ok {
			return nil, fmt.Errorf("replay: case %q is of kernel file %s, which is not among the kernels to validate; give the files the report validated", old.Name, old.File)
		}
		c, err := replayCase(ctx, old, k, checkers, opts)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			c = old
			c.Failure = "replay: " + err.Error()
			c.Total, c.Regions, c.ByCounts, c.Again, c.Dominant = nil, nil, nil, nil, nil
		}
		if c.Witness != nil && predicted != nil {
			w := *c.Witness
			w.CorePredicted, w.CopyPredicted = predicted["core"], predicted["copy"]
			c.Witness = &w
		}
		cases = append(cases, c)
	}
	if opts.Progress != nil {
		opts.Progress("", len(prev.Cases), len(prev.Cases))
	}
	return cases, nil
}

// replayWitnesses predicts the witness kernels on opts' table when some
// case of prev has witness times (their measurements are kept, their
// predictions made again); nil otherwise.
func replayWitnesses(ctx context.Context, prev *Report, opts Options) (map[string]float64, error) {
	for _, c := range prev.Cases {
		if c.Witness == nil {
			continue
		}
		ws, err := prepareWitnesses(ctx, opts)
		if err != nil {
			return nil, err
		}
		out := map[string]float64{}
		for _, w := range ws {
			out[w.name] = w.predicted
		}
		return out, nil
	}
	return nil, nil
}

// replayCase predicts one case of an earlier report again and compares
// the prediction with the case's stored measurements.
func replayCase(ctx context.Context, old Case, k Kernel, checkers map[string]*checker, opts Options) (Case, error) {
	c := old
	c.Total, c.Regions, c.ByCounts, c.Again, c.Dominant = nil, nil, nil, nil, nil
	if old.Failure != "" || old.Total == nil {
		return old, nil
	}
	chk, ok := checkers[k.File]
	if !ok {
		var err error
		if chk, err = newChecker(k); err != nil {
			return c, err
		}
		checkers[k.File] = chk
	}
	ck, err := chk.check(overrides(old.Params))
	if err != nil {
		return c, err
	}
	pred, err := Predict(ck, opts)
	if err != nil {
		return c, err
	}
	c.checked, c.pred = ck, pred
	if _, core := opts.Machine.Compute().Core(); core && opts.Model.Code == nil {
		tctx, cancel := context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
		launch := opts.Launch.WithRanks(int(c.Ranks))
		err := codegen.RunKernel(tctx, ck, codegen.Options{Backend: launch.Backend}, opts.CacheDir, nil, func(_ *codegen.Program, dir, bin string) error {
			return predictWithCode(tctx, &c, opts, dir, bin)
		})
		if err != nil {
			return c, err
		}
	}
	compare(&c, storedMeasurement(old))
	if old.Again != nil {
		again := timing(storedTiming(*old.Again), c.pred.Total)
		c.Again = &again
	}
	return c, nil
}

// overrides are a case's parameters as -D overrides.
func overrides(ps []Param) []lang.Override {
	ovs := make([]lang.Override, 0, len(ps))
	for _, p := range ps {
		ovs = append(ovs, lang.Override{Name: p.Name, Value: p.Value})
	}
	return ovs
}

// storedMeasurement rebuilds, from a report's case, the measurement that
// compare takes: its runs and measurements, the total and the regions it
// listed (the report leaves out regions below 1 % that perfc did not
// predict, as compare does).
func storedMeasurement(c Case) *spmd.Measurement {
	m := &spmd.Measurement{Runs: c.Runs, Samples: c.Samples, Total: storedTiming(*c.Total)}
	for _, r := range c.Regions {
		m.Regions = append(m.Regions, storedTiming(r))
	}
	return m
}

// storedTiming is a report's comparison as the measured timing it came
// from (µs).
func storedTiming(cmp Comparison) spmd.Timing {
	return spmd.Timing{Name: cmp.Name, MedianUs: cmp.Measured * 1e6, MinUs: cmp.Min * 1e6, MaxUs: cmp.Max * 1e6}
}
