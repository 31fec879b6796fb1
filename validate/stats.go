package validate

import (
	"math"
	"slices"
	"sort"
	"strings"
)

// Error is the relative error of a prediction, (predicted − measured) /
// measured: positive when perfc predicts too long a time. It is NaN when
// nothing was measured (a zero or negative time), so that such a case
// cannot pass for an exact one.
func Error(predicted, measured float64) float64 {
	if !(measured > 0) || math.IsNaN(predicted) {
		return math.NaN()
	}
	return (predicted - measured) / measured
}

// Spread is the measurement's own uncertainty, (max − min) / median: how
// far apart the fastest and slowest of its samples are, relative to the
// median. It is NaN when the median is not positive.
func Spread(min, median, max float64) float64 {
	if !(median > 0) {
		return math.NaN()
	}
	return (max - min) / median
}

// Noisy reports whether a comparison says nothing about the model: the
// measurement's spread is larger than the error, so the error is within
// what the machine does between runs. An error that is not a number is
// never noisy (it is a failure, reported as such).
func Noisy(err, spread float64) bool {
	if math.IsNaN(err) || math.IsNaN(spread) {
		return false
	}
	return spread > math.Abs(err)
}

// Median returns the median of xs (the mean of the two middle values for
// an even count), NaN for none. xs is not changed.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// ShareWithin returns the share (0 to 1) of errs whose absolute value is
// at most bound; a bound is met with equality (an error of exactly 15 %
// is within 15 %). NaN for no errors.
func ShareWithin(errs []float64, bound float64) float64 {
	if len(errs) == 0 {
		return math.NaN()
	}
	n := 0
	for _, e := range errs {
		if math.Abs(e) <= bound {
			n++
		}
	}
	return float64(n) / float64(len(errs))
}

// Bounds are the error bounds the summary reports shares within: 10 %,
// 15 % and 20 % (issue 14; Kerncraft's validation reports 10 % and 20 %).
var Bounds = [...]float64{0.10, 0.15, 0.20}

// Summary is the accuracy of a group of cases: how many, and how far
// their predicted totals are from the measured ones.
type Summary struct {
	// Cases counts the cases of the group, Compared those with an error
	// (measured and predicted), Failed those that could not be run or
	// predicted, Noisy the compared ones whose spread exceeds the error.
	Cases    int `json:"cases"`
	Compared int `json:"compared"`
	Failed   int `json:"failed"`
	Noisy    int `json:"noisy"`
	// MedianAbsError is the median of |error| over the compared cases;
	// Within10, Within15 and Within20 the shares (0 to 1) within 10, 15
	// and 20 %; MedianError the median signed error (a bias: positive
	// when perfc predicts too long). JSON null when none was compared.
	MedianAbsError *float64 `json:"median_abs_error"`
	MedianError    *float64 `json:"median_error"`
	Within10       *float64 `json:"within_10"`
	Within15       *float64 `json:"within_15"`
	Within20       *float64 `json:"within_20"`
}

// Summarize summarises the cases' total errors.
func Summarize(cases []Case) Summary {
	s := Summary{Cases: len(cases)}
	var errs, abs []float64
	for _, c := range cases {
		if c.Failure != "" || c.Total == nil || c.Total.Error == nil {
			s.Failed++
			continue
		}
		e := *c.Total.Error
		errs = append(errs, e)
		abs = append(abs, math.Abs(e))
		if c.Total.Noisy {
			s.Noisy++
		}
	}
	s.Compared = len(errs)
	if len(errs) == 0 {
		return s
	}
	s.MedianAbsError = ptr(Median(abs))
	s.MedianError = ptr(Median(errs))
	s.Within10 = ptr(ShareWithin(errs, Bounds[0]))
	s.Within15 = ptr(ShareWithin(errs, Bounds[1]))
	s.Within20 = ptr(ShareWithin(errs, Bounds[2]))
	return s
}

// Worst returns up to n compared cases with the largest |error|, largest
// first (ties in suite order), as the summary lists them.
func Worst(cases []Case, n int) []Case {
	var out []Case
	for _, c := range cases {
		if c.Failure == "" && c.Total != nil && c.Total.Error != nil {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		return math.Abs(*out[i].Total.Error) > math.Abs(*out[j].Total.Error)
	})
	return out[:min(n, len(out))]
}

// MissBound is the |error| beyond which a case misses issue 14's target
// (90 % of the cases within 15 %): Misses groups such cases by the term
// that dominated their prediction.
const MissBound = 0.15

// TermMisses is the cases beyond MissBound whose predictions one term
// dominated: the term to suspect for all of them.
type TermMisses struct {
	// Term is the dominant term's resource (compute, message, cores,
	// waiting …), with a memory term's transfer ("memory: L3 lines from and
	// to memory") and a collective's kind ("collective: bcast").
	Term        string  `json:"term"`
	MedianError float64 `json:"median_error"`
	Cases       []Miss  `json:"cases"` // largest |error| first
}

// Miss is one case beyond MissBound.
type Miss struct {
	Case  string  `json:"case"`
	Level string  `json:"level"`
	Ranks int64   `json:"ranks"`
	Error float64 `json:"error"`
	Noisy bool    `json:"noisy"`
}

// Misses groups the compared cases beyond MissBound by the term that
// dominated their prediction, the largest groups first (ties by term),
// each group's cases by |error|: every miss with what to suspect, beyond
// the summary's ten worst.
func Misses(cases []Case) []TermMisses {
	byTerm := map[string]*TermMisses{}
	var errs = map[string][]float64{}
	for _, c := range Worst(cases, len(cases)) {
		e := *c.Total.Error
		if math.Abs(e) <= MissBound {
			continue
		}
		t := missTerm(c.Dominant)
		g := byTerm[t]
		if g == nil {
			g = &TermMisses{Term: t, Cases: []Miss{}}
			byTerm[t] = g
		}
		g.Cases = append(g.Cases, Miss{Case: c.Name, Level: c.Level, Ranks: c.Ranks, Error: e, Noisy: c.Total.Noisy})
		errs[t] = append(errs[t], e)
	}
	out := make([]TermMisses, 0, len(byTerm))
	for t, g := range byTerm {
		g.MedianError = Median(errs[t])
		out = append(out, *g)
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i].Cases) != len(out[j].Cases) {
			return len(out[i].Cases) > len(out[j].Cases)
		}
		return out[i].Term < out[j].Term
	})
	return out
}

// missTerm names a dominant term for Misses: its resource, with a memory
// term's transfer and a collective's kind (the first word of its What).
func missTerm(d *Dominant) string {
	if d == nil {
		return "none"
	}
	switch d.Resource {
	case "memory":
		return "memory: " + d.What
	case "collective":
		kind, _, _ := strings.Cut(d.What, " ")
		return "collective: " + kind
	}
	return d.Resource
}

// ptr returns a pointer to x, for the optional figures of the report.
func ptr(x float64) *float64 { return &x }
