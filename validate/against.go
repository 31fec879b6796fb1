package validate

import (
	"fmt"
	"math"
	"sort"
)

// Reproducibility sets a report against other reports of the same suite
// on the same host (perfc validate --against): how far the host's own
// measurements move from one run to the next, which bounds what any
// prediction can reach, and which of the report's misses the other runs
// repeat (the model's) and which only this run has (the hour's, or its
// table's). docs/accuracy.md, "Against other runs".
type Reproducibility struct {
	// Reports names the other reports, as given.
	Reports []string `json:"reports"`
	// Cases counts the cases compared in this report and in every other
	// one (matched by name, which holds the sizes: a table whose caches
	// differ sizes some cases differently, and those are left out).
	Cases int `json:"cases"`
	// Floor summarises, over those cases, the other reports' median
	// measurement of each case taken as its prediction: the error of a
	// prediction that knew exactly what the host measured in the other
	// runs. Model summarises this report's own errors on the same cases,
	// to set beside it.
	Floor Summary `json:"floor"`
	Model Summary `json:"model"`
	// Repeated are this report's misses (beyond MissBound) that the
	// other reports also have, in the median and with the same sign,
	// largest |error| first: what the model gets wrong whatever the hour.
	// Once counts the rest of the misses among the matched cases.
	Repeated []RepeatedMiss `json:"repeated"`
	Once     int            `json:"once"`
}

// RepeatedMiss is a miss of a report that the other reports repeat, in
// their median error.
type RepeatedMiss struct {
	Case  string  `json:"case"`
	Level string  `json:"level"`
	Ranks int64   `json:"ranks"`
	Term  string  `json:"term"`  // the dominant term, as Misses names it
	Error float64 `json:"error"` // this report's
	// Others are the other reports' errors for the case, in the order
	// of Reports.
	Others []float64 `json:"others"`
}

// Against compares r with other reports of the same backend. names are
// the other reports' names (files), in the same order. It is an
// error to give none, or one whose cases ran on another backend.
func Against(r *Report, other []*Report, names []string) (*Reproducibility, error) {
	if err := CheckOthers(r.Backend, other, names); err != nil {
		return nil, err
	}
	byName := make([]map[string]Case, len(other))
	for i, e := range other {
		byName[i] = map[string]Case{}
		for _, c := range e.Cases {
			if compared(c) {
				byName[i][c.Name] = c
			}
		}
	}
	rep := &Reproducibility{Reports: names, Repeated: []RepeatedMiss{}}
	var floor, model []Case
	for _, c := range r.Cases {
		if !compared(c) {
			continue
		}
		others, ok := matching(c.Name, byName)
		if !ok {
			continue
		}
		measured := make([]float64, len(others))
		for i, o := range others {
			measured[i] = o.Total.Measured
		}
		floor = append(floor, Case{Total: &Comparison{Error: ptr(Error(Median(measured), c.Total.Measured))}})
		model = append(model, c)
		if miss, ok := repeatedMiss(c, others); ok {
			rep.Repeated = append(rep.Repeated, miss)
		} else if math.Abs(*c.Total.Error) > MissBound {
			rep.Once++
		}
	}
	rep.Cases = len(model)
	rep.Floor, rep.Model = Summarize(floor), Summarize(model)
	sort.SliceStable(rep.Repeated, func(i, j int) bool {
		return math.Abs(rep.Repeated[i].Error) > math.Abs(rep.Repeated[j].Error)
	})
	return rep, nil
}

// CheckOthers refuses other reports that Against could not set a report
// of the given backend ("goroutine", "mpi") beside: none, or one whose
// cases ran on another backend. perfc validate checks them before it
// measures anything.
func CheckOthers(backend string, other []*Report, names []string) error {
	if len(other) == 0 || len(other) != len(names) {
		return fmt.Errorf("validate --against: %d other reports with %d names; give one or more reports that validate --json wrote", len(other), len(names))
	}
	for i, e := range other {
		if e.Backend != backend {
			return fmt.Errorf("validate --against %s: its cases ran on the %s backend, this report's on the %s backend; set reports of one backend against each other", names[i], e.Backend, backend)
		}
	}
	return nil
}

// compared reports whether a case has a predicted and a measured total.
func compared(c Case) bool {
	return c.Failure == "" && c.Total != nil && c.Total.Error != nil && c.Total.Measured > 0
}

// matching returns the case of the given name from every other report,
// false when one lacks it.
func matching(name string, byName []map[string]Case) ([]Case, bool) {
	out := make([]Case, len(byName))
	for i, m := range byName {
		c, ok := m[name]
		if !ok {
			return nil, false
		}
		out[i] = c
	}
	return out, true
}

// repeatedMiss returns c as a RepeatedMiss when it misses beyond MissBound
// and the other reports' median error for it does too, with the same
// sign: the miss of a typical run. (Asking it of every report would let
// one report of a slow hour clear a case: of one run's 54 misses, 8
// were misses of every one of seven other runs and 30 of their median.)
func repeatedMiss(c Case, other []Case) (RepeatedMiss, bool) {
	e := *c.Total.Error
	if math.Abs(e) <= MissBound {
		return RepeatedMiss{}, false
	}
	errs := make([]float64, len(other))
	for i, o := range other {
		errs[i] = *o.Total.Error
	}
	if m := Median(errs); math.Abs(m) <= MissBound || (m > 0) != (e > 0) {
		return RepeatedMiss{}, false
	}
	return RepeatedMiss{Case: c.Name, Level: c.Level, Ranks: c.Ranks, Term: missTerm(c.Dominant), Error: e, Others: errs}, true
}
