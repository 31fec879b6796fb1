// Package units writes numbers for people: counts with grouped digits,
// times, flop rates, byte sizes and bandwidths, each in the unit a reader
// would use at its magnitude (docs/predict.md, "Numbers and units").
//
// Grouping never touches exponent form: a number is either written out in
// full with commas between groups of three digits (1,966,080) or, when it
// is too large to be written out exactly, in scientific notation without
// commas (1.2e+19). Times, rates and sizes keep four significant digits.
// The functions take any float64; a value that is not finite prints as
// NaN, +Inf or -Inf, but callers are expected to refuse such values before
// printing them (costmodel does).
package units

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// maxExactFloat is 2^53: every integer up to it is exactly a float64, so a
// float count up to it is written out in full.
const maxExactFloat = 1 << 53

// maxWrittenOut is 10^18: exact integer counts below it are written out in
// full (at most 24 characters with commas); from it on they are written in
// scientific notation.
var maxWrittenOut = new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)

// countDigits is the number of significant digits of a count that is not
// written out in full.
const countDigits = 7

// Int writes an integer with grouped digits: 1,234,567.
func Int(n int64) string {
	return groupDigits(strconv.FormatInt(n, 10))
}

// Count writes a count held as a float64. An integer that a float64 holds
// exactly (up to 2^53) is written out in full with grouped digits; a larger
// integer in scientific notation with seven significant digits (1e+18,
// 1.2e+19); a fraction (an expected count under a probability, a mean
// size) with seven significant digits, its integer part grouped when it is
// not in exponent form (2.5, 1,234.568, 1.234568e+07).
func Count(x float64) string {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return nonFinite(x)
	case x == math.Trunc(x) && math.Abs(x) <= maxExactFloat:
		return groupDigits(strconv.FormatFloat(x, 'f', 0, 64))
	}
	s := strconv.FormatFloat(x, 'g', countDigits, 64)
	if strings.ContainsAny(s, "e") {
		return s
	}
	return groupDigits(s)
}

// ExactCount writes an exact count: an integer below 10^18 in full with
// grouped digits, a larger one in scientific notation with seven
// significant digits, and a fraction as Count does.
func ExactCount(r *big.Rat) string {
	if r == nil {
		return "0"
	}
	if r.IsInt() {
		n := r.Num()
		if new(big.Int).Abs(n).Cmp(maxWrittenOut) < 0 {
			return groupDigits(n.String())
		}
		return new(big.Float).SetInt(n).Text('g', countDigits)
	}
	f, _ := r.Float64()
	return Count(f)
}

// groupDigits puts commas between groups of three digits of the integer
// part of a decimal number without exponent: -1234567.25 becomes
// -1,234,567.25.
func groupDigits(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
		sign, s = s[:1], s[1:]
	}
	intPart, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i:]
	}
	var b strings.Builder
	b.WriteString(sign)
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	b.WriteString(frac)
	return b.String()
}

// nonFinite writes NaN, +Inf or -Inf.
func nonFinite(x float64) string {
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// scale is a unit of a ladder: a value of at least from (in the base unit,
// after rounding to four significant digits) is written in this unit, as
// a multiple of factor; from is factor unless the ladder says otherwise.
type scale struct {
	factor float64
	name   string
	from   float64
}

// timeScales are the units of a time, smallest first. Below a second the SI
// prefixes step by 1000 (us is written without µ, as the machine tables and
// the papers' ASCII print it). Seconds last up to 10,000 s, so that four
// significant digits still show whole seconds (and the unit machine's
// steps stay exact); then hours up to 48 h, days up to a year, and Julian
// years of 365.25 days.
var timeScales = []scale{
	{1e-9, "ns", 0}, {1e-6, "us", 0}, {1e-3, "ms", 0}, {1, "s", 0},
	{3600, "h", 1e4}, {86400, "days", 48 * 3600}, {365.25 * 86400, "years", 0},
}

// rateScales are the units of a flop rate (PARKBENCH writes Mflop/s; larger
// and smaller rates take the neighbouring decimal prefixes).
var rateScales = []scale{
	{1, "flop/s", 0}, {1e3, "kflop/s", 0}, {1e6, "Mflop/s", 0}, {1e9, "Gflop/s", 0},
	{1e12, "Tflop/s", 0}, {1e15, "Pflop/s", 0}, {1e18, "Eflop/s", 0},
}

// bandwidthScales are the units of a bandwidth: decimal, as the papers and
// the machine tables write MB/s.
var bandwidthScales = []scale{
	{1, "B/s", 0}, {1e3, "kB/s", 0}, {1e6, "MB/s", 0}, {1e9, "GB/s", 0}, {1e12, "TB/s", 0}, {1e15, "PB/s", 0},
}

// sizeScales are the units of a memory size: binary, as cache and memory
// sizes are.
var sizeScales = []scale{
	{1, "B", 0}, {1 << 10, "KiB", 0}, {1 << 20, "MiB", 0}, {1 << 30, "GiB", 0}, {1 << 40, "TiB", 0},
	{1 << 50, "PiB", 0}, {1 << 60, "EiB", 0},
}

// Time writes a time given in seconds with four significant digits: in ns,
// us, ms or s below 10,000 s (the largest that keeps the number at least
// 1), in h below 48 h, in days below a year, and in years beyond: 85 s is
// "85 s", 9999 s "9999 s", 5.8e+05 s "6.713 days", 0 is "0 s". Times of
// more than 9,999 years keep years and an exponent (1.838e+04 years);
// times below 1 ns keep ns (0.001 ns).
func Time(s float64) string {
	if s == 0 {
		return "0 s"
	}
	return onScale(s, timeScales)
}

// Rate writes a flop rate given in flop/s with four significant digits:
// 3.448 Mflop/s, 21.72 Gflop/s, 512 kflop/s.
func Rate(flopPerSecond float64) string {
	if flopPerSecond == 0 {
		return "0 Mflop/s"
	}
	return onScale(flopPerSecond, rateScales)
}

// Bandwidth writes a bandwidth given in B/s with four significant digits
// and decimal prefixes: 50 MB/s, 1.2 GB/s.
func Bandwidth(bytesPerSecond float64) string {
	if bytesPerSecond == 0 {
		return "0 MB/s"
	}
	return onScale(bytesPerSecond, bandwidthScales)
}

// Size writes a memory size in bytes with four significant digits and
// binary prefixes: 512 B, 64 KiB, 76.29 MiB.
func Size(bytes float64) string {
	if bytes == 0 {
		return "0 B"
	}
	return onScale(bytes, sizeScales)
}

// Bytes writes an exact byte count in full and, from 1 KiB on, its size in
// binary units: "512 B", "80,000,000 B (76.29 MiB)".
func Bytes(n int64) string {
	if n > -1024 && n < 1024 {
		return Int(n) + " B"
	}
	return Int(n) + " B (" + Size(float64(n)) + ")"
}

// onScale writes x with four significant digits in the largest unit of
// the ladder whose start its magnitude reaches (the smallest unit when it
// reaches none), or in the next unit when rounding reaches that one's
// start: 999.96 us prints as "1 ms", not "1000 us".
func onScale(x float64, ladder []scale) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nonFinite(x) + " " + ladder[0].name
	}
	a := math.Abs(x)
	i := 0
	for j, s := range ladder {
		if a >= s.start() {
			i = j
		}
	}
	if i+1 < len(ladder) && rounded4(a/ladder[i].factor)*ladder[i].factor >= ladder[i+1].start() {
		i++ // 999.96 us rounds to 1000 us: write "1 ms"
	}
	return strconv.FormatFloat(x/ladder[i].factor, 'g', 4, 64) + " " + ladder[i].name
}

// start is the smallest value, in the base unit, written in this unit.
func (s scale) start() float64 {
	if s.from != 0 {
		return s.from
	}
	return s.factor
}

// rounded4 rounds to four significant digits, as the writers print.
func rounded4(x float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 4, 64), 64)
	return r
}

// Number writes a dimensionless value with four significant digits, in
// exponent form only when it is very large or very small: 0.1724, 1.724e-09.
func Number(x float64) string {
	return strconv.FormatFloat(x, 'g', 4, 64)
}

// TableNumber writes x with four significant digits and never an exponent,
// trailing zeros dropped: the number syntax of a machine table
// (docs/machines.md, "Units"), which reads 0.000135 but not 1.35e-04.
// perfc calibrate writes every fitted value with it.
func TableNumber(x float64) string {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return "0"
	}
	d := max(0, 3-int(math.Floor(math.Log10(math.Abs(x)))))
	s := strconv.FormatFloat(x, 'f', d, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
