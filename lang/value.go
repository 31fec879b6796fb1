package lang

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// ValueKind is the kind of a static Value.
type ValueKind uint8

const (
	InvalidValue ValueKind = iota // the zero Value: unknown (after an error)
	IntValue                      // an exact rational from integer arithmetic
	FloatValue                    // a float64
	BoolValue                     // a comparison result
)

// Value is an exact static value. Integer-kind values are rationals
// (math/big.Rat), so that `/` is exact and floor and ceil round the exact
// quotient; the checker makes sure that a non-integer quotient only ever
// reaches floor or ceil. Floats are float64 and always finite; bools come
// from comparisons. Values are immutable: operations return new values and
// never modify the rational of an operand.
type Value struct {
	kind ValueKind
	rat  *big.Rat // IntValue
	f    float64  // FloatValue
	b    bool     // BoolValue
}

// maxValueBits bounds the numerator and denominator of integer values, so
// that a kernel like `1 << (1 << 40)` is an error instead of a hang.
const maxValueBits = 4096

// errTooLarge is returned when an integer value exceeds maxValueBits.
var errTooLarge = errors.New("the value is too large (over 4096 bits)")

// MakeInt returns the integer value x.
func MakeInt(x int64) Value { return Value{kind: IntValue, rat: new(big.Rat).SetInt64(x)} }

// MakeRat returns the exact rational value x (copied).
func MakeRat(x *big.Rat) Value { return Value{kind: IntValue, rat: new(big.Rat).Set(x)} }

// MakeFloat returns the float value x.
func MakeFloat(x float64) Value { return Value{kind: FloatValue, f: x} }

// MakeBool returns the boolean value x.
func MakeBool(x bool) Value { return Value{kind: BoolValue, b: x} }

// makeRatOwned wraps r without copying; r must not be shared. It checks the
// size limit so that every arithmetic result stays bounded.
func makeRatOwned(r *big.Rat) (Value, error) {
	if r.Num().BitLen() > maxValueBits || r.Denom().BitLen() > maxValueBits {
		return Value{}, errTooLarge
	}
	return Value{kind: IntValue, rat: r}, nil
}

// makeFloatChecked rejects infinities and NaNs, which a static value never
// holds: they mean an overflow or a domain error such as sqrt(-1).
func makeFloatChecked(f float64, what string) (Value, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return Value{}, fmt.Errorf("%s is not a finite number", what)
	}
	return MakeFloat(f), nil
}

// Kind returns the kind of v.
func (v Value) Kind() ValueKind { return v.kind }

// IsValid reports whether v holds a value.
func (v Value) IsValid() bool { return v.kind != InvalidValue }

// IsInt reports whether v is an integer-kind value with an integral value.
func (v Value) IsInt() bool { return v.kind == IntValue && v.rat.IsInt() }

// Int64 returns the value of an integral integer-kind v, and false when v
// is not one or does not fit an int64.
func (v Value) Int64() (int64, bool) {
	if !v.IsInt() || !v.rat.Num().IsInt64() {
		return 0, false
	}
	return v.rat.Num().Int64(), true
}

// Rat returns a copy of the exact value of a number (a float converts
// exactly), or nil for a bool or an invalid value.
func (v Value) Rat() *big.Rat {
	switch v.kind {
	case IntValue:
		return new(big.Rat).Set(v.rat)
	case FloatValue:
		return new(big.Rat).SetFloat64(v.f)
	}
	return nil
}

// Float64 returns the nearest float64 of a number (0 for other kinds).
func (v Value) Float64() float64 {
	switch v.kind {
	case IntValue:
		f, _ := v.rat.Float64()
		return f
	case FloatValue:
		return v.f
	}
	return 0
}

// Bool returns the value of a bool (false for other kinds).
func (v Value) Bool() bool { return v.kind == BoolValue && v.b }

// String formats v as the language writes it: 256, 1000/3, 0.5, true.
func (v Value) String() string {
	switch v.kind {
	case IntValue:
		return v.rat.RatString()
	case FloatValue:
		s := strconv.FormatFloat(v.f, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eEn") {
			s += ".0" // keep floats recognisable: 2.0, not 2
		}
		return s
	case BoolValue:
		return strconv.FormatBool(v.b)
	}
	return "<invalid>"
}

// Equal reports whether v and w are the same kind with the same value (it
// lets go-cmp compare Values).
func (v Value) Equal(w Value) bool {
	if v.kind != w.kind {
		return false
	}
	switch v.kind {
	case IntValue:
		return v.rat.Cmp(w.rat) == 0
	case FloatValue:
		return v.f == w.f
	case BoolValue:
		return v.b == w.b
	}
	return true
}

// sign returns -1, 0 or +1 for a number.
func (v Value) sign() int {
	if v.kind == FloatValue {
		switch {
		case v.f < 0:
			return -1
		case v.f > 0:
			return 1
		}
		return 0
	}
	return v.rat.Sign()
}

// isNumber reports whether v is an int or a float value.
func (v Value) isNumber() bool { return v.kind == IntValue || v.kind == FloatValue }

// ---------------------------------------------------------------------------
// Literals

// parseIntLit returns the value of an integer literal: decimal digits or a
// 0x prefix, with underscores between digits. There are no octal literals,
// so 010 is ten.
func parseIntLit(text string) (Value, error) {
	digits, base := text, 10
	if len(text) > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X') {
		digits, base = text[2:], 16
	}
	if !validUnderscores(digits) {
		return Value{}, fmt.Errorf("malformed integer %s", text)
	}
	n, ok := new(big.Int).SetString(strings.ReplaceAll(digits, "_", ""), base)
	if !ok || strings.HasPrefix(digits, "+") || strings.HasPrefix(digits, "-") {
		return Value{}, fmt.Errorf("malformed integer %s", text)
	}
	return makeRatOwned(new(big.Rat).SetInt(n))
}

// validUnderscores reports whether every underscore in s stands between two
// digits, as in 20_000_000.
func validUnderscores(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '_' && (i == 0 || i == len(s)-1 || s[i-1] == '_' || s[i+1] == '_') {
			return false
		}
	}
	return true
}

// parseFloatLit returns the value of a float literal such as 0.5 or 1e-6.
func parseFloatLit(text string) (Value, error) {
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return Value{}, fmt.Errorf("malformed or out-of-range float %s", text)
	}
	return MakeFloat(f), nil
}

// ---------------------------------------------------------------------------
// Operators

// unaryOp applies -x or !x.
func unaryOp(op UnaryOp, x Value) (Value, error) {
	switch {
	case op == Not && x.kind == BoolValue:
		return MakeBool(!x.b), nil
	case op == Neg && x.kind == IntValue:
		return Value{kind: IntValue, rat: new(big.Rat).Neg(x.rat)}, nil
	case op == Neg && x.kind == FloatValue:
		return MakeFloat(-x.f), nil
	}
	return Value{}, fmt.Errorf("operator %s is not defined on %s", op, x)
}

// binaryOp applies x op y for every operator except && and ||, which the
// callers evaluate lazily. An int mixed with a float gives a float, as
// static values convert; comparisons of an int with a float are exact.
func binaryOp(op BinaryOp, x, y Value) (Value, error) {
	switch {
	case op.IsComparison():
		return compareOp(op, x, y)
	case !x.isNumber() || !y.isNumber():
		return Value{}, fmt.Errorf("operator %s needs numbers, not %s and %s", op, x, y)
	case x.kind == IntValue && y.kind == IntValue:
		return intOp(op, x.rat, y.rat)
	}
	return floatOp(op, x.Float64(), y.Float64())
}

// compareOp compares numbers exactly, and bools for equality.
func compareOp(op BinaryOp, x, y Value) (Value, error) {
	var c int
	switch {
	case x.kind == BoolValue && y.kind == BoolValue && (op == Eql || op == Neq):
		return MakeBool((x.b == y.b) == (op == Eql)), nil
	case x.kind == FloatValue && y.kind == FloatValue:
		c = cmpFloat(x.f, y.f)
	case x.isNumber() && y.isNumber():
		c = x.Rat().Cmp(y.Rat())
	default:
		return Value{}, fmt.Errorf("cannot compare %s with %s", x, y)
	}
	var r bool
	switch op {
	case Eql:
		r = c == 0
	case Neq:
		r = c != 0
	case Lss:
		r = c < 0
	case Leq:
		r = c <= 0
	case Gtr:
		r = c > 0
	case Geq:
		r = c >= 0
	}
	return MakeBool(r), nil
}

// cmpFloat is the three-way comparison of finite floats.
func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// intOp is integer-kind arithmetic on exact rationals. `/` is exact, `%`
// is the Euclidean remainder, and the bit operators need integers.
func intOp(op BinaryOp, x, y *big.Rat) (Value, error) {
	r := new(big.Rat)
	switch op {
	case Add:
		r.Add(x, y)
	case Sub:
		r.Sub(x, y)
	case Mul:
		r.Mul(x, y)
	case Quo:
		if y.Sign() == 0 {
			return Value{}, errors.New("division by zero")
		}
		r.Quo(x, y)
	case Rem:
		if y.Sign() == 0 {
			return Value{}, errors.New("remainder of a division by zero")
		}
		r = euclidRem(x, y)
	default:
		return bitOp(op, x, y)
	}
	return makeRatOwned(r)
}

// euclidRem returns x - |y|*floor(x/|y|), the remainder in [0, |y|): the
// Euclidean remainder, so that (rank - 1) % P is P - 1 on rank 0.
func euclidRem(x, y *big.Rat) *big.Rat {
	ay := new(big.Rat).Abs(y)
	q := floorRat(new(big.Rat).Quo(x, ay))
	return new(big.Rat).Sub(x, new(big.Rat).Mul(ay, new(big.Rat).SetInt(q)))
}

// bitOp applies << >> & | ^ to integral values; shift counts are bounded
// by maxValueBits so that a shift cannot exhaust memory.
func bitOp(op BinaryOp, x, y *big.Rat) (Value, error) {
	if !x.IsInt() || !y.IsInt() {
		return Value{}, fmt.Errorf("operator %s needs integers, not %s and %s", op, x.RatString(), y.RatString())
	}
	a, b := x.Num(), y.Num()
	n := new(big.Int)
	switch op {
	case Shl, Shr:
		if b.Sign() < 0 {
			return Value{}, fmt.Errorf("negative shift count %s", b)
		}
		if !b.IsInt64() || b.Int64() > maxValueBits {
			if op == Shr || a.Sign() == 0 {
				return makeRatOwned(new(big.Rat).SetInt(n.Rsh(a, maxValueBits+1)))
			}
			return Value{}, errTooLarge
		}
		if op == Shl {
			n.Lsh(a, uint(b.Int64()))
		} else {
			n.Rsh(a, uint(b.Int64()))
		}
	case And:
		n.And(a, b)
	case Or:
		n.Or(a, b)
	case Xor:
		n.Xor(a, b)
	default:
		return Value{}, fmt.Errorf("operator %s is not arithmetic", op)
	}
	return makeRatOwned(new(big.Rat).SetInt(n))
}

// floatOp is float arithmetic; % and the bit operators need integers.
func floatOp(op BinaryOp, x, y float64) (Value, error) {
	var r float64
	switch op {
	case Add:
		r = x + y
	case Sub:
		r = x - y
	case Mul:
		r = x * y
	case Quo:
		if y == 0 {
			return Value{}, errors.New("division by zero")
		}
		r = x / y
	default:
		return Value{}, fmt.Errorf("operator %s needs integers, not floats", op)
	}
	return makeFloatChecked(r, "the result of "+op.String())
}

// ---------------------------------------------------------------------------
// Rounding, logarithms, conversions

// floorRat returns the greatest integer ≤ x. big.Int.Div is Euclidean, and
// a Rat's denominator is positive, so it is the floor.
func floorRat(x *big.Rat) *big.Int {
	return new(big.Int).Div(x.Num(), x.Denom())
}

// roundValue rounds a number down (floor) or up (ceil) to an integer-kind
// value.
func roundValue(x Value, up bool) (Value, error) {
	switch x.kind {
	case IntValue:
		if up {
			n := floorRat(new(big.Rat).Neg(x.rat))
			return makeRatOwned(new(big.Rat).SetInt(n.Neg(n)))
		}
		return makeRatOwned(new(big.Rat).SetInt(floorRat(x.rat)))
	case FloatValue:
		f := math.Floor(x.f)
		if up {
			f = math.Ceil(x.f)
		}
		n, _ := new(big.Float).SetFloat64(f).Int(nil)
		return makeRatOwned(new(big.Rat).SetInt(n))
	}
	return Value{}, fmt.Errorf("cannot round %s", x)
}

// log2Rat returns floor(log2(x)) for a positive rational and whether x is
// an exact power of two.
func log2Rat(x *big.Rat) (k int, exact bool) {
	p, q := x.Num(), x.Denom()
	k = p.BitLen() - q.BitLen()
	// Compare p with q·2^k; the result is floor(log2 x) = k or k-1.
	lp, lq := new(big.Int).Set(p), new(big.Int).Set(q)
	if k >= 0 {
		lq.Lsh(lq, uint(k))
	} else {
		lp.Lsh(lp, uint(-k))
	}
	switch lp.Cmp(lq) {
	case -1:
		return k - 1, false
	case 0:
		return k, true
	}
	return k, false
}

// log2Value is log2 of a number. An integer-kind argument gives an integer:
// exactly when it is a power of two, or rounded when round is floor (-1) or
// ceil (+1); 0 asks for exactness.
func log2Value(x Value, round int) (Value, error) {
	if x.kind == FloatValue {
		if x.f <= 0 {
			return Value{}, fmt.Errorf("log2 of %s: the argument must be positive", x)
		}
		return makeFloatChecked(math.Log2(x.f), "log2")
	}
	if x.kind != IntValue || x.rat.Sign() <= 0 {
		return Value{}, fmt.Errorf("log2 of %s: the argument must be positive", x)
	}
	k, exact := log2Rat(x.rat)
	switch {
	case exact:
	case round < 0:
	case round > 0:
		k++
	default:
		return Value{}, fmt.Errorf("log2(%s) is not an integer", x)
	}
	return MakeInt(int64(k)), nil
}

// mathFunc applies a float intrinsic (sqrt exp log sin cos abs); an
// integer-kind argument is converted to float first, except that abs of an
// integer stays exact.
func mathFunc(name string, x Value) (Value, error) {
	if !x.isNumber() {
		return Value{}, fmt.Errorf("%s needs a number, not %s", name, x)
	}
	if name == "abs" {
		if x.kind == IntValue {
			return Value{kind: IntValue, rat: new(big.Rat).Abs(x.rat)}, nil
		}
		return MakeFloat(math.Abs(x.f)), nil
	}
	f := x.Float64()
	var r float64
	switch name {
	case "sqrt":
		if f < 0 {
			return Value{}, fmt.Errorf("sqrt of the negative number %s", x)
		}
		r = math.Sqrt(f)
	case "exp":
		r = math.Exp(f)
	case "log":
		if f <= 0 {
			return Value{}, fmt.Errorf("log of %s: the argument must be positive", x)
		}
		r = math.Log(f)
	case "sin":
		r = math.Sin(f)
	case "cos":
		r = math.Cos(f)
	default:
		return Value{}, fmt.Errorf("%s is not a math intrinsic", name)
	}
	return makeFloatChecked(r, name+"("+x.String()+")")
}

// minMax returns the least (or greatest) of numbers; the result keeps the
// kind of the chosen argument unless any argument is a float.
func minMax(isMax bool, args []Value) (Value, error) {
	best, anyFloat := args[0], false
	for _, a := range args {
		if !a.isNumber() {
			return Value{}, fmt.Errorf("min and max need numbers, not %s", a)
		}
		anyFloat = anyFloat || a.kind == FloatValue
		c := a.Rat().Cmp(best.Rat())
		if (isMax && c > 0) || (!isMax && c < 0) {
			best = a
		}
	}
	if anyFloat && best.kind == IntValue {
		return MakeFloat(best.Float64()), nil
	}
	return best, nil
}

// convertValue converts a number to an element type: a float type rounds
// to its precision, an integer type needs an integer (a float truncates
// toward zero, as Go converts) that fits.
func convertValue(t ElemType, x Value) (Value, error) {
	if !x.isNumber() {
		return Value{}, fmt.Errorf("cannot convert %s to %s", x, t)
	}
	switch t {
	case F64:
		return makeFloatChecked(x.Float64(), "f64("+x.String()+")")
	case F32:
		return makeFloatChecked(float64(float32(x.Float64())), "f32("+x.String()+")")
	}
	var n *big.Int
	if x.kind == FloatValue {
		n, _ = new(big.Float).SetFloat64(math.Trunc(x.f)).Int(nil)
	} else {
		if !x.rat.IsInt() {
			return Value{}, fmt.Errorf("%s(%s): the argument is not an integer", t, x)
		}
		n = x.rat.Num()
	}
	bits := 64
	if t == I32 {
		bits = 32
	}
	if n.BitLen() > bits-1 && !(n.Sign() < 0 && isMinInt(n, bits)) {
		return Value{}, fmt.Errorf("%s(%s) overflows %s", t, x, t)
	}
	return Value{kind: IntValue, rat: new(big.Rat).SetInt(n)}, nil
}

// isMinInt reports whether n is -2^(bits-1), the one negative value whose
// bit length equals the width.
func isMinInt(n *big.Int, bits int) bool {
	m := new(big.Int).Lsh(big.NewInt(1), uint(bits-1))
	return n.CmpAbs(m) == 0
}
