//go:build !perfc_mpi

package spmd

import (
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
