package machinecode

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// BlockBytes is the size of the block of code the front end fetches per
// cycle: on the host this project calibrates (AMD Zen 4/5) a loop runs at
// most one 64-byte block per cycle (docs/calibrate.md, "Code placement").
const BlockBytes = 64

// Loop is one machine loop: the interval [Start, End) from the target of a
// backward branch to the end of the last branch back to it, with what the
// code directly in it (not in the loops nested in it) does.
type Loop struct {
	Func       string
	Start, End uint64
	Parent     int    // index of the innermost loop around it, -1 for none
	Kernel     string // "line:col" of the kernel loop it runs, "" when none maps
	Body
	FirstLine, LastLine int // main.go lines of its instructions, nested loops included

	blocks      map[int]bool // its basic blocks (FindLoops's graph)
	directLines []int        // main.go lines of its direct instructions
}

// Body is what a stretch of code does, counted from its instructions.
type Body struct {
	Bytes   int // bytes of code
	Blocks  int // 64-byte blocks its bytes touch, at their real addresses
	Insts   int // instructions
	Loads   int // instructions that read memory (a memory source operand, ADDSD mem included)
	Stores  int // instructions that write memory
	FP      int // floating-point arithmetic (add, sub, mul, min, max, logic, conversions)
	Divides int // divides and square roots (integer and floating point)
	// Dividers counts the divides and square roots by the kind of work
	// they hold the divider for ("div f64", "div i32", "sqrt f32"; see
	// DividerKind): each holds the unit for cycles of its own, so a loop's
	// divider time is their sum (Cycles).
	Dividers map[string]int
	Calls    []string
}

// add counts one instruction by what it asks of the core.
func (b *Body) add(in Inst) {
	b.Insts++
	b.Bytes += in.Len
	op := in.Op
	switch {
	case op == "CALL":
		if len(in.Args) > 0 {
			b.Calls = append(b.Calls, strings.TrimSuffix(in.Args[0], "(SB)"))
		}
		return
	case strings.HasPrefix(op, "LEA") || strings.HasPrefix(op, "NOP") || strings.HasPrefix(op, "PREFETCH"):
		return
	case op == "PUSHQ" || op == "PUSHL":
		b.Stores++
		return
	case op == "POPQ" || op == "POPL":
		b.Loads++
		return
	}
	if kind := DividerKind(op); kind != "" {
		b.Divides++
		if b.Dividers == nil {
			b.Dividers = map[string]int{}
		}
		b.Dividers[kind]++
	} else if isFP(op) {
		b.FP++
	}
	last := len(in.Args) - 1
	if last < 0 {
		return
	}
	readsAll := strings.HasPrefix(op, "CMP") || strings.HasPrefix(op, "TEST") || strings.HasPrefix(op, "UCOMIS") ||
		strings.HasPrefix(op, "COMIS") || strings.HasPrefix(op, "BT")
	move := strings.HasPrefix(op, "MOV") && !strings.HasPrefix(op, "MOVMSK")
	load := false
	for i, a := range in.Args {
		// A source in memory is read; so is a destination in memory that
		// the instruction also reads (ADDQ $1, 0(AX); a compare's operands).
		if isMem(a) && (i < last || readsAll || !move) {
			load = true
		}
	}
	if load {
		b.Loads++
	}
	if isMem(in.Args[last]) && !readsAll && last > 0 {
		b.Stores++
	}
}

// DividerKind names the divider work of a divide or square-root mnemonic
// as the table's compute.core.divider keys it ("div f64", "sqrt f32"), ""
// for any other instruction. Scalar and packed forms share a kind (the
// suite's code has only scalar ones); integer divides are "div i64" for
// the 64-bit forms and "div i32" for the narrower ones, signed or not
// (Go's % compiles to the same instruction).
func DividerKind(op string) string {
	op = strings.TrimPrefix(op, "V") // the AVX forms: VDIVSD, VSQRTSD
	switch {
	case op == "DIVSD" || op == "DIVPD":
		return "div f64"
	case op == "DIVSS" || op == "DIVPS":
		return "div f32"
	case op == "SQRTSD" || op == "SQRTPD":
		return "sqrt f64"
	case op == "SQRTSS" || op == "SQRTPS":
		return "sqrt f32"
	case op == "IDIVQ" || op == "DIVQ":
		return "div i64"
	case strings.HasPrefix(op, "IDIV") || strings.HasPrefix(op, "DIV"):
		return "div i32"
	}
	return ""
}

// isFP reports whether a mnemonic is scalar or packed floating-point
// work on the SSE units (moves and compares excluded).
func isFP(op string) bool {
	if strings.HasPrefix(op, "MOV") || strings.HasPrefix(op, "UCOMIS") || strings.HasPrefix(op, "COMIS") {
		return false
	}
	if strings.HasPrefix(op, "CVT") || strings.HasPrefix(op, "VFMADD") || strings.HasPrefix(op, "VFNMADD") || strings.HasPrefix(op, "ROUNDS") {
		return true
	}
	for _, suf := range []string{"SD", "SS", "PD", "PS"} {
		if strings.HasSuffix(op, suf) {
			return true
		}
	}
	return false
}

// blocks counts the 64-byte blocks the instructions' bytes touch.
func blocks(insts []Inst) int {
	seen := map[uint64]bool{}
	for _, in := range insts {
		for b := in.Addr / BlockBytes; b <= (in.Addr+uint64(max(in.Len, 1))-1)/BlockBytes; b++ {
			seen[b] = true
		}
	}
	return len(seen)
}

// FindLoops finds the machine loops of a function as the natural loops of
// its control-flow graph: an edge u→h whose target h dominates u (every
// path from the function's entry to u passes h) closes a loop with header
// h, and the loop is every block from which u is reached without passing
// h; edges back to one header are one loop. Go rotates loops (the entry
// jumps to the condition at the bottom, the back edge goes to the body's
// top) and lays a latch out anywhere, so neither address intervals nor
// backward branches alone find the loops; dominators do. Loops are
// returned outer before inner, with their nesting and their direct code's
// Body (the blocks of no loop nested in them).
func FindLoops(f Func, mainFile string) []Loop {
	insts := f.Insts
	if len(insts) == 0 {
		return nil
	}
	g := newCFG(insts)
	idom, order := g.dominators()
	dominates := func(h, u int) bool {
		for {
			if u == h {
				return true
			}
			if u == 0 || idom[u] < 0 || idom[u] == u {
				return false
			}
			u = idom[u]
		}
	}
	type natural struct {
		header int
		blocks map[int]bool
	}
	var found []natural
	byHeader := map[int]int{}
	for _, u := range order {
		for _, h := range g.succ[u] {
			if idom[h] < 0 || !dominates(h, u) {
				continue
			}
			i, ok := byHeader[h]
			if !ok {
				i = len(found)
				byHeader[h] = i
				found = append(found, natural{header: h, blocks: map[int]bool{h: true}})
			}
			// Every block that reaches u without passing the header.
			stack := []int{u}
			for len(stack) > 0 {
				b := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if found[i].blocks[b] {
					continue
				}
				found[i].blocks[b] = true
				stack = append(stack, g.pred[b]...)
			}
		}
	}
	// Outer loops first: a loop nested in another has fewer blocks.
	sort.SliceStable(found, func(a, b int) bool {
		if len(found[a].blocks) != len(found[b].blocks) {
			return len(found[a].blocks) > len(found[b].blocks)
		}
		return found[a].header < found[b].header
	})
	loops := make([]Loop, len(found))
	for i, nl := range found {
		l := &loops[i]
		l.Func, l.Parent = f.Name, -1
		// The innermost loop around it: the last (smallest) earlier loop
		// that holds its header.
		for j := i - 1; j >= 0; j-- {
			if found[j].blocks[nl.header] {
				l.Parent = j
				break
			}
		}
		l.Start, l.End = insts[g.blocks[nl.header].first].Addr, 0
		l.blocks = nl.blocks
	}
	for i := range loops {
		l := &loops[i]
		var direct []Inst
		for b := range l.blocks {
			for k := g.blocks[b].first; k <= g.blocks[b].last; k++ {
				in := insts[k]
				l.Start = min(l.Start, in.Addr)
				l.End = max(l.End, in.Addr+uint64(in.Len))
				if in.File == mainFile && in.Line > 0 {
					if l.FirstLine == 0 || in.Line < l.FirstLine {
						l.FirstLine = in.Line
					}
					l.LastLine = max(l.LastLine, in.Line)
				}
				if inChild(loops, i, b) {
					continue
				}
				direct = append(direct, in)
			}
		}
		sort.Slice(direct, func(a, b int) bool { return direct[a].Addr < direct[b].Addr })
		for _, in := range direct {
			l.Body.add(in)
			if in.File == mainFile && in.Line > 0 {
				l.directLines = append(l.directLines, in.Line)
			}
		}
		l.Blocks = blocks(direct)
	}
	return loops
}

// inChild reports whether block b lies in a loop nested in loop i.
func inChild(loops []Loop, i, b int) bool {
	for j := range loops {
		if j != i && loops[j].blocks[b] && isInside(loops, j, i) {
			return true
		}
	}
	return false
}

// isInside reports whether loop j is nested (at any depth) in loop i.
func isInside(loops []Loop, j, i int) bool {
	for p := loops[j].Parent; p >= 0; p = loops[p].Parent {
		if p == i {
			return true
		}
	}
	return false
}

// dominators computes every reachable block's immediate dominator (the
// entry, block 0, its own; -1 for blocks the entry does not reach) by the
// iterative algorithm of Cooper, Harvey and Kennedy ("A Simple, Fast
// Dominance Algorithm", 2001), and returns the reachable blocks in reverse
// postorder.
func (g *cfg) dominators() ([]int, []int) {
	n := len(g.blocks)
	seen := make([]bool, n)
	var post []int
	// Iterative depth-first search for the postorder.
	type frame struct{ b, next int }
	stack := []frame{{0, 0}}
	seen[0] = true
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.next < len(g.succ[top.b]) {
			s := g.succ[top.b][top.next]
			top.next++
			if !seen[s] {
				seen[s] = true
				stack = append(stack, frame{s, 0})
			}
			continue
		}
		post = append(post, top.b)
		stack = stack[:len(stack)-1]
	}
	rpo := make([]int, len(post))
	num := make([]int, n)
	for i, b := range post {
		rpo[len(post)-1-i] = b
		num[b] = len(post) - 1 - i
	}
	idom := make([]int, n)
	for i := range idom {
		idom[i] = -1
	}
	idom[0] = 0
	intersect := func(a, b int) int {
		for a != b {
			for num[a] > num[b] {
				a = idom[a]
			}
			for num[b] > num[a] {
				b = idom[b]
			}
		}
		return a
	}
	for changed := true; changed; {
		changed = false
		for _, b := range rpo[1:] {
			d := -1
			for _, p := range g.pred[b] {
				if idom[p] < 0 {
					continue
				}
				if d < 0 {
					d = p
				} else {
					d = intersect(p, d)
				}
			}
			if d != idom[b] {
				idom[b], changed = d, true
			}
		}
	}
	return idom, rpo
}

// cfg is a function's basic blocks (by instruction index) and edges.
type cfg struct {
	blocks     []struct{ first, last int }
	succ, pred [][]int
}

// newCFG splits instructions into basic blocks at branch targets and after
// branches, and links them: a jump to its target, a conditional jump also
// to the next block, any other instruction but a return or a trap to the
// next.
func newCFG(insts []Inst) *cfg {
	at := make(map[uint64]int, len(insts))
	for i, in := range insts {
		at[in.Addr] = i
	}
	leader := make([]bool, len(insts))
	leader[0] = true
	for i, in := range insts {
		if t, ok := in.branchTarget(); ok {
			if j, ok := at[t]; ok {
				leader[j] = true
			}
		}
		if strings.HasPrefix(in.Op, "J") || in.Op == "RET" || in.Op == "UD2" || in.Op == "INT" {
			if i+1 < len(insts) {
				leader[i+1] = true
			}
		}
	}
	g := &cfg{}
	blockOf := make([]int, len(insts))
	for i := range insts {
		if leader[i] {
			g.blocks = append(g.blocks, struct{ first, last int }{i, i})
		}
		blockOf[i] = len(g.blocks) - 1
		g.blocks[len(g.blocks)-1].last = i
	}
	g.succ, g.pred = make([][]int, len(g.blocks)), make([][]int, len(g.blocks))
	link := func(a, b int) {
		g.succ[a] = append(g.succ[a], b)
		g.pred[b] = append(g.pred[b], a)
	}
	for b, blk := range g.blocks {
		last := insts[blk.last]
		if t, ok := last.branchTarget(); ok {
			if j, ok := at[t]; ok {
				link(b, blockOf[j])
			}
		}
		falls := last.Op != "JMP" && last.Op != "RET" && last.Op != "UD2" && last.Op != "INT"
		if falls && blk.last+1 < len(insts) {
			link(b, b+1)
		}
	}
	return g
}

// CallNames lists the distinct callees of a body, sorted.
func (b Body) CallNames() []string {
	out := slices.Clone(b.Calls)
	slices.Sort(out)
	return slices.Compact(out)
}

// Widths are how many of each resource a core handles per cycle
// (compute.core's blocks_per_cycle, issue, load_ports, store_ports,
// fp_ports); a width that is not positive bounds nothing. Divider is the
// cycles one instruction of each DividerKind holds the divider
// (compute.core.divider); a kind it does not give bounds nothing (the
// pricing then adds that operation's table cost).
type Widths struct {
	Blocks, Issue, Loads, Stores, FP float64
	Divider                          map[string]float64
}

// Cycles is the cycles per iteration of a loop's direct code on a core of
// the given widths: the busiest of its front end (64-byte blocks), issue,
// load, store and floating-point resources (docs/predict.md, "In-core
// time from the compiled code"). Bound names that resource ("instructions")
// and How says it with its numbers ("18 instructions / 6 per cycle").
func Cycles(b Body, w Widths) (cycles float64, bound, how string) {
	for _, r := range []struct {
		n     int
		width float64
		name  string
	}{
		{b.Blocks, w.Blocks, "64-byte blocks"},
		{b.Insts, w.Issue, "instructions"},
		{b.Loads, w.Loads, "loads"},
		{b.Stores, w.Stores, "stores"},
		{b.FP, w.FP, "floating-point instructions"},
	} {
		if r.width > 0 && float64(r.n)/r.width > cycles {
			cycles, bound = float64(r.n)/r.width, r.name
			how = fmt.Sprintf("%d %s / %s per cycle", r.n, r.name, strconv.FormatFloat(r.width, 'g', 4, 64))
		}
	}
	if held, parts := dividerCycles(b, w); held > cycles {
		cycles, bound = held, "divider"
		how = strings.Join(parts, " + ") + " on the divider"
	}
	return cycles, bound, how
}

// dividerCycles is the cycles a body's divides and square roots hold the
// divider for, of the kinds w.Divider gives, with each kind's part said
// ("1 div f64 × 4.6 cycles"), in a fixed order.
func dividerCycles(b Body, w Widths) (float64, []string) {
	var total float64
	var parts []string
	for _, kind := range slices.Sorted(maps.Keys(b.Dividers)) {
		occ, ok := w.Divider[kind]
		if !ok || occ <= 0 {
			continue
		}
		n := b.Dividers[kind]
		total += float64(n) * occ
		parts = append(parts, fmt.Sprintf("%d %s × %s cycles", n, kind, strconv.FormatFloat(occ, 'g', 4, 64)))
	}
	return total, parts
}
