package emulate

import "testing"

// TestPeerTableWaves checks that a rank's peer table counts the messages
// to each destination on its own, for a few destinations (inline), more
// (scanned) and many (behind a map), sent to in a scrambled order, by two
// ranks taking turns that share one slab for their extra destinations.
func TestPeerTableWaves(t *testing.T) {
	for _, n := range []int64{3, peersInline + 5, peersInline + peerChunk + 3, peersInline + manyPeers + 20} {
		var ranks [2]rankState
		var slab []peerEntry
		want := [2]map[int64]int64{{}, {}}
		for i := range 20 * n {
			for j := range ranks {
				dst := (i*7+int64(j)*5)%n*3 + int64(j)
				want[j][dst]++
				e := ranks[j].peer(dst, &slab)
				e.sent++
				if e.sent != want[j][dst] || e.key != int32(dst+1) {
					t.Fatalf("%d destinations: rank %d, message %d to %d: entry %+v, want wave %d", n, j, i, dst, *e, want[j][dst])
				}
			}
		}
	}
}
