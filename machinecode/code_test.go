package machinecode

import (
	"os"
	"strings"
	"testing"
)

// readFixture reads the objdump and main.go of the generated stencil2d
// (validate/kernels/stencil2d.spmd, n = 32) kept in testdata.
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

func TestStencilLoops(t *testing.T) {
	c := readFixture(t)
	for _, l := range c.Loops {
		t.Logf("%s [%#x,%#x) parent %d kernel %q lines %d-%d %+v", l.Func, l.Start, l.End, l.Parent, l.Kernel, l.FirstLine, l.LastLine, l.Body)
	}
	t.Logf("%+v %v", c.Spans, c.ByKernel)
}
