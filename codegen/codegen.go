// Package codegen writes a checked kernel as a self-contained Go program
// (standard library only) that runs it for real: one goroutine per rank,
// each with its own arrays filled with deterministic values, blocking
// rendezvous messages and tree collectives from the runtime in
// codegen/spmd, every region timed apart, and a checksum that keeps the
// work. Built with -tags perfc_count, the program counts what runs under
// the analyzer's rules instead, so that perfc check can compare it with
// analyze.Analyze. docs/codegen.md describes the programs and their JSON.
package codegen

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"go/format"
	"sort"
	"strconv"
	"strings"

	"perfc/codegen/spmd"
	"perfc/lang"
)

// runtimeFS holds the runtime's source, written into every program.
//
//go:embed spmd/*.go
var runtimeFS embed.FS

// Options control generation.
type Options struct {
	// MemLimit refuses a kernel that needs more bytes than this; 0 means
	// spmd.MemShare (80%) of the machine's available memory.
	MemLimit int64
	// MemAvailable reports the available memory; nil means
	// spmd.MemAvailable (/proc/meminfo). Tests substitute their own.
	MemAvailable func() (int64, error)
	// NoHoisting leaves the references the analyzer hoists out of loops
	// in memory, where they are written (they are still counted as
	// hoisted): an experiment on what keeping them in registers is worth,
	// and a test that hoisting does not change the results.
	NoHoisting bool
	// Backend is the transport of the program's ranks: goroutines of one
	// process (the zero value) or MPI processes.
	Backend Backend
	// mpi locates MPI for BackendMPI; the zero value is the system's
	// tools. Tests substitute their own.
	mpi mpiTools
}

// File is one file of a generated program.
type File struct {
	Name string
	Data []byte
}

// Program is a generated program.
type Program struct {
	Kernel   string
	Files    []File // go.mod, main.go and the runtime, sorted by name
	MemBytes int64  // memory the arrays and message buffers need, all ranks together
	Regions  []string
	Backend  Backend // the transport it was generated for
	Ranks    int     // the kernel's P: what mpirun -n must start
	sites    []site
}

// Generate writes kernel k as a Go program. It refuses a kernel that
// needs more memory than the machine has (Options.MemLimit).
func Generate(k *lang.Checked, opts Options) (*Program, error) {
	g := &generator{k: k, info: k.Info, plan: makePlan(k), names: newNamer(),
		imports: map[string]bool{"os": true, "unsafe": len(k.Info.Arrays) > 0}, binds: map[string]string{},
		rankConsts: map[lang.Expr]string{}, noHoisting: opts.NoHoisting}
	g.collectRegions()
	g.divisors = divisors(k)
	g.kernelBody()
	if g.err != nil {
		return nil, g.err
	}
	need, err := memoryNeed(k)
	if err != nil {
		return nil, fmt.Errorf("%s: kernel %s: %w", k.File.Source.Name, k.Kernel.Name.Name, err)
	}
	avail := opts.MemAvailable
	if avail == nil {
		avail = spmd.MemAvailable
	}
	if err := spmd.CheckMemory(need, opts.MemLimit, avail); err != nil {
		return nil, fmt.Errorf("%s: kernel %s: %w", k.File.Source.Name, k.Kernel.Name.Name, err)
	}
	cgo := ""
	if opts.Backend == BackendMPI {
		tools := opts.mpi
		if tools.lookPath == nil {
			tools = systemTools()
		}
		if cgo, err = tools.cgoLines(); err != nil {
			return nil, err
		}
	}
	src := g.mainFile(need, opts.Backend)
	main, err := format.Source(src)
	if err != nil {
		return nil, fmt.Errorf("%s: internal error: the generated program does not parse: %v", k.File.Source.Name, err)
	}
	p := &Program{Kernel: k.Kernel.Name.Name, MemBytes: need, Regions: g.regions, Backend: opts.Backend, Ranks: int(k.NumRanks()), sites: g.sites}
	p.Files = append(p.Files, File{Name: "go.mod", Data: []byte(generatedModule + "\ngo 1.22\n")}, File{Name: "main.go", Data: main})
	rt, err := runtimeFiles(opts.Backend, cgo)
	if err != nil {
		return nil, err
	}
	p.Files = append(p.Files, rt...)
	sort.Slice(p.Files, func(i, j int) bool { return p.Files[i].Name < p.Files[j].Name })
	return p, nil
}

// runtimeFiles returns the runtime's source as files of package main: the
// files of every transport and those of backend's (the build constraint
// perfc_mpi or !perfc_mpi, which the written files no longer carry). cgo
// is the MPI binding's #cgo lines.
func runtimeFiles(backend Backend, cgo string) ([]File, error) {
	entries, err := runtimeFS.ReadDir("spmd")
	if err != nil {
		return nil, err
	}
	var out []File
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, "_test.go") || name == "doc.go" {
			continue
		}
		data, err := runtimeFS.ReadFile("spmd/" + name)
		if err != nil {
			return nil, err
		}
		if keep, constraint := transportOf(data, backend); !keep {
			continue
		} else if constraint {
			_, data, _ = bytes.Cut(data, []byte("\n\n"))
		}
		data = mpiRuntimeFile(name, data, cgo)
		data = bytes.Replace(data, []byte("\npackage spmd\n"), []byte("\npackage main\n"), 1)
		if bytes.HasPrefix(data, []byte("package spmd\n")) {
			data = append([]byte("package main\n"), data[len("package spmd\n"):]...)
		}
		if constraint, rest, ok := bytes.Cut(data, []byte("\n\n")); ok && bytes.HasPrefix(data, []byte("//go:build")) {
			data = bytes.Join([][]byte{constraint, []byte(strings.TrimSpace(generatedHeader)), rest}, []byte("\n\n"))
		} else {
			data = append([]byte(generatedHeader+"\n"), data...)
		}
		out = append(out, File{Name: "spmd_" + name, Data: data})
	}
	return out, nil
}

// transportOf reports whether a runtime file belongs in a program of
// backend, and whether it starts with a transport's build constraint
// (which the program's file drops: the program has one transport).
func transportOf(data []byte, backend Backend) (keep, constraint bool) {
	switch {
	case bytes.HasPrefix(data, []byte("//go:build perfc_mpi\n")):
		return backend == BackendMPI, true
	case bytes.HasPrefix(data, []byte("//go:build !perfc_mpi\n")):
		return backend != BackendMPI, true
	}
	return true, false
}

// File returns the named file of the program, or nil.
func (p *Program) File(name string) []byte {
	for _, f := range p.Files {
		if f.Name == name {
			return f.Data
		}
	}
	return nil
}

// Hash identifies the program's source, for build caches.
func (p *Program) Hash() string {
	h := sha256.New()
	for _, f := range p.Files {
		fmt.Fprintf(h, "%s %d\n", f.Name, len(f.Data))
		h.Write(f.Data)
	}
	return hex.EncodeToString(h.Sum(nil))[:24]
}

// generatedHeader starts every Go file perfc writes (after the build
// constraint, where there is one), as Go's convention for generated code
// asks.
const generatedHeader = "// Code generated by perfc gen; DO NOT EDIT.\n"

// generatedModule is the module line of a generated go.mod.
const generatedModule = "module perfckernel\n"

// divisors finds the arrays whose elements appear as divisors, so that
// their integers are filled with nonzero values.
func divisors(k *lang.Checked) map[*lang.Object]bool {
	out := map[*lang.Object]bool{}
	mark := func(e lang.Expr) {
		lang.Inspect(e, func(n lang.Node) bool {
			if ix, ok := n.(*lang.IndexExpr); ok {
				if obj := k.Info.Uses[ix.Name]; obj != nil {
					out[obj] = true
				}
				return false
			}
			return true
		})
	}
	lang.Inspect(k.Kernel.Body, func(n lang.Node) bool {
		switch n := n.(type) {
		case *lang.BinaryExpr:
			if n.Op == lang.Quo || n.Op == lang.Rem {
				mark(n.Y)
			}
		case *lang.AssignStmt:
			if n.Op == lang.DivAssign {
				mark(n.Rhs)
			}
		}
		return true
	})
	return out
}

// mainFile writes main.go: the kernel's description, its arrays and its
// body.
func (g *generator) mainFile(need int64, backend Backend) []byte {
	k := g.k
	q := strconv.Quote
	var b bytes.Buffer
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	var params []string
	for _, p := range k.Params {
		params = append(params, p.Name+" = "+p.Value.String())
	}
	w("%s", generatedHeader)
	w("// Kernel %s of %s, generated with %s.", q(k.Kernel.Name.Name), q(k.File.Source.Name), q(strings.Join(params, ", ")))
	w("//")
	if backend == BackendMPI {
		w("// Every rank is an MPI process (Open MPI, through cgo).")
		w("// Time it:  go build -o kernel . && mpirun -n %d ./kernel [-json] [-reps N] [-samples N] [-min-time 0.2s]", k.NumRanks())
		w("// Count it: go build -tags perfc_count -o kernel-count . && mpirun -n %d ./kernel-count -count [-json]", k.NumRanks())
	} else {
		w("// Time it:  go run . [-json] [-reps N] [-samples N] [-min-time 0.2s]")
		w("// Count it: go run -tags perfc_count . -count [-json]")
	}
	w("package main")
	w("")
	w("import (")
	var imports []string
	for imp, used := range g.imports {
		if used {
			imports = append(imports, imp)
		}
	}
	sort.Strings(imports)
	for _, imp := range imports {
		w("%s", q(imp))
	}
	w(")")
	w("")
	w("func main() {")
	w("os.Exit(runProgram(kernelInfo(), os.Args[1:], os.Stdout, os.Stderr, os.Exit))")
	w("}")
	w("")
	g.writeDesc(&b, need)
	g.writeRankData(&b)
	w("// run executes the kernel body once on rank r.")
	w("func (d *rankData) run(r *rank) {")
	w("rank := r.id")
	w("_ = rank")
	if px, _, ok := k.Grid(); ok {
		w("rx, ry := rank%%%d, rank/%d", px, px)
		w("_, _ = rx, ry")
	}
	if len(k.Info.Arrays) > 0 {
		w("// Reading element 0 of every array checks its pointer once, here,")
		w("// so the loops need no nil checks.")
	}
	for _, a := range k.Info.Arrays {
		name := g.names.name(a)
		w("%s := d.%s", name, name)
		w("_ = %s%s", name, strings.Repeat("[0]", len(a.Dims)))
	}
	if g.prologue.Len() > 0 {
		w("// Subexpressions constant for the rank, computed once.")
		b.WriteString(g.prologue.String())
	}
	b.WriteString(g.body.String())
	w("}")
	return b.Bytes()
}

// writeDesc writes kernelInfo, the description the runtime reads.
func (g *generator) writeDesc(b *bytes.Buffer, need int64) {
	k := g.k
	q := strconv.Quote
	w := func(format string, args ...any) { fmt.Fprintf(b, format+"\n", args...) }
	w("// kernelInfo describes the kernel to the runtime: its parameters, ranks,")
	w("// regions and the site table of the counting build.")
	w("func kernelInfo() *kernelDesc {")
	w("return &kernelDesc{")
	w("name: %s,", q(k.Kernel.Name.Name))
	w("file: %s,", q(k.File.Source.Name))
	w("params: []Param{")
	for _, p := range k.Params {
		w("{Name: %s, Value: %s},", q(p.Name), q(p.Value.String()))
	}
	w("},")
	w("ranks: %d,", k.NumRanks())
	if px, py, ok := k.Grid(); ok {
		w("gridX: %d, gridY: %d,", px, py)
	}
	w("regions: []string{")
	for _, r := range g.regions {
		w("%s,", q(r))
	}
	w("},")
	if len(k.Info.Requests) > 0 {
		w("requests: []string{")
		for _, id := range k.Info.Requests {
			w("%s,", q(id.Name))
		}
		w("},")
	}
	w("sites: []site{")
	for i, s := range g.sites {
		w("%s, // %d", s.literal(), i)
	}
	w("},")
	w("memBytes: %d,", need)
	w("newRank: newRankData,")
	w("}")
	w("}")
	w("")
}

// goArrayType writes the Go type of an array: a fixed-size array, so that
// loops bounded by its dimensions need no bounds checks.
func goArrayType(a *lang.Object) string {
	var b strings.Builder
	for _, d := range a.Dims {
		fmt.Fprintf(&b, "[%d]", d)
	}
	b.WriteString(elemGoType(a.Elem))
	return b.String()
}

// elements is the number of elements of an array.
func elements(a *lang.Object) int64 {
	n := int64(1)
	for _, d := range a.Dims {
		n *= d
	}
	return n
}

// writeRankData writes the type that holds one rank's arrays, with its
// constructor, initialisation and checksum.
func (g *generator) writeRankData(b *bytes.Buffer) {
	arrays := g.k.Info.Arrays
	w := func(format string, args ...any) { fmt.Fprintf(b, format+"\n", args...) }
	w("// rankData is one rank's arrays, and sinks for the final values of its vars.")
	w("type rankData struct {")
	for _, a := range arrays {
		w("%s *%s", g.names.name(a), goArrayType(a))
	}
	w("sink float64")
	w("last [%d]float64 // the final values of the vars of inner blocks, one slot each", max(1, len(g.lastSlots)))
	w("}")
	w("")
	w("// newRankData allocates one rank's arrays.")
	w("func newRankData() rankProgram {")
	w("return &rankData{")
	for _, a := range arrays {
		w("%s: new(%s),", g.names.name(a), goArrayType(a))
	}
	w("}")
	w("}")
	w("")
	w("// init fills the arrays with deterministic values (see fillElems).")
	w("func (d *rankData) init(rank int) {")
	for i, a := range arrays {
		w("fillElems(unsafe.Pointer(d.%s), %s, %d, seedOf(rank, %d), %t)", g.names.name(a), elemKind(a.Elem), elements(a), i, g.divisors[a])
	}
	w("d.sink, d.last = 0, [%d]float64{}", max(1, len(g.lastSlots)))
	w("}")
	w("")
	w("// checksum sums the arrays and the vars' final values.")
	w("func (d *rankData) checksum() float64 {")
	w("sum := d.sink")
	w("for _, x := range d.last {")
	w("sum += x")
	w("}")
	for _, a := range arrays {
		w("sum += sumElems(unsafe.Pointer(d.%s), %s, %d)", g.names.name(a), elemKind(a.Elem), elements(a))
	}
	w("return sum")
	w("}")
	w("")
}
