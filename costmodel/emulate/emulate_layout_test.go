package emulate

import (
	"testing"
	"unsafe"
)

// TestRankStateLayout checks the cache-line layout that the comments of
// rankState, rankHot and peerEntry claim (emulate.go, emulate_msg.go): a
// change of a field that breaks it fails here rather than slowing large
// emulations without a word.
func TestRankStateLayout(t *testing.T) {
	var rs rankState
	lines := func(n uintptr) float64 { return float64(n) / cacheLine }

	// "a rankState is a whole number of lines"
	if size := unsafe.Sizeof(rs); size%cacheLine != 0 {
		t.Errorf("rankState is %d bytes (%.2f lines), not a whole number of %d-byte lines", size, lines(size), cacheLine)
	}
	// "the fields every event touches fill the first four lines (rankHot)"
	if off := unsafe.Offsetof(rs.rankHot); off != 0 {
		t.Errorf("rankHot starts at byte %d, not at the start of the rankState", off)
	}
	if size := unsafe.Sizeof(rs.rankHot); size != 4*cacheLine {
		t.Errorf("rankHot is %d bytes (%.2f lines), not four lines (%d bytes)", size, lines(size), 4*cacheLine)
	}
	// "the first destinations the next two"
	if off, size := unsafe.Offsetof(rs.peers), unsafe.Sizeof(rs.peers); off != 4*cacheLine || size != 2*cacheLine {
		t.Errorf("the inline destinations take bytes %d…%d (%.2f lines from line %.2f), not lines 4 and 5", off, off+size, lines(size), lines(off))
	}
	// "Two entries share a cache line."
	if size := unsafe.Sizeof(peerEntry{}); size != cacheLine/2 {
		t.Errorf("a peerEntry is %d bytes, not half a line (%d)", size, cacheLine/2)
	}
	// "then comes the cursor, starting a line"
	if off := unsafe.Offsetof(rs.cur); off%cacheLine != 0 || off != unsafe.Sizeof(rs.rankHead)+cursorPad {
		t.Errorf("the cursor starts at byte %d (line %.2f), not at the start of the line after the destinations", off, lines(off))
	}
	// "and last what only sendrecv, eager messages and talkative ranks need (rankCold)"
	if off := unsafe.Offsetof(rs.rankCold); off+unsafe.Sizeof(rs.rankCold) != unsafe.Sizeof(rs) || off < unsafe.Offsetof(rs.cur)+unsafe.Sizeof(rs.cur) {
		t.Errorf("rankCold takes bytes %d…%d of %d, not the last ones after the cursor", off, off+unsafe.Sizeof(rs.rankCold), unsafe.Sizeof(rs))
	}

	// "the ranks slice of a large emulation is page-aligned": newEmulator
	// allocates it with make, which gives a large object (above 32 KiB)
	// a span of its own, starting a page; with whole-line rankStates every
	// rank then starts a line.
	const page = 4096
	ranks := make([]rankState, 1024)
	if addr := uintptr(unsafe.Pointer(&ranks[0])); addr%page != 0 {
		t.Errorf("the ranks of a 1,024-rank emulation start at %#x, not on a %d-byte page", addr, page)
	}
}
