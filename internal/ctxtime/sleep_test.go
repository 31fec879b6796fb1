package ctxtime

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestSleep: a wait runs its course with a live context and ends at once,
// with the context's error, when the context is cancelled.
func TestSleep(t *testing.T) {
	if err := Sleep(context.Background(), time.Millisecond); err != nil {
		t.Errorf("a short wait: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled wait: %v, want context.Canceled", err)
	}
	if time.Since(start) > time.Minute {
		t.Error("a cancelled wait did not end at once")
	}
}
