package calibrate

import (
	"context"
	"fmt"

	"perfc/analyze"
	"perfc/analyze/cache"
	"perfc/calibrate/fit"
	"perfc/codegen"
	"perfc/codegen/spmd"
	"perfc/lang"
	"perfc/machinecode"
	"perfc/parser"
)

// point is one benchmark measured: its time per run and the analyzer's
// counts of its region.
type point struct {
	bench
	// seconds is the region's time per run, the median of the
	// measurements (each the mean of its runs): perfc check and validate
	// compare a prediction with the median, so the table is fitted to the
	// typical run, not the luckiest one (calibrate/comms takes the same).
	seconds float64
	spread  float64        // (max − min)/median of the measurements
	counts  analyze.Counts // the analyzer's counts of the region
}

// entries is the region's loop entries: the analyzer's count when it
// gives one, otherwise the generator's (the kernel's structure is known).
func (p point) entries() float64 {
	if e := p.counts.LoopEntries.Float(); e > 0 {
		return e
	}
	return p.bench.entries
}

// measuredKernel is the outcome of running one generated kernel.
type measuredKernel struct {
	points []point
	tick1  float64 // seconds, as the runtime measured TICK1
	m      *spmd.Measurement
	// code is the machine code of the binary that was timed (nil when it
	// could not be read: codeErr says why), for the fit of compute.core.
	code    *machinecode.Code
	codeErr error
}

// runKernel checks the kernel text, counts it with the analyzer (on the
// host's caches), and generates, builds and measures it exactly as perfc
// check does. step reports the phase ("building", "running").
func runKernel(ctx context.Context, st *settler, spec kernelSpec, caches cache.Hierarchy, cacheDir string, sz sizes, step func(string)) (*measuredKernel, error) {
	k, rep, err := countKernel(spec, caches)
	if err != nil {
		return nil, err
	}
	p, err := codegen.Generate(k, codegen.Options{})
	if err != nil {
		return nil, fmt.Errorf("calibrate: generating kernel %s: %w", spec.name, err)
	}
	dir, err := p.Prepare(cacheDir)
	if err != nil {
		return nil, err
	}
	step("building")
	var m *spmd.Measurement
	var code *machinecode.Code
	var codeErr error
	err = codegen.WithBinary(ctx, dir, false, func(bin string) (err error) {
		step("running")
		err = st.around(ctx, func() (err error) {
			m, err = codegen.Measure(ctx, bin, "-samples", fmt.Sprint(sz.samples), "-min-time", sz.minTime)
			return err
		})
		if err == nil {
			code, codeErr = machinecode.Read(ctx, dir, bin)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("calibrate: running kernel %s: %w", spec.name, err)
	}
	mk, err := joinCounts(spec, rep, m)
	if mk != nil {
		mk.code, mk.codeErr = code, codeErr
	}
	return mk, err
}

// countKernel checks a generated kernel and counts it with the analyzer
// on the given caches.
func countKernel(spec kernelSpec, caches cache.Hierarchy) (*lang.Checked, *analyze.Report, error) {
	k, err := checkText(spec)
	if err != nil {
		return nil, nil, err
	}
	rep, err := analyze.Analyze(k, analyze.Options{Cache: caches})
	if err != nil {
		return nil, nil, fmt.Errorf("calibrate: counting kernel %s: %w", spec.name, err)
	}
	return k, rep, nil
}

// checkText parses and checks a generated kernel; an error here is a bug
// of the generator, reported with the kernel's text position.
func checkText(spec kernelSpec) (*lang.Checked, error) {
	name := spec.name + ".spmd"
	f, err := parser.ParseFile(name, []byte(spec.text))
	if err != nil {
		return nil, fmt.Errorf("calibrate: generated kernel %s does not parse (a bug of perfc calibrate): %w", spec.name, err)
	}
	k, err := lang.Check(f, "", nil)
	if err != nil {
		return nil, fmt.Errorf("calibrate: generated kernel %s does not check (a bug of perfc calibrate): %w", spec.name, err)
	}
	return k, nil
}

// joinCounts pairs every benchmark with its measured time and counts.
func joinCounts(spec kernelSpec, rep *analyze.Report, m *spmd.Measurement) (*measuredKernel, error) {
	if len(rep.Classes) != 1 {
		return nil, fmt.Errorf("calibrate: kernel %s has %d rank classes, want 1", spec.name, len(rep.Classes))
	}
	counts := regionCounts(rep)
	times := map[string]spmd.Timing{}
	for _, t := range m.Regions {
		times[t.Name] = t
	}
	out := &measuredKernel{tick1: m.Tick1Us * 1e-6, m: m}
	for _, b := range spec.benches {
		t, ok := times[b.name]
		c, okc := counts[b.name]
		if !ok || !okc {
			return nil, fmt.Errorf("calibrate: region %q of kernel %s was not measured or not counted", b.name, spec.name)
		}
		t = outsideSlowMoments(t)
		if !(t.MedianUs > 0) {
			return nil, fmt.Errorf("calibrate: region %q of kernel %s measured a median of %g us; a time must be positive", b.name, spec.name, t.MedianUs)
		}
		spread := (t.MaxUs - t.MinUs) / t.MedianUs
		out.points = append(out.points, point{bench: b, seconds: t.MedianUs * 1e-6, spread: spread, counts: c})
	}
	return out, nil
}

// outsideSlowMoments is a region's timing over its samples within
// fit.FastFactor of the fastest (all of them on a steady host), or the
// timing itself when it has no samples or a sample is not a positive
// number. The in-core and memory benchmarks run a kernel of many regions
// for seconds, and on this host a neighbour halves the loads and stores
// of a core for tenths of a second at a time: the 00:02 calibration of
// 2026-11-27 fitted its in-core regions, medians of samples partly taken
// so, with a 0.485 ns cycle where a quiet host's is 0.28, and priced
// session 17's single-rank measurements 28.6 % long in the median.
// perfc validate measures a case when its core witness is within 15 % of
// the table (settling), so the table's times are those outside them.
func outsideSlowMoments(t spmd.Timing) spmd.Timing {
	if len(t.SamplesUs) == 0 || !fit.Usable(t.SamplesUs) {
		return t
	}
	b := fit.FastBand(t.SamplesUs, fit.FastFactor)
	return spmd.Timing{Name: t.Name, MinUs: b.Min, MedianUs: b.Median, MaxUs: b.Max}
}

// regionCounts maps region names to the counts of the one rank class.
func regionCounts(rep *analyze.Report) map[string]analyze.Counts {
	counts := map[string]analyze.Counts{}
	for _, r := range rep.Classes[0].Regions {
		counts[r.Name] = r.Counts
	}
	return counts
}
