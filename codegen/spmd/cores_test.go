//go:build !perfc_mpi

package spmd

import (
	"bytes"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// concurrency counts the ranks that run their body between two waits,
// and the most that ever did at once.
type concurrency struct {
	now, most atomic.Int32
}

// enter and leave bracket a stretch of a rank's body between waits.
func (c *concurrency) enter() {
	n := c.now.Add(1)
	for m := c.most.Load(); n > m && !c.most.CompareAndSwap(m, n); m = c.most.Load() {
	}
}

func (c *concurrency) leave() { c.now.Add(-1) }

// withProcs runs f with GOMAXPROCS n.
func withProcs(n int, f func()) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(n))
	f()
}

// TestCoresRunAtMostC runs 8 ranks on 2 Ps through blocking messages, a
// collective and requests, and checks that no more than 2 ranks ever ran
// at once (each yields its P while it holds a core) and that every
// message arrived.
func TestCoresRunAtMostC(t *testing.T) {
	withProcs(2, func() {
		const p, iters = 8, 200
		var c concurrency
		sums := make([]int64, p)
		body := func(r *rank) {
			c.enter()
			got := make([]byte, 8)
			sum := make([]byte, 8)
			for i := 0; i < iters; i++ {
				c.leave()
				r.sendrecv(0, 0, (r.id+1)%p, valuesOf(r.id, 1), (r.id+p-1)%p, got)
				c.enter()
				// A rank that yields its P keeps its core: no other
				// rank runs in its place.
				runtime.Gosched()
				if want := valuesOf((r.id+p-1)%p, 1); !bytes.Equal(got, want) {
					t.Errorf("rank %d got %v from its left neighbour, want %v", r.id, i64s(got), i64s(want))
				}
				copy(sum, valuesOf(r.id, 1))
				c.leave()
				r.allreduce(0, redSum, elI64, sum)
				c.enter()
				sums[r.id] = i64s(sum)[0]
			}
			c.leave()
		}
		run := testWorld(t, p, 1, body)
		if run.w.cores == nil {
			t.Fatal("8 ranks on 2 Ps: the world has no coreSet")
		}
		run.runs(3)
		for id, s := range sums {
			if want := int64(100*p*(p-1)/2 + p); s != want {
				t.Errorf("rank %d: allreduce gave %d, want %d", id, s, want)
			}
		}
		if most := c.most.Load(); most > 2 {
			t.Errorf("%d ranks ran at once on 2 Ps, want at most 2", most)
		}
	})
}

// TestCoresRequests runs 6 ranks on 2 Ps that exchange with requests:
// block gives the core up and complete makes the rank ready.
func TestCoresRequests(t *testing.T) {
	withProcs(2, func() {
		const p = 6
		var mu sync.Mutex
		var stderr bytes.Buffer
		var c concurrency
		got := make([][]byte, p)
		w := requestWorld(t, p, []string{"a", "b"}, func(code int) { t.Errorf("exit %d: %s", code, stderr.String()) }, &stderr, &mu, func(r *rank) {
			c.enter()
			got[r.id] = make([]byte, 16)
			r.irecv(1, (r.id+p-1)%p, got[r.id], 1)
			r.isend(0, (r.id+1)%p, valuesOf(r.id, 2), 0)
			c.leave()
			r.waitAll(4)
			c.enter()
			r.requestsDone(-1)
			c.leave()
		})
		if w.cores == nil {
			t.Fatal("6 ranks on 2 Ps: the world has no coreSet")
		}
		testRun{t, w}.runs(2)
		for id := range p {
			if want := valuesOf((id+p-1)%p, 2); !bytes.Equal(got[id], want) {
				t.Errorf("rank %d got %v, want %v", id, i64s(got[id]), i64s(want))
			}
		}
		if most := c.most.Load(); most > 2 {
			t.Errorf("%d ranks ran at once on 2 Ps, want at most 2", most)
		}
	})
}

// TestCoresFirstReadyFirst checks the line: a released core goes to the
// rank that became ready first.
func TestCoresFirstReadyFirst(t *testing.T) {
	c := newCoreSet()
	a, b := &rank{id: 0, run: make(chan struct{}, 1)}, &rank{id: 1, run: make(chan struct{}, 1)}
	c.ready(a)
	c.ready(b)
	c.release()
	select {
	case <-a.run:
	default:
		t.Fatal("the first release did not start the first ready rank")
	}
	select {
	case <-b.run:
		t.Fatal("the first release started the second ready rank too")
	default:
	}
	c.release()
	select {
	case <-b.run:
	default:
		t.Fatal("the second release did not start the second ready rank")
	}
	if n := c.queued.Load(); n != 0 {
		t.Errorf("queued = %d after both started, want 0", n)
	}
}

// TestCoresIdlerTakesWaitingRank checks the idlers: a rank that stays in
// line (no rank hands it a core) is taken by the idler of a free core.
func TestCoresIdlerTakesWaitingRank(t *testing.T) {
	c := newCoreSet()
	c.start(1)
	defer c.stop()
	r := &rank{run: make(chan struct{}, 1)}
	c.ready(r)
	<-r.run // hangs (the test times out) if no idler takes it
	if n := c.queued.Load(); n != 0 {
		t.Errorf("queued = %d after the idler took the rank, want 0", n)
	}
}
