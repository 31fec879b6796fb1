package codegen

import "testing"

// TestScratchBytes checks the runtime buffers a rank's messages copy
// through: an in-place exchange's copy (the largest, once), byte payloads
// on each side, a reduction's two partial results; nothing for a
// sendrecv into another array.
func TestScratchBytes(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		want       int64
	}{
		{"sendrecv into another array", "sendrecv x to (rank + 1) % P from (rank + 1) % P into y", 0},
		{"exchange in place", "exchange x with rank ^ 1", 8000},
		{"two in place: the larger", "exchange x[0:10] with rank ^ 1\n  sendrecv x to (rank + 1) % P from (rank + 1) % P", 8000},
		{"bytes", "sendrecv 64 bytes to (rank + 1) % P from (rank + 1) % P into 64 bytes", 128},
		{"allreduce", "allreduce sum y", 16000},
		{"bytes without into: two buffers, no copy", "sendrecv 64 bytes to (rank + 1) % P from (rank + 1) % P", 128},
		{"scatter of bytes from 0: the block, the root's two", "scatter 100 bytes from 0", 100 + 2*100},
		{"scatter from a root that moves: and the rotation", "for r in 0..P { scatter 100 bytes from r }", 100 + 2*100 + 2*100},
		{"scatter of an array: the root's blocks", "scatter x from 0", 2 * 8000},
		{"gather: the root's blocks and its tree", "gather x to 0", 2 * 2 * 8000},
		{"allgather", "allgather y", 2 * 8000},
		{"alltoall: two buffers of blocks", "alltoall y", 2 * 2 * 8000},
		{"two gathers: a buffer each", "gather x to 0\n  gather y to 0", 2 * 2 * 2 * 8000},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := "kernel k() on P = 2 ranks {\n  array x[1000], y[1000]: f64\n  " + tt.body + "\n}\n"
			k := checkSource(t, "k.spmd", []byte(src), "")
			if got := ScratchBytes(k); got != tt.want {
				t.Errorf("ScratchBytes = %d, want %d", got, tt.want)
			}
		})
	}
}
