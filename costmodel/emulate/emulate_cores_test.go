package emulate

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"perfc/lang"
)

// sharedPricer is the unit pricer on a machine whose ranks share cores:
// goroutine ranks that keep their core until they wait (slice 0 means
// +Inf), or ranks sliced every slice seconds (osSlice, processes).
type sharedPricer struct {
	unitPricer
	cores int
	sw    float64
	slice float64
}

// osSlice is a time slice of an operating system's scheduler.
const osSlice = 10e-3

func (s sharedPricer) Cores() int          { return s.cores }
func (s sharedPricer) CoreSwitch() float64 { return s.sw }
func (s sharedPricer) TimeSlice() float64 {
	if s.slice == 0 {
		return math.Inf(1)
	}
	return s.slice
}

// TestCoresByHand checks emulations of ranks sharing cores against times
// worked out by hand (docs/emulate.md, "Ranks sharing cores"): a compute
// segment needs a core, the run queue is first in first out, a rank that
// waits for a message frees its core, a blocking message is copied on a
// core and costs the switch beside its price.
func TestCoresByHand(t *testing.T) {
	const exchange = `kernel x() on P = 2 ranks {
  array a[8]: f64
  for i in 0..8 {
    a[i] = a[i] * 2.0
  }
  exchange a with (rank + 1) % P
}`
	const sendAfter = `kernel s() on P = 2 ranks {
  array a[8]: f64
  for i in 0..8 {
    a[i] = a[i] * 2.0
  }
  if rank == 0 {
    send a to 1
  } else {
    recv a from 0
  }
}`
	const ring = `kernel ring() on P = 4 ranks {
  array a[8]: f64
  for i in 0..8 {
    a[i] = a[i] * 2.0
  }
  sendrecv a to (rank + 1) % P from (rank + P - 1) % P
}`
	// Rank 0 computes, then waits for rank 1's message and computes
	// again; rank 1 computes once and sends.
	const frees = `kernel f() on P = 2 ranks {
  array a[8]: f64
  for i in 0..8 {
    a[i] = a[i] * 2.0
  }
  if rank == 0 {
    recv a from 1
    for i in 0..8 {
      a[i] = a[i] + 1.0
    }
  } else {
    send a to 0
  }
}`
	// Times in ms, below a time slice: no rank is cut (TestCoresTimeSlice).
	const ms = 1e-3
	unit := unitPricer{cpu: ms, msg: 0.5 * ms, coll: ms, eager: -1}
	on := func(c int) sharedPricer { return sharedPricer{unitPricer: unit, cores: c, sw: 0.25 * ms} }
	// In seconds the ranks take turns every osSlice, and end as well.
	secs := sharedPricer{unitPricer: unitPricer{cpu: 1, msg: 0.5, eager: -1}, cores: 1, sw: 0.25, slice: osSlice}
	tests := []struct {
		name  string
		src   string
		p     Pricer
		total float64
		ends  []float64
	}{
		// Each computes 1 s on its own core; the exchange's halves overlap.
		{"exchange, own cores", exchange, unit, 1 + 0.5, []float64{1.5, 1.5}},
		{"exchange, as many cores as ranks", exchange, on(2), 1 + 0.5, []float64{1.5, 1.5}},
		{"exchange, cores absent (zero)", exchange, on(0), 1 + 0.5, []float64{1.5, 1.5}},
		// One core: 2 s of compute, then the two copies one after the other.
		{"exchange, 2 ranks on 1 core", exchange, on(1), 2 + 2*(0.5+0.25), []float64{3.5, 3.5}},
		// 2 s, then one message with its switch.
		{"send, 2 ranks on 1 core", sendAfter, on(1), 2 + 0.5 + 0.25, []float64{2.75, 2.75}},
		// Ranks 0 and 1 compute [0,1], ranks 2 and 3 [1,2]; the four copies
		// take the two cores two at a time from 2 s.
		// Ranks 0 and 1 compute [0,1] on cores A and B; both post at 1,
		// rank 0 first (it gives A up, waiting), and rank 1, running,
		// copies 0→1 on B [1,1.75], then waits for rank 2 and gives B up.
		// Rank 2 computes on A [1,2] and copies 1→2 [2,2.75] (rank 1 ends),
		// then waits for rank 3: A free at 2.75. Rank 3 computes on B
		// [1.75,2.75], copies 3→0 [2.75,3.5] (rank 0 ends) and 2→3
		// [3.5,4.25] (ranks 2 and 3 end).
		{"ring, 4 ranks on 2 cores", ring, on(2), 4.25, []float64{3.5, 2.75, 4.25, 4.25}},
		// Rank 0 computes [0,1] and waits for the message, freeing the core
		// for rank 1 [1,2]; the copy [2,2.75]; rank 0 computes [2.75,3.75].
		{"a rank that waits frees its core", frees, on(1), 3.75, []float64{3.75, 2.75}},
		// 1 s each on one core, in slices: 2 s and the two copies.
		{"exchange, 2 ranks on 1 core, 1 s each", exchange, secs, 2 + 2*(0.5+0.25), []float64{3.5, 3.5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := checkSource(t, "k.spmd", tt.src)
			em, err := Emulate(k, tt.p, EmulateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			scale := ms
			if tt.p == Pricer(secs) {
				scale = 1
			}
			if !near(em.Total, tt.total*scale) {
				t.Errorf("total %g, want %g", em.Total, tt.total*scale)
			}
			var ends []float64
			for _, r := range em.PerRank {
				ends = append(ends, r.End/scale)
				if got := r.Compute + r.Comm + r.Wait + r.CoreWait; !near(got, r.End) {
					t.Errorf("rank %d: compute %g + comm %g + wait %g + core wait %g = %g, but it ends at %g", r.Rank, r.Compute, r.Comm, r.Wait, r.CoreWait, got, r.End)
				}
				if r.Wait < -1e-12 || r.CoreWait < -1e-12 {
					t.Errorf("rank %d: negative waits %+v", r.Rank, r)
				}
			}
			if diff := cmp.Diff(tt.ends, ends, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("rank ends (-want +got):\n%s", diff)
			}
			checkPathCovers(t, em)
		})
	}
}

// boundPricer is sharedPricer with bound ranks (RankBinder): rank r on
// core r mod C.
type boundPricer struct{ sharedPricer }

func (boundPricer) BindsRanks() bool { return true }

// rankEnds is every rank's end, in units of unit seconds.
func rankEnds(em *Emulation, unit float64) []float64 {
	var ends []float64
	for _, r := range em.PerRank {
		ends = append(ends, r.End/unit)
	}
	return ends
}

// TestCoresBoundRanks checks ranks bound to their cores against times
// worked out by hand: a rank ready while another core is free still waits
// for its own.
func TestCoresBoundRanks(t *testing.T) {
	// Rank 0 computes 3 ms, ranks 1 and 2 1 ms each, on 2 cores.
	const uneven = `kernel u() on P = 3 ranks {
  array a[8]: f64
  if rank == 0 {
    for i in 0..24 {
      a[i % 8] = a[i % 8] * 2.0
    }
  } else {
    for i in 0..8 {
      a[i] = a[i] * 2.0
    }
  }
}`
	const ms = 1e-3
	shared := sharedPricer{unitPricer: unitPricer{perFlop: ms / 8, msg: 0.5 * ms, eager: -1}, cores: 2}
	tests := []struct {
		name string
		p    Pricer
		ends []float64
	}{
		// Ranks 0 and 1 start on the two cores; rank 2 takes the core
		// rank 1 frees at 1 ms.
		{"free core first", shared, []float64{3, 1, 2}},
		// Rank 2 shares core 0 with rank 0 and waits for it until 3 ms.
		{"bound", boundPricer{shared}, []float64{3, 1, 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			em, err := Emulate(checkSource(t, "u.spmd", uneven), tt.p, EmulateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.ends, rankEnds(em, ms), cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("rank ends in ms (-want +got):\n%s", diff)
			}
			checkPathCovers(t, em)
		})
	}
}

// TestCoresWaitingIsShown checks that a rank ready without a core is shown
// waiting for a core, not computing: in its times, on the critical path
// (entered "via core") and in the timeline (core_wait).
func TestCoresWaitingIsShown(t *testing.T) {
	const src = `kernel f() on P = 2 ranks {
  array a[8]: f64
  for i in 0..8 {
    a[i] = a[i] * 2.0
  }
  if rank == 0 {
    recv a from 1
    for i in 0..8 {
      a[i] = a[i] + 1.0
    }
  } else {
    send a to 0
  }
}`
	k := checkSource(t, "f.spmd", src)
	const ms = 1e-3
	p := sharedPricer{unitPricer: unitPricer{cpu: ms, msg: 0.5 * ms, eager: -1}, cores: 1, sw: 0.25 * ms}
	var tl bytes.Buffer
	var ivs []Interval
	em, err := Emulate(k, p, EmulateOptions{Timeline: &tl, Observe: func(iv *Interval) {
		c := *iv
		c.Stmt = nil
		ivs = append(ivs, c)
	}})
	if err != nil {
		t.Fatal(err)
	}
	// Rank 1 waited 1 s for the core rank 0 held.
	if got := em.PerRank[1].CoreWait; !near(got, ms) {
		t.Errorf("rank 1 waited %g s for a core, want 1 ms", got)
	}
	if got := em.PerRank[1].Compute; !near(got, ms) {
		t.Errorf("rank 1 computed %g s, want 1 ms: waiting for a core is not computing", got)
	}
	var vias []string
	for _, s := range em.Critical {
		vias = append(vias, s.Via)
	}
	// Rank 0 [0,1], rank 1 [1,2] via the core, the message, rank 0's compute.
	if !strings.Contains(strings.Join(vias, " "), "core") {
		t.Errorf("critical path %+v never waits for a core", em.Critical)
	}
	want := Interval{Rank: 1, Kind: ActCompute, Posted: 0, Start: ms, End: 2 * ms, Peer: -1, From: -1, CoreWait: ms}
	found := false
	for _, iv := range ivs {
		if iv.Rank == 1 && iv.Kind == ActCompute {
			found = true
			if diff := cmp.Diff(want, iv); diff != "" {
				t.Errorf("rank 1's compute interval (-want +got):\n%s", diff)
			}
		}
	}
	if !found {
		t.Error("no compute interval of rank 1")
	}
	if !strings.Contains(tl.String(), `"rank":1,"kind":"compute","posted":0,"start":0.001,"end":0.002,"core_wait":0.001}`) {
		t.Errorf("the timeline does not show rank 1 waiting for a core:\n%s", tl.String())
	}
}

// TestCoresTimeSlice checks the run queue's time slices: two ranks of
// 25 ms each on one core take turns every osSlice, so the first ends
// at 45 ms, not 25 ms; a rank alone on the queue is not cut; and without
// slices (goroutine ranks) the first runs to its end.
func TestCoresTimeSlice(t *testing.T) {
	const src = `kernel c() on P = 2 ranks {
  array a[8]: f64
  for i in 0..8 {
    a[i] = a[i] * 2.0
  }
}`
	k := checkSource(t, "c.spmd", src)
	for _, tt := range []struct {
		slice     float64
		ends      []float64
		intervals int
	}{
		// r0 [0,10] r1 [10,20] r0 [20,30] r1 [30,40] r0 [40,45] r1 [45,50] ms.
		{osSlice, []float64{45e-3, 50e-3}, 6},
		// r0 [0,25] r1 [25,50] ms.
		{0, []float64{25e-3, 50e-3}, 2},
	} {
		p := sharedPricer{unitPricer: unitPricer{cpu: 25e-3, eager: -1}, cores: 1, slice: tt.slice}
		var intervals int
		em, err := Emulate(k, p, EmulateOptions{Observe: func(iv *Interval) { intervals++ }})
		if err != nil {
			t.Fatal(err)
		}
		got := []float64{em.PerRank[0].End, em.PerRank[1].End}
		if diff := cmp.Diff(tt.ends, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
			t.Errorf("slice %g: rank ends (-want +got):\n%s", tt.slice, diff)
		}
		if intervals != tt.intervals {
			t.Errorf("slice %g: %d compute intervals, want %d", tt.slice, intervals, tt.intervals)
		}
		checkPathCovers(t, em)
	}
}

// TestCoresEventBudget checks that time slices count against the event
// budget, so that a long compute on shared cores stays bounded.
func TestCoresEventBudget(t *testing.T) {
	const src = `kernel c() on P = 2 ranks {
  array a[8]: f64
  for i in 0..8 {
    a[i] = a[i] * 2.0
  }
}`
	k := checkSource(t, "c.spmd", src)
	p := sharedPricer{unitPricer: unitPricer{cpu: 1e6, eager: -1}, cores: 1, slice: osSlice} // 10^8 slices each
	_, err := Emulate(k, p, EmulateOptions{Limits: EmulateLimits{MaxEvents: 1000}})
	var be *BudgetError
	if !errors.As(err, &be) || be.Limit != "events" {
		t.Fatalf("error %v, want an event budget error", err)
	}
}

// TestCoresSliceOnlyWhenWaiting checks that a long compute is cut only
// when a rank waits for a core: rank 0 computes 25 ms while ranks 1 and 2
// compute 1 ms each on the other core, so nobody waits at 10 ms and rank 0
// runs uncut; with three ranks of 25 ms the third waits, and the first two
// are cut at 10 ms.
func TestCoresSliceOnlyWhenWaiting(t *testing.T) {
	const src = `kernel c() on P = 3 ranks {
  array a[8]: f64
  if rank == 0 {
    for i in 0..25 {
      a[0] = a[0] * 2.0
    }
  } else {
    for i in 0..n {
      a[0] = a[0] * 2.0
    }
  }
}`
	const ms = 1e-3
	p := sharedPricer{unitPricer: unitPricer{perFlop: ms, eager: -1}, cores: 2, slice: osSlice}
	for _, tt := range []struct {
		n    string
		ends []float64 // ms
	}{
		{"1", []float64{25, 1, 2}},
		// r0 A [0,10], r1 B [0,10]; r2 A [10,20], r0 B [10,20], r1 A
		// [20,30], r2 B [20,30], r0 A [30,35], r1 B [30,35], r2 A [35,40].
		{"25", []float64{35, 35, 40}},
	} {
		k := checkSource(t, "c.spmd", strings.Replace(src, "kernel c()", "kernel c(n = "+tt.n+")", 1))
		em, err := Emulate(k, p, EmulateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.ends, rankEnds(em, ms), cmpopts.EquateApprox(0, 1e-9)); diff != "" {
			t.Errorf("n = %s: rank ends in ms (-want +got):\n%s", tt.n, diff)
		}
		checkPathCovers(t, em)
	}
}

// TestSharedMakespan checks SharedMakespan against the emulation of ranks
// that each compute d and nothing else.
func TestSharedMakespan(t *testing.T) {
	const src = `kernel c() on P = 3 ranks {
  array a[8]: f64
  for i in 0..8 {
    a[i] = a[i] * 2.0
  }
}`
	for _, tt := range []struct {
		ranks int64
		cores int
		d     float64
		slice float64 // 0: none (goroutine ranks)
		want  float64 // 0: not worked out by hand
	}{
		{3, 2, 1e-3, osSlice, 2e-3},
		{16, 2, 0.5e-3, osSlice, 4e-3},
		{2, 2, 1, osSlice, 1},
		{4, 0, 1, osSlice, 1},
		{3, 2, 25e-3, osSlice, 40e-3},
		{5, 2, 35e-3, osSlice, 0},
		{16, 3, 0.123, osSlice, 0},
		{7, 4, 10e-3, osSlice, 20e-3},
		// Without slices every rank runs to its end: ⌈P/C⌉ rounds.
		{3, 2, 25e-3, 0, 50e-3},
		{5, 2, 35e-3, 0, 105e-3},
		{16, 3, 0.123, 0, 6 * 0.123},
	} {
		p := sharedPricer{unitPricer: unitPricer{cpu: tt.d, eager: -1}, cores: tt.cores, slice: tt.slice}
		got := SharedMakespan(tt.d, tt.ranks, tt.cores, p.TimeSlice())
		if tt.want != 0 && !near(got, tt.want) {
			t.Errorf("SharedMakespan(%g, %d, %d, %g) = %g, want %g", tt.d, tt.ranks, tt.cores, p.TimeSlice(), got, tt.want)
		}
		k := checkSource(t, "c.spmd", strings.Replace(src, "P = 3", fmt.Sprintf("P = %d", tt.ranks), 1))
		em, err := Emulate(k, p, EmulateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !near(got, em.Total) {
			t.Errorf("SharedMakespan(%g, %d, %d, %g) = %g, the emulation %g", tt.d, tt.ranks, tt.cores, p.TimeSlice(), got, em.Total)
		}
	}
}

// TestCoresMemoryBudget checks that the ranks' core state counts against
// the memory budget: a budget that admits the ranks alone but not their
// sharing of cores is an error that says so.
func TestCoresMemoryBudget(t *testing.T) {
	const src = `kernel r() on P = 1000 ranks {
  array a[8]: f64
  sendrecv a to (rank + 1) % P from (rank + P - 1) % P
}`
	k := checkSource(t, "k.spmd", src)
	budget := int64(emulationMemory(1000)) + 1000*coreRankBytes/2
	p := sharedPricer{unitPricer: unitPricer{msg: 1, eager: -1}, cores: 2}
	if _, err := Emulate(k, p.unitPricer, EmulateOptions{Limits: EmulateLimits{MaxMemory: budget}}); err != nil {
		t.Fatalf("without sharing: %v", err)
	}
	_, err := Emulate(k, p, EmulateOptions{Limits: EmulateLimits{MaxMemory: budget}})
	var be *BudgetError
	if !errors.As(err, &be) || be.Limit != "memory" || !strings.Contains(err.Error(), "emulating 1,000 ranks on shared cores needs about") {
		t.Fatalf("error %v, want a memory budget error for shared cores", err)
	}
}

// serialPricer is boundPricer whose sendrecv halves each cost the whole
// event (SerialSendRecv), as the goroutine runtime's exchange law does
// where ranks share cores: half the law per message.
type serialPricer struct{ boundPricer }

func (s serialPricer) SendRecvMessage(src, dst, from, bytes, recvBytes int64, _ *lang.CommStmt) (float64, bool) {
	return s.msg, true
}

// TestCoresExchangeCopier checks the copier of exchanges whose two sides
// post at once (pairCopier) by hand: 4 ranks bound to 2 cores (ranks 0, 2
// on core 0), each message 1 ms, so an exchange takes 2 ms on the core of
// the side that copies both halves. Pairs (0, 1) and (2, 3): the first
// exchanges go to different cores (rank 0 copies on core 0, then core 1
// has nothing given to it: rank 3), then each pair's copier alternates
// and the pairs copy on the two cores at once: k exchanges end at 2k ms;
// so do pairs (0, 3) and (1, 2). Without a whole-event price
// (boundPricer) the rule does not apply and each sender copies its half
// on its own core: the two pairs' halves interleave on the cores at 3 ms
// a round, as before session 31 (the 1.5 × of comms2 at P = 4 in L2).
func TestCoresExchangeCopier(t *testing.T) {
	const kernel = `kernel e() on P = 4 ranks {
  array a[8]: f64
  repeat REPS {
    exchange a with PEER
  }
}`
	const ms = 1e-3
	bound := boundPricer{sharedPricer{unitPricer: unitPricer{msg: ms, eager: -1}, cores: 2}}
	serial := serialPricer{bound}
	tests := []struct {
		name       string
		p          Pricer
		reps, peer string
		want       float64 // ms
	}{
		{"one exchange", serial, "1", "rank ^ 1", 2},
		{"four exchanges", serial, "4", "rank ^ 1", 8},
		{"four exchanges, pairs across the cores", serial, "4", "3 - rank", 8},
		{"four exchanges, halves apart", bound, "4", "rank ^ 1", 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.NewReplacer("REPS", tt.reps, "PEER", tt.peer).Replace(kernel)
			em, err := Emulate(checkSource(t, "e.spmd", src), tt.p, EmulateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(em.Total/ms-tt.want) > 1e-9 {
				t.Errorf("total %g ms, want %g ms", em.Total/ms, tt.want)
			}
			checkPathCovers(t, em)
		})
	}
}
