package machinecode

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// readFixture reads the objdump and main.go of the generated stencil2d
// (validate/kernels/stencil2d.spmd, n = 32, Go 1.26 GOAMD64=v1) kept in
// testdata, and maps its loops.
func readFixture(t *testing.T) *Code {
	t.Helper()
	dump, err := os.ReadFile("testdata/stencil2d.objdump")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("testdata/stencil2d_main.go.txt")
	if err != nil {
		t.Fatal(err)
	}
	funcs, err := ParseObjdump(strings.NewReader(string(dump)))
	if err != nil {
		t.Fatal(err)
	}
	spans, err := KernelLoops(src)
	if err != nil {
		t.Fatal(err)
	}
	return Map(funcs, spans)
}

func TestParseInstruction(t *testing.T) {
	for _, tc := range []struct {
		line string
		want Inst
	}{
		{"  main.go:110\t\t0x4de25c\t\t4869f010010000\t\tIMULQ $0x110, AX, SI\t\t\t",
			Inst{File: "main.go", Line: 110, Addr: 0x4de25c, Len: 7, Op: "IMULQ", Args: []string{"$0x110", "AX", "SI"}}},
		{"  main.go:110\t\t0x4de27c\t\tf2410f5804d9\t\tADDSD 0(R9)(BX*8), X0\t\t\t",
			Inst{File: "main.go", Line: 110, Addr: 0x4de27c, Len: 6, Op: "ADDSD", Args: []string{"0(R9)(BX*8)", "X0"}}},
		{"  main.go:103\t\t0x4de2ba\t\teb90\t\t\tJMP 0x4de24c\t\t\t\t",
			Inst{File: "main.go", Line: 103, Addr: 0x4de2ba, Len: 2, Op: "JMP", Args: []string{"0x4de24c"}}},
		{"  main.go:117\t\t0x4de2cb\t\tc3\t\t\tRET\t\t\t\t\t",
			Inst{File: "main.go", Line: 117, Addr: 0x4de2cb, Len: 1, Op: "RET"}},
	} {
		got, err := parseInst(tc.line)
		if err != nil {
			t.Errorf("parseInst(%q): %v", tc.line, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("parseInst(%q) (-want +got):\n%s", tc.line, diff)
		}
	}
	if _, err := ParseObjdump(strings.NewReader("  main.go:1\t0x10\t90\tNOPL\n")); err == nil {
		t.Error("an instruction before any TEXT header: no error")
	}
	if _, err := ParseObjdump(strings.NewReader("TEXT main.f(SB) main.go\n  main.go:1\t0xzz\t90\tNOPL\n")); err == nil {
		t.Error("a bad address: no error")
	}
}

// TestBodyCounts counts loads, stores and floating-point work the way the
// pricing reads them.
func TestBodyCounts(t *testing.T) {
	for _, tc := range []struct {
		asm  string
		want Body
	}{
		{"MOVSD_XMM 0(R8)(BX*8), X0", Body{Insts: 1, Loads: 1}},
		{"MOVSD_XMM X0, 0(DI)(BX*8)", Body{Insts: 1, Stores: 1}},
		{"ADDSD 0(R9)(BX*8), X0", Body{Insts: 1, Loads: 1, FP: 1}},
		{"MULSD X1, X0", Body{Insts: 1, FP: 1}},
		{"MOVSD_XMM $f64.3fc999999999999a(SB), X1", Body{Insts: 1, Loads: 1}},
		{"LEAQ 0x110(SI), SI", Body{Insts: 1}},
		{"ADDQ $0x1, 0x8(AX)", Body{Insts: 1, Loads: 1, Stores: 1}},
		{"CMPQ 0x10(R14), SP", Body{Insts: 1, Loads: 1}},
		{"DIVSD X1, X0", Body{Insts: 1, Divides: 1, Dividers: map[string]int{"div f64": 1}}},
		{"DIVSS 0(AX), X0", Body{Insts: 1, Loads: 1, Divides: 1, Dividers: map[string]int{"div f32": 1}}},
		{"SQRTSD X0, X0", Body{Insts: 1, Divides: 1, Dividers: map[string]int{"sqrt f64": 1}}},
		{"SQRTSS X0, X0", Body{Insts: 1, Divides: 1, Dividers: map[string]int{"sqrt f32": 1}}},
		{"IDIVQ CX", Body{Insts: 1, Divides: 1, Dividers: map[string]int{"div i64": 1}}},
		{"DIVQ CX", Body{Insts: 1, Divides: 1, Dividers: map[string]int{"div i64": 1}}},
		{"IDIVL CX", Body{Insts: 1, Divides: 1, Dividers: map[string]int{"div i32": 1}}},
		{"CALL math.Exp(SB)", Body{Insts: 1, Calls: []string{"math.Exp"}}},
		{"UCOMISD X1, X0", Body{Insts: 1}},
	} {
		op, args, _ := strings.Cut(tc.asm, " ")
		var b Body
		b.add(Inst{Op: op, Args: splitArgs(args)})
		if diff := cmp.Diff(tc.want, b); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.asm, diff)
		}
	}
}

// TestBlocks counts 64-byte blocks from real addresses: a body that
// crosses a boundary touches two, however short.
func TestBlocks(t *testing.T) {
	for _, tc := range []struct {
		name  string
		insts []Inst
		want  int
	}{
		{"inside one block", []Inst{{Addr: 0x1000, Len: 4}, {Addr: 0x1004, Len: 60}}, 1},
		{"instruction across a boundary", []Inst{{Addr: 0x103e, Len: 4}}, 2},
		{"ends on a boundary", []Inst{{Addr: 0x1038, Len: 8}}, 1},
		{"94 bytes from 0x5c", []Inst{{Addr: 0x105c, Len: 94}}, 2},
		{"94 bytes from 0x3c", []Inst{{Addr: 0x103c, Len: 94}}, 3},
		{"a gap (a nested loop) between", []Inst{{Addr: 0x1000, Len: 4}, {Addr: 0x1100, Len: 4}}, 2},
	} {
		if got := blocks(tc.insts); got != tc.want {
			t.Errorf("%s: %d blocks, want %d", tc.name, got, tc.want)
		}
	}
}

// TestStencilLoops checks the loops of the stencil's compiled sweep: the
// inner loop (for at 14:7) is the 94 bytes from the row arithmetic to
// JL, over two 64-byte blocks at the fixture's addresses, with its five
// loads of u and the constant pool's 0.2; the outer loop (13:5) has only
// its increment, compare and the inner loop's set-up.
func TestStencilLoops(t *testing.T) {
	c := readFixture(t)
	if diff := cmp.Diff([]Span{{Pos: "13:5", First: 94, Last: 114}, {Pos: "14:7", First: 102, Last: 112}}, c.Spans); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
	outer, inner := c.ByKernel["13:5"], c.ByKernel["14:7"]
	if got := c.Loops[inner]; got.Start != 0x4de25c || got.End != 0x4de2ba || got.Parent != outer {
		t.Errorf("inner loop [%#x, %#x) parent %d, want [0x4de25c, 0x4de2ba) parent %d", got.Start, got.End, got.Parent, outer)
	}
	if diff := cmp.Diff(Body{Bytes: 94, Blocks: 2, Insts: 18, Loads: 6, Stores: 1, FP: 5}, c.Loops[inner].Body); diff != "" {
		t.Errorf("inner loop body (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Body{Bytes: 18, Blocks: 2, Insts: 6}, c.Loops[outer].Body); diff != "" {
		t.Errorf("outer loop body (-want +got):\n%s", diff)
	}
	if got := c.Inside("13:5"); !cmp.Equal(got, []string{"13:5", "14:7"}) {
		t.Errorf("Inside(13:5) = %v", got)
	}
	// The loops of kernelInfo and checksum belong to no kernel loop.
	for _, l := range c.Loops {
		if !strings.HasSuffix(l.Func, ".run") && l.Kernel != "" {
			t.Errorf("loop of %s mapped to the kernel loop at %s", l.Func, l.Kernel)
		}
	}
}

// readBuilt generates a kernel with perfc gen (args: its -D flags and
// file), builds it with the Go toolchain and reads its code; it skips
// the test when short or without a toolchain.
func readBuilt(t *testing.T, args ...string) *Code {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a program")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no Go toolchain")
	}
	dir := filepath.Join(t.TempDir(), "g")
	perfc := exec.Command("go", append([]string{"run", "perfc/cmd/perfc", "gen", "--out", dir}, args...)...)
	if out, err := perfc.CombinedOutput(); err != nil {
		t.Fatalf("perfc gen: %v\n%s", err, out)
	}
	build := exec.Command("go", "build", "-o", "kernel", ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	c, err := Read(context.Background(), dir, filepath.Join(dir, "kernel"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestReadBuiltStencil builds the generated stencil2d (n = 256) with the
// Go toolchain and reads it: whatever the compiler's placement, the inner
// loop is one machine loop whose body spans two or three 64-byte blocks.
func TestReadBuiltStencil(t *testing.T) {
	c := readBuilt(t, "-D", "n=256", "../validate/kernels/stencil2d.spmd")
	i, ok := c.ByKernel["14:7"]
	if !ok {
		t.Fatalf("no machine loop for the inner loop 14:7; loops %+v, notes %v", c.Loops, c.Notes)
	}
	if b := c.Loops[i].Body; b.Blocks < 2 || b.Blocks > 3 || b.Loads < 5 || b.Stores != 1 || b.FP < 5 {
		t.Errorf("inner loop body %+v: want 2-3 blocks, at least 5 loads, 1 store, at least 5 floating-point", b)
	}
	if _, ok := c.ByKernel["13:5"]; !ok {
		t.Errorf("no machine loop for the outer loop 13:5")
	}
}

// TestCycles takes the busiest resource per iteration.
func TestCycles(t *testing.T) {
	w := Widths{Blocks: 1, Issue: 6, Loads: 2, Stores: 1, FP: 4}
	for _, tc := range []struct {
		b     Body
		want  float64
		bound string
	}{
		{Body{Blocks: 2, Insts: 18, Loads: 6, Stores: 1, FP: 5}, 3, "instructions"},
		{Body{Blocks: 3, Insts: 12, Loads: 2, Stores: 1, FP: 2}, 3, "64-byte blocks"},
		{Body{Blocks: 1, Insts: 8, Loads: 3, Stores: 1, FP: 2}, 1.5, "loads"},
		{Body{Blocks: 1, Insts: 6, Loads: 0, Stores: 2, FP: 0}, 2, "stores"},
		// The divider: sweep3d_abstract's loop of 8 stores holds it for
		// one divide of 4.5 cycles, which overlaps; two divides and a
		// square root of their own do not.
		{Body{Blocks: 4, Insts: 47, Loads: 8, Stores: 8, FP: 3, Divides: 1, Dividers: map[string]int{"div f64": 1}}, 8, "stores"},
		{Body{Blocks: 1, Insts: 9, Loads: 4, Stores: 2, Divides: 2, Dividers: map[string]int{"div f64": 2}}, 9, "divider"},
		{Body{Blocks: 1, Insts: 9, Loads: 4, Stores: 2, Divides: 3, Dividers: map[string]int{"div f64": 2, "sqrt f64": 1}}, 17.5, "divider"},
		// A kind the table does not give bounds nothing.
		{Body{Blocks: 1, Insts: 7, Loads: 2, Stores: 1, Divides: 1, Dividers: map[string]int{"div i64": 1}}, 1.1666666666666667, "instructions"},
	} {
		wd := w
		wd.Divider = map[string]float64{"div f64": 4.5, "sqrt f64": 8.5}
		got, bound, _ := Cycles(tc.b, wd)
		if got != tc.want || bound != tc.bound {
			t.Errorf("Cycles(%+v) = %g (%s), want %g (%s)", tc.b, got, bound, tc.want, tc.bound)
		}
	}
	_, _, how := Cycles(Body{Blocks: 1, Dividers: map[string]int{"div f64": 2, "sqrt f64": 1}}, Widths{Blocks: 1, Divider: map[string]float64{"div f64": 4.5, "sqrt f64": 8.5}})
	if want := "2 div f64 × 4.5 cycles + 1 sqrt f64 × 8.5 cycles on the divider"; how != want {
		t.Errorf("how = %q, want %q", how, want)
	}
}

// TestReadBuiltWork builds a kernel whose work statement lowers to four
// loops at one position (two nests of two) and checks that the comments
// name them apart (4:25, 4:25#2, …, as the analyzer does) and that each
// maps to a machine loop of its own, so that they are priced by their code.
func TestReadBuiltWork(t *testing.T) {
	c := readBuilt(t, "testdata/work2d.spmd")
	var spans []string
	for _, s := range c.Spans {
		spans = append(spans, s.Pos)
	}
	sort.Strings(spans)
	if want := []string{"6:25", "6:25#2", "6:25#3", "6:25#4"}; !slices.Equal(spans, want) {
		t.Fatalf("kernel loops %q, want %q", spans, want)
	}
	for _, s := range spans {
		if _, ok := c.ByKernel[s]; !ok {
			t.Errorf("no machine loop for the kernel loop %s; notes %v", s, c.Notes)
		}
	}
}
