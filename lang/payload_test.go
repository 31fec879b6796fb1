package lang_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfc/lang"
)

// TestPayloadErrors: the checker's messages for column, block and strided
// payloads, at the position of the bracket part that is wrong.
func TestPayloadErrors(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"step 0", `kernel k(N = 8) on P = 2 ranks {
  array x[N]: f64
  send x[0:N:0] to 1
}`, []string{"3:14: the step 0 of the slice 0:N:0 must be at least 1 (step 1 takes every element)"}},
		{"step that varies", `kernel k(N = 8) on P = 2 ranks {
  array x[N]: f64
  for i in 1..3 { send x[0:N:i] to 1 }
}`, []string{"3:30: the step of a slice must be the same on every rank and iteration, but i is a loop index; use parameters and lets"}},
		{"column out of bounds", `kernel k(N = 8) on P = 2 ranks {
  array A[N][N]: f64
  send A[0:N + 1][2] to 1
  recv A[0:N][N] from 1
}`, []string{
			"3:12: the slice end N + 1 = 9 is outside dimension 1 of A, which has 8 elements (a slice lo:hi needs 0 ≤ lo ≤ hi ≤ 8)",
			"4:15: the index N = 8 is outside dimension 2 of A, which has 8 elements (indices 0..7)",
		}},
		{"block start out of bounds", `kernel k(N = 8) on P = 2 ranks {
  array A[N][N]: f64
  for i in 0..4 { send A[0:2][i - 1:4] to 1 }
}`, []string{"3:31: the slice start i - 1 = -1 at i = 0 is outside dimension 2 of A, which has 8 elements (a slice lo:hi needs 0 ≤ lo ≤ hi ≤ 8)"}},
		{"column against row counts", `kernel k(N = 8) on P = 2 ranks {
  array A[N][N]: f64
  sendrecv A[0:N][0] to 1 from 1 into A[0][0:N - 2]
  sendrecv A[0:N:2][0] to 1 from 1 into A[1][0:4]
  sendrecv A[0:N:3][0] to 1 from 1 into A[1][0:2]
}`, []string{
			"3:39: sendrecv sends 8 elements but receives 6; the two payloads must have the same count",
			"5:41: sendrecv sends 3 elements but receives 2; the two payloads must have the same count",
		}},
		{"too many brackets", `kernel k(N = 8) on P = 2 ranks {
  array A[N][N]: f64
  send A[0:N][0][1:2] to 1
}`, []string{"3:8: A has 2 dimensions, but the payload gives 3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := checkParse(t, tt.src)
			_, errs := checkList(t, f, "", nil)
			var got []string
			for _, e := range errs {
				got = append(got, strings.TrimPrefix(e.Error(), "test.spmd:"))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPackLoops: a payload that is not contiguous gets a buffer and the
// loops that copy it in row-major order over its ranges; a contiguous one
// gets none.
func TestPackLoops(t *testing.T) {
	src := `kernel k(N = 8, M = 6) on P = 2 ranks {
  array A[N][M], B[4][N][M]: f64
  array x[N]: f64
  let lo = rank
  send A[1:N - 1][0] to 1
  send A[2:4][1:3] to 1
  send x[1:N:3] to 1
  send B[1][lo:lo + 2][0:M] to 1
  send B[0:4:2][2] to 1
  send A[2] to 1
  send A[1:3] to 1
  send A[1][0:M:1] to 1
  send B[lo:4][0:N][0:M] to 1
}`
	f := checkParse(t, src)
	c, errs := checkList(t, f, "", nil)
	if errs != nil {
		t.Fatal(errs.Format(f.Source))
	}
	want := []string{
		"array A@5:8[6]: f64 | for i0@5:8 in 0..6 { A@5:8[i0@5:8] = A[1+i0@5:8][0] } | for i0@5:8 in 0..6 { A[1+i0@5:8][0] = A@5:8[i0@5:8] }",
		"array A@6:8[4]: f64 | for i0@6:8 in 0..2 { for i1@6:8 in 0..2 { A@6:8[i0@6:8*2+i1@6:8] = A[2+i0@6:8][1+i1@6:8] } } | for i0@6:8 in 0..2 { for i1@6:8 in 0..2 { A[2+i0@6:8][1+i1@6:8] = A@6:8[i0@6:8*2+i1@6:8] } }",
		"array x@7:8[3]: f64 | for i0@7:8 in 0..3 { x@7:8[i0@7:8] = x[1+3*i0@7:8] } | for i0@7:8 in 0..3 { x[1+3*i0@7:8] = x@7:8[i0@7:8] }",
		"",
		"array B@9:8[12]: f64 | for i0@9:8 in 0..2 { for i1@9:8 in 0..6 { B@9:8[i0@9:8*6+i1@9:8] = B[2*i0@9:8][2][i1@9:8] } } | for i0@9:8 in 0..2 { for i1@9:8 in 0..6 { B[2*i0@9:8][2][i1@9:8] = B@9:8[i0@9:8*6+i1@9:8] } }",
		"", "", "", "",
	}
	var got []string
	for _, s := range f.Kernels[0].Body.Stmts {
		cs, ok := s.(*lang.CommStmt)
		if !ok {
			continue
		}
		pk := c.Info.Packs[cs.Payload]
		if pk == nil {
			got = append(got, "")
			continue
		}
		if pk.Buffer == nil || len(pk.Buffer.Dims) != 1 {
			t.Errorf("%s: buffer %+v", cs.Payload.Name.Name, pk.Buffer)
		}
		got = append(got, strings.Join([]string{oneLine(pk.Decl), oneLine(pk.PackLoops), oneLine(pk.UnpackLoops)}, " | "))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("packs (-want +got):\n%s", diff)
	}
}

// oneLine prints a statement with perfc fmt's rules on one line.
func oneLine(s lang.Stmt) string {
	k := &lang.Kernel{Name: &lang.Ident{Name: "k"}, Body: &lang.Block{Stmts: []lang.Stmt{s}}}
	out := string(lang.Format(&lang.File{Kernels: []*lang.Kernel{k}}))
	out = strings.TrimPrefix(out, "kernel k() {\n")
	out = strings.TrimSuffix(out, "}\n")
	return strings.Join(strings.Fields(out), " ")
}

// TestCommPacks: which payloads a statement packs before its transfer and
// unpacks after it, and under which guard: a peer that may be none, or the
// root of a collective.
func TestCommPacks(t *testing.T) {
	src := `kernel k(N = 4) on grid(Px = 2, Py = 2) {
  array A[N][N]: f64
  send A[0:N][0] to east
  recv A[0:N][1] from 1
  sendrecv A[0:N][0] to east from west into A[0:2][0:2]
  exchange A[0:N:2][1] with 3 - rank
  bcast A[0:N][2] from 1
  reduce sum A[0:N][2] to 0
  allreduce sum A[0:N][2]
  scatter A[0:N][2] from 0
  gather A[0:N][2] to 0
  send A[0][0:N] to 1
}`
	f := checkParse(t, src)
	c, errs := checkList(t, f, "", nil)
	if errs != nil {
		t.Fatal(errs.Format(f.Source))
	}
	// head is the first line of a copying statement: its guard, or its
	// loop.
	head := func(s lang.Stmt) string {
		line, _, _ := strings.Cut(oneLine(s), " {")
		return line
	}
	want := []string{
		"before [if east != none] after []",
		"before [] after [for i0@4:8 in 0..4]",
		"before [if east != none] after [if west != none]",
		"before [if 3 - rank != none] after [if 3 - rank != none]",
		"before [if rank == 1] after [if rank != 1]",
		"before [for i0@8:14 in 0..4] after [if rank == 0]",
		"before [for i0@9:17 in 0..4] after [for i0@9:17 in 0..4]",
		"before [] after [for i0@10:11 in 0..4]",
		"before [for i0@11:10 in 0..4] after []",
		"none",
	}
	var got []string
	for _, s := range f.Kernels[0].Body.Stmts {
		cs, ok := s.(*lang.CommStmt)
		if !ok {
			continue
		}
		cp := c.Info.CommPacks[cs]
		if cp == nil {
			got = append(got, "none")
			continue
		}
		var before, after []string
		for _, st := range cp.Before {
			before = append(before, head(st))
		}
		for _, st := range cp.After {
			after = append(after, head(st))
		}
		got = append(got, fmt.Sprintf("before [%s] after [%s]", strings.Join(before, "; "), strings.Join(after, "; ")))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("copies (-want +got):\n%s", diff)
	}
}
