package progress

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestInertWriters checks that a Bar on something that is not a terminal
// writes nothing, whatever is called, so redirected output stays clean.
func TestInertWriters(t *testing.T) {
	file, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	var buf bytes.Buffer
	for name, b := range map[string]*Bar{
		"buffer":       New(&buf, "work", 10),
		"regular file": New(file, "work", 0),
		"nil":          nil,
		"zero":         {},
	} {
		t.Run(name, func(t *testing.T) {
			b.Add(3)
			b.Set(9)
			b.Describe("other")
			b.Finish()
			b.Add(1)
		})
	}
	if buf.Len() != 0 {
		t.Errorf("buffer got %q, want nothing", buf.String())
	}
	if info, err := file.Stat(); err != nil || info.Size() != 0 {
		t.Errorf("file: size %d, err %v; want empty", info.Size(), err)
	}
}

// TestInertIsCheap checks that the calls a hot loop makes on an inert Bar
// allocate nothing.
func TestInertIsCheap(t *testing.T) {
	b := New(&bytes.Buffer{}, "work", 10)
	if n := testing.AllocsPerRun(100, func() { b.Add(1); b.Set(5) }); n != 0 {
		t.Errorf("inert Add+Set allocate %v times, want 0", n)
	}
}

// TestDrawn checks what a drawn line shows and that Finish clears it and
// ends the line's output. Each case draws once: the library skips redraws
// that come within 65 ms of the last.
func TestDrawn(t *testing.T) {
	tests := []struct {
		name  string
		total int64
		calls func(b *Bar)
		want  []string // substrings of the output before Finish
	}{
		{"known total", 100, func(b *Bar) { b.Set(42) }, []string{"emulate", "42/100"}},
		{"added", 100, func(b *Bar) { b.Add(9) }, []string{"emulate", "9/100"}},
		{"unknown total", 0, func(b *Bar) { b.Add(7) }, []string{"emulate", "7"}},
		{"new title", 100, func(b *Bar) { b.Describe("sweep 3/8"); b.Set(1) }, []string{"sweep 3/8", "1/100"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			b := newBar(&buf, "emulate", tt.total, 0)
			tt.calls(b)
			out := buf.String()
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output %q does not contain %q", out, w)
				}
			}
			b.Finish()
			cleared := buf.String()[len(out):]
			if !strings.HasSuffix(cleared, "\r") || strings.TrimSpace(cleared) != "" {
				t.Errorf("Finish wrote %q, want blanks ending in a carriage return", cleared)
			}
			n := buf.Len()
			b.Add(5)
			b.Finish()
			if buf.Len() != n {
				t.Errorf("calls after Finish wrote %q", buf.String()[n:])
			}
		})
	}
}

// TestDelay checks that quick work draws nothing.
func TestDelay(t *testing.T) {
	var buf bytes.Buffer
	b := newBar(&buf, "work", 10, time.Hour)
	b.Add(5)
	b.Finish()
	if buf.Len() != 0 {
		t.Errorf("got %q before the delay, want nothing", buf.String())
	}
}
