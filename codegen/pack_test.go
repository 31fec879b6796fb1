package codegen

import (
	"context"
	"testing"
	"time"
)

// packedPair sends a block, a column and (in place) a strided slice as
// payloads; handPackedPair copies the same elements through buffers of its
// own with loops written out, in the order the checker adds the pack
// buffers (so that both kernels' arrays start with the same values).
const (
	packedPair = `kernel pair(n = 6) on P = 2 ranks {
  array u[n][n], w[n][n]: f64
  let peer = (rank + 1) % P
  sendrecv u[0:n:2][1:4] to peer from peer into w[1:4][0:n:2]
  sendrecv u[1:n][5] to peer from peer into w[0:n - 1][0]
  sendrecv u[2][0:n:3] to peer from peer
}`
	handPackedPair = `kernel pair(n = 6) on P = 2 ranks {
  array u[n][n], w[n][n]: f64
  array s1[9], r1[9], s2[n - 1], r2[n - 1], t[2]: f64
  let peer = (rank + 1) % P
  for i in 0..3 { for j in 0..3 { s1[i*3 + j] = u[2*i][1 + j] } }
  sendrecv s1[0:9] to peer from peer into r1[0:9]
  for i in 0..3 { for j in 0..3 { w[1 + i][2*j] = r1[i*3 + j] } }
  for i in 0..n - 1 { s2[i] = u[1 + i][5] }
  sendrecv s2[0:n - 1] to peer from peer into r2[0:n - 1]
  for i in 0..n - 1 { w[i][0] = r2[i] }
  for j in 0..2 { t[j] = u[2][3*j] }
  sendrecv t[0:2] to peer from peer
  for j in 0..2 { u[2][3*j] = t[j] }
}`
)

// TestPackedPayloadsMoveTheirElements: the generated program of a kernel
// with column, block and strided payloads ends with the same arrays, bit
// for bit (the checksum over every array of every rank), as the kernel
// that packs and unpacks the same elements by hand, and both execute the
// same counts.
func TestPackedPayloadsMoveTheirElements(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs two programs")
	}
	packed := checkSource(t, "packed.spmd", []byte(packedPair), "")
	hand := checkSource(t, "hand.spmd", []byte(handPackedPair), "")
	if got := len(packed.Info.Packs); got != 5 {
		t.Fatalf("the checker made %d pack buffers, want 5 (one per payload of packedPair)", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, binPacked, _ := buildOne(t, packed, true, "")
	_, binHand, _ := buildOne(t, hand, true, "")
	exPacked, err := Count(ctx, binPacked)
	if err != nil {
		t.Fatal(err)
	}
	exHand, err := Count(ctx, binHand)
	if err != nil {
		t.Fatal(err)
	}
	if exPacked.Checksum != exHand.Checksum {
		t.Errorf("checksum %s with payload sections, %s packed by hand: the sections moved other elements", exPacked.Checksum, exHand.Checksum)
	}
	if !exPacked.Finite {
		t.Errorf("checksum %s is not finite", exPacked.Checksum)
	}
}

// overlappedColumns and blockingColumns move the same columns around a
// ring of three ranks, the first with irecv/isend overlapped with an
// interior update that touches neither the halo columns nor the columns
// sent, the second with blocking sendrecvs. The ring is periodic so that
// every pack buffer is written in both (a buffer an edge rank never uses
// keeps an initial value that depends on its place among the arrays).
const (
	overlappedColumns = `kernel cols(n = 6) on P = 3 ranks {
  array u[n + 2][n + 2]: f64
  let right = (rank + 1) % P
  let left = (rank + P - 1) % P
  repeat 2 {
    irecv u[1:n + 1][0] from left as fromWest
    irecv u[1:n + 1][n + 1] from right as fromEast
    isend u[1:n + 1][n] to right as toEast
    isend u[1:n + 1][1] to left as toWest
    for j in 2..n {
      for i in 2..n {
        u[j][i] = 0.5*u[j][i] + 0.125*(u[j][i-1] + u[j][i+1])
      }
    }
    waitall
    for j in 1..n+1 {
      u[j][1] = u[j][1] + 0.25*u[j][0]
      u[j][n] = u[j][n] + 0.25*u[j][n+1]
    }
  }
}
`
	blockingColumns = `kernel cols(n = 6) on P = 3 ranks {
  array u[n + 2][n + 2]: f64
  let right = (rank + 1) % P
  let left = (rank + P - 1) % P
  repeat 2 {
    sendrecv u[1:n + 1][n] to right from left into u[1:n + 1][0]
    sendrecv u[1:n + 1][1] to left from right into u[1:n + 1][n + 1]
    for j in 2..n {
      for i in 2..n {
        u[j][i] = 0.5*u[j][i] + 0.125*(u[j][i-1] + u[j][i+1])
      }
    }
    for j in 1..n+1 {
      u[j][1] = u[j][1] + 0.25*u[j][0]
      u[j][n] = u[j][n] + 0.25*u[j][n+1]
    }
  }
}
`
)

// TestNonBlockingColumnsArriveAtTheWait checks that an irecv of a column
// unpacks what arrived, at the wait that completes it: the overlapped
// program ends with the checksum of its blocking twin. Unpacking at the
// post, before the data is there, changes the checksum.
func TestNonBlockingColumnsArriveAtTheWait(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs two programs")
	}
	nb := checkSource(t, "overlapped.spmd", []byte(overlappedColumns), "")
	blocking := checkSource(t, "blocking.spmd", []byte(blockingColumns), "")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, binNB, _ := buildOne(t, nb, true, "")
	_, binBlocking, _ := buildOne(t, blocking, true, "")
	exNB, err := Count(ctx, binNB)
	if err != nil {
		t.Fatal(err)
	}
	exBlocking, err := Count(ctx, binBlocking)
	if err != nil {
		t.Fatal(err)
	}
	if exNB.Checksum != exBlocking.Checksum {
		t.Errorf("checksum %s with irecv/isend of columns, %s with blocking sendrecv: the irecv unpacked other data", exNB.Checksum, exBlocking.Checksum)
	}
}
