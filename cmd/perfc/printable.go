package main

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// printable returns a name from the kernel's source (a region's string),
// as the tables and messages print it bare: a name that is all printable
// comes back unchanged; in any other name, control characters, invalid
// UTF-8, other non-printable runes and backslashes are written as Go
// escapes (\n, \t, \x1b, \u200b, \\). A region named "a\x1b[31m" can then
// neither colour the terminal nor, with a tab or a newline, break a
// table's columns. JSON output needs no such care: encoding/json escapes.
func printable(name string) string {
	if isPrintable(name) {
		return name
	}
	var b strings.Builder
	for i, w := 0, 0; i < len(name); i += w {
		r, size := utf8.DecodeRuneInString(name[i:])
		w = size
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, name[i])
		case r == '\\' || !strconv.IsPrint(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isPrintable reports whether every rune of s is printable and valid.
func isPrintable(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || !strconv.IsPrint(r) {
			return false
		}
	}
	return true
}
