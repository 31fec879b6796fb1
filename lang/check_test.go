package lang_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	goldenfile "perfc/internal/golden"
	"perfc/lang"
	"perfc/parser"
)

// checkParse parses src as test.spmd, failing the test on a syntax error.
func checkParse(t *testing.T, src string) *lang.File {
	t.Helper()
	f, err := parser.ParseFile("test.spmd", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return f
}

// checkList checks kernel name of f and returns its errors as the
// ErrorList that lang.Check promises as the concrete type of its error.
func checkList(t *testing.T, f *lang.File, name string, overrides []lang.Override) (*lang.Checked, lang.ErrorList) {
	t.Helper()
	c, err := lang.Check(f, name, overrides)
	if err == nil {
		return c, nil
	}
	errs, ok := err.(lang.ErrorList)
	if !ok || len(errs) == 0 {
		t.Fatalf("lang.Check returned %T %v, want a non-empty lang.ErrorList", err, err)
	}
	return c, errs
}

// checkMessages checks the first kernel of src and returns its errors as
// "line:col: message" ("-D: message" for command-line errors).
func checkMessages(t *testing.T, src string, overrides ...lang.Override) []string {
	t.Helper()
	_, errs := checkList(t, checkParse(t, src), "", overrides)
	var out []string
	for _, e := range errs {
		pos := e.Pos.Filename
		if e.Pos.IsValid() {
			pos = fmt.Sprintf("%d:%d", e.Pos.Line, e.Pos.Col)
		}
		out = append(out, pos+": "+e.Msg)
	}
	return out
}

// checkMust checks src and fails the test on any error.
func checkMust(t *testing.T, src string, overrides ...lang.Override) *lang.Checked {
	t.Helper()
	f := checkParse(t, src)
	c, errs := checkList(t, f, "", overrides)
	if errs != nil {
		t.Fatalf("unexpected errors:\n%s", errs.Format(f.Source))
	}
	return c
}

// badKernel is a kernel that breaks rules, with its errors.
type badKernel struct {
	name string
	src  string
	want []string // "line:col: message"
}

// badKernels break one rule each (a few break several at once, to show
// that checking goes on after an error).
func badKernels() []badKernel {
	return []badKernel{
		{"undefined name", `kernel k(N = 8) {
  array a[N]: f64
  for i in 0..N { a[i] = b }
}`, []string{"3:26: 'b' is not declared; declare it with let, array or var, or as a kernel parameter"}},
		{"used before declaration", `kernel k(N = 8) {
  let A = B + 1
  let B = 2
}`, []string{"2:11: 'B' is used before its declaration at 3:7"}},
		{"out of scope", `kernel k(N = 8) {
  for i in 0..N { let t = i }
  let u = t
}`, []string{"3:11: 't' is not in scope here; it is declared at 2:23, in a block that has ended"}},
		{"own declaration", `kernel k(N = 8) {
  let x = x + 1
}`, []string{"2:11: 'x' is used in its own declaration"}},
		{"later parameter in default", `kernel k(N = M, M = 4) {
}`, []string{"1:14: 'M' is used before its declaration at 1:17"}},
		{"rank in a default", `kernel k(N = rank) on P = 4 ranks {
}`, []string{"1:14: a parameter default cannot use rank; it must be the same on every rank"}},
		{"shadowing", `kernel k(N = 8) {
  let M = N
  for i in 0..N { let M = 2 }
}`, []string{"3:23: 'M' is already declared at 2:7; choose another name (a name cannot be redeclared or shadowed)"}},
		{"loop index reused inside", `kernel k(N = 8) {
  for i in 0..N { for i in 0..N { } }
}`, []string{"2:23: 'i' is already declared at 2:7; choose another name (a name cannot be redeclared or shadowed)"}},
		{"predeclared names", `kernel k(N = 8) on grid(Px = 2, Py = 2) {
  let rank = 3
  var sqrt: f64
  array rx[4]: f64
}`, []string{
			"2:7: 'rank' is predeclared (the rank of this process); choose another name",
			"3:7: 'sqrt' is an intrinsic; choose another name",
			"4:9: 'rx' is predeclared (the grid column of this rank); choose another name",
		}},
		{"grid name without grid", `kernel k(N = 8) {
  let x = rx
}`, []string{"2:11: 'rx' exists only in a kernel on a grid; write 'on grid(Px = …, Py = …)'"}},
		{"direction without grid", `kernel k(N = 8) on P = 2 ranks {
  array a[N]: f64
  send a to east
}`, []string{"3:13: 'east' is a grid direction; it needs a kernel 'on grid(Px = …, Py = …)'"}},
		{"element types mix", `kernel k(N = 8) {
  array a[N]: f64
  array b[N]: f32
  for i in 0..N { a[i] = b[i] + a[i] }
}`, []string{"4:26: type mismatch: b[i] is f32, but a[i] is f64; convert one of them, as in f32(a[i])"}},
		{"float into integer array", `kernel k(N = 8) {
  array c[N]: i64
  for i in 0..N { c[i] = 2.5 }
}`, []string{"3:26: type mismatch: 2.5 is a float, but c[i] holds i64; convert with i64(…)"}},
		{"integer data times float", `kernel k(N = 8) {
  array c[N]: i64
  for i in 0..N { c[i] = c[i] * 0.5 }
}`, []string{"3:26: type mismatch: c[i] is i64, but 0.5 is a float; convert with f64(…) or f32(…), or write an integer"}},
		{"inexact let", `kernel k(N = 10) on P = 4 ranks {
  let BS = N / P
}`, []string{"2:12: N / P = 5/2 is not an integer (N = 10, P = 4); write floor(N / P) or ceil(N / P)"}},
		{"quotient of a loop index", `kernel k(N = 8) {
  array a[N]: f64
  for i in 0..N { a[i / 2] = 1.0 }
}`, []string{"3:21: i / 2 depends on the loop index i, so it may not be an integer; write floor(i / 2) or ceil(i / 2)"}},
		{"quotient of rank", `kernel k(N = 8) on P = 4 ranks {
  let half = rank / 2
}`, []string{"2:14: rank / 2 depends on rank, so it may not be an integer; write floor(rank / 2) or ceil(rank / 2)"}},
		{"log2 of a non-power of two", `kernel k(N = 12) {
  let a = log2(N)
}`, []string{"2:11: log2(N) = log2(12) is not an integer; write floor(log2(N)) or ceil(log2(N))"}},
		{"float bound", `kernel k(N = 8) {
  for i in 0..N * 0.5 { }
}`, []string{"2:15: the upper bound must be an integer, not a float (N * 0.5); round it with floor(…) or ceil(…)"}},
		{"data bound", `kernel k(N = 8) {
  array n[1]: i64
  for i in 0..n[0] { }
}`, []string{"3:15: the upper bound must be static, but n[0] is array data; use parameters, lets, rank and loop indices"}},
		{"step zero", `kernel k(N = 8) {
  for i in 0..N step N - 8 { }
}`, []string{"2:22: the step N - 8 = 0 must be at least 1"}},
		{"step varies", `kernel k(N = 8) {
  for i in 0..N { for j in 0..N step i + 1 { } }
}`, []string{"2:38: the step must be the same on every rank and iteration, but i + 1 depends on the loop index i; use parameters and lets"}},
		{"negative repeat count", `kernel k(N = 8) {
  repeat N - 9 { }
}`, []string{"2:10: the repeat count N - 9 = -1 must be at least 0"}},
		{"dimension zero and too large", `kernel k(N = 8) {
  array y[N - 8]: f64
  array x[1 << 70]: f64
}`, []string{
			"2:11: the dimension N - 8 = 0 of y must be at least 1",
			"3:11: the dimension 1 << 70 = 1180591620717411303424 of x is too large",
		}},
		{"dimension varies", `kernel k(N = 8) on P = 2 ranks {
  array a[N + rank]: f64
}`, []string{"2:11: the dimensions of a must be the same on every rank and iteration, but N + rank depends on rank; use parameters and lets"}},
		{"wrong number of indices", `kernel k(N = 8) {
  array b[N][N]: f64
  for i in 0..N { b[i] = 0.0 }
}`, []string{"3:19: b has 2 dimensions; write b[i][j]"}},
		{"array without indices", `kernel k(N = 8) {
  array a[N]: f64
  var s: f64 = a
}`, []string{"3:16: array a needs 1 index, as in a[i]; only a communication payload may name a whole array"}},
		{"var with an index", `kernel k(N = 8) {
  var s: f64 = 0
  s[0] = 1.0
}`, []string{"3:3: s is a var, a single value; it has no indices"}},
		{"assignments to constants", `kernel k(N = 8) {
  let L = 3
  for i in 0..N {
    i = 2
    N = 3
    L = 4
    rank = 1
  }
}`, []string{
			"4:5: cannot assign to i: it is the index of the loop at 3:3",
			"5:5: cannot assign to N: it is a parameter (set it from the command line with -D N=…)",
			"6:5: cannot assign to L: it is a let, fixed once computed; declare a var for a value that changes",
			"7:5: cannot assign to rank: it is predeclared (the rank of this process)",
		}},
		{"data condition without prob", `kernel k(N = 8) {
  array a[N]: f64
  var s: f64 = 0
  for i in 0..N { if a[i] > s { s = a[i] } }
}`, []string{"4:22: the condition a[i] > s reads data (a[i]); say how often it is true with 'prob p', as in 'if a[i] > s prob 0.5 {'"}},
		{"prob on a static condition", `kernel k(N = 8) {
  for i in 0..N { if i > 2 prob 0.5 { } }
}`, []string{"2:33: 'prob' on a condition that reads no data: i > 2 is evaluated exactly on every rank and iteration; remove 'prob 0.5'"}},
		{"prob out of range", `kernel k(N = 8) {
  var s: f64 = 0
  if s > 1.0 prob 1.5 { }
  if s > 2.0 prob 0 { }
}`, []string{
			"3:19: the probability 1.5 must be greater than 0 and at most 1",
			"4:19: the probability 0 must be greater than 0 and at most 1",
		}},
		{"non-boolean condition", `kernel k(N = 8) {
  if N { }
}`, []string{"2:6: the condition must be a comparison or another boolean, not an int (N); write N != 0"}},
		{"let reads data", `kernel k(N = 8) {
  var s: f64 = 0
  let t = s * 2.0
}`, []string{"3:11: a let is static, but s * 2.0 reads the var s; use a var for values computed from data"}},
		{"collective under a rank condition", `kernel k(N = 8) on P = 4 ranks {
  var s: f64 = 0
  if rank == 0 { allreduce sum s }
}`, []string{"3:18: allreduce is inside the if at 3:3, and rank == 0 depends on rank; every rank must call a collective, so move it out of the if"}},
		{"collective under a data condition", `kernel k(N = 8) on P = 4 ranks {
  var s: f64 = 0
  if s > 0.0 prob 0.5 { barrier }
}`, []string{"3:25: barrier is inside the if at 3:3, and s > 0.0 reads the var s; every rank must call a collective, so move it out of the if"}},
		{"collective in a rank-dependent loop", `kernel k(N = 8) on P = 4 ranks {
  for i in 0..rank { barrier }
}`, []string{"2:22: barrier is inside the loop at 2:3, whose bounds depend on rank; every rank must call a collective equally often"}},
		{"index out of range at the loop end", `kernel k(N = 8) {
  array a[N], b[N][N]: f64
  for i in 0..N {
    a[i + 1] = 0.0
    b[i][i - 1] = 0.0
  }
}`, []string{
			"4:7: the index i + 1 = 8 at i = 7 is outside a, which has 8 elements (indices 0..7)",
			"5:10: the index i - 1 = -1 at i = 0 is outside dimension 2 of b, which has 8 elements (indices 0..7)",
		}},
		{"index out of range with a step", `kernel k(N = 8) {
  array a[N]: f64
  for j in 0..N - 1 step 2 { a[j + 2] = 1.0 }
}`, []string{"3:32: the index j + 2 = 8 at j = 6 is outside a, which has 8 elements (indices 0..7)"}},
		{"triangular nest", `kernel k(N = 8) {
  array a[N]: f64
  for j in 0..N { for k in j..N + 1 { a[k] = 0.0 } }
}`, []string{"3:41: the index k = 8 is outside a, which has 8 elements (indices 0..7)"}},
		{"slice outside the array", `kernel k(N = 8) on P = 2 ranks {
  array a[N]: f64
  send a[0:N + 1] to 1
  recv a[2:1] from 1
  for i in 0..N { send a[i:i + 2] to 1 }
}`, []string{
			"3:12: the slice end N + 1 = 9 is outside a, which has 8 elements (a slice lo:hi needs 0 ≤ lo ≤ hi ≤ 8)",
			"4:10: the slice 2:1 has negative length -1; it must end where it starts or later",
			"5:28: the slice end i + 2 = 9 at i = 7 is outside a, which has 8 elements (a slice lo:hi needs 0 ≤ lo ≤ hi ≤ 8)",
		}},
		{"peers outside the ranks", `kernel k(N = 8) on P = 4 ranks {
  array a[N]: f64
  send a[0:N] to rank + 1
  recv a[0:N] from 5
  recv a[0:N] from rank - 2
}`, []string{
			"3:18: the destination rank + 1 = 4 at rank = 3 is not a rank: the ranks are 0..3; guard the statement with 'if rank + 1 < P { … }' so that it runs only where the peer exists, use none for no peer, or wrap around with % P",
			"4:20: the source 5 is not a rank: the ranks are 0..3; use none for no peer, or wrap around with % P",
			"5:20: the source rank - 2 = -2 at rank = 0 is not a rank: the ranks are 0..3; guard the statement with 'if rank - 2 >= 0 { … }' so that it runs only where the peer exists, use none for no peer, or wrap around with % P",
		}},
		{"root that varies by rank", `kernel k(N = 8) on P = 4 ranks {
  array a[N]: f64
  bcast a from rank
}`, []string{"3:16: the root of bcast must be the same on every rank, but rank differs between ranks"}},
		{"root outside the ranks", `kernel k(N = 8) on P = 4 ranks {
  array a[N]: f64
  for j in 0..N { bcast a from j }
}`, []string{"3:32: the root j = 7 is not a rank: the ranks are 0..3"}},
		{"sendrecv payloads differ", `kernel k(N = 8) on P = 4 ranks {
  array a[N], c[N]: f64
  array b[N]: f32
  sendrecv a[0:N] to (rank + 1) % P from (rank + P - 1) % P into b[0:N]
  sendrecv a[0:N] to (rank + 1) % P from (rank + P - 1) % P into c[0:4]
}`, []string{
			"4:66: sendrecv sends f64 but receives into f32; the two payloads must have the same element type",
			"5:66: sendrecv sends 8 elements but receives 4; the two payloads must have the same count",
		}},
		{"xor of floats", `kernel k(N = 8) on P = 4 ranks {
  array a[N]: f64
  allreduce xor a[0:N]
}`, []string{"3:13: allreduce xor needs integers, but the payload holds f64; use an i64 or i32 payload, or sum, prod, max or min"}},
		{"payload that is not data", `kernel k(N = 8) on P = 2 ranks {
  send N to 1
}`, []string{"2:8: a payload must name an array or a var, but N is a parameter; to move a size without data, write 'N bytes'"}},
		{"negative byte size", `kernel k(N = 8) on P = 2 ranks {
  send N - 9 bytes to 1
}`, []string{"2:8: the byte size N - 9 = -1 must be at least 0"}},
		{"intrinsic misuse", `kernel k(N = 8) {
  let a = sqrt
  let b = foo(N)
  let c = min(N)
  var s: i64 = sqrt(s)
}`, []string{
			"2:11: 'sqrt' is an intrinsic; call it, as in sqrt(x)",
			"3:11: 'foo' is not an intrinsic; the intrinsics are abs, min, max, sqrt, exp, log, sin, cos, floor, ceil, log2, neighbor, f64, f32, i64, i32",
			"4:11: min takes two or more arguments, not 1",
			"5:21: 's' is used in its own declaration",
		}},
		{"division by zero", `kernel k(N = 8) {
  let q = N / (N - 8)
}`, []string{"2:11: N / (N - 8): division by zero"}},
		{"rank count below one", `kernel k(N = 8) on P = N - 8 ranks {
}`, []string{"1:24: P is 0; the number of ranks must be at least 1"}},
		{"duplicate kernel", `kernel k(N = 8) { }
kernel k(N = 9) { }`, []string{"2:8: kernel k is declared twice; the first is at 1:8: rename one of them"}},
	}
}

// TestCheckBadKernels asserts the exact position and text of every error
// of the bad kernels.
func TestCheckBadKernels(t *testing.T) {
	for _, tt := range badKernels() {
		t.Run(tt.name, func(t *testing.T) {
			got := checkMessages(t, tt.src)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckDeadCode: values are not checked where the code never runs for
// the given parameters, and the decision follows the parameters.
func TestCheckDeadCode(t *testing.T) {
	src := `kernel k(N = 8) on P = 1 ranks {
  let q = P > 1 ? N / (P - 1) : N
  if P > 1 && N % (P - 1) == 0 { }
  array a[N]: f64
  if P > 1 { a[N] = 0.0 }
  for i in 0..P - 1 { a[i + N] = 1.0 }
}`
	if got := checkMessages(t, src); got != nil {
		t.Errorf("P = 1: unexpected errors %q", got)
	}
	want := []string{
		"5:16: the index N = 8 is outside a, which has 8 elements (indices 0..7)",
		"6:25: the index i + N = 8 at i = 0 is outside a, which has 8 elements (indices 0..7)",
	}
	if diff := cmp.Diff(want, checkMessages(t, src, lang.Override{Name: "P", Value: "2"})); diff != "" {
		t.Errorf("P = 2 (-want +got):\n%s", diff)
	}
}

// TestCheckOverrides covers -D NAME=VALUE: binding, kinds, and errors.
func TestCheckOverrides(t *testing.T) {
	const src = `kernel gauss(N = 8, alpha = 0.5) on P = 2 ranks {
  let BS = N / P
}`
	const grid = `kernel g(n = 4) on grid(Px = 2, Py = 3) { }`
	const single = `kernel t(N = 4) { }`
	tests := []struct {
		name string
		src  string
		ovs  []lang.Override
		want []string
	}{
		{"unknown parameter", src, []lang.Override{{"M", "3"}},
			[]string{"-D: kernel gauss has no parameter 'M'; its parameters are N, alpha, P"}},
		{"fraction for an integer", src, []lang.Override{{"N", "2.5"}},
			[]string{"-D: N=2.5: N is an integer parameter; give a whole number"}},
		{"not a number", src, []lang.Override{{"alpha", "abc"}},
			[]string{"-D: alpha=abc: 'abc' is not a number"}},
		{"too large", src, []lang.Override{{"N", "1e30"}},
			[]string{"-D: N=1e30: the value does not fit a 64-bit integer"}},
		{"given twice", src, []lang.Override{{"N", "4"}, {"N", "6"}},
			[]string{"-D: N is set twice (N=4 and N=6); give it once"}},
		{"zero ranks", src, []lang.Override{{"P", "0"}},
			[]string{"-D: P=0: the number of ranks must be at least 1"}},
		{"new value reaches the checks", src, []lang.Override{{"N", "9"}},
			[]string{"2:12: N / P = 9/2 is not an integer (N = 9, P = 2); write floor(N / P) or ceil(N / P)"}},
		{"P on a grid", grid, []lang.Override{{"P", "4"}},
			[]string{"-D: P=4: on a grid P is Px*Py; set -D Px=… and -D Py=… instead"}},
		{"Py zero", grid, []lang.Override{{"Py", "0"}},
			[]string{"-D: Py=0: the number of ranks must be at least 1"}},
		{"P without on", single, []lang.Override{{"P", "4"}},
			[]string{"-D: P=4: kernel t runs on one rank; declare 'on P = … ranks' to make P a parameter"}},
		{"no parameters", `kernel e() { }`, []lang.Override{{"N", "4"}},
			[]string{"-D: kernel e has no parameter 'N'; it has no parameters"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, checkMessages(t, tt.src, tt.ovs...)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckOverrideValues: overrides replace defaults with values of the
// parameter's kind; Params lists kernel parameters, then the rank ones.
func TestCheckOverrideValues(t *testing.T) {
	c := checkMust(t, `kernel k(N = 8, alpha = 0.5, M = N * 2) on grid(Px = 2, Py = Px + 1) { }`,
		lang.Override{Name: "N", Value: "1_000"}, lang.Override{Name: "alpha", Value: "2"},
		lang.Override{Name: "Px", Value: "0x4"})
	got := map[string]string{}
	var order []string
	for _, p := range c.Params {
		got[p.Name] = p.Value.String()
		order = append(order, p.Name)
	}
	want := map[string]string{"N": "1000", "alpha": "2.0", "M": "2000", "Px": "4", "Py": "5", "P": "20"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"N", "alpha", "M", "Px", "Py", "P"}, order); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	px, py, ok := c.Grid()
	if px != 4 || py != 5 || !ok || c.NumRanks() != 20 {
		t.Errorf("Grid() = %d, %d, %v; NumRanks() = %d; want 4, 5, true; 20", px, py, ok, c.NumRanks())
	}
	if v, ok := c.Param("alpha"); !ok || v.Kind() != lang.FloatValue {
		t.Errorf("Param(alpha) = %v, %v; want a float", v, ok)
	}
	if _, ok := c.Param("nope"); ok {
		t.Errorf("Param(nope) found")
	}
}

// TestCheckInfo spot-checks what the checker records for a kernel.
func TestCheckInfo(t *testing.T) {
	c := checkMust(t, `kernel k(N = 12) on P = 3 ranks {
  let BS = N / P
  let lo = rank * BS
  array A[BS][N + 1]: f64
  var s: f64 = 0
  for i in 0..BS {
    for j in lo..lo + 2 { s = s + A[i][j] }
  }
}`)
	info := c.Info
	var dims [][]int64
	for _, a := range info.Arrays {
		dims = append(dims, a.Dims)
	}
	if diff := cmp.Diff([][]int64{{4, 13}}, dims); diff != "" {
		t.Errorf("array dims (-want +got):\n%s", diff)
	}
	if len(info.Vars) != 1 || info.Vars[0].Name != "s" || info.Vars[0].Elem != lang.F64 {
		t.Errorf("vars = %v", info.Vars)
	}
	if info.NumSlots != 2 {
		t.Errorf("NumSlots = %d, want 2", info.NumSlots)
	}
	objs := map[string]*lang.Object{}
	for id, obj := range info.Defs {
		objs[id.Name] = obj
	}
	if v := objs["BS"].Value.String(); v != "4" || objs["BS"].Dep != 0 {
		t.Errorf("BS = %s (dep %v), want constant 4", v, objs["BS"].Dep)
	}
	if lo := objs["lo"]; lo.Dep != lang.DepRank || lo.Value.IsValid() {
		t.Errorf("lo: dep %v value %v, want rank-dependent without value", lo.Dep, lo.Value)
	}
	if i, j := objs["i"], objs["j"]; i.Kind != lang.IndexObj || i.Slot != 0 || j.Slot != 1 || j.Loop == nil {
		t.Errorf("indices: i %+v, j %+v", i, j)
	}
	// Every expression has a type; data expressions are marked.
	counts := map[string]int{}
	callNames := map[lang.Expr]bool{}
	lang.Inspect(c.Kernel, func(n lang.Node) bool {
		if call, ok := n.(*lang.CallExpr); ok {
			callNames[call.Fun] = true
		}
		return true
	})
	lang.Inspect(c.Kernel, func(n lang.Node) bool {
		e, ok := n.(lang.Expr)
		if !ok {
			return true
		}
		if id, ok := e.(*lang.Ident); ok && (info.Defs[id] != nil || id == c.Kernel.Name) {
			return true // declarations are not expressions with a type
		}
		if _, typed := info.Types[e]; !typed && !callNames[e] {
			t.Errorf("no type for %T at %v", e, c.File.Source.Position(e.Pos()))
		}
		if info.Data[e] {
			counts["data"]++
		}
		if _, ok := info.Values[e]; ok {
			counts["const"]++
		}
		return true
	})
	// data: s (lhs), s + A[i][j], s, A[i][j], A (the name). const: the
	// defaults 12 and 3; N, P and N / P; BS in rank * BS; the dimensions BS,
	// N + 1, N and 1; the initial 0; 0 and BS in 0..BS; 2 in lo + 2.
	want := map[string]int{"data": 5, "const": 14}
	if diff := cmp.Diff(want, counts); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
}

// languageKernels are the acceptance kernels of perfc's language design,
// with the one change the normative docs/language.md requires: the root
// j / BS depends on a loop index, so it is written floor(j / BS).
const languageKernels = `
kernel gauss(N = 256) on P = 32 ranks {
  let BS = N / P
  array A[BS][N+1]: f64
  array pivotrow[N+1]: f64
  array fac[BS]: f64
  var best: f64 = 0
  var piv: i64 = 0
  for j in 0..N {
    region "pivot search" {
      for i in 0..BS {
        if A[i][j] > best prob 0.5 { best = A[i][j] }
      }
      allreduce max best
      allreduce max piv
    }
    region "multipliers" {
      for i in 0..BS { fac[i] = A[i][j] / best }
    }
    bcast pivotrow[0:N+1] from floor(j / BS)
    region "update" {
      for i in 0..BS {
        if A[i][j] != 0.0 prob 0.5 {
          for k in j..N+1 { A[i][k] -= fac[i] * pivotrow[k] }
        }
      }
    }
  }
}

kernel wave(sweeps = 4, cells = 64) on grid(Px = 10, Py = 10) {
  array inx[cells], iny[cells], u[cells]: f64
  repeat sweeps {
    recv inx[0:cells] from west
    recv iny[0:cells] from north
    for i in 0..cells { u[i] = 0.5 * (inx[i] + iny[i]) }
    send u[0:cells] to east
    send u[0:cells] to south
  }
}

kernel stride(N = 1_000_000, S = 4) {
  array x[N*S]: f64
  var sum: f64 = 0
  for i in 0..N { sum += x[i*S] }
}

kernel pingpong(n = 1024, reps = 100) on P = 2 ranks {
  array buf[n]: f64
  repeat reps {
    if rank == 0 { send buf[0:n] to 1
                   recv buf[0:n] from 1 }
    else         { recv buf[0:n] from 0
                   send buf[0:n] to 0 }
  }
}
`

// TestCheckGoodKernels: the design's acceptance kernels and every example
// check without errors.
func TestCheckGoodKernels(t *testing.T) {
	f := checkParse(t, languageKernels)
	for _, k := range f.Kernels {
		if _, errs := checkList(t, f, k.Name.Name, nil); errs != nil {
			t.Errorf("kernel %s:\n%s", k.Name.Name, errs.Format(f.Source))
		}
	}
	if len(f.Kernels) != 4 {
		t.Errorf("parsed %d kernels, want 4", len(f.Kernels))
	}
	examples, _ := filepath.Glob(filepath.Join("..", "examples", "*.spmd"))
	for _, name := range examples {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(filepath.Base(name), src)
		if err != nil {
			t.Errorf("%s does not parse: %v", name, err)
			continue
		}
		for _, k := range f.Kernels {
			if _, errs := checkList(t, f, k.Name.Name, nil); errs != nil {
				t.Errorf("%s kernel %s:\n%s", name, k.Name.Name, errs.Format(f.Source))
			}
		}
	}
}

// TestCheckSelectKernel: kernels are chosen by name; "" is the first.
func TestCheckSelectKernel(t *testing.T) {
	f := checkParse(t, "kernel a(N = 1) { }\nkernel b(M = 2) { }")
	for _, tt := range []struct{ name, want string }{{"", "a"}, {"a", "a"}, {"b", "b"}} {
		c, errs := checkList(t, f, tt.name, nil)
		if errs != nil || c.Kernel.Name.Name != tt.want {
			t.Errorf("Check(%q) = %v, %v; want kernel %s", tt.name, c, errs, tt.want)
		}
	}
	_, errs := checkList(t, f, "z", nil)
	want := "test.spmd: the file has no kernel z; its kernels are a, b"
	if len(errs) != 1 || errs[0].Error() != want {
		t.Errorf("Check(z) = %v, want %q", errs, want)
	}
	empty := checkParse(t, "// nothing\n")
	if _, errs := checkList(t, empty, "", nil); len(errs) != 1 || !strings.Contains(errs[0].Msg, "no kernel") {
		t.Errorf("empty file: %v", errs)
	}
}

// TestCheckGolden checks every testdata/check/*.spmd and compares the
// formatted errors (with source lines and carets) with its .golden file.
// go test ./lang -run CheckGolden -update rewrites them.
func TestCheckGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "check", "*.spmd"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no inputs: %v", err)
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			f, err := parser.ParseFile(filepath.Base(in), src)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			var b strings.Builder
			for _, k := range f.Kernels {
				_, errs := checkList(t, f, k.Name.Name, nil)
				fmt.Fprintf(&b, "kernel %s: %d errors\n%s", k.Name.Name, len(errs), errs.Format(f.Source))
			}
			golden := strings.TrimSuffix(in, ".spmd") + ".golden"
			goldenfile.Check(t, golden, b.String())
		})
	}
}

// FuzzCheck parses its input and checks every kernel in it, once with the
// defaults and once with an override. Whatever the input, Check returns
// without panicking or hanging; its errors are sorted, unique and placed in
// the file (or at -D); and a kernel it accepts can be evaluated: every
// static expression at rank 0 with all indices 0 (errors allowed, panics
// not).
//
//	go test -run=^$ -fuzz=FuzzCheck -fuzztime=3m ./lang
func FuzzCheck(f *testing.F) {
	for _, pattern := range []string{"testdata/check/*.spmd", "../examples/*.spmd"} {
		files, _ := filepath.Glob(pattern)
		for _, name := range files {
			if src, err := os.ReadFile(name); err == nil {
				f.Add(src)
			}
		}
	}
	f.Add([]byte(languageKernels))
	for _, bad := range badKernels() {
		f.Add([]byte(bad.src))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := parser.ParseFile("fuzz.spmd", src)
		if err != nil {
			return
		}
		lines := strings.Count(string(src), "\n") + 1
		for _, k := range file.Kernels {
			for _, ovs := range [][]lang.Override{nil, {{Name: "N", Value: "3"}}} {
				c, errs := checkList(t, file, k.Name.Name, ovs)
				fuzzCheckErrors(t, errs, lines)
				if c != nil {
					fuzzCheckEval(t, c)
				}
			}
		}
	})
}

// fuzzCheckErrors asserts that errs is sorted, free of repeats, and
// positioned inside the file or on the command line.
func fuzzCheckErrors(t *testing.T, errs lang.ErrorList, lines int) {
	t.Helper()
	for i, e := range errs {
		switch {
		case e.Msg == "":
			t.Errorf("empty message at %v", e.Pos)
		case e.Pos.Filename != "fuzz.spmd" && e.Pos.Filename != "-D":
			t.Errorf("error outside the file: %v", e)
		case e.Pos.Line > lines:
			t.Errorf("error past the last line %d: %v", lines, e)
		}
		if i > 0 && (errs.Less(i, i-1) || *errs[i] == *errs[i-1]) {
			t.Errorf("errors not sorted and unique: %v then %v", errs[i-1], e)
		}
	}
}

// fuzzCheckEval evaluates every static expression of an accepted kernel.
func fuzzCheckEval(t *testing.T, c *lang.Checked) {
	t.Helper()
	if c.NumRanks() < 1 {
		t.Errorf("NumRanks() = %d", c.NumRanks())
	}
	for _, p := range c.Params {
		if !p.Value.IsValid() {
			t.Errorf("parameter %s has no value", p.Name)
		}
	}
	env := &lang.Env{Index: make([]int64, c.Info.NumSlots)}
	for e, dep := range c.Info.Deps {
		if dep.IsStatic() && c.Info.Types[e] != lang.InvalidType {
			_, _ = c.Eval(e, env)
		}
	}
}

// TestWorkBuiltByProgram checks what only a tree built by a program can
// hold in a work statement: a memory item with both an array and a
// working set, and no items at all.
func TestWorkBuiltByProgram(t *testing.T) {
	f := checkParse(t, "kernel k(N = 4) {\n  array a[N]: f64\n  work load 8 bytes from a\n  work 1 add f64\n}\n")
	body := f.Kernels[0].Body.Stmts
	mem := body[1].(*lang.WorkStmt).Items[0].(*lang.WorkMem)
	mem.Set = &lang.IntLit{LitPos: mem.KindPos, Text: "64"}
	body[2].(*lang.WorkStmt).Items = nil
	_, errs := checkList(t, f, "", nil)
	var got []string
	for _, e := range errs {
		got = append(got, e.Msg)
	}
	want := []string{
		"a load streams through an array or a working set, not both; drop 'from a' or 'in 64'",
		"a work statement needs at least one item, as in 'work N add f64' or 'work load 8*N bytes from a'",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}
