package validate

import (
	"fmt"
	"math"
	"sort"

	"perfc/analyze/cache"
	"perfc/codegen"
	"perfc/lang"
)

// Choosing sizes. A case exercises one level of the memory hierarchy when
// the per-rank footprint of its arrays (what perfc count reports as
// "footprint": the arrays of one rank, analyze.Footprint) and of the
// runtime's message buffers (Footprint) fits that level and not the one
// above it. The chooser scales a kernel's size parameters
// together until the footprint lands in each level's band.

// Target is the footprint band of one size of the suite: a footprint in
// (Above, Size] fits Level and not the level above it; Want is the
// footprint aimed at inside the band.
type Target struct {
	Level string // "L1", "L2" … as the table names its caches, or "memory"
	Above int64  // bytes: the size of the level above (0 for L1)
	Size  int64  // bytes: the size of the level (0 for memory: no bound)
	Want  int64  // bytes
}

// fitShare is how much of a level the footprint aims at: half, so that the
// arrays, the stack and the runtime's own data fit beside each other, as a
// kernel that "fits L2" must in practice.
const fitShare = 0.5

// beyondFactor is how many times the last level the footprint of the
// "memory" size aims at: four times, so that almost every line comes from
// memory whatever the replacement policy.
const beyondFactor = 4

// Targets returns the footprint bands of a cache hierarchy: one per level
// and one beyond the last. A level whose half is not above the level
// before it aims at the geometric mean of the two sizes instead. An empty
// hierarchy (a table without caches) has no bands: its kernels run at
// their own sizes.
func Targets(h cache.Hierarchy) []Target {
	var out []Target
	var above int64
	for _, l := range h {
		size := int64(l.Size)
		if size <= above {
			continue // a level no larger than the one before cannot be told apart
		}
		want := int64(fitShare * float64(size))
		if want <= above {
			want = int64(math.Sqrt(float64(above) * float64(size)))
		}
		out = append(out, Target{Level: l.Name, Above: above, Size: size, Want: want})
		above = size
	}
	if above > 0 {
		out = append(out, Target{Level: "memory", Above: above, Want: beyondFactor * above})
	}
	return out
}

// Fits reports whether a footprint lies in the target's band.
func (t Target) Fits(bytes int64) bool {
	return bytes > t.Above && (t.Size == 0 || bytes <= t.Size)
}

// Footprint is the per-rank footprint of a checked kernel in bytes: its
// arrays, as analyze.Footprint counts them (every array, its element size
// times its dimensions), and the runtime's buffers its messages copy
// through (codegen.ScratchBytes: the copy of an in-place exchange's
// payload, byte payloads, a reduction's partial results). Without the
// buffers, hypercube's "L2" size exchanged 512 KiB in place, 1 MiB of
// memory per rank on a 1 MiB L2, and measured 63 µs in some runs and
// 358 µs in others, each run steady within 4 %: where its pages fell.
func Footprint(k *lang.Checked) int64 {
	var total int64
	for _, a := range k.Info.Arrays {
		n := int64(a.Elem.Size())
		for _, d := range a.Dims {
			n *= d
		}
		total += n
	}
	if s := codegen.ScratchBytes(k); total <= math.MaxInt64-s {
		total += s
	}
	return total
}

// Sizing is one way to bind a kernel's size parameters.
type Sizing struct {
	Params    []Param // the size parameters' values
	Footprint int64   // per rank, bytes
	Checked   *lang.Checked
}

// scaleSteps is how finely the chooser scales the size parameters: by
// factors 2^(j/scaleSteps), a quarter of an octave at a time.
const scaleSteps = 4

// maxOctaves bounds the scaling to 2^±maxOctaves of the defaults (and so
// the number of candidates the chooser checks).
const maxOctaves = 14

// SizeParams returns the names of the kernel's size parameters: the
// integer parameters (not P, Px or Py) whose doubling makes the per-rank
// footprint larger. Others (repetitions, a root rank, a block factor that
// moves no array) keep their values. check checks the kernel with
// overrides.
func SizeParams(check func([]lang.Override) (*lang.Checked, error), base []lang.Override) ([]string, error) {
	k, err := check(base)
	if err != nil {
		return nil, err
	}
	foot := Footprint(k)
	var names []string
	for _, p := range k.Params {
		if isRankParam(p.Name) || hasOverride(base, p.Name) {
			continue
		}
		v, ok := p.Value.Int64()
		if !ok || v <= 0 {
			continue
		}
		k2, err := check(append(withoutOverride(base, p.Name), lang.Override{Name: p.Name, Value: fmt.Sprint(2 * v)}))
		if err != nil {
			continue // a parameter that cannot double is not scaled
		}
		if Footprint(k2) > foot {
			names = append(names, p.Name)
		}
	}
	return names, nil
}

// Candidates binds the size parameters at every scale factor 2^(j/4),
// |j| ≤ 4·maxOctaves, each value rounded coarsely and finely
// (scaleValue), and keeps those that check, in order of footprint. defaults are the size parameters' default values.
func Candidates(check func([]lang.Override) (*lang.Checked, error), base []lang.Override, names []string, defaults []int64) []Sizing {
	seen := map[string]bool{}
	var out []Sizing
	for j := -scaleSteps * maxOctaves; j <= scaleSteps*maxOctaves; j++ {
		f := math.Pow(2, float64(j)/scaleSteps)
		for _, fine := range []bool{false, true} {
			ovs := append([]lang.Override(nil), base...)
			var params []Param
			key := ""
			for i, n := range names {
				v := scaleValue(defaults[i], f, fine)
				params = append(params, Param{Name: n, Value: fmt.Sprint(v)})
				ovs = append(ovs, lang.Override{Name: n, Value: fmt.Sprint(v)})
				key += fmt.Sprint(v) + ","
			}
			if seen[key] {
				continue
			}
			seen[key] = true
			k, err := check(ovs)
			if err != nil {
				continue
			}
			out = append(out, Sizing{Params: params, Footprint: Footprint(k), Checked: k})
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Footprint < out[b].Footprint })
	return out
}

// scaleValue scales a default by f, rounded to a multiple of the
// default's largest power-of-two divisor up to 64 (at least that unit),
// so that a default divisible by the rank count or a block stays so; fine
// rounds to a multiple of 2 instead (small sizes, where the coarse unit
// jumps over a cache level's band).
func scaleValue(v int64, f float64, fine bool) int64 {
	unit := int64(1)
	limit := int64(64)
	if fine {
		limit = 2
	}
	for unit < limit && v%(2*unit) == 0 {
		unit *= 2
	}
	x := int64(math.Round(float64(v)*f/float64(unit))) * unit
	return max(x, unit)
}

// Choose picks, for a target, the candidate whose footprint lies in the
// band and is nearest the wanted footprint (by ratio); ok is false when no
// candidate lies in the band.
func Choose(cands []Sizing, t Target) (Sizing, bool) {
	best, found := Sizing{}, false
	bestDist := math.Inf(1)
	for _, c := range cands {
		if !t.Fits(c.Footprint) {
			continue
		}
		d := math.Abs(math.Log(float64(c.Footprint) / float64(t.Want)))
		if d < bestDist {
			best, found, bestDist = c, true, d
		}
	}
	return best, found
}

// isRankParam reports whether name is one of the rank-space parameters
// that the suite sets itself.
func isRankParam(name string) bool { return name == "P" || name == "Px" || name == "Py" }

// hasOverride reports whether ovs sets name.
func hasOverride(ovs []lang.Override, name string) bool {
	for _, o := range ovs {
		if o.Name == name {
			return true
		}
	}
	return false
}

// withoutOverride returns a copy of ovs without name.
func withoutOverride(ovs []lang.Override, name string) []lang.Override {
	var out []lang.Override
	for _, o := range ovs {
		if o.Name != name {
			out = append(out, o)
		}
	}
	return out
}
