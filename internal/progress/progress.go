// Package progress draws a progress line on a terminal for long work
// (emulations, sweeps, checks). It wraps github.com/schollz/progressbar/v3
// so that callers need no terminal test of their own: when the writer is
// not a terminal (a pipe, a file, a test buffer) or the *Bar is nil, every
// method does nothing, so output that is captured or redirected never
// carries control characters.
package progress

import (
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// showAfter is how long work runs before its line appears: quick runs,
// the common case, print nothing at all.
const showAfter = time.Second

// Bar is one progress line. The zero value and a nil *Bar are inert.
type Bar struct {
	mu    sync.Mutex
	w     io.Writer // nil when the line is never drawn
	title string
	total int64 // 0: unknown, the line shows a count and a rate
	done  int64
	start time.Time
	delay time.Duration // the line is drawn from start+delay on
	bar   *progressbar.ProgressBar
}

// New returns a progress line for work of total units (0 when the total is
// unknown) titled title, drawn on w once the work has run for a second.
// When w is not a terminal the Bar draws nothing.
func New(w io.Writer, title string, total int64) *Bar {
	if !isTerminal(w) {
		w = nil
	}
	return newBar(w, title, total, showAfter)
}

// newBar is New without the terminal test and with a chosen delay, so
// that tests can draw into a buffer.
func newBar(w io.Writer, title string, total int64, delay time.Duration) *Bar {
	return &Bar{w: w, title: title, total: total, start: time.Now(), delay: delay}
}

// isTerminal reports whether w is a file that is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && f != nil && term.IsTerminal(int(f.Fd()))
}

// Add records n more units of work done.
func (b *Bar) Add(n int64) {
	if b == nil || b.w == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done += n
	b.draw()
}

// Set records that n units of work are done in all.
func (b *Bar) Set(n int64) {
	if b == nil || b.w == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done = n
	b.draw()
}

// Describe changes the title shown before the line.
func (b *Bar) Describe(title string) {
	if b == nil || b.w == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.title = title
	if b.bar != nil {
		b.bar.Describe(title)
	}
}

// Finish removes the line, if one was drawn, so that what the program
// prints next starts on a clean line. Later calls do nothing.
func (b *Bar) Finish() {
	if b == nil || b.w == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bar != nil {
		_ = b.bar.Finish() // a failed write to the terminal is not worth an error
	}
	b.w = nil
}

// draw brings the drawn line up to date, creating it once the delay has
// passed. The caller holds b.mu.
func (b *Bar) draw() {
	if b.bar == nil {
		if time.Since(b.start) < b.delay {
			return
		}
		b.bar = b.create()
	}
	_ = b.bar.Set64(b.done) // a failed write to the terminal is not worth an error
}

// create makes the underlying line: one line on b.w, redrawn at most
// about 15 times a second, without a background goroutine, cleared when
// finished.
func (b *Bar) create() *progressbar.ProgressBar {
	max := b.total
	if max <= 0 {
		max = -1 // the library's "unknown"
	}
	return progressbar.NewOptions64(max,
		progressbar.OptionSetWriter(b.w),
		progressbar.OptionSetDescription(b.title),
		progressbar.OptionSetWidth(20),
		progressbar.OptionThrottle(65*time.Millisecond),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetSpinnerChangeInterval(0),
		progressbar.OptionClearOnFinish(),
	)
}
