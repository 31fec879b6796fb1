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
// at once (each yields its P while it holds a core), never two of one
// core (rank r's is r mod 2), and that every message arrived.
func TestCoresRunAtMostC(t *testing.T) {
	withProcs(2, func() {
		const p, iters = 8, 200
		var all concurrency
		var perCore [2]concurrency
		sums := make([]int64, p)
		body := func(r *rank) {
			c := &perCore[r.id%2]
			enter := func() { all.enter(); c.enter() }
			leave := func() { all.leave(); c.leave() }
			enter()
			got := make([]byte, 8)
			sum := make([]byte, 8)
			for i := 0; i < iters; i++ {
				leave()
				r.sendrecv(0, 0, (r.id+1)%p, valuesOf(r.id, 1), (r.id+p-1)%p, got)
				enter()
				// A rank that yields its P keeps its core: no other
				// rank runs in its place.
				runtime.Gosched()
				if want := valuesOf((r.id+p-1)%p, 1); !bytes.Equal(got, want) {
					t.Errorf("rank %d got %v from its left neighbour, want %v", r.id, i64s(got), i64s(want))
				}
				copy(sum, valuesOf(r.id, 1))
				leave()
				r.allreduce(0, redSum, elI64, sum)
				enter()
				sums[r.id] = i64s(sum)[0]
			}
			leave()
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
		if most := all.most.Load(); most > 2 {
			t.Errorf("%d ranks ran at once on 2 Ps, want at most 2", most)
		}
		for i := range perCore {
			if most := perCore[i].most.Load(); most > 1 {
				t.Errorf("%d ranks of core %d ran at once, want 1", most, i)
			}
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

// TestCoresFirstReadyFirst checks a core's line: a released core goes
// to the rank of that core that became ready first, and a rank of the
// other core waits for its own.
func TestCoresFirstReadyFirst(t *testing.T) {
	c := newCoreSet(2)
	mk := func(id int) *rank { return &rank{id: id, run: make(chan struct{}, 1)} }
	holder, a, other, b := mk(0), mk(2), mk(1), mk(4)
	c.ready(a)
	c.ready(other)
	c.ready(b)
	started := func(r *rank) bool {
		select {
		case <-r.run:
			return true
		default:
			return false
		}
	}
	c.release(holder)
	if !started(a) {
		t.Fatal("the first release of core 0 did not start its first ready rank")
	}
	if started(b) || started(other) {
		t.Fatal("the first release of core 0 started a second rank")
	}
	c.release(a)
	if !started(b) {
		t.Fatal("the second release of core 0 did not start its second ready rank")
	}
	if started(other) {
		t.Fatal("a release of core 0 started a rank of core 1")
	}
	if n := c.cores[0].queued.Load(); n != 0 {
		t.Errorf("core 0: queued = %d after both started, want 0", n)
	}
	if n := c.cores[1].queued.Load(); n != 1 {
		t.Errorf("core 1: queued = %d, want 1 (its rank waits for its own core)", n)
	}
}

// TestCoresIdlerTakesWaitingRank checks the idlers: a rank that is made
// ready while its core is free is started by the core's idler.
func TestCoresIdlerTakesWaitingRank(t *testing.T) {
	c := newCoreSet(2)
	c.start()
	defer c.stop()
	for _, id := range []int{0, 1, 3} {
		r := &rank{id: id, run: make(chan struct{}, 1)}
		c.ready(r)
		<-r.run // hangs (the test times out) if no idler takes it
		if n := c.coreOf(r).queued.Load(); n != 0 {
			t.Errorf("rank %d: queued = %d after the idler took it, want 0", id, n)
		}
		c.release(r)
	}
}
