package machines

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Dim is the dimension of a quantity: the integer exponents of the four base
// dimensions perfc uses, time (s), data (B), work (flop) and memory references
// (mref, the PARKBENCH unit of computational intensity flop/mref). A bandwidth
// is B·s⁻¹, a rate flop·s⁻¹, an inverse bandwidth s·B⁻¹.
//
// The exponents are packed into one integer, eight bits per base dimension,
// each biased by dimBias so that it stays non-negative. Multiplying two
// quantities adds their exponents lane by lane, which on the packed form is
// an integer addition followed by removing one bias; this keeps Dim a plain
// comparable value and lets the named dimensions below be constants.
type Dim uint32

// Base dimensions are stored in this lane order.
const (
	laneTime = iota
	laneByte
	laneFlop
	laneMref
	numLanes
)

const (
	laneBits = 8
	laneBias = 64              // an exponent e is stored as e + laneBias
	dimBias  = Dim(0x40404040) // laneBias in every lane: the dimensionless value
)

// Named dimensions.
const (
	Dimensionless Dim = dimBias
	Time          Dim = dimBias + 1<<(laneBits*laneTime)
	Bytes         Dim = dimBias + 1<<(laneBits*laneByte)
	Flop          Dim = dimBias + 1<<(laneBits*laneFlop)
	Mref          Dim = dimBias + 1<<(laneBits*laneMref)
	Bandwidth     Dim = Bytes + dimBias - Time         // B/s
	InvBandwidth  Dim = Time + dimBias - Bytes         // s/B
	Rate          Dim = Flop + dimBias - Time          // flop/s
	TimePerFlop   Dim = Time + dimBias - Flop          // s/flop
	Frequency     Dim = Dimensionless + dimBias - Time // 1/s
	Intensity     Dim = Flop + dimBias - Mref          // flop/mref
)

// Mul is the dimension of a product.
func (d Dim) Mul(e Dim) Dim { return d + e - dimBias }

// Div is the dimension of a quotient.
func (d Dim) Div(e Dim) Dim { return d - e + dimBias }

// Pow is the dimension of d raised to the integer power k. Exponents stay far
// inside a lane's range because the expression language limits k (maxPower).
func (d Dim) Pow(k int) Dim { return Dim(int64(dimBias) + int64(k)*(int64(d)-int64(dimBias))) }

// exponent returns the exponent of one base dimension.
func (d Dim) exponent(lane int) int {
	return int(d>>(laneBits*lane)&(1<<laneBits-1)) - laneBias
}

// baseSymbol is the unit symbol of one base dimension.
func baseSymbol(lane int) string {
	switch lane {
	case laneTime:
		return "s"
	case laneByte:
		return "B"
	case laneFlop:
		return "flop"
	}
	return "mref"
}

// String writes the dimension in base units, as "B/s" or "flop/mref"; a
// dimensionless value is "1".
func (d Dim) String() string {
	var num, den []string
	for lane := laneByte; lane < numLanes+laneByte; lane++ {
		l := lane % numLanes // B, flop, mref before s, as in "B/s"
		e := d.exponent(l)
		sym := baseSymbol(l)
		switch {
		case e == 1:
			num = append(num, sym)
		case e > 1:
			num = append(num, sym+"^"+strconv.Itoa(e))
		case e == -1:
			den = append(den, sym)
		case e < -1:
			den = append(den, sym+"^"+strconv.Itoa(-e))
		}
	}
	s := strings.Join(num, "*")
	if s == "" {
		s = "1"
	}
	for _, u := range den {
		s += "/" + u
	}
	return s
}

// Describe names the dimension for an error message: "a time", "a bandwidth".
func (d Dim) Describe() string {
	switch d {
	case Dimensionless:
		return "a number"
	case Time:
		return "a time"
	case Bytes:
		return "a size in bytes"
	case Flop:
		return "an amount of work in flop"
	case Mref:
		return "a count of memory references"
	case Bandwidth:
		return "a bandwidth"
	case InvBandwidth:
		return "a time per byte"
	case Rate:
		return "a rate in flop/s"
	case TimePerFlop:
		return "a time per flop"
	case Frequency:
		return "a frequency"
	case Intensity:
		return "an intensity in flop/mref"
	}
	return "a quantity in " + d.String()
}

// Quantity is a number with a dimension. Value is in SI base units (s, B,
// flop, mref), so 84.65us is {84.65e-6, Time} and 50MB/s is {50e6, Bandwidth}.
type Quantity struct {
	Value float64
	Dim   Dim
}

// String prints the quantity in the unit perfc prefers for its dimension
// (see displayUnit); ParseQuantity reads the result back.
func (q Quantity) String() string {
	return q.In(displayUnit(q))
}

// In prints the quantity in the given unit, with up to ten significant
// digits. The unit must have q's dimension (it does when it came from the
// same table entry); otherwise In falls back to the preferred unit.
func (q Quantity) In(unit string) string { return q.format(unit, 10) }

// format prints the quantity in unit with at most digits significant digits.
func (q Quantity) format(unit string, digits int) string {
	if unit == "" && q.Dim != Dimensionless {
		unit = displayUnit(q)
	}
	if unit == "" {
		return formatNumber(q.Value, digits)
	}
	u, err := parseUnit(unit)
	if err != nil || u.dim != q.Dim {
		return q.format(displayUnit(q), digits)
	}
	return formatNumber(u.from(q.Value), digits) + unit
}

// formatNumber prints a float with at most digits significant digits: ten
// reproduce every number the papers print, seven suffice for derived ones.
func formatNumber(v float64, digits int) string {
	if v == 0 {
		return "0"
	}
	return strconv.FormatFloat(v, 'g', digits, 64)
}

// displayUnit chooses the unit perfc prints a quantity in: PARKBENCH units
// (us, Mflop/s, MB/s, KiB), scaled so the number is readable. Byte counts are
// printed binary (KiB, MiB) only when they are whole multiples, otherwise
// decimal, so 64KiB and 16MB both print as written.
func displayUnit(q Quantity) string {
	v := math.Abs(q.Value)
	switch q.Dim {
	case Dimensionless:
		return ""
	case Time:
		return scaled(v, "us", []scale{{1e-9, "ns"}, {1e-6, "us"}, {1e-3, "ms"}, {1, "s"}})
	case Bytes:
		return byteUnit(q.Value)
	case Bandwidth:
		return scaled(v, "MB/s", []scale{{1, "B/s"}, {1e3, "kB/s"}, {1e6, "MB/s"}, {1e9, "GB/s"}})
	case InvBandwidth:
		return scaled(v, "us/B", []scale{{1e-12, "ps/B"}, {1e-9, "ns/B"}, {1e-6, "us/B"}, {1e-3, "ms/B"}})
	case Rate:
		return scaled(v, "Mflop/s", []scale{{1, "flop/s"}, {1e3, "kflop/s"}, {1e6, "Mflop/s"}, {1e9, "Gflop/s"}})
	case TimePerFlop:
		return scaled(v, "us/flop", []scale{{1e-12, "ps/flop"}, {1e-9, "ns/flop"}, {1e-6, "us/flop"}})
	case Frequency:
		return scaled(v, "kHz", []scale{{1, "Hz"}, {1e3, "kHz"}, {1e6, "MHz"}, {1e9, "GHz"}})
	case Flop:
		return scaled(v, "flop", []scale{{1, "flop"}, {1e3, "kflop"}, {1e6, "Mflop"}, {1e9, "Gflop"}})
	}
	return q.Dim.String()
}

// scale is one candidate display unit: its size in SI base units and name.
type scale struct {
	size float64
	name string
}

// scaled picks the largest unit in which v is at least 1, the smallest for
// tiny values, and zeroUnit for zero, so 54e-6 s prints as 54us, 1e-3 s as
// 1ms and zero as 0us.
func scaled(v float64, zeroUnit string, units []scale) string {
	if v == 0 {
		return zeroUnit
	}
	best := units[0].name
	for _, u := range units {
		if v >= u.size*(1-1e-12) {
			best = u.name
		}
	}
	return best
}

// byteUnit prints a byte count in the binary (KiB, MiB, GiB) or decimal
// (kB, MB, GB) unit that writes it most briefly, so that 65536 B prints as
// 64KiB and 16e6 B as 16MB, as the papers write them; B when neither fits.
func byteUnit(v float64) string {
	best, bestLen := "B", len(formatNumber(v, 10))
	for _, u := range []scale{{1 << 10, "KiB"}, {1 << 20, "MiB"}, {1 << 30, "GiB"}, {1e3, "kB"}, {1e6, "MB"}, {1e9, "GB"}} {
		if math.Abs(v) < u.size {
			continue
		}
		if n := len(formatNumber(v/u.size, 10)); n < bestLen {
			best, bestLen = u.name, n
		}
	}
	return best
}

// unit is a parsed unit: its dimension and its size in SI base units, kept
// as the fraction mul/div so that a submultiple divides exactly: 85us is
// 85/1e6 s, which is the float 85e-6, where 85*1e-6 would not be.
type unit struct {
	mul, div float64
	dim      Dim
}

// to converts a value in the unit to SI base units.
func (u unit) to(v float64) float64 { return v * u.mul / u.div }

// from converts a value in SI base units to the unit.
func (u unit) from(v float64) float64 { return v * u.div / u.mul }

// ParseQuantity reads a constant quantity as written in a machine table or
// on the command line: a number, optional blanks and a unit, such as "54us",
// "50 MB/s", "64KiB", "0.117us/B", "11Mflop/s" or "2". Units follow the papers
// exactly as written: kB, MB, GB are decimal (10^3, 10^6, 10^9 B) and KiB,
// MiB, GiB binary (2^10, 2^20, 2^30 B); "KB" is rejected as ambiguous.
func ParseQuantity(text string) (Quantity, error) {
	s := strings.TrimSpace(text)
	n := scanNumber(s)
	if n == 0 {
		return Quantity{}, fmt.Errorf("'%s': want a number followed by a unit, such as 54us or 50MB/s", text)
	}
	v, err := strconv.ParseFloat(s[:n], 64)
	if err != nil {
		return Quantity{}, fmt.Errorf("'%s': '%s' is not a number", text, s[:n])
	}
	rest := strings.TrimSpace(s[n:])
	if rest == "" {
		return Quantity{v, Dimensionless}, nil
	}
	u, err := parseUnit(rest)
	if err != nil {
		return Quantity{}, fmt.Errorf("'%s': %v", text, err)
	}
	return Quantity{u.to(v), u.dim}, nil
}

// scanNumber returns the length of the decimal number at the start of s:
// digits with an optional fraction and exponent ("1.5e-3"), as in Go.
func scanNumber(s string) int {
	i := 0
	digits := func() int {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - start
	}
	intDigits := digits()
	fracDigits := 0
	if i < len(s) && s[i] == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
		i++
		fracDigits = digits()
	}
	if intDigits+fracDigits == 0 {
		return 0
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && s[j] >= '0' && s[j] <= '9' {
			i = j
			digits()
		}
	}
	return i
}

// parseUnit reads a compound unit: factors joined by '/' or '*', each a
// prefixed symbol with an optional integer power, as in "us/B", "Mflop/s",
// "B*flop/s^2".
func parseUnit(text string) (unit, error) {
	u := unit{1, 1, Dimensionless}
	rest := text
	divide := false
	for {
		end := strings.IndexAny(rest, "/*")
		factorText := rest
		if end >= 0 {
			factorText = rest[:end]
		}
		f, err := parseFactor(strings.TrimSpace(factorText))
		if err != nil {
			return unit{}, err
		}
		if divide {
			u = unit{u.mul * f.div, u.div * f.mul, u.dim.Div(f.dim)}
		} else {
			u = unit{u.mul * f.mul, u.div * f.div, u.dim.Mul(f.dim)}
		}
		if end < 0 {
			return u, nil
		}
		divide = rest[end] == '/'
		rest = rest[end+1:]
	}
}

// maxPower bounds the integer powers of units and expressions, keeping
// dimension exponents far from the edge of their lanes.
const maxPower = 8

// parseFactor reads one unit factor such as "us", "MiB" or "s^2".
func parseFactor(text string) (unit, error) {
	sym, power := text, 1
	if i := strings.IndexByte(text, '^'); i >= 0 {
		sym = text[:i]
		k, err := strconv.Atoi(text[i+1:])
		if err != nil || k == 0 || k < -maxPower || k > maxPower {
			return unit{}, fmt.Errorf("bad power '%s' in unit '%s': want a nonzero integer from -%d to %d", text[i+1:], text, maxPower, maxPower)
		}
		power = k
	}
	u, ok := lookupUnit(sym)
	if !ok {
		return unit{}, unknownUnitError(sym)
	}
	mul, div := math.Pow(u.mul, float64(power)), math.Pow(u.div, float64(power))
	return unit{mul, div, u.dim.Pow(power)}, nil
}

// lookupUnit resolves a unit symbol with its prefix: "us", "KiB", "Mflop",
// "kHz". Each base symbol takes only the prefixes that make sense for it, so
// that "Ms" (megasecond) or "KiHz" are errors rather than surprises.
func lookupUnit(sym string) (unit, bool) {
	if u, ok := baseUnit(sym); ok {
		return u, true
	}
	for _, p := range []struct {
		prefix   string
		mul, div float64
	}{
		{"Ki", 1 << 10, 1}, {"Mi", 1 << 20, 1}, {"Gi", 1 << 30, 1}, {"Ti", 1 << 40, 1},
		{"µ", 1, 1e6}, {"μ", 1, 1e6}, // U+00B5 micro sign and U+03BC Greek mu
		{"p", 1, 1e12}, {"n", 1, 1e9}, {"u", 1, 1e6}, {"m", 1, 1e3},
		{"k", 1e3, 1}, {"M", 1e6, 1}, {"G", 1e9, 1}, {"T", 1e12, 1},
	} {
		base, found := strings.CutPrefix(sym, p.prefix)
		if !found {
			continue
		}
		u, ok := baseUnit(base)
		if ok && prefixAllowed(p.prefix, base) {
			return unit{p.mul, p.div, u.dim}, true
		}
	}
	return unit{}, false
}

// baseUnit resolves an unprefixed unit symbol.
func baseUnit(sym string) (unit, bool) {
	switch sym {
	case "s":
		return unit{1, 1, Time}, true
	case "B":
		return unit{1, 1, Bytes}, true
	case "flop":
		return unit{1, 1, Flop}, true
	case "mref":
		return unit{1, 1, Mref}, true
	case "Hz":
		return unit{1, 1, Frequency}, true
	}
	return unit{}, false
}

// prefixAllowed says which prefixes each base symbol accepts: submultiples
// for seconds, SI and IEC multiples for bytes, SI multiples for the rest.
func prefixAllowed(prefix, base string) bool {
	switch prefix {
	case "p", "n", "u", "µ", "μ", "m":
		return base == "s"
	case "Ki", "Mi", "Gi", "Ti":
		return base == "B"
	}
	return base != "s" // k M G T
}

// unknownUnitError explains a unit symbol perfc does not accept, with the
// fix for the spellings the papers use (KB, Mbyte, Mflops, usec).
func unknownUnitError(sym string) error {
	lower := strings.ToLower(sym)
	switch {
	case sym == "":
		return fmt.Errorf("missing unit")
	case strings.HasSuffix(sym, "Bps"):
		return perSecondError(sym, strings.TrimSuffix(sym, "Bps"))
	case strings.HasSuffix(sym, "bps"):
		return fmt.Errorf("unit '%s': perfc counts bytes, not bits: 1 %sbit/s is 0.125 %sB/s; write a bandwidth in B/s, such as 1.25GB/s for 10 Gbit/s", sym, strings.TrimSuffix(sym, "bps"), strings.TrimSuffix(sym, "bps"))
	case strings.HasPrefix(sym, "K") && !strings.HasPrefix(sym, "Ki"):
		return fmt.Errorf("unit '%s' is ambiguous: write Ki%s (1024) or k%s (1000)", sym, sym[1:], sym[1:])
	case strings.HasSuffix(lower, "flops"):
		return fmt.Errorf("unit '%s': flop is never pluralised; write a rate as %sflop/s", sym, strings.TrimSuffix(strings.TrimSuffix(sym, "flops"), "FLOPS"))
	case strings.Contains(lower, "byte"):
		return fmt.Errorf("unit '%s': write bytes as B with a prefix, MB (10^6 B) or MiB (2^20 B)", sym)
	case strings.HasSuffix(lower, "sec") || strings.HasSuffix(lower, "secs") || strings.HasPrefix(lower, "second"):
		return fmt.Errorf("unit '%s': write seconds as s, ms, us or ns", sym)
	case !utf8.ValidString(sym) || strings.IndexFunc(sym, func(r rune) bool { return !unicode.IsLetter(r) }) >= 0:
		return fmt.Errorf("bad unit '%s'", sym)
	}
	return fmt.Errorf("unknown unit '%s': want s ms us ns, B kB MB GB KiB MiB GiB, flop Mflop, Hz MHz or mref, joined by / as in us/B or Mflop/s", sym)
}

// perSecondError explains a bandwidth written the networking way, "GBps":
// perfc writes it GB/s, and a K prefix must still say 1000 or 1024.
func perSecondError(sym, prefix string) error {
	if prefix == "K" {
		return fmt.Errorf("unit '%s': write a bandwidth as kB/s (1000 B per second) or KiB/s (1024 B per second)", sym)
	}
	return fmt.Errorf("unit '%s': write a bandwidth as %sB/s", sym, prefix)
}
