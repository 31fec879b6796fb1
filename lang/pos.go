package lang

import (
	"fmt"
	"sort"
)

// Pos is a compact source position: the byte offset into a file plus one,
// so that the zero Pos means "no position". A File turns it into a
// line and column when a message is printed, as go/token does.
type Pos int32

// NoPos is the zero position, carried by nodes that were synthesised.
const NoPos Pos = 0

// IsValid reports whether p refers to a place in a file.
func (p Pos) IsValid() bool { return p > 0 }

// Offset returns the zero-based byte offset of p.
func (p Pos) Offset() int { return int(p) - 1 }

// PosOf returns the Pos for a zero-based byte offset.
func PosOf(offset int) Pos { return Pos(offset + 1) }

// Position is a human-readable source position; Line and Col count from 1,
// Col in bytes as go/scanner does.
type Position struct {
	Filename string
	Line     int
	Col      int
}

// IsValid reports whether the position names a line.
func (p Position) IsValid() bool { return p.Line > 0 }

// String formats the position as file:line:col, leaving out what is unknown.
func (p Position) String() string {
	s := p.Filename
	if p.IsValid() {
		if s != "" {
			s += ":"
		}
		s += fmt.Sprintf("%d:%d", p.Line, p.Col)
	}
	if s == "" {
		s = "-"
	}
	return s
}

// Source is one input file: its name, its text and the start of every line.
// It maps Pos values to positions and gives the text of a line for carets.
type Source struct {
	Name  string
	Text  []byte
	lines []int // offset of the first byte of each line
}

// NewSource indexes text so that positions can be resolved cheaply.
func NewSource(name string, text []byte) *Source {
	lines := []int{0}
	for i, c := range text {
		if c == '\n' {
			lines = append(lines, i+1)
		}
	}
	return &Source{Name: name, Text: text, lines: lines}
}

// Position resolves p; an invalid p gives a position with the file name only.
func (s *Source) Position(p Pos) Position {
	if s == nil {
		return Position{}
	}
	if !p.IsValid() {
		return Position{Filename: s.Name}
	}
	off := p.Offset()
	if off > len(s.Text) {
		off = len(s.Text)
	}
	i := sort.Search(len(s.lines), func(i int) bool { return s.lines[i] > off }) - 1
	return Position{Filename: s.Name, Line: i + 1, Col: off - s.lines[i] + 1}
}

// Line returns the text of line n (1-based) without its newline.
func (s *Source) Line(n int) string {
	if s == nil || n < 1 || n > len(s.lines) {
		return ""
	}
	start := s.lines[n-1]
	end := len(s.Text)
	if n < len(s.lines) {
		end = s.lines[n] - 1
	}
	if end > start && s.Text[end-1] == '\r' {
		end--
	}
	return string(s.Text[start:end])
}
