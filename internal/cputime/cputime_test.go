package cputime

import "testing"

// TestProcessAdvances burns CPU and checks that the reading grows.
func TestProcessAdvances(t *testing.T) {
	before, ok := Process()
	if !ok {
		t.Skip("no CPU time on this platform")
	}
	x := 0
	for i := 0; i < 50_000_000; i++ {
		x += i % 7
	}
	after, _ := Process()
	if after <= before {
		t.Errorf("CPU time went from %v to %v after a busy loop (%d)", before, after, x)
	}
}
