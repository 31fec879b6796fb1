package calibrate

import (
	"fmt"
	"slices"

	"perfc/analyze/cache"
	"perfc/calibrate/host"
)

// Effective capacities: a level holds less than sysfs says.
//
// sysfs gives the hardware's caches; a process may have less of them. On
// this project's host (a 2-core VM on an AMD EPYC whose 32 MiB L3 its
// 8-core complex shares) the load stream slows by a third beyond about
// 8 MiB, far below 32 MiB, and the validation's kernels at half the sysfs
// L3 (16 MiB) ran at memory speed (docs/accuracy.md, 2026-11-26): the other
// tenants of the L3, or the hypervisor's partition of it, take the rest.
// A table that prices a 16 MiB working set as L3-resident predicts those
// kernels twice too fast. So the calibration measures each level's
// capacity on the working-set sweep and, where the curve leaves the
// level's plateau well before its sysfs size, gives the level the size it
// showed: the cache model then counts the lines a larger working set
// brings from the level below, the fits take their plateaus from the
// measured sizes, and perfc validate picks its sizes inside them.
//
// The plateau of level i is the load stream's median time per element on
// working sets from twice level i−1 to a quarter of level i, where the
// data surely lies in level i. Scanning up from there, the level ends at
// the last working set before two consecutive ones each take more than
// effectiveRatio times the plateau (two, so that one disturbed
// measurement does not move a level). The measured size is kept only when
// the level is slow already at half its sysfs size or before: a working
// set as large as the level never fits it whole (the other data, the code
// and the conflicts take their part), which is no shortfall. L1 is not
// measured: scalar loops are core-bound there.

// effectiveRatio is how much slower than its plateau a working set must
// run to lie beyond a level: 20 %, twice the knee that confirms a sysfs
// level (kneeRatio), so that the drift of a plateau does not end it.
const effectiveRatio = 1.20

// effectiveLevel is one level whose measured capacity is below sysfs.
type effectiveLevel struct {
	level     string
	sysfs     int64   // bytes, as sysfs gives it
	size      int64   // bytes, the last working set on the plateau
	next      int64   // the first working set beyond it
	ratio     float64 // time per element there over the plateau's
	plateauLo int64   // working sets of the plateau
	plateauHi int64
}

// effectiveHierarchy returns the hierarchy with every level's measured
// capacity (unchanged levels keep sysfs's size and source) and the levels
// it changed.
func effectiveHierarchy(pts []point, h cache.Hierarchy) (cache.Hierarchy, []effectiveLevel) {
	type sample struct {
		bytes int64
		perEl float64
	}
	var load []sample
	for _, p := range pts {
		if p.group == groupLoad {
			load = append(load, sample{p.n * 8, p.seconds / (float64(p.reps) * float64(p.n))})
		}
	}
	slices.SortFunc(load, func(a, b sample) int { return int(a.bytes - b.bytes) })
	out := slices.Clone(h)
	var changed []effectiveLevel
	for i := 1; i < len(h); i++ {
		sysfs := int64(h[i].Size)
		lo, hi := 2*int64(h[i-1].Size), sysfs/4
		var plateau []float64
		for _, s := range load {
			if s.bytes >= lo && s.bytes <= hi {
				plateau = append(plateau, s.perEl)
			}
		}
		if len(plateau) == 0 {
			continue
		}
		ref := median(plateau)
		for j := range load {
			s := load[j]
			if s.bytes <= hi || s.bytes > sysfs || j == 0 || j+1 >= len(load) {
				continue
			}
			if s.perEl <= effectiveRatio*ref || load[j+1].perEl <= effectiveRatio*ref {
				continue
			}
			// A whole number of sets: the cache model's geometry.
			unit := int64(h[i].Line) * int64(max(h[i].Assoc, 1))
			last := load[j-1].bytes / unit * unit
			if s.bytes > sysfs/2 || last <= int64(h[i-1].Size) {
				break
			}
			e := effectiveLevel{level: h[i].Name, sysfs: sysfs, size: last, next: s.bytes, ratio: s.perEl / ref, plateauLo: lo, plateauHi: hi}
			changed = append(changed, e)
			out[i].Size = int(last)
			out[i].Source = e.source() + "; sysfs: " + h[i].Source
			break
		}
	}
	return out, changed
}

// source says where a measured capacity comes from.
func (e effectiveLevel) source() string {
	return fmt.Sprintf("perfc calibrate working-set sweep: the load stream's time per element is %s its plateau (%s..%s) from %s on, so %s holds %s here (sysfs: %s)",
		"×"+sig4(e.ratio)+" of", host.Bytes(e.plateauLo), host.Bytes(e.plateauHi), host.Bytes(e.next), e.level, host.Bytes(e.size), host.Bytes(e.sysfs))
}
