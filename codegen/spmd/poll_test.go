//go:build !perfc_mpi

package spmd

import (
	"bytes"
	"runtime"
	"slices"
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
			// Ranks that spin, each on a P of its own, even where the
			// test has fewer Ps than ranks (GOMAXPROCS=1).
			run.w.poll, run.w.cores = testPoll, nil
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
	msg := fatalRunPolling(t, 2, pollFor(2), func(r *rank) {
		r.recv(1, 1-r.id, make([]byte, 8))
	})
	if !strings.Contains(msg, "deadlock") || !strings.Contains(msg, "rank 0 waits to receive from rank 1") {
		t.Errorf("report %q does not name the deadlock", msg)
	}
	msg = requestFatalPolling(t, 2, pollFor(2), func(r *rank) {
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
	if got := pollFor(procs); got.budget != spinBudget {
		t.Errorf("pollFor(%d ranks, GOMAXPROCS %d) = %+v, want polling", procs, procs, got)
	}
	if got := pollFor(procs + 1); got.budget != 0 {
		t.Errorf("pollFor(%d ranks, GOMAXPROCS %d) = %+v, want no polling", procs+1, procs, got)
	}
}

// TestSpinYieldsToPartnerOnOneP forces two spinning ranks onto one P
// (GOMAXPROCS 1, the spin policy of a world with a P per rank): a rank
// that waits must still yield, so that its partner runs and the messages,
// the computes between them and the harness's gate all complete.
func TestSpinYieldsToPartnerOnOneP(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	sink := make([]float64, 2)
	run := testWorld(t, 2, 2, func(r *rank) {
		out, in := make([]byte, 8), make([]byte, 8)
		peer := 1 - r.id
		for i := range 20 {
			if i%2 == r.id {
				sink[r.id] += computeFor(100 * time.Microsecond)
			}
			r.sendrecv(0, 1, peer, out, peer, in)
		}
	})
	run.w.poll = pollPolicy{budget: spinBudget}
	run.w.gate.init(2, run.w.poll)
	start := time.Now()
	run.runs(3)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("3 runs of 20 sendrecvs with 1 ms of compute took %v on one P", d)
	}
}

// TestSpinnerYieldsAndGivesUp checks the pacing of a spinning wait: it
// yields (a goroutine waiting for the P runs) and stops after its budget.
func TestSpinnerYieldsAndGivesUp(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	ran := make(chan struct{})
	go close(ran)
	s := newSpinner(20 * time.Millisecond)
	start := time.Now()
	yielded := false
	for s.more() {
		select {
		case <-ran:
			yielded = true
		default:
		}
	}
	if d := time.Since(start); d < 20*time.Millisecond {
		t.Errorf("the spin stopped after %v, before its budget of 20 ms", d)
	}
	if !yielded {
		t.Error("a goroutine waiting for the only P never ran while the spin went on")
	}
}

// TestGateSpinsAndParks lines up ranks that arrive at the harness's gate
// at different times, spinning (a late rank within the spin) and parking
// (one later than the spin): every wait returns only when all arrived.
func TestGateSpinsAndParks(t *testing.T) {
	for _, tt := range []struct {
		name string
		spin time.Duration
		late time.Duration
	}{
		{"parks", 0, 5 * time.Millisecond},
		{"spins", time.Second, 5 * time.Millisecond},
		{"spins, then parks", time.Millisecond, 20 * time.Millisecond},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var g gate
			g.init(3, pollPolicy{})
			g.spin = tt.spin
			var wg sync.WaitGroup
			var arrived, left [3]time.Time
			for id := range 3 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for round := range 2 {
						if id == round {
							time.Sleep(tt.late)
						}
						arrived[id] = time.Now()
						g.wait()
						left[id] = time.Now()
						g.wait()
					}
				}()
			}
			wg.Wait()
			last := slices.MaxFunc(arrived[:], time.Time.Compare)
			for id := range 3 {
				if left[id].Before(last) {
					t.Errorf("rank %d left the gate at %v, before the last rank arrived at %v", id, left[id], last)
				}
			}
		})
	}
}
