package comms

import (
	"math"
	"strconv"

	"perfc/internal/units"
)

// The formatters write quantities as machine tables read them (docs/
// machines.md, "Units"): four significant digits, no exponent, the unit
// joined to the number, in the unit that keeps the number readable.

// sig4 writes v in a machine table's number syntax (units.TableNumber).
func sig4(v float64) string { return units.TableNumber(v) }

// scaled writes v (in the base unit) in the first unit of the list, largest
// first, in which it is at least 1; the last unit takes anything smaller.
func scaled(v float64, units []string, factors []float64) string {
	for i, f := range factors {
		if math.Abs(v) >= f || i == len(factors)-1 {
			return sig4(v/f) + units[i]
		}
	}
	return "0" + units[len(units)-1]
}

// fmtTime writes seconds: "0.135us" is written 135ns.
func fmtTime(s float64) string {
	if s == 0 {
		return "0us"
	}
	return scaled(s, []string{"s", "ms", "us", "ns", "ps"}, []float64{1, 1e-3, 1e-6, 1e-9, 1e-12})
}

// fmtPerByte writes seconds per byte (ns/B, ps/B).
func fmtPerByte(s float64) string {
	return scaled(s, []string{"us/B", "ns/B", "ps/B"}, []float64{1e-6, 1e-9, 1e-12})
}

// fmtRate writes bytes per second in decimal units (GB/s), as the
// PARKBENCH tables print bandwidths.
func fmtRate(bps float64) string {
	return scaled(bps, []string{"TB/s", "GB/s", "MB/s", "kB/s", "B/s"}, []float64{1e12, 1e9, 1e6, 1e3, 1})
}

// fmtBytes writes a length in bytes, in binary units when it is a whole
// number of them (16KiB), else in bytes.
func fmtBytes(n float64) string {
	for _, u := range []struct {
		name string
		f    float64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.f && math.Mod(n, u.f/4) == 0 {
			return sig4(n/u.f) + u.name
		}
	}
	return sig4(math.Round(n)) + "B"
}

// percent writes a fraction as a percentage with one decimal.
func percent(f float64) string {
	return strconv.FormatFloat(100*f, 'f', 1, 64) + "%"
}
