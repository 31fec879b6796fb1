package machines

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// approx compares floats to a relative 1e-12, enough for unit scaling.
var approx = cmpopts.EquateApprox(1e-12, 0)

func TestParseQuantity(t *testing.T) {
	tests := []struct {
		text string
		want Quantity
	}{
		{"54us", Quantity{54e-6, Time}},
		{"54 us", Quantity{54e-6, Time}},
		{"84.65µs", Quantity{84.65e-6, Time}}, // U+00B5 micro sign
		{"84.65μs", Quantity{84.65e-6, Time}}, // U+03BC Greek mu
		{"120ns", Quantity{120e-9, Time}},
		{"1.0ms", Quantity{1e-3, Time}},
		{"2s", Quantity{2, Time}},
		{"64KiB", Quantity{65536, Bytes}},
		{"64kB", Quantity{64000, Bytes}},
		{"16MB", Quantity{16e6, Bytes}},
		{"1MiB", Quantity{1 << 20, Bytes}},
		{"2GiB", Quantity{2 << 30, Bytes}},
		{"1.593474e5B", Quantity{159347.4, Bytes}},
		{"50MB/s", Quantity{50e6, Bandwidth}},
		{"726.2842MiB/s", Quantity{726.2842 * (1 << 20), Bandwidth}},
		{"0.117us/B", Quantity{0.117e-6, InvBandwidth}},
		{"11Mflop/s", Quantity{11e6, Rate}},
		{"1.5Gflop/s", Quantity{1.5e9, Rate}},
		{"0.5us/flop", Quantity{0.5e-6, TimePerFlop}},
		{"13.5kHz", Quantity{13500, Frequency}},
		{"0.44flop/mref", Quantity{0.44, Intensity}},
		{"2.131590e5flop", Quantity{213159, Flop}},
		{"2", Quantity{2, Dimensionless}},
		{"2.5e+3B", Quantity{2500, Bytes}},
		{".5us", Quantity{0.5e-6, Time}},
		{"3B*flop/s^2", Quantity{3, Bytes.Mul(Flop).Div(Time.Pow(2))}},
	}
	for _, tt := range tests {
		got, err := ParseQuantity(tt.text)
		if err != nil {
			t.Errorf("ParseQuantity(%q): %v", tt.text, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got, approx); diff != "" {
			t.Errorf("ParseQuantity(%q) (-want +got):\n%s", tt.text, diff)
		}
	}
}

func TestParseQuantityErrors(t *testing.T) {
	tests := []struct{ text, want string }{
		{"64KB", `unit 'KB' is ambiguous: write KiB (1024) or kB (1000)`},
		{"10Mflops", `flop is never pluralised; write a rate as Mflop/s`},
		{"5Mbyte", `write bytes as B with a prefix, MB (10^6 B) or MiB (2^20 B)`},
		{"3usec", `write seconds as s, ms, us or ns`},
		{"3sec", `unit 'sec': write seconds as s, ms, us or ns`},
		{"3seconds", `unit 'seconds': write seconds as s, ms, us or ns`},
		{"1GBps", `unit 'GBps': write a bandwidth as GB/s`},
		{"20MBps", `unit 'MBps': write a bandwidth as MB/s`},
		{"100Bps", `unit 'Bps': write a bandwidth as B/s`},
		{"5KBps", `unit 'KBps': write a bandwidth as kB/s (1000 B per second) or KiB/s (1024 B per second)`},
		{"10Gbps", `unit 'Gbps': perfc counts bytes, not bits: 1 Gbit/s is 0.125 GB/s`},
		{"64KB", `unit 'KB' is ambiguous: write KiB (1024) or kB (1000)`},
		{"us", `want a number followed by a unit`},
		{"", `want a number followed by a unit`},
		{"5Ms", `unknown unit 'Ms'`},
		{"5KiHz", `unknown unit 'KiHz'`},
		{"5 furlongs", `unknown unit 'furlongs'`},
		{"1s^x", `bad power 'x'`},
		{"1s^20", `bad power '20'`},
		{"1B/", `missing unit`},
	}
	for _, tt := range tests {
		_, err := ParseQuantity(tt.text)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseQuantity(%q) = %v, want an error containing %q", tt.text, err, tt.want)
		}
	}
}

func TestQuantityString(t *testing.T) {
	tests := []struct {
		q    Quantity
		want string
	}{
		{Quantity{54e-6, Time}, "54us"},
		{Quantity{1e-3, Time}, "1ms"},
		{Quantity{120e-9, Time}, "120ns"},
		{Quantity{0, Time}, "0us"},
		{Quantity{1.5, Time}, "1.5s"},
		{Quantity{65536, Bytes}, "64KiB"},
		{Quantity{16e6, Bytes}, "16MB"},
		{Quantity{1500, Bytes}, "1.5kB"},
		{Quantity{159347.4, Bytes}, "159347.4B"},
		{Quantity{50e6, Bandwidth}, "50MB/s"},
		{Quantity{0.117e-6, InvBandwidth}, "117ns/B"},
		{Quantity{11e6, Rate}, "11Mflop/s"},
		{Quantity{13500, Frequency}, "13.5kHz"},
		{Quantity{0.44, Intensity}, "0.44flop/mref"},
		{Quantity{2, Dimensionless}, "2"},
		{Quantity{3, Bytes.Mul(Flop)}, "3B*flop"},
	}
	for _, tt := range tests {
		if got := tt.q.String(); got != tt.want {
			t.Errorf("%v.String() = %q, want %q", tt.q, got, tt.want)
		}
	}
}

// TestQuantityRoundTrip checks that printing and parsing back gives the
// same quantity, for values across many magnitudes and every named unit.
func TestQuantityRoundTrip(t *testing.T) {
	dims := []Dim{Dimensionless, Time, Bytes, Flop, Mref, Bandwidth, InvBandwidth, Rate, TimePerFlop, Frequency, Intensity, Bytes.Mul(Time)}
	for _, d := range dims {
		for _, v := range []float64{0, 1e-13, 3.7e-9, 84.65e-6, 0.117, 1, 42, 65536, 1.593474e5, 7.262842e8, 1.2345678901e12} {
			q := Quantity{v, d}
			s := q.String()
			back, err := ParseQuantity(s)
			if err != nil {
				t.Errorf("ParseQuantity(%q) from %v: %v", s, q, err)
				continue
			}
			if back.Dim != d || math.Abs(back.Value-v) > 1e-9*math.Abs(v) {
				t.Errorf("%v printed as %q reads back as %v", q, s, back)
			}
		}
	}
}

func TestDim(t *testing.T) {
	tests := []struct {
		got, want Dim
		str, name string
	}{
		{Bytes.Div(Time), Bandwidth, "B/s", "a bandwidth"},
		{Time.Div(Bytes), InvBandwidth, "s/B", "a time per byte"},
		{Rate.Mul(TimePerFlop), Dimensionless, "1", "a number"},
		{Time.Pow(-1), Frequency, "1/s", "a frequency"},
		{Flop.Div(Mref), Intensity, "flop/mref", "an intensity in flop/mref"},
		{Bandwidth.Mul(Bandwidth), Bytes.Pow(2).Div(Time.Pow(2)), "B^2/s^2", "a quantity in B^2/s^2"},
		{InvBandwidth.Pow(-1), Bandwidth, "B/s", "a bandwidth"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got dimension %v, want %v", tt.got, tt.want)
		}
		if s := tt.got.String(); s != tt.str {
			t.Errorf("%v.String() = %q, want %q", tt.want, s, tt.str)
		}
		if s := tt.got.Describe(); s != tt.name {
			t.Errorf("%v.Describe() = %q, want %q", tt.want, s, tt.name)
		}
	}
}
