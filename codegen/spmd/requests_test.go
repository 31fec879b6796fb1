//go:build !perfc_mpi

package spmd

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// requestWorld returns a world of p ranks with requests names running
// body; sites 0-5 are an isend, an irecv, a send, a recv, a wait and a
// loop.
func requestWorld(t *testing.T, p int, names []string, exit func(int), stderr *bytes.Buffer, mu *sync.Mutex, body func(r *rank)) *world {
	sites := []site{{kind: siteISend, stmt: "t.spmd:3:5"}, {kind: siteIRecv, stmt: "t.spmd:4:5"},
		{kind: siteSend, stmt: "t.spmd:5:5"}, {kind: siteRecv, stmt: "t.spmd:6:5"},
		{kind: siteWait, stmt: "t.spmd:7:5"}, {kind: siteIter, stmt: "t.spmd:2:3"}}
	k := &kernelDesc{name: "t", ranks: p, regions: []string{"(outside regions)"}, sites: sites, requests: names,
		newRank: func() rankProgram { return bodyProgram{body} }}
	w := newWorld(k, syncWriter{mu, stderr}, exit)
	w.period = 5 * time.Millisecond
	return w
}

// TestRequestsMatchInPostingOrder posts, on one pair, two isends and then a
// blocking send, received by two irecvs and a blocking recv: each receive
// gets the message of its position in the sender's order, and no post
// blocks its rank (rank 0 finishes both isends before rank 1 receives).
func TestRequestsMatchInPostingOrder(t *testing.T) {
	var mu sync.Mutex
	var stderr bytes.Buffer
	got := make([][]byte, 3)
	posted := make(chan struct{})
	w := requestWorld(t, 2, []string{"a", "b"}, func(code int) { t.Errorf("exit %d: %s", code, stderr.String()) }, &stderr, &mu, func(r *rank) {
		if r.id == 0 {
			r.isend(0, 1, valuesOf(1, 2), 0)
			r.isend(0, 1, valuesOf(2, 2), 1)
			close(posted) // both isends returned before any receive
			r.send(2, 1, valuesOf(3, 2))
			r.waitReqs(4, 0, 1)
			return
		}
		<-posted
		for i := range got {
			got[i] = make([]byte, 16)
		}
		r.irecv(1, 0, got[0], 0)
		r.irecv(1, 0, got[1], 1)
		r.recv(3, 0, got[2])
		r.waitAll(4)
		r.requestsDone(-1)
	})
	// Rank 1 waits on a channel of the test's, which a rank holding one
	// of the cores ranks share must not (cores.go): on one P it would
	// keep rank 0 from running.
	w.cores = nil
	done := make(chan struct{})
	go func() { w.runs(1); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the run did not end")
	}
	for i, want := range [][]byte{valuesOf(1, 2), valuesOf(2, 2), valuesOf(3, 2)} {
		if !bytes.Equal(got[i], want) {
			t.Errorf("receive %d got %v, want %v", i, i64s(got[i]), i64s(want))
		}
	}
}

// TestWaitOfInactiveRequest: a wait of a request never posted, or posted
// to none, returns at once.
func TestWaitOfInactiveRequest(t *testing.T) {
	var mu sync.Mutex
	var stderr bytes.Buffer
	w := requestWorld(t, 1, []string{"a", "b"}, func(code int) { t.Errorf("exit %d: %s", code, stderr.String()) }, &stderr, &mu, func(r *rank) {
		r.isend(0, -1, valuesOf(0, 1), 0)
		r.waitReqs(4, 0, 1)
		r.waitAll(4)
		r.requestsDone(-1)
	})
	done := make(chan struct{})
	go func() { w.runs(2); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a wait of inactive requests blocked")
	}
}

// requestFatal runs body on p ranks and returns the fatal error it
// reports.
func requestFatal(t *testing.T, p int, body func(r *rank)) string {
	t.Helper()
	return requestFatalPolling(t, p, pollFor(p), body)
}

// requestFatalPolling is requestFatal with the ranks waiting as poll says.
func requestFatalPolling(t *testing.T, p int, poll pollPolicy, body func(r *rank)) string {
	t.Helper()
	var mu sync.Mutex
	var stderr bytes.Buffer
	exited := make(chan int, 1)
	w := requestWorld(t, p, []string{"a", "b"}, func(code int) { exited <- code }, &stderr, &mu, body)
	w.poll = poll
	go w.runs(1)
	select {
	case code := <-exited:
		if code != 2 {
			t.Errorf("exit status %d, want 2", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no fatal error was reported")
	}
	mu.Lock()
	defer mu.Unlock()
	return stderr.String()
}

func TestRequestErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		p    int
		body func(r *rank)
		want []string
	}{
		{"deadlock names the waits", 2, func(r *rank) {
			r.irecv(1, 1-r.id, make([]byte, 8), 1)
			r.waitReqs(4, 1)
		}, []string{"deadlock", "rank 0 waits at t.spmd:7:5 for a receive from rank 1 (irecv b, t.spmd:4:5)",
			"rank 1 waits at t.spmd:7:5 for a receive from rank 0 (irecv b, t.spmd:4:5)"}},
		{"posted again while active", 2, func(r *rank) {
			r.irecv(1, 1-r.id, make([]byte, 8), 0)
			r.irecv(1, 1-r.id, make([]byte, 8), 0)
		}, []string{"request a is posted again at t.spmd:4:5 while its post at t.spmd:4:5 is still active"}},
		{"active at the end of an iteration", 1, func(r *rank) {
			r.isend(0, 0, make([]byte, 8), 0)
			r.requestsDone(5, 0)
		}, []string{"rank 0: request a of the isend at t.spmd:3:5 is still active at the end of an iteration of the loop at t.spmd:2:3"}},
		{"active at the end of the kernel", 1, func(r *rank) {
			r.irecv(1, 0, make([]byte, 8), 1)
			r.requestsDone(-1)
		}, []string{"rank 0: request b of the irecv at t.spmd:4:5 is still active at the end of the kernel"}},
		{"sizes differ", 2, func(r *rank) {
			if r.id == 0 {
				r.isend(0, 1, make([]byte, 8), 0)
			} else {
				r.irecv(1, 0, make([]byte, 16), 0)
			}
			r.waitAll(4)
		}, []string{"rank 0 sends 8 B to rank 1 (t.spmd:3:5), but rank 1 receives 16 B (t.spmd:4:5)"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			msg := requestFatal(t, tt.p, tt.body)
			for _, want := range tt.want {
				if !strings.Contains(msg, want) {
					t.Errorf("report %q does not contain %q", msg, want)
				}
			}
		})
	}
}
