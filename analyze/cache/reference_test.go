package cache

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// refLine is a resident line in the reference model: its byte address, its
// dirty bit and the tick of its last use.
type refLine struct {
	addr     uint64
	dirty    bool
	lastUsed int64
}

// refLevel is one level of the reference model: a slice of resident lines per
// set, in no particular order.
type refLevel struct {
	geometry Level
	sets     [][]refLine
	counts   LevelCounts
}

// refSimulator is a deliberately naive model of the documented semantics,
// written independently of Simulator: byte addresses and division instead of
// line numbers and shifts, unordered sets searched linearly, and LRU found by
// the smallest last-use tick instead of by move-to-front order.
type refSimulator struct {
	levels []*refLevel
	tick   int64
}

func newRefSimulator(h Hierarchy) *refSimulator {
	r := &refSimulator{}
	for _, l := range h {
		r.levels = append(r.levels, &refLevel{geometry: l, sets: make([][]refLine, l.Sets()), counts: LevelCounts{Name: l.Name}})
	}
	return r
}

// access touches, at level i, every line holding a byte in [addr, addr+size).
func (r *refSimulator) access(i int, addr uint64, size int, write bool) {
	line := uint64(r.levels[i].geometry.Line)
	for start := addr / line * line; start < addr+uint64(size); start += line {
		r.touch(i, start, write)
	}
}

// touch looks up the line starting at byte lineAddr at level i.
func (r *refSimulator) touch(i int, lineAddr uint64, write bool) {
	lv := r.levels[i]
	g := lv.geometry
	r.tick++
	lv.counts.Accesses++
	setIndex := lineAddr / uint64(g.Line) % uint64(g.Sets())
	set := lv.sets[setIndex]
	for k := range set {
		if set[k].addr == lineAddr {
			lv.counts.Hits++
			set[k].lastUsed = r.tick
			set[k].dirty = set[k].dirty || write
			return
		}
	}
	lv.counts.Misses++
	var victim *refLine
	if len(set) == g.Ways() {
		oldest := 0
		for k := range set {
			if set[k].lastUsed < set[oldest].lastUsed {
				oldest = k
			}
		}
		v := set[oldest]
		victim = &v
		set = slices.Delete(set, oldest, oldest+1)
	}
	lv.sets[setIndex] = append(set, refLine{addr: lineAddr, dirty: write, lastUsed: r.tick})
	if victim != nil && victim.dirty {
		lv.counts.WriteBacks++
	}
	if i+1 < len(r.levels) {
		r.access(i+1, lineAddr, g.Line, false)
		if victim != nil && victim.dirty {
			r.access(i+1, victim.addr, g.Line, true)
		}
	}
}

// flush writes back dirty lines level by level, sets in order, least recently
// used first, and empties every level.
func (r *refSimulator) flush() {
	for i, lv := range r.levels {
		for s, set := range lv.sets {
			byAge := slices.Clone(set)
			slices.SortFunc(byAge, func(a, b refLine) int { return int(a.lastUsed - b.lastUsed) })
			for _, l := range byAge {
				if l.dirty {
					lv.counts.WriteBacks++
					if i+1 < len(r.levels) {
						r.access(i+1, l.addr, lv.geometry.Line, true)
					}
				}
			}
			lv.sets[s] = nil
		}
	}
}

func (r *refSimulator) countsOf() []LevelCounts {
	var out []LevelCounts
	for _, lv := range r.levels {
		out = append(out, lv.counts)
	}
	return out
}

// randomHierarchy draws a small valid hierarchy of one to three levels with
// mixed line sizes, associativities (including direct-mapped, 3-way and fully
// associative) and set counts (1 to 12, powers of two or not), so that random
// traces hit every code path.
func randomHierarchy(rng *rand.Rand) Hierarchy {
	for {
		var h Hierarchy
		for i := range 1 + rng.IntN(3) {
			line := 8 << rng.IntN(4)
			assoc := rng.IntN(5) // 0: fully associative
			lines := (1 + rng.IntN(12)) * assoc
			if assoc == 0 {
				lines = 1 + rng.IntN(12)
			}
			h = append(h, Level{Name: fmt.Sprintf("L%d", i+1), Size: lines * line, Line: line, Assoc: assoc})
		}
		if h.Validate() == nil { // retry until the sizes happen to increase
			return h
		}
	}
}

// randomTrace draws accesses concentrated on a few regions so that there are
// hits as well as conflicts, of 1 to 80 bytes so that some straddle lines,
// with about a third stores and an occasional Flush.
func randomTrace(rng *rand.Rand, n int) []op {
	regions := []uint64{0, 1 << 12, 1 << 16, 1<<40 + 3}
	trace := make([]op, n)
	for k := range trace {
		if rng.IntN(500) == 0 {
			trace[k] = flush
			continue
		}
		trace[k] = op{
			addr:  regions[rng.IntN(len(regions))] + uint64(rng.IntN(1024)),
			size:  1 + rng.IntN(80),
			write: rng.IntN(3) == 0,
		}
	}
	return append(trace, flush)
}

// TestSimulatorMatchesReference replays random traces on random hierarchies
// through Simulator and the naive reference and requires identical counts
// after every step.
func TestSimulatorMatchesReference(t *testing.T) {
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 0x5eed))
		h := randomHierarchy(rng)
		trace := randomTrace(rng, 1000)
		sim, ref := NewSimulator(h), newRefSimulator(h)
		for k, o := range trace {
			replay(sim, []op{o})
			if o.flush {
				ref.flush()
			} else {
				ref.access(0, o.addr, o.size, o.write)
			}
			if got, want := sim.Counts(), ref.countsOf(); !slices.Equal(got, want) {
				diff := cmp.Diff(want, got)
				t.Fatalf("seed %d, hierarchy %v, step %d %+v: counts differ (-reference +simulator):\n%s", seed, h, k, o, diff)
			}
		}
	}
}

// TestReferenceSeesEveryPath guards the property test against drawing only
// trivial cases: across the seeds it uses, the reference must see hits,
// misses, write-backs and multi-level hierarchies.
func TestReferenceSeesEveryPath(t *testing.T) {
	var total LevelCounts
	deep := 0
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 0x5eed))
		h := randomHierarchy(rng)
		if len(h) == 3 {
			deep++
		}
		ref := newRefSimulator(h)
		for _, o := range randomTrace(rng, 1000) {
			if o.flush {
				ref.flush()
			} else {
				ref.access(0, o.addr, o.size, o.write)
			}
		}
		for _, c := range ref.countsOf() {
			total.Hits += c.Hits
			total.Misses += c.Misses
			total.WriteBacks += c.WriteBacks
		}
	}
	if total.Hits == 0 || total.Misses == 0 || total.WriteBacks == 0 || deep == 0 {
		t.Errorf("random cases too narrow: %+v, %d three-level hierarchies", total, deep)
	}
}

// TestSimulatorFullMatchesReference is TestSimulatorMatchesReference for
// fully associative levels with more than fullScanWays lines, which the
// simulator keeps in a map and a linked list instead of scanning: traces
// over a span of a few times their capacity, so that they hit, miss and
// evict dirty lines, and straddle lines of two sizes.
func TestSimulatorFullMatchesReference(t *testing.T) {
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 0xf011))
		l1 := fullScanWays + 1 + rng.IntN(64)
		l2 := 2*l1 + rng.IntN(256)
		h := Hierarchy{
			{Name: "L1", Size: l1 * 32, Line: 32},
			{Name: "L2", Size: l2 * 64, Line: 64},
		}
		if rng.IntN(2) == 0 {
			h[1].Assoc = 4
			h[1].Size = l2 / 4 * 4 * 64
		}
		if err := h.Validate(); err != nil {
			t.Fatal(err)
		}
		sim, ref := NewSimulator(h), newRefSimulator(h)
		span := 4 * l2 * 64
		for k := range 20_000 {
			o := op{addr: uint64(rng.IntN(span)), size: 1 + rng.IntN(40), write: rng.IntN(3) == 0}
			if rng.IntN(4000) == 0 {
				o = flush
			}
			replay(sim, []op{o})
			if o.flush {
				ref.flush()
			} else {
				ref.access(0, o.addr, o.size, o.write)
			}
			if got, want := sim.Counts(), ref.countsOf(); !slices.Equal(got, want) {
				t.Fatalf("seed %d, hierarchy %v, step %d %+v: counts differ (-reference +simulator):\n%s", seed, h, k, o, cmp.Diff(want, got))
			}
		}
		replay(sim, []op{flush})
		ref.flush()
		if got, want := sim.Counts(), ref.countsOf(); !slices.Equal(got, want) || got[0].WriteBacks == 0 || got[0].Hits == 0 {
			t.Fatalf("seed %d: after the final flush (-reference +simulator):\n%s", seed, cmp.Diff(want, got))
		}
	}
}
