package machines

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Error is one problem in a machine table or an override. File is the table's
// file name, or the override as written ("-M bw=5us"); Line and Col count
// from 1 and are zero when unknown.
type Error struct {
	File      string
	Line, Col int
	Msg       string
}

// Error formats the problem as file:line:col: message, leaving out what is
// unknown, as the kernel language's errors do.
func (e *Error) Error() string {
	pos := e.File
	if e.Line > 0 {
		pos += fmt.Sprintf(":%d:%d", e.Line, e.Col)
	}
	if pos == "" {
		return e.Msg
	}
	return pos + ": " + e.Msg
}

// ErrorList is every problem found in a table, so that a user sees them all
// at once.
type ErrorList []*Error

// Error prints one problem per line.
func (l ErrorList) Error() string {
	lines := make([]string, len(l))
	for i, e := range l {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// add appends a problem.
func (l *ErrorList) add(file string, line, col int, format string, args ...any) {
	*l = append(*l, &Error{file, line, col, fmt.Sprintf(format, args...)})
}

// sortAndDedup orders the problems by position and drops repeats, so that a
// node read twice is reported once.
func (l *ErrorList) sortAndDedup() {
	slices.SortStableFunc(*l, func(a, b *Error) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col), cmp.Compare(a.Msg, b.Msg))
	})
	*l = slices.CompactFunc(*l, func(a, b *Error) bool { return *a == *b })
}
