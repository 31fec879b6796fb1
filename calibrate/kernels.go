package calibrate

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// The benchmarks are kernels of perfc's own language, generated as text
// here, so that calibration measures exactly the code perfc check and
// perfc validate run. Many benchmarks share one kernel as its regions: one
// build (1–2 s) measures them all. Every scalar operand is read from data
// (a var initialised from an array element): Go folds a var initialised
// to a constant, and a benchmark of `x / s` with s = 1.0 would time no
// division at all (docs/calibrate.md, "Traps").

// bench is one benchmark: a region of a generated kernel, and what the
// fits need to know about it beyond the analyzer's counts.
type bench struct {
	name  string // the region's name, unique in its kernel
	group string // groupLoop, groupRinf, groupAccess, groupOps, groupLatency, groupTick2, or a memory stream kind
	op    string // the operation timed (ops, latency)
	elem  string // its element type (ops, latency)
	k     int    // statements per iteration (ops: 1 or 2)
	n     int64  // loop length (loop, rinf), working set in bytes (memory), stride in elements (stride)
	reps  int64  // repetitions of the timed loop
	// entries is how often the region's loops start (the repeat once, the
	// for once per repetition), used when the analyzer does not count
	// loop entries.
	entries float64
}

// The benchmark groups.
const (
	groupTick2   = "tick2"   // empty region: the cost of reading the clock (TICK2)
	groupLoop    = "loop"    // empty loops of several lengths (loop.iteration, loop.entry)
	groupRinf    = "rinf1"   // RINF1's A = B*C against the loop length
	groupAccess  = "access"  // copies and stores (access.load, access.store)
	groupOps     = "ops"     // independent operations (compute.ops)
	groupLatency = "latency" // an operation chained through a var (compute.latency)
	groupWindow  = "window"  // POLY1's Horner chain of k links, restarted at every element (compute.latency.window)
	groupLoad    = "load"    // memory: a read-only stream
	groupStore   = "store"   // memory: a store-only stream
	groupRMW     = "rmw"     // memory: a read-modify-write stream
	groupLines   = "lines"   // memory: one load per line, four lines per iteration (the level's own delivery rate)
	groupStride  = "stride"  // memory: the IMH strided read
)

// kernelSpec is a generated kernel and its benchmarks.
type kernelSpec struct {
	name    string
	text    string
	benches []bench
}

// elemTypes are the language's element types.
var elemTypes = []string{"f64", "f32", "i64", "i32"}

func isFloat(t string) bool { return t[0] == 'f' }

// opKinds lists the operation kinds of the machine tables' ops entries,
// in their documented order (docs/machines.md).
var opKinds = []string{"add", "sub", "mul", "div", "madd", "cmp", "sqrt", "exp", "log", "sin", "cos", "abs", "min", "max"}

// floatOnly are the intrinsics the language allows on floats only (an
// integer argument is converted, which would time the conversion too).
var floatOnly = []string{"sqrt", "exp", "log", "sin", "cos"}

// allowed reports whether op can be written on elements of type t.
func allowed(op, t string) bool { return isFloat(t) || !slices.Contains(floatOnly, op) }

// throughputExpr writes one independent operation on the inputs a, b, c
// (array elements): the statement's right-hand side.
func throughputExpr(op, a, b, c, d string) string {
	switch op {
	case "add", "sub", "mul", "div":
		return fmt.Sprintf("%s %s %s", a, map[string]string{"add": "+", "sub": "-", "mul": "*", "div": "/"}[op], b)
	case "madd":
		return fmt.Sprintf("%s*%s + %s", a, b, c)
	case "cmp":
		return fmt.Sprintf("%s < %s ? %s : %s", a, b, c, d)
	case "min", "max":
		return fmt.Sprintf("%s(%s, %s)", op, a, b)
	default: // unary intrinsics
		return fmt.Sprintf("%s(%s)", op, a)
	}
}

// latencyStmt writes a statement that carries var s from one iteration to
// the next through op, with operands x, z, v (array elements at i). Each
// form keeps s bounded and away from subnormal numbers, whose arithmetic
// is slow: s*s goes to 0 or infinity at once, x/s alternates, exp(-s)
// and cos(s) converge to fixed points, log(s*s + x) stays near 0.
func latencyStmt(op, t, s, x, z, v string) string {
	switch op {
	case "add":
		return fmt.Sprintf("%s = %s + %s", s, s, x)
	case "sub":
		return fmt.Sprintf("%s = %s - %s", s, s, x)
	case "mul":
		if isFloat(t) {
			return fmt.Sprintf("%s = %s * %s", s, s, s)
		}
		return fmt.Sprintf("%s = %s * %s", s, s, x)
	case "div":
		if isFloat(t) {
			return fmt.Sprintf("%s = %s / %s", s, x, s)
		}
		return fmt.Sprintf("%s = %s / %s", s, s, z) // z holds divisors (1 or 2)
	case "madd":
		return fmt.Sprintf("%s = %s*%s + %s", s, s, x, z)
	case "cmp":
		return fmt.Sprintf("%s = %s < %s ? %s : %s", s, s, x, z, v)
	case "min", "max":
		return fmt.Sprintf("%s = %s(%s, %s)", s, op, s, x)
	case "abs":
		return fmt.Sprintf("%s = abs(%s - %s)", s, s, x)
	case "exp":
		return fmt.Sprintf("%s = exp(-%s)", s, s)
	case "log":
		return fmt.Sprintf("%s = log(%s*%s + %s)", s, s, s, x)
	default: // sqrt sin cos
		return fmt.Sprintf("%s = %s(%s)", s, op, s)
	}
}

// sizes are the knobs of a calibration run (quick, full, or the test
// mode's smallest).
type sizes struct {
	inner     int64   // loop length of the in-core benchmarks (elements; all arrays of a type fit L1)
	work      int64   // iterations per in-core region (time per region ≈ work × cost)
	loopLens  []int64 // loop lengths of the loop and RINF1 sweeps
	windowKs  []int64 // chain lengths of the window benchmarks (POLY1's order k)
	tick2Reps int64   // clock reads of the TICK2 region
	memMax    int64   // bytes of the working-set sweep's array (about 4× the last-level cache)
	memWork   int64   // elements streamed per memory region at least
	memSteps  int     // working-set sizes per doubling
	strides   []int64 // IMH strides, in elements
	samples   int     // measurements per kernel
	minTime   string  // least duration of one measurement
	ops       []string
	elems     []string
}

// inCoreKernel generates the in-core kernel: TICK2, the loop-length sweep,
// RINF1, the access benchmarks, every operation's throughput and latency.
func inCoreKernel(sz sizes) kernelSpec {
	var b strings.Builder
	var benches []bench
	n := sz.inner
	fmt.Fprintf(&b, "// perfc calibrate: in-core benchmarks (TICK2, loop overhead, RINF1, access, operations).\n")
	fmt.Fprintf(&b, "kernel calib_core(n = %d) {\n", n)
	for _, t := range sz.elems {
		fmt.Fprintf(&b, "  array x%[1]s[n], z%[1]s[n], v%[1]s[n], u%[1]s[n], y%[1]s[n], w%[1]s[n]: %[1]s\n", t)
		fmt.Fprintf(&b, "  var s%[1]s: %[1]s = x%[1]s[3]\n", t)
	}
	// TICK2: an empty region, entered tick2Reps times.
	fmt.Fprintf(&b, "  repeat %d {\n    region \"tick2\" {\n    }\n  }\n", sz.tick2Reps)
	benches = append(benches, bench{name: "tick2", group: groupTick2, reps: sz.tick2Reps})
	region := func(bn bench, body ...string) {
		bn.entries = 1 + float64(bn.reps)
		fmt.Fprintf(&b, "  region %q {\n    repeat %d {\n      for i in 0..%d {\n", bn.name, bn.reps, bn.n)
		for _, s := range body {
			fmt.Fprintf(&b, "        %s\n", s)
		}
		fmt.Fprintf(&b, "      }\n    }\n  }\n")
		benches = append(benches, bn)
	}
	reps := func(per int64) int64 { return max(1, sz.work/per) }
	for _, l := range sz.loopLens {
		region(bench{name: fmt.Sprintf("loop n=%d", l), group: groupLoop, n: l, reps: reps(l)})
	}
	for _, l := range sz.loopLens {
		if l <= n {
			region(bench{name: fmt.Sprintf("rinf1 n=%d", l), group: groupRinf, op: "mul", elem: "f64", n: l, reps: reps(l)},
				"yf64[i] = xf64[i] * zf64[i]")
		}
	}
	for _, t := range sz.elems {
		a := func(name string) string { return name + t + "[i]" }
		region(bench{name: "copy " + t, group: groupAccess, elem: t, n: n, reps: reps(n)}, a("y")+" = "+a("x"))
		region(bench{name: "copy2 " + t, group: groupAccess, elem: t, n: n, reps: reps(n)}, a("y")+" = "+a("x"), a("w")+" = "+a("z"))
		region(bench{name: "store " + t, group: groupAccess, elem: t, n: n, reps: reps(n)}, a("y")+" = s"+t)
		// Several loads per store (a 5-point stencil has five): without
		// them every access benchmark loads at most twice per store, the
		// load's column is nearly collinear with the store's and the
		// iteration's, and the fit may set access.load to 0, which
		// under-prices kernels that read many operands per element
		// (docs/calibrate.md, "Several loads per iteration").
		region(bench{name: "gather3 " + t, group: groupAccess, elem: t, n: n, reps: reps(n)},
			a("y")+" = "+a("x")+" + "+a("z")+" + "+a("v"))
		region(bench{name: "gather5 " + t, group: groupAccess, elem: t, n: n, reps: reps(n)},
			a("y")+" = "+a("x")+" + "+a("z")+" + "+a("v")+" + "+a("u")+" + "+a("w"))
	}
	for _, op := range sz.ops {
		for _, t := range sz.elems {
			if !allowed(op, t) {
				continue
			}
			a := func(name string) string { return name + t + "[i]" }
			first := a("y") + " = " + throughputExpr(op, a("x"), a("z"), a("v"), a("u"))
			second := a("w") + " = " + throughputExpr(op, a("v"), a("u"), a("x"), a("z"))
			region(bench{name: fmt.Sprintf("ops %s %s k=1", op, t), group: groupOps, op: op, elem: t, k: 1, n: n, reps: reps(n)}, first)
			region(bench{name: fmt.Sprintf("ops %s %s k=2", op, t), group: groupOps, op: op, elem: t, k: 2, n: n, reps: reps(n)}, first, second)
		}
	}
	var chainVars []string
	for _, op := range sz.ops {
		for _, t := range sz.elems {
			if !allowed(op, t) {
				continue
			}
			s := fmt.Sprintf("c_%s_%s", op, t)
			chainVars = append(chainVars, fmt.Sprintf("  var %s: %s = x%s[%d]\n", s, t, t, 5+len(chainVars)%int(n-5)))
			a := func(name string) string { return name + t + "[i]" }
			// One and two links of the chain per iteration: the fit of
			// both is overdetermined, so its rms says how well a chain's
			// time is the sum of its operations' latencies.
			first := latencyStmt(op, t, s, a("x"), a("z"), a("v"))
			region(bench{name: fmt.Sprintf("latency %s %s k=1", op, t), group: groupLatency, op: op, elem: t, k: 1, n: n, reps: reps(n)}, first)
			region(bench{name: fmt.Sprintf("latency %s %s k=2", op, t), group: groupLatency, op: op, elem: t, k: 2, n: n, reps: reps(n)},
				first, latencyStmt(op, t, s, a("v"), a("u"), a("x")))
		}
	}
	// The window's law prices the chain by the latencies of its add and
	// its mul: without both benchmarks there is nothing to price it by.
	if slices.Contains(sz.elems, "f64") && slices.Contains(sz.ops, "add") && slices.Contains(sz.ops, "mul") {
		chainVars = append(chainVars, "  var w_acc: f64 = xf64[1]\n", "  var w_c: f64 = xf64[2]\n", "  var w_x: f64 = xf64[3]\n")
		for _, k := range sz.windowKs {
			// POLY1 (Horner's rule, as examples/poly1.spmd): each element
			// starts a chain of k multiply-adds afresh, so entries of the
			// repeat overlap as far as the reorder window reaches.
			region(bench{name: fmt.Sprintf("window k=%d", k), group: groupWindow, op: "madd", elem: "f64", k: int(k), n: n, reps: reps(n * k)},
				"w_x = xf64[i]", "w_acc = w_c", fmt.Sprintf("repeat %d {", k), "  w_acc = w_c + w_x*w_acc", "}", "yf64[i] = w_acc")
		}
	}
	b.WriteString("}\n")
	text := b.String()
	// The chain vars are declared before the first region.
	if i := strings.Index(text, "  repeat "); i >= 0 {
		text = text[:i] + strings.Join(chainVars, "") + text[i:]
	}
	return kernelSpec{name: "calib_core", text: text, benches: benches}
}

// workingSets lists the sweep's sizes in bytes: from 4 KiB to max,
// steps per doubling, each a whole number of 8-element (64-byte) groups.
func workingSets(max int64, steps int) []int64 {
	var out []int64
	for k := 0; ; k++ {
		f := 4096 * math.Pow(2, float64(k)/float64(steps))
		s := int64(f) / 64 * 64
		if s > max {
			break
		}
		if len(out) == 0 || s != out[len(out)-1] {
			out = append(out, s)
		}
	}
	if out[len(out)-1] != max {
		out = append(out, max)
	}
	return out
}

// memoryKernel generates the working-set sweep (load, store,
// read-modify-write and one-load-per-line streams over prefixes of one
// array) and the IMH
// stride benchmark on the same array.
func memoryKernel(sz sizes) kernelSpec { return sweepKernel(sz, false) }

// lookKernel is the second look at the levels' capacities (effective.go):
// the sweep's load stream alone, on its working sets up to lookMax.
func lookKernel(sz sizes, lookMax int64) kernelSpec {
	sz.memMax = min(sz.memMax, lookMax)
	return sweepKernel(sz, true)
}

// sweepKernel is memoryKernel, or with loadOnly the load stream alone.
func sweepKernel(sz sizes, loadOnly bool) kernelSpec {
	var b strings.Builder
	var benches []bench
	elems := sz.memMax / 8
	kernelName := "calib_memory"
	if loadOnly {
		kernelName = "calib_capacity"
		fmt.Fprintf(&b, "// perfc calibrate: a second look at the caches' capacities (the working-set sweep's load stream).\n")
	} else {
		fmt.Fprintf(&b, "// perfc calibrate: working-set sweep (load, store, read-modify-write, one load per line) and the IMH stride benchmark.\n")
	}
	fmt.Fprintf(&b, "kernel %s(N = %d) {\n  array a[N]: f64\n", kernelName, elems)
	for j := 1; j <= 8; j++ {
		fmt.Fprintf(&b, "  var s%d: f64 = a[%d]\n", j, j)
	}
	region := func(bn bench, step int64, body ...string) {
		bn.entries = 1 + float64(bn.reps)
		fmt.Fprintf(&b, "  region %q {\n    repeat %d {\n      for i in 0..%d", bn.name, bn.reps, bn.n)
		if step > 1 {
			fmt.Fprintf(&b, " step %d", step)
		}
		b.WriteString(" {\n")
		for _, s := range body {
			fmt.Fprintf(&b, "        %s\n", s)
		}
		fmt.Fprintf(&b, "      }\n    }\n  }\n")
		benches = append(benches, bn)
	}
	var load []string
	for j := 1; j <= 8; j++ {
		load = append(load, fmt.Sprintf("s%d = s%d + a[i+%d]", j, j, j-1))
	}
	load[0] = "s1 = s1 + a[i]"
	for _, ws := range workingSets(sz.memMax, sz.memSteps) {
		m := ws / 8
		reps := max(1, sz.memWork/m)
		name := func(kind string) string { return fmt.Sprintf("%s %s", kind, sizeName(ws)) }
		region(bench{name: name(groupLoad), group: groupLoad, n: m, reps: reps}, 8, load...)
		if loadOnly {
			continue
		}
		region(bench{name: name(groupStore), group: groupStore, n: m, reps: reps}, 1, "a[i] = s1")
		region(bench{name: name(groupRMW), group: groupRMW, n: m, reps: reps}, 1, "a[i] = a[i] + s2")
		// One load per line: the load stream loads every element, and at
		// two loads per cycle its eight loads per line bound it below what
		// L2 and L3 deliver (host-baseline: the scalar stream costs alike in
		// L1, L2 and L3). Four independent sums keep the adds' latency off
		// the critical path. Lines are few per element, so the stream runs
		// four times the load stream's passes.
		if ml := m / 32 * 32; ml > 0 {
			region(bench{name: name(groupLines), group: groupLines, n: ml, reps: max(1, 4*sz.memWork/m)}, 32,
				"s1 = s1 + a[i]", "s2 = s2 + a[i+8]", "s3 = s3 + a[i+16]", "s4 = s4 + a[i+24]")
		}
	}
	for _, s := range sz.strides {
		if loadOnly {
			break
		}
		acc := elems / s / 4 * 4
		region(bench{name: fmt.Sprintf("stride %d", s*8), group: groupStride, n: acc, reps: 1}, 4,
			fmt.Sprintf("s1 = s1 + a[i*%d]", s), fmt.Sprintf("s2 = s2 + a[(i+1)*%d]", s),
			fmt.Sprintf("s3 = s3 + a[(i+2)*%d]", s), fmt.Sprintf("s4 = s4 + a[(i+3)*%d]", s))
		benches[len(benches)-1].n = s // the stride, for the fits; the loop length is acc
		benches[len(benches)-1].entries = 2
	}
	b.WriteString("}\n")
	return kernelSpec{name: kernelName, text: b.String(), benches: benches}
}

// sizeName writes a working set for a region name: 4KiB, 1.5MiB, 128MiB.
func sizeName(bytes int64) string {
	switch {
	case bytes >= 1<<20:
		return trimFloat(float64(bytes)/(1<<20)) + "MiB"
	case bytes >= 1<<10:
		return trimFloat(float64(bytes)/(1<<10)) + "KiB"
	}
	return fmt.Sprintf("%dB", bytes)
}

// trimFloat prints up to three significant digits without trailing zeros.
func trimFloat(v float64) string { return strings.TrimSuffix(fmt.Sprintf("%.3g", v), ".0") }
