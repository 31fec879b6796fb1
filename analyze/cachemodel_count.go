package analyze

import (
	"slices"

	"perfc/lang"
)

// This file computes footprints by value alone, in int64 and without
// formulas: the layer conditions compare most footprints with a capacity or
// with each other and print few, and building symInts, ests and their
// big.Rats for those was most of the model's cost. footprintCount follows
// footprintSum (cachemodel.go) step by step on the values it computes, and
// TestFootprintCountMatches holds the two together.

// valDim is a lattice dimension by value (see latDim).
type valDim struct {
	stride, count int64
	separate      bool
}

// valSeg is a segment by value: bytes [off, off+len) of slot 0 (see
// segment), with its lattice coordinates u when placed.
type valSeg struct {
	off, len int64
	u        []int64
}

// footprintCount is the value of footprintIn (at == nil: on average), or
// false when a group is irregular, a view cannot be taken, or a count would
// not fit an int64: the caller then takes the general way.
func (m *cacheModel) footprintCount(groups []*refGroup, within func(*cacheNode) bool, stores bool, line int64, at *lang.Env) (int64, bool) {
	type class struct {
		lat  []valDim
		segs []valSeg
	}
	var classes []class
	for _, g := range groups {
		if g.empty {
			continue
		}
		if g.irregular {
			return 0, false
		}
		var lat []valDim
		var segs []valSeg
		if at != nil {
			v, ok, err := m.viewAt(g, within, at)
			if err != nil {
				return 0, false
			}
			if !ok {
				continue
			}
			lat, segs = g.reduceCount(within, stores, line, func(k int) int64 { return v.trips[k].v }, func(i int) int64 { return v.bases[i].v })
		} else {
			lat, segs = g.reduceCount(within, stores, line, func(k int) int64 { return g.averageTrip(k, within) }, func(i int) int64 { return g.members[i].base.v })
		}
		if len(segs) == 0 {
			continue
		}
		into := -1
		for i, c := range classes {
			if sameValLattice(c.lat, lat) {
				into = i
			}
		}
		if into < 0 {
			into = len(classes)
			classes = append(classes, class{lat: lat})
		}
		classes[into].segs = append(classes[into].segs, segs...)
	}
	var total, start, end int64
	for i, c := range classes {
		n, ok := latticeCount(c.lat, c.segs, line)
		if !ok {
			return 0, false
		}
		if total, ok = mulAdd64(total, n, 1); !ok {
			return 0, false
		}
		lo, hi := valExtent(c.lat, c.segs)
		if i == 0 || lo < start {
			start = lo
		}
		if i == 0 || hi > end {
			end = hi
		}
	}
	if len(classes) > 1 {
		// As footprintSum: lattices that differ are added, up to the span.
		if n := floorQuo(end-1, line) - floorQuo(start, line) + 1; total > n {
			total = n
		}
	}
	if len(groups) > 0 {
		if limit := arrayLines(groups[0].array, line); total > limit {
			return limit, true
		}
	}
	return total, true
}

// averageTrip is the trip count of dimension k in averageView.
func (g *refGroup) averageTrip(k int, within func(*cacheNode) bool) int64 {
	d := g.dims[k]
	t := d.n
	for _, j := range d.deps {
		if within(g.dims[j].node) && g.dims[j].stride.v == 0 && d.box != d.n {
			t = d.box
		}
	}
	return t
}

// reduceCount is reduce by value, with the view's trip counts and member
// addresses given by trip and base.
func (g *refGroup) reduceCount(within func(*cacheNode) bool, stores bool, line int64, trip, base func(int) int64) ([]valDim, []valSeg) {
	var sel []valDim
	for k, d := range g.dims {
		if within(d.node) && d.stride.v != 0 {
			if n := trip(k); n > 1 {
				sel = append(sel, valDim{stride: d.stride.v, count: n})
			}
		}
	}
	shift := int64(0)
	for i, d := range sel {
		if d.stride < 0 {
			shift += d.stride * (d.count - 1)
			sel[i].stride = -d.stride
		}
	}
	slices.SortStableFunc(sel, func(a, b valDim) int {
		switch {
		case a.stride < b.stride:
			return -1
		case a.stride > b.stride:
			return 1
		}
		return 0
	})
	length := g.elem
	lat := sel[:0]
	for _, d := range sel {
		if len(lat) == 0 && d.stride < length+line {
			length += d.stride * (d.count - 1)
			continue
		}
		lat = append(lat, d)
	}
	var segs []valSeg
	for i, mem := range g.members {
		if stores && !mem.store {
			continue
		}
		s := valSeg{off: base(i) + shift, len: length}
		dup := false
		for _, t := range segs {
			dup = dup || (t.off == s.off && t.len == s.len)
		}
		if !dup {
			segs = append(segs, s)
		}
	}
	return lat, segs
}

// sameValLattice is sameLattice by value.
func sameValLattice(a, b []valDim) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].stride != b[i].stride || a[i].count != b[i].count {
			return false
		}
	}
	return true
}

// valExtent is extent by value.
func valExtent(lat []valDim, segs []valSeg) (lo, hi int64) {
	span := int64(0)
	for _, d := range lat {
		span += d.stride * (d.count - 1)
	}
	for i, s := range segs {
		if i == 0 || s.off < lo {
			lo = s.off
		}
		if e := s.off + s.len + span; i == 0 || e > hi {
			hi = e
		}
	}
	return lo, hi
}

// latticeCount is latticeLines by value; false when the count would not
// fit an int64.
func latticeCount(lat []valDim, segs []valSeg, line int64) (int64, bool) {
	if len(segs) == 0 {
		return 0, true
	}
	a0 := segs[0].off
	for _, s := range segs[1:] {
		a0 = min(a0, s.off)
	}
	K := len(lat)
	us := make([]int64, K*len(segs))
	ps := make([]valSeg, len(segs))
	for i, s := range segs {
		rel := s.off - a0
		u := us[i*K : (i+1)*K : (i+1)*K]
		for k := K - 1; k >= 0; k-- {
			if lat[k].separate {
				continue // members of one iteration stay in one slot
			}
			S := lat[k].stride
			u[k] = floorQuo(rel+S/2, S)
			rel -= u[k] * S
		}
		ps[i] = valSeg{off: rel, len: s.len, u: u}
	}
	if K == 0 {
		// One box, one slot at a0: the lines of the union as it falls.
		slices.SortStableFunc(ps, byOff)
		return unionCount(ps, residue(a0, line), line), true
	}
	bps := make([][]int64, K)
	for k := range lat {
		b := make([]int64, 0, 2*len(ps))
		for _, p := range ps {
			b = append(b, p.u[k], p.u[k]+lat[k].count)
		}
		slices.Sort(b)
		bps[k] = slices.Compact(b)
	}
	total := int64(0)
	idx := make([]int, K)
	cover := make([]valSeg, 0, len(ps))
	hist, next := make([]int64, line), make([]int64, line)
	for {
		cover = cover[:0]
		for _, p := range ps {
			in := true
			for k := range lat {
				lo, hi := bps[k][idx[k]], bps[k][idx[k]+1]
				in = in && p.u[k] <= lo && hi <= p.u[k]+lat[k].count
			}
			if in {
				cover = append(cover, p)
			}
		}
		if len(cover) > 0 {
			slices.SortStableFunc(cover, byOff)
			n, ok := boxCount(lat, bps, idx, cover, a0, line, hist, next)
			if !ok {
				return 0, false
			}
			if total, ok = mulAdd64(total, n, 1); !ok {
				return 0, false
			}
		}
		if !nextValBox(idx, bps) {
			break
		}
	}
	return total, true
}

// byOff orders placed segments by their offset in the slot.
func byOff(a, b valSeg) int {
	switch {
	case a.off < b.off:
		return -1
	case a.off > b.off:
		return 1
	}
	return 0
}

// nextValBox is nextBox over breakpoints by value.
func nextValBox(idx []int, bps [][]int64) bool {
	for k := range idx {
		idx[k]++
		if idx[k] < len(bps[k])-1 {
			return true
		}
		idx[k] = 0
	}
	return false
}

// boxCount is boxHistogramSmall's total, with hist and next as buffers of
// line entries.
func boxCount(lat []valDim, bps [][]int64, idx []int, cover []valSeg, a0, line int64, hist, next []int64) (int64, bool) {
	clear(hist)
	hist[residue(a0, line)] = 1
	for k := range lat {
		lo, hi := bps[k][idx[k]], bps[k][idx[k]+1]
		d := slotResidues(lo, hi, lat[k].stride, line)
		if !convolve64(next, hist, d, line) {
			return 0, false
		}
		hist, next = next, hist
	}
	total := int64(0)
	for r, c := range hist {
		if c == 0 {
			continue
		}
		var ok bool
		if total, ok = mulAdd64(total, c, unionCount(cover, int64(r), line)); !ok {
			return 0, false
		}
	}
	return total, true
}

// unionCount is unionLines by value.
func unionCount(cover []valSeg, shift, line int64) int64 {
	n := int64(0)
	last := int64(-1 << 62)
	for _, p := range cover {
		x := shift + p.off
		y := x + p.len
		var k int64
		k, last = newLines(x, y, last, line)
		n += k
	}
	return n
}
