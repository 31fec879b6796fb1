package lang

import (
	"math/big"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseLiterals: integer literals are decimal or 0x hex with
// underscores between digits; there is no octal.
func TestParseLiterals(t *testing.T) {
	tests := []struct {
		text string
		want string // value, or "error"
	}{
		{"1024", "1024"}, {"20_000_000", "20000000"}, {"0x40", "64"}, {"0X4_0", "64"},
		{"010", "10"}, {"08", "8"}, {"1__0", "error"}, {"1_", "error"}, {"0x", "error"},
		{"0xg", "error"}, {"-1", "error"},
	}
	for _, tt := range tests {
		v, err := parseIntLit(tt.text)
		got := v.String()
		if err != nil {
			got = "error"
		}
		if got != tt.want {
			t.Errorf("parseIntLit(%q) = %s, want %s", tt.text, got, tt.want)
		}
	}
}

// TestParseOverride: -D values take the kind of the parameter.
func TestParseOverride(t *testing.T) {
	tests := []struct {
		value string
		typ   Type
		want  string // value, or the error
	}{
		{"1024", IntType, "1024"},
		{"-3", IntType, "-3"},
		{"1_000", IntType, "1000"},
		{"0x10", IntType, "16"},
		{"1e6", IntType, "1000000"},
		{" 7 ", IntType, "7"},
		{"2.5", IntType, "N=2.5: N is an integer parameter; give a whole number"},
		{"9223372036854775808", IntType, "N=9223372036854775808: the value does not fit a 64-bit integer"},
		{"3", FloatType, "3.0"},
		{"2.5", FloatType, "2.5"},
		{"inf", FloatType, "N=inf: 'inf' is not a number"},
		{"NaN", IntType, "N=NaN: 'NaN' is not a number"},
		{"", IntType, "N=: '' is not a number"},
		{"1/2", FloatType, "N=1/2: '1/2' is not a number"},
	}
	for _, tt := range tests {
		v, err := parseOverride(Override{Name: "N", Value: tt.value}, tt.typ)
		got := v.String()
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("parseOverride(%q, %s) = %s, want %s", tt.value, tt.typ, got, tt.want)
		}
	}
}

// TestValueOps covers operations whose edge cases the kernel tests reach
// only indirectly: limits, rounding of negative rationals, conversions.
func TestValueOps(t *testing.T) {
	r := func(a, b int64) Value { return MakeRat(big.NewRat(a, b)) }
	tests := []struct {
		name string
		run  func() (Value, error)
		want string
	}{
		{"floor -7/2", func() (Value, error) { return roundValue(r(-7, 2), false) }, "-4"},
		{"ceil -7/2", func() (Value, error) { return roundValue(r(-7, 2), true) }, "-3"},
		{"floor -2.5", func() (Value, error) { return roundValue(MakeFloat(-2.5), false) }, "-3"},
		{"rem of a rational", func() (Value, error) { return binaryOp(Rem, r(7, 2), MakeInt(2)) }, "3/2"},
		{"rem by negative", func() (Value, error) { return binaryOp(Rem, MakeInt(-7), MakeInt(-3)) }, "2"},
		{"shift past the limit", func() (Value, error) { return binaryOp(Shl, MakeInt(1), MakeInt(5000)) }, "error"},
		{"shift right far", func() (Value, error) { return binaryOp(Shr, MakeInt(-5), MakeInt(1<<40)) }, "-1"},
		{"negative shift", func() (Value, error) { return binaryOp(Shl, MakeInt(1), MakeInt(-1)) }, "error"},
		{"xor of a fraction", func() (Value, error) { return binaryOp(Xor, r(1, 2), MakeInt(1)) }, "error"},
		{"int vs float compare", func() (Value, error) { return binaryOp(Lss, r(1, 3), MakeFloat(0.3333)) }, "false"},
		{"int plus float", func() (Value, error) { return binaryOp(Add, MakeInt(1), MakeFloat(0.5)) }, "1.5"},
		{"float overflow", func() (Value, error) { return binaryOp(Mul, MakeFloat(1e300), MakeFloat(1e300)) }, "error"},
		{"floor log2 of 1/3", func() (Value, error) { return log2Value(r(1, 3), -1) }, "-2"},
		{"ceil log2 of 1/3", func() (Value, error) { return log2Value(r(1, 3), 1) }, "-1"},
		{"log2 of 1/4", func() (Value, error) { return log2Value(r(1, 4), 0) }, "-2"},
		{"log2 of 0", func() (Value, error) { return log2Value(MakeInt(0), -1) }, "error"},
		{"i32 overflow", func() (Value, error) { return convertValue(I32, MakeInt(1<<31)) }, "error"},
		{"i32 minimum", func() (Value, error) { return convertValue(I32, MakeInt(-1<<31)) }, "-2147483648"},
		{"i64 truncates", func() (Value, error) { return convertValue(I64, MakeFloat(-2.9)) }, "-2"},
		{"f32 overflow", func() (Value, error) { return convertValue(F32, MakeFloat(1e300)) }, "error"},
		{"min keeps kind", func() (Value, error) { return minMax(false, []Value{MakeInt(3), MakeInt(2)}) }, "2"},
		{"sqrt of negative", func() (Value, error) { return mathFunc("sqrt", MakeInt(-1)) }, "error"},
		{"conform i32", func() (Value, error) { return conform(I32Type, MakeInt(1<<40)) }, "error"},
		{"conform f32", func() (Value, error) { return conform(F32Type, MakeInt(1)) }, "1.0"},
	}
	for _, tt := range tests {
		v, err := tt.run()
		got := v.String()
		if err != nil {
			got = "error"
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}
