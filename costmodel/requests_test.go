package costmodel

import (
	"math"
	"os"
	"strings"
	"testing"

	"perfc/costmodel/emulate"
	"perfc/lang"
	"perfc/machines"
)

// requestTables are a LogGP and a Hockney machine with round numbers: a
// flop costs 1 µs; a LogGP message of 64 B costs o + L + 63·G + o =
// 1 + 5 + 6.3 + 1 = 13.3 µs (transfer 11.3 µs, g = 3 µs); a Hockney one
// 9 µs + 64 B / 64 MB/s = 10 µs.
func requestTables(t *testing.T) (loggp, hockney *machines.Machine) {
	t.Helper()
	const head = "source: perfc test data, invented numbers\ncompute:\n  source: test compute\n  peak: 1Mflop/s\nmessages:\n  source: test messages\n"
	var err error
	if loggp, err = machines.Parse("loggp.yaml", []byte("name: loggp-test\ndescription: LogGP test table\n"+head+
		"  model: loggp\n  L: 5us\n  o: 1us\n  g: 3us\n  G: 1/(10MB/s)\n")); err != nil {
		t.Fatal(err)
	}
	if hockney, err = machines.Parse("hockney.yaml", []byte("name: hockney-test\ndescription: Hockney test table\n"+head+
		"  model: hockney\n  t0: 9us\n  rinf: 64MB/s\n")); err != nil {
		t.Fatal(err)
	}
	return loggp, hockney
}

// hostTable is the Hockney table of requestTables on a host with 2 cores,
// where the side of a message that arrives second copies it.
func hostTable(t *testing.T) *machines.Machine {
	t.Helper()
	m, err := machines.Parse("host.yaml", []byte("name: host-test\ndescription: Hockney host test table\ncores: 2\n"+
		"source: perfc test data, invented numbers\ncompute:\n  source: test compute\n  peak: 1Mflop/s\nmessages:\n  source: test messages\n"+
		"  model: hockney\n  t0: 9us\n  rinf: 64MB/s\n"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// overlapSource posts a message of 64 B from rank 0 to rank 1, computes
// m flop on both ranks and waits.
func overlapSource(m string) string {
	return `kernel ov(m = ` + m + `) on P = 2 ranks {
  array a[8], b[m]: f64
  if rank == 0 {
    isend a to 1 as r
  } else {
    irecv a from 0 as r
  }
  for i in 0..m {
    b[i] = b[i] * 2.0
  }
  wait r
}`
}

// TestPredictRequests checks what perfc predict charges for non-blocking
// messages, worked out by hand: the region table charges each side its
// LogGP overhead only (0 on a Hockney table), and the emulated total
// hides the transfer behind computation longer than it, or charges the
// rest in the wait (docs/predict.md, "Non-blocking messages").
func TestPredictRequests(t *testing.T) {
	loggp, hockney := requestTables(t)
	tests := []struct {
		name    string
		m       *machines.Machine
		flop    string
		total   float64 // µs
		rankSum float64 // µs
		unit    float64 // the isend and irecv terms' unit cost, µs
	}{
		{"LogGP, computation hides the transfer", loggp, "64", 65, 65, 1},
		{"LogGP, the wait pays the rest", loggp, "8", 13.3, 9, 1},
		{"Hockney, computation hides the transfer", hockney, "64", 64, 64, 0},
		{"Hockney, the wait pays the rest", hockney, "8", 10, 8, 0},
		// On a host the sender, ready when the receiver is, copies the
		// message (10 µs) at its wait: nothing overlaps.
		{"host, the sender copies", hostTable(t), "64", 74, 64, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := predictSource(t, tc.m, overlapSource(tc.flop), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(p.Total*1e6-tc.total) > 1e-6 || math.Abs(p.RankSum*1e6-tc.rankSum) > 1e-6 {
				t.Errorf("total %g µs, rank sum %g µs; want %g and %g", p.Total*1e6, p.RankSum*1e6, tc.total, tc.rankSum)
			}
			if p.Emulation == nil || p.Emulation.Requests != 2 {
				t.Fatalf("no emulation with 2 requests: %+v", p.Emulation)
			}
			kinds := 0
			for _, r := range p.Regions {
				for _, term := range r.Terms {
					if term.Resource != "message" {
						continue
					}
					if !strings.HasPrefix(term.What, "isend") && !strings.HasPrefix(term.What, "irecv") {
						t.Errorf("term %q: a message term of another kind", term.What)
					}
					kinds++
					if math.Abs(term.UnitCost*1e6-tc.unit) > 1e-9 || !strings.Contains(term.How, "overlaps computation until the wait") {
						t.Errorf("term %q costs %g µs (%s); want %g µs, the overhead", term.What, term.UnitCost*1e6, term.How, tc.unit)
					}
				}
			}
			if kinds != 1 {
				t.Errorf("%d message terms on the slowest rank, want 1 (its isend or irecv)", kinds)
			}
		})
	}
}

// TestJacobiOverlapGain checks that the emulated time of
// examples/jacobi_overlap.spmd is below that of examples/jacobi_blocking.spmd
// by what the model says. Both compute the same points; on a 4 x 4 grid
// with 256 x 256 points per rank and 10 iterations every halo message is
// 2,048 B and the interior update (64,516 points) hides every transfer.
//
//   - Hockney (cm5-32): the blocking exchange costs every rank its four
//     sendrecvs, one message time each (the halves overlap), which the
//     overlapped version hides whole: the gain is the blocking version's
//     message time, as its region table charges it.
//   - LogGP (o = 1 µs, L = 5 µs, g = 3 µs, G = 0.1 µs/B, a flop 1 µs):
//     a message costs 2 + 5 + 2047·0.1 = 211.7 µs, so the blocking
//     exchange costs 4 · 211.7 = 846.8 µs per iteration. An interior rank
//     of the overlapped version still pays 4 isend overheads, 4 irecv
//     overheads at the wait and, its four isends back to back (packing a
//     column costs nothing on a table that prices only flop), g − o = 2 µs
//     before each of the last three: 14 µs. The gain is
//     10 · (846.8 − 14) µs = 8.328 ms.
func TestJacobiOverlapGain(t *testing.T) {
	loggp, _ := requestTables(t)
	cm5, err := machines.Builtin("cm5-32")
	if err != nil {
		t.Fatal(err)
	}
	overlap := loadKernel(t, "../examples/jacobi_overlap.spmd")
	blocking := loadKernel(t, "../examples/jacobi_blocking.spmd")
	predict := func(k *lang.Checked, m *machines.Machine) *Prediction {
		t.Helper()
		p := predictCached(t, k, m, Options{})
		if p.Emulation == nil {
			t.Fatalf("%s on %s: not emulated", k.Kernel.Name.Name, m.Name())
		}
		return p
	}
	messages := func(p *Prediction) float64 {
		var sum float64
		for _, r := range p.Regions {
			sum += r.Messages
		}
		return sum
	}

	po, pb := predict(overlap, cm5), predict(blocking, cm5)
	want := messages(pb)
	if got := pb.Total - po.Total; want <= 0 || !sameTime(got, want) || messages(po) != 0 {
		t.Errorf("cm5-32: blocking %g s − overlapped %g s = %g s; want the blocking messages %g s (overlapped messages %g s)",
			pb.Total, po.Total, got, want, messages(po))
	}

	po, pb = predict(overlap, loggp), predict(blocking, loggp)
	if got, want := pb.Total-po.Total, 10*(4*211.7-14)*1e-6; math.Abs(got-want) > 1e-9 {
		t.Errorf("LogGP: blocking %g s − overlapped %g s = %g s; want %g s", pb.Total, po.Total, got, want)
	}
	for _, r := range po.Emulation.PerRank {
		if r.RequestWait != 0 {
			t.Errorf("LogGP: rank %d waited %g s in waits; the interior update hides every transfer", r.Rank, r.RequestWait)
		}
	}
}

// TestRequestsHandNoCoreOver checks the pricing of an isend's message
// between ranks that share cores: on testdata/cores.yaml with a
// messages.sharing law (t0 = 0.5 µs, 20 GB/s; the top-level law 1 µs,
// 5 GB/s), at P = 4 on 2 cores a blocking message of 64 B between parked
// ranks costs the sharing law's 0.5 µs + 3.2 ns, and an isend's message
// the top-level law's 1 µs + 12.8 ns when the ranks are bound to their
// cores (goroutine ranks), the sharing law's when they are not (MPI).
func TestRequestsHandNoCoreOver(t *testing.T) {
	const src = `kernel q() on P = 4 ranks {
  array a[8], b[8]: f64
  region "x" {
    irecv b from (rank + 3) % P as r
    isend a to (rank + 1) % P as s
    wait r, s
    sendrecv a to (rank + 1) % P from (rank + 3) % P into b
  }
}`
	base, err := os.ReadFile("testdata/cores.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sharing := strings.Replace(string(base), "  rinf: bw\n", "  rinf: bw\n  sharing: {source: test, model: hockney, t0: 0.5us, rinf: 20GB/s}\n", 1)
	const handoff, law = 0.5e-6 + 64/20e9, 1e-6 + 64/5e9
	for _, tt := range []struct {
		name      string
		table     string
		isend     float64 // the isend's message, through StmtMessage
		isendPost bool    // StmtMessage prices it (ok)
	}{
		{"goroutine ranks, bound", sharing, law, true},
		{"MPI ranks", sharing + "host:\n  backend: mpi\n", 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, k, rep := onTable(t, "sharing.yaml", tt.table, "q.spmd", src)
			p := PricerFor(k, rep, m, Options{})
			var isend, sendrecv *lang.CommStmt
			lang.Inspect(k.Kernel, func(n lang.Node) bool {
				if s, ok := n.(*lang.CommStmt); ok {
					switch s.Kind {
					case lang.ISend:
						isend = s
					case lang.SendRecv:
						sendrecv = s
					}
				}
				return true
			})
			sm := p.(emulate.StmtMessager)
			got, ok := sm.StmtMessage(isend, 0, 1, 64)
			if ok != tt.isendPost || ok && !sameTime(got, tt.isend) {
				t.Errorf("isend's message: %g s, ok %v; want %g s, ok %v", got, ok, tt.isend, tt.isendPost)
			}
			if got, ok := sm.StmtMessage(sendrecv, 0, 1, 64); ok {
				t.Errorf("sendrecv's message priced by StmtMessage (%g s): want the message law", got)
			}
			if got := p.Message(0, 1, 64); !sameTime(got, handoff) {
				t.Errorf("a blocking message costs %g s, want the sharing law's %g s", got, handoff)
			}
		})
	}
}
