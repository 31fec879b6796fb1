package emulate

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// oneHeap is the plain form of the link queue that network replaces: one
// heap of all requests, where a request that finds its boundary full is put
// back with the time its first busy link frees. It is the reference the
// per-boundary queue must agree with, grant for grant.
type oneHeap struct {
	queue    []linkRequest
	capacity []int
	flights  [][]float64 // per boundary, the ends of the messages crossing
}

func (h *oneHeap) request(r linkRequest) {
	h.queue = append(h.queue, r)
	for i := len(h.queue) - 1; i > 0; {
		parent := (i - 1) / 2
		if !h.queue[i].before(&h.queue[parent]) {
			break
		}
		h.queue[i], h.queue[parent] = h.queue[parent], h.queue[i]
		i = parent
	}
}

func (h *oneHeap) fix() {
	q := h.queue
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(q) {
			return
		}
		if c+1 < len(q) && q[c+1].before(&q[c]) {
			c++
		}
		if !q[c].before(&q[i]) {
			return
		}
		q[i], q[c] = q[c], q[i]
		i = c
	}
}

// step grants or puts back the first request, as grantLink once did.
func (h *oneHeap) step() (linkRequest, bool) {
	top := &h.queue[0]
	b := top.boundary
	kept := h.flights[b][:0]
	for _, end := range h.flights[b] {
		if end > top.time {
			kept = append(kept, end)
		}
	}
	h.flights[b] = kept
	if len(kept) >= h.capacity[b] {
		top.time = kept[0]
		for _, end := range kept[1:] {
			top.time = min(top.time, end)
		}
		h.fix()
		return linkRequest{}, false
	}
	r := *top
	last := len(h.queue) - 1
	h.queue[0] = h.queue[last]
	h.queue = h.queue[:last]
	h.fix()
	h.flights[b] = append(h.flights[b], r.time+r.cost)
	return r, true
}

// granted is what a grant decides: which message crosses when.
type granted struct {
	Src, Dst    int32
	Start, Wait float64
}

// TestLinkQueueMatchesOneHeap drives the per-boundary queue and the
// one-heap reference with the same random requests, in rounds as the
// emulator does (requests come at or after the floor of the last round;
// a round grants while the first request is due before its floor), with
// small integer times and costs so that ties of times, waves and flight
// ends are common, and compares every grant.
func TestLinkQueueMatchesOneHeap(t *testing.T) {
	for seed := range uint64(400) {
		rng := rand.New(rand.NewPCG(seed, 7))
		nb := 1 + rng.IntN(3)
		var net network
		ref := oneHeap{capacity: make([]int, nb), flights: make([][]float64, nb)}
		for b := range nb {
			ref.capacity[b] = 1 + rng.IntN(3)
			net.bounds = append(net.bounds, boundary{capacity: int64(ref.capacity[b]), freed: emptyPath, slot: -1})
		}
		var got, want []granted
		floor, pair := 0.0, int32(0)
		for round := range 60 {
			for range rng.IntN(7) {
				r := linkRequest{time: floor + float64(rng.IntN(4)), wave: int64(1 + rng.IntN(3)),
					src: pair, dst: pair + 1, boundary: int32(rng.IntN(nb)), cost: float64(1 + rng.IntN(3))}
				r.ready = r.time
				pair += 2
				net.request(r)
				ref.request(r)
			}
			next := floor + float64(rng.IntN(5))
			if round == 59 {
				next = math.Inf(1) // drain
			}
			for net.pending() > 0 && net.nextTime() < next {
				if r, bd, ok := net.grant(); ok {
					bd.flights = append(bd.flights, flight{end: r.time + r.cost})
					got = append(got, granted{r.src, r.dst, r.time, r.time - r.ready})
				}
			}
			for len(ref.queue) > 0 && ref.queue[0].time < next {
				if r, ok := ref.step(); ok {
					want = append(want, granted{r.src, r.dst, r.time, r.time - r.ready})
				}
			}
			floor = max(floor, next)
			if math.IsInf(floor, 1) {
				break
			}
		}
		if net.pending() != 0 || len(ref.queue) != 0 {
			t.Fatalf("seed %d: %d and %d requests left", seed, net.pending(), len(ref.queue))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("seed %d: grants differ from the one-heap queue (-want +got):\n%s", seed, diff)
		}
	}
}
