package costmodel

import (
	"math"
	"testing"
)

// TestMPICHChoice checks the algorithm MPICH picks and its cost formula
// (Thakur, Rabenseifner and Gropp 2005, docs/references.md) with α = 1,
// β = 0.01, γ = 0.001.
func TestMPICHChoice(t *testing.T) {
	c := mpichParams{alpha: 1, beta: 0.01, gamma: 0.001}
	tests := []struct {
		kind string
		n    float64
		p    int64
		alg  string
		time float64
	}{
		{"bcast", 1000, 16, "binomial tree", 4 * (1 + 10)},
		{"bcast", 100000, 16, "binomial scatter + recursive-doubling allgather", 2*4*1 + 2*(15.0/16)*100000*0.01},
		{"bcast", 100000, 12, "binomial scatter + ring allgather", (4+11)*1 + 2*(11.0/12)*100000*0.01},
		{"bcast", 1000, 4, "binomial tree", 2 * (1 + 10)},
		{"reduce", 1000, 8, "binomial tree", 3 * (1 + 10 + 1)},
		{"reduce", 8192, 8, "Rabenseifner (reduce-scatter + binomial gather)", 2*3*1 + 2*(7.0/8)*8192*0.01 + (7.0/8)*8192*0.001},
		{"allreduce", 8, 32, "recursive doubling", 5 * (1 + 0.08 + 0.008)},
		{"allreduce", 8192, 6, "Rabenseifner, p not a power of two", (2*2+2)*1 + (2*(5.0/6)+2)*8192*0.01 + (1+5.0/6)*8192*0.001},
		{"allgather", 8000, 8, "recursive doubling", 3*1 + (7.0/8)*8000*0.01},
		{"allgather", 8000, 6, "Bruck", 3*1 + (5.0/6)*8000*0.01},
		{"allgather", 1 << 20, 6, "ring", 5*1 + (5.0/6)*(1<<20)*0.01},
		{"scatter", 800, 8, "binomial tree", 3*1 + (7.0/8)*800*0.01},
		{"alltoall", 800, 8, "Bruck", 3*1 + 400*3*0.01},
		{"alltoall", 80000, 8, "pairwise exchange", 7*1 + 80000*0.01},
		{"barrier", 0, 33, "dissemination", 6},
		{"bcast", 1000, 1, "local (one rank)", 0},
	}
	for _, tt := range tests {
		got := mpichCollective(tt.kind, tt.n, tt.p, c)
		if got.name != tt.alg || math.Abs(got.time-tt.time) > 1e-9*math.Max(1, tt.time) {
			t.Errorf("%s n=%g p=%d: %s %.9g, want %s %.9g", tt.kind, tt.n, tt.p, got.name, got.time, tt.alg, tt.time)
		}
	}
}

// TestMPICHSize converts one rank's block into MPICH's sizes.
func TestMPICHSize(t *testing.T) {
	for kind, want := range map[string]float64{"bcast": 100, "allreduce": 100, "scatter": 800, "gather": 800, "allgather": 800, "alltoall": 800} {
		if got := mpichSize(kind, 100, 8); got != want {
			t.Errorf("%s: %g, want %g", kind, got, want)
		}
	}
}
