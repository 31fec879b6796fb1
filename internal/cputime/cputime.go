// Package cputime reads the CPU time this process has used, so that
// benchmarks can report CPU per operation beside wall-clock time: on a
// shared machine the wall clock includes time spent waiting for a core,
// and perfc's speed targets are stated in CPU time.
package cputime

import "time"

// Process returns the user and system CPU time the process has used so
// far, and false where the platform does not report it.
func Process() (time.Duration, bool) { return process() }
