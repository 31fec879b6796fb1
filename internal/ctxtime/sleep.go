// Package ctxtime waits the way perfc's settling loops wait: for a while,
// or until the work is cancelled.
package ctxtime

import (
	"context"
	"time"
)

// Sleep waits for d or until ctx is done, and then returns ctx's error
// (nil when the wait ran its course). perfc validate and perfc calibrate
// wait this way for a slow spell of the host to end, so that Ctrl-C stops
// a wait at once.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
