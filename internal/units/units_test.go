package units

import (
	"fmt"
	"math"
	"math/big"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	goldenfile "perfc/internal/golden"
)

func TestCount(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0"},
		{1, "1"},
		{999, "999"},
		{1000, "1,000"},
		{-1234567, "-1,234,567"},
		{1966080, "1,966,080"},
		{1e7, "10,000,000"},
		{1 << 53, "9,007,199,254,740,992"},
		{1<<53 + 2, "9.007199e+15"},
		{1e16, "1e+16"},
		{1e18, "1e+18"},
		{1.2e19, "1.2e+19"},
		{2.5, "2.5"},
		{0.5, "0.5"},
		{1.0 / 3, "0.3333333"},
		{1234.5678, "1,234.568"},
		{1234567.5, "1,234,568"},
		{12345678.5, "1.234568e+07"},
		{2.5e-5, "2.5e-05"},
		{math.Inf(1), "+Inf"},
		{math.NaN(), "NaN"},
	}
	for _, tt := range tests {
		if got := Count(tt.in); got != tt.want {
			t.Errorf("Count(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestExactCount(t *testing.T) {
	big10 := func(e int64) *big.Rat {
		return new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(e), nil))
	}
	tests := []struct {
		in   *big.Rat
		want string
	}{
		{nil, "0"},
		{big.NewRat(0, 1), "0"},
		{big.NewRat(1966080, 1), "1,966,080"},
		{big.NewRat(5, 2), "2.5"},
		{big10(17), "100,000,000,000,000,000"},
		{new(big.Rat).Sub(big10(18), big.NewRat(1, 1)), "999,999,999,999,999,999"},
		{big10(18), "1e+18"},
		{big10(400), "1e+400"},
		{new(big.Rat).Neg(big10(20)), "-1e+20"},
	}
	for _, tt := range tests {
		if got := ExactCount(tt.in); got != tt.want {
			t.Errorf("ExactCount(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTime(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0 s"},
		{1e-12, "0.001 ns"},
		{640e-9, "640 ns"},
		{999.96e-6, "1 ms"},
		{584.6e-6, "584.6 us"},
		{5.8, "5.8 s"},
		{-2.096e-3, "-2.096 ms"},
		{59.996, "60 s"},
		{90, "90 s"},
		{3600, "3600 s"},
		{9999.4, "9999 s"},
		{9999.6, "2.778 h"},
		{47.99 * 3600, "47.99 h"},
		{48 * 3600, "2 days"},
		{161.1 * 3600, "6.713 days"},
		{365.2 * 86400, "365.2 days"},
		{5.8e5, "6.713 days"},
		{5.8e8, "18.38 years"},
		{5.8e11, "1.838e+04 years"},
		{math.Inf(1), "+Inf ns"},
	}
	for _, tt := range tests {
		if got := Time(tt.in); got != tt.want {
			t.Errorf("Time(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRatesAndSizes(t *testing.T) {
	tests := []struct {
		name string
		f    func(float64) string
		in   float64
		want string
	}{
		{"rate", Rate, 0, "0 Mflop/s"},
		{"rate", Rate, 3.448e6, "3.448 Mflop/s"},
		{"rate", Rate, 2.172e10, "21.72 Gflop/s"},
		{"rate", Rate, 999.99e6, "1 Gflop/s"},
		{"rate", Rate, 5.12e5, "512 kflop/s"},
		{"rate", Rate, 0.25, "0.25 flop/s"},
		{"rate", Rate, 3.2e13, "32 Tflop/s"},
		{"bandwidth", Bandwidth, 50e6, "50 MB/s"},
		{"bandwidth", Bandwidth, 1.2e9, "1.2 GB/s"},
		{"size", Size, 512, "512 B"},
		{"size", Size, 65536, "64 KiB"},
		{"size", Size, 8e7, "76.29 MiB"},
		{"size", Size, 2.4e19, "20.82 EiB"},
	}
	for _, tt := range tests {
		if got := tt.f(tt.in); got != tt.want {
			t.Errorf("%s(%v) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
}

func TestBytes(t *testing.T) {
	tests := []struct {
		in   int64
		want string
	}{
		{0, "0 B"},
		{1023, "1,023 B"},
		{1024, "1,024 B (1 KiB)"},
		{80000000, "80,000,000 B (76.29 MiB)"},
		{math.MaxInt64, "9,223,372,036,854,775,807 B (8 EiB)"},
	}
	for _, tt := range tests {
		if got := Bytes(tt.in); got != tt.want {
			t.Errorf("Bytes(%d) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestCountsGolden writes every power of ten from 1 to 10^18 and some odd
// values with each writer of a count, and compares the lines with
// testdata/counts.golden; no line may have a comma inside or after an
// exponent.
func TestCountsGolden(t *testing.T) {
	var values []*big.Int
	ten := big.NewInt(10)
	p := big.NewInt(1)
	for e := 0; e <= 18; e++ {
		values = append(values, new(big.Int).Set(p))
		p = new(big.Int).Mul(p, ten)
	}
	for _, s := range []string{"7", "42", "65536", "1966080", "123456789", "9007199254740991", "9007199254740992",
		"9007199254740993", "31415926535897932", "999999999999999999", "9223372036854775807"} {
		v, _ := new(big.Int).SetString(s, 10)
		values = append(values, v)
	}
	var b strings.Builder
	fmt.Fprintln(&b, "value | Count(float64) | ExactCount | Int | Time(value ns) | Rate(value flop/s) | Bytes")
	for _, v := range values {
		f, _ := new(big.Float).SetInt(v).Float64()
		line := fmt.Sprintf("%s | %s | %s | %s | %s | %s | %s", v, Count(f), ExactCount(new(big.Rat).SetInt(v)),
			Int(v.Int64()), Time(f*1e-9), Rate(f), Bytes(v.Int64()))
		for _, num := range exponentForm.FindAllString(line, -1) {
			if strings.Contains(num, ",") {
				t.Errorf("%s: a comma in exponent form: %q", v, num)
			}
		}
		fmt.Fprintln(&b, line)
	}
	golden(t, "counts.golden", b.String())
}

// exponentForm matches a number in exponent form with the digits, commas,
// points and signs around its exponent (1e,+07 included).
var exponentForm = regexp.MustCompile(`[0-9][0-9,.]*e[0-9,+-]*[0-9]`)

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}

// TestTableNumber checks the machine-table number syntax: four significant
// digits, never an exponent, no trailing zeros.
func TestTableNumber(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want string
	}{
		{0, "0"}, {0.000135, "0.000135"}, {1.5e-9, "0.0000000015"}, {1234.5678, "1235"},
		{0.1, "0.1"}, {170e9, "170000000000"}, {-2.25, "-2.25"}, {math.NaN(), "0"},
	} {
		if got := TableNumber(tc.x); got != tc.want {
			t.Errorf("TableNumber(%g) = %q, want %q", tc.x, got, tc.want)
		}
	}
}
