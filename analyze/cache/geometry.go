package cache

import (
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// MaxLines bounds the number of lines in one level. A simulator keeps a tag
// per line, so the bound keeps a simulator of any valid hierarchy within a few
// hundred MiB; it is far above any real cache (1 GiB of 64-byte lines).
const MaxLines = 1 << 24

// Level is the geometry of one cache level. Sizes are in bytes.
type Level struct {
	Name   string // what reports call the level: "L1", "L2", or "S" for the T3E's secondary cache
	Size   int    // capacity in bytes
	Line   int    // line (block) size in bytes; the unit of transfer to the next level
	Assoc  int    // ways per set; 0 means fully associative (one set holding every line)
	Source string // where the numbers come from: a sysfs path, a paper's table, "default: ..."
}

// Hierarchy lists the levels of a cache hierarchy, the level nearest the
// processor (L1) first. Every level is modelled as a data or unified cache.
type Hierarchy []Level

// Lines is the number of lines the level holds.
func (l Level) Lines() int { return l.Size / l.Line }

// Ways is the number of lines per set: Assoc, or every line when the level is
// fully associative.
func (l Level) Ways() int {
	if l.Assoc == 0 {
		return l.Lines()
	}
	return l.Assoc
}

// Sets is the number of sets; a line at byte address a lives in set
// (a/Line) mod Sets.
func (l Level) Sets() int { return l.Lines() / l.Ways() }

// String writes the level in the form ParseHierarchy reads, e.g. "L1=48KiB/64B/12".
func (l Level) String() string {
	ways := "full"
	if l.Assoc != 0 {
		ways = strconv.Itoa(l.Assoc)
	}
	return l.Name + "=" + formatBytes(l.Size) + "/" + formatBytes(l.Line) + "/" + ways
}

// String writes the hierarchy in the form ParseHierarchy reads, so that
// ParseHierarchy(h.String()) gives h back except for Source, which the text
// does not carry.
func (h Hierarchy) String() string {
	parts := make([]string, len(h))
	for i, l := range h {
		parts[i] = l.String()
	}
	return strings.Join(parts, ",")
}

// Validate reports the first way in which the level cannot be simulated: a
// line that is not a power of two, or a size that is not a whole number of
// sets (of line × ways bytes). Any whole number of sets is accepted, as on
// sliced server L3s (20MiB/64B/16 is 20,480 sets); a line at byte address a
// lives in set (a/Line) mod Sets.
func (l Level) Validate() error {
	if !validName(l.Name) {
		return fmt.Errorf("cache level name %q must be letters, digits and _ (like L1)", l.Name)
	}
	switch {
	case l.Line < 1 || !isPowerOfTwo(l.Line):
		return fmt.Errorf("cache level %s: line size %dB is not a power of two", l.Name, l.Line)
	case l.Size < 1:
		return fmt.Errorf("cache level %s: size %dB is not positive", l.Name, l.Size)
	case l.Assoc < 0:
		return fmt.Errorf("cache level %s: associativity %d is negative; write full for a fully associative cache", l.Name, l.Assoc)
	case l.Size%l.Line != 0:
		return fmt.Errorf("cache level %s: size %s is not a whole number of %s lines", l.Name, formatBytes(l.Size), formatBytes(l.Line))
	case l.Lines() > MaxLines:
		return fmt.Errorf("cache level %s: %d lines is more than the %d a simulator can hold", l.Name, l.Lines(), MaxLines)
	case l.Assoc > l.Lines():
		return fmt.Errorf("cache level %s: %d ways but only %d lines of %s fit in %s", l.Name, l.Assoc, l.Lines(), formatBytes(l.Line), formatBytes(l.Size))
	case l.Lines()%l.Ways() != 0:
		return fmt.Errorf("cache level %s: size %s is %d lines of %s, not a whole number of sets of %d ways (a multiple of line × ways = %s)",
			l.Name, formatBytes(l.Size), l.Lines(), formatBytes(l.Line), l.Assoc, formatBytes(l.Line*l.Assoc))
	}
	return nil
}

// Validate checks every level and that the hierarchy is one a simulator can
// run: at least one level, distinct names, and capacities strictly increasing
// away from the processor.
func (h Hierarchy) Validate() error {
	if len(h) == 0 {
		return errors.New("cache hierarchy has no levels")
	}
	for i, l := range h {
		if err := l.Validate(); err != nil {
			return err
		}
		if err := h.checkAgainstEarlier(i); err != nil {
			return err
		}
	}
	return nil
}

// checkAgainstEarlier reports what is wrong with level i given the levels
// before it: a repeated name, or a capacity not above the previous level's.
func (h Hierarchy) checkAgainstEarlier(i int) error {
	for _, prev := range h[:i] {
		if prev.Name == h[i].Name {
			return fmt.Errorf("cache level name %s is used twice", h[i].Name)
		}
	}
	if i > 0 && h[i].Size <= h[i-1].Size {
		return fmt.Errorf("cache level %s (%s) must be larger than %s (%s) before it; list levels L1 first",
			h[i].Name, formatBytes(h[i].Size), h[i-1].Name, formatBytes(h[i-1].Size))
	}
	return nil
}

// SpecForm is the accepted form of a hierarchy spec, quoted in every
// SpecError so that the user sees how to write it.
const SpecForm = "NAME=SIZE/LINE/WAYS,... with L1 first, sizes in B, KiB, MiB or GiB, WAYS a count or full " +
	"(e.g. L1=48KiB/64B/12,L2=1280KiB/64B/20)"

// SpecError is a malformed or invalid hierarchy spec. Col is the 1-based byte
// column in Spec of the field at fault, so that a command line flag can be
// reported like a source position.
type SpecError struct {
	Spec string
	Col  int
	Msg  string
}

// Error formats the error with the spec, the column and the accepted form.
func (e *SpecError) Error() string {
	return fmt.Sprintf("cache hierarchy %q, column %d: %s; accepted form: %s", e.Spec, e.Col, e.Msg, SpecForm)
}

// ParseHierarchy reads a hierarchy written as comma-separated levels
// NAME=SIZE/LINE/WAYS, L1 first, such as "L1=48KiB/64B/12,L2=1280KiB/64B/20",
// and validates it. Blanks around fields are allowed. Source is left empty:
// the caller knows where the text came from (a flag, a machine file).
// Errors are *SpecError.
func ParseHierarchy(spec string) (Hierarchy, error) {
	var h Hierarchy
	col := 1
	for _, item := range strings.Split(spec, ",") {
		level, err := parseLevel(spec, item, col)
		if err != nil {
			return nil, err
		}
		h = append(h, level)
		if err := h.checkAgainstEarlier(len(h) - 1); err != nil {
			return nil, &SpecError{spec, col + leadingBlanks(item), err.Error()}
		}
		col += len(item) + 1
	}
	return h, nil
}

// parseLevel reads one NAME=SIZE/LINE/WAYS item that starts at column col of
// spec, and validates it on its own.
func parseLevel(spec, item string, col int) (Level, error) {
	fail := func(offset int, format string, args ...any) (Level, error) {
		return Level{}, &SpecError{spec, col + offset, fmt.Sprintf(format, args...)}
	}
	start := leadingBlanks(item)
	if strings.TrimSpace(item) == "" {
		return fail(start, "empty cache level")
	}
	name, geometry, ok := strings.Cut(item, "=")
	if !ok {
		return fail(start, "cache level %q has no =", strings.TrimSpace(item))
	}
	fields := strings.Split(geometry, "/")
	if len(fields) != 3 {
		return fail(len(name)+1, "cache level %s has %d /-separated fields, want SIZE/LINE/WAYS", strings.TrimSpace(name), len(fields))
	}
	level := Level{Name: strings.TrimSpace(name)}
	offset := len(name) + 1 // column offset of the current field within item
	var err error
	if level.Size, err = parseBytes(fields[0]); err != nil {
		return fail(offset+leadingBlanks(fields[0]), "size: %v", err)
	}
	offset += len(fields[0]) + 1
	if level.Line, err = parseBytes(fields[1]); err != nil {
		return fail(offset+leadingBlanks(fields[1]), "line size: %v", err)
	}
	offset += len(fields[1]) + 1
	if level.Assoc, err = parseWays(fields[2]); err != nil {
		return fail(offset+leadingBlanks(fields[2]), "ways: %v", err)
	}
	if err := level.Validate(); err != nil {
		return fail(start, "%v", err)
	}
	return level, nil
}

// byteUnits are the accepted size suffixes, largest first so that
// formatBytes picks the largest exact one.
var byteUnits = [...]struct {
	suffix string
	bytes  int
}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}}

// maxBytes bounds a size in a spec, well above any simulable level, so that
// the arithmetic on it cannot overflow.
const maxBytes = MaxLines << 10

// parseBytes reads a size such as 48KiB or 64B. A unit is required so that a
// forgotten one is not silently read as bytes, and decimal units (KB, K) are
// refused because cache sizes are binary.
func parseBytes(text string) (int, error) {
	text = strings.TrimSpace(text)
	digits := text[:len(text)-len(strings.TrimLeft(text, "0123456789"))]
	unit := text[len(digits):]
	if digits == "" {
		return 0, fmt.Errorf("%q does not start with a number", text)
	}
	for _, u := range byteUnits {
		if unit != u.suffix {
			continue
		}
		n, err := strconv.Atoi(digits)
		if err != nil || n > maxBytes/u.bytes {
			return 0, fmt.Errorf("%q is larger than %s", text, formatBytes(maxBytes))
		}
		return n * u.bytes, nil
	}
	if unit == "" {
		return 0, fmt.Errorf("%q has no unit; write %sB or %sKiB", text, digits, digits)
	}
	return 0, fmt.Errorf("%q has unit %q; use B, KiB, MiB or GiB", text, unit)
}

// parseWays reads an associativity: a positive count, or "full".
func parseWays(text string) (int, error) {
	text = strings.TrimSpace(text)
	if text == "full" {
		return 0, nil
	}
	n, err := strconv.Atoi(text)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%q is not a positive count of ways or full", text)
	}
	return n, nil
}

// formatBytes writes n with the largest binary unit that divides it exactly,
// so that the text reads back to the same number.
func formatBytes(n int) string {
	for _, u := range byteUnits {
		if n != 0 && n%u.bytes == 0 {
			return strconv.Itoa(n/u.bytes) + u.suffix
		}
	}
	return strconv.Itoa(n) + "B"
}

// leadingBlanks counts the spaces and tabs that start s, to point a column at
// the field rather than at the blanks before it.
func leadingBlanks(s string) int { return len(s) - len(strings.TrimLeft(s, " \t")) }

// validName reports whether name is a non-empty run of letters, digits and _.
func validName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// isPowerOfTwo reports whether n is a positive power of two.
func isPowerOfTwo(n int) bool { return n > 0 && bits.OnesCount(uint(n)) == 1 }
