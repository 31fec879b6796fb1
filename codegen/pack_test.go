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
