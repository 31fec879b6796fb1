package cache

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// op is one step of a test trace: an access, or a Flush when flush is set.
type op struct {
	addr  uint64
	size  int
	write bool
	flush bool
}

// Shorthands for traces written by hand: 8-byte loads and stores, and Flush.
func rd(addr uint64) op { return op{addr: addr, size: 8} }
func wr(addr uint64) op { return op{addr: addr, size: 8, write: true} }

var flush = op{flush: true}

// replay runs trace through sim.
func replay(sim *Simulator, trace []op) {
	for _, o := range trace {
		if o.flush {
			sim.Flush()
		} else {
			sim.Access(o.addr, o.size, o.write)
		}
	}
}

// mustParse parses a spec that a test knows to be valid.
func mustParse(t testing.TB, spec string) Hierarchy {
	t.Helper()
	h, err := ParseHierarchy(spec)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// counts builds the expected LevelCounts of one level.
func counts(name string, accesses, hits, misses, writeBacks int64) LevelCounts {
	return LevelCounts{Name: name, Accesses: accesses, Hits: hits, Misses: misses, WriteBacks: writeBacks}
}

// TestSimulatorByHand checks traces whose counts were worked out on paper;
// the comment on each case gives the reasoning.
func TestSimulatorByHand(t *testing.T) {
	tests := []struct {
		name  string
		spec  string
		trace []op
		want  []LevelCounts
	}{
		{
			// 4 sets of 1 line: 0 and 256 both map to set 0 and evict each
			// other; 64 then 72 share line 1.
			name:  "direct-mapped conflict",
			spec:  "L1=256B/64B/1",
			trace: []op{rd(0), rd(256), rd(0), rd(256), rd(64), rd(72)},
			want:  []LevelCounts{counts("L1", 6, 1, 5, 0)},
		},
		{
			// 2 sets of 2 ways; 0, 128, 256 map to set 0. After 0,128,0 the
			// LRU line is 128, so 256 evicts 128 (FIFO would evict 0 and
			// miss on the next 0). Then 0 hits, 128 evicts 256, 256 evicts
			// 0, 128 hits.
			name:  "2-way LRU order",
			spec:  "L1=256B/64B/2",
			trace: []op{rd(0), rd(128), rd(0), rd(256), rd(0), rd(128), rd(256), rd(128)},
			want:  []LevelCounts{counts("L1", 8, 3, 5, 0)},
		},
		{
			// Fully associative, 4 lines: after 0,64,128,192,0 the LRU line
			// is 64; 256 evicts it, 64 then evicts 128, and 0 still hits.
			name:  "fully associative LRU",
			spec:  "L1=256B/64B/full",
			trace: []op{rd(0), rd(64), rd(128), rd(192), rd(0), rd(256), rd(64), rd(0)},
			want:  []LevelCounts{counts("L1", 8, 2, 6, 0)},
		},
		{
			// L1 has 2 one-line sets. The store to 0 allocates a dirty line;
			// the load of 128 evicts it: an L1 write-back, which after the
			// L2 read of 128 is an L2 write hit on 0. Flush finds L1 clean
			// and line 0 dirty in L2.
			name:  "write-back into the next level",
			spec:  "L1=128B/64B/1,L2=1KiB/64B/2",
			trace: []op{wr(0), rd(128), flush},
			want:  []LevelCounts{counts("L1", 2, 0, 2, 1), counts("L2", 3, 1, 2, 1)},
		},
		{
			// A store that hits keeps the line dirty once; a later load does
			// not clean it. One write-back at Flush, none for the clean line.
			name:  "dirty once, written back once",
			spec:  "L1=256B/64B/1",
			trace: []op{rd(0), wr(8), wr(16), rd(24), rd(64), flush},
			want:  []LevelCounts{counts("L1", 5, 3, 2, 1)},
		},
		{
			// Flush empties the cache: the same line misses again after it.
			name:  "flush makes the cache cold",
			spec:  "L1=256B/64B/2",
			trace: []op{rd(0), rd(0), flush, rd(0)},
			want:  []LevelCounts{counts("L1", 3, 1, 2, 0)},
		},
		{
			// 8 bytes at 60 cover lines 0 and 1; 4 bytes at 62 too, both hit;
			// 256 bytes at 0 cover lines 0..3: two hits, two misses.
			name: "straddling access",
			spec: "L1=256B/64B/1",
			trace: []op{
				{addr: 60, size: 8}, {addr: 62, size: 4}, {addr: 0, size: 256},
			},
			want: []LevelCounts{counts("L1", 8, 4, 4, 0)},
		},
		{
			// A straddling store dirties both lines.
			name:  "straddling store",
			spec:  "L1=256B/64B/1",
			trace: []op{{addr: 60, size: 8, write: true}, flush},
			want:  []LevelCounts{counts("L1", 2, 0, 2, 2)},
		},
		{
			// Cray T3E: an L1 miss reads 32 bytes, half of a 64-byte S line;
			// the second half then hits in S.
			name:  "smaller lines above larger",
			spec:  "L1=8KiB/32B/1,S=96KiB/64B/3",
			trace: []op{rd(0), rd(32)},
			want:  []LevelCounts{counts("L1", 2, 0, 2, 0), counts("S", 2, 1, 1, 0)},
		},
		{
			// A 64-byte L1 line is two 32-byte L2 lines: one L1 miss is two
			// L2 accesses; its write-back is two L2 writes, both hits.
			name:  "larger lines above smaller",
			spec:  "L1=128B/64B/1,L2=1KiB/32B/2",
			trace: []op{wr(0), rd(128), flush},
			want:  []LevelCounts{counts("L1", 2, 0, 2, 1), counts("L2", 6, 2, 4, 2)},
		},
		{
			// An L2 miss reads from L3; a dirty L2 victim is written into
			// L3. L1 holds one line, L2 two (fully associative). W0 leaves
			// 0 dirty in L1; R64 writes it back into L2 (a write hit after
			// the L2 read of 64); R128 evicts the clean 64 from L2; R192
			// evicts the dirty 0 from L2: an L2 write-back, an L3 write hit
			// after the L3 read of 192. Flush finds only L3's 0 dirty.
			name:  "three levels",
			spec:  "L1=64B/64B/1,L2=128B/64B/full,L3=1KiB/64B/full",
			trace: []op{wr(0), rd(64), rd(128), rd(192), flush},
			want: []LevelCounts{
				counts("L1", 4, 0, 4, 1), counts("L2", 5, 1, 4, 1), counts("L3", 5, 1, 4, 1),
			},
		},
		{
			name:  "zero size touches nothing",
			spec:  "L1=256B/64B/1",
			trace: []op{{addr: 0, size: 0}, {addr: 64, size: -8}},
			want:  []LevelCounts{counts("L1", 0, 0, 0, 0)},
		},
		{
			// Bytes past the top of the address space are dropped, not
			// wrapped to address 0.
			name:  "top of the address space",
			spec:  "L1=256B/64B/1",
			trace: []op{{addr: math.MaxUint64 - 3, size: 8}, rd(0)},
			want:  []LevelCounts{counts("L1", 2, 0, 2, 0)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sim := NewSimulator(mustParse(t, tt.spec))
			replay(sim, tt.trace)
			if diff := cmp.Diff(tt.want, sim.Counts()); diff != "" {
				t.Errorf("counts mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSimulatorStreaming streams over an array of 8-byte elements 8 times
// larger than L2 with strides of 1, 2, 8 and 16 elements. Every line touched
// is brought in exactly once at each level (no reuse survives a pass), so
// misses are the lines touched: 64 KiB is 1024 lines, of which stride 16
// (128 bytes) touches every other one.
//
// For stores, each L1 line is written back once (on eviction or at Flush)
// into L2, where it is still resident (L2 holds 8 times as many lines), so
// L2 sees one read and one write hit per line and writes each back once.
func TestSimulatorStreaming(t *testing.T) {
	const elements = 8192 // 64 KiB of f64
	const base = 1 << 20
	tests := []struct {
		stride, accesses, lines int64
	}{
		{stride: 1, accesses: 8192, lines: 1024},
		{stride: 2, accesses: 4096, lines: 1024},
		{stride: 8, accesses: 1024, lines: 1024},
		{stride: 16, accesses: 512, lines: 512},
	}
	h := mustParse(t, "L1=1KiB/64B/2,L2=8KiB/64B/4")
	for _, tt := range tests {
		for _, write := range []bool{false, true} {
			t.Run(fmt.Sprintf("stride %d write %v", tt.stride, write), func(t *testing.T) {
				sim := NewSimulator(h)
				for i := int64(0); i < elements; i += tt.stride {
					sim.Access(uint64(base+8*i), 8, write)
				}
				sim.Flush()
				want := []LevelCounts{
					counts("L1", tt.accesses, tt.accesses-tt.lines, tt.lines, 0),
					counts("L2", tt.lines, 0, tt.lines, 0),
				}
				if write {
					want[0].WriteBacks = tt.lines
					want[1] = counts("L2", 2*tt.lines, tt.lines, tt.lines, tt.lines)
				}
				if diff := cmp.Diff(want, sim.Counts()); diff != "" {
					t.Errorf("counts mismatch (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestNewSimulatorPanicsOnInvalid checks that an unvalidated hierarchy is
// refused at construction rather than simulated wrongly.
func TestNewSimulatorPanicsOnInvalid(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewSimulator accepted a 48-byte line")
		}
	}()
	NewSimulator(Hierarchy{{Name: "L1", Size: 480, Line: 48, Assoc: 1}})
}

// BenchmarkAccess replays 8-byte loads and stores over a 4 MiB array on the
// build host's geometry (L1=32KiB/64B/8,L2=512KiB/64B/8,L3=32MiB/64B/16), a
// mix of a unit-stride stream and a large-stride walk that misses in L1 and
// L2, and reports accesses per second.
func BenchmarkAccess(b *testing.B) {
	benchmarkAccess(b, "L1=32KiB/64B/8,L2=512KiB/64B/8,L3=32MiB/64B/16")
}

// BenchmarkAccessAnySets is BenchmarkAccess on levels whose set counts are
// not powers of two (48, 1,280 and 20,480 sets), where the set is found by a
// division instead of a mask.
func BenchmarkAccessAnySets(b *testing.B) {
	benchmarkAccess(b, "L1=48KiB/64B/16,L2=1280KiB/64B/16,L3=20MiB/64B/16")
}

// benchmarkAccess replays BenchmarkAccess's trace on the hierarchy spec.
func benchmarkAccess(b *testing.B, spec string) {
	sim := NewSimulator(mustParse(b, spec))
	const span = 4 << 20
	b.ResetTimer()
	for i := range b.N {
		stream := uint64(i*8) % span
		walk := uint64(i*4104) % span // 4 KiB + 8 B: a new line every time, drifting across the sets
		if i%2 == 0 {
			sim.Access(stream, 8, i%8 == 0)
		} else {
			sim.Access(span+walk, 8, false)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "accesses/s")
}

// mapLRU is a brute-force model of one level for TestSimulatorOddSets: per
// set, a map from line number to the tick of its last use and its dirty bit;
// the victim is the entry with the smallest tick.
type mapLRU struct {
	line, sets uint64
	ways       int
	set        []map[uint64]mapEntry
	hits, miss int64
}

type mapEntry struct {
	used  int64
	dirty bool
}

// TestSimulatorOddSets replays random traces through two-level hierarchies
// whose set counts are not powers of two (L1 of 3 sets × 2 ways, L2 of 5 or
// 20 sets) and compares hits and misses per level with a map-based LRU per
// set written here: lines live in set (address/line) mod sets.
func TestSimulatorOddSets(t *testing.T) {
	for _, spec := range []string{
		"L1=384B/64B/2,L2=1280B/64B/4",   // 3 sets; 5 sets
		"L1=384B/64B/2,L2=5KiB/64B/4",    // 3 sets; 20 sets
		"L1=448B/64B/1,L2=3KiB/64B/6",    // 7 direct-mapped sets; 8 sets
		"L1=768B/64B/12,L2=20KiB/64B/16", // 1 set (fully associative); 20 sets
	} {
		h := mustParse(t, spec)
		for seed := range uint64(20) {
			rng := rand.New(rand.NewPCG(seed, 0x0dd5e75))
			sim := NewSimulator(h)
			var levels []*mapLRU
			for _, l := range h {
				m := &mapLRU{line: uint64(l.Line), sets: uint64(l.Sets()), ways: l.Ways(), set: make([]map[uint64]mapEntry, l.Sets())}
				for s := range m.set {
					m.set[s] = map[uint64]mapEntry{}
				}
				levels = append(levels, m)
			}
			var tick int64
			var touch func(i int, line uint64, write bool)
			touch = func(i int, line uint64, write bool) {
				m := levels[i]
				tick++
				set := m.set[line%m.sets]
				if e, ok := set[line]; ok {
					m.hits++
					set[line] = mapEntry{used: tick, dirty: e.dirty || write}
					return
				}
				m.miss++
				victim, victimDirty := uint64(0), false
				if len(set) == m.ways {
					first := true
					for l, e := range set {
						if first || e.used < set[victim].used {
							victim, first = l, false
						}
					}
					victimDirty = set[victim].dirty
					delete(set, victim)
				}
				set[line] = mapEntry{used: tick, dirty: write}
				if i+1 < len(levels) {
					touch(i+1, line, false) // equal line sizes: one line below
					if victimDirty {
						touch(i+1, victim, true)
					}
				}
			}
			for range 3000 {
				addr := uint64(rng.IntN(8192)) &^ 7
				write := rng.IntN(3) == 0
				sim.Access(addr, 8, write)
				touch(0, addr/levels[0].line, write)
			}
			got := sim.Counts()
			for i, m := range levels {
				if got[i].Hits != m.hits || got[i].Misses != m.miss {
					t.Errorf("%s seed %d: %s hits %d misses %d, map-based LRU hits %d misses %d",
						spec, seed, got[i].Name, got[i].Hits, got[i].Misses, m.hits, m.miss)
				}
			}
			if levels[0].miss == 0 || levels[1].hits == 0 || levels[1].miss == 0 {
				t.Errorf("%s seed %d: trace too narrow: L1 %+v L2 %+v", spec, seed, *levels[0], *levels[1])
			}
		}
	}
}
