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

// Two looks. A level's capacity is the moment's: the other tenants of the
// L3 come and go. The full calibrations of 2026-11-27 measured L3 at
// 8 MiB in most runs, at 11.3 MiB in one and at the whole 32 MiB in
// another (08:46), whose table priced the validation's L3 cases of 16–18
// MB at L3 speed while they ran at memory speed (+15..+40 %). So after
// every other benchmark, minutes after the sweep, the calibration looks
// again (lookAgain: the sweep's load stream alone, up to twice the last
// level) and each level keeps the smaller of the two sizes: a level
// that held more a moment ago is not one a kernel can count on.

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
	// firstLook, when the second look gave the size, is the size the
	// sweep's first look gave (sysfs's when it saw no shortfall).
	firstLook int64
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
	look := "perfc calibrate working-set sweep"
	if e.firstLook > 0 {
		look = fmt.Sprintf("perfc calibrate second look at the capacities, after the other benchmarks (the working-set sweep's first look: %s %s; the smaller kept)",
			e.level, host.Bytes(e.firstLook))
	}
	return fmt.Sprintf("%s: the load stream's time per element is %s its plateau (%s..%s) from %s on, so %s holds %s here (sysfs: %s)",
		look, "×"+sig4(e.ratio)+" of", host.Bytes(e.plateauLo), host.Bytes(e.plateauHi), host.Bytes(e.next), e.level, host.Bytes(e.size), host.Bytes(e.sysfs))
}

// lookSizes are the second look's measurements: 9 of 50 ms (the quick
// run's), a second or two of the load stream; the tests' tiny ones as
// they are.
func lookSizes(sz sizes) sizes {
	if sz.samples > 9 {
		sz.samples, sz.minTime = 9, "50ms"
	}
	return sz
}

// lookAgain takes the second look at the levels' capacities, through
// run, and gives each level of the table the smaller of the two looks'
// sizes; when one shrinks, the memory fits are taken again on the sizes.
func lookAgain(r *Result, run runFunc) error {
	h := r.Host.Caches
	if len(h) < 2 || r.sweep == nil {
		return nil
	}
	sz := lookSizes(r.sz)
	look, err := run(lookKernel(sz, 2*int64(h[len(h)-1].Size)), sz, "the caches' capacities, a second look")
	if err != nil {
		return err
	}
	var second []effectiveLevel
	r.Looked, second = effectiveHierarchy(look.points, h)
	var changed bool
	if r.Caches, r.Effective, changed = keepSmaller(r.Caches, r.Effective, second, h); !changed {
		return nil
	}
	return r.fitSweep()
}

// keepSmaller gives each level of the first look's hierarchy (caches,
// with its measured levels first) the second look's size where that is
// smaller, and reports whether one was; sysfs is the hierarchy both
// looks started from. Its arguments are left as they were.
func keepSmaller(caches cache.Hierarchy, first, second []effectiveLevel, sysfs cache.Hierarchy) (cache.Hierarchy, []effectiveLevel, bool) {
	caches, first = slices.Clone(caches), slices.Clone(first)
	changed := false
	for _, e := range second {
		i := slices.IndexFunc(caches, func(c cache.Level) bool { return c.Name == e.level })
		if i < 0 || int64(caches[i].Size) <= e.size {
			continue
		}
		e.firstLook = int64(caches[i].Size)
		caches[i].Size = int(e.size)
		caches[i].Source = e.source() + "; sysfs: " + sysfs[i].Source
		first = slices.DeleteFunc(first, func(f effectiveLevel) bool { return f.level == e.level })
		first = append(first, e)
		changed = true
	}
	slices.SortFunc(first, func(a, b effectiveLevel) int { return int(a.sysfs - b.sysfs) })
	return caches, first, changed
}

// fitSweep fits the memory section on the sweep. Where a level's size is
// a measured one, the sweep is counted again on the table's hierarchy
// first: the analyzer's lines per level depend on the sizes (the
// measurement stands).
func (r *Result) fitSweep() error {
	mem := r.sweep
	if len(r.Effective) > 0 {
		_, rep, err := countKernel(r.memSpec, r.Caches)
		if err != nil {
			return err
		}
		if mem, err = joinCounts(r.memSpec, rep, r.sweep.m); err != nil {
			return err
		}
	}
	var err error
	r.Memory, err = fitMemory(mem, r.Caches)
	return err
}
