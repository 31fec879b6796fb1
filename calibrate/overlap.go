package calibrate

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"perfc/calibrate/fit"
)

// Does the core overlap its in-core terms? The pricing adds loop overhead,
// loads, stores and operations (T_core = iterations·loop.iteration + … ,
// docs/predict.md); an out-of-order core with separate ports may instead
// overlap them, as the ECM model's T_OL and T_nOL say (in-core time is
// max(T_OL, T_nOL), arithmetic against the load and store ports), or run
// each port group apart (the time of a loop is its busiest group's). The
// choice is made on evidence: calibrate fits each form on part of the
// in-core benchmarks (the loop sweep, one statement per iteration, copy
// and store) and compares them on the rest (RINF1 at every length, two
// statements per iteration, two copies per iteration), which none of the
// fits sees. Those held-out regions combine terms in proportions the
// training regions do not, which is exactly where the forms differ.
// docs/predict.md, "In-core terms: added, not overlapped", gives the
// figures of this host and the decision.

// composition is one form of T_core: features outside every group add;
// the time of the groups is the largest group's (one group: the additive
// form).
type composition struct {
	name   string
	groups [][]string // feature names per group; "ops" stands for every operation feature
}

// compositions are the forms compared: the pricing's additive form, ECM's
// overlap of arithmetic and loop (T_OL) with the accesses (T_nOL), and
// one time per port group.
var compositions = []composition{
	{"additive: loop + accesses + operations", [][]string{{featIteration, featLoad, featStore, "ops"}}},
	{"ECM overlap: max(loop + operations, loads + stores)", [][]string{{featIteration, "ops"}, {featLoad, featStore}}},
	{"port groups: max(loop, loads + stores, operations)", [][]string{{featIteration}, {featLoad, featStore}, {"ops"}}},
}

// compositionResult is one form's fit and its error where it was fitted
// and where it was not.
type compositionResult struct {
	form                composition
	trainRMS, heldRMS   float64 // relative rms
	heldWorst           float64 // largest |relative error| on the held-out regions
	heldWorstName       string
	trainN, heldN, iter int
}

// heldOut reports whether a throughput benchmark is kept out of the fits
// of the composition study.
func heldOut(p point) bool {
	return p.group == groupRinf || (p.group == groupOps && p.k == 2) || strings.HasPrefix(p.name, "copy2 ")
}

// groupOf returns the group of feature f in form c, or -1 for a feature
// that adds outside the groups (the loop entry).
func (c composition) groupOf(f string) int {
	for i, g := range c.groups {
		for _, x := range g {
			if x == f || (x == "ops" && !slices.Contains([]string{featIteration, featEntry, featLoad, featStore}, f)) {
				return i
			}
		}
	}
	return -1
}

// studyCompositions fits every form on the training regions of the
// throughput benchmarks and measures it on the held-out ones.
func studyCompositions(pts []point) ([]compositionResult, error) {
	var train, held []point
	for _, p := range pts {
		switch p.group {
		case groupLoop, groupRinf, groupAccess, groupOps:
			if heldOut(p) {
				held = append(held, p)
			} else {
				train = append(train, p)
			}
		}
	}
	if len(train) == 0 || len(held) == 0 {
		return nil, nil
	}
	var out []compositionResult
	for _, c := range compositions {
		coef, iter, err := fitComposition(c, train)
		if err != nil {
			return nil, fmt.Errorf("calibrate: composition %q: %w", c.name, err)
		}
		r := compositionResult{form: c, trainN: len(train), heldN: len(held), iter: iter}
		r.trainRMS, _, _ = compositionRMS(c, coef, train)
		r.heldRMS, r.heldWorst, r.heldWorstName = compositionRMS(c, coef, held)
		out = append(out, r)
	}
	return out, nil
}

// predictComposition is form c's time for a row of features.
func predictComposition(c composition, coef map[string]float64, f map[string]float64) float64 {
	groups := make([]float64, len(c.groups))
	var outside float64
	// In a fixed order, so that the same fit prints the same figures.
	for _, k := range slices.Sorted(maps.Keys(f)) {
		t := coef[k] * max(f[k], 0)
		if g := c.groupOf(k); g >= 0 {
			groups[g] += t
		} else {
			outside += t
		}
	}
	return outside + slices.Max(groups)
}

// compositionRMS is the relative rms and the worst relative error of form
// c with coef over pts.
func compositionRMS(c composition, coef map[string]float64, pts []point) (rms, worst float64, worstName string) {
	var ss float64
	for _, p := range pts {
		d := (predictComposition(c, coef, coreFeatures(p)) - p.seconds) / p.seconds
		ss += d * d
		if math.Abs(d) > math.Abs(worst) {
			worst, worstName = d, p.name
		}
	}
	return math.Sqrt(ss / float64(len(pts))), worst, worstName
}

// fitComposition fits form c's costs on pts. The additive form is one
// NNLS. A form with several groups is a maximum of linear laws, which has
// local minima that alternating least squares falls into (a group the
// first fit leaves idle never becomes the busiest again); it is fitted by
// gradient descent (Adam) on the costs' logarithms, so that they stay
// positive, with the maximum smoothed into a soft maximum whose
// temperature falls from a third of each region's time to nothing, so
// that every group learns from every region before the maximum hardens.
// It starts from the additive fit's costs. It returns the costs and the
// number of steps.
func fitComposition(c composition, pts []point) (map[string]float64, int, error) {
	rows := make([]map[string]float64, len(pts))
	y := make([]float64, len(pts))
	for i, p := range pts {
		rows[i], y[i] = coreFeatures(p), p.seconds
	}
	x, names := design(rows, []string{featIteration, featEntry, featLoad, featStore})
	l, err := fit.NNLS(x, y, names)
	if err != nil {
		return nil, 1, err
	}
	coef := map[string]float64{}
	for j, n := range l.Names {
		coef[n] = l.Coef[j]
	}
	if len(c.groups) == 1 {
		return coef, 1, nil
	}
	group := make([]int, len(names))
	theta := make([]float64, len(names))
	scale := 0.0
	for j, n := range names {
		group[j] = c.groupOf(n)
		scale = max(scale, coef[n])
	}
	for j, n := range names {
		theta[j] = math.Log(max(coef[n], 1e-3*scale))
	}
	const steps = 4000
	m, v := make([]float64, len(names)), make([]float64, len(names))
	grad := make([]float64, len(names))
	g := make([]float64, len(c.groups))
	w := make([]float64, len(c.groups))
	for step := 1; step <= steps; step++ {
		temp := (1.0 / 3) * math.Pow(1-float64(step)/steps, 2)
		clear(grad)
		for i, row := range x {
			clear(g)
			var outside float64
			for j, cnt := range row {
				t := cnt * math.Exp(theta[j])
				if group[j] < 0 {
					outside += t
				} else {
					g[group[j]] += t
				}
			}
			top := slices.Max(g)
			soft := top
			if temp > 0 {
				tau := temp * y[i]
				var z float64
				for k := range g {
					w[k] = math.Exp((g[k] - top) / tau)
					z += w[k]
				}
				soft = top + tau*math.Log(z)
				for k := range w {
					w[k] /= z
				}
			} else {
				for k := range g {
					w[k] = 0
					if g[k] == top {
						w[k] = 1
					}
				}
			}
			r := (outside + soft - y[i]) / y[i]
			for j, cnt := range row {
				if cnt == 0 {
					continue
				}
				share := 1.0
				if group[j] >= 0 {
					share = w[group[j]]
				}
				grad[j] += 2 * r / y[i] * share * cnt * math.Exp(theta[j])
			}
		}
		const lr, b1, b2 = 0.02, 0.9, 0.999
		for j := range theta {
			m[j] = b1*m[j] + (1-b1)*grad[j]
			v[j] = b2*v[j] + (1-b2)*grad[j]*grad[j]
			mh := m[j] / (1 - math.Pow(b1, float64(step)))
			vh := v[j] / (1 - math.Pow(b2, float64(step)))
			theta[j] -= lr * mh / (math.Sqrt(vh) + 1e-12)
		}
	}
	for j, n := range names {
		coef[n] = math.Exp(theta[j])
	}
	return coef, steps, nil
}
