package calibrate

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestGuardCore checks the in-core guard: a fit whose cycle is within
// coreGuardRatio of the probe chain's is kept without a second run; a
// slower one runs again and the faster fit is kept, which the table's
// source and the summary say; past the deadline, or without a probe, it
// does not run again.
func TestGuardCore(t *testing.T) {
	const ns = 1e-9
	// The chain of 2^21 links took 2.271 ms: 0.2707 ns a cycle.
	chainRef := 2271 * time.Microsecond
	fitWith := func(cycle float64) *coreFit { return &coreFit{core: &coreModelFit{cycle: cycle}} }
	tests := []struct {
		name      string
		ref       time.Duration
		first     float64
		second    float64 // the refit's cycle; 0: refit must not run
		slack     time.Duration
		kept      float64
		againSaid bool
		keptSaid  string
	}{
		{"a quiet run", chainRef, 0.2828 * ns, 0, time.Minute, 0.2828 * ns, false, ""},
		{"a slow spell, the second faster", chainRef, 0.356 * ns, 0.283 * ns, time.Minute, 0.283 * ns, true, "the second run's fit kept"},
		{"a slow spell, the second slower", chainRef, 0.356 * ns, 0.40 * ns, time.Minute, 0.356 * ns, true, "the first run's fit kept"},
		{"past the deadline", chainRef, 0.356 * ns, 0, -time.Second, 0.356 * ns, false, ""},
		{"no probe", 0, 0.356 * ns, 0, time.Minute, 0.356 * ns, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := fakeSettler(time.Second)
			s.ref.core = tt.ref
			t0 := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
			s.now = func() time.Time { return t0 }
			s.deadline, s.left = t0.Add(time.Minute+tt.slack), func() time.Duration { return time.Minute }
			res := &Result{Core: fitWith(tt.first)}
			refits := 0
			err := guardCore(res, s, func() (*coreFit, error) {
				refits++
				if tt.second == 0 {
					return nil, errors.New("refit must not run")
				}
				return fitWith(tt.second), nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := fitCycle(res.Core); got != tt.kept {
				t.Errorf("kept a cycle of %g, want %g", got, tt.kept)
			}
			if (res.CoreAgain != nil) != tt.againSaid {
				t.Fatalf("CoreAgain %+v, want set: %v", res.CoreAgain, tt.againSaid)
			}
			if res.CoreAgain != nil && !strings.Contains(coreAgainNote(res.CoreAgain), "; the in-core benchmarks ran twice: the first fit's cycle 0.356 ns was ×1.315 the probe chain's 0.2707 ns (more than ×1.15), the second's ") {
				t.Errorf("note %q", coreAgainNote(res.CoreAgain))
			}
			if res.CoreAgain != nil && !strings.HasSuffix(res.CoreAgain.String(), tt.keptSaid) {
				t.Errorf("%q does not end %q", res.CoreAgain, tt.keptSaid)
			}
		})
	}
}
