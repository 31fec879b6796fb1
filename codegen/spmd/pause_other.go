//go:build !unix

package spmd

import "time"

// pause sleeps for d; without a sleep system call in package syscall,
// with a Go timer.
func pause(d time.Duration) { time.Sleep(d) }
