package lang

import (
	"fmt"
	"sort"
	"strings"
)

// Error is one diagnostic at a source position.
type Error struct {
	Pos Position
	Msg string
}

// Error formats the diagnostic as file:line:col: message.
func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// ErrorList collects diagnostics. Like go/scanner.ErrorList it is sorted by
// position and de-duplicated before it is shown, so that a user sees every
// problem once, in file order.
type ErrorList []*Error

// Add appends an error at pos.
func (l *ErrorList) Add(pos Position, msg string) { *l = append(*l, &Error{pos, msg}) }

// Addf appends a formatted error at pos.
func (l *ErrorList) Addf(pos Position, format string, args ...any) {
	l.Add(pos, fmt.Sprintf(format, args...))
}

// Len, Less and Swap implement sort.Interface: file, line, column, message.
func (l ErrorList) Len() int      { return len(l) }
func (l ErrorList) Swap(i, j int) { l[i], l[j] = l[j], l[i] }
func (l ErrorList) Less(i, j int) bool {
	a, b := l[i].Pos, l[j].Pos
	if a.Filename != b.Filename {
		return a.Filename < b.Filename
	}
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	if a.Col != b.Col {
		return a.Col < b.Col
	}
	return l[i].Msg < l[j].Msg
}

// Sort orders the list by position, then message.
func (l ErrorList) Sort() { sort.Stable(l) }

// RemoveMultiples sorts the list and drops exact repeats (same position and
// message), so that a check that visits a node twice reports it once.
func (l *ErrorList) RemoveMultiples() {
	l.Sort()
	out := (*l)[:0]
	var last *Error
	for _, e := range *l {
		if last == nil || e.Pos != last.Pos || e.Msg != last.Msg {
			out = append(out, e)
			last = e
		}
	}
	*l = out
}

// Error summarises the list in one line, as go/scanner does.
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	return fmt.Sprintf("%s (and %d more errors)", l[0], len(l)-1)
}

// Err returns nil for an empty list and the list itself otherwise.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// Format writes every error as "file:line:col: message", followed by the
// source line and a caret under the column when src holds that line.
func (l ErrorList) Format(src *Source) string {
	var b strings.Builder
	for _, e := range l {
		b.WriteString(e.Error())
		b.WriteByte('\n')
		if src != nil && e.Pos.IsValid() && (e.Pos.Filename == src.Name) {
			line := src.Line(e.Pos.Line)
			if line != "" {
				b.WriteString("    ")
				b.WriteString(strings.ReplaceAll(line, "\t", " "))
				b.WriteString("\n    ")
				col := min(e.Pos.Col-1, len(line))
				b.WriteString(strings.Repeat(" ", max(col, 0)))
				b.WriteString("^\n")
			}
		}
	}
	return b.String()
}
