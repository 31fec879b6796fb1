package comms

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"
)

// term is one basis function of a collective's cost formula over the
// message length and the rank count.
type term int

// The terms: a constant, log2(P), P − 1 and P·log2(P); bytes times each
// of them; and the bytes beyond a knee, max(0, bytes − knee), times each
// of them. Binomial trees and recursive doubling cost log2(P) steps;
// rings, pairwise exchanges and P-block buffers cost P − 1 (shared/
// reference/models.md §8, the MPICH algorithms the runtime uses); and when
// P goroutine ranks share a few cores, each of the log2(P) steps waits for
// P/cores ranks to be scheduled, P·log2(P) (host-baseline.md: allreduce of
// 8 B in 0.21, 0.85, 2.60, 6.47 us at P = 2, 4, 8, 16 on 2 cores is
// 0.105 us × P·log2(P) within 4 %). The knee is where the pingpong's first
// Hockney range ends (the payloads leave the first-level cache): beyond
// it a byte costs more, and a formula linear in bytes cannot follow both
// sides within 10 %.
const (
	tConst term = iota
	tLog
	tLinear
	tPLog
	tBytes
	tBytesLog
	tBytesLinear
	tBytesPLog
	tKnee
	tKneeLog
	tKneeLinear
	tKneePLog
	// tOver and tBytesOver are max(0, P − cores) and bytes times it: the
	// ranks beyond the cores of one host. Open MPI's ranks poll while they
	// wait and, oversubscribed, yield the core after each poll, so every
	// step of a collective waits for the scheduler: on the 2-core host an
	// 8 B allreduce cost 0.5 µs on 2 ranks and 12–29 µs on 4 (docs/mpi.md),
	// a jump no non-negative combination of log2(P), P − 1 and P·log2(P)
	// follows. They are tried only for an MPI calibration on one host
	// (Transport.Cores), where some rank counts exceed its cores.
	tOver
	tBytesOver
	nTerms
)

// value is the term at (bytes, P) with the formula's knee and cores.
func (t term) value(bytes, p, knee, cores float64) float64 {
	switch t {
	case tOver:
		return max(0, p-cores)
	case tBytesOver:
		return bytes * max(0, p-cores)
	}
	var b float64
	switch t / 4 {
	case 0:
		b = 1
	case 1:
		b = bytes
	default:
		b = max(0, bytes-knee)
	}
	switch t % 4 {
	case tLog:
		return b * math.Log2(p)
	case tLinear:
		return b * (p - 1)
	case tPLog:
		return b * p * math.Log2(p)
	}
	return b
}

// pTerms are the terms that depend on P alone.
var pTerms = []term{tLog, tLinear, tPLog}

// forms are the formulas tried, each a set of terms: a + b·g(P) +
// bytes·(c + d·h(P)) for g and h each one of log2(P), P − 1 and
// P·log2(P); two of them in both places (on three rank counts, 1, g and h
// span every function of P, so that form follows any line per rank
// count); and, when a knee is given, a + b·g(P) + bytes·(c + d·h(P)) +
// max(0, bytes − knee)·(e + f·k(P)). Coefficients are non-negative, so a
// formula never goes negative and grows with P and bytes when it
// extrapolates.
//
// With over (an MPI calibration on one host whose rank counts exceed its
// cores), the first forms are also tried with max(0, P − cores) and bytes
// times it added: a + b·g(P) + c·max(0, P − cores) + bytes·(d + e·h(P) +
// f·max(0, P − cores)).
func forms(knee, over bool) [][]term {
	var out [][]term
	for _, g := range pTerms {
		for _, h := range pTerms {
			out = append(out, []term{tConst, g, tBytes, h + tBytes})
			if over {
				out = append(out, []term{tConst, g, tOver, tBytes, h + tBytes, tBytesOver})
			}
		}
	}
	for i, g := range pTerms {
		for _, h := range pTerms[i+1:] {
			out = append(out, []term{tConst, g, h, tBytes, g + tBytes, h + tBytes})
		}
	}
	if knee {
		for _, g := range pTerms {
			for _, h := range pTerms {
				for _, k := range pTerms {
					out = append(out, []term{tConst, g, tBytes, h + tBytes, tKnee, k + tKnee})
				}
			}
		}
	}
	return out
}

// Formula is a fitted cost formula: Coef[t] multiplies term t (seconds,
// or seconds per byte for the bytes terms), with the relative residual of
// every point it was fitted to.
type Formula struct {
	Coef      [nTerms]float64
	Knee      float64 // B; the knee terms' max(0, bytes − Knee)
	Cores     float64 // the over terms' max(0, P − Cores); 0 without them
	Residuals []float64
}

// Time is the formula's time in seconds for bytes on p ranks.
func (f Formula) Time(bytes float64, p int) float64 { return f.at(bytes, float64(p)) }

// at is Time for a rank count that need not be whole (plots).
func (f Formula) at(bytes, p float64) float64 {
	s := 0.0
	for t := range nTerms {
		s += f.Coef[t] * t.value(bytes, p, f.Knee, f.Cores)
	}
	return s
}

// Terms counts the non-zero coefficients.
func (f Formula) Terms() int {
	n := 0
	for _, c := range f.Coef {
		if c != 0 {
			n++
		}
	}
	return n
}

// RMS is the root mean square of the relative residuals; MaxResidual the
// largest |relative residual|.
func (f Formula) RMS() float64 {
	s := 0.0
	for _, r := range f.Residuals {
		s += r * r
	}
	return math.Sqrt(s / float64(max(1, len(f.Residuals))))
}

// MaxResidual is the largest |relative residual|.
func (f Formula) MaxResidual() float64 {
	m := 0.0
	for _, r := range f.Residuals {
		m = max(m, math.Abs(r))
	}
	return m
}

// FitFormula fits every form to the points (bytes, P, seconds) by
// non-negative least squares on relative residuals and returns the best:
// the smallest rms, except that a form with fewer non-zero terms is
// preferred when its rms is within 10 % of the best, or one percentage
// point, or half the tolerance (5 %), since every extra term is
// extrapolated to lengths and rank counts nobody measured. A fit has
// fewer terms than points (at least one term), so that its rms says
// something. A knee above zero (bytes) adds the forms with terms beyond
// it when two lengths or more lie on either side of it: one length cannot
// show a change of slope.
func FitFormula(pts []Point, knee float64) (Formula, error) {
	return fitFormula(pts, knee, 0)
}

// fitFormula is FitFormula with the over forms (max(0, P − cores)) added
// when cores is positive and some point has more ranks than cores.
func fitFormula(pts []Point, knee float64, cores int) (Formula, error) {
	if len(pts) < 2 {
		return Formula{}, errors.New("a collective formula needs at least two points")
	}
	below, beyond := map[float64]bool{}, map[float64]bool{}
	for _, p := range pts {
		if p.Bytes > knee {
			beyond[p.Bytes] = true
		} else {
			below[p.Bytes] = true
		}
	}
	useKnee := knee > 0 && len(below) >= 2 && len(beyond) >= 2
	over := false
	for _, p := range pts {
		over = over || cores > 0 && p.Ranks > cores
	}
	sh := shape{knee: knee}
	if over {
		sh.cores = float64(cores)
	}
	var fits []Formula
	for _, form := range forms(useKnee, over) {
		if f, ok := fitForm(pts, form, sh); ok {
			fits = append(fits, f)
		}
	}
	if len(fits) == 0 {
		return Formula{}, errors.New("no formula over bytes and P fits these points")
	}
	best := fits[0]
	for _, f := range fits[1:] {
		if f.RMS() < best.RMS() {
			best = f
		}
	}
	tol := max(best.RMS()*1.1, best.RMS()+0.01, Tolerance/2)
	simplest := best
	for _, f := range fits {
		if f.RMS() <= tol && (f.Terms() < simplest.Terms() || f.Terms() == simplest.Terms() && f.RMS() < simplest.RMS()) {
			simplest = f
		}
	}
	return simplest, nil
}

// fitForm is the non-negative least-squares fit of one form, found by
// trying every subset of its terms: the optimum of a non-negative fit is
// the free fit on the set of its non-zero terms, so the best subset whose
// free fit has no negative coefficient is it (at most 2^6 small solves).
// Subsets whose columns are dependent on these points (log2(P) and P − 1
// with two rank counts; bytes terms when every length is 0; knee terms
// when no length is beyond it) are skipped.
// shape is what a formula's terms are evaluated with besides bytes and P.
type shape struct{ knee, cores float64 }

func fitForm(pts []Point, form []term, sh shape) (Formula, bool) {
	var best Formula
	bestSS, found := math.Inf(1), false
	most := max(1, len(pts)-1)
	for mask := 1; mask < 1<<len(form); mask++ {
		var sub []term
		for i, t := range form {
			if mask&(1<<i) != 0 {
				sub = append(sub, t)
			}
		}
		if len(sub) > most {
			continue
		}
		coef, ok := relativeLS(pts, sub, sh)
		if !ok {
			continue
		}
		f := Formula{Knee: sh.knee, Cores: sh.cores}
		for i, t := range sub {
			f.Coef[t] = coef[i]
		}
		f.prune(pts)
		ss := 0.0
		f.Residuals = make([]float64, len(pts))
		for i, p := range pts {
			r := (f.Time(p.Bytes, p.Ranks) - p.Time) / p.Time
			f.Residuals[i] = r
			ss += r * r
		}
		if ss < bestSS*(1-1e-9) {
			best, bestSS, found = f, ss, true
		}
	}
	return best, found
}

// negligible is the share of a point's time below which a term is
// rounding noise of the solve rather than a cost (10^-4 of every point).
const negligible = 1e-4

// prune zeroes the terms that contribute less than negligible to every
// point, so that the written formula has no 10^-14 ps/B terms.
func (f *Formula) prune(pts []Point) {
	for t := range nTerms {
		if f.Coef[t] == 0 {
			continue
		}
		small := true
		for _, p := range pts {
			if f.Coef[t]*t.value(p.Bytes, float64(p.Ranks), f.Knee, f.Cores) > negligible*p.Time {
				small = false
				break
			}
		}
		if small {
			f.Coef[t] = 0
		}
	}
}

// relativeLS solves min Σ ((Σ c_j term_j(p) − t_p)/t_p)² for the given
// terms; ok is false when a coefficient is negative or the columns are
// (numerically) dependent.
func relativeLS(pts []Point, terms []term, sh shape) ([]float64, bool) {
	m, k := len(pts), len(terms)
	if m < k {
		return nil, false
	}
	a := mat.NewDense(m, k, nil)
	b := mat.NewVecDense(m, nil)
	scale := make([]float64, k)
	for i, p := range pts {
		for j, t := range terms {
			a.Set(i, j, t.value(p.Bytes, float64(p.Ranks), sh.knee, sh.cores)/p.Time)
		}
		b.SetVec(i, 1)
	}
	// Scale every column to unit norm: bytes terms are 10^5 times the
	// constant's, and the rank test below needs comparable columns.
	for j := range k {
		scale[j] = mat.Norm(a.ColView(j), 2)
		if scale[j] == 0 {
			return nil, false
		}
		for i := range m {
			a.Set(i, j, a.At(i, j)/scale[j])
		}
	}
	var qr mat.QR
	qr.Factorize(a)
	var r mat.Dense
	qr.RTo(&r)
	for j := range k {
		if math.Abs(r.At(j, j)) < 1e-9 {
			return nil, false
		}
	}
	var x mat.VecDense
	if err := qr.SolveVecTo(&x, false, b); err != nil {
		return nil, false
	}
	out := make([]float64, k)
	for j := range k {
		out[j] = x.AtVec(j) / scale[j]
		if out[j] < 0 || math.IsNaN(out[j]) || math.IsInf(out[j], 0) {
			return nil, false
		}
	}
	return out, true
}
