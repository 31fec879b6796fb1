package analyze

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// RankSet is a set of ranks kept as sorted, disjoint, non-adjacent
// ranges, so that 6,144 interior ranks of a grid take a few entries.
type RankSet struct {
	ranges []rankRange
}

// rankRange is the ranks lo … hi inclusive.
type rankRange struct{ lo, hi int64 }

// addSpan inserts the ranks lo … hi; ranks are usually added in
// increasing order, which is the fast path.
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

// String writes the set as "0-3,5,7-9".
func (s RankSet) String() string {
	parts := make([]string, len(s.ranges))
	for i, r := range s.ranges {
		if r.lo == r.hi {
			parts[i] = fmt.Sprint(r.lo)
		} else {
			parts[i] = fmt.Sprintf("%d-%d", r.lo, r.hi)
		}
	}
	return strings.Join(parts, ",")
}

// MarshalJSON writes the set as its string form.
func (s RankSet) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }
