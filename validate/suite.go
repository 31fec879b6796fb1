package validate

import (
	"embed"
	"errors"
	"fmt"
	"path"
	"strings"

	"perfc/analyze"
	"perfc/examples"
	"perfc/lang"
	"perfc/parser"
)

// Groups of a case: whether the machine table was tuned on its kernel.
const (
	// GroupTuning marks a case whose kernel the calibration measured to
	// fit the table: it shows how well the fit reproduces its own data.
	GroupTuning = "tuning"
	// GroupHeldOut marks a case that nothing was tuned on: it shows how
	// well the table predicts kernels it has never seen.
	GroupHeldOut = "held-out"
)

// Kernel is one kernel file of the suite.
type Kernel struct {
	Name   string // base name without .spmd ("triad")
	File   string // the name reports and error positions show
	Source []byte
	Group  string // GroupTuning or GroupHeldOut
}

// heldOutFS holds validate's own kernels (kernels/*.spmd): small kernels
// that no calibration tunes on, so that the held-out group never depends
// on which examples a calibration happened to use.
//
//go:embed kernels/*.spmd
var heldOutFS embed.FS

// DefaultKernels returns the default suite: every example (package
// examples) and validate's own kernels, each marked GroupTuning when its
// name is in tuning (the kernels the table was fitted on) and
// GroupHeldOut otherwise.
func DefaultKernels(tuning []string) ([]Kernel, error) {
	var out []Kernel
	for _, name := range examples.Names() {
		src, err := examples.Source(name)
		if err != nil {
			return nil, err
		}
		out = append(out, Kernel{Name: name, File: "examples/" + name + ".spmd", Source: src, Group: group(name, tuning)})
	}
	entries, err := heldOutFS.ReadDir("kernels")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		src, err := heldOutFS.ReadFile("kernels/" + e.Name())
		if err != nil {
			return nil, err
		}
		name := strings.TrimSuffix(e.Name(), ".spmd")
		out = append(out, Kernel{Name: name, File: "validate/kernels/" + e.Name(), Source: src, Group: group(name, tuning)})
	}
	return out, nil
}

// FileKernel makes a suite kernel of a file's text (perfc validate FILES).
func FileKernel(file string, src []byte, tuning []string) Kernel {
	name := strings.TrimSuffix(path.Base(strings.ReplaceAll(file, `\`, "/")), ".spmd")
	return Kernel{Name: name, File: file, Source: src, Group: group(name, tuning)}
}

// group is the group of the kernel called name.
func group(name string, tuning []string) string {
	for _, t := range tuning {
		if strings.TrimSuffix(t, ".spmd") == name {
			return GroupTuning
		}
	}
	return GroupHeldOut
}

// checker parses a kernel once and checks it with any overrides.
type checker struct {
	f *lang.File
}

// newChecker parses a suite kernel; a syntax error is positioned
// (file:line:col).
func newChecker(k Kernel) (*checker, error) {
	f, err := parser.ParseFile(k.File, k.Source)
	if err != nil {
		return nil, sourceError(err, f)
	}
	return &checker{f: f}, nil
}

// check checks the file's first kernel with the overrides.
func (c *checker) check(ovs []lang.Override) (*lang.Checked, error) {
	k, err := lang.Check(c.f, "", ovs)
	if err != nil {
		return nil, sourceError(err, c.f)
	}
	return k, nil
}

// sourceError turns an error that carries positions (a lang.ErrorList or
// a *lang.Error) into a *lang.SourceError that shows them in the file's
// source, as perfc.Parse does; other errors stay as they are.
func sourceError(err error, f *lang.File) error {
	if err == nil || f == nil || f.Source == nil {
		return err
	}
	var list lang.ErrorList
	if errors.As(err, &list) {
		return &lang.SourceError{List: list, Source: f.Source}
	}
	var pe *lang.Error
	if errors.As(err, &pe) {
		return &lang.SourceError{List: lang.ErrorList{pe}, Source: f.Source}
	}
	return err
}

// RankCounts are the rank counts communicating kernels run at.
var RankCounts = [...]int64{2, 4}

// maxOwnRanks is the most ranks a kernel whose rank count cannot be set
// runs at in the suite: the machine has few cores, and a case must measure
// in about a second.
const maxOwnRanks = 4

// rankSetting is how a kernel is given a rank count.
type rankSetting struct {
	Ranks     int64
	Overrides []lang.Override
}

// rankSettings returns the rank counts a kernel runs at: a kernel of one
// rank stays at one; a kernel whose P (or Px and Py) can be set runs at 2
// and 4 ranks; another runs at its own P when that is at most
// maxOwnRanks. A reason says why a kernel has none; skips say why a rank
// count the kernel's parameters give is left out (its peers need another
// shape), once rather than at every size.
func rankSettings(c *checker) ([]rankSetting, []Skip, string, error) {
	k, err := c.check(nil)
	if err != nil {
		return nil, nil, "", err
	}
	own := k.NumRanks()
	var out []rankSetting
	var skips []Skip
	for _, p := range RankCounts {
		s, ok, why := setRanks(c, p)
		switch {
		case ok:
			out = append(out, s)
		case why != "":
			skips = append(skips, Skip{Ranks: p, Reason: why}) // the caller names the kernel
		}
	}
	switch {
	case len(out) > 0:
		return out, skips, "", nil
	case own == 1:
		return []rankSetting{{Ranks: 1}}, nil, "", nil
	case own <= maxOwnRanks:
		return []rankSetting{{Ranks: own}}, nil, "", nil
	}
	return nil, nil, fmt.Sprintf("its %d ranks cannot be set to %d or %d, and more than %d ranks share this machine's cores badly", own, RankCounts[0], RankCounts[1], maxOwnRanks), nil
}

// setRanks finds overrides that give the kernel p ranks: P = p for a 1-D
// kernel, a grid of p ranks (2×1, 2×2, 4×1, 1×2) for a 2-D one; the
// kernel must analyse at its own sizes on them (cannon's peers need a
// square grid: on 2×1 a peer is rank 2). When settings give p ranks but
// none analyses, why says so with the first one's error.
func setRanks(c *checker, p int64) (s rankSetting, ok bool, why string) {
	tries := [][]lang.Override{{{Name: "P", Value: fmt.Sprint(p)}}}
	for _, g := range [][2]int64{{2, p / 2}, {p, 1}, {1, p}, {p / 2, 2}} {
		tries = append(tries, []lang.Override{{Name: "Px", Value: fmt.Sprint(g[0])}, {Name: "Py", Value: fmt.Sprint(g[1])}})
	}
	tries = append(tries, []lang.Override{{Name: "Px", Value: fmt.Sprint(p / 2)}})
	for _, ovs := range tries {
		k, err := c.check(ovs)
		if err != nil || k.NumRanks() != p {
			continue
		}
		if _, err := analyze.Analyze(k, analyze.Options{}); err != nil {
			if why == "" {
				why = fmt.Sprintf("no setting of its rank parameters gives %d ranks it runs on: %s", p, firstLine(sourceError(err, c.f).Error()))
			}
			continue
		}
		return rankSetting{Ranks: p, Overrides: ovs}, true, ""
	}
	return rankSetting{}, false, why
}
