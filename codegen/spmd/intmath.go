package spmd

// Integer arithmetic with the language's semantics, for the static
// expressions of a kernel that vary by rank or iteration (the constant
// ones are folded by the generator): `%` is the Euclidean remainder,
// floor(a / b) and ceil(a / b) round the exact quotient, log2 of an
// integer is rounded by floor or ceil.

// emod is the Euclidean remainder: in [0, |b|), so (rank - 1) % P is P - 1
// on rank 0.
func emod[T integer](a, b T) T {
	m := a % b
	if m < 0 {
		if b < 0 {
			m -= b
		} else {
			m += b
		}
	}
	return m
}

// floorDiv is floor(a / b) of the exact quotient.
func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// ceilDiv is ceil(a / b) of the exact quotient.
func ceilDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) == (b < 0) {
		q++
	}
	return q
}

// absInt is |x| of an integer.
func absInt[T integer](x T) T {
	if x < 0 {
		return -x
	}
	return x
}

// sel is a select `c ? a : b` whose arms are both evaluated (a data
// condition, where the analyzer counts both arms, or arms that are safe to
// evaluate).
func sel[T any](c bool, a, b T) T {
	if c {
		return a
	}
	return b
}

// floorLog2 is floor(log2(x)) of a positive integer.
func floorLog2(x int) int {
	if x <= 0 {
		panic(domainError("log2 of " + itoa(x) + ": the argument must be positive"))
	}
	k := -1
	for x > 0 {
		x >>= 1
		k++
	}
	return k
}

// ceilLog2 is ceil(log2(x)) of a positive integer.
func ceilLog2(x int) int {
	k := floorLog2(x)
	if x != 1<<k {
		k++
	}
	return k
}

// domainError is an argument outside an intrinsic's domain.
type domainError string

func (e domainError) Error() string { return string(e) }

// ratio is an exact rational number, for integer expressions with a
// quotient inside floor or ceil, such as floor((j + 1) / BS * 2). The
// denominator is positive and the fraction is kept reduced.
type ratio struct{ num, den int }

// ratInt is the integer x as a ratio.
func ratInt(x int) ratio { return ratio{x, 1} }

// norm reduces a fraction and makes its denominator positive.
func norm(num, den int) ratio {
	if den == 0 {
		panic(domainError("integer division by zero"))
	}
	if den < 0 {
		num, den = -num, -den
	}
	a, b := absInt(num), den
	for b != 0 {
		a, b = b, a%b
	}
	if a > 1 {
		num, den = num/a, den/a
	}
	return ratio{num, den}
}

func ratAdd(x, y ratio) ratio { return norm(x.num*y.den+y.num*x.den, x.den*y.den) }
func ratSub(x, y ratio) ratio { return norm(x.num*y.den-y.num*x.den, x.den*y.den) }
func ratMul(x, y ratio) ratio { return norm(x.num*y.num, x.den*y.den) }
func ratQuo(x, y ratio) ratio { return norm(x.num*y.den, x.den*y.num) }

//lint:ignore U1000 used by the generated main.go, which negates ratios with it
func ratNeg(x ratio) ratio { return ratio{-x.num, x.den} }

// ratRem is the Euclidean remainder x - |y|·floor(x/|y|).
func ratRem(x, y ratio) ratio {
	ay := ratio{absInt(y.num), y.den}
	q := ratQuo(x, ay)
	return ratSub(x, ratMul(ay, ratInt(floorDiv(q.num, q.den))))
}

// ratLess reports x < y.
func ratLess(x, y ratio) bool { return x.num*y.den < y.num*x.den }

// ratMin and ratMax pick among ratios.
//
//lint:ignore U1000 used by the generated main.go, which takes min of ratios with it
func ratMin(x ratio, ys ...ratio) ratio {
	for _, y := range ys {
		if ratLess(y, x) {
			x = y
		}
	}
	return x
}

func ratMax(x ratio, ys ...ratio) ratio {
	for _, y := range ys {
		if ratLess(x, y) {
			x = y
		}
	}
	return x
}

// ratAbs is |x|.
//
//lint:ignore U1000 used by the generated main.go, which takes abs of ratios with it
func ratAbs(x ratio) ratio { return ratio{absInt(x.num), x.den} }

// ratFloor and ratCeil round to integers.
func ratFloor(x ratio) int { return floorDiv(x.num, x.den) }
func ratCeil(x ratio) int  { return ceilDiv(x.num, x.den) }

// ratFloorLog2 and ratCeilLog2 round the logarithm of a positive ratio.
func ratFloorLog2(x ratio) int {
	if x.num <= 0 {
		panic(domainError("log2 of a number that is not positive"))
	}
	// floor(log2(num/den)) is k or k-1.
	k := floorLog2(x.num) - floorLog2(x.den)
	if !atLeastPow2(x, k) {
		k--
	}
	return k
}

func ratCeilLog2(x ratio) int {
	k := ratFloorLog2(x)
	if !isPow2(x, k) {
		k++
	}
	return k
}

// atLeastPow2 reports x >= 2^k.
func atLeastPow2(x ratio, k int) bool {
	if k >= 0 {
		return x.num >= x.den<<k
	}
	return x.num<<-k >= x.den
}

// isPow2 reports x == 2^k.
func isPow2(x ratio, k int) bool {
	if k >= 0 {
		return x.num == x.den<<k
	}
	return x.num<<-k == x.den
}
