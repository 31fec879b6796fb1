package machinecode

import (
	"slices"
	"sort"
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
	Calls   []string
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
	if strings.HasPrefix(op, "DIV") || strings.HasPrefix(op, "IDIV") || strings.HasPrefix(op, "SQRT") {
		b.Divides++
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

// FindLoops finds the machine loops of a function: every backward branch
// (a jump to an address at or before its own within the function) closes
// a loop that starts at its target; branches to the same target are one
// loop. Loops are returned by start address, outer before inner, with
// their nesting and their direct code's Body.
func FindLoops(f Func, mainFile string) []Loop {
	if len(f.Insts) == 0 {
		return nil
	}
	lo, hi := f.Insts[0].Addr, f.Insts[len(f.Insts)-1].Addr
	ends := map[uint64]uint64{}
	for _, in := range f.Insts {
		t, ok := in.branchTarget()
		if !ok || t > in.Addr || t < lo || t > hi {
			continue
		}
		ends[t] = max(ends[t], in.Addr+uint64(in.Len))
	}
	var loops []Loop
	for s, e := range ends {
		loops = append(loops, Loop{Func: f.Name, Start: s, End: e, Parent: -1})
	}
	sort.Slice(loops, func(i, j int) bool {
		if loops[i].Start != loops[j].Start {
			return loops[i].Start < loops[j].Start
		}
		return loops[i].End > loops[j].End
	})
	for i := range loops {
		for j := i - 1; j >= 0; j-- {
			if loops[j].Start <= loops[i].Start && loops[i].End <= loops[j].End {
				loops[i].Parent = j
				break
			}
		}
	}
	for i := range loops {
		l := &loops[i]
		var direct []Inst
		for _, in := range f.Insts {
			if in.Addr < l.Start || in.Addr >= l.End {
				continue
			}
			if in.File == mainFile && in.Line > 0 {
				if l.FirstLine == 0 || in.Line < l.FirstLine {
					l.FirstLine = in.Line
				}
				l.LastLine = max(l.LastLine, in.Line)
			}
			if inChild(loops, i, in.Addr) {
				continue
			}
			direct = append(direct, in)
			l.Body.add(in)
		}
		l.Blocks = blocks(direct)
	}
	return loops
}

// inChild reports whether addr lies in a loop nested in loop i.
func inChild(loops []Loop, i int, addr uint64) bool {
	for j := i + 1; j < len(loops); j++ {
		if loops[j].Start >= loops[i].End {
			break
		}
		if loops[j].Start <= addr && addr < loops[j].End && isInside(loops, j, i) {
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

// CallNames lists the distinct callees of a body, sorted.
func (b Body) CallNames() []string {
	out := slices.Clone(b.Calls)
	slices.Sort(out)
	return slices.Compact(out)
}
