package costmodel

import "testing"

// TestPeerTableWaves checks that a rank's peer table counts the messages
// to each destination on its own, for a few destinations (inline), more
// (scanned) and many (behind a map), sent to in a scrambled order.
func TestPeerTableWaves(t *testing.T) {
	for _, n := range []int64{3, peersInline + 5, peersInline + manyPeers + 20} {
		var rs rankState
		want := map[int64]int64{}
		for i := range 20 * n {
			dst := (i * 7) % n * 3
			want[dst]++
			e := rs.peer(dst)
			e.sent++
			if e.sent != want[dst] || e.key != int32(dst+1) {
				t.Fatalf("%d destinations: message %d to %d: entry %+v, want wave %d", n, i, dst, *e, want[dst])
			}
		}
	}
}
