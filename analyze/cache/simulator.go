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
// ways) in the worst case and allocates nothing, but for a level of one set
// with more than fullScanWays ways (a fully associative cache of any size),
// which finds its lines through a map in O(1) and keeps them in a linked
// list in LRU order, the same order and counts as the scan.
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
	// full is the O(1) form of a fully associative level with many ways;
	// nil otherwise.
	full *fullLRU
}

// fullScanWays is the most ways a level of one set is scanned with; beyond,
// a 1 MiB fully associative L2 (16,384 ways) would cost 16,384 compares per
// miss of L1.
const fullScanWays = 64

// fullLRU is a fully associative LRU level: the slot of every cached line in
// a map, and the slots in a doubly linked list, most recently used at head.
type fullLRU struct {
	slot       map[uint64]int32
	tag        []uint64
	dirty      []bool
	prev, next []int32 // -1 ends the list
	head, tail int32
	used       int32 // slots taken so far, in order
}

// newFullLRU returns an empty fully associative level of ways lines.
func newFullLRU(ways int) *fullLRU {
	return &fullLRU{slot: make(map[uint64]int32, ways), tag: make([]uint64, ways), dirty: make([]bool, ways),
		prev: make([]int32, ways), next: make([]int32, ways), head: -1, tail: -1}
}

// unlink takes slot i out of the list.
func (f *fullLRU) unlink(i int32) {
	if p := f.prev[i]; p >= 0 {
		f.next[p] = f.next[i]
	} else {
		f.head = f.next[i]
	}
	if n := f.next[i]; n >= 0 {
		f.prev[n] = f.prev[i]
	} else {
		f.tail = f.prev[i]
	}
}

// pushFront makes slot i the most recently used.
func (f *fullLRU) pushFront(i int32) {
	f.prev[i], f.next[i] = -1, f.head
	if f.head >= 0 {
		f.prev[f.head] = i
	} else {
		f.tail = i
	}
	f.head = i
}

// access looks line up; on a miss it takes a free slot or the least recently
// used one, whose line and dirty bit it returns (evicted true).
func (f *fullLRU) access(line uint64, write bool) (hit bool, victim uint64, victimDirty, evicted bool) {
	if i, ok := f.slot[line]; ok {
		f.dirty[i] = f.dirty[i] || write
		if f.head != i {
			f.unlink(i)
			f.pushFront(i)
		}
		return true, 0, false, false
	}
	var i int32
	if int(f.used) < len(f.tag) {
		i = f.used
		f.used++
	} else {
		i = f.tail
		victim, victimDirty, evicted = f.tag[i], f.dirty[i], true
		delete(f.slot, victim)
		f.unlink(i)
	}
	f.tag[i], f.dirty[i] = line, write
	f.slot[line] = i
	f.pushFront(i)
	return false, victim, victimDirty, evicted
}

// flush calls wb for every dirty line, least recently used first, and
// empties the level.
func (f *fullLRU) flush(wb func(line uint64)) {
	for i := f.tail; i >= 0; i = f.prev[i] {
		if f.dirty[i] {
			wb(f.tag[i])
		}
	}
	clear(f.slot)
	f.head, f.tail, f.used = -1, -1, 0
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
		if l.Sets() == 1 && l.Ways() > fullScanWays {
			s.levels[i].full = newFullLRU(l.Ways())
			s.levels[i].tags, s.levels[i].dirty = nil, nil
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
	if l.full != nil {
		hit, victim, victimDirty, _ := l.full.access(line, write)
		if hit {
			l.counts.Hits++
			return
		}
		s.missed(i, line, victim, victimDirty)
		return
	}
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
	victim, victimDirty := uint64(0), false
	if n == l.ways {
		victim, victimDirty = l.tags[base+n-1], l.dirty[base+n-1]
		n-- // the victim's slot is reused
	} else {
		l.fill[set]++
	}
	l.moveToFront(base, n, line, write)
	s.missed(i, line, victim, victimDirty)
}

// missed finishes a miss of line at level i whose victim (when dirty) must
// be written back: the counts, the read from level i+1, then the write-back.
func (s *Simulator) missed(i int, line, victim uint64, victimDirty bool) {
	l := &s.levels[i]
	l.counts.Misses++
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
		if l.full != nil {
			l.full.flush(func(line uint64) {
				l.counts.WriteBacks++
				if i+1 < len(s.levels) {
					s.accessBytes(i+1, line<<l.lineShift, l.lineBytes, true)
				}
			})
			continue
		}
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
