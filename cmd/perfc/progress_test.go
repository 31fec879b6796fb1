package main

import (
	"bytes"
	"testing"
)

// TestStepLine checks that steps are counted, that nothing is drawn on a
// writer that is not a terminal, and that finish may be called twice (check
// calls it before printing and again on return).
func TestStepLine(t *testing.T) {
	var buf bytes.Buffer
	s := newStepLine(&buf, 3)
	s.step("check: generating")
	s.step("check: building")
	if got := s.started.Load(); got != 2 {
		t.Errorf("started = %d, want 2", got)
	}
	s.finish()
	s.finish()
	if buf.Len() != 0 {
		t.Errorf("drew %q on a writer that is not a terminal", buf.String())
	}
}
