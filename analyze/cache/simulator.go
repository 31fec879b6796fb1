package cache

import (
	"math"
	"math/bits"
)

// LevelCounts are what one level of a Simulator saw. Counts are of lines:
// an access that spans k lines of a level is k accesses there.
type LevelCounts struct {
	Name       string
	Accesses   int64 // line lookups: Hits + Misses
	Hits       int64
	Misses     int64 // lines brought in from the next level (or memory)
	WriteBacks int64 // dirty lines written to the next level (or memory), on eviction or Flush
}

// Simulator replays a trace of byte accesses through a cache hierarchy and
// counts, per level, the lines looked up, found, brought in and written back.
//
// The model, chosen to match what the analytic model predicts (lines moved
// between adjacent levels) with no hidden policy:
//
//   - Every level is write-back and write-allocate with true LRU replacement
//     within a set; a line at address a is in set (a/Line) mod Sets.
//   - The hierarchy is non-inclusive: levels are filled independently and
//     an eviction at one level never removes a line from another.
//   - A miss at level i brings the line in, then reads it from level i+1: one
//     read access of the level-i line's bytes there (several accesses when
//     level i+1 has smaller lines). After that read, if the level-i victim
//     was dirty, it counts as a level-i write-back and is written to level
//     i+1: a write access there, which allocates on a miss and leaves the line
//     dirty. Beyond the last level is memory, which is not counted.
//   - A write marks only the level-1 copy dirty; lower levels see the data
//     when it is written back.
//
// A Simulator is not safe for concurrent use. Each access costs O(levels ×
// ways) in the worst case and allocates nothing.
type Simulator struct {
	levels []simLevel
}

// simLevel is the state of one level. The lines of set s occupy
// tags[s*ways : s*ways+fill[s]] ordered most recently used first, so a hit
// on the line just used is found at once and LRU order is the slice order.
type simLevel struct {
	name      string
	lineShift uint   // log2 of the line size
	lineBytes uint64 // line size in bytes
	sets      uint64 // number of sets: any count ≥ 1
	setMask   uint64 // sets-1; setOf uses it only when pow2Sets
	pow2Sets  bool   // sets is a power of two: the set is the line's low bits
	ways      int
	tags      []uint64 // line numbers (address >> lineShift)
	dirty     []bool   // parallel to tags
	fill      []int32  // valid lines per set
	counts    LevelCounts
}

// NewSimulator returns a simulator of h with every level empty. h must pass
// Validate, as every hierarchy from ParseHierarchy, ReadHierarchy,
// HostHierarchy and DefaultHierarchy does; like regexp.MustCompile,
// NewSimulator panics otherwise, since that is a programming error rather
// than bad input.
func NewSimulator(h Hierarchy) *Simulator {
	if err := h.Validate(); err != nil {
		panic("cache.NewSimulator: " + err.Error())
	}
	s := &Simulator{levels: make([]simLevel, len(h))}
	for i, l := range h {
		s.levels[i] = simLevel{
			name:      l.Name,
			lineShift: uint(bits.TrailingZeros(uint(l.Line))),
			lineBytes: uint64(l.Line),
			sets:      uint64(l.Sets()),
			setMask:   uint64(l.Sets() - 1),
			pow2Sets:  isPowerOfTwo(l.Sets()),
			ways:      l.Ways(),
			tags:      make([]uint64, l.Lines()),
			dirty:     make([]bool, l.Lines()),
			fill:      make([]int32, l.Sets()),
			counts:    LevelCounts{Name: l.Name},
		}
	}
	return s
}

// Access replays one load (write false) or store (write true) of size bytes
// at byte address addr. Every level-1 line the bytes overlap is accessed, in
// address order, so an access that straddles a line boundary touches both
// lines. A size below 1 touches nothing; bytes past the top of the address
// space are ignored.
func (s *Simulator) Access(addr uint64, size int, write bool) {
	if size < 1 {
		return
	}
	s.accessBytes(0, addr, uint64(size), write)
}

// accessBytes accesses at level i every line overlapping size (≥ 1) bytes
// from addr.
func (s *Simulator) accessBytes(i int, addr, size uint64, write bool) {
	shift := s.levels[i].lineShift
	last := addr + (size - 1)
	if last < addr { // wrapped past the top of the address space
		last = math.MaxUint64
	}
	for line, lastLine := addr>>shift, last>>shift; ; line++ {
		s.accessLine(i, line, write)
		if line == lastLine {
			return
		}
	}
}

// accessLine looks line up at level i, and on a miss fills it from level
// i+1 and writes the dirty victim back, in the order Simulator documents.
func (s *Simulator) accessLine(i int, line uint64, write bool) {
	l := &s.levels[i]
	l.counts.Accesses++
	set := l.setOf(line)
	base := set * l.ways
	n := int(l.fill[set])
	tags := l.tags[base : base+n]
	for w, tag := range tags {
		if tag == line {
			l.counts.Hits++
			l.moveToFront(base, w, line, write || l.dirty[base+w])
			return
		}
	}
	l.counts.Misses++
	victim, victimDirty := uint64(0), false
	if n == l.ways {
		victim, victimDirty = l.tags[base+n-1], l.dirty[base+n-1]
		n-- // the victim's slot is reused
	} else {
		l.fill[set]++
	}
	l.moveToFront(base, n, line, write)
	if victimDirty {
		l.counts.WriteBacks++
	}
	if i+1 == len(s.levels) {
		return // memory is below the last level
	}
	s.accessBytes(i+1, line<<l.lineShift, l.lineBytes, false)
	if victimDirty {
		s.accessBytes(i+1, victim<<l.lineShift, l.lineBytes, true)
	}
}

// setOf is the set that holds line (a line number): line mod sets, taken
// from the low bits when sets is a power of two, as hardware indexes, and by
// a division otherwise (sliced caches hash the address, which perfc does not
// model: the modulo spreads consecutive lines over the sets alike).
func (l *simLevel) setOf(line uint64) int {
	if l.pow2Sets {
		return int(line & l.setMask)
	}
	return int(line % l.sets)
}

// moveToFront makes line, with the given dirty bit, the most recently used
// line of the set at base, shifting the w lines before slot w down by one.
func (l *simLevel) moveToFront(base, w int, line uint64, dirty bool) {
	copy(l.tags[base+1:base+w+1], l.tags[base:base+w])
	copy(l.dirty[base+1:base+w+1], l.dirty[base:base+w])
	l.tags[base], l.dirty[base] = line, dirty
}

// Flush writes every dirty line back and empties the hierarchy, as before a
// cold-cache measurement or at the end of a trace, so that WriteBacks counts
// every modified line on its way to memory. Levels are flushed L1 first, so
// that lines written back into level i+1 are flushed from it in turn; within
// a level, sets in index order and each set least recently used first. The
// write-backs into level i+1 are accesses there, counted like any other.
func (s *Simulator) Flush() {
	for i := range s.levels {
		l := &s.levels[i]
		for set := range l.fill {
			base := set * l.ways
			for w := int(l.fill[set]) - 1; w >= 0; w-- {
				if !l.dirty[base+w] {
					continue
				}
				l.counts.WriteBacks++
				if i+1 < len(s.levels) {
					s.accessBytes(i+1, l.tags[base+w]<<l.lineShift, l.lineBytes, true)
				}
			}
			l.fill[set] = 0
		}
	}
}

// Counts returns the counters of every level, L1 first, since the simulator
// was made.
func (s *Simulator) Counts() []LevelCounts {
	out := make([]LevelCounts, len(s.levels))
	for i := range s.levels {
		out[i] = s.levels[i].counts
	}
	return out
}
