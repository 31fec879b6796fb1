package analyze

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// The property test: random kernels, built as text from a small grammar of
// affine nests (bounds in parameters and outer indices, min and max,
// steps), static conditions on indices and rank, repeats, data conditions
// with prob, point-to-point messages and collectives, and regions, are
// parsed, checked and analysed, and every rank's counts must equal the
// oracle's exactly. A failure prints the kernel.

// propertyCases is the number of random kernels checked.
const propertyCases = 1000

// TestPropertyRandomKernels checks Analyze against the oracle on random
// kernels with fixed seeds.
func TestPropertyRandomKernels(t *testing.T) {
	cases := propertyCases
	if testing.Short() {
		cases = 60
	}
	for seed := range uint64(cases) {
		src := genKernel(rand.New(rand.NewPCG(seed, 0x5eed)))
		k := loadKernel(t, fmt.Sprintf("random%d.spmd", seed), []byte(src), nil)
		if d := oracleMismatch(k); d != "" {
			t.Errorf("seed %d: analyzer and oracle differ\n--- kernel ---\n%s--- differences ---\n%s", seed, src, d)
		}
	}
}

// TestGenKernelVariety guards the generator itself: over the seeds the test
// uses, every construct the property test is meant to exercise appears.
func TestGenKernelVariety(t *testing.T) {
	var all strings.Builder
	for seed := range uint64(propertyCases) {
		all.WriteString(genKernel(rand.New(rand.NewPCG(seed, 0x5eed))))
	}
	text := all.String()
	for _, want := range []string{
		"for ", " step ", "min(", "max(", "repeat ", "if ", " else ", "prob ", "!=", "&&", "||", "!(",
		"region ", "send ", "recv ", "sendrecv ", "exchange ", "allreduce ", "bcast ", "barrier", "none",
		"% 2 == 0", "rank", "+=", "-=", "grid(", "east", "neighbor(", "let ", "var v", "floor(", "ceil(",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no generated kernel contains %q", want)
		}
	}
}

// kernelGen writes one random kernel.
type kernelGen struct {
	rnd     *rand.Rand
	out     strings.Builder
	indent  int
	indices []string // loop indices in scope, outermost first
	rankDep int      // > 0 inside a rank-dependent if or loop: no collectives
	budget  int      // statements left
	loops   int      // counter for fresh index and let names
	grid    bool     // the kernel runs on a grid: rx, ry and the neighbours exist
}

// genKernel returns the text of a random kernel.
func genKernel(rnd *rand.Rand) string {
	g := &kernelGen{rnd: rnd, budget: 6 + rnd.IntN(10)}
	n, m := rnd.IntN(7), rnd.IntN(5)
	if rnd.IntN(4) == 0 {
		g.grid = true
		g.line("kernel random(N = %d, M = %d) on grid(Px = %d, Py = %d) {", n, m, 1+rnd.IntN(3), 1+rnd.IntN(3))
	} else {
		g.line("kernel random(N = %d, M = %d) on P = %d ranks {", n, m, 1+rnd.IntN(4))
	}
	g.indent++
	g.line("array A[4096]: f64")
	g.line("array B[256][256]: f64")
	g.line("array C[4096]: i32")
	g.line("var s, t: f64 = 0")
	g.line("var c: i32 = 0")
	for g.budget > 0 {
		g.stmt(0)
	}
	g.indent--
	g.line("}")
	return g.out.String()
}

// line writes one indented line.
func (g *kernelGen) line(format string, args ...any) {
	g.out.WriteString(strings.Repeat("  ", g.indent))
	fmt.Fprintf(&g.out, format, args...)
	g.out.WriteString("\n")
}

// pick returns one of the options.
func (g *kernelGen) pick(options ...string) string { return options[g.rnd.IntN(len(options))] }

// index returns a loop index in scope, or a small constant outside loops.
func (g *kernelGen) index() string {
	if len(g.indices) == 0 {
		return g.pick("0", "1", "N")
	}
	return g.indices[g.rnd.IntN(len(g.indices))]
}

// indexExpr returns an array index: an index, a sum of two, or an index
// plus a constant (all non-negative and far below the array sizes).
func (g *kernelGen) indexExpr() string {
	switch g.rnd.IntN(4) {
	case 0:
		return g.index() + " + " + g.index()
	case 1:
		return g.index() + " + 1"
	}
	return g.index()
}

// stmt writes one statement at loop depth.
func (g *kernelGen) stmt(depth int) {
	g.budget--
	switch r := g.rnd.IntN(20); {
	case r < 6 && depth < 4:
		g.forLoop(depth)
	case r < 7 && depth < 3:
		g.repeat(depth)
	case r < 10:
		g.staticIf(depth)
	case r < 11:
		g.dataIf(depth)
	case r < 12:
		g.region(depth)
	case r < 15:
		g.comm()
	default:
		g.assign()
	}
}

// body writes a block of one to three statements, fewer when the kernel's
// statement budget runs out (which bounds the nesting too).
func (g *kernelGen) body(depth int) {
	g.indent++
	n := 1 + g.rnd.IntN(3)
	for i := 0; i < n && g.budget > 0; i++ {
		g.stmt(depth)
	}
	g.indent--
}

// forLoop writes a for loop with bounds affine in N, M and the outer
// indices (min and max included), sometimes a step, sometimes bounds that
// depend on rank.
func (g *kernelGen) forLoop(depth int) {
	o, o2 := g.index(), g.index()
	lo := g.pick("0", "1", "2", o, o+" + 1", "max(0, "+o+" - 2)", "min("+o+", M)")
	hi := g.pick("N", "M", "N + 1", "M + 2", o, o+" + 2", "N - "+o, o+" + "+o2+" + 1", "min(N, "+o+" + 3)", "max(M, "+o+")",
		"min(N + 1, M + "+o+")", "floor("+o+" / 2) + 1", "ceil((N + "+o+") / 3)")
	rankDep := g.rnd.IntN(8) == 0
	if rankDep {
		lo = g.pick("rank", lo)
		hi = g.pick("N + rank", "max(N - rank, "+o+")")
	}
	step := ""
	if g.rnd.IntN(4) == 0 {
		step = " step " + g.pick("2", "3")
	}
	name := fmt.Sprintf("i%d", g.loops)
	g.loops++
	g.line("for %s in %s..%s%s {", name, lo, hi, step)
	if rankDep {
		g.rankDep++
	}
	g.indent++
	g.indices = append(g.indices, name)
	scope := len(g.indices)
	if g.rnd.IntN(3) == 0 {
		// A let of the indices joins the pool: bounds, conditions and
		// references read the loop index through it.
		let := fmt.Sprintf("l%d", g.loops)
		g.loops++
		g.line("let %s = %s", let, g.pick(name+" + 1", name+" + "+g.index(), "2 * "+name, "max("+name+", M)"))
		g.indices = append(g.indices, let)
	}
	if g.rnd.IntN(6) == 0 {
		g.line("var v%d, w%d: f64 = A[%s] * s + 1.0", g.loops, g.loops, g.indexExpr())
		g.loops++
	}
	g.indent--
	g.body(depth + 1)
	g.indices = g.indices[:scope-1]
	if rankDep {
		g.rankDep--
	}
	g.line("}")
}

// repeat writes a repeat loop; its count may read an outer index.
func (g *kernelGen) repeat(depth int) {
	count := g.pick("2", "M", "0", "3")
	if depth <= 1 && len(g.indices) > 0 {
		count = g.pick(count, g.index(), "floor("+g.index()+" / 2)")
	}
	g.line("repeat %s {", count)
	g.body(depth + 1)
	g.line("}")
}

// condition returns a static condition on the indices in scope (or on
// rank) and whether it depends on rank.
func (g *kernelGen) condition() (string, bool) {
	a, b, c := g.index(), g.index(), g.index()
	switch g.rnd.IntN(13) {
	case 0:
		return a + " != " + b, false
	case 1:
		return a + " < " + b + " + 2 && " + c + " >= 1", false
	case 2:
		return a + " == 3", false
	case 3:
		return a + " <= " + b + " || " + b + " == N - 1", false
	case 4:
		return "!(" + a + " > " + b + ")", false
	case 5:
		return a + " % 2 == 0", false
	case 6:
		return a + " >= M", false
	case 7:
		return "rank == 0", true
	case 8:
		return a + " + rank > N", true
	case 9:
		return "!(" + a + " == " + b + " || " + c + " < 2)", false
	case 10:
		return a + " - " + b + " >= M - 2 && rank < P - 1", true
	case 12:
		// Not affine and rank-dependent: enumerated, and traced for
		// other ranks.
		return "(rank + " + a + ") % 3 == 0", true
	case 11:
		if g.grid {
			return g.pick("rx == 0", "ry < Py - 1 && "+a+" != 1", "rx + "+a+" >= Px"), true
		}
	}
	return a + " + " + b + " < N", false
}

// staticIf writes an if on a static condition, with an else or else-if.
func (g *kernelGen) staticIf(depth int) {
	cond, rankDep := g.condition()
	if rankDep {
		g.rankDep++
		defer func() { g.rankDep-- }()
	}
	g.line("if %s {", cond)
	g.body(depth)
	switch g.rnd.IntN(3) {
	case 0:
		g.line("}")
	case 1:
		g.line("} else {")
		g.body(depth)
		g.line("}")
	default:
		cond2, rankDep2 := g.condition()
		g.line("} else if %s {", cond2)
		if rankDep2 {
			g.rankDep++
		}
		g.body(depth)
		if rankDep2 {
			g.rankDep--
		}
		g.line("}")
	}
}

// dataIf writes an if on array data with a probability, maybe an else.
func (g *kernelGen) dataIf(depth int) {
	cond := g.pick("A["+g.indexExpr()+"] > s", "C["+g.indexExpr()+"] == 0", "s < t")
	g.rankDep++ // the checker forbids collectives under data conditions
	defer func() { g.rankDep-- }()
	g.line("if %s prob %s {", cond, g.pick("0.5", "0.25", "0.3", "1"))
	g.body(depth)
	if g.rnd.IntN(2) == 0 {
		g.line("} else {")
		g.body(depth)
	}
	g.line("}")
}

// region writes a region around a few statements; names repeat on purpose.
func (g *kernelGen) region(depth int) {
	g.line("region %q {", g.pick("alpha", "beta", "gamma"))
	g.body(depth)
	g.line("}")
}

// assign writes an assignment with array references, arithmetic,
// intrinsics, conversions and integer arithmetic on indices.
func (g *kernelGen) assign() {
	x, y := g.indexExpr(), g.indexExpr()
	i, j := g.index(), g.index()
	g.line("%s", g.pick(
		"A["+x+"] = A["+y+"] * s + 1.0",
		"s += A["+x+"] * B["+i+"]["+j+"]",
		"B["+i+"]["+j+"] -= s * A["+x+"]",
		"s = max(s, abs(A["+x+"]))",
		"c = c + 1",
		"A["+x+"] = sqrt(A["+y+"]) / 2.0",
		"t = f64("+i+" * "+j+") * 2.0 + s",
		"s += "+i+" * "+j,
		"C["+x+"] = C["+y+"] + i32("+i+")",
		"t = (A["+x+"] > s) ? s : t",
		"t = exp(s) - A["+x+"] * A["+x+"]",
	))
}

// comm writes a point-to-point statement, or a collective where every
// rank reaches it equally often.
func (g *kernelGen) comm() {
	a := g.index()
	p2p := []string{
		"send A[0:" + a + "] to (rank + 1) % P",
		"recv A[0:4] from (rank + P - 1) % P",
		"sendrecv 8 bytes to (rank + 1) % P from (rank + P - 1) % P",
		"exchange s with (rank + " + a + ") % P",
		"send s to rank == 0 ? none : rank - 1",
		"recv B[" + a + "] from rank == P - 1 ? none : rank + 1",
		"send A[0:2] to (rank + " + a + " + 1) % P",
		"recv A[0:" + a + "] from (rank + 2*" + a + ") % P",
	}
	if g.grid {
		p2p = append(p2p,
			"sendrecv A[0:"+a+"] to east from west",
			"send B["+a+"][0:2] to neighbor(1, -1)",
			"recv s from north",
			"exchange t with south")
	}
	if g.rankDep > 0 || g.rnd.IntN(2) == 0 {
		g.line("%s", g.pick(p2p...))
		return
	}
	g.line("%s", g.pick(
		"allreduce sum s",
		"bcast A[0:"+a+"] from 0",
		"barrier",
		"reduce max c to P - 1",
		"allgather ("+a+" + 1) * 8 bytes",
		"scan sum t",
	))
}
