package codegen

import (
	"bytes"
	"context"
	"errors"
	"go/ast"
	"go/format"
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"perfc/analyze"
	"perfc/codegen/spmd"
	goldenfile "perfc/internal/golden"
	"perfc/lang"
)

// TestGeneratedSourceIsGo generates every example and test kernel and
// checks that each file is formatted Go that parses.
func TestGeneratedSourceIsGo(t *testing.T) {
	names, kernels := testKernels(t)
	for _, name := range names {
		p, err := Generate(kernels[name], Options{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		var files []string
		for _, f := range p.Files {
			files = append(files, f.Name)
			if !strings.HasSuffix(f.Name, ".go") {
				continue
			}
			if _, err := parser.ParseFile(token.NewFileSet(), f.Name, f.Data, parser.ParseComments); err != nil {
				t.Errorf("%s/%s does not parse: %v", name, f.Name, err)
			}
			if formatted, err := format.Source(f.Data); err != nil || !bytes.Equal(formatted, f.Data) {
				t.Errorf("%s/%s is not gofmt-formatted", name, f.Name)
			}
		}
		if files[0] != "go.mod" || files[1] != "main.go" || len(files) < 10 {
			t.Errorf("%s: files %v, want go.mod, main.go and the runtime", name, files)
		}
	}
}

// TestGolden compares the main.go of two kernels with testdata, so that a
// change of the generated code is seen in review.
func TestGolden(t *testing.T) {
	for _, tt := range []struct{ name, spec string }{{"triad", "N=1000"}, {"gauss", "N=16,P=4"}} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Generate(checkExample(t, tt.name, tt.spec), Options{})
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", tt.name+".main.go.golden")
			got := p.File("main.go")
			goldenfile.Check(t, path, got)
		})
	}
}

// TestNamesCannotInject builds a kernel whose names are Go code, as a
// program could build an AST, and checks that they reach the generated
// source only as mangled identifiers and quoted strings.
func TestNamesCannotInject(t *testing.T) {
	const evil = `x"); os.Exit(1); ("`
	src := []byte("kernel k(N = 4) on P = 2 ranks {\n  array a[N]: f64\n  var s: f64 = 0\n" +
		"  region \"r\\\"); os.Exit(1); (\\\"\" {\n    for i in 0..N {\n      s += a[i]\n    }\n    allreduce sum s\n  }\n}\n")
	k := checkSource(t, "evil\n/*.spmd", src, "")
	renamed := map[*lang.Object]bool{}
	lang.Inspect(k.Kernel, func(n lang.Node) bool {
		if id, ok := n.(*lang.Ident); ok && id.Name != "rank" && id.Name != "P" {
			id.Name = evil + id.Name
			if obj := k.Info.ObjectOf(id); obj != nil && !renamed[obj] {
				obj.Name = evil + obj.Name
				renamed[obj] = true
			}
		}
		return true
	})
	p, err := Generate(k, Options{})
	if err != nil {
		t.Fatal(err)
	}
	main := p.File("main.go")
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "main.go", main, parser.ParseComments)
	if err != nil {
		t.Fatalf("main.go does not parse: %v\n%s", err, main)
	}
	// The only call of os.Exit is main's.
	exits := 0
	ast.Inspect(f, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Exit" {
				exits++
			}
		}
		return true
	})
	if exits != 1 {
		t.Errorf("main.go calls os.Exit %d times, want once (in main)", exits)
	}
	// The names' code never appears as tokens: os.Exit(1) is in string
	// literals and comments only.
	var s scanner.Scanner
	s.Init(fset.AddFile("main.go", -1, len(main)), main, nil, 0)
	var recent []string
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		recent = append(recent, tok.String()+lit)
		if n := len(recent); n >= 5 && strings.Join(recent[n-5:], " ") == "IDENTos . IDENTExit ( INT1" {
			t.Errorf("main.go calls os.Exit(1) in code")
		}
	}
	if !bytes.Contains(main, []byte(strconv.Quote(evil+"a"))) {
		t.Errorf("main.go does not carry the array's name as a quoted string")
	}
	if testing.Short() {
		return
	}
	if _, err := goTool(); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	if err := p.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	goCommand(t, dir, "vet", ".")
}

// TestMangle checks the Go names of kernel objects.
func TestMangle(t *testing.T) {
	tests := []struct {
		name string
		nth  int
		want string
	}{
		{"a", 1, "k_a"},
		{"pivot_row", 1, "k_pivot_row"},
		{"i", 2, "k2_i"},
		{"x\"y", 1, "kx_782279"},
		{"x\"y", 3, "kx3_782279"},
		{"", 1, "kx_"},
	}
	for _, tt := range tests {
		if got := mangle(tt.name, tt.nth); got != tt.want {
			t.Errorf("mangle(%q, %d) = %q, want %q", tt.name, tt.nth, got, tt.want)
		}
	}
}

// TestMemoryIsChecked checks that a kernel too large for the machine is
// refused with its size, against a limit or the available memory.
func TestMemoryIsChecked(t *testing.T) {
	k := checkExample(t, "triad", "N=1000000") // 24 MB
	tests := []struct {
		name    string
		opts    Options
		wantErr string
	}{
		{"fits", Options{MemLimit: 100 << 20}, ""},
		{"over the limit", Options{MemLimit: 1 << 20}, "needs 22.9 MiB of memory for its arrays and message buffers, more than the limit of 1.0 MiB"},
		{"over 80% of available", Options{MemAvailable: func() (int64, error) { return 25 << 20, nil }},
			"more than 80% of the 25.0 MiB this machine has available"},
		{"within 80% of available", Options{MemAvailable: func() (int64, error) { return 40 << 20, nil }}, ""},
		{"unknown memory", Options{MemAvailable: func() (int64, error) { return 0, errors.New("no /proc") }}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Generate(k, tt.opts)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Generate: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Generate error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

// TestMemoryNeed checks the estimate on kernels whose buffers are known,
// a `SIZE bytes` that varies by rank (its largest value counts), and sizes
// whose total does not fit in 64 bits (refused with the largest part; the
// sum wrapped to a negative or a small number before).
func TestMemoryNeed(t *testing.T) {
	const rankBytes = "kernel rb() on P = 4 ranks {\n  sendrecv 1000 * rank bytes to (rank + 1) % P from (rank + P - 1) % P\n}\n"
	const slices = "kernel sl(n = 100) on P = 4 ranks {\n  array x[100]: f64\n  bcast x[0:10] from 0\n  alltoall x[2:100:4]\n  bcast x[0:n] from 0\n  bcast x[90:100] from 0\n}\n"
	const huge = "kernel huge(N = 536870912) on P = 4 ranks {\n  array a[N][N]: f64\n  for i in 0..2 {\n    a[i][0] = 1.0\n  }\n}\n"
	tests := []struct {
		name, src, spec string
		want            int64
		wantErr         string
	}{
		{name: "triad", spec: "N=1000", want: 3*8000 + 16},
		// 4 ranks × (8 KiB) + allgather of 64 bytes: 4·4·64, slots 2·16·8.
		{name: "concat", spec: "l=64,P=4", want: 4*4*64 + 2*16*8},
		// scatter from a constant root: the root's 5 blocks, 25 tree blocks.
		{name: "scatter", spec: "m=10,P=5,root=1", want: 5*10 + 25*10 + 2*25*8},
		// slices with constant bounds count what they select: x[0:10]
		// 80 B, x[2:100:4] 25 elements, x[0:n] the whole array (n is a
		// parameter, folded), x[90:100] 10 elements.
		// The strided payload is packed into a kernel array of its 25
		// elements on every rank (4·200).
		{name: "slices", src: slices, want: 4*800 + 2*4*80 + 2*4*4*200 + 4*200 + 2*4*800 + 2*4*80 + 2*16*8},
		// rank 3 sends the most, 3000 bytes: 2 buffers × 4 ranks × 3000.
		{name: "rank-varying bytes", src: rankBytes, want: 2*4*3000 + 2*16*8},
		// 2^61 bytes per rank × 4 ranks = 2^63, one more than an int64 holds.
		{name: "huge on 4 ranks", src: huge, wantErr: "the kernel needs 9223372036854776064 B of memory for its arrays and message buffers (array a, 2.0 EiB per rank on 4 ranks: 9223372036854775808 B), more than any machine has"},
		// × 8 ranks wrapped to 1.0 KiB.
		{name: "huge on 8 ranks", src: huge, spec: "P=8", wantErr: "(array a, 2.0 EiB per rank on 8 ranks: 18446744073709551616 B)"},
	}
	for _, tt := range tests {
		var k *lang.Checked
		if tt.src != "" {
			k = checkSource(t, tt.name+".spmd", []byte(tt.src), tt.spec)
		} else {
			k = checkExample(t, tt.name, tt.spec)
		}
		got, err := memoryNeed(k)
		switch {
		case tt.wantErr == "" && (err != nil || got != tt.want):
			t.Errorf("%s %s: memoryNeed = %d, %v; want %d", tt.name, tt.spec, got, err, tt.want)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s %s: memoryNeed = %d, %v; want an error containing %q", tt.name, tt.spec, got, err, tt.wantErr)
		}
	}
}

// TestWriteDirProtectsOtherCode checks that a program is never written
// over code perfc did not write, and can be rewritten over its own.
func TestWriteDirProtectsOtherCode(t *testing.T) {
	p, err := Generate(checkExample(t, "triad", "N=10"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := p.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	if err := p.WriteDir(dir); err != nil {
		t.Errorf("rewriting a generated program: %v", err)
	}
	for _, name := range []string{"go.mod", "util.go"} {
		other := t.TempDir()
		if err := os.WriteFile(filepath.Join(other, name), []byte("package x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		err := p.WriteDir(other)
		if err == nil || !strings.Contains(err.Error(), "holds "+name+", which perfc did not write") {
			t.Errorf("writing next to %s: error %v", name, err)
		}
		if _, statErr := os.Stat(filepath.Join(other, "main.go")); statErr == nil {
			t.Errorf("main.go was written next to %s", name)
		}
	}
}

// TestCompareCountsFindsDifferences checks the comparison itself: a run
// that did one load more than the analyzer counted is a difference; the
// counts of a prob branch are listed apart.
func TestCompareCountsFindsDifferences(t *testing.T) {
	k := checkExample(t, "gauss", "N=8,P=2")
	p, err := Generate(k, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := analyze.Analyze(k, analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ex := &spmd.Executed{Schema: spmd.ExecutedSchema, Ranks: 2}
	for rank := 0; rank < 2; rank++ {
		rc := spmd.RankCounts{Rank: rank}
		for _, r := range classOf(rep, int64(rank)).Regions {
			rc.Regions = append(rc.Regions, spmd.RegionCounts{Name: r.Name, Counts: executedFrom(r.Counts)})
		}
		ex.PerRank = append(ex.PerRank, rc)
	}
	ex.PerRank[1].Regions[5].Counts.Loads++ // multipliers
	c, err := CompareCounts(p, ex, rep)
	if err != nil {
		t.Fatal(err)
	}
	want := []CountDiff{{Rank: 1, Region: "multipliers", Count: "loads", Analyzer: "32", Value: 32, Executed: 33}}
	if diff := cmp.Diff(want, c.Diffs); diff != "" {
		t.Errorf("differences (-want +got):\n%s", diff)
	}
	if len(c.Data) == 0 || c.OK() {
		t.Errorf("%d data-dependent counts, OK %t; want some, and not OK", len(c.Data), c.OK())
	}
}

// executedFrom turns integral analyzer counts into executed counts, as a
// run that did exactly what the analyzer said would report them.
func executedFrom(c analyze.Counts) spmd.Counts {
	n := func(x analyze.Count) int64 {
		if x.Value == nil {
			return 0
		}
		f, _ := x.Value.Float64()
		return int64(f)
	}
	out := spmd.Counts{Iterations: n(c.Iterations), Flop: n(c.Flop), IntOps: n(c.IntOps), MaddPairs: n(c.MaddPairs),
		Loads: n(c.Loads), Stores: n(c.Stores), LoadBytes: n(c.LoadBytes), StoreBytes: n(c.StoreBytes), Barriers: n(c.Barriers),
		LoopEntries: n(c.LoopEntries), RegionEntries: n(c.RegionEntries), InnerRegionEntries: n(c.InnerRegionEntries)}
	for _, o := range c.Ops {
		out.Ops = append(out.Ops, spmd.OpCount{Op: o.Op.String(), Type: string(o.Type), Pattern: o.Pattern, Count: n(o.Count)})
	}
	for _, o := range c.Madds {
		out.Madds = append(out.Madds, spmd.OpCount{Op: o.Op.String(), Type: string(o.Type), Pattern: o.Pattern, Count: n(o.Count)})
	}
	for _, r := range c.Refs {
		out.Refs = append(out.Refs, spmd.RefCount{Array: r.Array, Pos: r.Pos, Text: r.Text, Store: r.Store, Count: n(r.Count)})
	}
	for _, m := range c.Messages {
		out.Messages = append(out.Messages, spmd.Message{Kind: m.Kind, Stmt: m.Stmt, PeerRank: m.Rank, Count: n(m.Count), Bytes: n(m.Bytes)})
	}
	for _, col := range c.Collectives {
		out.Collectives = append(out.Collectives, spmd.Collective{Kind: col.Kind, Stmt: col.Stmt, Count: n(col.Count), Bytes: n(col.Bytes)})
	}
	return out
}

// buildOne generates a kernel into its own module and builds it.
func buildOne(t *testing.T, k *lang.Checked, counting bool, gcflags string) (dir, bin string, out []byte) {
	t.Helper()
	if _, err := goTool(); err != nil {
		t.Skip(err)
	}
	p, err := Generate(k, Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	if err := p.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	bin = filepath.Join(dir, "kernel")
	args := []string{"build", "-o", bin}
	if counting {
		args = append(args, "-tags", "perfc_count")
	}
	if gcflags != "" {
		args = append(args, "-gcflags="+gcflags)
	}
	cmd := exec.Command("go", append(args, ".")...)
	cmd.Dir, cmd.Env = dir, goEnv()
	out, err = cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return dir, bin, out
}

// TestHotLoopsHaveNoBoundsChecks builds triad and matmul with the
// compiler's bounds-check report and checks that the kernel body has none
// left.
func TestHotLoopsHaveNoBoundsChecks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds programs")
	}
	for _, tt := range []struct{ name, spec string }{{"triad", "N=4096"}, {"matmul", "N=64"}, {"matmul_transposed", "N=64"}} {
		t.Run(tt.name, func(t *testing.T) {
			dir, _, out := buildOne(t, checkExample(t, tt.name, tt.spec), false, "-d=ssa/check_bce/debug=1")
			first, last := runLines(t, filepath.Join(dir, "main.go"))
			found := regexp.MustCompile(`main\.go:(\d+):\d+: Found Is(Slice)?InBounds`)
			for _, m := range found.FindAllSubmatch(out, -1) {
				line, _ := strconv.Atoi(string(m[1]))
				if line >= first && line <= last {
					t.Errorf("a bounds check is left in the kernel body: %s", m[0])
				}
			}
		})
	}
}

// runLines returns the lines of the kernel body (method run) in main.go.
func runLines(t *testing.T, path string) (first, last int) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "run" {
			return fset.Position(fn.Pos()).Line, fset.Position(fn.End()).Line
		}
	}
	t.Fatal("main.go has no run method")
	return 0, 0
}

// TestTimedProgram runs a timed build and checks its report, its flags
// and its refusals.
func TestTimedProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	_, bin, _ := buildOne(t, checkExample(t, "stencil1d", "n=64,iters=3,P=3"), false, "")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m, err := Measure(ctx, bin, "-reps", "2", "-samples", "3")
	if err != nil {
		t.Fatal(err)
	}
	var regions []string
	for _, r := range m.Regions {
		regions = append(regions, r.Name)
		if len(r.SamplesUs) != 3 || r.MinUs > r.MedianUs || r.MedianUs > r.MaxUs || r.MinUs < 0 {
			t.Errorf("region %s: %+v is not three ordered samples", r.Name, r)
		}
	}
	want := []string{"(outside regions)", "halo exchange", "stencil", "copy", "convergence test"}
	if diff := cmp.Diff(want, regions); diff != "" {
		t.Errorf("regions (-want +got):\n%s", diff)
	}
	if m.Runs != 2 || m.Samples != 3 || m.Ranks != 3 || !m.Finite || m.Instrumented || m.Tick1Us <= 0 || m.Total.MinUs <= 0 {
		t.Errorf("measurement %+v", m)
	}
	for _, tt := range []struct {
		args    []string
		wantErr string
	}{
		{[]string{"-count"}, "this build does not count; build it with the counting code"},
		{[]string{"-mem-limit", "100"}, "needs 3.4 KiB of memory for its arrays and message buffers, more than the limit of 100 B"},
		{[]string{"-samples", "0"}, "-samples 0: give at least 1 measurement"},
		{[]string{"extra"}, `unexpected argument "extra"`},
	} {
		if _, err := Run(ctx, bin, tt.args...); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%v: error %v, want one containing %q", tt.args, err, tt.wantErr)
		}
	}
}
