//go:build !perfc_mpi

package spmd

import (
	"bytes"
	"sync"
	"testing"
)

// BenchmarkPingpong is a half round trip of 8 KiB between two ranks with
// the runtime's blocking send and receive.
func BenchmarkPingpong(b *testing.B) {
	const n = 8192
	b.SetBytes(n)
	reps := b.N/2 + 1
	w := testWorld(&testing.T{}, 2, 2, func(r *rank) {
		buf := make([]byte, n)
		for range reps {
			if r.id == 0 {
				r.send(0, 1, buf)
				r.recv(1, 1, buf)
			} else {
				r.recv(1, 0, buf)
				r.send(0, 0, buf)
			}
		}
	})
	b.ResetTimer()
	w.w.runs(1)
}

// BenchmarkChannelPingpong is the same with a channel written by hand, the
// baseline the runtime must stay within 10% of.
func BenchmarkChannelPingpong(b *testing.B) {
	const n = 8192
	b.SetBytes(n)
	reps := b.N/2 + 1
	ping, pong := make(chan []byte), make(chan []byte)
	go func() {
		mine := make([]byte, n)
		for range reps {
			copy(mine, <-ping)
			pong <- mine
		}
	}()
	buf := make([]byte, n)
	b.ResetTimer()
	for range reps {
		ping <- buf
		copy(buf, <-pong)
	}
}

// BenchmarkRequestPingpong is BenchmarkPingpong with irecv, isend and a
// wait of both, through the mailboxes of a kernel with requests.
func BenchmarkRequestPingpong(b *testing.B) {
	const n = 8192
	b.SetBytes(n)
	reps := b.N/2 + 1
	var mu sync.Mutex
	var stderr bytes.Buffer
	w := requestWorld(&testing.T{}, 2, []string{"r", "s"}, func(int) {}, &stderr, &mu, func(r *rank) {
		in, out := make([]byte, n), make([]byte, n)
		for range reps {
			if r.id == 0 {
				r.isend(0, 1, out, 1)
				r.waitReqs(4, 1)
				r.irecv(1, 1, in, 0)
				r.waitReqs(4, 0)
			} else {
				r.irecv(1, 0, in, 0)
				r.waitReqs(4, 0)
				r.isend(0, 0, out, 1)
				r.waitReqs(4, 1)
			}
		}
	})
	b.ResetTimer()
	w.runs(1)
}
