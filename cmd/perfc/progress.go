package main

import (
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/term"

	"perfc/internal/progress"
)

// rowProgress returns the progress line of a command that streams rows, on
// standard error. When standard output is a terminal too, the rows already
// show progress and a line redrawn between them would garble them, so the
// line is drawn only when the rows go to a file or a pipe.
func rowProgress(e env, title string, total int64) *progress.Bar {
	if f, ok := e.stdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return progress.New(io.Discard, title, total) // inert
	}
	return progress.New(e.stderr, title, total)
}

// stepLine shows on standard error, when it is a terminal, which step of a
// long command is running ("check: building", "check: running"). A ticker
// redraws it, because one step (a go build, a measurement) can run for many
// seconds with nothing to count.
type stepLine struct {
	bar     *progress.Bar
	started atomic.Int64 // steps started; all but the last are done
	stop    chan struct{}
	once    sync.Once
}

// stepTick is how often the step line is redrawn.
const stepTick = 250 * time.Millisecond

// newStepLine starts a line for steps steps.
func newStepLine(w io.Writer, steps int64) *stepLine {
	s := &stepLine{bar: progress.New(w, "", steps), stop: make(chan struct{})}
	go func() {
		tick := time.NewTicker(stepTick)
		defer tick.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-tick.C:
				s.bar.Set(max(s.started.Load()-1, 0))
			}
		}
	}()
	return s
}

// step records that the previous step, if any, is done and title is
// running.
func (s *stepLine) step(title string) {
	n := s.started.Add(1)
	s.bar.Describe(title)
	s.bar.Set(n - 1)
}

// finish stops the ticker and clears the line, before the command prints
// its result; later calls do nothing.
func (s *stepLine) finish() {
	s.once.Do(func() {
		close(s.stop)
		s.bar.Finish()
	})
}
