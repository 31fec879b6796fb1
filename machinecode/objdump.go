// Package machinecode reads the machine code of a built generated program
// (codegen.Build): its loops, with what the code directly in each does
// (bytes, 64-byte blocks spanned, instructions, loads, stores, floating-point
// operations, divides, calls), mapped to the kernel loops they run. The
// in-core pricing of compose: ecm prices a loop's iterations by this code
// when it is given (docs/predict.md, "In-core time from the compiled code"),
// as Kerncraft prices a kernel by IACA, OSACA or llvm-mca on its compiled
// loop. The code is read with `go tool objdump`, which every host that can
// build the program has.
package machinecode

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Inst is one instruction as go tool objdump prints it.
type Inst struct {
	File string // base name of the source file, "main.go"
	Line int    // source line (0 when objdump gives none)
	Addr uint64
	Len  int    // bytes
	Op   string // mnemonic, "ADDSD"
	Args []string
}

// Func is one function's instructions, in address order.
type Func struct {
	Name  string
	File  string // the file the function is declared in (its TEXT line)
	Insts []Inst
}

// ParseObjdump reads the output of `go tool objdump` (the text form:
// "TEXT name(SB) file" headers, then one line per instruction
// "  main.go:110  0x4de25e  4869f010080000  IMULQ $0x810, AX, SI").
func ParseObjdump(r io.Reader) ([]Func, error) {
	var funcs []Func
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if strings.TrimSpace(text) == "" {
			continue
		}
		if rest, ok := strings.CutPrefix(text, "TEXT "); ok {
			name, file, _ := strings.Cut(rest, " ")
			funcs = append(funcs, Func{Name: strings.TrimSuffix(name, "(SB)"), File: file})
			continue
		}
		if len(funcs) == 0 {
			return nil, fmt.Errorf("objdump output line %d: an instruction before any TEXT header: %q", line, text)
		}
		in, err := parseInst(text)
		if err != nil {
			return nil, fmt.Errorf("objdump output line %d: %v", line, err)
		}
		f := &funcs[len(funcs)-1]
		f.Insts = append(f.Insts, in)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return funcs, nil
}

// parseInst reads one instruction line: tab-separated position, address,
// encoding and assembly.
func parseInst(text string) (Inst, error) {
	var fields []string
	for _, f := range strings.Split(text, "\t") {
		if f = strings.TrimSpace(f); f != "" {
			fields = append(fields, f)
		}
	}
	if len(fields) < 3 {
		return Inst{}, fmt.Errorf("not an instruction line: %q", text)
	}
	var in Inst
	pos := fields[0]
	if i := strings.LastIndexByte(pos, ':'); i > 0 {
		in.File = pos[:i]
		in.Line, _ = strconv.Atoi(pos[i+1:])
	}
	addr, err := strconv.ParseUint(strings.TrimPrefix(fields[1], "0x"), 16, 64)
	if err != nil {
		return Inst{}, fmt.Errorf("bad address %q in %q", fields[1], text)
	}
	in.Addr = addr
	enc := fields[2]
	if len(enc)%2 != 0 || strings.Trim(enc, "0123456789abcdef") != "" {
		return Inst{}, fmt.Errorf("bad encoding %q in %q", enc, text)
	}
	in.Len = len(enc) / 2
	if len(fields) < 4 {
		in.Op = "?" // bytes objdump could not decode
		return in, nil
	}
	asm := strings.Join(fields[3:], " ")
	op, args, _ := strings.Cut(asm, " ")
	in.Op = op
	if args = strings.TrimSpace(args); args != "" {
		in.Args = splitArgs(args)
	}
	return in, nil
}

// splitArgs splits "0(R8)(BX*8), X0" at the commas outside parentheses.
func splitArgs(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// isMem reports whether an operand is in memory: an address in
// parentheses (0x8(AX), 0(R8)(BX*8)), or a symbol (SB), which is a load
// from the constant pool ($f64.3ff8000000000000(SB)) except as a call's
// or branch's target.
func isMem(arg string) bool { return strings.Contains(arg, "(") }

// branchTarget is the address a jump goes to, when it is a direct jump
// within the text ("JL 0x4de25c").
func (in Inst) branchTarget() (uint64, bool) {
	if !strings.HasPrefix(in.Op, "J") || len(in.Args) != 1 {
		return 0, false
	}
	t, err := strconv.ParseUint(strings.TrimPrefix(in.Args[0], "0x"), 16, 64)
	return t, err == nil && strings.HasPrefix(in.Args[0], "0x")
}
