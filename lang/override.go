package lang

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// parseOverride converts the text of -D NAME=VALUE to a value of the
// parameter's type. An integer parameter takes an integer (decimal, 0x
// hex, underscores between digits, or a float spelling of a whole number
// such as 1e6); a float parameter takes any finite number.
func parseOverride(ov Override, t Type) (Value, error) {
	text := strings.TrimSpace(ov.Value)
	if n, ok := parseSignedInt(text); ok {
		if t == FloatType {
			f, _ := new(big.Rat).SetInt(n).Float64()
			return makeFloatChecked(f, ov.Name+"="+ov.Value)
		}
		if !n.IsInt64() {
			return Value{}, fmt.Errorf("%s=%s: the value does not fit a 64-bit integer", ov.Name, ov.Value)
		}
		return MakeInt(n.Int64()), nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return Value{}, fmt.Errorf("%s=%s: '%s' is not a number", ov.Name, ov.Value, ov.Value)
	}
	if t == FloatType {
		return MakeFloat(f), nil
	}
	if f != math.Trunc(f) {
		return Value{}, fmt.Errorf("%s=%s: %s is an integer parameter; give a whole number", ov.Name, ov.Value, ov.Name)
	}
	if f < math.MinInt64 || f >= math.MaxInt64 {
		return Value{}, fmt.Errorf("%s=%s: the value does not fit a 64-bit integer", ov.Name, ov.Value)
	}
	return MakeInt(int64(f)), nil
}

// parseSignedInt parses an integer literal with an optional sign.
func parseSignedInt(text string) (*big.Int, bool) {
	neg := false
	if strings.HasPrefix(text, "-") || strings.HasPrefix(text, "+") {
		neg, text = text[0] == '-', text[1:]
	}
	if text == "" || text[0] < '0' || text[0] > '9' {
		return nil, false
	}
	v, err := parseIntLit(text)
	if err != nil {
		return nil, false
	}
	n := v.rat.Num()
	if neg {
		n = new(big.Int).Neg(n)
	}
	return n, true
}
