package validate

import (
	"fmt"
	"strings"

	"perfc/analyze"
	"perfc/costmodel"
	"perfc/internal/units"
	"perfc/lang"
)

// quickPick is one case of the quick suite: a kernel, the index of its
// size among the table's targets (-1: the last, beyond the caches) and
// its rank count.
type quickPick struct {
	kernel string
	level  int
	ranks  int64
}

// quickPicks is the quick suite on the default kernels: eight cases that
// touch every kind the full suite has (a stream in L1 and from memory, a
// cache-blocked loop nest, latency-bound reductions, a stencil, messages,
// a collective; held-out kernels among them), measured in under a minute.
var quickPicks = []quickPick{
	{"triad", 0, 1}, {"triad", -1, 1}, {"matmul", 1, 1}, {"dot", 1, 1}, {"stencil2d", 0, 1},
	{"pingpong", 0, 2}, {"stencil1d", 1, 2}, {"ddot", 0, 4},
}

// Plan makes the suite's cases of kernels on the options' machine: every
// kernel at each target size (Targets of the machine's caches) and rank
// count, each predicted, shrunk to the run-time cap or skipped with a
// reason. With Quick, only quickPicks (or, for a suite that holds none of
// their kernels, each kernel's smallest size at its fewest ranks).
func Plan(kernels []Kernel, opts Options) ([]Case, []Skip, error) {
	opts = opts.withDefaults()
	if opts.Machine == nil {
		return nil, nil, fmt.Errorf("validate: no machine table to predict with")
	}
	targets := Targets(opts.Machine.CacheHierarchy())
	picks := map[string][]quickPick{}
	if opts.Quick {
		for _, p := range quickPicks {
			for _, k := range kernels {
				if k.Name == p.kernel {
					picks[k.Name] = append(picks[k.Name], p)
				}
			}
		}
	}
	var cases []Case
	var skips []Skip
	for _, k := range kernels {
		var want func(level int, ranks int64) bool
		switch {
		case !opts.Quick:
			want = func(int, int64) bool { return true }
		case len(picks) > 0:
			ps := picks[k.Name]
			if len(ps) == 0 {
				continue
			}
			want = func(level int, ranks int64) bool {
				for _, p := range ps {
					if p.ranks == ranks && (p.level == level || p.level == -1 && level == len(targets)-1) {
						return true
					}
				}
				return false
			}
		default:
			first := true
			want = func(_ int, ranks int64) bool {
				if opts.mpi() && ranks < 2 { // through MPI, its fewest ranks that can communicate
					return false
				}
				ok := first
				first = false
				return ok
			}
		}
		cs, ss, err := planKernel(k, targets, opts, want)
		if err != nil {
			return nil, nil, err
		}
		if opts.mpi() {
			cs, ss = communicating(cs, ss)
		}
		cases = append(cases, cs...)
		skips = append(skips, ss...)
	}
	return cases, skips, nil
}

// communicating keeps the cases whose prediction prices a message, a
// collective or a barrier, and the skips of more than one rank: what
// perfc validate --mpi measures, since MPI changes what communication
// costs and nothing else (a case on one rank, or ranks that never talk,
// runs the same code through either backend).
func communicating(cases []Case, skips []Skip) ([]Case, []Skip) {
	var cs []Case
	for _, c := range cases {
		if communicates(c.pred) {
			cs = append(cs, c)
		}
	}
	var ss []Skip
	for _, s := range skips {
		if s.Ranks != 1 {
			ss = append(ss, s)
		}
	}
	return cs, ss
}

// communicates reports whether a prediction has a message, collective or
// barrier term in any region.
func communicates(p *costmodel.Prediction) bool {
	if p == nil {
		return false
	}
	for _, r := range p.Regions {
		for _, t := range r.Terms {
			switch t.Resource {
			case "message", "collective", "barrier":
				return true
			}
		}
	}
	return false
}

// planKernel makes the cases of one kernel that want accepts (by target
// index and rank count, in the order sizes then ranks).
func planKernel(k Kernel, targets []Target, opts Options, want func(level int, ranks int64) bool) ([]Case, []Skip, error) {
	c, err := newChecker(k)
	if err != nil {
		return nil, nil, err
	}
	settings, skips, reason, err := rankSettings(c)
	if err != nil {
		return nil, nil, err
	}
	for i := range skips {
		skips[i].Kernel = k.Name
	}
	if reason != "" {
		return nil, []Skip{{Kernel: k.Name, Reason: reason}}, nil
	}
	var cases []Case
	for _, rs := range settings {
		names, err := SizeParams(c.check, rs.Overrides)
		if err != nil {
			return nil, nil, err
		}
		base, err := c.check(rs.Overrides)
		if err != nil {
			return nil, nil, err
		}
		if len(names) == 0 || len(targets) == 0 {
			// Nothing to scale: the kernel runs at its own size.
			if want(levelIndex(targets, Footprint(base)), rs.Ranks) {
				cs, skip := makeCase(k, c, rs, nil, nil, levelName(targets, Footprint(base)), opts)
				cases, skips = appendResult(cases, skips, cs, skip)
			}
			continue
		}
		defaults := make([]int64, len(names))
		for i, n := range names {
			defaults[i] = paramValue(base, n)
		}
		cands := Candidates(c.check, rs.Overrides, names, defaults)
		for i, t := range targets {
			if !want(i, rs.Ranks) {
				continue
			}
			s, ok := Choose(cands, t)
			if !ok {
				skips = append(skips, Skip{Kernel: k.Name, Level: t.Level, Ranks: rs.Ranks,
					Reason: fmt.Sprintf("no value of %s gives a footprint in %s", strings.Join(names, ", "), bandString(t))})
				continue
			}
			cs, skip := makeCase(k, c, rs, names, s.Params, t.Level, opts)
			cases, skips = appendResult(cases, skips, cs, skip)
		}
	}
	return cases, skips, nil
}

// appendResult appends a case or its skip.
func appendResult(cases []Case, skips []Skip, c *Case, s *Skip) ([]Case, []Skip) {
	if c != nil {
		cases = append(cases, *c)
	}
	if s != nil {
		skips = append(skips, *s)
	}
	return cases, skips
}

// makeCase checks and predicts the kernel with the rank setting and the
// sizes, and shrinks its other parameters until the predicted run is
// within MaxRun; it returns a skip when that fails or the arrays need
// more than MaxMemory.
func makeCase(k Kernel, c *checker, rs rankSetting, sizeNames []string, sizes []Param, level string, opts Options) (*Case, *Skip) {
	skip := func(reason string) (*Case, *Skip) {
		return nil, &Skip{Kernel: k.Name, Level: level, Ranks: rs.Ranks, Reason: reason}
	}
	ovs := append([]lang.Override(nil), rs.Overrides...)
	for _, p := range sizes {
		ovs = append(ovs, lang.Override{Name: p.Name, Value: p.Value})
	}
	ck, err := c.check(ovs)
	if err != nil {
		return skip(firstLine(err.Error()))
	}
	if mem := Footprint(ck) * ck.NumRanks(); mem > opts.MaxMemory {
		return skip(fmt.Sprintf("the arrays of all ranks need %s, over the %s limit", units.Size(float64(mem)), units.Size(float64(opts.MaxMemory))))
	}
	pred, err := Predict(ck, opts)
	if err != nil {
		return skip("prediction failed: " + firstLine(err.Error()))
	}
	ck, ovs, pred, err = shrink(c, ck, ovs, pred, sizeNames, opts)
	if err != nil {
		return skip(firstLine(err.Error()))
	}
	cs := &Case{Kernel: k.Name, File: k.File, Group: k.Group, Level: level, Ranks: ck.NumRanks(),
		Footprint: Footprint(ck), checked: ck, pred: pred}
	var words []string
	for _, o := range ovs {
		cs.Params = append(cs.Params, Param{Name: o.Name, Value: o.Value})
		words = append(words, o.Name+"="+o.Value)
	}
	cs.Name = strings.TrimSpace(k.Name + " " + strings.Join(words, " "))
	return cs, nil
}

// maxShrink bounds the halvings shrink tries.
const maxShrink = 40

// shrink halves the kernel's non-size integer parameters (repetitions,
// iterations), one at a time and as long as each halving shortens the
// prediction, until the predicted run is within MaxRun; an error says the
// case still runs too long.
func shrink(c *checker, ck *lang.Checked, ovs []lang.Override, pred *costmodel.Prediction, sizeNames []string, opts Options) (*lang.Checked, []lang.Override, *costmodel.Prediction, error) {
	limit := opts.MaxRun.Seconds()
	for range maxShrink {
		if pred.Total <= limit {
			return ck, ovs, pred, nil
		}
		improved := false
		for _, p := range ck.Params {
			if isRankParam(p.Name) || contains(sizeNames, p.Name) {
				continue
			}
			v, ok := p.Value.Int64()
			if !ok || v < 2 {
				continue
			}
			try := append(withoutOverride(ovs, p.Name), lang.Override{Name: p.Name, Value: fmt.Sprint(v / 2)})
			k2, err := c.check(try)
			if err != nil {
				continue
			}
			p2, err := Predict(k2, opts)
			if err != nil || p2.Total >= pred.Total {
				continue
			}
			ck, ovs, pred, improved = k2, try, p2, true
			break
		}
		if !improved {
			break
		}
	}
	if pred.Total > limit {
		return nil, nil, nil, fmt.Errorf("a run is predicted to take %s, over the %s cap, and no repetition parameter shortens it", units.Time(pred.Total), opts.MaxRun)
	}
	return ck, ovs, pred, nil
}

// Predict counts every rank of a checked kernel with the machine's caches
// and prices it with the options' model, as perfc predict does.
func Predict(k *lang.Checked, opts Options) (*costmodel.Prediction, error) {
	rep, err := analyze.Analyze(k, analyze.Options{Cache: opts.Machine.CacheHierarchy()})
	if err != nil {
		return nil, sourceError(err, k.File)
	}
	pred, err := costmodel.Predict(k, rep, opts.Machine, opts.Model)
	return pred, sourceError(err, k.File)
}

// paramValue is the integer value of the checked kernel's parameter name
// (0 when it has none).
func paramValue(k *lang.Checked, name string) int64 {
	for _, p := range k.Params {
		if p.Name == name {
			v, _ := p.Value.Int64()
			return v
		}
	}
	return 0
}

// levelIndex is the index of the target whose band holds a footprint
// (0 without targets).
func levelIndex(targets []Target, bytes int64) int {
	for i, t := range targets {
		if t.Fits(bytes) {
			return i
		}
	}
	return 0
}

// levelName names the target whose band holds a footprint ("L1" for an
// empty footprint, "-" without targets).
func levelName(targets []Target, bytes int64) string {
	if len(targets) == 0 {
		return "-"
	}
	return targets[levelIndex(targets, bytes)].Level
}

// bandString describes a target's band for a skip: "L2 (32 KiB to 1 MiB)".
func bandString(t Target) string {
	if t.Size == 0 {
		return fmt.Sprintf("memory (beyond %s)", units.Size(float64(t.Above)))
	}
	return fmt.Sprintf("%s (%s to %s)", t.Level, units.Size(float64(t.Above)), units.Size(float64(t.Size)))
}

// contains reports whether names holds name.
func contains(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}
