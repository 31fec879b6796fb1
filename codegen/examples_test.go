package codegen

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"perfc/analyze"
	"perfc/examples"
	"perfc/lang"
	"perfc/parser"
)

// smallParams run every example in a fraction of a second, with rank
// counts that are not powers of two where the kernel allows it, so that
// the collectives' general paths run too.
var smallParams = map[string]string{
	"broadcast":         "m=1024,root=2,P=5",
	"cannon":            "N=16,Px=2",
	"comms2":            "n=16,reps=3",
	"comms3":            "n=16,reps=2,P=4",
	"concat":            "l=64,P=6",
	"gauss":             "N=16,P=4",
	"halo2d":            "nx=8,ny=8,iters=2,Px=3,Py=2",
	"hypercube":         "n=16,P=8",
	"jacobi_blocking":   "nx=8,ny=6,iters=2,Px=3,Py=2",
	"jacobi_overlap":    "nx=8,ny=6,iters=2,Px=3,Py=2",
	"matmul":            "N=8",
	"matmul_transposed": "N=8",
	"meshshift":         "size=64,Px=4,Py=2",
	"permutation":       "m=64,P=4",
	"pingpong":          "n=16,reps=3",
	"pipeline":          "m=32,b=3,P=5",
	"poly1":             "n=32,k=3,reps=2",
	"poly2":             "n=32,k=3",
	"poly3":             "n=32,k=3,reps=2",
	"reductions":        "reps=2,P=5",
	"rinf1":             "n=32,reps=3",
	"ring":              "n=32,P=5",
	"scatter":           "m=64,P=5,root=2",
	"stencil1d":         "n=32,iters=3,P=3",
	"stride":            "N=32,S=3",
	"sweep3d":           "it=4,jt=4,kt=8,mk=4,mm=4,mmi=2,Px=2,Py=2",
	"synch1":            "reps=3,P=5",
	"triad":             "N=100",
	"wave":              "sweeps=2,cells=8,Px=3,Py=2",
}

// overridesOf turns "N=16,P=4" into checker overrides.
func overridesOf(spec string) []lang.Override {
	var out []lang.Override
	for _, kv := range strings.Split(spec, ",") {
		if name, value, ok := strings.Cut(kv, "="); ok {
			out = append(out, lang.Override{Name: name, Value: value})
		}
	}
	return out
}

// checkExample parses and checks an example with overrides.
func checkExample(t *testing.T, name, spec string) *lang.Checked {
	t.Helper()
	src, err := examples.Source(name)
	if err != nil {
		t.Fatal(err)
	}
	return checkSource(t, name+".spmd", src, spec)
}

// checkSource parses and checks a kernel source.
func checkSource(t *testing.T, file string, src []byte, spec string) *lang.Checked {
	t.Helper()
	f, err := parser.ParseFile(file, src)
	if err != nil {
		t.Fatal(err)
	}
	k, err := lang.Check(f, "", overridesOf(spec))
	if err != nil {
		t.Fatal(err.(lang.ErrorList).Format(f.Source))
	}
	return k
}

// goCommand runs the go command in dir and fails the test on an error.
func goCommand(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir, cmd.Env = dir, goEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// testKernels returns every example at small parameters, and the kernels
// of testdata/kernels at their defaults, by name.
func testKernels(t *testing.T) ([]string, map[string]*lang.Checked) {
	t.Helper()
	names := examples.Names()
	if len(names) != len(smallParams) {
		t.Errorf("smallParams has %d examples, the examples package %d: give every example small parameters", len(smallParams), len(names))
	}
	kernels := map[string]*lang.Checked{}
	for _, name := range names {
		kernels[name] = checkExample(t, name, smallParams[name])
	}
	files, err := filepath.Glob(filepath.Join("testdata", "kernels", "*.spmd"))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		name := "test_" + strings.TrimSuffix(filepath.Base(file), ".spmd")
		kernels[name] = checkSource(t, filepath.Base(file), src, "")
		names = append(names, name)
	}
	return names, kernels
}

// TestExamples generates every example at small parameters, and the test
// kernels, into one module (one go vet and one go build for all of them,
// sharing the build cache), vets the timed build, builds the counting one,
// runs it and compares what every rank executed with analyze.Analyze.
func TestExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs every example")
	}
	if _, err := goTool(); err != nil {
		t.Skip(err)
	}
	names, kernels := testKernels(t)
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module perfckernels\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	programs := map[string]*Program{}
	for _, name := range append(names, noHoisting...) {
		k := kernels[strings.TrimSuffix(name, "_nohoist")]
		p, err := Generate(k, Options{NoHoisting: strings.HasSuffix(name, "_nohoist")})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		dir := filepath.Join(root, name)
		if err := p.WriteDir(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(filepath.Join(dir, "go.mod")); err != nil {
			t.Fatal(err)
		}
		programs[name] = p
	}
	goCommand(t, root, "vet", "./...")
	goCommand(t, root, "vet", "-tags", "perfc_count", "./...")
	bin := filepath.Join(root, "bin")
	goCommand(t, root, "build", "-tags", "perfc_count", "-o", bin+string(filepath.Separator), "./...")
	checksums := map[string]string{}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			ex, err := Count(ctx, filepath.Join(bin, name))
			if err != nil {
				t.Fatal(err)
			}
			if !ex.Finite {
				t.Errorf("checksum %s is not finite", ex.Checksum)
			}
			checksums[name] = ex.Checksum
			rep, err := analyze.Analyze(kernels[name], analyze.Options{})
			if err != nil {
				t.Fatal(err)
			}
			cmp, err := CompareCounts(programs[name], ex, rep)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range cmp.Diffs {
				t.Errorf("rank %d, region %q, %s: analyzer %s, executed %d", d.Rank, d.Region, d.Count, d.Analyzer, d.Executed)
			}
			if cmp.Compared == 0 {
				t.Error("no count was compared")
			}
			if !hasProbBranch(kernels[name]) && len(cmp.Data) > 0 {
				t.Errorf("%d counts depend on data, but the kernel has no prob branch", len(cmp.Data))
			}
			if slices.Contains(noHoisting, name+"_nohoist") {
				plain, err := Count(ctx, filepath.Join(bin, name+"_nohoist"))
				if err != nil {
					t.Fatal(err)
				}
				if plain.Checksum != ex.Checksum {
					t.Errorf("checksum %s with hoisting, %s without: hoisting changed the results", ex.Checksum, plain.Checksum)
				}
			}
		})
	}
	for _, pair := range sameResults {
		if a, b := checksums[pair[0]], checksums[pair[1]]; a == "" || a != b {
			t.Errorf("%s ends with checksum %q, %s with %q: they compute the same data", pair[0], a, pair[1], b)
		}
	}
}

// sameResults are pairs of programs that compute the same data by
// different means, whose checksums must be equal bit for bit: the
// non-blocking messages move what the blocking ones do.
var sameResults = [][2]string{{"test_overlap_nonblocking", "test_overlap_blocking"}}

// noHoisting are the programs also built with Options.NoHoisting, whose
// results must be the same bit for bit.
var noHoisting = []string{"gauss_nohoist", "sweep3d_nohoist", "test_hoisting_nohoist", "cannon_nohoist"}

// hasProbBranch reports whether a kernel has a data condition.
func hasProbBranch(k *lang.Checked) bool {
	found := false
	lang.Inspect(k.Kernel.Body, func(n lang.Node) bool {
		if s, ok := n.(*lang.IfStmt); ok && s.Prob != nil {
			found = true
		}
		return !found
	})
	return found
}
