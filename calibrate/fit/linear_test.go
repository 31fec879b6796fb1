package fit

import (
	"math"
	"math/rand/v2"
	"testing"
)

// withinRel reports whether got is within tol (relative) of want.
func withinRel(got, want, tol float64) bool {
	if want == 0 {
		return math.Abs(got) <= tol
	}
	return math.Abs(got-want) <= tol*math.Abs(want)
}

func TestNNLSRecoversKnownCosts(t *testing.T) {
	tests := []struct {
		name  string
		coef  []float64
		noise float64
	}{
		{"exact", []float64{0.25e-9, 1.9e-9, 0.03e-9, 0.08e-9}, 0},
		{"noisy 0.2%", []float64{0.25e-9, 1.9e-9, 0.03e-9, 0.08e-9}, 0.002},
		{"one cost zero", []float64{0.5e-9, 0, 0.1e-9, 2e-9}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			var x [][]float64
			var y []float64
			for range 40 {
				row := []float64{1e4 + rng.Float64()*1e6, 1e3 + rng.Float64()*1e5, rng.Float64() * 3e6, rng.Float64() * 1e6}
				v := 0.0
				for j := range row {
					v += row[j] * tc.coef[j]
				}
				x, y = append(x, row), append(y, v*(1+tc.noise*(2*rng.Float64()-1)))
			}
			l, err := NNLS(x, y, []string{"iteration", "entry", "load", "store"})
			if err != nil {
				t.Fatal(err)
			}
			for j, want := range tc.coef {
				tol := 0.01
				if want == 0 {
					tol = 1e-12
				}
				if !withinRel(l.Coef[j], want, tol) {
					t.Errorf("%s: got %g, want %g", l.Names[j], l.Coef[j], want)
				}
			}
			if l.RelRMS > tc.noise+1e-9 {
				t.Errorf("rms %g, want at most the noise %g", l.RelRMS, tc.noise)
			}
		})
	}
}

// A law whose best unconstrained fit has a negative coefficient gets 0
// there, and the rest fitted to what is left.
func TestNNLSClampsNegative(t *testing.T) {
	x := [][]float64{{1, 0}, {1, 1}, {1, 2}, {1, 3}}
	y := []float64{4, 3.9, 3.8, 3.7} // falls with the second count
	l, err := NNLS(x, y, []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	if l.Coef[1] != 0 || !withinRel(l.Coef[0], 3.84, 0.01) {
		t.Errorf("got %v, want [≈3.84 0]", l.Coef)
	}
	if len(l.Residuals) != 4 || l.RelRMS <= 0 {
		t.Errorf("residuals %v rms %g: want four, nonzero", l.Residuals, l.RelRMS)
	}
}

func TestNNLSErrors(t *testing.T) {
	tests := []struct {
		name string
		x    [][]float64
		y    []float64
	}{
		{"no rows", nil, nil},
		{"short row", [][]float64{{1}}, []float64{1}},
		{"zero time", [][]float64{{1, 2}}, []float64{0}},
		{"NaN count", [][]float64{{math.NaN(), 2}}, []float64{1}},
	}
	for _, tc := range tests {
		if _, err := NNLS(tc.x, tc.y, []string{"a", "b"}); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

func TestFitRinfRecoversRinfAndNHalf(t *testing.T) {
	const rinf, nhalf = 4.1e9, 7.5 // iterations/s, iterations
	var n, tm []float64
	for _, l := range []float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024} {
		n, tm = append(n, l), append(tm, (l+nhalf)/rinf)
	}
	r, err := FitRinf(n, tm)
	if err != nil {
		t.Fatal(err)
	}
	if !withinRel(r.Rinf, rinf, 0.01) || !withinRel(r.NHalf, nhalf, 0.01) {
		t.Errorf("r∞ %g n½ %g, want %g %g", r.Rinf, r.NHalf, rinf, nhalf)
	}
	if _, err := FitRinf([]float64{1, 2}, []float64{3, 2}); err == nil {
		t.Error("a time that falls with the length: no error")
	}
}

// A design like the latency benchmarks': many operations, each timed by
// its own two regions, some chains sharing a second operation.
func TestNNLSManyColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const cols = 48
	coef := make([]float64, cols)
	names := make([]string, cols)
	for j := range coef {
		coef[j] = (0.3 + rng.Float64()*90) * 1e-9
		names[j] = string(rune('A'+j%26)) + string(rune('a'+j/26))
	}
	var x [][]float64
	var y []float64
	for j := range cols {
		for k := 1; k <= 2; k++ {
			row := make([]float64, cols)
			row[j] = float64(k) * 32768
			if j%5 == 0 { // a chain with a shared operation in it
				row[cols-1] += float64(k) * 32768
			}
			v := 0.0
			for i := range row {
				v += row[i] * coef[i]
			}
			x, y = append(x, row), append(y, v)
		}
	}
	l, err := NNLS(x, y, names)
	if err != nil {
		t.Fatal(err)
	}
	for j := range coef {
		if !withinRel(l.Coef[j], coef[j], 0.01) {
			t.Errorf("%s: got %g, want %g", names[j], l.Coef[j], coef[j])
		}
	}
}

// Two columns that always occur together (exp and the negation in
// exp(−s)) cannot be told apart; the fit must still converge, give the
// other columns their costs and the pair its sum.
func TestNNLSDependentColumns(t *testing.T) {
	x := [][]float64{{1, 0, 0}, {2, 0, 0}, {0, 1, 1}, {0, 2, 2}, {1, 1, 1}}
	want := []float64{0.8, 30, 1} // the pair costs 31 together
	var y []float64
	for _, r := range x {
		y = append(y, r[0]*want[0]+r[1]*want[1]+r[2]*want[2])
	}
	l, err := NNLS(x, y, []string{"add", "exp", "neg"})
	if err != nil {
		t.Fatal(err)
	}
	if !withinRel(l.Coef[0], 0.8, 0.01) || !withinRel(l.Coef[1]+l.Coef[2], 31, 0.01) {
		t.Errorf("got %v, want add 0.8 and exp+neg 31", l.Coef)
	}
}

// Minimize1D finds the least of a function with one minimum to well within
// 1 %, over several decades; on a flat stretch it takes the smallest x;
// it refuses a bad interval.
func TestMinimize1D(t *testing.T) {
	for _, want := range []float64{3e-9, 2.5e-8, 7.7e-7} {
		f := func(x float64) float64 { return math.Abs(math.Log(x / want)) }
		got, fv, err := Minimize1D(f, 1e-11, 1e-5)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-want) > 1e-3*want || fv > 1e-3 {
			t.Errorf("minimum at %g: got %g (f %g)", want, got, fv)
		}
	}
	flat := func(x float64) float64 { return max(0, 1e-8-x) }
	if got, _, _ := Minimize1D(flat, 1e-11, 1e-5); math.Abs(got-1e-8) > 1e-3*1e-8 {
		t.Errorf("flat beyond 1e-8: got %g, want the smallest x on the flat, 1e-8", got)
	}
	if _, _, err := Minimize1D(flat, 0, 1); err == nil {
		t.Error("an interval from 0 must be refused")
	}
}
