package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCountReportsDeadlock checks that perfc count, after the counts,
// reports the deadlock perfc emulate finds, with the same chain of waits
// and exit status 1, in both output formats; and that kernels whose
// messages complete still count with exit status 0.
func TestCountReportsDeadlock(t *testing.T) {
	const ring = "testdata/emulate_deadlock.spmd"
	_, _, want := runCLI(t, "", "emulate", ring, "-m", "unit")
	if !strings.Contains(want, "deadlock: 3 of 3 ranks cannot complete") {
		t.Fatalf("emulate no longer finds the deadlock: %q", want)
	}
	// A deadlock through waits (only requests, no blocking message) is
	// found the same way.
	const waits = "testdata/count_waits_deadlock.spmd"
	_, _, wantWaits := runCLI(t, "", "emulate", waits, "-m", "unit")
	if !strings.Contains(wantWaits, "the chain of waits") {
		t.Fatalf("emulate no longer finds the deadlock through waits: %q", wantWaits)
	}
	if code, _, errOut := runCLI(t, "", "count", waits, "--cache", "L1=32KiB/64B/8"); code != 1 || errOut != wantWaits {
		t.Errorf("count of a deadlock through waits: exit %d, stderr %q; want 1 and emulate's %q", code, errOut, wantWaits)
	}
	for _, format := range []string{"table", "json"} {
		code, out, errOut := runCLI(t, "", "count", ring, "--cache", "L1=32KiB/64B/8", "-o", format)
		if code != 1 || !strings.Contains(out, "emulate_deadlock.spmd") {
			t.Errorf("count -o %s: exit %d, stdout %q; want 1 and the counts", format, code, out)
		}
		if diff := cmp.Diff(want, errOut); diff != "" {
			t.Errorf("count -o %s: stderr differs from emulate's (-emulate +count):\n%s", format, diff)
		}
	}
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"../../examples/pingpong.spmd"}, 0},
		{[]string{"../../examples/wave.spmd"}, 0},
		{[]string{"../../examples/triad.spmd"}, 0},
		{[]string{ring, "--rank", "1"}, 1}, // one rank analysed; every rank's schedule checked
		{[]string{ring, "--no-emulation"}, 0},
	}
	for _, tt := range tests {
		code, _, errOut := runCLI(t, "", append([]string{"count", "--cache", "L1=32KiB/64B/8"}, tt.args...)...)
		if code != tt.code || (tt.code == 0 && errOut != "") {
			t.Errorf("count %v: exit %d, stderr %q; want %d", tt.args, code, errOut, tt.code)
		}
	}
}

// TestCountScheduleBudget checks that a deadlock check that reaches an
// emulation budget leaves the counts standing with a warning that names
// the flag, and that raising the budget lets the check find the deadlock.
func TestCountScheduleBudget(t *testing.T) {
	const ring = "testdata/emulate_deadlock.spmd"
	code, out, errOut := runCLI(t, "", "count", ring, "--cache", "L1=32KiB/64B/8", "--max-events", "1")
	if code != 0 || !strings.Contains(out, "emulate_deadlock.spmd") ||
		!strings.Contains(errOut, "warning: the deadlock check stopped at a budget") || !strings.Contains(errOut, "--max-events") {
		t.Errorf("count --max-events 1: exit %d, stdout %q, stderr %q; want 0, the counts and a warning naming --max-events", code, out, errOut)
	}
	code, _, errOut = runCLI(t, "", "count", ring, "--cache", "L1=32KiB/64B/8", "--max-events", "1000")
	if code != 1 || !strings.Contains(errOut, "deadlock: 3 of 3 ranks cannot complete") {
		t.Errorf("count --max-events 1000: exit %d, stderr %q; want 1 and the deadlock", code, errOut)
	}
}
