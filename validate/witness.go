package validate

import (
	"context"
	"fmt"
	"math"
	"sort"

	"perfc/codegen"
	"perfc/codegen/spmd"
)

// Witnesses: this project's host is a VM whose neighbours move the speed
// of a core, and of a copy between its cores, by 20–35 % from one minute
// to the next (docs/accuracy.md, "Host noise"), and a case measured in a
// slow minute is wrong by that much whatever the model. Before every case
// Run measures two small kernels whose predictions the table makes well —
// an in-core loop on one rank, and a pingpong of 64 B between two ranks —
// and keeps their times with the case: the host's speed when the case ran,
// against the table's. The report summarises them and the cases measured
// while both were within WitnessBand of their predictions; nothing is
// scaled by them.

// WitnessBand is how far a witness's measured/predicted ratio may be from
// 1 for the host to count as running at the table's speed.
const WitnessBand = 0.10

// witnessSources are the two witness kernels: "core" times a core, "copy"
// the copy of a small message between two cores and back.
var witnessSources = []struct{ name, src string }{
	{"core", `kernel witness_core(n = 1024, reps = 64) {
  array x[n], y[n]: f64

  region "witness" {
    repeat reps {
      for i in 0..n {
        y[i] = y[i] * 0.5 + x[i]
      }
    }
  }
}
`},
	{"copy", `kernel witness_copy(reps = 1000) on P = 2 ranks {
  array buf[8]: f64

  region "witness" {
    repeat reps {
      if rank == 0 {
        send buf[0:8] to 1
        recv buf[0:8] from 1
      } else {
        recv buf[0:8] from 0
        send buf[0:8] to 0
      }
    }
  }
}
`},
}

// WitnessTimes are the witnesses' times measured just before a case, in
// seconds per run (the median of their measurements), and their
// predictions on the report's table.
type WitnessTimes struct {
	Core          float64 `json:"core_s"`
	Copy          float64 `json:"copy_s"`
	CorePredicted float64 `json:"core_predicted_s"`
	CopyPredicted float64 `json:"copy_predicted_s"`
}

// complete reports whether w has both times and both predictions (a
// witness that failed leaves its time 0); false for nil.
func (w *WitnessTimes) complete() bool {
	return w != nil && w.Core > 0 && w.Copy > 0 && w.CorePredicted > 0 && w.CopyPredicted > 0
}

// Ratios are the witnesses' measured/predicted ratios: 1 when the host
// ran at the table's speed.
func (w WitnessTimes) Ratios() (core, copy float64) {
	return w.Core / w.CorePredicted, w.Copy / w.CopyPredicted
}

// WitnessSummary says how fast the host ran while the suite did,
// against the table: the range of each witness's measured/predicted ratio
// over the cases, and the summary of the cases measured while both ratios
// were within WitnessBand of 1.
type WitnessSummary struct {
	Core RatioRange `json:"core"`
	Copy RatioRange `json:"copy"`
	// AtSpeed summarises the cases whose witnesses were both within
	// WitnessBand of their predictions.
	AtSpeed Summary `json:"at_table_speed"`
	// Settle says what settling did over the suite; nil when no case was
	// settled (Options.NoSettle, or a report from before settling).
	Settle *SettleSummary `json:"settle,omitempty"`
}

// SettleSummary is what settling did over the suite (settle.go).
type SettleSummary struct {
	// Cases is how many cases were settled; Waited how many of them
	// waited, and Seconds how long in all.
	Cases   int     `json:"cases"`
	Waited  int     `json:"waited"`
	Seconds float64 `json:"waited_s"`
	// Unsettled is how many cases were measured with the witnesses
	// outside their bands before (the host did not settle within the
	// budget) or after (it left them during the measurement kept);
	// Remeasured how many were measured a second time.
	Unsettled  int `json:"unsettled"`
	Remeasured int `json:"remeasured"`
	// Spent is how many cases came after the suite's total wait
	// (Options.SettleTotal) was spent, and waited less than a case may.
	Spent int `json:"spent,omitempty"`
	// Settled summarises the cases whose witnesses were within their
	// bands both before and after the measurement kept.
	Settled Summary `json:"settled"`
}

// RatioRange is the median and extremes of a witness's measured/predicted
// ratio over the cases.
type RatioRange struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

// witness is one witness kernel, built and predicted.
type witness struct {
	name      string
	bin       string
	predicted float64
	reps      int
}

// prepareWitnesses checks, predicts (from the compiled code when the
// table prices it) and builds the witness kernels.
func prepareWitnesses(ctx context.Context, opts Options) ([]*witness, error) {
	var out []*witness
	for _, s := range witnessSources {
		k := Kernel{Name: "witness_" + s.name, File: "witness_" + s.name + ".spmd", Source: []byte(s.src), Group: GroupHeldOut}
		c, err := newChecker(k)
		if err != nil {
			return nil, fmt.Errorf("validate: the %s witness: %w", s.name, err)
		}
		ck, err := c.check(nil)
		if err != nil {
			return nil, fmt.Errorf("validate: the %s witness: %w", s.name, err)
		}
		pred, err := Predict(ck, opts)
		if err != nil {
			return nil, fmt.Errorf("validate: the %s witness: %w", s.name, err)
		}
		cs := &Case{Name: k.Name, checked: ck, pred: pred, Ranks: ck.NumRanks()}
		w := &witness{name: s.name}
		err = codegen.RunKernel(ctx, ck, codegen.Options{}, opts.CacheDir, nil, func(_ *codegen.Program, dir, bin string) error {
			w.bin = bin
			return predictWithCode(ctx, cs, opts, dir, bin)
		})
		if err != nil {
			return nil, fmt.Errorf("validate: building the %s witness: %w", s.name, err)
		}
		w.predicted = cs.pred.Total
		if !(w.predicted > 0) {
			return nil, fmt.Errorf("validate: the %s witness is predicted %g s; the table cannot price it", s.name, w.predicted)
		}
		// About 10 ms a measurement, three of them.
		w.reps = int(math.Max(1, math.Min(maxReps, math.Round(witnessTime/w.predicted))))
		out = append(out, w)
	}
	return out, nil
}

// witnessTime is how long one measurement of a witness lasts.
const witnessTime = 0.01

// measureWitnesses times the witnesses once each.
func measureWitnesses(ctx context.Context, ws []*witness) (*WitnessTimes, error) {
	var t WitnessTimes
	for _, w := range ws {
		switch w.name {
		case "core":
			t.CorePredicted = w.predicted
		case "copy":
			t.CopyPredicted = w.predicted
		}
		m, err := codegen.Measure(ctx, w.bin, "-reps", fmt.Sprint(w.reps), "-samples", "3")
		if err != nil {
			return nil, fmt.Errorf("the %s witness: %w", w.name, err)
		}
		switch w.name {
		case "core":
			t.Core = seconds(m.Total)
		case "copy":
			t.Copy = seconds(m.Total)
		}
	}
	return &t, nil
}

// seconds is a timing's median in seconds.
func seconds(t spmd.Timing) float64 { return t.MedianUs * 1e-6 }

// summarizeWitnesses is the report's WitnessSummary over the cases that
// have witness times; nil when none has.
func summarizeWitnesses(cases []Case) *WitnessSummary {
	var core, cp []float64
	var atSpeed []Case
	for _, c := range cases {
		w := c.Witness
		if !w.complete() {
			continue
		}
		rc, rp := w.Ratios()
		core, cp = append(core, rc), append(cp, rp)
		if math.Abs(rc-1) <= WitnessBand && math.Abs(rp-1) <= WitnessBand {
			atSpeed = append(atSpeed, c)
		}
	}
	if len(core) == 0 {
		return nil
	}
	return &WitnessSummary{Core: ratioRange(core), Copy: ratioRange(cp), AtSpeed: Summarize(atSpeed), Settle: summarizeSettle(cases)}
}

// summarizeSettle is the report's SettleSummary; nil when no case was
// settled.
func summarizeSettle(cases []Case) *SettleSummary {
	var s SettleSummary
	var settled []Case
	for _, c := range cases {
		r := c.Settle
		if r == nil {
			continue
		}
		s.Cases++
		if r.Waited > 0 {
			s.Waited++
			s.Seconds += r.Waited
		}
		if r.Remeasured {
			s.Remeasured++
		}
		if r.Spent {
			s.Spent++
		}
		if r.Settled && r.After {
			settled = append(settled, c)
		} else {
			s.Unsettled++
		}
	}
	if s.Cases == 0 {
		return nil
	}
	s.Settled = Summarize(settled)
	return &s
}

// ratioRange is the median and extremes of ratios.
func ratioRange(rs []float64) RatioRange {
	s := append([]float64(nil), rs...)
	sort.Float64s(s)
	return RatioRange{Median: Median(s), Min: s[0], Max: s[len(s)-1]}
}
