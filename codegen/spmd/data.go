package spmd

import "unsafe"

// elemKind is the element type of a payload or an array.
type elemKind uint8

const (
	elBytes elemKind = iota // `SIZE bytes`: unsigned bytes
	elF64
	elF32
	elI64
	elI32
)

// size is the element size in bytes.
func (e elemKind) size() int {
	switch e {
	case elF64, elI64:
		return 8
	case elF32, elI32:
		return 4
	}
	return 1
}

// redOp is a reduction operator of reduce, allreduce and scan.
type redOp uint8

const (
	redSum redOp = iota
	redProd
	redMax
	redMin
	redAnd
	redOr
	redXor
)

// asSlice views n-byte-aligned bytes as a slice of T.
func asSlice[T any](b []byte) []T {
	var zero T
	n := len(b) / int(unsafe.Sizeof(zero))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// combine sets dst[i] = dst[i] op src[i] for elements of type el. The
// operators are commutative, so partners that combine each other's
// values agree bit for bit.
func combine(op redOp, el elemKind, dst, src []byte) {
	switch el {
	case elF64:
		combineNum(op, asSlice[float64](dst), asSlice[float64](src))
	case elF32:
		combineNum(op, asSlice[float32](dst), asSlice[float32](src))
	case elI64:
		combineInt(op, asSlice[int64](dst), asSlice[int64](src))
	case elI32:
		combineInt(op, asSlice[int32](dst), asSlice[int32](src))
	default:
		combineInt(op, dst, src)
	}
}

// number is an element type with arithmetic.
type number interface {
	~float64 | ~float32 | ~int | ~int64 | ~int32 | ~uint8
}

// integer is an element type with bit operations.
type integer interface {
	~int | ~int64 | ~int32 | ~uint8
}

// combineNum applies sum, prod, max or min.
func combineNum[T number](op redOp, dst, src []T) {
	src = src[:len(dst)]
	switch op {
	case redSum:
		for i := range dst {
			dst[i] += src[i]
		}
	case redProd:
		for i := range dst {
			dst[i] *= src[i]
		}
	case redMax:
		for i := range dst {
			dst[i] = max(dst[i], src[i])
		}
	case redMin:
		for i := range dst {
			dst[i] = min(dst[i], src[i])
		}
	}
}

// combineInt applies any operator to integers.
func combineInt[T integer](op redOp, dst, src []T) {
	src = src[:len(dst)]
	switch op {
	case redAnd:
		for i := range dst {
			dst[i] &= src[i]
		}
	case redOr:
		for i := range dst {
			dst[i] |= src[i]
		}
	case redXor:
		for i := range dst {
			dst[i] ^= src[i]
		}
	default:
		combineNum(op, dst, src)
	}
}

// view returns n bytes at byte offset off of an array of total bytes at
// base: the bytes a payload such as A[i][lo:hi] moves. Offsets outside the
// array stop the program with a message rather than corrupting memory.
func view(base unsafe.Pointer, total, off, n int) []byte {
	if off < 0 || n < 0 || off > total-n {
		panic(payloadError{off: off, n: n, total: total})
	}
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Add(base, off)), n)
}

// payloadError is a payload outside its array.
type payloadError struct{ off, n, total int }

func (e payloadError) Error() string {
	return "a payload of " + itoa(e.n) + " B at byte " + itoa(e.off) + " lies outside its array of " + itoa(e.total) + " B"
}

// itoa formats an int without fmt, for errors raised in hot paths.
func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	var b [24]byte
	i := len(b)
	for n != 0 {
		d := n % 10
		if d < 0 {
			d = -d
		}
		i--
		b[i] = byte('0' + d)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// varBytes returns the rank's scratch bytes holding x, the payload of a
// var: a var lives in a register, so it is copied out for the message and
// back after it. slot (0 or 1) tells apart the two vars of a sendrecv.
func varBytes[T any](r *rank, slot int, x T) []byte {
	b := r.scratchBuf(scrVar+slot, int(unsafe.Sizeof(x)))
	*(*T)(unsafe.Pointer(unsafe.SliceData(b))) = x
	return b
}

// varValue reads a var back from its payload bytes.
func varValue[T any](b []byte) T {
	return *(*T)(unsafe.Pointer(unsafe.SliceData(b)))
}

// Deterministic data. Floats are drawn from 1024 values spaced evenly in
// log between e^-1/4 and e^1/4 (about 0.78 to 1.28): nonzero, so no
// division by zero; symmetric in log, so long products neither overflow nor
// drift into denormals; close to 1, so sums and differences stay far from
// the limits. Integers are 0 or 1 (flags: half of them zero, as a `prob
// 0.5` assumes), or 1 or 2 for arrays that appear as divisors.

// floatValue is value k (0 ≤ k < 1024) of the float series: e^u for u
// evenly spaced in [-1/4, 1/4], by its Taylor polynomial (cheaper than a
// table lookup's cache miss, and accurate to 1e-5).
func floatValue(k uint64) float64 {
	u := (float64(k) - 511.5) * (0.5 / 1023)
	return 1 + u*(1+u/2*(1+u/3*(1+u/4)))
}

// seedOf derives the seed of one array of one rank.
func seedOf(rank, array int) uint64 {
	return (uint64(rank)+1)*0x9E3779B97F4A7C15 ^ (uint64(array)+1)*0xC2B2AE3D27D4EB4F
}

// mix scrambles element i of the array with seed into 10 bits.
func mix(i int, seed uint64) uint64 {
	h := (uint64(i) + seed) * 0xD6E8FEB86659FD93
	h ^= h >> 32
	return (h * 0x9E3779B97F4A7C15) >> 54
}

// fillElems fills n elements of type el at p.
func fillElems(p unsafe.Pointer, el elemKind, n int, seed uint64, divisor bool) {
	fillBytes(unsafe.Slice((*byte)(p), n*el.size()), el, seed)
	if divisor && (el == elI64 || el == elI32) {
		addOne(unsafe.Slice((*byte)(p), n*el.size()), el)
	}
}

// fillBytes fills b with values of type el.
func fillBytes(b []byte, el elemKind, seed uint64) {
	switch el {
	case elF64:
		s := asSlice[float64](b)
		for i := range s {
			s[i] = floatValue(mix(i, seed))
		}
	case elF32:
		s := asSlice[float32](b)
		for i := range s {
			s[i] = float32(floatValue(mix(i, seed)))
		}
	case elI64:
		s := asSlice[int64](b)
		for i := range s {
			s[i] = int64(mix(i, seed) & 1)
		}
	case elI32:
		s := asSlice[int32](b)
		for i := range s {
			s[i] = int32(mix(i, seed) & 1)
		}
	default:
		for i := range b {
			b[i] = byte(mix(i, seed))
		}
	}
}

// addOne turns 0/1 integers into 1/2, for arrays that are divisors.
func addOne(b []byte, el elemKind) {
	if el == elI64 {
		for i, s := 0, asSlice[int64](b); i < len(s); i++ {
			s[i]++
		}
		return
	}
	for i, s := 0, asSlice[int32](b); i < len(s); i++ {
		s[i]++
	}
}

// sumElems returns the sum of n elements of type el at p, as a float64.
//
//lint:ignore U1000 used by the generated main.go, which sums every array into the checksum
func sumElems(p unsafe.Pointer, el elemKind, n int) float64 {
	b := unsafe.Slice((*byte)(p), n*el.size())
	total := 0.0
	switch el {
	case elF64:
		for _, x := range asSlice[float64](b) {
			total += x
		}
	case elF32:
		for _, x := range asSlice[float32](b) {
			total += float64(x)
		}
	case elI64:
		for _, x := range asSlice[int64](b) {
			total += float64(x)
		}
	case elI32:
		for _, x := range asSlice[int32](b) {
			total += float64(x)
		}
	}
	return total
}
