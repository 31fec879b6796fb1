package costmodel

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfc/analyze"
	"perfc/lang"
	"perfc/machines"
)

// TestLocalStmts checks which statements send a payload that stays with
// its sender: a sent array the kernel never receives into, a `SIZE bytes`
// payload, and the receives of a kernel whose every send is one; not an
// array that comes back (COMMS1), nor one received into elsewhere (a halo
// exchange's rows of u).
func TestLocalStmts(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		want      []int // the lines of the local statements
	}{
		{"separate buffers", `kernel k() on P = 2 ranks {
  array sb[8], rb[8]: f64
  if rank == 0 {
    send sb to 1
    recv rb from 1
  } else {
    recv rb from 0
    send sb to 0
  }
}`, []int{4, 5, 7, 8}},
		{"the payload comes back", `kernel k() on P = 2 ranks {
  array buf[8]: f64
  if rank == 0 {
    send buf to 1
    recv buf from 1
  } else {
    recv buf from 0
    send buf to 0
  }
}`, nil},
		{"sendrecv into another array", `kernel k() on P = 4 ranks {
  array sb[8], rb[8]: f64
  sendrecv sb to (rank + 1) % P from (rank + 3) % P into rb
}`, []int{3}},
		{"sendrecv into the array it sends", `kernel k() on P = 4 ranks {
  array u[4][8]: f64
  sendrecv u[1][0:8] to (rank + 1) % P from (rank + 3) % P into u[3][0:8]
}`, nil},
		{"bytes", `kernel k() on P = 2 ranks {
  sendrecv 64 bytes to (rank + 1) % P from (rank + 1) % P into 64 bytes
}`, []int{2}},
		{"bytes without into", `kernel k() on P = 2 ranks {
  sendrecv 64 bytes to (rank + 1) % P from (rank + 1) % P
}`, []int{2}},
		{"a collective receives into it", `kernel k() on P = 2 ranks {
  array x[8], y[8]: f64
  send x to (rank + 1) % P
  recv y from (rank + 1) % P
  allreduce sum x
}`, nil},
		{"one send bounces: receives keep COMMS1", `kernel k() on P = 2 ranks {
  array a[8], b[8]: f64
  send a to (rank + 1) % P
  recv b from (rank + 1) % P
  send b to (rank + 1) % P
  recv b from (rank + 1) % P
}`, []int{3}},
		{"the received data is read: COMMS1", `kernel k() on P = 2 ranks {
  array sb[8], rb[8], c[8]: f64
  sendrecv sb to (rank + 1) % P from (rank + 1) % P into rb
  for i in 0..8 {
    c[i] = rb[i]
  }
}`, nil},
		{"read by a compound assignment", `kernel k() on P = 2 ranks {
  array sb[8], rb[8]: f64
  sendrecv sb to (rank + 1) % P from (rank + 1) % P into rb
  for i in 0..8 {
    rb[i] += 1.0
  }
}`, nil},
		{"read by abstract work", `kernel k() on P = 2 ranks {
  array sb[8], rb[8]: f64
  sendrecv sb to (rank + 1) % P from (rank + 1) % P into rb
  work 8 add f64, load 64 bytes from rb
}`, nil},
		{"the received data is only overwritten: LOCAL", `kernel k() on P = 2 ranks {
  array sb[8], rb[8]: f64
  sendrecv sb to (rank + 1) % P from (rank + 1) % P into rb
  for i in 0..8 {
    rb[i] = 0.0
    sb[i] = sb[i] + 1.0
  }
}`, []int{3}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			k := checkSource(t, "k.spmd", tt.src)
			if diff := cmp.Diff(tt.want, stmtLines(t, k, localStmts)); diff != "" {
				t.Errorf("local statements' lines (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCrossingStmts checks which statements are priced as crossing the
// cores once: every copy of a kernel that computes with what it receives
// but an in-place exchange's, and none of a kernel that does not.
func TestCrossingStmts(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		want      []int // the lines of the crossing statements
	}{
		{"a ring that reads what it receives", `kernel k() on P = 2 ranks {
  array cur[8], nxt[8], acc[8]: f64
  irecv nxt from (rank + 1) % P as left
  isend cur to (rank + 1) % P as right
  wait left, right
  for i in 0..8 {
    acc[i] += nxt[i]
  }
}`, []int{3, 4}},
		{"a relay: received into what it sends", `kernel k() on P = 2 ranks {
  array buf[8]: f64
  if rank == 0 {
    send buf to 1
  } else {
    recv buf from 0
    buf[0] = buf[1] + 1.0
  }
}`, []int{4, 6}},
		{"an in-place exchange keeps messages.exchange", `kernel k() on P = 2 ranks {
  array u[8], c[8]: f64
  exchange u with (rank + 1) % P
  sendrecv u to (rank + 1) % P from (rank + 1) % P
  sendrecv u[0:4] to (rank + 1) % P from (rank + 1) % P into c[0:4]
  c[5] = c[0]
}`, []int{5}},
		{"received data never read", `kernel k() on P = 2 ranks {
  array sb[8], rb[8]: f64
  sendrecv sb to (rank + 1) % P from (rank + 1) % P into rb
}`, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			k := checkSource(t, "k.spmd", tt.src)
			if diff := cmp.Diff(tt.want, stmtLines(t, k, crossingStmts)); diff != "" {
				t.Errorf("crossing statements' lines (-want +got):\n%s", diff)
			}
		})
	}
}

// stmtLines is the sorted lines of the statements a finder (localStmts,
// crossingStmts) finds in k, after checking that it keys each by its
// position too.
func stmtLines(t *testing.T, k *lang.Checked, find func(*lang.Checked) (map[*lang.CommStmt]bool, map[string]bool)) []int {
	t.Helper()
	byStmt, byPos := find(k)
	var got []int
	for s := range byStmt {
		got = append(got, k.File.Source.Position(s.Pos()).Line)
	}
	slices.Sort(got)
	if len(byPos) != len(byStmt) {
		t.Errorf("%d positions for %d statements", len(byPos), len(byStmt))
	}
	return got
}

// localTable is a table with a slow message law (COMMS1's, 1 GB/s) and a
// fast messages.local (10 GB/s), 1 µs start-up each.
const localTable = `name: local-test
description: test table with messages.local
source: test
compute:
  source: test compute
  peak: {f64: 8Gflop/s}
memory:
  source: test memory
  main_bandwidth: 10GB/s
messages:
  source: test messages
  model: hockney
  t0: 1us
  rinf: 1GB/s
  local:
    source: test local
    model: hockney
    t0: 1us
    rinf: 10GB/s
`

// TestLocalLawPrices checks the pricing: a message whose payload stays
// with its sender costs messages.local's time, in the region table and
// in the emulated total; one whose payload came back costs the message
// law's; a table without messages.local prices both alike, and so does
// one whose ranks outnumber its cores, except between goroutine ranks
// bound to two different cores (rank r on core r mod C), which copy
// between cores as the LOCAL pingpong's ranks do.
func TestLocalLawPrices(t *testing.T) {
	m, err := machines.Parse("local.yaml", []byte(localTable))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := machines.Parse("plain.yaml", []byte(localTable[:strings.Index(localTable, "  local:")]))
	if err != nil {
		t.Fatal(err)
	}
	shared, err := machines.Parse("shared.yaml", []byte(localTable+"cores: 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	sharing2, err := machines.Parse("sharing2.yaml", []byte(localTable+"cores: 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	mpi2, err := machines.Parse("mpi2.yaml", []byte(localTable+"cores: 2\nhost:\n  backend: mpi\n"))
	if err != nil {
		t.Fatal(err)
	}
	// Caches of 8 KiB, 64 KiB and 1 MiB, and copies at once twice as
	// slow: the 10,000 B payload is longer than the first level, so when
	// every rank copies its bytes' part doubles (the core's private
	// caches, 64 KiB, would hold it: the top-level law keeps its time).
	cached := strings.Replace(localTable, "  source: test memory\n", "  source: test memory\n  caches:\n"+
		"    - {name: L1, size: 8KiB, line: 64B, assoc: 8, bandwidth: 100GB/s}\n"+
		"    - {name: L2, size: 64KiB, line: 64B, assoc: 8, bandwidth: 50GB/s}\n"+
		"    - {name: L3, size: 1MiB, line: 64B, assoc: 16, bandwidth: 20GB/s}\n", 1)
	cached = strings.Replace(cached, "  local:\n", "  shared: {factor: 2, source: test}\n  local:\n", 1)
	shared2, err := machines.Parse("shared2.yaml", []byte(cached+"cores: 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	// 4 ranks on 2 cores: a ring to the next rank crosses cores, a ring
	// to the rank after it stays on one (rank r on core r mod 2).
	const across = `kernel k() on P = 4 ranks {
  array sb[1250], rb[1250]: f64
  region "ring" {
    sendrecv sb to (rank + 1) % P from (rank + 3) % P into rb
  }
}`
	const oneCore = `kernel k() on P = 4 ranks {
  array sb[1250], rb[1250]: f64
  region "ring" {
    sendrecv sb to (rank + 2) % P from (rank + 2) % P into rb
  }
}`
	const local = `kernel k() on P = 2 ranks {
  array sb[1250], rb[1250]: f64
  region "ring" {
    sendrecv sb to (rank + 1) % P from (rank + 1) % P into rb
  }
}`
	const back = `kernel k() on P = 2 ranks {
  array buf[1250]: f64
  region "ring" {
    if rank == 0 {
      send buf to 1
      recv buf from 1
    } else {
      recv buf from 0
      send buf to 0
    }
  }
}`
	const reads = `kernel k() on P = 2 ranks {
  array sb[1250], rb[1250], c[4]: f64
  region "ring" {
    sendrecv sb to (rank + 1) % P from (rank + 1) % P into rb
  }
  c[0] = rb[0]
}`
	// 10,000 B: 1 µs + 1 µs at 10 GB/s, 1 µs + 10 µs at 1 GB/s.
	for _, tt := range []struct {
		name, src string
		m         *machines.Machine
		message   float64 // the send term's unit cost
		how       string
	}{
		{"local payload", local, m, 2e-6, "messages.local"},
		{"payload that comes back", back, m, 11e-6, "hockney model"},
		{"local payload, no messages.local", local, plain, 11e-6, "hockney model"},
		{"local payload, ranks sharing a core", local, shared, 11e-6, "hockney model"},
		{"local payload, 4 ranks on 2 cores, across cores", across, sharing2, 2e-6, "messages.local"},
		{"local payload, 4 ranks on 2 cores, on one core", oneCore, sharing2, 11e-6, "hockney model"},
		{"local payload, 4 MPI ranks on 2 cores", across, mpi2, 11e-6, "hockney model"},
		{"local payload, 4 ranks on 2 cores copying at once", across, shared2, 3e-6, "messages.local: the payload stays with its sender), its bytes' part x 2"},
		// A kernel that computes with what it receives: the payload's
		// lines cross the cores once, the mean of the two laws; with
		// ranks sharing a core, the top-level law.
		{"received data read", reads, m, 6.5e-6, "the mean of hockney model, 1 network level(s), and messages.local"},
		{"received data read, no messages.local", reads, plain, 11e-6, "hockney model"},
		{"received data read, ranks sharing a core", reads, shared, 11e-6, "hockney model"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			k := checkSource(t, "k.spmd", tt.src)
			rep, err := analyze.Analyze(k, analyze.Options{})
			if err != nil {
				t.Fatal(err)
			}
			pred, err := Predict(k, rep, tt.m, Options{})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, r := range pred.Regions {
				for _, term := range r.Terms {
					if term.Resource != "message" || !strings.HasPrefix(term.What, "send") {
						continue
					}
					found = true
					if !sameTime(term.UnitCost, tt.message) || !strings.Contains(term.How, tt.how) {
						t.Errorf("%s: %g s (%s), want %g s (%s)", term.What, term.UnitCost, term.How, tt.message, tt.how)
					}
				}
			}
			if !found {
				t.Fatalf("no send term in %+v", pred.Regions)
			}
			// The emulated run takes at least one message and at most two
			// (a sendrecv's halves in series, a round trip), each at the
			// law's price; with 4 ranks on 2 cores the copies take turns.
			if k.NumRanks() > 2 {
				return
			}
			if pred.Total < tt.message || pred.Total > 2*tt.message+1e-6 {
				t.Errorf("predicted total %g s, want one or two messages of %g s", pred.Total, tt.message)
			}
		})
	}
}
