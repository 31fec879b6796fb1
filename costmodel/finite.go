package costmodel

import (
	"fmt"

	"perfc/analyze"
	"perfc/internal/jsonwalk"
	"perfc/internal/units"
	"perfc/machines"
)

// This file refuses results that cannot be printed or encoded as JSON: a
// count beyond float range, a cost that is negative where it is used, a
// time or rate that is infinite or not a number. Each error names its
// cause (the region, the term, its count and unit cost, the machine
// table's entry) so that a user never sees "+Inf s", "R_B = NaN" or a JSON
// encoder's "unsupported value".

// checkPrediction is the last step of Predict. It first evaluates the
// machine table's collective and message entries at the exact sizes and
// rank counts the kernel uses (so that a formula such as 2000us - P*1us at
// P = 4096 is refused with its entry and P), then checks every term of the
// slowest rank class, the sums, and finally every number of the
// prediction.
func checkPrediction(pred *Prediction, rep *analyze.Report, m *machines.Machine) error {
	if err := checkTableEntries(rep, m); err != nil {
		return err
	}
	for _, r := range pred.Regions {
		for _, t := range r.Terms {
			if err := checkTerm(r.Name, t); err != nil {
				return err
			}
		}
		for _, part := range []struct {
			name string
			t    float64
		}{{"compute", r.Compute}, {"memory", r.Memory}, {"message", r.Messages}, {"collective", r.Collectives}, {"total", r.Time}} {
			if !isFinite(part.t) {
				return fmt.Errorf("the predicted %s time of region %q is %s: its terms add up beyond float range (1.8e+308 s); the largest is %s",
					part.name, r.Name, units.Time(part.t), largestTerm(r.Terms))
			}
		}
	}
	if !isFinite(pred.NominalFlop) {
		return fmt.Errorf("the nominal flop count of all ranks is beyond float range (more than 1.8e+308 flop): make the kernel's sizes smaller with -D")
	}
	if !isFinite(pred.RB) {
		return fmt.Errorf("R_B = nominal flop / predicted time = %g flop / %g s is beyond float range: the predicted time is too small to divide by", pred.NominalFlop, pred.Total)
	}
	return jsonwalk.CheckFinite("the prediction", pred)
}

// checkTerm refuses a term whose count, unit cost or time cannot be used.
func checkTerm(region string, t Term) error {
	what := fmt.Sprintf("%s in region %q", t.What, region)
	from := t.How
	if t.Source != "" {
		from += "; source: " + t.Source
	}
	switch {
	case !isFinite(t.Count):
		return fmt.Errorf("the count of %s is beyond float range (more than 1.8e+308 %s): make the kernel's sizes smaller with -D", what, t.Unit)
	case !isFinite(t.UnitCost):
		return fmt.Errorf("the unit cost of %s is %g s per %s: not a usable time (%s); check the machine table and the -M overrides", what, t.UnitCost, t.Unit, from)
	case t.UnitCost < 0:
		return fmt.Errorf("the unit cost of %s is a negative time (%s per %s; %s): a cost must not be negative; correct the machine table's entry", what, units.Time(t.UnitCost), t.Unit, from)
	case !isFinite(t.Time):
		return fmt.Errorf("%s: %s %s x %g s overflows float range (more than 1.8e+308 s); the unit cost comes from %s: check the machine table and the -M overrides, or make the kernel smaller with -D",
			what, units.Count(t.Count), t.Unit, t.UnitCost, from)
	case t.Time < 0:
		return fmt.Errorf("the time of %s is negative (%s = %s %s x %s; %s): a cost must not be negative; correct the machine table's entry",
			what, units.Time(t.Time), units.Count(t.Count), t.Unit, units.Time(t.UnitCost), from)
	}
	return nil
}

// largestTerm names the term that takes the longest, for an error about a
// sum that overflows although every term is finite.
func largestTerm(terms []Term) string {
	best := -1
	for i, t := range terms {
		if best < 0 || t.Time > terms[best].Time {
			best = i
		}
	}
	if best < 0 {
		return "(no terms)"
	}
	t := terms[best]
	return fmt.Sprintf("%s: %s %s x %g s = %g s (%s)", t.What, units.Count(t.Count), t.Unit, t.UnitCost, t.Time, t.How)
}

// checkTableEntries evaluates, for every rank class and region, the table
// entries that price its collectives, barriers and expr-model messages at
// the sizes and rank counts it uses, and returns the first that is
// negative or not finite, naming the kernel statement, the entry and the
// values (machines.Cost.Check).
func checkTableEntries(rep *analyze.Report, m *machines.Machine) error {
	for _, cl := range rep.Classes {
		for _, r := range cl.Regions {
			c := r.Counts
			for _, col := range c.Collectives {
				n := col.Count.Float()
				if n == 0 {
					continue
				}
				cost, ok := m.Collective(col.Kind, col.Op, col.Elem)
				use := fmt.Sprintf("%s at %s in region %q on machine %s", col.Kind, col.Stmt, r.Name, m.Name())
				if iso, isOK := m.CollectiveAfterBarrier(col.Kind, col.Op, col.Elem); isOK && col.AfterBarrier {
					cost, ok, use = iso, true, use+" (its after_barrier: time)"
				}
				if ok {
					if _, err := cost.Check(machines.Vars{Bytes: col.Bytes.Float() / n, P: float64(col.Participants)}, use); err != nil {
						return err
					}
				}
			}
			if c.Barriers.Float() > 0 {
				if cost, ok := m.Collective("barrier", "", ""); ok {
					use := fmt.Sprintf("barrier in region %q on machine %s", r.Name, m.Name())
					if _, err := cost.Check(machines.Vars{P: float64(rep.Ranks)}, use); err != nil {
						return err
					}
				}
			}
			for _, msg := range c.Messages {
				use := fmt.Sprintf("%s at %s in region %q of rank %d on machine %s", msg.Kind, msg.Stmt, r.Name, cl.Rank, m.Name())
				if err := checkMessageEntry(m, rep.Ranks, cl.Rank, msg, use); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// checkMessageEntry evaluates an expr message model's entry for the
// messages of one statement, at their mean size and the network level
// between the rank and its peer (a peer that varies is priced as the next
// rank, as messageTerms does).
func checkMessageEntry(m *machines.Machine, ranks, rank int64, msg analyze.Message, use string) error {
	n := msg.Count.Float()
	mm := m.Messages(msg.Elem)
	if n == 0 || mm == nil {
		return nil
	}
	cost, ok := mm.TimeCost()
	if !ok {
		return nil
	}
	peer := msg.Rank
	if peer < 0 {
		peer = (rank + 1) % max(ranks, 1)
	}
	_, err := cost.Check(machines.Vars{Bytes: msg.Bytes.Float() / n, Level: float64(mm.Levels(int(rank), int(peer)))}, use)
	return err
}
