package costmodel_test

// Reproduction of the source papers' own predictions (docs/references.md
// for the keys): the CM-5 Gaussian elimination of [004] Tables 6 and 7, the IMH
// collective predictions of [000] Table 5, and the PARKBENCH Table C.2
// identities of [001]. Every expected number below is printed in a paper;
// the tolerances are stated per test and explained in docs/predict.md.

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"perfc/analyze"
	"perfc/costmodel"
	"perfc/examples"
	"perfc/lang"
	"perfc/machines"
	"perfc/parser"
)

// checkedExample parses and checks an example kernel with -D style
// overrides ("N=64").
func checkedExample(tb testing.TB, name string, defines ...string) *lang.Checked {
	tb.Helper()
	src, err := examples.Source(name)
	if err != nil {
		tb.Fatal(err)
	}
	f, err := parser.ParseFile(name+".spmd", src)
	if err != nil {
		tb.Fatalf("parse %s: %v", name, err)
	}
	var ovs []lang.Override
	for _, d := range defines {
		n, v, ok := strings.Cut(d, "=")
		if !ok {
			tb.Fatalf("define %q: want NAME=VALUE", d)
		}
		ovs = append(ovs, lang.Override{Name: n, Value: v})
	}
	k, err := lang.Check(f, "", ovs)
	if err != nil {
		tb.Fatalf("check %s %v: %v", name, defines, err)
	}
	return k
}

// builtin loads a built-in machine table.
func builtin(tb testing.TB, name string) *machines.Machine {
	tb.Helper()
	m, err := machines.Builtin(name)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// predict analyses a checked kernel and prices it, as `perfc predict` does.
func predict(tb testing.TB, k *lang.Checked, m *machines.Machine, opts costmodel.Options) *costmodel.Prediction {
	tb.Helper()
	rep, err := analyze.Analyze(k, analyze.Options{Cache: m.CacheHierarchy()})
	if err != nil {
		tb.Fatalf("analyze %s: %v", k.Kernel.Name.Name, err)
	}
	pred, err := costmodel.Predict(k, rep, m, opts)
	if err != nil {
		tb.Fatalf("predict %s: %v", k.Kernel.Name.Name, err)
	}
	return pred
}

// region returns the region of the slowest rank class called name.
func region(tb testing.TB, p *costmodel.Prediction, name string) costmodel.RegionPrediction {
	tb.Helper()
	for _, r := range p.Regions {
		if r.Name == name {
			return r
		}
	}
	tb.Fatalf("prediction of %s has no region %q", p.Kernel, name)
	return costmodel.RegionPrediction{}
}

// computeTime sums the compute time of every region.
func computeTime(p *costmodel.Prediction) float64 {
	var t float64
	for _, r := range p.Regions {
		t += r.Compute
	}
	return t
}

// relErr is |got − want| / |want|.
func relErr(got, want float64) float64 { return math.Abs(got-want) / math.Abs(want) }

const us, ms = 1e-6, 1e-3

// gaussRow is one column of [004] Tables 6 and 7 (µs per iteration of j,
// and ms for the whole elimination), as printed.
type gaussRow struct {
	N                                       int
	doubleRed, intRed, bcast, comp, perIter float64 // Table 6, µs
	estimated, measured                     float64 // Table 7, ms
}

// gaussTables are [004] Table 6 (L466–474) and Table 7 (L476–480).
var gaussTables = []gaussRow{
	{64, 14.24, 4.36, 604.96, 31.39, 654.95, 41.92, 45.62},
	{128, 14.24, 4.36, 1193.76, 117.18, 1329.54, 170.18, 185.52},
	{256, 14.24, 4.36, 2371.36, 451.96, 2841.92, 727.53, 787.29},
	{512, 14.24, 4.36, 4726.56, 1774.32, 6519.48, 3337.97, 4598.69},
}

// TestGaussTablesArithmetic checks the printed tables against their own
// identities ([004] Tables 6 and 7), so that a typo in gaussTables cannot pass:
// each time per iteration is the sum of its column, and each estimate is N
// times it, to the printed 0.01.
func TestGaussTablesArithmetic(t *testing.T) {
	for _, r := range gaussTables {
		sum := r.doubleRed + r.intRed + r.bcast + r.comp
		if math.Abs(sum-r.perIter) > 0.0051 {
			t.Errorf("N = %d: column sums to %.2f us, printed %.2f", r.N, sum, r.perIter)
		}
		if est := float64(r.N) * r.perIter / 1000; math.Abs(est-r.estimated) > 0.0051 {
			t.Errorf("N = %d: N x %.2f us = %.4f ms, printed %.2f", r.N, r.perIter, est, r.estimated)
		}
	}
}

// TestGaussCommunicationRows: the reduction and broadcast rows of Table 6
// to the printed 0.01 µs, in both modes (they are Table 4 and Eq. 2 at
// l = (N+1)·8 bytes; the paper rules change nothing there).
func TestGaussCommunicationRows(t *testing.T) {
	m := builtin(t, "cm5-32")
	for _, r := range gaussTables {
		k := checkedExample(t, "gauss", "N="+strconv.Itoa(r.N))
		for _, paper := range []bool{false, true} {
			p := predict(t, k, m, costmodel.Options{PaperRules: paper})
			n := float64(r.N)
			for _, c := range []struct {
				region string
				want   float64
			}{
				{"double reduction", r.doubleRed},
				{"integer reduction", r.intRed},
				{"broadcast", r.bcast},
			} {
				got := region(t, p, c.region).Collectives / n / us
				if math.Abs(got-c.want) > 0.005 {
					t.Errorf("N = %d, paper rules %v: %s = %.4f us per iteration, Table 6 prints %.2f", r.N, paper, c.region, got, c.want)
				}
			}
		}
	}
}

// gaussResidualPerRow is the one known difference between the paper rules
// and Table 6's computation row, in µs per matrix row owned per iteration:
// perfc counts the update loop's exact mean length (N+3)/2 where the paper
// used an even offset, and prices the pivot compare, the `!done` test and
// the multiplier divide at 1.50 µs where the paper's constant leaves 1.67
// (docs/predict.md, "Where the residual comes from").
const gaussResidualPerRow = 0.0425

// TestGaussPaperRules: under the paper rules the computation row of Table 6
// is reproduced within 0.5 % (0.27 % at N = 64, falling as 1/N) and Table
// 7's estimate, N × time per iteration, within 0.5 % (0.07 % at most);
// the difference is exactly the documented residual.
func TestGaussPaperRules(t *testing.T) {
	m := builtin(t, "cm5-32")
	for _, r := range gaussTables {
		k := checkedExample(t, "gauss", "N="+strconv.Itoa(r.N))
		p := predict(t, k, m, costmodel.Options{PaperRules: true})
		n := float64(r.N)
		bs := n / 32

		comp := computeTime(p) / n / us
		if e := relErr(comp, r.comp); e > 0.005 {
			t.Errorf("N = %d: computation %.4f us per iteration, Table 6 prints %.2f: error %.3f %% > 0.5 %%", r.N, comp, r.comp, 100*e)
		}
		if want := r.comp + bs*gaussResidualPerRow; math.Abs(comp-want) > 0.006 {
			t.Errorf("N = %d: computation %.4f us; Table 6 %.2f + BS x %.4f residual = %.4f", r.N, comp, r.comp, gaussResidualPerRow, want)
		}
		total := p.Total / ms
		if e := relErr(total, r.estimated); e > 0.005 {
			t.Errorf("N = %d: predicted %.4f ms, Table 7 estimates %.2f: error %.3f %% > 0.5 %%", r.N, total, r.estimated, 100*e)
		}
		if perIter := p.Total / n / us; math.Abs(perIter*n/1000-total) > 1e-9 {
			t.Errorf("N = %d: the total %.6f ms is not N x the time per iteration %.6f us", r.N, total, perIter)
		}
		t.Logf("N = %3d: computation %8.3f us (Table 6 %7.2f, %+.3f %%); estimate %8.3f ms (Table 7 %7.2f, %+.3f %%)",
			r.N, comp, r.comp, 100*(comp-r.comp)/r.comp, total, r.estimated, 100*(total-r.estimated)/r.estimated)
	}
}

// TestGaussExactMode prices the exact counts: the update's multiply-add
// pairs at Table 1's add & multiply entry (0.64 µs) over the exact mean
// length (N+3)/2, the register operations at 11 Mflop/s. Its computation
// row has the closed form BS·(0.16·(N+3) + 0.24 + 1.03 + 0.23 + ½·(1/11))
// + 1/11 µs per iteration; the test checks it and reports the error
// against Table 7's measured column, as docs/predict.md tabulates it.
// Errors are (measured − predicted)/predicted, the convention of both
// papers ([004] L431, [000] Table 5).
func TestGaussExactMode(t *testing.T) {
	m := builtin(t, "cm5-32")
	for _, r := range gaussTables {
		k := checkedExample(t, "gauss", "N="+strconv.Itoa(r.N))
		p := predict(t, k, m, costmodel.Options{})
		n := float64(r.N)
		bs := n / 32
		want := bs*(0.16*(n+3)+0.24+1.03+0.23+0.5/11) + 1.0/11
		if comp := computeTime(p) / n / us; math.Abs(comp-want) > 1e-6 {
			t.Errorf("N = %d: exact computation %.6f us per iteration, want %.6f", r.N, comp, want)
		}
		total := p.Total / ms
		ours := (r.measured - total) / total
		paper := (r.measured - r.estimated) / r.estimated
		t.Logf("N = %3d: paper estimate %8.2f ms, exact prediction %8.2f ms, measured %8.2f ms: our error %+5.1f %%, paper's error %+5.1f %%",
			r.N, r.estimated, total, r.measured, 100*ours, 100*paper)
	}
}

// imhCase is one row of [000] Table 5 (ms) and how an example models it.
type imhCase struct {
	id, example, region string
	defines             []string
	actual, predicted   float64 // ms, as printed
	errPrinted          string  // the error column, as printed
}

// imhTable5 is [000] Table 5 (L763–773) with the examples that model each
// benchmark; message sizes from L754–759, MB = 10^6 B.
var imhTable5 = []imhCase{
	{"V1 permutation", "permutation", "permutation", []string{"m=16000000"}, 320, 320, "0%"},
	{"V2 pingpong", "pingpong", "round trips", []string{"n=2000000", "reps=1"}, 350, 320, "9.4%"},
	{"V3 scatter on 8", "scatter", "scatter", []string{"m=2000000", "P=8"}, 160, 140, "14%"},
	{"V4 scatter on 16", "scatter", "scatter", []string{"m=1000000", "P=16"}, 170, 150, "13%"},
	{"V5 broadcast on 8", "broadcast", "broadcast", []string{"m=2000000", "P=8"}, 63, 60, "5%"},
	{"V6 broadcast on 16", "broadcast", "broadcast", []string{"m=1000000", "P=16"}, 38, 40, "5%"},
}

// printedPercent formats an error as Table 5 prints it: two significant
// digits, no trailing zeros.
func printedPercent(e float64) string {
	return strconv.FormatFloat(100*e, 'g', 2, 64) + "%"
}

// TestIMHTable5 reproduces the predicted column of [000] Table 5 on the sp2
// table, rounded to whole ms as printed, and the printed error column
// |actual − predicted| / predicted. The region of the operation is priced
// (the benchmarks' barrier is not part of the timing). V1 and V2 need the
// paper rules (a sendrecv and a pipelined round trip cost one message);
// exact mode prices both as two messages, 640 ms, and the test logs it.
func TestIMHTable5(t *testing.T) {
	m := builtin(t, "sp2")
	for _, c := range imhTable5 {
		t.Run(c.id, func(t *testing.T) {
			k := checkedExample(t, c.example, c.defines...)
			paper := region(t, predict(t, k, m, costmodel.Options{PaperRules: true}), c.region).Time / ms
			if got := math.Round(paper); got != c.predicted {
				t.Errorf("paper rules: %s predicted %.3f ms, rounds to %.0f; Table 5 prints %.0f", c.id, paper, got, c.predicted)
			}
			if got := printedPercent(math.Abs(c.actual-math.Round(paper)) / math.Round(paper)); got != c.errPrinted {
				t.Errorf("error column: %s, Table 5 prints %s", got, c.errPrinted)
			}
			exact := region(t, predict(t, k, m, costmodel.Options{}), c.region).Time / ms
			t.Logf("%-19s paper rules %8.3f ms, exact %8.3f ms, actual %3.0f ms: error %s (paper rules), %+.1f %% (exact)",
				c.id, paper, exact, c.actual, printedPercent(math.Abs(c.actual-paper)/paper), 100*(c.actual-exact)/exact)
		})
	}
}

// TestIMHExactCollectives: the scatter and broadcast rows do not depend on
// the paper rules (the sp2 table prices them with the IMH formulas).
func TestIMHExactCollectives(t *testing.T) {
	m := builtin(t, "sp2")
	for _, c := range imhTable5[2:] {
		k := checkedExample(t, c.example, c.defines...)
		exact := region(t, predict(t, k, m, costmodel.Options{}), c.region).Time
		paper := region(t, predict(t, k, m, costmodel.Options{PaperRules: true}), c.region).Time
		if exact != paper {
			t.Errorf("%s: exact %.6g s, paper rules %.6g s; want equal", c.id, exact, paper)
		}
	}
}

// c2Row is a row of PARKBENCH Table C.2 where n½ is printed legibly.
type c2Row struct {
	machine string
	lo, hi  float64 // message lengths (B) inside the row's range
	rinf    float64 // MB/s = B/µs
	nhalf   float64 // B
	t0      float64 // ms
	pi0     float64 // kHz
	tol     float64 // relative tolerance of t0 = n½/r∞ and π0 = r∞/n½
}

// tableC2 holds the rows of [001] Table C.2 (L1202–1219) with a legible n½,
// and their tolerances: the table prints 3 digits.
var tableC2 = []c2Row{
	{"ipsc860", 0, 99, 2.36, 179, 0.074, 13.5, 0.03},
	{"ipsc860", 1000, 2000, 2.80, 560, 0.200, 5.0, 0.005},
	{"delta", 0, 511, 3.48, 213, 0.061, 16.3, 0.005},
	{"delta", 1000, 2000, 6.76, 892, 0.132, 7.57, 0.005},
}

// TestParkbenchC2Identities checks t0 = n½/r∞ (eq. 3.7) and π0 = r∞/n½
// (eq. 3.10) through the cost model's message pricing: r∞ is the inverse
// slope of the priced time between two lengths of the row's range, t0 the
// time the law gives a 0-byte message (its intercept), and n½, π0 the
// printed values the identities must relate them to. π0·t0 = 1 within 1 %.
func TestParkbenchC2Identities(t *testing.T) {
	k := checkedExample(t, "pingpong")
	for _, r := range tableC2 {
		p, err := costmodel.NewPricer(builtin(t, r.machine), k)
		if err != nil {
			t.Fatal(err)
		}
		tlo, thi := p.Message(0, 1, int64(r.lo)), p.Message(0, 1, int64(r.hi))
		rinf := (r.hi - r.lo) / (thi - tlo) // B/s
		t0 := tlo - r.lo/rinf               // s
		if r.lo == 0 && t0 != p.Message(0, 1, 0) {
			t.Errorf("%s: intercept %g s is not the 0-byte time", r.machine, t0)
		}
		if e := relErr(rinf/1e6, r.rinf); e > 1e-9 {
			t.Errorf("%s %g-%g B: r_inf = %.6g MB/s from the model, printed %g", r.machine, r.lo, r.hi, rinf/1e6, r.rinf)
		}
		if e := relErr(t0, r.nhalf/rinf); e > r.tol {
			t.Errorf("%s %g-%g B: t0 = %.4g ms, n_half/r_inf = %.4g ms: %.2f %% apart, tolerance %.1f %%",
				r.machine, r.lo, r.hi, t0/ms, r.nhalf/rinf/ms, 100*e, 100*r.tol)
		}
		if e := relErr(rinf/r.nhalf/1e3, r.pi0); e > r.tol {
			t.Errorf("%s %g-%g B: r_inf/n_half = %.4g kHz, printed pi0 %g: %.2f %% apart", r.machine, r.lo, r.hi, rinf/r.nhalf/1e3, r.pi0, 100*e)
		}
		if e := math.Abs(r.pi0*1e3*t0 - 1); e > 0.01 {
			t.Errorf("%s %g-%g B: pi0 x t0 = %.4f, want 1 within 1 %%", r.machine, r.lo, r.hi, r.pi0*1e3*t0)
		}
	}
}
