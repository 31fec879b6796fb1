package analyze

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"perfc/internal/units"
)

// RankSet is a set of ranks kept as sorted, disjoint, non-adjacent
// ranges, so that 6,144 interior ranks of a grid take a few entries.
type RankSet struct {
	ranges []rankRange
}

// rankRange is the ranks lo … hi inclusive.
type rankRange struct{ lo, hi int64 }

// add inserts rank r; ranks are usually added in increasing order, which
// is the fast path.
func (s *RankSet) add(r int64) {
	n := len(s.ranges)
	if n > 0 && s.ranges[n-1].hi+1 == r {
		s.ranges[n-1].hi = r
		return
	}
	if n == 0 || s.ranges[n-1].hi < r {
		s.ranges = append(s.ranges, rankRange{r, r})
		return
	}
	if s.Contains(r) {
		return
	}
	s.ranges = append(s.ranges, rankRange{r, r})
	s.normalize()
}

// addSpan inserts the ranks lo … hi, in increasing order like add.
func (s *RankSet) addSpan(lo, hi int64) {
	n := len(s.ranges)
	switch {
	case n > 0 && s.ranges[n-1].hi+1 == lo:
		s.ranges[n-1].hi = hi
	case n == 0 || s.ranges[n-1].hi < lo:
		s.ranges = append(s.ranges, rankRange{lo, hi})
	default:
		s.ranges = append(s.ranges, rankRange{lo, hi})
		s.normalize()
	}
}

// merge adds every rank of t.
func (s *RankSet) merge(t RankSet) {
	s.ranges = append(s.ranges, t.ranges...)
	s.normalize()
}

// normalize sorts and coalesces the ranges.
func (s *RankSet) normalize() {
	sort.Slice(s.ranges, func(i, j int) bool { return s.ranges[i].lo < s.ranges[j].lo })
	out := s.ranges[:0]
	for _, r := range s.ranges {
		if k := len(out); k > 0 && r.lo <= out[k-1].hi+1 {
			out[k-1].hi = max(out[k-1].hi, r.hi)
			continue
		}
		out = append(out, r)
	}
	s.ranges = out
}

// Contains reports whether r is in the set.
func (s RankSet) Contains(r int64) bool {
	i := sort.Search(len(s.ranges), func(i int) bool { return s.ranges[i].hi >= r })
	return i < len(s.ranges) && s.ranges[i].lo <= r
}

// Len returns the number of ranks.
func (s RankSet) Len() int64 {
	var n int64
	for _, r := range s.ranges {
		n += r.hi - r.lo + 1
	}
	return n
}

// First returns the smallest rank (0 for an empty set).
func (s RankSet) First() int64 {
	if len(s.ranges) == 0 {
		return 0
	}
	return s.ranges[0].lo
}

// maxShownRanges is the most ranges String writes in full. A class of
// ranks on a grid's edge is one range per row: 30,000 of them for a
// 30,000 × 30,000 grid, megabytes of text that no reader wants.
const maxShownRanges = 16

// String writes the set as "0-3,5,7-9". A set of more than maxShownRanges
// ranges is shortened to its first and last ranges and how many it has,
// with their common width and stride when they are evenly spaced:
// "0,30000,60000,…,899970000 (30,000 ranges of 1 rank every 30,000)".
func (s RankSet) String() string {
	if len(s.ranges) <= maxShownRanges {
		return joinRanges(s.ranges)
	}
	head, tail := s.ranges[:maxShownRanges-4], s.ranges[len(s.ranges)-2:]
	short := joinRanges(head) + ",…," + joinRanges(tail)
	if width, stride, ok := s.evenlySpaced(); ok {
		return fmt.Sprintf("%s (%s ranges of %s every %s)", short, units.Int(int64(len(s.ranges))),
			plural(width, "rank"), units.Int(stride))
	}
	return fmt.Sprintf("%s (%s ranks in %s ranges)", short, units.Int(s.Len()), units.Int(int64(len(s.ranges))))
}

// joinRanges writes ranges as "0-3,5,7-9".
func joinRanges(ranges []rankRange) string {
	parts := make([]string, len(ranges))
	for i, r := range ranges {
		if r.lo == r.hi {
			parts[i] = fmt.Sprint(r.lo)
		} else {
			parts[i] = fmt.Sprintf("%d-%d", r.lo, r.hi)
		}
	}
	return strings.Join(parts, ",")
}

// evenlySpaced reports whether every range has the same width and starts
// the same stride after the one before.
func (s RankSet) evenlySpaced() (width, stride int64, ok bool) {
	if len(s.ranges) < 2 {
		return 0, 0, false
	}
	width = s.ranges[0].hi - s.ranges[0].lo + 1
	stride = s.ranges[1].lo - s.ranges[0].lo
	for i, r := range s.ranges {
		if r.hi-r.lo+1 != width || i > 0 && r.lo-s.ranges[i-1].lo != stride {
			return 0, 0, false
		}
	}
	return width, stride, true
}

// plural writes "1 rank" or "3 ranks".
func plural(n int64, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return units.Int(n) + " " + unit + "s"
}

// MarshalJSON writes the set as its string form.
func (s RankSet) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }
