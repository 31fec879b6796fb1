package lang_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"perfc/lang"
)

// TestProcErrors checks the messages of procedures and calls, at their
// exact positions: a problem inside an expansion is reported at the
// proc's definition with the call it came from.
func TestProcErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"index outside the array in one call of two", `proc fill(a, n) {
  for i in 0..n {
    a[i + 1] = 0.0
  }
}
kernel k() {
  array u[8]: f64
  call fill(u, 7)
  call fill(u, 8)
}
`, []string{"3:7: the index i + 1 = 8 at i = 7 is outside u, which has 8 elements (indices 0..7) (in the call of fill at 9:3)"}},
		{"wrong argument count", `proc p(a, b) {
}
kernel k() {
  call p(1)
  call p(1, 2, 3)
}
`, []string{
			"4:3: proc p takes 2 arguments (a, b), declared at 1:1, but the call passes 1",
			"5:3: proc p takes 2 arguments (a, b), declared at 1:1, but the call passes 3",
		}},
		{"unknown proc", `proc halo() {
}
kernel k() {
  call hallo()
  call halo()
}
`, []string{"4:8: no proc named hallo; the file's procs are halo"}},
		{"a kernel called", `proc p() {
  call other()
}
kernel k() {
  call other()
  call p()
}
kernel other() {
}
`, []string{
			"2:8: other is a kernel, not a proc, and kernels cannot be called; move the code both need into a proc",
			"5:8: other is a kernel, not a proc, and kernels cannot be called; move the code both need into a proc",
		}},
		{"no procs at all", `kernel k() {
  call f()
}
`, []string{"2:8: no proc named f: the file declares no proc; declare it with 'proc f(…) { … }'"}},
		{"direct recursion", `proc f(n) {
  call f(n - 1)
}
kernel k() {
  call f(3)
}
`, []string{"2:3: proc f calls itself (f → f); procs are expanded where they are called, so recursion never ends: write the repetition as a loop"}},
		{"mutual recursion", `proc a() {
  call b()
}
proc b() {
  call c()
}
proc c() {
  call a()
}
kernel k() {
  call a()
}
`, []string{"8:3: proc a calls itself through b, c (a → b → c → a); procs are expanded where they are called, so recursion never ends: write the repetition as a loop"}},
		{"a name from the caller", `proc p(a) {
  a[0] = N
  a[1] = N
}
kernel k(N = 4) {
  array u[4]: f64
  call p(u)
}
`, []string{"2:10: 'N' is not a parameter of proc p nor declared in it before this use; a proc sees only its parameters, its own declarations and rank, P (on a grid rx, ry, Px, Py): add N to the parameters of p and pass it at the calls"}},
		{"parameters declared twice, predeclared, redeclared", `proc p(a, a, rank, n) {
  let n = 2
}
kernel k() {
  call p(1, 2, 3, 4)
}
`, []string{
			"1:11: parameter a of proc p is declared twice; the first is at 1:8: rename one of them",
			"1:14: 'rank' is predeclared (the rank of this process); choose another parameter name",
			"2:7: 'n' is a parameter of proc p (at 1:20); choose another name (a name cannot be redeclared or shadowed)",
		}},
		{"proc declared twice", `proc p() {
}
kernel k() {
  call p()
}
proc p() {
}
`, []string{"6:6: proc p is declared twice; the first is at 1:6: rename one of them"}},
		{"data as a static argument", `proc p(a, n) {
  for i in 0..n {
    a[i] = 1
  }
}
kernel k() {
  array u[4]: i64
  call p(u, u[0])
}
`, []string{"8:13: argument 2 of proc p (parameter n) is not static: u[0] is array data; pass an array or a var by its bare name, or a static number"}},
		{"an undefined argument is the caller's error", `proc p(n) {
  let m = n
}
kernel k() {
  call p(x + 1)
}
`, []string{"5:10: 'x' is not declared; declare it with let, array or var, or as a kernel parameter"}},
		// inner's i is another name for outer's n, the let that binds 4.
		{"calls inside calls", `proc inner(a, i) {
  a[i] = 0.0
}
proc outer(a, n) {
  call inner(a, n)
}
kernel k() {
  array u[4]: f64
  call outer(u, 3)
  call outer(u, 4)
}
`, []string{"2:5: the index n = 4 is outside u, which has 4 elements (indices 0..3) (in the call of inner at 5:3, in the call of outer at 10:3)"}},
		{"a proc's statements are checked in the caller's kernel", `proc p(a) {
  a[0] = rx
}
kernel k() {
  array u[4]: i64
  call p(u)
}
`, []string{"2:10: 'rx' exists only in a kernel on a grid; write 'on grid(Px = …, Py = …)' (in the call of p at 6:3)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, checkMessages(t, tt.src)); diff != "" {
				t.Errorf("errors mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestProcExpansion checks what a call expands into, printed: parameters
// bound by name or by a let, the proc's own names renamed where the
// caller's are visible, regions kept.
func TestProcExpansion(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string // the checked kernel, printed
	}{
		{"a loop index of the caller and one of the proc", `proc row(a, j) {
  for i in 0..4 {
    a[j][i] = 1.0
  }
}
kernel k() {
  array u[4][4]: f64
  for i in 0..4 {
    call row(u, i)
  }
}
`, `kernel k() {
  array u[4][4]: f64
  for i in 0..4 {
    {
      for i_row in 0..4 {
        u[i][i_row] = 1.0
      }
    }
  }
}
`},
		{"static values bound by lets, a float among them", `proc scale(a, n, s) {
  region "scale" {
    for i in 0..n {
      a[i] *= s
    }
  }
}
kernel k(n = 8) {
  array x[2*n]: f64
  call scale(x, 2*n, 0.5)
  call scale(x, n, 2.0)
}
`, `kernel k(n = 8) {
  array x[2*n]: f64
  {
    let n_scale = 2 * n
    let s = 0.5
    region "scale" {
      for i in 0..n_scale {
        x[i] *= s
      }
    }
  }
  {
    let s = 2.0
    region "scale" {
      for i in 0..n {
        x[i] *= s
      }
    }
  }
}
`},
		{"peers passed as directions, none and neighbor", `proc shift(a, n, dst, src) {
  sendrecv a[0:n] to dst from src
}
kernel k() on grid(Px = 2, Py = 2) {
  array u[4]: f64
  call shift(u, 4, east, west)
  call shift(u, 2, neighbor(0, 1), (none))
}
`, `kernel k() on grid(Px = 2, Py = 2) {
  array u[4]: f64
  {
    let n = 4
    sendrecv u[0:n] to east from west
  }
  {
    let n = 2
    sendrecv u[0:n] to neighbor(0, 1) from (none)
  }
}
`},
		{"a var passed by name, a local named like the caller's array", `proc acc(total, a) {
  var u: f64 = 0
  for i in 0..4 {
    u += a[i]
  }
  total += u
}
kernel k() {
  array u[4]: f64
  var s: f64
  call acc(s, u)
}
`, `kernel k() {
  array u[4]: f64
  var s: f64
  {
    var u_acc: f64 = 0
    for i in 0..4 {
      u_acc += u[i]
    }
    s += u_acc
  }
}
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := checkMust(t, tt.src)
			got := string(lang.Format(&lang.File{Kernels: []*lang.Kernel{c.Kernel}}))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("expansion mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestProcUnusedWarning: a proc that nothing calls is a warning, not an
// error; the kernel checks.
func TestProcUnusedWarning(t *testing.T) {
	c := checkMust(t, `proc used() {
}
proc spare(a) {
}
kernel k() {
  call used()
}
`)
	var got []string
	for _, w := range c.Warnings {
		got = append(got, w.Error())
	}
	if diff := cmp.Diff([]string{"test.spmd:3:6: proc spare is never called"}, got); diff != "" {
		t.Errorf("warnings mismatch (-want +got):\n%s", diff)
	}
}

// TestProcBudgets: expansions that would grow exponentially or nest too
// deep are errors, reported at once rather than after a long expansion.
func TestProcBudgets(t *testing.T) {
	var doubling strings.Builder
	for i := range 30 {
		fmt.Fprintf(&doubling, "proc p%d(a) {\n  call p%d(a)\n  call p%d(a)\n}\n", i, i+1, i+1)
	}
	doubling.WriteString("proc p30(a) {\n  a[0] += 1.0\n}\nkernel k() {\n  array u[1]: f64\n  call p0(u)\n}\n")
	var deep strings.Builder
	for i := range 70 {
		fmt.Fprintf(&deep, "proc q%d() {\n  call q%d()\n}\n", i, i+1)
	}
	deep.WriteString("proc q70() {\n}\nkernel k() {\n  call q0()\n}\n")
	tests := []struct {
		name, src string
		want      []string
	}{
		{"a proc calling another twice, 30 deep", doubling.String(), []string{
			"126:3: expanding the call of p0 would make the expanded kernel larger than 1000000 nodes (this call alone expands to 9663676414 nodes); procs that call procs multiply: call fewer times, or use a loop",
		}},
		// 71 calls, each a block, inside the kernel's body.
		{"calls 71 deep", deep.String(), []string{
			"214:3: expanding the call of q0 would nest blocks 72 deep, more than 64; flatten the procs it calls, or call it from a shallower place",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			got := checkMessages(t, tt.src)
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("checking took %v", d)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDocumentedProcs checks the spmd code blocks of docs/language.md
// (the example of "Procedures"): every kernel in them checks, and the
// expanded kernel holds no call.
func TestDocumentedProcs(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "language.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(string(doc), "```spmd\n")[1:]
	if len(blocks) == 0 {
		t.Fatal("docs/language.md has no ```spmd block")
	}
	for i, b := range blocks {
		src, _, _ := strings.Cut(b, "```")
		f := checkParse(t, src)
		if len(f.Procs) == 0 {
			t.Errorf("block %d declares no proc", i+1)
		}
		for _, k := range f.Kernels {
			c, errs := checkList(t, f, k.Name.Name, nil)
			if errs != nil {
				t.Fatalf("block %d, kernel %s:\n%s", i+1, k.Name.Name, errs.Format(f.Source))
			}
			lang.Inspect(c.Kernel, func(n lang.Node) bool {
				if _, ok := n.(*lang.ProcCallStmt); ok {
					t.Errorf("block %d, kernel %s: the checked kernel holds a call", i+1, k.Name.Name)
				}
				return true
			})
		}
	}
}

// TestProcExpansionSharesNoNode: every node of an expansion is new, since
// the checker keys what it finds by node: no node of the expanded kernel
// is the proc's, and none appears twice (two calls, two copies).
func TestProcExpansionSharesNoNode(t *testing.T) {
	f := checkParse(t, `proc p(a, n, d) {
  region "r" {
    for i in 0..n {
      a[i] = a[i] + f64(i) * 0.5
    }
    if n > 2 {
      send a[0:n] to d
    } else {
      var s: f64 = a[0]
      recv s from d
    }
  }
}
kernel k() on grid(Px = 2, Py = 1) {
  array u[8]: f64
  call p(u, 4, east)
  call p(u, 2, east)
}
`)
	c, errs := checkList(t, f, "", nil)
	if errs != nil {
		t.Fatalf("unexpected errors:\n%s", errs.Format(f.Source))
	}
	proc := map[lang.Node]bool{}
	lang.Inspect(f.Procs[0].Body, func(n lang.Node) bool {
		proc[n] = true
		return true
	})
	seen := map[lang.Node]bool{}
	lang.Inspect(c.Kernel.Body, func(n lang.Node) bool {
		switch {
		case proc[n]:
			t.Errorf("%T at %s is the proc's own node", n, f.Source.Position(n.Pos()))
		case seen[n]:
			t.Errorf("%T at %s appears twice", n, f.Source.Position(n.Pos()))
		}
		seen[n] = true
		return true
	})
}
