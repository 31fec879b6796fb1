//go:build !perfc_mpi

package spmd

import (
	"bytes"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// testPoll is a short poll budget, so that a partner that sleeps 20 ms
// makes every wait time out and park.
var testPoll = pollPolicy{budget: 50 * time.Microsecond}

// TestPollTimesOut checks the poll itself: it takes the tokens that are
// there, and with none coming it gives up after its budget.
func TestPollTimesOut(t *testing.T) {
	run := testWorld(t, 2, 1, func(*rank) {})
	run.w.poll = testPoll
	r := run.w.ranks[0]
	start := time.Now()
	if got := r.pollTokens(1); got != 0 {
		t.Fatalf("pollTokens(1) with no token = %d, want 0", got)
	}
	if d := time.Since(start); d < testPoll.budget {
		t.Errorf("the poll gave up after %v, before its budget %v", d, testPoll.budget)
	}
	r.wake <- struct{}{}
	r.wake <- struct{}{}
	if got := r.pollTokens(3); got != 2 {
		t.Errorf("pollTokens(3) with two tokens = %d, want 2", got)
	}
	run.w.poll = pollPolicy{}
	r.wake <- struct{}{}
	if got := r.pollTokens(1); got != 1 {
		t.Errorf("pollTokens(1) without polling, a token waiting = %d, want 1", got)
	}
}

// TestWaitAfterPollTimesOut runs every kind of wait with a partner that
// arrives long after the poll budget: the waiting rank polls, parks and
// completes when the partner comes, with the partner's bytes.
func TestWaitAfterPollTimesOut(t *testing.T) {
	const late = 20 * time.Millisecond
	for _, tt := range []struct {
		name     string
		requests bool
		body     func(r *rank, got []byte)
	}{
		{"recv", false, func(r *rank, got []byte) {
			if r.id == 0 {
				time.Sleep(late)
				r.send(0, 1, valuesOf(0, 1))
			} else {
				r.recv(1, 0, got)
			}
		}},
		{"send", false, func(r *rank, got []byte) {
			if r.id == 0 {
				r.send(0, 1, valuesOf(0, 1))
			} else {
				time.Sleep(late)
				r.recv(1, 0, got)
			}
		}},
		{"sendrecv", false, func(r *rank, got []byte) {
			if r.id == 0 {
				time.Sleep(late)
			}
			r.sendrecv(0, 1, 1-r.id, valuesOf(r.id, 1), 1-r.id, got)
		}},
		{"bcast", false, func(r *rank, got []byte) {
			if r.id == 0 {
				time.Sleep(late)
				copy(got, valuesOf(0, 1))
			}
			r.bcast(0, 0, got)
		}},
		{"barrier", false, func(r *rank, got []byte) {
			if r.id == 0 {
				time.Sleep(late)
			}
			r.barrier(0)
			copy(got, valuesOf(0, 1))
		}},
		{"wait of a request", true, func(r *rank, got []byte) {
			if r.id == 0 {
				time.Sleep(late)
				r.isend(0, 1, valuesOf(0, 1), 0)
				r.waitAll(4)
			} else {
				r.irecv(1, 0, got, 1)
				r.waitReqs(4, 1)
			}
		}},
		{"blocking recv with requests", true, func(r *rank, got []byte) {
			if r.id == 0 {
				time.Sleep(late)
				r.send(2, 1, valuesOf(0, 1))
			} else {
				r.recv(3, 0, got)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := make([][]byte, 2)
			waited := make([]time.Duration, 2)
			body := func(r *rank) {
				got[r.id] = make([]byte, 8)
				start := time.Now()
				tt.body(r, got[r.id])
				waited[r.id] = time.Since(start)
			}
			var run testRun
			if tt.requests {
				var mu sync.Mutex
				var stderr bytes.Buffer
				run = testRun{t, requestWorld(t, 2, []string{"a", "b"}, func(code int) { t.Errorf("exit %d: %s", code, stderr.String()) }, &stderr, &mu, body)}
			} else {
				run = testWorld(t, 2, 2, body)
			}
			run.w.poll = testPoll
			run.runs(1)
			if !bytes.Equal(got[1], valuesOf(0, 1)) {
				t.Errorf("rank 1 has %v, want rank 0's %v", i64s(got[1]), i64s(valuesOf(0, 1)))
			}
			if waited[1] < late {
				t.Errorf("rank 1 waited %v, less than its partner's delay %v", waited[1], late)
			}
		})
	}
}

// TestDeadlockReportedWhilePolling checks that the bounded poll leaves
// the watchdog its work: deadlocked ranks poll, park, and are reported.
func TestDeadlockReportedWhilePolling(t *testing.T) {
	msg := fatalRunPolling(t, 2, pollPolicy{budget: pollBudget}, func(r *rank) {
		r.recv(1, 1-r.id, make([]byte, 8))
	})
	if !strings.Contains(msg, "deadlock") || !strings.Contains(msg, "rank 0 waits to receive from rank 1") {
		t.Errorf("report %q does not name the deadlock", msg)
	}
	msg = requestFatalPolling(t, 2, pollPolicy{budget: pollBudget}, func(r *rank) {
		r.irecv(1, 1-r.id, make([]byte, 8), 1)
		r.waitReqs(4, 1)
	})
	if !strings.Contains(msg, "deadlock") || !strings.Contains(msg, "rank 0 waits at t.spmd:7:5 for a receive from rank 1") {
		t.Errorf("report %q does not name the deadlock", msg)
	}
}

// TestPollOnlyWhenRanksHaveCores checks the policy: ranks poll only when
// each can have a P of its own.
func TestPollOnlyWhenRanksHaveCores(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	if got := pollFor(procs); got.budget != pollBudget {
		t.Errorf("pollFor(%d ranks, GOMAXPROCS %d) = %+v, want polling", procs, procs, got)
	}
	if got := pollFor(procs + 1); got.budget != 0 {
		t.Errorf("pollFor(%d ranks, GOMAXPROCS %d) = %+v, want no polling", procs+1, procs, got)
	}
}

// TestPollOnlyAfterCompute checks when a wait polls: only when more than
// tightGap passed since the rank's last wait began beyond its messages'
// allowance (moveAllowance per byte), so that a message loop parks.
func TestPollOnlyAfterCompute(t *testing.T) {
	base := time.Unix(1_000_000, 0)
	for _, tt := range []struct {
		name  string
		since time.Duration // from the last wait's start
		moved int64         // bytes of messages since
		want  bool
	}{
		{"a short message loop", 500 * time.Nanosecond, 16, false},
		{"just below the gap", tightGap - time.Nanosecond, 0, false},
		{"at the gap", tightGap, 0, true},
		{"a compute phase", 50 * time.Microsecond, 64, true},
		// 1 MiB moved: an allowance of 524 µs at 0.5 ns/B.
		{"a long message's copy", 400 * time.Microsecond, 1 << 20, false},
		{"a long message and compute", 400*time.Microsecond + 1<<20/2*time.Nanosecond + tightGap, 1 << 20, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := &rank{waited: base, moved: tt.moved}
			now := base.Add(tt.since)
			if got := r.shouldPoll(now); got != tt.want {
				t.Errorf("shouldPoll %v after the last wait, %d B moved = %v, want %v", tt.since, tt.moved, got, tt.want)
			}
			if !r.waited.Equal(now) || r.moved != 0 {
				t.Errorf("after shouldPoll the last wait began %v with %d B moved, want %v and 0", r.waited, r.moved, now)
			}
		})
	}
}

// TestTightWaitParks checks that a wait right after another one does not
// poll even with a long budget: pollTokens returns at once, well within
// the budget, so that the rank parks.
func TestTightWaitParks(t *testing.T) {
	run := testWorld(t, 2, 1, func(*rank) {})
	run.w.poll = pollPolicy{budget: time.Second}
	r := run.w.ranks[0]
	r.waited = time.Now()
	start := time.Now()
	if got := r.pollTokens(1); got != 0 {
		t.Fatalf("pollTokens(1) with no token = %d, want 0", got)
	}
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Errorf("a wait right after another polled %v; it should park at once", d)
	}
	r.waited = time.Now().Add(-time.Millisecond)
	start = time.Now()
	r.pollTokens(1)
	if d := time.Since(start); d < time.Second {
		t.Errorf("a wait 1 ms after the last one gave up after %v; it should poll its budget of 1 s", d)
	}
}
