package machines

import (
	"errors"
	"fmt"

	"perfc/lang"
)

// Error is one problem in a machine table or an override: the diagnostic
// type the kernel language's checker reports too. Pos.Filename is the
// table's file name, or the override as written ("-M bw=5us"); Line and
// Col count from 1 and are zero when unknown.
type Error = lang.Error

// ErrorList is every problem found in a table, so that a user sees them all
// at once. Parse, Load and With return it inside a *lang.SourceError, whose
// Error prints each problem with its line of the table and a caret.
type ErrorList = lang.ErrorList

// addError appends a problem to l.
func addError(l *ErrorList, file string, line, col int, format string, args ...any) {
	l.Add(lang.Position{Filename: file, Line: line, Col: col}, fmt.Sprintf(format, args...))
}

// withSource returns an ErrorList err as a *lang.SourceError over the
// table's text (nil data: no source lines, as for -M errors), sorted and
// without repeats; other errors as they are.
func withSource(err error, file string, data []byte) error {
	var l ErrorList
	if !errors.As(err, &l) {
		return err
	}
	l.RemoveMultiples()
	var src *lang.Source
	if data != nil {
		src = lang.NewSource(file, data)
	}
	return &lang.SourceError{List: l, Source: src}
}
