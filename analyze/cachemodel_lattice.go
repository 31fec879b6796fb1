package analyze

import (
	"cmp"
	"math"
	"math/big"
	"math/bits"
	"slices"

	"perfc/analyze/symbolic"
)

// This file counts lattices: the lines of the union of segments translated
// over a lattice, box by box of slots and residue by residue of their
// alignment modulo the line size. Each step is written twice, side by side:
// exactly with a per-slot formula for the boxes whose count is reported
// (latDim, segment, latticeLines, boxLines, unionLines, and
// boxHistogramLines in big integers with boxHistogramSmall as its int64
// fast path), and by value alone in int64 for footprintCount (valDim,
// valSeg, latticeCount, boxCount, unionCount), each int64 declaration right
// after its exact twin; TestFootprintCountMatches holds the two together.

// latDim is one dimension of a lattice of segments: count segments, stride
// bytes apart. A separate lattice counts every slot on its own even when
// slots overlap (the iterations of one loop, without reuse between them).
type latDim struct {
	stride   symInt
	count    symInt
	separate bool
}

// valDim is a lattice dimension by value (see latDim).
type valDim struct {
	stride, count int64
	separate      bool
}

// segment is one translate of a lattice's segment: bytes [off, off+len) of
// the array in slot 0. slack is the stride of the loop that stretched the
// segment minus the element size (a formula candidate, see latticeLines).
type segment struct {
	off   symInt
	len   symInt
	elem  int64
	slack symInt
}

// valSeg is a segment by value: bytes [off, off+len) of slot 0 (see
// segment), with its lattice coordinates u when placed.
type valSeg struct {
	off, len int64
	u        []int64
}

// sameLattice reports whether two lattices have equal strides and counts.
func sameLattice(a, b []latDim) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].stride.v != b[i].stride.v || a[i].count.v != b[i].count.v {
			return false
		}
	}
	return true
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

// extent is the lowest byte and one past the highest byte a lattice of
// segments touches.
func extent(lat []latDim, segs []segment) (lo, hi int64) {
	span := int64(0)
	for _, d := range lat {
		span += d.stride.v * (d.count.v - 1)
	}
	for i, s := range segs {
		if i == 0 || s.off.v < lo {
			lo = s.off.v
		}
		if e := s.off.v + s.len.v + span; i == 0 || e > hi {
			hi = e
		}
	}
	return lo, hi
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

// latticeLines counts exactly the lines of the union of the segments
// translated over the lattice. Each segment's offset is split into lattice
// coordinates (nearest slot) and an offset inside the slot; the slot space
// is cut into boxes where the same segments are present, and in each box
// the slots are counted per residue of their start modulo the line size, so
// that misaligned rows are counted as they fall. The formula of a box is its
// number of slots times a per-slot candidate that reproduces its exact
// count: a constant, the bytes covered over the line size, or that plus the
// stretching slack or plus line-minus-element (rows at every alignment).
func latticeLines(lat []latDim, segs []segment, line int64) est {
	if len(segs) == 0 {
		return zeroEst()
	}
	a0, first := segs[0].off, 0
	for i, s := range segs[1:] {
		if s.off.v < a0.v {
			a0, first = s.off, i+1
		}
	}
	// Bare segments (see footprint) want the value only.
	bare := false
	for _, s := range segs {
		bare = bare || s.off.bare || s.len.bare
	}
	for _, d := range lat {
		bare = bare || d.stride.bare || d.count.bare
	}
	K := len(lat)
	ps := make([]placedSeg, len(segs))
	for i, s := range segs {
		var rel symInt
		if i == first && !s.off.bare {
			rel = symInt{v: 0, ok: s.off.ok} // a0 − a0, without the Poly work
		} else {
			rel = s.off.minus(a0)
		}
		u := make([]int64, K)
		for k := K - 1; k >= 0; k-- {
			if lat[k].separate {
				continue // members of one iteration stay in one slot
			}
			S := lat[k].stride.v
			u[k] = floorQuo(rel.v+S/2, S)
			rel = rel.minus(constSym(u[k]).times(lat[k].stride))
		}
		ps[i] = placedSeg{u: u, v: rel, len: s.len, elem: s.elem, slack: s.slack}
	}
	bps := make([][]symInt, K)
	for k := range lat {
		var b []symInt
		for _, p := range ps {
			b = append(b, constSym(p.u[k]), constSym(p.u[k]).plus(lat[k].count))
		}
		slices.SortStableFunc(b, func(x, y symInt) int { return cmp.Compare(x.v, y.v) })
		var uniq []symInt
		for _, x := range b {
			if len(uniq) == 0 || uniq[len(uniq)-1].v != x.v {
				uniq = append(uniq, x)
			}
		}
		bps[k] = uniq
	}
	total := zeroEst()
	idx := make([]int, K)
	for {
		total = total.plus(boxLines(lat, ps, bps, idx, a0.v, line, bare))
		if !nextBox(idx, bps) {
			break
		}
	}
	if shared := sharedNeighbourLines(valLattice(lat), valPlaced(ps), a0.v, line); shared > 0 {
		// The formula counted the shared lines twice: the value alone.
		v := new(big.Rat).Sub(total.val, big.NewRat(shared, 1))
		if bare {
			return est{val: v, bare: true}
		}
		return est{val: v}
	}
	return total
}

// valLattice is a lattice by value.
func valLattice(lat []latDim) []valDim {
	out := make([]valDim, len(lat))
	for k, d := range lat {
		out[k] = valDim{stride: d.stride.v, count: d.count.v, separate: d.separate}
	}
	return out
}

// valPlaced is placed segments by value.
func valPlaced(ps []placedSeg) []valSeg {
	out := make([]valSeg, len(ps))
	for i, p := range ps {
		out[i] = valSeg{off: p.v.v, len: p.len.v, u: p.u}
	}
	return out
}

// sharedNeighbourLines counts the lines that two slots next to each other
// in memory both touch, the last line of the lower slot's union being the
// first of the upper's: the box counts take every slot on its own, so such
// a line, where a row ends inside the line the next row begins in, was
// counted twice. Slots next to each other are u and u+1 along the smallest
// stride, and, along a larger stride k, the last slot of the smaller
// dimensions at index i of k and their first slot at i+1 (the last row of a
// plane and the first row of the next). Separate lattices count every slot
// on its own on purpose. Dimensions whose step leaves a line between any
// slot's union and the next slot are skipped without counting.
func sharedNeighbourLines(lat []valDim, ps []valSeg, a0, line int64) int64 {
	K := len(lat)
	if K == 0 || len(ps) == 0 {
		return 0
	}
	lo, hi := ps[0].off, ps[0].off+ps[0].len
	for _, p := range ps {
		lo, hi = min(lo, p.off), max(hi, p.off+p.len)
	}
	bps := make([][]int64, K)
	for k := range lat {
		if lat[k].separate {
			return 0
		}
		b := make([]int64, 0, 2*len(ps))
		for _, p := range ps {
			b = append(b, p.u[k], p.u[k]+lat[k].count)
		}
		slices.Sort(b)
		bps[k] = slices.Compact(b)
	}
	// step[k] is the bytes from the last slot of the dimensions below k
	// to their first slot one index further along k.
	step := make([]int64, K)
	near := false
	for k := range lat {
		step[k] = lat[k].stride
		for j := range k {
			step[k] -= (bps[j][len(bps[j])-1] - 1 - bps[j][0]) * lat[j].stride
		}
		near = near || hi-lo >= step[k]-line+2
	}
	if !near {
		return 0
	}
	// box[i] is the union's first and last byte in the slot of the box
	// whose index, digit k in base len(bps[k])-1, is i (ok false when no
	// segment covers it), computed once per box.
	type bound struct {
		lo, hi int64
		ok     bool
	}
	nbox := 1
	for k := range lat {
		nbox *= len(bps[k]) - 1
	}
	boxes := make([]bound, nbox)
	flat := func(idx []int) int {
		i := 0
		for k := K - 1; k >= 0; k-- {
			i = i*(len(bps[k])-1) + idx[k]
		}
		return i
	}
	{
		idx := make([]int, K)
		for {
			b := &boxes[flat(idx)]
			for _, p := range ps {
				in := true
				for k := range lat {
					a, e := bps[k][idx[k]], bps[k][idx[k]+1]
					in = in && p.u[k] <= a && e <= p.u[k]+lat[k].count
				}
				if !in {
					continue
				}
				if !b.ok || p.off < b.lo {
					b.lo = p.off
				}
				if !b.ok || p.off+p.len > b.hi {
					b.hi = p.off + p.len
				}
				b.ok = true
			}
			if !nextValBox(idx, bps) {
				break
			}
		}
	}
	bounds := func(idx []int) (lo, hi int64, ok bool) {
		b := boxes[flat(idx)]
		return b.lo, b.hi, b.ok
	}
	hist, next := make([]int64, line), make([]int64, line)
	total := int64(0)
	idx := make([]int, K)
	partner := make([]int, K)
	ranges := make([][2]int64, K)
	for {
		blo, bhi, ok := bounds(idx)
		for k := range lat {
			if !ok || bhi-blo < step[k]-line+2 {
				continue
			}
			last := true // the box holds the last slots below k
			for j := range k {
				last = last && idx[j] == len(bps[j])-2
			}
			if !last {
				continue
			}
			for j := range lat {
				ranges[j] = [2]int64{bps[j][idx[j]], bps[j][idx[j]+1]}
				if j < k {
					ranges[j][0] = ranges[j][1] - 1
				}
			}
			copy(partner, idx)
			for j := range k {
				partner[j] = 0
			}
			end := ranges[k][1]
			// Partners at the next index within the box's range along k.
			if end-ranges[k][0] >= 2 {
				if plo, _, ok := bounds(partner); ok {
					ranges[k][1] = end - 1
					total += sharedInRange(lat, ranges, a0, line, hist, next, bhi, step[k]+plo)
				}
			}
			// The box's last index along k and the next box.
			if idx[k]+2 < len(bps[k]) {
				partner[k]++
				if plo, _, ok := bounds(partner); ok {
					ranges[k] = [2]int64{end - 1, end}
					total += sharedInRange(lat, ranges, a0, line, hist, next, bhi, step[k]+plo)
				}
			}
		}
		if !nextValBox(idx, bps) {
			break
		}
	}
	return total
}

// sharedInRange counts the slots in ranges (per dimension) whose union's
// last byte hi-1 lies in the line of the next slot's first byte, at
// nextLo from the slot's start.
func sharedInRange(lat []valDim, ranges [][2]int64, a0, line int64, hist, next []int64, hi, nextLo int64) int64 {
	clear(hist)
	hist[residue(a0, line)] = 1
	for k := range lat {
		d := slotResidues(ranges[k][0], ranges[k][1], lat[k].stride, line)
		if !convolve64(next, hist, d, line) {
			return 0
		}
		hist, next = next, hist
	}
	n := int64(0)
	for r, c := range hist {
		if c > 0 && floorQuo(int64(r)+hi-1, line) >= floorQuo(int64(r)+nextLo, line) {
			n += c
		}
	}
	return n
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
	return total - sharedNeighbourLines(lat, ps, a0, line), true
}

// placedSeg is a segment in lattice coordinates: slot u, offset v in it.
type placedSeg struct {
	u     []int64
	v     symInt
	len   symInt
	elem  int64
	slack symInt
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

// nextBox advances the odometer over the elementary intervals of every
// dimension; false when all were visited.
func nextBox(idx []int, bps [][]symInt) bool {
	for k := range idx {
		idx[k]++
		if idx[k] < len(bps[k])-1 {
			return true
		}
		idx[k] = 0
	}
	return false
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

// boxLines counts the lines of one box of slots.
func boxLines(lat []latDim, ps []placedSeg, bps [][]symInt, idx []int, a0, line int64, bare bool) est {
	var cover []placedSeg
	for _, p := range ps {
		in := true
		for k := range lat {
			lo, hi := bps[k][idx[k]].v, bps[k][idx[k]+1].v
			in = in && p.u[k] <= lo && hi <= p.u[k]+lat[k].count.v
		}
		if in {
			cover = append(cover, p)
		}
	}
	if len(cover) == 0 {
		return zeroEst()
	}
	slices.SortStableFunc(cover, func(a, b placedSeg) int { return cmp.Compare(a.v.v, b.v.v) })
	total, first, constant := boxHistogramLines(lat, bps, idx, cover, a0, line)
	out := est{val: new(big.Rat).SetInt(total)}
	if bare {
		out.bare = true
		return out
	}
	width := constSym(1)
	for k := range lat {
		lo, hi := bps[k][idx[k]], bps[k][idx[k]+1]
		width = width.times(hi.minus(lo))
	}
	if width.ok {
		if p, ok := slotFormula(cover, first, constant, total, width.v, line); ok {
			out.p, out.poly, out.ok = timesWidth(p, width), true, true
			return out
		}
	}
	// No exact formula: keep the stream's (bytes + slack)/line as an
	// approximation for conditions.
	approx := mergedBytes(cover).plus(cover[0].slack)
	out.p, out.poly = timesWidth(approx.formula().Scale(big.NewRat(1, line)), width), true
	return out
}

// boxHistogramLines counts a box's lines: the slots of the box by the
// residue of their address modulo the line, each residue times the lines
// the covering segments take from it. It also returns the line count of
// the first residue present and whether every residue present has it. The
// histogram is kept in int64 while it fits (the usual case, and tens of
// times faster than big integers) and redone exactly when it would not.
func boxHistogramLines(lat []latDim, bps [][]symInt, idx []int, cover []placedSeg, a0, line int64) (*big.Int, int64, bool) {
	if total, first, constant, ok := boxHistogramSmall(lat, bps, idx, cover, a0, line); ok {
		return big.NewInt(total), first, constant
	}
	hist := make([]*big.Int, line)
	for r := range hist {
		hist[r] = new(big.Int)
	}
	hist[residue(a0, line)].SetInt64(1)
	for k := range lat {
		lo, hi := bps[k][idx[k]], bps[k][idx[k]+1]
		hist = convolve(hist, slotResidues(lo.v, hi.v, lat[k].stride.v, line))
	}
	total := new(big.Int)
	first, constant := int64(-1), true
	for r, c := range hist {
		if c.Sign() == 0 {
			continue
		}
		n := unionLines(cover, int64(r), line)
		if first < 0 {
			first = n
		}
		constant = constant && n == first
		total.Add(total, new(big.Int).Mul(c, big.NewInt(n)))
	}
	return total, first, constant
}

// boxHistogramSmall is boxHistogramLines in int64; ok is false when a
// product or sum would overflow.
func boxHistogramSmall(lat []latDim, bps [][]symInt, idx []int, cover []placedSeg, a0, line int64) (total, first int64, constant, ok bool) {
	if len(lat) == 0 {
		// One slot, at a0.
		n := unionLines(cover, residue(a0, line), line)
		return n, n, true, true
	}
	hist := make([]int64, line)
	hist[residue(a0, line)] = 1
	next := make([]int64, line)
	for k := range lat {
		lo, hi := bps[k][idx[k]], bps[k][idx[k]+1]
		d := slotResidues(lo.v, hi.v, lat[k].stride.v, line)
		if !convolve64(next, hist, d, line) {
			return 0, 0, false, false
		}
		hist, next = next, hist
	}
	first, constant = -1, true
	for r, c := range hist {
		if c == 0 {
			continue
		}
		n := unionLines(cover, int64(r), line)
		if first < 0 {
			first = n
		}
		constant = constant && n == first
		if total, ok = mulAdd64(total, c, n); !ok {
			return 0, 0, false, false
		}
	}
	return total, first, constant, true
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

// convolve adds residues cyclically: out[(a+b) mod line] += h[a]·d[b].
func convolve(h []*big.Int, d []int64) []*big.Int {
	line := int64(len(h))
	out := make([]*big.Int, line)
	for r := range out {
		out[r] = new(big.Int)
	}
	for a, x := range h {
		if x.Sign() == 0 {
			continue
		}
		for b, y := range d {
			if y == 0 {
				continue
			}
			r := (int64(a) + int64(b)) % line
			out[r].Add(out[r], new(big.Int).Mul(x, big.NewInt(y)))
		}
	}
	return out
}

// convolve64 is convolve in int64 into a buffer the caller reuses: next
// gets hist's residues added cyclically to d's, next[(a+b) mod line] +=
// hist[a]·d[b], the residues of a box's slots after one more lattice
// dimension. It reports false when a count would overflow an int64.
func convolve64(next, hist, d []int64, line int64) bool {
	clear(next)
	for a, x := range hist {
		if x == 0 {
			continue
		}
		for b, y := range d {
			if y == 0 {
				continue
			}
			r := (int64(a) + int64(b)) % line
			var ok bool
			if next[r], ok = mulAdd64(next[r], x, y); !ok {
				return false
			}
		}
	}
	return true
}

// mulAdd64 returns s + x·y for non-negative operands, and false when the
// result does not fit an int64.
func mulAdd64(s, x, y int64) (int64, bool) {
	if x < 0 || y < 0 || s < 0 {
		return 0, false
	}
	hi, lo := bits.Mul64(uint64(x), uint64(y))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	sum := s + int64(lo)
	if sum < s {
		return 0, false
	}
	return sum, true
}

// timesWidth is p times a box's width: most boxes are one slot wide (a
// lattice without dimensions), and p·1 is p.
func timesWidth(p symbolic.Poly, width symInt) symbolic.Poly {
	if !width.poly && width.v == 1 {
		return p
	}
	return p.Mul(width.formula())
}

// slotFormula is the first per-slot formula that, times the width of a
// box, gives its total lines: the constant line count when every slot has
// the same and no segment length depends on a symbol, then (bytes+slack)/line
// (a stream: accesses × stride / line), bytes/line and
// (bytes+line-elem)/line for the merged bytes of the segments. Candidates
// are compared by value; only the one chosen gets its formula built.
func slotFormula(cover []placedSeg, first int64, constant bool, total *big.Int, width, line int64) (symbolic.Poly, bool) {
	allConst := true
	for _, p := range cover {
		allConst = allConst && p.len.constFormula() && p.v.constFormula()
	}
	if constant && allConst && productIs(first, width, total, 1) {
		return symbolic.Int(first), true
	}
	bytes, ok := mergedBytesValue(cover)
	for _, extra := range [...]symInt{cover[0].slack, constSym(0), constSym(line - cover[0].elem)} {
		if ok && extra.ok && productIs(bytes+extra.v, width, total, line) {
			return mergedBytes(cover).plus(extra).formula().Scale(big.NewRat(1, line)), true
		}
	}
	return symbolic.Poly{}, false
}

// mergedBytesValue is the value of mergedBytes and whether its formula is
// exact, without the formula.
func mergedBytesValue(cover []placedSeg) (int64, bool) {
	total, ok := int64(0), true
	start, end := cover[0].v.v, cover[0].v.v+cover[0].len.v
	okStart, okEnd := cover[0].v.ok, cover[0].v.ok && cover[0].len.ok
	for _, p := range cover[1:] {
		e, okE := p.v.v+p.len.v, p.v.ok && p.len.ok
		if p.v.v <= end {
			if e > end {
				end, okEnd = e, okE
			}
			continue
		}
		total, ok = total+(end-start), ok && okEnd && okStart
		start, end, okStart, okEnd = p.v.v, e, p.v.ok, okE
	}
	return total + (end - start), ok && okEnd && okStart
}

// productIs reports whether a·b = total·line exactly.
func productIs(a, b int64, total *big.Int, line int64) bool {
	if total.IsInt64() {
		x, okX := mulAdd64(0, a, b)
		y, okY := mulAdd64(0, total.Int64(), line)
		if okX && okY {
			return x == y
		}
	}
	x := new(big.Int).Mul(big.NewInt(a), big.NewInt(b))
	return x.Cmp(new(big.Int).Mul(total, big.NewInt(line))) == 0
}

// mergedBytes is the number of bytes the union of sorted segments covers.
func mergedBytes(cover []placedSeg) symInt {
	total := constSym(0)
	start, end := cover[0].v, cover[0].v.plus(cover[0].len)
	for _, p := range cover[1:] {
		e := p.v.plus(p.len)
		if p.v.v <= end.v {
			if e.v > end.v {
				end = e
			}
			continue
		}
		total = total.plus(end.minus(start))
		start, end = p.v, e
	}
	return total.plus(end.minus(start))
}

// unionLines counts the lines covered by the segments [shift+v, shift+v+len)
// (sorted by v).
func unionLines(cover []placedSeg, shift, line int64) int64 {
	n := int64(0)
	last := int64(-1 << 62)
	for _, p := range cover {
		x := shift + p.v.v
		y := x + p.len.v
		var k int64
		k, last = newLines(x, y, last, line)
		n += k
	}
	return n
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

// newLines returns the lines that the bytes [x, y) touch beyond line last
// (segments come in order of their start), and the new last line.
func newLines(x, y, last, line int64) (n, newLast int64) {
	fl, ll := floorQuo(x, line), floorQuo(y-1, line)
	if fl <= last {
		fl = last + 1
	}
	if ll >= fl {
		n = ll - fl + 1
	}
	return n, max(last, ll)
}

// slotResidues counts the slots p in [lo, hi) by the residue of p·stride
// modulo line. The residues repeat with period line/gcd(stride, line).
func slotResidues(lo, hi, stride, line int64) []int64 {
	out := make([]int64, line)
	n := hi - lo
	sm := residue(stride, line)
	period := int64(1)
	if sm != 0 {
		period = line / gcd64(sm, line)
	}
	for t := int64(0); t < period && t < n; t++ {
		p := lo + t
		r := residue(residue(p, line)*sm, line)
		out[r] += (n-1-t)/period + 1
	}
	return out
}

// floorQuo is ⌊a/b⌋ for b > 0.
func floorQuo(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// residue is a mod b, in [0, b) for b > 0.
func residue(a, b int64) int64 {
	r := a % b
	if r < 0 {
		r += b
	}
	return r
}

// gcd64 is the greatest common divisor of two positive integers.
func gcd64(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
