package emulate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"perfc/internal/kerneltest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfc/analyze"
	"perfc/lang"
)

// unitPricer is the step-counting machine of the LANL model: every message
// takes msg (1: one step), every compute segment cpu, every collective coll.
type unitPricer struct {
	msg     float64
	cpu     float64
	perFlop float64
	coll    float64
	eager   int64
	cluster *Cluster
}

func (u unitPricer) Compute(w *analyze.Work) float64             { return u.cpu + u.perFlop*w.Flop }
func (u unitPricer) Message(src, dst int64, bytes int64) float64 { return u.msg }
func (u unitPricer) Collective(kind, op, elem string, bytes int64, participants int64) float64 {
	return u.coll
}
func (u unitPricer) EagerLimit() int64 { return u.eager }
func (u unitPricer) Cluster() *Cluster { return u.cluster }

// steps is the unit pricer: a message is one step, compute is free,
// sends are synchronous.
func steps() unitPricer { return unitPricer{msg: 1, coll: 1, eager: -1} }

// onCluster is the unit pricer on nodes of sx × sy ranks with l links per
// boundary each way.
func onCluster(sx, sy, l int64) unitPricer {
	p := steps()
	p.cluster = &Cluster{Sx: sx, Sy: sy, Lx: l, Ly: l, Inter: func(int64) float64 { return 1 }}
	return p
}

// loadKernel and checkSource load kernels for the tests (internal/kerneltest).
var (
	loadKernel  = kerneltest.Load
	checkSource = kerneltest.Check
)

// wave loads examples/wave.spmd on a px × py grid with n sweeps.
func wave(t testing.TB, px, py, n int64) *lang.Checked {
	return loadKernel(t, "../../examples/wave.spmd", "Px", fmt.Sprint(px), "Py", fmt.Sprint(py), "sweeps", fmt.Sprint(n))
}

// TestEmulateTimes checks predicted totals against what the rules give by
// hand, and the MPP wavefront against the LANL paper's eqs. (2) and (3).
func TestEmulateTimes(t *testing.T) {
	const pingpong = `kernel pp(n = 3) on P = 2 ranks {
  array a[8]: f64
  repeat n {
    if rank == 0 {
      send a to 1
      recv a from 1
    } else {
      recv a from 0
      send a to 0
    }
  }
}`
	const ring = `kernel ring() on P = 4 ranks {
  array a[8]: f64
  sendrecv a to (rank + 1) % P from (rank - 1) % P
  exchange a with (rank + 2) % P
}`
	const eagerRing = `kernel ering() on P = 4 ranks {
  array a[8]: f64
  send a to (rank + 1) % P
  recv a from (rank - 1) % P
}`
	const barrier = `kernel b(n = 5) on P = 3 ranks {
  array a[8]: f64
  if rank == 1 {
    for i in 0..n {
      a[i] = a[i] * 2.0
    }
  }
  barrier
  allreduce sum a
}`
	const chain = `kernel chain() on P = 3 ranks {
  array a[8]: f64
  recv a from rank - 1 >= 0 ? rank - 1 : none
  a[0] = a[0] + 1.0
  send a to rank + 1 < P ? rank + 1 : none
}`
	eager := steps()
	eager.eager = 64
	cpu := unitPricer{cpu: 1, coll: 1, eager: -1}
	tests := []struct {
		name string
		k    *lang.Checked
		p    Pricer
		want float64
	}{
		// Eq. (3): 2(Px + Py − 2) + 4(N_sweep − 1) message steps.
		{"wave 2x2 N=1", wave(t, 2, 2, 1), steps(), 2*(2+2-2) + 4*0},
		{"wave 3x5 N=4", wave(t, 3, 5, 4), steps(), 2*(3+5-2) + 4*3},
		{"wave 10x10 N=4", wave(t, 10, 10, 4), steps(), 2*(10+10-2) + 4*3},
		// On a line eq. (3) does not hold: there is no east send, so the
		// repetition delay is 2, not 4: (Py − 1) + 2(N_sweep − 1).
		{"wave 1x6 N=3", wave(t, 1, 6, 3), steps(), (6 - 1) + 2*2},
		{"wave 1x1 N=3", wave(t, 1, 1, 3), steps(), 0},
		// Eq. (2): (Px + Py − 1) + (N_sweep − 1) compute steps when
		// messages are free.
		{"wave compute 10x10 N=4", wave(t, 10, 10, 4), cpu, (10 + 10 - 1) + 3},
		{"wave compute 4x7 N=9", wave(t, 4, 7, 9), cpu, (4 + 7 - 1) + 8},
		{"pingpong", checkSource(t, "pp.spmd", pingpong), steps(), 6},
		// sendrecv overlaps its halves: one step each, not two.
		{"sendrecv ring", checkSource(t, "ring.spmd", ring), steps(), 2},
		// Eager sends return at once: the ring of sends does not deadlock.
		{"eager ring", checkSource(t, "ering.spmd", eagerRing), eager, 1},
		// The barrier waits for rank 1's compute; the allreduce follows.
		{"barrier", checkSource(t, "b.spmd", barrier), unitPricer{cpu: 5, coll: 1, eager: -1}, 5 + 1 + 1},
		{"chain", checkSource(t, "chain.spmd", chain), unitPricer{msg: 2, cpu: 1, eager: -1}, 1 + 2 + 1 + 2 + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			em, err := Emulate(tt.k, tt.p, EmulateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if em.Total != tt.want {
				t.Errorf("total %g, want %g", em.Total, tt.want)
			}
			// Every rank's time adds up: busy + waiting = its end.
			for _, r := range em.PerRank {
				if got := r.Compute + r.Comm + r.Wait; !near(got, r.End) {
					t.Errorf("rank %d: compute %g + comm %g + wait %g = %g, but it ends at %g", r.Rank, r.Compute, r.Comm, r.Wait, got, r.End)
				}
			}
			// The critical path covers the run without gaps.
			checkPathCovers(t, em)
		})
	}
}

// near compares times up to rounding.
func near(a, b float64) bool { d := a - b; return d < 1e-9*max(1, b) && d > -1e-9*max(1, b) }

// checkPathCovers checks that the critical path runs from 0 to the total,
// each stretch starting where the previous one ended, and that its totals
// account for its length.
func checkPathCovers(t *testing.T, em *Emulation) {
	t.Helper()
	if em.CriticalCut {
		t.Fatalf("critical path cut in a small run")
	}
	if len(em.Critical) == 0 {
		if em.Total != 0 {
			t.Errorf("no critical path for a run of %g", em.Total)
		}
		return
	}
	at := 0.0
	for i, s := range em.Critical {
		if !near(s.Start, at) {
			t.Errorf("critical path step %d (%+v) starts at %g, the previous ended at %g", i, s, s.Start, at)
		}
		at = s.End
	}
	if !near(at, em.Total) {
		t.Errorf("critical path ends at %g, total %g", at, em.Total)
	}
	if tot := em.CriticalTotals; !near(tot.Compute+tot.Comm, em.Total) {
		t.Errorf("critical path totals %+v do not add up to %g", tot, em.Total)
	}
}

// TestEmulateCriticalPath checks the path through a chain of ranks: it
// starts on the slowest rank and follows the messages.
func TestEmulateCriticalPath(t *testing.T) {
	const src = `kernel chain() on P = 3 ranks {
  array a[8]: f64
  if rank == 0 {
    for i in 0..8 {
      a[i] = a[i] * 2.0
    }
  }
  recv a from rank - 1 >= 0 ? rank - 1 : none
  send a to rank + 1 < P ? rank + 1 : none
}`
	k := checkSource(t, "chain.spmd", src)
	p := unitPricer{msg: 1, perFlop: 1, eager: -1}
	em, err := Emulate(k, p, EmulateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Rank 0 computes 8 flop (8 steps), then sends to rank 1 [8, 9], which
	// waited for it and sends on to rank 2 [9, 10]. Ranks 1 and 2 both end
	// at 10; the path ends on rank 1 (the first of them) and enters it
	// from rank 0's compute through the message.
	want := []PathStep{
		{Rank: 0, Start: 0, End: 8, Events: 2, Kind: "compute", First: "chain.spmd:8:3", Last: "chain.spmd:8:3", Via: "start"},
		{Rank: 1, Start: 8, End: 10, Events: 2, Kind: "recv", First: "chain.spmd:8:3", Last: "chain.spmd:9:3", Via: "message"},
	}
	if diff := cmp.Diff(want, em.Critical); diff != "" {
		t.Errorf("critical path (-want +got):\n%s", diff)
	}
}

// TestEmulateErrors checks that schedules that cannot complete end with a
// ScheduleError that names the ranks, the statements and the waits.
func TestEmulateErrors(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		p     Pricer
		kind  string
		wants []string
	}{
		{"recv without send", `kernel k() on P = 2 ranks {
  array a[8]: f64
  if rank == 1 {
    recv a from 0
  }
}`, steps(), "deadlock", []string{"k.spmd:4:5: deadlock: 1 of 2 ranks cannot complete (nothing matches it; add the matching operation",
			"rank 1: recv of 64 B from rank 0 at k.spmd:4:5; waits for rank 0, which has finished its schedule"}},
		{"cycle of sends", `kernel k() on P = 3 ranks {
  array a[8]: f64
  send a to (rank + 1) % P
  recv a from (rank - 1) % P
}`, steps(), "deadlock", []string{"deadlock: 3 of 3 ranks cannot complete (a cycle of blocking operations; break the cycle with sendrecv",
			"rank 0: send of 64 B to rank 1 at k.spmd:3:3; waits for rank 1",
			"rank 1: send of 64 B to rank 2 at k.spmd:3:3; waits for rank 2",
			"rank 2: send of 64 B to rank 0 at k.spmd:3:3; waits for rank 0"}},
		{"size mismatch", `kernel k() on P = 2 ranks {
  array a[8]: f64
  if rank == 0 {
    send a[0:4] to 1
  } else {
    recv a from 0
  }
}`, steps(), "size mismatch", []string{"k.spmd:6:5: rank 1 receives 64 B from rank 0 here, but rank 0 sends 32 B at k.spmd:4:5"}},
		{"eager size mismatch", `kernel k() on P = 2 ranks {
  array a[8]: f64
  if rank == 0 {
    send a[0:4] to 1
  } else {
    recv a from 0
  }
}`, unitPricer{msg: 1, eager: 1 << 20}, "size mismatch", []string{"rank 1 receives 64 B from rank 0 here, but rank 0 sends 32 B at k.spmd:4:5"}},
		{"unreceived eager message", `kernel k() on P = 2 ranks {
  array a[8]: f64
  if rank == 0 {
    send a to 1
  }
}`, unitPricer{msg: 1, eager: 1 << 20}, "unreceived message", []string{"k.spmd:4:5: rank 0 sends 64 B to rank 1 here (message 1 on that pair), but rank 1 finishes without receiving it"}},
		{"collective while a rank waits", `kernel k() on P = 3 ranks {
  array a[8]: f64
  if rank == 2 {
    recv a from 0
  }
  barrier
}`, steps(), "deadlock", []string{"rank 0: barrier at k.spmd:6:3; waits for rank 2",
			"rank 2: recv of 64 B from rank 0 at k.spmd:4:5; waits for rank 0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := checkSource(t, "k.spmd", tt.src)
			_, err := Emulate(k, tt.p, EmulateOptions{})
			var se *ScheduleError
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want a ScheduleError", err)
			}
			if se.Kind != tt.kind {
				t.Errorf("kind %q, want %q", se.Kind, tt.kind)
			}
			for _, w := range tt.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%s\ndoes not say %q", err, w)
				}
			}
			var le *lang.Error
			if !errors.As(err, &le) || le.Pos.Line == 0 {
				t.Errorf("error does not unwrap to a positioned lang.Error")
			}
		})
	}
}

// TestEmulateCollectiveMismatch drives the emulator to two different
// collectives directly: the checker rejects kernels that would, so only
// this white-box test reaches the check.
func TestEmulateCollectiveMismatch(t *testing.T) {
	const src = `kernel k() on P = 2 ranks {
  array a[8]: f64
  barrier
  allreduce sum a
}`
	k := checkSource(t, "k.spmd", src)
	em, err := newEmulator(k, steps(), EmulateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var stmts []*lang.CommStmt
	lang.Inspect(k.Kernel.Body, func(n lang.Node) bool {
		if s, ok := n.(*lang.CommStmt); ok {
			stmts = append(stmts, s)
		}
		return true
	})
	if _, err := em.post(0, &em.ranks[0], &analyze.Event{Kind: analyze.EvBarrier, Stmt: stmts[0], Peer: -1}); err != nil {
		t.Fatal(err)
	}
	_, err = em.post(1, &em.ranks[1], &analyze.Event{Kind: analyze.EvCollective, Stmt: stmts[1], Peer: -1, Bytes: 64})
	want := "k.spmd:4:3: rank 1 reaches allreduce here while rank 0 is at barrier at k.spmd:3:3"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %q", err, want)
	}
}

// TestEmulateTimeline checks the JSON-lines timeline: one valid object per
// event, with the fields the schema names.
func TestEmulateTimeline(t *testing.T) {
	k := wave(t, 3, 2, 2)
	var buf bytes.Buffer
	var observed int64
	em, err := Emulate(k, steps(), EmulateOptions{Timeline: &buf, Observe: func(*Interval) { observed++ }})
	if err != nil {
		t.Fatal(err)
	}
	type line struct {
		Rank   int64   `json:"rank"`
		Kind   string  `json:"kind"`
		Posted float64 `json:"posted"`
		Start  float64 `json:"start"`
		End    float64 `json:"end"`
		Peer   *int64  `json:"peer"`
		Bytes  *int64  `json:"bytes"`
		Wave   int64   `json:"wave"`
		Stmt   string  `json:"stmt"`
		Region string  `json:"region"`
	}
	var n int64
	sc := bufio.NewScanner(&buf)
	kinds := map[string]int{}
	for sc.Scan() {
		var l line
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			t.Fatalf("line %d: %v: %s", n+1, err, sc.Text())
		}
		if l.Posted > l.Start || l.Start > l.End {
			t.Errorf("line %d: posted %g, start %g, end %g out of order", n+1, l.Posted, l.Start, l.End)
		}
		if l.Kind != "compute" && (l.Stmt == "" || l.Bytes == nil) {
			t.Errorf("line %d: a message without stmt or bytes: %s", n+1, sc.Text())
		}
		if l.Kind == "recv" && l.Peer != nil && l.Wave == 0 {
			t.Errorf("line %d: a message without its wave: %s", n+1, sc.Text())
		}
		kinds[l.Kind]++
		n++
	}
	if n != em.Events || observed != em.Events {
		t.Errorf("%d timeline lines and %d observed intervals for %d events", n, observed, em.Events)
	}
	want := map[string]int{"compute": 12, "recv": 24, "send": 24}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("events by kind (-want +got):\n%s", diff)
	}
}

// TestEmulateSharedSchedules checks that ranks of a large grid share
// schedules (a few builds, not thousands) and that interior ranks time
// like the closed form.
func TestEmulateSharedSchedules(t *testing.T) {
	k := wave(t, 48, 32, 3)
	em, err := Emulate(k, steps(), EmulateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := float64(2*(48+32-2) + 4*2); em.Total != want {
		t.Errorf("total %g, want %g", em.Total, want)
	}
	if em.Messages != 3*(47*32+48*31) {
		t.Errorf("%d messages, want %d", em.Messages, 3*(47*32+48*31))
	}
}

// TestEmulateUntil checks that a run stopped at a time has every event that
// ends by then exactly as the whole run has it.
func TestEmulateUntil(t *testing.T) {
	k := wave(t, 10, 10, 12)
	p := onCluster(5, 5, 2)
	ends := func(until float64) (map[msgKey]float64, *Emulation) {
		got := map[msgKey]float64{}
		em, err := Emulate(k, p, EmulateOptions{Until: until, Observe: func(iv *Interval) {
			if iv.Peer >= 0 && iv.End <= 40 {
				got[msgKey{iv.Rank, iv.Peer, iv.Wave}] = iv.End
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		return got, em
	}
	want, whole := ends(0)
	got, part := ends(40)
	if whole.Truncated || !part.Truncated {
		t.Errorf("truncated: whole run %v, stopped run %v", whole.Truncated, part.Truncated)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events ending by step 40 (-whole run +stopped run):\n%s", diff)
	}
	if part.Events >= whole.Events {
		t.Errorf("the stopped run emulated %d events, the whole run %d", part.Events, whole.Events)
	}
}

// TestPlainMessagesMatchGeneralPath emulates every example with and
// without an observer: an observer sends every message through the
// general path (deliver, completeHalf, finishEvent), without one the
// plain messages take deliverPlain. The results, critical paths included,
// must be the same, on machines with and without link limits and eager
// messages.
func TestPlainMessagesMatchGeneralPath(t *testing.T) {
	files, err := filepath.Glob("../../examples/*.spmd")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	eager := steps()
	eager.eager = 1 << 10
	pricers := map[string]Pricer{"steps": steps(), "cluster": onCluster(2, 2, 1), "bluemountain": blueMountainLike{}, "eager": eager}
	for _, f := range files {
		k := loadKernel(t, f)
		for name, p := range pricers {
			plain, errPlain := Emulate(k, p, EmulateOptions{})
			general, errGeneral := Emulate(k, p, EmulateOptions{Observe: func(*Interval) {}})
			if (errPlain == nil) != (errGeneral == nil) || (errPlain != nil && errPlain.Error() != errGeneral.Error()) {
				t.Errorf("%s on %s: errors differ: %v and %v", filepath.Base(f), name, errPlain, errGeneral)
				continue
			}
			if diff := cmp.Diff(general, plain); diff != "" {
				t.Errorf("%s on %s: plain messages differ from the general path (-general +plain):\n%s", filepath.Base(f), name, diff)
			}
		}
	}
}
