package lang

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
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
		b.WriteString(printableLines(e.Error()))
		b.WriteByte('\n')
		if src != nil && e.Pos.IsValid() && (e.Pos.Filename == src.Name) {
			line := src.Line(e.Pos.Line)
			if line != "" {
				b.WriteString("    ")
				b.WriteString(displayLine(line))
				b.WriteString("\n    ")
				col := min(max(e.Pos.Col-1, 0), len(line))
				b.WriteString(strings.Repeat(" ", utf8.RuneCountInString(displayLine(line[:col]))))
				b.WriteString("^\n")
			}
		}
	}
	return b.String()
}

// displayLine is a source line as the caret display shows it: tabs become
// one space each, so that the caret's column counts characters, and control
// characters are escaped, so that a stray escape sequence in a file cannot
// recolour or rewrite the user's terminal.
func displayLine(line string) string {
	return Printable(strings.ReplaceAll(line, "\t", " "))
}

// Printable returns s with every control character (C0, DEL, C1), every
// invalid UTF-8 byte and the Unicode line and paragraph separators written
// as Go escapes (\n, \x1b, \u2028). Names that users choose, such as
// region names, are printed through it wherever they reach a terminal.
func Printable(s string) string {
	clean := true
	for _, r := range s {
		if needsEscape(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case needsEscape(r):
			q := escapeRune(r)
			b.WriteString(q)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// printableLines is Printable for a message that may span lines, such as a
// deadlock's chain of waits: its newlines and tabs are layout and stay.
func printableLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		fields := strings.Split(l, "\t")
		for j, f := range fields {
			fields[j] = Printable(f)
		}
		lines[i] = strings.Join(fields, "\t")
	}
	return strings.Join(lines, "\n")
}

// needsEscape reports whether r would act on a terminal instead of showing.
func needsEscape(r rune) bool {
	return r == utf8.RuneError || unicode.IsControl(r) || r == '\u2028' || r == '\u2029'
}

// escapeRune is r as a Go escape without the quotes: \n, \t, \x1b,
// \u0085, \u2028.
func escapeRune(r rune) string {
	switch r {
	case '\a':
		return `\a`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case '\v':
		return `\v`
	}
	if r < 0x80 {
		return fmt.Sprintf(`\x%02x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}

// SourceError is an error that points into a source, a kernel's or a
// machine table's: its Error prints every message as file:line:col:
// message, followed by the source line and a caret under the column, as
// the perfc command does (no caret where Source is nil or does not hold
// the line). It unwraps to the ErrorList, for callers that want the
// positions.
type SourceError struct {
	List   ErrorList
	Source *Source
}

// Error formats every error with its source line and caret.
func (e *SourceError) Error() string { return strings.TrimSuffix(e.List.Format(e.Source), "\n") }

// Unwrap returns the list, so that errors.As(err, &list) finds it.
func (e *SourceError) Unwrap() error { return e.List }

// Unhandled is the message of a stage that meets a statement or expression
// kind it has no rule for: an internal error of perfc, never the user's.
// stage names the function ("analyze: plan"), so that a report of it says
// where the rule is missing (docs/internals.md lists the files a new kind
// touches). Functions that return errors return it as one; the others,
// whose kind sets are closed (Stmt and Expr cannot be implemented outside
// this package) and which only see checked trees, panic with it.
func Unhandled(stage string, n Node) string {
	what := "node"
	switch n.(type) {
	case Stmt:
		what = "statement"
	case Expr:
		what = "expression"
	}
	return fmt.Sprintf("internal error: %s: unhandled %s kind %T; please report it", stage, what, n)
}

// UnhandledComm is Unhandled for a communication kind a stage has no rule
// for.
func UnhandledComm(stage string, k CommKind) string {
	return fmt.Sprintf("internal error: %s: unhandled communication kind %s; please report it", stage, k)
}
