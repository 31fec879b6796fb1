package fit

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Hockney is one fitted Hockney law t = t0 + n/r∞ over message lengths
// (PARKBENCH [001] eqs. 3.4-3.11): T0 is the start-up time in seconds,
// Rinf the asymptotic bandwidth in bytes per second, and n½ = t0·r∞ the
// length that reaches half of it. The fit keeps its residuals, so that a
// table can say how well the law describes the points it came from.
type Hockney struct {
	T0   float64 // s
	Rinf float64 // B/s, positive and finite
	// From and To are the smallest and largest message length (B) of the
	// points the law was fitted to.
	From, To float64
	// Points is how many points the law was fitted to.
	Points int
	// Residuals are (fitted − measured)/measured for each point, in the
	// order of the points.
	Residuals []float64
}

// NHalf is the half-performance length n½ = t0·r∞ in bytes.
func (h Hockney) NHalf() float64 { return h.T0 * h.Rinf }

// Time is the law's time for n bytes, in seconds.
func (h Hockney) Time(n float64) float64 { return h.T0 + n/h.Rinf }

// RMS is the root mean square of the relative residuals.
func (h Hockney) RMS() float64 { return hkRMS(h.Residuals) }

// MaxResidual is the largest |relative residual|.
func (h Hockney) MaxResidual() float64 { return hkMaxAbs(h.Residuals) }

// FitHockney fits t = t0 + n/r∞ to points (n bytes, t seconds) by least
// squares on the relative residuals (t − fitted)/t: message times span
// four orders of magnitude from 8 B to 4 MiB, and an unweighted fit would
// let the longest message decide t0. The law must be physical, t0 ≥ 0 and
// r∞ > 0: when the free fit gives a negative t0 it is refitted through the
// origin, and a fit whose slope is not positive is an error (the points
// show no bandwidth: too few lengths, or noise larger than the transfer).
func FitHockney(n, t []float64) (Hockney, error) {
	if err := hkCheckPoints(n, t, 2); err != nil {
		return Hockney{}, err
	}
	a, b := hkRelativeLine(n, t, false)
	if a < 0 {
		a, b = hkRelativeLine(n, t, true)
	}
	if !(b > 0) || math.IsInf(b, 0) {
		return Hockney{}, fmt.Errorf("hockney fit over %g..%g B: the time does not grow with the length (slope %.3g s/B): no bandwidth to fit", n[0], n[len(n)-1], b)
	}
	h := Hockney{T0: a, Rinf: 1 / b, From: n[0], To: n[len(n)-1], Points: len(n)}
	h.Residuals = make([]float64, len(n))
	for i := range n {
		h.Residuals[i] = (h.Time(n[i]) - t[i]) / t[i]
	}
	return h, nil
}

// hkCheckPoints rejects what no fit can use: mismatched or too few points,
// lengths that do not increase, times that are not positive and finite.
func hkCheckPoints(n, t []float64, least int) error {
	switch {
	case len(n) != len(t):
		return fmt.Errorf("fit: %d lengths but %d times", len(n), len(t))
	case len(n) < least:
		return fmt.Errorf("fit: %d points; a Hockney law needs at least %d", len(n), least)
	}
	for i := range n {
		if !(t[i] > 0) || math.IsInf(t[i], 0) {
			return fmt.Errorf("fit: the time at %g B is %g s; times must be positive and finite", n[i], t[i])
		}
		if n[i] < 0 || math.IsInf(n[i], 0) || math.IsNaN(n[i]) || (i > 0 && n[i] <= n[i-1]) {
			return errors.New("fit: message lengths must be non-negative, finite and strictly increasing")
		}
	}
	return nil
}

// hkRelativeLine is the weighted least-squares line t ≈ a + b·n with weights
// 1/t² (relative residuals), or through the origin (a = 0).
func hkRelativeLine(n, t []float64, origin bool) (a, b float64) {
	var sw, sx, sy, sxx, sxy float64
	for i := range n {
		w := 1 / (t[i] * t[i])
		sw += w
		sx += w * n[i]
		sy += w * t[i]
		sxx += w * n[i] * n[i]
		sxy += w * n[i] * t[i]
	}
	if origin {
		if sxx == 0 {
			return 0, 0
		}
		return 0, sxy / sxx
	}
	det := sw*sxx - sx*sx
	if det == 0 {
		return sy / sw, 0
	}
	b = (sw*sxy - sx*sy) / det
	return (sy - b*sx) / sw, b
}

// Piecewise is a list of Hockney laws over consecutive ranges of message
// length, for a machine that switches protocol, or whose payload leaves a
// cache, at some length ([001] L541-547: "fit each region separately").
// Below[i] is the length where range i+1 starts (len(Below) =
// len(Laws)−1): the crossing of the two laws when it lies between their
// points, otherwise the first length of the next range, so the piecewise
// time has no jump where it can help it.
type Piecewise struct {
	Laws  []Hockney
	Below []float64 // B
}

// Time is the piecewise law's time for n bytes, as a machine table's
// ranges price it (machines.MessageModel.Time, with each range's
// fitted_to): the range is chosen by the length, and the last range prices
// every length beyond its bound; between a fitted range's last point (To)
// and the next range's start, where nothing was measured, the time goes in
// a straight line from the one law's to the other's.
func (p Piecewise) Time(n float64) float64 {
	for i, b := range p.Below {
		if n < b {
			if lo := p.Laws[i].To; p.Laws[i].Points > 0 && lo < b && n > lo {
				a, c := p.Laws[i].Time(lo), p.Laws[i+1].Time(b)
				return a + (c-a)*(n-lo)/(b-lo)
			}
			return p.Laws[i].Time(n)
		}
	}
	return p.Laws[len(p.Laws)-1].Time(n)
}

// Residuals are the relative residuals of every point, in order.
func (p Piecewise) Residuals() []float64 {
	var out []float64
	for _, h := range p.Laws {
		out = append(out, h.Residuals...)
	}
	return out
}

// RMS and MaxResidual summarise Residuals.
func (p Piecewise) RMS() float64         { return hkRMS(p.Residuals()) }
func (p Piecewise) MaxResidual() float64 { return hkMaxAbs(p.Residuals()) }

// PiecewiseOptions bound the search of FitPiecewise.
type PiecewiseOptions struct {
	// Tolerance is the largest |relative residual| a law may leave on any
	// of its points (0.10 for 10 %).
	Tolerance float64
	// MaxRanges is the most ranges tried (default 4).
	MaxRanges int
	// MinPoints is the fewest points per range (default 3: two points
	// always fit a line and say nothing about its quality).
	MinPoints int
	// MinT0 is the least start-up time a law may have (s): a machine
	// table's Hockney t0 must be positive, and a range whose free fit
	// starts below zero (points that curve upwards) is fitted through the
	// origin, so its t0 is raised to MinT0 (a time far below any message's,
	// such as 1 ns) and its residuals are those of the raised law.
	MinT0 float64
}

// FitPiecewise fits the fewest Hockney ranges that describe every point
// within the tolerance: one law over all points if it fits, else every
// split into two ranges at a boundary between points, then three, and so
// on up to MaxRanges; among the splits with the fewest ranges that fit, the
// one with the smallest sum of squared relative residuals wins. When no
// split fits, the split with the most ranges whose worst point is nearest
// is returned with ok = false (minimax: the smallest sum of squares would
// refine ranges that already fit and leave the worst one as it is); of
// the splits within minimaxMargin of that worst point, the one with the
// smallest sum of squares. The caller can then say that the law misses
// some points and by how much. Points are (n bytes, t seconds), n strictly
// increasing.
func FitPiecewise(n, t []float64, o PiecewiseOptions) (p Piecewise, ok bool, err error) {
	if o.MaxRanges <= 0 {
		o.MaxRanges = 4
	}
	if o.MinPoints < 2 {
		o.MinPoints = 3
	}
	if err := hkCheckPoints(n, t, o.MinPoints); err != nil {
		return Piecewise{}, false, err
	}
	// memo caches the law over points i..j-1 (nil: no positive slope).
	memo := map[[2]int]*Hockney{}
	law := func(i, j int) *Hockney {
		k := [2]int{i, j}
		if h, done := memo[k]; done {
			return h
		}
		h, err := FitHockney(n[i:j], t[i:j])
		var hp *Hockney
		if err == nil {
			if h.T0 < o.MinT0 {
				h.T0 = o.MinT0
				for k := range h.Residuals {
					h.Residuals[k] = (h.Time(n[i+k]) - t[i+k]) / t[i+k]
				}
			}
			hp = &h
		}
		memo[k] = hp
		return hp
	}
	var best []int // boundaries of the best split found so far
	for ranges := 1; ranges <= o.MaxRanges && ranges*o.MinPoints <= len(n); ranges++ {
		found := false
		cost, worst := math.Inf(1), math.Inf(1)
		var split []int
		hkEachSplit(len(n), ranges, o.MinPoints, func(bounds []int) {
			c, w := hkSplitCost(bounds, law)
			switch {
			case math.IsInf(c, 1):
			case w <= o.Tolerance:
				if !found || c < cost {
					found, cost, worst, split = true, c, w, slices.Clone(bounds)
				}
			case !found && (w < worst || w == worst && c < cost):
				cost, worst, split = c, w, slices.Clone(bounds)
			}
		})
		if split == nil {
			continue
		}
		if !found {
			split = hkNearMinimax(len(n), ranges, o.MinPoints, worst, law)
		}
		best = split
		if found {
			return hkAssemble(n, best, law), true, nil
		}
	}
	if best == nil {
		return Piecewise{}, false, fmt.Errorf("fit: no Hockney law with a positive bandwidth fits the %d points (%g..%g B)", len(n), n[0], n[len(n)-1])
	}
	return hkAssemble(n, best, law), false, nil
}

// minimaxMargin is how far (in relative residual) a split's worst point
// may lie above the smallest worst point of its number of ranges and still
// be chosen for a smaller sum of squares, when no split fits. The worst
// point is often one noisy length that no range fits much better than
// another: minimax alone then keeps the split that suits that point and
// may leave a wide range elsewhere. The sendrecv law of 2026-11-27 15:05
// came out with one range over 8 B … 48 KiB at 17.5 % rms (worst 30.6 %)
// while five ranges fitted the longer lengths within 3 %.
const minimaxMargin = 0.02

// hkNearMinimax returns, among the splits into ranges whose worst point is
// within minimaxMargin of worst (the smallest), the one with the smallest
// sum of squared relative residuals.
func hkNearMinimax(total, ranges, least int, worst float64, law func(i, j int) *Hockney) []int {
	var split []int
	cost := math.Inf(1)
	hkEachSplit(total, ranges, least, func(bounds []int) {
		c, w := hkSplitCost(bounds, law)
		if !math.IsInf(c, 1) && w <= worst+minimaxMargin && c < cost {
			cost, split = c, slices.Clone(bounds)
		}
	})
	return split
}

// hkEachSplit calls f with every list of range starts 0 = b0 < b1 < … <
// b(r−1) < total that leaves at least min points in every range; the list
// ends with total.
func hkEachSplit(total, ranges, least int, f func(bounds []int)) {
	bounds := make([]int, ranges+1)
	bounds[ranges] = total
	var rec func(k int)
	rec = func(k int) {
		if k == ranges {
			if total-bounds[k-1] >= least {
				f(bounds)
			}
			return
		}
		for s := bounds[k-1] + least; s+least*(ranges-k) <= total; s++ {
			bounds[k] = s
			rec(k + 1)
		}
	}
	rec(1)
}

// hkSplitCost is the sum of squared relative residuals of a split and
// its largest |relative residual| (+Inf when a range has no law).
func hkSplitCost(bounds []int, law func(i, j int) *Hockney) (ss, worst float64) {
	for k := 0; k+1 < len(bounds); k++ {
		h := law(bounds[k], bounds[k+1])
		if h == nil {
			return math.Inf(1), math.Inf(1)
		}
		for _, r := range h.Residuals {
			ss += r * r
		}
		worst = max(worst, h.MaxResidual())
	}
	return ss, worst
}

// hkAssemble builds the Piecewise law of a split, with its boundaries.
func hkAssemble(n []float64, bounds []int, law func(i, j int) *Hockney) Piecewise {
	var p Piecewise
	for k := 0; k+1 < len(bounds); k++ {
		p.Laws = append(p.Laws, *law(bounds[k], bounds[k+1]))
	}
	for k := 1; k+1 < len(bounds); k++ {
		lo, hi := n[bounds[k]-1], n[bounds[k]]
		p.Below = append(p.Below, hkCrossing(p.Laws[k-1], p.Laws[k], lo, hi))
	}
	return p
}

// hkCrossing is the length where law a (below) meets law b (above), when it
// lies in (lo, hi]; otherwise hi, the first length of b's points. It is
// rounded up to a whole byte.
func hkCrossing(a, b Hockney, lo, hi float64) float64 {
	da, db := 1/a.Rinf, 1/b.Rinf
	if da != db {
		x := (b.T0 - a.T0) / (da - db)
		if x > lo && x <= hi {
			return math.Ceil(x)
		}
	}
	return hi
}

// hkRMS is the root mean square of xs (0 for none).
func hkRMS(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += x * x
	}
	return math.Sqrt(s / float64(len(xs)))
}

// hkMaxAbs is the largest |x| of xs (0 for none).
func hkMaxAbs(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		m = max(m, math.Abs(x))
	}
	return m
}
