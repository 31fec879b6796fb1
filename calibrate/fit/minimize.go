package fit

import (
	"fmt"
	"math"
)

// Minimize1D finds the x in [lo, hi] (0 < lo < hi) where f is least, for
// a law with one nonlinear parameter such as the reorder window: a scan of
// 240 steps, evenly spaced in log x (the parameter's scale is not known in
// advance), then golden-section search between the neighbours of the
// best step. On a flat stretch the smallest x wins: the scan keeps the
// first least value. It returns x and f(x).
func Minimize1D(f func(float64) float64, lo, hi float64) (float64, float64, error) {
	if !(lo > 0 && hi > lo) || math.IsInf(hi, 0) {
		return 0, 0, fmt.Errorf("fit: search interval [%g, %g] must have 0 < lo < hi", lo, hi)
	}
	const steps = 240
	ratio := math.Pow(hi/lo, 1.0/steps)
	best, bestF := lo, f(lo)
	bi := 0
	for i := 1; i <= steps; i++ {
		x := lo * math.Pow(ratio, float64(i))
		if v := f(x); v < bestF {
			best, bestF, bi = x, v, i
		}
	}
	if math.IsNaN(bestF) || math.IsInf(bestF, 0) {
		return 0, 0, fmt.Errorf("fit: the objective is not finite on [%g, %g]", lo, hi)
	}
	a := lo * math.Pow(ratio, float64(max(bi-1, 0)))
	b := lo * math.Pow(ratio, float64(min(bi+1, steps)))
	// Golden section in log x.
	la, lb := math.Log(a), math.Log(b)
	g := (math.Sqrt(5) - 1) / 2
	c, d := lb-g*(lb-la), la+g*(lb-la)
	fc, fd := f(math.Exp(c)), f(math.Exp(d))
	for range 100 {
		if lb-la < 1e-9 {
			break
		}
		if fc <= fd {
			lb, d, fd = d, c, fc
			c = lb - g*(lb-la)
			fc = f(math.Exp(c))
		} else {
			la, c, fc = c, d, fd
			d = la + g*(lb-la)
			fd = f(math.Exp(d))
		}
	}
	if x := math.Exp((la + lb) / 2); f(x) <= bestF {
		best, bestF = x, f(x)
	}
	return best, bestF, nil
}
