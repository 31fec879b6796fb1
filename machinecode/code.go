package machinecode

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Span is the lines of main.go a kernel loop's code is written on: for a
// `for`, the block codegen opens with `{ // for at L:C` (the references
// hoisted out of the loop, the Go for, what it stores back); for a
// `repeat`, the Go for whose line ends `// repeat at L:C`.
type Span struct {
	Pos         string // "line:col" of the kernel loop ("line:col#2" for a second loop there: lang.Checked.LoopSuffix)
	First, Last int    // main.go lines
}

// loopComment matches codegen's comments on a kernel loop's first line.
var loopComment = regexp.MustCompile(`^// (for|repeat) at (\d+:\d+(?:#\d+)?)$`)

// KernelLoops reads the spans of the kernel loops from the generated
// main.go (codegen/emit.go writes the comments), by parsing it.
func KernelLoops(src []byte) ([]Span, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "main.go", src, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("reading the generated main.go: %w", err)
	}
	byLine := map[int]string{}
	for _, g := range f.Comments {
		for _, c := range g.List {
			if m := loopComment.FindStringSubmatch(c.Text); m != nil {
				byLine[fset.Position(c.Pos()).Line] = m[2]
			}
		}
	}
	var spans []Span
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BlockStmt:
			line := fset.Position(n.Lbrace).Line
			if pos, ok := byLine[line]; ok && strings.HasSuffix(strings.TrimSpace(lineText(src, line)), "for at "+pos) &&
				strings.HasPrefix(strings.TrimSpace(lineText(src, line)), "{") {
				spans = append(spans, Span{Pos: pos, First: line, Last: fset.Position(n.Rbrace).Line})
			}
		case *ast.ForStmt:
			line := fset.Position(n.Body.Lbrace).Line
			if pos, ok := byLine[line]; ok && strings.HasSuffix(lineText(src, line), "repeat at "+pos) {
				spans = append(spans, Span{Pos: pos, First: fset.Position(n.For).Line, Last: fset.Position(n.Body.Rbrace).Line})
			}
		}
		return true
	})
	return spans, nil
}

// lineText is line n (1-based) of src.
func lineText(src []byte, n int) string {
	lines := bytes.Split(src, []byte("\n"))
	if n < 1 || n > len(lines) {
		return ""
	}
	return string(lines[n-1])
}

// Code is what perfc read of a built program: its machine loops, the
// kernel loops' spans, and which machine loop runs which kernel loop.
type Code struct {
	Binary string
	Loops  []Loop
	Spans  []Span
	// ByKernel maps a kernel loop ("line:col") to the one machine loop
	// that runs it. A kernel loop with no machine loop, or with several
	// (code the compiler duplicated, or a loop of its own inside it), is
	// not in the map, and Notes say why.
	ByKernel map[string]int
	Notes    []string
}

// Map finds, for every machine loop of main.go's functions, the kernel
// loop it runs: the innermost span that strictly holds the kernel loops of
// the machine loops nested in it and at least half of the main.go lines of
// its direct instructions that lie in some span. Go attributes a few
// instructions to other lines (a spilled var's reload to its declaration,
// an inner loop's set-up to the inner loop's line), so no single line, and
// not every line, decides.
func Map(funcs []Func, spans []Span) *Code {
	c := &Code{Spans: spans, ByKernel: map[string]int{}}
	for _, f := range funcs {
		if filepath.Base(f.File) != "main.go" {
			continue
		}
		c.Loops = append(c.Loops, rebase(FindLoops(f, "main.go"), len(c.Loops))...)
	}
	inSpan := func(line int) bool {
		for _, s := range spans {
			if s.First <= line && line <= s.Last {
				return true
			}
		}
		return false
	}
	spanOf := map[string]Span{}
	for _, s := range spans {
		spanOf[s.Pos] = s
	}
	count := map[string]int{}
	// Inner loops first (FindLoops returns outer loops first, per function).
	for i := len(c.Loops) - 1; i >= 0; i-- {
		l := &c.Loops[i]
		var lines []int
		for _, line := range l.directLines {
			if inSpan(line) {
				lines = append(lines, line)
			}
		}
		if len(lines) == 0 {
			continue
		}
		var children []Span
		for j := range c.Loops {
			if c.Loops[j].Parent == i && c.Loops[j].Kernel != "" {
				children = append(children, spanOf[c.Loops[j].Kernel])
			}
		}
		best := -1
		for j, s := range spans {
			ok := true
			for _, ch := range children {
				if !(s.First <= ch.First && ch.Last <= s.Last) || s == ch {
					ok = false
				}
			}
			held := 0
			for _, line := range lines {
				if s.First <= line && line <= s.Last {
					held++
				}
			}
			if ok && 2*held >= len(lines) && (best < 0 || s.Last-s.First < spans[best].Last-spans[best].First) {
				best = j
			}
		}
		if best < 0 {
			continue
		}
		l.Kernel = spans[best].Pos
		count[l.Kernel]++
		c.ByKernel[l.Kernel] = i
	}
	for k, n := range count {
		if n > 1 {
			delete(c.ByKernel, k)
			c.Notes = append(c.Notes, fmt.Sprintf("the kernel loop at %s runs as %d machine loops: it is priced by its counts", k, n))
		}
	}
	sort.Strings(c.Notes)
	return c
}

// rebase shifts the parent indices of loops appended after off others.
func rebase(loops []Loop, off int) []Loop {
	for i := range loops {
		if loops[i].Parent >= 0 {
			loops[i].Parent += off
		}
	}
	return loops
}

// Inside lists the kernel loops whose span lies within pos's (pos itself
// included): the loop and the loops nested in it.
func (c *Code) Inside(pos string) []string {
	var outer *Span
	for i := range c.Spans {
		if c.Spans[i].Pos == pos {
			outer = &c.Spans[i]
		}
	}
	if outer == nil {
		return nil
	}
	var out []string
	for _, s := range c.Spans {
		if outer.First <= s.First && s.Last <= outer.Last {
			out = append(out, s.Pos)
		}
	}
	return out
}

// Read disassembles the timed build bin of the generated program in dir
// (its main.go beside it) with the Go toolchain's objdump and maps its
// loops to the kernel's.
func Read(ctx context.Context, dir, bin string) (*Code, error) {
	src, err := os.ReadFile(filepath.Join(dir, "main.go"))
	if err != nil {
		return nil, fmt.Errorf("reading the generated program's code: %w", err)
	}
	spans, err := KernelLoops(src)
	if err != nil {
		return nil, err
	}
	gocmd, err := exec.LookPath("go")
	if err != nil {
		return nil, errors.New("reading the generated program's machine code needs the Go toolchain (go tool objdump): put the go command on PATH (https://go.dev/dl)")
	}
	cmd := exec.CommandContext(ctx, gocmd, "tool", "objdump", "-s", `^main\.`, bin)
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOTOOLCHAIN=local", "GOFLAGS=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go tool objdump %s failed (%v): %s", bin, err, strings.TrimSpace(stderr.String()))
	}
	funcs, err := ParseObjdump(bytes.NewReader(out))
	if err != nil {
		return nil, err
	}
	c := Map(funcs, spans)
	c.Binary = bin
	return c, nil
}
