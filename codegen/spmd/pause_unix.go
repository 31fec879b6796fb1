//go:build unix

package spmd

import (
	"syscall"
	"time"
)

// pause sleeps for d in the kernel, without a Go timer (see watch).
func pause(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
	}
}
