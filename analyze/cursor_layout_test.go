package analyze

import (
	"testing"
	"unsafe"
)

// TestCursorLayout checks what cursorTop's comment claims, on which the
// emulator's rankState layout relies (costmodel's TestRankStateLayout): 40
// bytes, followed at once by the inline cache slots, so that a cursor that
// starts a 64-byte line holds its innermost frame and its first cache slot
// in that line.
func TestCursorLayout(t *testing.T) {
	var c Cursor
	if size := unsafe.Sizeof(c.cursorTop); size != 40 {
		t.Errorf("cursorTop is %d bytes, not 40", size)
	}
	if off := unsafe.Offsetof(c.cursorTop); off != 0 {
		t.Errorf("cursorTop starts at byte %d of the Cursor, not 0", off)
	}
	if off := unsafe.Offsetof(c.memoIn); off != unsafe.Sizeof(c.cursorTop) || off+unsafe.Sizeof(c.memoIn[0]) > 64 {
		t.Errorf("the inline cache slots start at byte %d; the first does not follow cursorTop within the first 64-byte line", off)
	}
}
