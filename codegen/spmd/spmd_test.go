//go:build !perfc_mpi

package spmd

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// bodyProgram is a rank program whose body is a test function.
type bodyProgram struct{ body func(r *rank) }

func (p bodyProgram) init(int)          {}
func (p bodyProgram) run(r *rank)       { p.body(r) }
func (p bodyProgram) checksum() float64 { return 1 }

// testRun is a world of p ranks for a test.
type testRun struct {
	t *testing.T
	w *world
}

// runs runs the world once; a run that does not end within 10 s fails the
// test (its goroutines are abandoned).
func (tr testRun) runs(n int) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		tr.w.runs(n)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		tr.t.Fatal("the run did not end")
	}
}

// testWorld returns a world of p ranks running body, with nsites
// collective sites; a fatal error fails the test.
func testWorld(t *testing.T, p, nsites int, body func(r *rank)) testRun {
	t.Helper()
	sites := make([]site, nsites)
	for i := range sites {
		sites[i] = site{kind: siteColl, stmt: fmt.Sprintf("t.spmd:%d:1", i+1)}
	}
	k := &kernelDesc{name: "t", ranks: p, regions: []string{"(outside regions)"}, sites: sites,
		newRank: func() rankProgram { return bodyProgram{body} }}
	var stderr bytes.Buffer
	return testRun{t, newWorld(k, &stderr, func(code int) { t.Errorf("exit %d: %s", code, stderr.String()) })}
}

// i64s views bytes as typed elements.
func i64s(b []byte) []int64 { return asSlice[int64](b) }

// valuesOf returns n int64 payload bytes for a rank: 100*rank + i + 1.
func valuesOf(rank, n int) []byte {
	b := make([]byte, 8*n)
	for i, s := 0, i64s(b); i < n; i++ {
		s[i] = int64(100*rank + i + 1)
	}
	return b
}

func TestBcast(t *testing.T) {
	for p := 1; p <= 9; p++ {
		for root := 0; root < p; root++ {
			got := make([][]byte, p)
			testWorld(t, p, 1, func(r *rank) {
				buf := valuesOf(r.id, 3)
				r.bcast(0, root, buf)
				got[r.id] = buf
			}).runs(1)
			for id := range got {
				if !bytes.Equal(got[id], valuesOf(root, 3)) {
					t.Errorf("P=%d root %d: rank %d has %v, want the root's %v", p, root, id, i64s(got[id]), i64s(valuesOf(root, 3)))
				}
			}
		}
	}
}

// reduceWant combines valuesOf(rank, n) of the given ranks with op.
func reduceWant(op redOp, ranks []int, n int) []int64 {
	acc := append([]byte(nil), valuesOf(ranks[0], n)...)
	for _, id := range ranks[1:] {
		combine(op, elI64, acc, valuesOf(id, n))
	}
	return i64s(acc)
}

func TestReduce(t *testing.T) {
	for p := 1; p <= 9; p++ {
		all := make([]int, p)
		for i := range all {
			all[i] = i
		}
		for root := 0; root < p; root++ {
			for _, op := range []redOp{redSum, redMax, redMin, redXor} {
				got := make([][]byte, p)
				testWorld(t, p, 1, func(r *rank) {
					buf := valuesOf(r.id, 2)
					r.reduce(0, root, op, elI64, buf)
					got[r.id] = buf
				}).runs(1)
				for id := range got {
					want := i64s(valuesOf(id, 2))
					if id == root {
						want = reduceWant(op, all, 2)
					}
					if fmt.Sprint(i64s(got[id])) != fmt.Sprint(want) {
						t.Errorf("P=%d root %d op %d: rank %d has %v, want %v", p, root, op, id, i64s(got[id]), want)
					}
				}
			}
		}
	}
}

func TestAllreduceAndScan(t *testing.T) {
	for p := 1; p <= 11; p++ {
		for _, op := range []redOp{redSum, redProd, redMax, redMin, redAnd, redOr, redXor} {
			all, scanned := make([][]byte, p), make([][]byte, p)
			testWorld(t, p, 2, func(r *rank) {
				a, s := valuesOf(r.id, 2), valuesOf(r.id, 2)
				r.allreduce(0, op, elI64, a)
				r.scan(1, op, elI64, s)
				all[r.id], scanned[r.id] = a, s
			}).runs(1)
			var prefix []int
			for id := 0; id < p; id++ {
				prefix = append(prefix, id)
				every := make([]int, p)
				for i := range every {
					every[i] = i
				}
				if got, want := fmt.Sprint(i64s(all[id])), fmt.Sprint(reduceWant(op, every, 2)); got != want {
					t.Errorf("allreduce P=%d op %d: rank %d has %s, want %s", p, op, id, got, want)
				}
				if got, want := fmt.Sprint(i64s(scanned[id])), fmt.Sprint(reduceWant(op, prefix, 2)); got != want {
					t.Errorf("scan P=%d op %d: rank %d has %s, want %s", p, op, id, got, want)
				}
			}
		}
	}
}

func TestAllreduceFloatAgrees(t *testing.T) {
	// Every rank must end with the same bits, whatever the order of sums.
	const p = 7
	got := make([]float64, p)
	testWorld(t, p, 1, func(r *rank) {
		b := varBytes(r, 0, 0.1*float64(r.id+1))
		r.allreduce(0, redSum, elF64, b)
		got[r.id] = varValue[float64](b)
	}).runs(1)
	for id, v := range got {
		if v != got[0] {
			t.Errorf("rank %d has %v, rank 0 has %v", id, v, got[0])
		}
	}
}

func TestScatterGather(t *testing.T) {
	for p := 1; p <= 9; p++ {
		for root := 0; root < p; root++ {
			got, gathered := make([][]byte, p), make([][]byte, p)
			w := testWorld(t, p, 2, func(r *rank) {
				buf := make([]byte, 16)
				r.scatter(0, root, elI64, buf)
				got[r.id] = buf
				gathered[r.id] = valuesOf(r.id, 2)
				r.gather(1, root, elI64, gathered[r.id])
			})
			w.runs(1)
			rr := w.w.ranks[root]
			src, dst := rr.bigBuf(false, got[root], elI64), rr.bigBuf(false, gathered[root], elI64)
			for id := range got {
				if !bytes.Equal(got[id], src[16*id:16*id+16]) {
					t.Errorf("scatter P=%d root %d: rank %d got %v, want block %d of the root's %v", p, root, id, i64s(got[id]), id, i64s(src))
				}
				if !bytes.Equal(dst[16*id:16*id+16], valuesOf(id, 2)) {
					t.Errorf("gather P=%d root %d: block %d is %v, want rank %d's %v", p, root, id, i64s(dst[16*id:16*id+16]), id, i64s(valuesOf(id, 2)))
				}
			}
		}
	}
}

func TestAllgatherAlltoall(t *testing.T) {
	for p := 1; p <= 9; p++ {
		ag, a2a := make([][]byte, p), make([][]byte, p)
		w := testWorld(t, p, 2, func(r *rank) {
			ag[r.id], a2a[r.id] = valuesOf(r.id, 2), valuesOf(r.id, 1)
			r.allgather(0, elI64, ag[r.id])
			r.alltoall(1, elI64, a2a[r.id])
		})
		w.runs(1)
		for id, r := range w.w.ranks {
			all := r.bigBuf(false, ag[id], elI64)
			for j := 0; j < p; j++ {
				if !bytes.Equal(all[16*j:16*j+16], valuesOf(j, 2)) {
					t.Errorf("allgather P=%d: rank %d block %d is %v, want %v", p, id, j, i64s(all[16*j:16*j+16]), i64s(valuesOf(j, 2)))
				}
				in := r.bigBuf(true, a2a[id], elI64)[8*j : 8*j+8]
				want := w.w.ranks[j].bigBuf(false, a2a[j], elI64)[8*id : 8*id+8]
				if j == id {
					want = valuesOf(id, 1)
				}
				if !bytes.Equal(in, want) {
					t.Errorf("alltoall P=%d: rank %d received %v from rank %d, want %v", p, id, i64s(in), j, i64s(want))
				}
			}
		}
	}
}

// TestBigBufShared: the statements whose payload starts at the same place
// share a rank's P-block buffer (a shorter payload its beginning), another
// array has its own, and alltoall's two sides are apart; a buffer is
// filled once, when it is allocated or grows.
func TestBigBufShared(t *testing.T) {
	// The payloads live on the heap, as every payload of a generated
	// program does (its arrays, its scratch buffers): a slice on a
	// goroutine's stack moves when the stack grows, and so would its key.
	arrays := make([][2][]byte, 4)
	testWorld(t, 4, 1, func(r *rank) {
		arrays[r.id] = [2][]byte{make([]byte, 64), make([]byte, 64)}
		x, y := arrays[r.id][0], arrays[r.id][1]
		a, b := r.bigBuf(false, x[:32], elF64), r.bigBuf(false, x[:32], elF64)
		if len(a) != 128 || &a[0] != &b[0] {
			t.Errorf("rank %d: two statements with the payload x[0:32] have buffers of %d B at %p and %p, want one of 128 B", r.id, len(a), &a[0], &b[0])
		}
		a[0] = 42
		if c := r.bigBuf(false, x[:16], elF64); len(c) != 64 || &c[0] != &a[0] || c[0] != 42 {
			t.Errorf("rank %d: a shorter payload at the same place does not use the buffer's beginning as it is", r.id)
		}
		if d := r.bigBuf(false, x, elF64); len(d) != 256 || d[0] == 42 {
			t.Errorf("rank %d: a longer payload got %d B, not a new buffer of 256 B filled anew", r.id, len(d))
		}
		if e := r.bigBuf(false, y, elF64); &e[0] == &r.bigBuf(false, x, elF64)[0] {
			t.Errorf("rank %d: arrays x and y share a buffer", r.id)
		}
		if in, out := r.bigBuf(true, x, elF64), r.bigBuf(false, x, elF64); &in[0] == &out[0] {
			t.Errorf("rank %d: alltoall's receive side shares the send side's buffer", r.id)
		}
		if r.bigBuf(false, x[:0], elF64) == nil || len(r.bigBuf(false, x[:0], elF64)) != 0 {
			t.Errorf("rank %d: an empty payload's buffer is not empty", r.id)
		}
	}).runs(1)
}

func TestBarrier(t *testing.T) {
	for p := 1; p <= 9; p++ {
		var mu sync.Mutex
		arrived, sawAll := 0, 0
		testWorld(t, p, 1, func(r *rank) {
			mu.Lock()
			arrived++
			mu.Unlock()
			r.barrier(0)
			mu.Lock()
			if arrived == p {
				sawAll++
			}
			mu.Unlock()
		}).runs(1)
		if sawAll != p {
			t.Errorf("P=%d: %d ranks left the barrier after every rank arrived, want %d", p, sawAll, p)
		}
	}
}

func TestPointToPoint(t *testing.T) {
	const p = 5
	got := make([][]byte, p)
	replaced := make([][]byte, p)
	testWorld(t, p, 6, func(r *rank) {
		right, left := (r.id+1)%p, (r.id+p-1)%p
		in := make([]byte, 16)
		r.sendrecv(0, 1, right, valuesOf(r.id, 2), left, in)
		got[r.id] = in
		buf := valuesOf(r.id, 2)
		r.sendrecvReplace(2, 3, left, right, buf)
		replaced[r.id] = buf
		// A chain of blocking sends and receives; none ends it.
		token := varBytes(r, 0, int64(0))
		prev, next := r.id-1, r.id+1
		if next == p {
			next = -1
		}
		r.recv(4, prev, token)
		v := varValue[int64](token) + 1
		r.send(5, next, varBytes(r, 1, v))
		if r.id == p-1 && v != p {
			t.Errorf("the token reached rank %d as %d, want %d", r.id, v, p)
		}
	}).runs(1)
	for id := 0; id < p; id++ {
		if want := valuesOf((id+p-1)%p, 2); !bytes.Equal(got[id], want) {
			t.Errorf("sendrecv: rank %d received %v, want %v", id, i64s(got[id]), i64s(want))
		}
		if want := valuesOf((id+1)%p, 2); !bytes.Equal(replaced[id], want) {
			t.Errorf("sendrecv in place: rank %d holds %v, want %v", id, i64s(replaced[id]), i64s(want))
		}
	}
}

func TestSendToSelf(t *testing.T) {
	got := make([]byte, 8)
	testWorld(t, 1, 2, func(r *rank) {
		r.sendrecv(0, 1, 0, valuesOf(7, 1), 0, got)
	}).runs(1)
	if !bytes.Equal(got, valuesOf(7, 1)) {
		t.Errorf("sendrecv to self gave %v", i64s(got))
	}
}

// fatalRun runs body on p ranks and returns what the program reports when
// it stops with a fatal error.
func fatalRun(t *testing.T, p int, body func(r *rank)) string {
	t.Helper()
	return fatalRunPolling(t, p, pollFor(p), body)
}

// fatalRunPolling is fatalRun with the ranks waiting as poll says.
func fatalRunPolling(t *testing.T, p int, poll pollPolicy, body func(r *rank)) string {
	t.Helper()
	sites := []site{{kind: siteSend, stmt: "t.spmd:3:5"}, {kind: siteRecv, stmt: "t.spmd:4:5"}}
	k := &kernelDesc{name: "t", ranks: p, regions: []string{"(outside regions)"}, sites: sites,
		newRank: func() rankProgram { return bodyProgram{body} }}
	var mu sync.Mutex
	var stderr bytes.Buffer
	exited := make(chan int, 1)
	w := newWorld(k, syncWriter{&mu, &stderr}, func(code int) { exited <- code })
	w.period = 5 * time.Millisecond
	w.poll = poll
	go w.runs(1) // the ranks stay blocked: the goroutines are abandoned
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

// syncWriter serialises writes from the ranks and the watchdog.
type syncWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (s syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

func TestDeadlockIsReported(t *testing.T) {
	msg := fatalRun(t, 2, func(r *rank) {
		r.recv(1, 1-r.id, make([]byte, 8))
	})
	for _, want := range []string{"deadlock", "rank 0 waits to receive from rank 1 (t.spmd:4:5)", "rank 1 waits to receive from rank 0"} {
		if !strings.Contains(msg, want) {
			t.Errorf("report %q does not contain %q", msg, want)
		}
	}
}

func TestSizeMismatchIsReported(t *testing.T) {
	msg := fatalRun(t, 2, func(r *rank) {
		if r.id == 0 {
			r.send(0, 1, make([]byte, 8))
		} else {
			r.recv(1, 0, make([]byte, 16))
		}
	})
	want := "rank 0 sends 8 B to rank 1 (t.spmd:3:5), but rank 1 receives 16 B (t.spmd:4:5)"
	if !strings.Contains(msg, want) {
		t.Errorf("report %q does not contain %q", msg, want)
	}
}

func TestRunTimeErrorIsReported(t *testing.T) {
	msg := fatalRun(t, 1, func(r *rank) {
		var a [4]int
		i := r.id + 4
		a[i%8] = 1 // index 4 is out of range
	})
	if !strings.Contains(msg, "rank 0 stopped: runtime error: index out of range [4] with length 4") {
		t.Errorf("report %q does not name the rank and the error", msg)
	}
}

func TestPeerOutOfRange(t *testing.T) {
	msg := fatalRun(t, 2, func(r *rank) {
		r.send(0, 5, nil)
	})
	if !strings.Contains(msg, "the destination 5 at t.spmd:3:5 is not a rank (the ranks are 0..1)") {
		t.Errorf("report %q does not explain the peer", msg)
	}
}

// TestManyRanks runs far more ranks than cores through rings of sendrecv
// and chains of blocking sends and receives: the rendezvous parks a rank
// that waits (it never spins), so hundreds of ranks take turns on a few
// cores.
func TestManyRanks(t *testing.T) {
	const p, rounds = 500, 20
	got := make([]int64, p)
	start := time.Now()
	testWorld(t, p, 4, func(r *rank) {
		right, left := (r.id+1)%p, (r.id+p-1)%p
		token := varBytes(r, 0, int64(r.id))
		for range rounds {
			r.sendrecvReplace(0, 1, right, left, token)
		}
		// Even ranks send to the next odd one, which returns the value.
		if r.id%2 == 0 {
			r.send(2, r.id+1, token)
			r.recv(3, r.id+1, token)
		} else {
			in := make([]byte, 8)
			r.recv(3, r.id-1, in)
			r.send(2, r.id-1, in)
		}
		got[r.id] = varValue[int64](token)
	}).runs(1)
	for id := 0; id < p; id++ {
		if want := int64((id - rounds + p) % p); got[id] != want {
			t.Errorf("rank %d ends with %d, want %d", id, got[id], want)
		}
	}
	t.Logf("%d ranks, %d messages each: %v", p, rounds*2+2, time.Since(start))
}

// TestBytesPayloadIsMemory checks that both sides of a `SIZE bytes`
// payload are written when they grow: a buffer that was never written
// reads as the shared zero page, and a send of it would cost less than a
// copy (a bcast's root sends from the receive side).
func TestBytesPayloadIsMemory(t *testing.T) {
	run := testWorld(t, 1, 1, func(*rank) {})
	r := run.w.ranks[0]
	for _, in := range []bool{false, true} {
		for _, n := range []int{64, 1 << 20} {
			b := r.bytesBuf(in, n)
			if len(b) != n {
				t.Fatalf("bytesBuf(in %v, %d) has %d bytes", in, n, len(b))
			}
			if zeros := bytes.Count(b, []byte{0}); zeros > n/64 {
				t.Errorf("bytesBuf(in %v, %d) has %d zero bytes: not filled", in, n, zeros)
			}
		}
	}
}
