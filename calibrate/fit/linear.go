package fit

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Linear is a fitted linear law y ≈ Σ Coef[j]·X[i][j] with the fit's
// residuals kept, so that a table can say how well its numbers fit.
type Linear struct {
	Names     []string  // what each coefficient is (a count's name)
	Coef      []float64 // fitted coefficients, in Names' order
	Fitted    []float64 // the law's value at each point
	Residuals []float64 // measured − fitted, per point
	// RelRMS is the root mean square of the residuals relative to the
	// measured values (0.01 = 1 %): times span orders of magnitude, so
	// an absolute rms would say nothing about the short ones.
	RelRMS float64
}

// NNLS fits y ≈ X·c with every c ≥ 0 by Lawson and Hanson's active-set
// algorithm (Solving Least Squares Problems, 1974, ch. 23), minimising the
// relative residuals (each row is divided by its y, which must be > 0):
// a cost per operation or per byte cannot be negative, and an operation
// that the out-of-order core hides behind others costs 0, not less.
// names labels the columns. Columns that are zero in every row get 0.
func NNLS(x [][]float64, y []float64, names []string) (*Linear, error) {
	a, b, err := relativeSystem(x, y, len(names))
	if err != nil {
		return nil, err
	}
	coef, err := lawsonHanson(a, b)
	if err != nil {
		return nil, err
	}
	return newLinear(x, y, names, coef), nil
}

// relativeSystem builds the weighted system A = X/y, b = 1 (each row
// divided by its measured value), checking shapes and values.
func relativeSystem(x [][]float64, y []float64, cols int) (*mat.Dense, []float64, error) {
	if len(x) == 0 || len(x) != len(y) {
		return nil, nil, fmt.Errorf("fit: %d rows of counts for %d measured values; need as many, at least one", len(x), len(y))
	}
	if cols == 0 {
		return nil, nil, errors.New("fit: no columns to fit")
	}
	a := mat.NewDense(len(x), cols, nil)
	b := make([]float64, len(y))
	for i, row := range x {
		if len(row) != cols {
			return nil, nil, fmt.Errorf("fit: row %d has %d counts, want %d", i, len(row), cols)
		}
		if !(y[i] > 0) || math.IsInf(y[i], 0) {
			return nil, nil, fmt.Errorf("fit: measured value %d is %g; a relative fit needs positive finite values", i, y[i])
		}
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, nil, fmt.Errorf("fit: count %d of row %d is %g", j, i, v)
			}
			a.Set(i, j, v/y[i])
		}
		b[i] = 1
	}
	return a, b, nil
}

// newLinear evaluates the fitted law at every point.
func newLinear(x [][]float64, y []float64, names []string, coef []float64) *Linear {
	l := &Linear{Names: names, Coef: coef, Fitted: make([]float64, len(y)), Residuals: make([]float64, len(y))}
	var ss float64
	for i, row := range x {
		for j, v := range row {
			l.Fitted[i] += v * coef[j]
		}
		l.Residuals[i] = y[i] - l.Fitted[i]
		r := l.Residuals[i] / y[i]
		ss += r * r
	}
	l.RelRMS = math.Sqrt(ss / float64(len(y)))
	return l
}

// Coefficient returns the fitted coefficient named name (0 and false when
// there is none).
func (l *Linear) Coefficient(name string) (float64, bool) {
	for j, n := range l.Names {
		if n == name {
			return l.Coef[j], true
		}
	}
	return 0, false
}

// lawsonHanson solves min ‖A·c − b‖ subject to c ≥ 0. The columns are
// scaled to unit length first (counts of different things differ by
// orders of magnitude) and the solution scaled back.
func lawsonHanson(a *mat.Dense, b []float64) ([]float64, error) {
	m, n := a.Dims()
	scale := make([]float64, n)
	as := mat.DenseCopyOf(a)
	for j := range n {
		scale[j] = mat.Norm(as.ColView(j), 2)
		if scale[j] > 0 {
			col := mat.Col(nil, j, as)
			for i := range col {
				col[i] /= scale[j]
			}
			as.SetCol(j, col)
		}
	}
	bv := mat.NewVecDense(m, append([]float64(nil), b...))
	x := make([]float64, n)
	passive := make([]bool, n)
	tol := 1e-12 * float64(max(m, n))
	for iter := 0; iter < 3*n+10; iter++ {
		w := gradient(as, bv, x)
		t := enteringColumn(as, bv, w, passive, scale, tol)
		if t < 0 {
			break // Kuhn–Tucker conditions hold
		}
		passive[t] = true
		for inner := 0; ; inner++ {
			if inner > 3*n+10 {
				return nil, errors.New("fit: the non-negative least-squares iteration did not converge")
			}
			z, err := solvePassive(as, bv, passive)
			if err != nil {
				return nil, err
			}
			if allPositive(z, passive) {
				copy(x, z)
				break
			}
			alpha := math.Inf(1)
			for j := range n {
				if passive[j] && z[j] <= 0 {
					alpha = min(alpha, x[j]/(x[j]-z[j]))
				}
			}
			for j := range n {
				x[j] += alpha * (z[j] - x[j])
				if passive[j] && x[j] <= tol {
					passive[j], x[j] = false, 0
				}
			}
		}
	}
	for j := range n {
		if scale[j] > 0 {
			x[j] /= scale[j]
		} else {
			x[j] = 0
		}
	}
	return x, nil
}

// enteringColumn picks the column that enters the passive set: the one
// of largest gradient among those whose least-squares coefficient with
// the passive set is positive. In exact arithmetic the largest gradient
// always qualifies; in floating point, a column (nearly) dependent on the
// passive ones may get a coefficient ≤ 0, enter, leave at once and be
// picked again for ever, so it is passed over (Lawson and Hanson's
// safeguard, ch. 23 step 6). -1 when none can enter.
func enteringColumn(a *mat.Dense, b *mat.VecDense, w []float64, passive []bool, scale []float64, tol float64) int {
	blocked := make([]bool, len(w))
	for {
		t, best := -1, tol
		for j := range w {
			if !passive[j] && !blocked[j] && scale[j] > 0 && w[j] > best {
				t, best = j, w[j]
			}
		}
		if t < 0 {
			return -1
		}
		trial := append([]bool(nil), passive...)
		trial[t] = true
		z, err := solvePassive(a, b, trial)
		if err == nil && z[t] > 0 {
			return t
		}
		blocked[t] = true
	}
}

// gradient returns Aᵀ(b − A·x), the descent direction of the residual.
func gradient(a *mat.Dense, b *mat.VecDense, x []float64) []float64 {
	m, n := a.Dims()
	r := mat.NewVecDense(m, nil)
	r.MulVec(a, mat.NewVecDense(n, append([]float64(nil), x...)))
	r.SubVec(b, r)
	var w mat.VecDense
	w.MulVec(a.T(), r)
	return w.RawVector().Data
}

// solvePassive solves the unconstrained least-squares problem on the
// passive columns (the others held at 0).
func solvePassive(a *mat.Dense, b *mat.VecDense, passive []bool) ([]float64, error) {
	m, n := a.Dims()
	var cols []int
	for j, p := range passive {
		if p {
			cols = append(cols, j)
		}
	}
	sub := mat.NewDense(m, len(cols), nil)
	for k, j := range cols {
		sub.SetCol(k, mat.Col(nil, j, a))
	}
	var sol mat.VecDense
	var qr mat.QR
	qr.Factorize(sub)
	if err := qr.SolveVecTo(&sol, false, b); err != nil {
		// Rank-deficient passive set: fall back to the pseudo-inverse
		// through the SVD, which picks the least-norm solution.
		var svd mat.SVD
		if !svd.Factorize(sub, mat.SVDThin) {
			return nil, fmt.Errorf("fit: the counts are degenerate: %v", err)
		}
		rank := svd.Rank(1e-12)
		if rank == 0 {
			return nil, fmt.Errorf("fit: the counts are degenerate: %v", err)
		}
		var s mat.Dense
		svd.SolveTo(&s, mat.NewDense(m, 1, b.RawVector().Data), rank)
		sol = *mat.NewVecDense(len(cols), mat.Col(nil, 0, &s))
	}
	z := make([]float64, n)
	for k, j := range cols {
		z[j] = sol.AtVec(k)
	}
	return z, nil
}

// allPositive reports whether every passive coefficient is > 0.
func allPositive(z []float64, passive []bool) bool {
	for j, p := range passive {
		if p && z[j] <= 0 {
			return false
		}
	}
	return true
}

// Rinf is RINF1's law for a loop of length n: t(n) = (n + n½)/r∞ per
// entry of the loop (PARKBENCH eq. 3.1), fitted as the straight line
// t = Startup + n/Rinf.
type Rinf struct {
	Rinf    float64 // r∞: iterations per second of an infinitely long loop
	NHalf   float64 // n½: the length at which half of r∞ is reached
	Startup float64 // seconds per entry: n½/r∞
	Line    *Linear // the fitted line: coefficients "entry" (s) and "iteration" (s)
}

// FitRinf fits t = a + b·n (a, b ≥ 0, relative residuals) to the time per
// loop entry t measured at loop lengths n, and returns r∞ = 1/b and
// n½ = a/b.
func FitRinf(n, t []float64) (*Rinf, error) {
	if len(n) < 2 {
		return nil, fmt.Errorf("fit: r∞ and n½ need at least two loop lengths, got %d", len(n))
	}
	x := make([][]float64, len(n))
	for i := range n {
		x[i] = []float64{1, n[i]}
	}
	l, err := NNLS(x, t, []string{"entry", "iteration"})
	if err != nil {
		return nil, err
	}
	if l.Coef[1] <= 0 {
		return nil, errors.New("fit: the time does not grow with the loop length, so r∞ is unbounded; the host was probably busy while the loop was timed: rerun on a quiet machine")
	}
	return &Rinf{Rinf: 1 / l.Coef[1], NHalf: l.Coef[0] / l.Coef[1], Startup: l.Coef[0], Line: l}, nil
}
