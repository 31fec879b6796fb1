package analyze

import (
	"cmp"
	"slices"
	"testing"
)

// TestReuseDistancesMatchUnion holds reuseDistances (a dominance count)
// to its definition: for every line two consecutive iterations of a loop
// touch, the union of the ranges of lines each reference touches between
// the line's last touch in the first iteration and its first touch in the
// second, counted line by line. It runs the long-range stencil and uxx
// across their j loops, and the transposed matvec, at alignments that
// differ.
func TestReuseDistancesMatchUnion(t *testing.T) {
	for _, tc := range []struct {
		kernel string
		defs   []string
	}{
		{"kc_longrange", []string{"M=10", "N=220"}},
		{"kc_longrange", []string{"M=9", "N=37"}},
		{"kc_uxx", []string{"M=6", "N=45"}},
		{"kc_2d5pt", []string{"M=20", "N=101"}},
		{"kc_matvec_trans", []string{"M=30", "N=20"}},
	} {
		k := loadKerncraft(t, tc.kernel, tc.defs...)
		ra := newRankAnalysis(newPlan(k), 0)
		if _, err := ra.run(); err != nil {
			t.Fatal(err)
		}
		m, err := newCacheModel(ra)
		if err != nil {
			t.Fatal(err)
		}
		checked := 0
		var walk func(x *cacheNode)
		walk = func(x *cacheNode) {
			for _, it := range x.items {
				if it.node != nil {
					walk(it.node)
				}
			}
			const line = 64
			mems, n, _, ok := m.partialNest(x, line, 1<<40)
			if !ok {
				return
			}
			orders := int64(mems[len(mems)-1].order) + 1
			for tt := int64(1); tt < min(n, 5); tt++ {
				for _, sh := range []int64{0, 24} {
					prev := iterationTouches(mems, tt-1, sh, line, true, nil)
					cur := iterationTouches(mems, tt, sh, line, false, nil)
					got, from := reuseDistances(prev, cur, orders)
					last := map[[2]int64]partialPoint{}
					for _, p := range prev {
						last[[2]int64{int64(p.array), p.line}] = p.at
					}
					for i, c := range cur {
						p, ok := last[[2]int64{int64(c.array), c.line}]
						if !ok {
							if got[i] >= 0 || from[i] >= 0 {
								t.Errorf("%s %v: line %d has a distance but no previous touch", tc.kernel, tc.defs, c.line)
							}
							continue
						}
						want, _ := unionDistance(mems, tt, p, c.at, sh, line, nil)
						if got[i] != want || prev[from[i]].line != c.line {
							t.Errorf("%s %v t=%d shift %d line %d: distance %d, the union of ranges %d", tc.kernel, tc.defs, tt, sh, c.line, got[i], want)
						}
						checked++
					}
				}
			}
		}
		walk(m.root)
		if checked == 0 {
			t.Errorf("%s %v: no reuse distance checked", tc.kernel, tc.defs)
		}
	}
}

// touchRange is the lines member p touches in iteration t of x over the
// accesses strictly after from and strictly before to (points within the
// iteration), or false when there are none.
func (p partialMember) touchRange(t int64, from, to partialPoint, shift, line int64) (lineRange, bool) {
	lo, hi := from.i, to.i
	if from.order >= int64(p.order) {
		lo++
	}
	if to.order <= int64(p.order) {
		hi--
	}
	lo, hi = max(lo, 0), min(hi, p.ny-1)
	if lo > hi {
		return lineRange{}, false
	}
	a, b := p.bytesAt(t, lo, hi, shift)
	return lineRange{p.array, floorQuo(a, line), floorQuo(b, line)}, true
}

// distinctLines counts the lines of a union of ranges.
func distinctLines(rs []lineRange) int64 {
	slices.SortFunc(rs, func(a, b lineRange) int {
		return cmp.Or(cmp.Compare(a.array, b.array), cmp.Compare(a.lo, b.lo))
	})
	var n int64
	for i := 0; i < len(rs); {
		cur := rs[i]
		j := i + 1
		for ; j < len(rs) && rs[j].array == cur.array && rs[j].lo <= cur.hi+1; j++ {
			cur.hi = max(cur.hi, rs[j].hi)
		}
		n += cur.hi - cur.lo + 1
		i = j
	}
	return n
}

// unionDistance is the number of distinct lines touched strictly
// between a touch at from in iteration t-1 of x and one at to in iteration
// t: what an LRU cache holds besides the line between its two touches. rs
// is a buffer for the ranges, returned for the next call.
func unionDistance(mems []partialMember, t int64, from, to partialPoint, shift, line int64, rs []lineRange) (int64, []lineRange) {
	end := partialPoint{mems[0].ny, -1}
	begin := partialPoint{-1, 1 << 30}
	for _, p := range mems {
		if r, ok := p.touchRange(t-1, from, end, shift, line); ok {
			rs = append(rs, r)
		}
		if r, ok := p.touchRange(t, begin, to, shift, line); ok {
			rs = append(rs, r)
		}
	}
	return distinctLines(rs), rs
}
