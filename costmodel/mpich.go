package costmodel

import (
	"math"
	"math/bits"
)

// The MPICH family of collective algorithms (Thakur, Rabenseifner & Gropp,
// IJHPCA 19(1):49–66, 2005, and the comments in MPICH's src/mpi/coll),
// used for a collective the machine table does not price itself. A message
// of n bytes costs α + n·β; reducing n bytes costs n·γ. n is MPICH's size
// for each operation: the buffer (bcast, reduce, allreduce, scan), the total
// gathered on each rank (allgather), the total at the root (gather,
// scatter), the total one rank sends to all others (alltoall).

// mpichParams are α, β, γ in seconds and seconds per byte.
type mpichParams struct{ alpha, beta, gamma float64 }

// algorithm is the choice MPICH would make and its cost.
type algorithm struct {
	name string
	time float64
}

// lg returns log2(p) rounded down, ceil when up is set.
func lg(p int64, up bool) float64 {
	if p <= 1 {
		return 0
	}
	f := bits.Len64(uint64(p)) - 1
	if up && p&(p-1) != 0 {
		f++
	}
	return float64(f)
}

// isPow2 reports whether p is a power of two.
func isPow2(p int64) bool { return p > 0 && p&(p-1) == 0 }

// mpichCollective chooses the algorithm MPICH uses for a collective of n
// bytes on p ranks and returns its cost.
func mpichCollective(kind string, n float64, p int64, c mpichParams) algorithm {
	if p <= 1 {
		return algorithm{name: "local (one rank)", time: 0}
	}
	P := float64(p)
	frac := (P - 1) / P
	a, b, g := c.alpha, c.beta, c.gamma
	switch kind {
	case "bcast":
		switch {
		case n < 12288 || p < 8:
			return algorithm{"binomial tree", lg(p, true) * (a + n*b)}
		case n < 524288 && isPow2(p):
			return algorithm{"binomial scatter + recursive-doubling allgather", 2*lg(p, false)*a + 2*frac*n*b}
		default:
			return algorithm{"binomial scatter + ring allgather", (lg(p, true)+P-1)*a + 2*frac*n*b}
		}
	case "reduce":
		if n <= 2048 {
			return algorithm{"binomial tree", lg(p, true) * (a + n*b + n*g)}
		}
		if isPow2(p) {
			return algorithm{"Rabenseifner (reduce-scatter + binomial gather)", 2*lg(p, false)*a + 2*frac*n*b + frac*n*g}
		}
		return algorithm{"Rabenseifner, p not a power of two", (2*lg(p, false)+1)*a + (2*frac+1)*n*b + (1+frac)*n*g}
	case "allreduce":
		if n <= 2048 {
			return algorithm{"recursive doubling", lg(p, true) * (a + n*b + n*g)}
		}
		if isPow2(p) {
			return algorithm{"Rabenseifner (reduce-scatter + allgather)", 2*lg(p, false)*a + 2*frac*n*b + frac*n*g}
		}
		return algorithm{"Rabenseifner, p not a power of two", (2*lg(p, false)+2)*a + (2*frac+2)*n*b + (1+frac)*n*g}
	case "scan":
		// MPICH's scan is recursive doubling: lg p steps of a message and a
		// local reduction each.
		return algorithm{"recursive doubling", lg(p, true) * (a + n*b + n*g)}
	case "allgather":
		switch {
		case n < 524288 && isPow2(p):
			return algorithm{"recursive doubling", lg(p, false)*a + frac*n*b}
		case n < 81920:
			return algorithm{"Bruck", lg(p, true)*a + frac*n*b}
		default:
			return algorithm{"ring", (P-1)*a + frac*n*b}
		}
	case "gather", "scatter":
		return algorithm{"binomial tree", lg(p, true)*a + frac*n*b}
	case "alltoall":
		block := n / P
		if block <= 256 && p >= 8 {
			return algorithm{"Bruck", lg(p, true)*a + n/2*lg(p, true)*b}
		}
		return algorithm{"pairwise exchange", (P-1)*a + n*b}
	case "barrier":
		return algorithm{"dissemination", lg(p, true) * a}
	}
	return algorithm{name: "unknown collective " + kind, time: math.NaN()}
}

// mpichSize converts a payload's bytes (one rank's block for scatter,
// gather, allgather and alltoall, as docs/language.md defines them) into
// MPICH's n.
func mpichSize(kind string, blockBytes float64, p int64) float64 {
	switch kind {
	case "scatter", "gather", "allgather", "alltoall":
		return blockBytes * float64(p)
	}
	return blockBytes
}
