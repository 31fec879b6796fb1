package costmodel

import (
	"fmt"
	"strings"

	"perfc/analyze"
	"perfc/machines"
)

// Saying what a prediction used: a resource the kernel uses and the table
// cannot price, vector units that priced nothing, and -M overrides that
// changed nothing. A prediction of 0 s because nothing was priced is an
// error, not a number.

// kernelUse is what a kernel's ranks do, all classes together.
type kernelUse struct {
	ops, memory, messages, collectives bool
}

// usesOf summarises what the classes of rep do.
func usesOf(rep *analyze.Report) kernelUse {
	var u kernelUse
	for _, cl := range rep.Classes {
		t := cl.Total
		u.ops = u.ops || len(t.Ops) > 0 && (t.Flop.Float() > 0 || t.IntOps.Float() > 0)
		u.memory = u.memory || t.Loads.Float()+t.Stores.Float() > 0
		u.messages = u.messages || len(t.Messages) > 0
		u.collectives = u.collectives || len(t.Collectives) > 0 || t.Barriers.Float() > 0
	}
	return u
}

// hasComputeModel reports whether a machine can price arithmetic: an
// operation table, a peak rate, a bottleneck law or the IMH terms (into
// which the IMH paper folds compute); a free machine prices it at nothing
// on purpose.
func hasComputeModel(m *machines.Machine) bool {
	c := m.Compute()
	if c.Free() {
		return true
	}
	if c != nil {
		if _, ok := c.OpCost(machines.TwoArraysScalar, machines.OpAdd, "f64"); ok {
			return true
		}
		for _, e := range []string{"f64", "f32"} {
			if _, ok := c.Peak(e); ok {
				return true
			}
		}
		if _, ok := c.IMH(); ok {
			return true
		}
		if m.Compose() == machines.ComposeECM {
			_, loop := c.Loop()
			_, access := c.Access()
			if loop || access || c.HasOps() {
				return true
			}
		}
	}
	return len(m.Memory().Bottlenecks()) > 0
}

// hasMessageModel reports whether a machine can price a message (and so,
// through MPICH's algorithms, a collective its table does not list).
func hasMessageModel(m *machines.Machine) bool {
	return m.Compute().Free() || m.Messages("") != nil
}

// unpricedWarnings names what the kernel does that the machine cannot
// price, and returns an error when it can price none of it: a prediction
// of 0 s would then say nothing.
func (p *machinePricer) unpricedWarnings(rep *analyze.Report, total float64) ([]string, error) {
	m := p.m
	u := usesOf(rep)
	var missing, warnings []string
	if u.ops && !hasComputeModel(m) {
		missing = append(missing, "no compute model (no operation table, peak rate, bottleneck law or IMH terms)")
		warnings = append(warnings, fmt.Sprintf("machine %s has no compute model (no operation table, peak rate, bottleneck law or IMH terms): the arithmetic of kernel %s is not priced, and the compute column is 0 s; add a compute section to the table (docs/machines.md) or choose another machine", m.Name(), rep.Kernel))
	}
	if u.messages && !hasMessageModel(m) {
		missing = append(missing, "no message model")
		warnings = append(warnings, fmt.Sprintf("machine %s has no message model: the point-to-point messages of kernel %s are not priced (0 s); add a messages section (docs/machines.md) or choose another machine", m.Name(), rep.Kernel))
	}
	if p.unpricedCollectives {
		missing = append(missing, "no message model for the collectives its table does not list")
		warnings = append(warnings, fmt.Sprintf("machine %s has no message model: the collectives of kernel %s that its table does not list are not priced (0 s)", m.Name(), rep.Kernel))
	}
	if total == 0 && len(missing) > 0 && (u.ops || u.messages || u.collectives) {
		return warnings, &UnpricedError{Machine: m.Name(), Kernel: rep.Kernel, Missing: missing}
	}
	return warnings, nil
}

// UnpricedError is Predict's error for a machine that prices nothing the
// kernel does: a prediction of 0 s would say nothing.
type UnpricedError struct {
	Machine, Kernel string
	Missing         []string // what the table lacks: "no compute model (…)", "no message model"
}

// Error says what is missing and what to do.
func (e *UnpricedError) Error() string {
	return fmt.Sprintf("machine %s prices nothing kernel %s does: it has %s; a prediction of 0 s would say nothing. "+
		"Choose another machine (perfc machines lists them) or add the missing sections to the table (docs/machines.md)",
		e.Machine, e.Kernel, strings.Join(e.Missing, " and "))
}

// vectorNote says why --vector-units priced nothing on the vector units:
// the machine has none, or no innermost loop of the kernel has one of its
// forms. It returns "" when some loop was priced there, or when the flag
// is off.
func (p *machinePricer) vectorNote(rep *analyze.Report) string {
	if !p.vectorUnits || p.vectorPriced {
		return ""
	}
	units := p.m.Compute().Vectors()
	if len(units) == 0 {
		return fmt.Sprintf("--vector-units: machine %s has no vector units; every loop is priced on the scalar processor", p.m.Name())
	}
	var forms []string
	seen := map[string]bool{}
	for _, cl := range rep.Classes {
		for _, v := range cl.Total.Vectors {
			if _, ok := p.m.Compute().Vector(v.Form, v.Elem); ok {
				return "" // matched, but shorter than N_v: the note says so per loop
			}
			if f := v.Form + " " + v.Elem; !seen[f] {
				seen[f] = true
				forms = append(forms, f)
			}
		}
	}
	if len(forms) == 0 {
		return fmt.Sprintf("--vector-units: no innermost loop of kernel %s has a vector form (docs/predict.md); every loop is priced on the scalar processor", rep.Kernel)
	}
	return fmt.Sprintf("--vector-units: no vector form of kernel %s (%s) is in the vector table of %s; every loop is priced on the scalar processor",
		rep.Kernel, strings.Join(forms, ", "), p.m.Name())
}

// Override is one -M assignment of the machine a prediction was made on.
type Override struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	// Used is whether the prediction changes without the assignment: an
	// override that prices nothing of the kernel is not used, and a note
	// says what priced that kind of work instead.
	Used bool `json:"used"`
}

// MarkOverrides records the -M assignments of pred's machine m in
// pred.Overrides and finds whether each was used: without(i) returns the
// prediction of the same kernel on the machine with every assignment but
// the i-th, and that machine. An override is used when the two predictions
// differ in any term, the total or the emulation; one that is not gets a
// note naming the parts of the table it enters and what priced the
// kernel's work of that kind instead.
func MarkOverrides(pred *Prediction, m *machines.Machine, assignments []machines.Assignment,
	without func(i int) (*Prediction, *machines.Machine, error)) error {
	for i, a := range assignments {
		o := Override{Name: a.Name, Value: a.Value}
		other, base, err := without(i)
		if err != nil {
			return err
		}
		o.Used = !samePrediction(pred, other)
		if !o.Used {
			pred.Notes = append(pred.Notes, unusedNote(pred, o, changedSections(base, m)))
		}
		pred.Overrides = append(pred.Overrides, o)
	}
	return nil
}

// samePrediction reports whether two predictions of one kernel price
// everything alike: the same terms and totals, and an emulation with the
// same critical path and link waits.
func samePrediction(a, b *Prediction) bool {
	if a.Total != b.Total || a.RankSum != b.RankSum || len(a.Classes) != len(b.Classes) || len(a.Regions) != len(b.Regions) {
		return false
	}
	for i := range a.Classes {
		if a.Classes[i].Time != b.Classes[i].Time {
			return false
		}
	}
	for i, r := range a.Regions {
		if len(r.Terms) != len(b.Regions[i].Terms) {
			return false
		}
		for j, t := range r.Terms {
			if t.Time != b.Regions[i].Terms[j].Time {
				return false
			}
		}
	}
	ea, eb := a.Emulation, b.Emulation
	if ea == nil || eb == nil {
		return ea == eb
	}
	return ea.Total == eb.Total && ea.LinkWaits == eb.LinkWaits && ea.LinkWait == eb.LinkWait
}

// changedSections lists the sections of a machine table (as perfc
// machines prints them: compute, memory, messages, collectives, cluster,
// ...) in which b differs from a, with the changed entries; the params
// section is left out, since the override itself is there.
func changedSections(a, b *machines.Machine) []string {
	var da, db strings.Builder
	if a.Describe(&da) != nil || b.Describe(&db) != nil {
		return nil
	}
	la, lb := strings.Split(da.String(), "\n"), strings.Split(db.String(), "\n")
	if len(la) != len(lb) {
		return nil
	}
	var out []string
	section, changed := "", []string(nil)
	flush := func() {
		if section != "" && section != "params" && len(changed) > 0 {
			out = append(out, section+" ("+strings.Join(changed, ", ")+")")
		}
		changed = nil
	}
	for i := range la {
		if la[i] != "" && !strings.HasPrefix(la[i], " ") {
			flush()
			section, _, _ = strings.Cut(la[i], " ")
			continue
		}
		if la[i] != lb[i] {
			changed = append(changed, entryName(la[i]))
		}
	}
	flush()
	return out
}

// entryName is the name column of a line of perfc machines: the words
// before the first run of two blanks.
func entryName(line string) string {
	line = strings.TrimSpace(line)
	if i := strings.Index(line, "  "); i > 0 {
		line = line[:i]
	}
	return line
}

// unusedNote says that an override priced nothing, which parts of the
// table it enters, and what priced the kernel's work of those kinds.
func unusedNote(pred *Prediction, o Override, sections []string) string {
	s := fmt.Sprintf("-M %s=%s was not used", o.Name, o.Value)
	if len(sections) == 0 {
		return s + ": it changes no number of " + pred.Machine + " that prices anything"
	}
	s += ": it enters " + strings.Join(sections, " and ")
	var instead []string
	for _, sec := range sections {
		kind, _, _ := strings.Cut(sec, " ")
		instead = append(instead, pricedInstead(pred, kind))
	}
	return s + "; " + strings.Join(dedupe(instead), "; ")
}

// workKinds names, by section of a machine table, the term resource it
// prices, what the kernel does of it, and what it is when it does none.
var workKinds = map[string]struct{ resource, what, none string }{
	"compute":     {"compute", "arithmetic", "does no arithmetic this table prices"},
	"memory":      {"memory", "memory traffic", "has no memory traffic this table prices"},
	"messages":    {"message", "messages", "sends no point-to-point messages"},
	"cluster":     {"message", "messages", "sends no point-to-point messages"},
	"collectives": {"collective", "collectives", "calls no collectives"},
}

// pricedInstead says how the prediction priced the work a table section
// prices: by which rules, or that the kernel does none of it.
func pricedInstead(pred *Prediction, section string) string {
	kind, ok := workKinds[section]
	if !ok {
		return "the prediction does not read the " + section + " section"
	}
	var hows []string
	for _, r := range pred.Regions {
		for _, t := range r.Terms {
			if t.Resource == kind.resource && t.How != "" {
				hows = append(hows, t.What+" by "+t.How)
			}
		}
	}
	hows = dedupe(hows)
	if len(hows) == 0 {
		return fmt.Sprintf("kernel %s %s", pred.Kernel, kind.none)
	}
	if len(hows) > 3 {
		hows = append(hows[:3], "…")
	}
	return fmt.Sprintf("its %s are priced by: %s", kind.what, strings.Join(hows, ", "))
}

// dedupe drops repeated strings, keeping the first of each.
func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// partitionNote says when a communicating kernel runs on a different number of ranks
// than the table's numbers were measured on: collective formulas, fat-tree
// levels and saturation fitted on one partition are extrapolated to
// another, and a reader should know that the figure is an extrapolation.
func partitionNote(m *machines.Machine, ranks int64) string {
	n, ok := m.Ranks()
	if !ok || n.Value == float64(ranks) {
		return ""
	}
	return fmt.Sprintf("kernel runs on %d ranks, but the numbers of machine %s were measured on %s ranks: its communication costs that depend on the partition (collective formulas, network levels) are extrapolated", ranks, m.Name(), n)
}
