package emulate

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// noisyPricer is a unit machine (a flop 1 s, every message 1 s) whose
// synchronisations lose excess(c) = perCompute·c (SyncNoise).
type noisyPricer struct {
	unitPricer
	perCompute float64
}

func (p noisyPricer) SyncNoise() (func(c float64) float64, bool) {
	return func(c float64) float64 { return p.perCompute * c }, true
}

// TestNoiseDelay checks the closed form of the expected delay (docs/
// emulate.md, "Synchronisation noise") by hand and against a Monte Carlo
// draw of the arrivals it models: A = t − m + X, X exponential of mean m.
func TestNoiseDelay(t *testing.T) {
	m := 2.0
	for _, tc := range []struct {
		name           string
		tp, tw, a, b   float64
		want           float64
		symmetricCheck bool
	}{
		{"equal arrivals and scales: m/2", 5, 5, m, m, m / 2, true},
		{"the waiter D ahead: (m/2)·e^(−D/m)", 5, 8, m, m, m / 2 * math.Exp(-3/m), true},
		{"the partner D ahead: the same", 8, 5, m, m, m / 2 * math.Exp(-3/m), true},
		{"no noise", 5, 7, 0, 0, 0, true},
		// K = 14 − 10 + 2 − 2.8 = 3.2 ≥ 0: a²/(a+b)·e^(−K/a).
		{"unequal scales, K ≥ 0", 10, 14, 2, 2.8, 4 / 4.8 * math.Exp(-1.6), true},
		// K = 10 − 14 + 2.8 − 2 = −3.2 < 0: a − b − K + b²/(a+b)·e^(K/b) − (tp − tw).
		{"unequal scales, K < 0", 14, 10, 2.8, 2, 2.8 - 2 + 3.2 + 4/4.8*math.Exp(-1.6) - 4, true},
		// A partner without noise and a noisy waiter ahead of it: the
		// waiter is late only with its own tail, b·e^((tw − tp − b)/b).
		{"only the waiter jitters", 10, 9, 0, 3, 3 * math.Exp(-4.0/3), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := noiseDelay(tc.tp, tc.tw, tc.a, tc.b)
			if math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("noiseDelay(%g, %g, %g, %g) = %.15g, want %.15g", tc.tp, tc.tw, tc.a, tc.b, got, tc.want)
			}
			if back := noiseDelay(tc.tw, tc.tp, tc.b, tc.a); math.Abs(back-got) > 1e-12 {
				t.Errorf("not symmetric: %.15g with the sides swapped, %.15g", back, got)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			const n = 400_000
			var sum float64
			for range n {
				ap, aw := tc.tp, tc.tw
				if tc.a > 0 {
					ap += tc.a*rng.ExpFloat64() - tc.a
				}
				if tc.b > 0 {
					aw += tc.b*rng.ExpFloat64() - tc.b
				}
				sum += max(ap, aw)
			}
			mc := sum/n - max(tc.tp, tc.tw)
			if math.Abs(mc-got) > 0.02*max(tc.a, tc.b, 0.1) {
				t.Errorf("Monte Carlo %.4g, closed form %.4g", mc, got)
			}
		})
	}
}

// TestNoiseByHand checks emulations with a noise law worked out by hand
// on the unit machine with excess(c) = 0.1·c, so a rank that computed c
// has the scale m = 0.2·c.
func TestNoiseByHand(t *testing.T) {
	const exchange = `kernel ex(n0 = 10, n1 = 10) on P = 2 ranks {
  array a[8], b[100]: f64
  region "work" {
    if rank == 0 {
      for i in 0..n0 { b[i] = b[i] * 2.0 }
    } else {
      for i in 0..n1 { b[i] = b[i] * 2.0 }
    }
  }
  region "halo" {
    if rank == 0 {
      send a to 1
    } else {
      recv a from 0
    }
  }
}`
	const posted = `kernel ov(c = 5) on P = 2 ranks {
  array a[8], b[100]: f64
  for i in 0..10 { b[i] = b[i] * 2.0 }
  if rank == 0 {
    isend a to 1 as r
  } else {
    irecv a from 0 as r
  }
  for i in 0..c { b[i] = b[i] * 2.0 }
  region "wait" {
    wait r
  }
}`
	const barrier = `kernel bar(p = 2) on P = p ranks {
  array b[100]: f64
  for i in 0..10 { b[i] = b[i] * 2.0 }
  region "sync" {
    barrier
  }
}`
	unit := unitPricer{msg: 1, perFlop: 1, coll: 1, eager: -1}
	noisy := noisyPricer{unitPricer: unit, perCompute: 0.1}
	type rank struct{ End, NoiseWait, InRegion float64 }
	tests := []struct {
		name, src, region string
		params            []string
		p                 Pricer
		total             float64
		ranks             []rank
		tol               float64
	}{
		// Both compute 10 s: m = 2 on each side, the message starts
		// m/2 = 1 s after 10 and takes 1 s.
		{"equal work", exchange, "halo", nil, noisy, 12, []rank{{12, 1, 1}, {12, 1, 1}}, 1e-12},
		{"equal work, no law", exchange, "halo", nil, unit, 11, []rank{{11, 0, 0}, {11, 0, 0}}, 1e-12},
		// Rank 1 computes 14 s (scale 2.8), rank 0 10 s (scale 2): the
		// receiver arrives 4 s after the sender; K = 4 + 2 − 2.8 = 3.2,
		// the delay 2²/4.8·e^(−1.6).
		{"unequal work", exchange, "halo", []string{"n1", "14"}, noisy, 15 + 4/4.8*math.Exp(-1.6),
			[]rank{{15 + 4/4.8*math.Exp(-1.6), 4 / 4.8 * math.Exp(-1.6), 4 / 4.8 * math.Exp(-1.6)},
				{15 + 4/4.8*math.Exp(-1.6), 4 / 4.8 * math.Exp(-1.6), 4 / 4.8 * math.Exp(-1.6)}}, 1e-12},
		// Posted at 10 after 10 s of compute (scale 2); the message has
		// moved at 11; the waits come at 15 after 15 s (scale 3):
		// K = 15 − 11 + 2 − 3 = 3, the delay 2²/5·e^(−1.5).
		{"a wait after compute absorbs most of it", posted, "wait", nil, noisy, 15 + 0.8*math.Exp(-1.5),
			[]rank{{15 + 0.8*math.Exp(-1.5), 0.8 * math.Exp(-1.5), 0.8 * math.Exp(-1.5)},
				{15 + 0.8*math.Exp(-1.5), 0.8 * math.Exp(-1.5), 0.8 * math.Exp(-1.5)}}, 1e-12},
		// Two ranks at a barrier after 10 s each: m/2 = 1 s (integrated
		// numerically), then the barrier's 1 s.
		{"barrier of two", barrier, "sync", nil, noisy, 12, []rank{{12, 1, 1}, {12, 1, 1}}, 1e-3},
		// Three: E[max of three] − m = m·(1/2 + 1/3) = 5/3 s.
		{"barrier of three", barrier, "sync", []string{"p", "3"}, noisy, 11 + 5.0/3,
			[]rank{{11 + 5.0/3, 5.0 / 3, 5.0 / 3}, {11 + 5.0/3, 5.0 / 3, 5.0 / 3}, {11 + 5.0/3, 5.0 / 3, 5.0 / 3}}, 1e-3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := checkSource(t, "noise.spmd", tt.src, tt.params...)
			em, err := Emulate(k, tt.p, EmulateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(em.Total-tt.total) > tt.tol*max(1, tt.total) {
				t.Errorf("total %.12g, want %.12g", em.Total, tt.total)
			}
			var got []rank
			for i, r := range em.PerRank {
				var n RankNoise
				if em.Noise != nil {
					n = em.Noise[i]
				}
				got = append(got, rank{r.End, n.Wait, n.ByRegion[tt.region]})
			}
			if diff := cmp.Diff(tt.ranks, got, cmpopts.EquateApprox(0, tt.tol)); diff != "" {
				t.Errorf("per rank (end, noise wait, in region %q) (-want +got):\n%s", tt.region, diff)
			}
			if _, isNoisy := tt.p.(SyncNoise); (em.Noise != nil) != isNoisy {
				t.Errorf("Emulation.Noise %v with a pricer that has a law: %v", em.Noise, isNoisy)
			}
			checkPathCovers(t, em)
		})
	}
}
