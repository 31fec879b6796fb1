//go:build !unix

package cputime

import "time"

// process is not available here.
func process() (time.Duration, bool) { return 0, false }
