package analyze

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"perfc/lang"
	"perfc/parser"
)

// checkKernel parses and checks a kernel file with overrides.
func checkKernel(t testing.TB, path string, defs ...lang.Override) *lang.Checked {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(path, src)
	if err != nil {
		t.Fatal(err)
	}
	k, err := lang.Check(f, "", defs)
	if err != nil {
		t.Fatal(err.(lang.ErrorList).Format(f.Source))
	}
	return k
}

// scheduleTotals expands one rank's schedule and adds up what it does.
type scheduleTotals struct {
	flop, loads, stores, iterations float64
	entries                         float64
	sends, sendBytes                int64
	recvs, recvBytes                int64
	collectives, barriers           int64
}

func expand(t *testing.T, k *lang.Checked, rank int64) scheduleTotals {
	t.Helper()
	s, err := NewSchedule(k, rank)
	if err != nil {
		t.Fatal(err)
	}
	var tot scheduleTotals
	err = s.Events(func(ev *Event) bool {
		switch ev.Kind {
		case EvCompute:
			tot.flop += ev.Work.Flop
			tot.loads += ev.Work.Loads
			tot.stores += ev.Work.Stores
			tot.iterations += ev.Work.Iterations
			tot.entries += ev.Work.LoopEntries
		case EvSend, EvISend:
			if ev.Peer >= 0 {
				tot.sends++
				tot.sendBytes += ev.Bytes
			}
		case EvRecv, EvIRecv:
			if ev.Peer >= 0 {
				tot.recvs++
				tot.recvBytes += ev.Bytes
			}
		case EvSendRecv:
			if ev.Peer >= 0 {
				tot.sends++
				tot.sendBytes += ev.Bytes
			}
			if ev.From >= 0 {
				tot.recvs++
				tot.recvBytes += ev.RecvBytes
			}
		case EvCollective:
			tot.collectives++
		case EvBarrier:
			tot.barriers++
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return tot
}

// countTotals reads the same quantities from the analyzer's counts.
func countTotals(c Counts) scheduleTotals {
	var tot scheduleTotals
	tot.flop, tot.loads, tot.stores = c.Flop.Float(), c.Loads.Float(), c.Stores.Float()
	tot.iterations, tot.entries = c.Iterations.Float(), c.LoopEntries.Float()
	for _, m := range c.Messages {
		if m.Kind == "send" || m.Kind == "isend" {
			tot.sends += int64(m.Count.Float())
			tot.sendBytes += int64(m.Bytes.Float())
		} else {
			tot.recvs += int64(m.Count.Float())
			tot.recvBytes += int64(m.Bytes.Float())
		}
	}
	for _, col := range c.Collectives {
		tot.collectives += int64(col.Count.Float())
	}
	tot.barriers = int64(c.Barriers.Float())
	return tot
}

// TestScheduleMatchesCounts expands the schedule of every rank of every
// example at small sizes and checks that it does exactly what the counts
// say: the same work in its compute segments (iterations of loops that
// communicate are not segment work, so they are not compared), the same
// messages and bytes, the same collectives and barriers.
func TestScheduleMatchesCounts(t *testing.T) {
	small := map[string][]lang.Override{
		"gauss":     {{Name: "N", Value: "16"}, {Name: "P", Value: "4"}},
		"wave":      {{Name: "Px", Value: "3"}, {Name: "Py", Value: "3"}},
		"sweep3d":   {{Name: "Px", Value: "3"}, {Name: "Py", Value: "2"}},
		"halo2d":    {{Name: "Px", Value: "3"}, {Name: "Py", Value: "3"}},
		"cannon":    {{Name: "N", Value: "6"}, {Name: "Px", Value: "3"}, {Name: "Py", Value: "3"}},
		"meshshift": {{Name: "Px", Value: "4"}, {Name: "Py", Value: "2"}},
		"comms3":    {{Name: "P", Value: "4"}},
		"hypercube": {{Name: "P", Value: "8"}},
	}
	files, _ := filepath.Glob("../examples/*.spmd")
	for _, path := range files {
		name := filepath.Base(path[:len(path)-len(".spmd")])
		t.Run(name, func(t *testing.T) {
			k := checkKernel(t, path, small[name]...)
			if k.NumRanks() > 64 {
				t.Skipf("%d ranks at the defaults", k.NumRanks())
			}
			rep, err := Analyze(k, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, cl := range rep.Classes {
				r := cl.Rank
				got := expand(t, k, r)
				want := countTotals(cl.Total)
				if math.Abs(got.flop-want.flop) > 1e-6*max(1, want.flop) || math.Abs(got.loads-want.loads) > 1e-6*max(1, want.loads) ||
					math.Abs(got.stores-want.stores) > 1e-6*max(1, want.stores) {
					t.Errorf("rank %d: schedule work flop %g loads %g stores %g, counts %g %g %g", r, got.flop, got.loads, got.stores, want.flop, want.loads, want.stores)
				}
				// Loops that communicate are schedule nodes, not segment
				// work: their iterations and entries are compared only in
				// kernels without them.
				if !loopCommunicates(k) && (got.iterations != want.iterations || got.entries != want.entries) {
					t.Errorf("rank %d: schedule work iterations %g loop entries %g, counts %g %g", r, got.iterations, got.entries, want.iterations, want.entries)
				}
				got.flop, got.loads, got.stores, got.iterations, got.entries = 0, 0, 0, 0, 0
				want.flop, want.loads, want.stores, want.iterations, want.entries = 0, 0, 0, 0, 0
				if got != want {
					t.Errorf("rank %d: schedule %+v, counts %+v", r, got, want)
				}
			}
		})
	}
}

// loopCommunicates reports whether a for or repeat of k holds a
// communication statement.
func loopCommunicates(k *lang.Checked) bool {
	found := false
	lang.Inspect(k.Kernel.Body, func(n lang.Node) bool {
		switch n.(type) {
		case *lang.ForStmt, *lang.RepeatStmt:
			if hasComm(n) {
				found = true
			}
		}
		return !found
	})
	return found
}
