package calibrate

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"go.yaml.in/yaml/v4"
	"gonum.org/v1/gonum/stat"

	"perfc/codegen"
	"perfc/codegen/spmd"
	"perfc/internal/units"
)

// The NOISE benchmark (docs/calibrate.md, "Synchronisation noise"): two
// ranks each compute a segment of length T, a triad on three arrays of
// noiseElems f64 (12 KiB, in L1), and then exchange 8 B. Were every
// segment as long as its mean, the ranks would reach the exchange
// together; on a real host each segment jitters, and the rank that
// arrives first waits for the other. The segment and the exchange are two
// regions, and a region's time is its slowest rank's, so the exchange's
// region measures the first rank's wait and the message:
//
//	excess(T) = wait(T) − exchange
//
// is what the ranks lose to noise at every synchronisation. Each region
// runs once per run and the program runs once per measurement (-reps 1),
// so every measurement is one synchronisation: their distribution, not
// only their mean, is kept. Two exchanges before every segment bring the
// ranks to it together. The segment and its wait are timed apart rather
// than together against a segment timed alone: a loop compiled in two
// places of the kernel runs at two speeds (the same 100 triad passes took
// 21.4 and 28.6 µs), which the difference of the two took for noise.

// noiseElems is the triad's length: three arrays of it fit L1 (12 KiB).
const noiseElems = 512

// noiseSizes are the segments (in triad passes) and the measurements of a
// mode: about 1 µs to 1 ms of compute.
func noiseSizes(m Mode) (passes []int64, samples int) {
	switch m {
	case Full:
		return []int64{3, 10, 30, 100, 300, 1000, 3000}, 400
	case Quick:
		return []int64{3, 10, 30, 100, 300, 1000, 3000}, 120
	}
	return []int64{3, 30}, 5
}

// noiseKernel is the NOISE benchmark's kernel text.
func noiseKernel(passes []int64) string {
	var b strings.Builder
	b.WriteString("// perfc calibrate: synchronisation noise on 2 ranks (generated)\n")
	b.WriteString("kernel calibrate_noise() on P = 2 ranks {\n")
	fmt.Fprintf(&b, "  array buf[1]: f64\n  array wa[%d], wb[%d], wc[%d]: f64\n", noiseElems, noiseElems, noiseElems)
	settle := "  exchange buf[0:1] with rank ^ 1\n  exchange buf[0:1] with rank ^ 1\n"
	triad := fmt.Sprintf("for i in 0..%d { wa[i] = wb[i] + 3.0*wc[i] }", noiseElems)
	b.WriteString(settle)
	b.WriteString("  region \"NOISE exchange\" {\n    exchange buf[0:1] with rank ^ 1\n  }\n")
	for _, k := range passes {
		b.WriteString(settle)
		fmt.Fprintf(&b, "  region \"NOISE compute %d\" {\n    repeat %d { %s }\n  }\n", k, k, triad)
		fmt.Fprintf(&b, "  region \"NOISE wait %d\" {\n    exchange buf[0:1] with rank ^ 1\n  }\n", k)
	}
	b.WriteString("}\n")
	return b.String()
}

// noisePoint is one segment length's synchronisations.
type noisePoint struct {
	passes  int64
	compute float64   // median segment, s (T)
	excess  float64   // median excess, s
	mean    float64   // mean excess, s (other programs' hiccups of milliseconds weigh on it)
	samples []float64 // every synchronisation's wait beyond the median exchange, s, sorted
}

// quantile is the q-quantile of the point's sorted excesses.
func (p noisePoint) quantile(q float64) float64 {
	return p.samples[min(len(p.samples)-1, int(q*float64(len(p.samples))))]
}

// noiseFit is the NOISE benchmark's law excess(T) = a + b·T, fitted by
// least squares over the points through the origin (a = 0, fitSlope), with
// its residuals.
type noiseFit struct {
	a, b      float64 // s, dimensionless
	exchange  float64 // the exchange alone, s
	points    []noisePoint
	residuals []float64 // excess − (a + b·T) per point, s
	rms       float64   // of the residuals, s
	samples   int
	runs      []float64 // every run's computeTotal, s, in the order run (noiseRun); nil for one
}

// runNoise builds and measures the NOISE benchmark with the runtime perfc
// check uses, noiseRuns times, and fits the law of the run whose segments
// ran fastest (noiseRun).
func runNoise(ctx context.Context, st *settler, mode Mode, cacheDir string, built func()) (*noiseFit, error) {
	passes, samples := noiseSizes(mode)
	var ms []*spmd.Measurement
	for range noiseRuns(mode) {
		m, err := measureBenchmark(ctx, st, "NOISE", kernelSpec{name: "calibrate_noise", text: noiseKernel(passes)}, cacheDir, built,
			"-reps", "1", "-samples", fmt.Sprint(samples))
		if err != nil {
			return nil, err
		}
		ms = append(ms, m)
	}
	return noiseRun(ms, passes)
}

// noiseRuns is how often a mode measures NOISE. One run is as good as
// the minute it ran in: the calibration of 2026-11-27 17:29 ran five of
// its seven segments at half speed (0.51-0.57 µs a triad pass where the
// day's other calibrations measured 0.28-0.31), the two ranks taking
// turns on one core, and the excesses came out about 0.4 T: per_compute 0.258,
// where the day's other laws had 0.0004-0.012, and its table priced the
// two-rank kernels that compute between messages 15-37 % long. A run
// takes about a second.
func noiseRuns(m Mode) int {
	if m == Full || m == Quick {
		return 3
	}
	return 1
}

// noiseRun fits the law of each run and keeps the one whose segments
// took the least compute time in all (the sum of their medians): the run
// in which the ranks had their cores. Its source names the others' totals.
func noiseRun(ms []*spmd.Measurement, passes []int64) (*noiseFit, error) {
	var best *noiseFit
	var totals []float64
	for _, m := range ms {
		f, err := fitNoise(m, passes)
		if err != nil {
			return nil, err
		}
		totals = append(totals, f.computeTotal())
		if best == nil || f.computeTotal() < best.computeTotal() {
			best = f
		}
	}
	best.runs = totals
	return best, nil
}

// computeTotal is the sum of the points' median segments.
func (f *noiseFit) computeTotal() float64 {
	var t float64
	for _, p := range f.points {
		t += p.compute
	}
	return t
}

// measureBenchmark builds a benchmark kernel of several ranks (one the
// analyzer need not count) with the runtime perfc check uses and measures
// it samples times, one run each; bench names it in errors.
func measureBenchmark(ctx context.Context, st *settler, bench string, spec kernelSpec, cacheDir string, built func(), args ...string) (*spmd.Measurement, error) {
	k, err := checkText(spec)
	if err != nil {
		return nil, err
	}
	p, err := codegen.Generate(k, codegen.Options{})
	if err != nil {
		return nil, fmt.Errorf("calibrate: generating the %s benchmark: %w", bench, err)
	}
	dir, err := p.Prepare(cacheDir)
	if err != nil {
		return nil, err
	}
	var m *spmd.Measurement
	err = codegen.WithBinary(ctx, dir, false, func(bin string) (err error) {
		built()
		return st.around(ctx, func() (err error) {
			m, err = codegen.Measure(ctx, bin, args...)
			return err
		})
	})
	if err != nil {
		return nil, fmt.Errorf("calibrate: running the %s benchmark: %w", bench, err)
	}
	return m, nil
}

// fitNoise turns the measurement into points and fits the law.
func fitNoise(m *spmd.Measurement, passes []int64) (*noiseFit, error) {
	byName := map[string][]float64{}
	for _, t := range m.Regions {
		byName[t.Name] = t.SamplesUs
	}
	get := func(name string) ([]float64, error) {
		s, ok := byName[name]
		if !ok || len(s) == 0 {
			return nil, fmt.Errorf("calibrate: region %q of the NOISE benchmark was not measured", name)
		}
		out := make([]float64, len(s))
		for i, v := range s {
			out[i] = v * 1e-6
		}
		return out, nil
	}
	ex, err := get("NOISE exchange")
	if err != nil {
		return nil, err
	}
	f := &noiseFit{exchange: median(ex), samples: len(ex)}
	var xs, ys []float64
	for _, k := range passes {
		c, err := get(fmt.Sprintf("NOISE compute %d", k))
		if err != nil {
			return nil, err
		}
		w, err := get(fmt.Sprintf("NOISE wait %d", k))
		if err != nil {
			return nil, err
		}
		pt := noisePoint{passes: k, compute: median(c)}
		for _, v := range w {
			pt.samples = append(pt.samples, v-f.exchange)
		}
		pt.mean = stat.Mean(pt.samples, nil)
		slices.Sort(pt.samples)
		pt.excess = pt.quantile(0.5)
		f.points = append(f.points, pt)
		xs, ys = append(xs, pt.compute), append(ys, pt.excess)
	}
	f.b = fitSlope(xs, ys, f.exchange)
	var ss float64
	for i := range xs {
		r := ys[i] - (f.a + f.b*xs[i])
		f.residuals = append(f.residuals, r)
		ss += r * r
	}
	f.rms = math.Sqrt(ss / float64(len(xs)))
	return f, nil
}

// fitSlope fits y = b·x through the origin by least squares on relative
// residuals (each point weighted 1/y², as the table's other fits: the
// excesses span three decades, and an absolute fit followed the longest
// segments and missed the short ones by 50×, pricing every exchange tens
// of µs of noise), with b ≥ 0 (a table's noise cannot be negative). Through
// the origin because the excess is a wait less the exchange alone, which
// is the wait after no segment: at T = 0 it is 0 by construction. Until
// session 28 the line had an intercept, an extrapolation below the
// shortest segment: the 17:10 calibration of 2026-11-27 wrote 0.35 µs +
// 0.0116·T where its shortest segment (0.92 µs) measured 0.12 µs, and its
// table priced jacobi_blocking 2 × 1 in L1 5.8 µs of noise in 20
// synchronisations against about 2 µs measured beyond its messages.
func fitSlope(xs, ys []float64, floor float64) float64 {
	floor = max(floor, noiseFloor)
	var sxy, sxx float64
	for i, y := range ys {
		w := 1 / (max(y, floor) * max(y, floor))
		sxy += w * xs[i] * y
		sxx += w * xs[i] * xs[i]
	}
	if !(sxx > 0) {
		return 0
	}
	return max(sxy/sxx, 0)
}

// noiseFloor is the least excess a point's weight is taken at (10 ns):
// a median excess of 0 or below would otherwise weigh infinitely. The fit
// takes the exchange's own time as the floor when it is longer: an excess
// is a wait less that time, and one below it is zero within what the
// subtraction can tell (a median of −0.2 µs at a 1 µs segment, weighed at
// 10 ns, set a law of 0 against waits of 0.45 T at every longer segment).
const noiseFloor = 1e-8

// noiseYAML is messages.noise (docs/machines.md).
type noiseYAML struct {
	Time       string `yaml:"time"`
	PerCompute string `yaml:"per_compute"`
	Source     string `yaml:"source"`
}

// section writes the law with every point's distribution in its source.
func (f *noiseFit) section(date string) *noiseYAML {
	var parts []string
	for i, p := range f.points {
		parts = append(parts, fmt.Sprintf("T %s: median %s (p10 %s, p90 %s, max %s, mean %s; residual %+.2fus)",
			us(p.compute), us(p.excess), us(p.quantile(0.1)), us(p.quantile(0.9)), us(p.samples[len(p.samples)-1]), us(p.mean), f.residuals[i]*1e6))
	}
	return &noiseYAML{
		Time:       us(f.a),
		PerCompute: units.TableNumber(f.b),
		Source: fmt.Sprintf("perfc calibrate NOISE: 2 goroutine ranks each compute T (a triad on 12 KiB in L1) then exchange 8 B; "+
			"excess = the first rank's wait at the exchange − median exchange alone (%s), %d synchronisations per T, excess: %s; least squares on the medians excess = b·T (0 at T = 0 by construction), rms %s, %s",
			us(f.exchange), f.samples, strings.Join(parts, ", "), us(math.Round(f.rms*1e11)/1e11), date) + f.runsNote(),
	}
}

// runsNote says which of several runs the law is of.
func (f *noiseFit) runsNote() string {
	if len(f.runs) < 2 {
		return ""
	}
	var parts []string
	for _, t := range f.runs {
		parts = append(parts, us(t))
	}
	return fmt.Sprintf("; the run whose segments ran fastest of %d (their segments in all: %s)", len(f.runs), strings.Join(parts, ", "))
}

// us writes seconds in microseconds, as a machine table reads them.
func us(s float64) string { return units.TableNumber(s*1e6) + "us" }

// withNoise adds messages.noise to the messages section the
// communication benchmarks wrote.
func withNoise(messages any, n *noiseYAML) (any, error) {
	var node yaml.Node
	if err := node.Encode(messages); err != nil {
		return nil, err
	}
	var v yaml.Node
	if err := v.Encode(n); err != nil {
		return nil, err
	}
	if node.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("calibrate: the messages section is not a mapping")
	}
	node.Content = append(node.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "noise"}, &v)
	return &node, nil
}

// noiseSeconds is NOISE's nominal work in the progress and the deadline:
// one build and its measurements, one short run each (the 120 of a quick
// run took a tenth of a second on this host, 2026-11-27).
func noiseSeconds(m Mode) float64 {
	_, samples := noiseSizes(m)
	return buildSeconds + float64(noiseRuns(m)*samples)*0.002
}
