package emulate

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"perfc/lang"
)

// ringSrc is a ring of P ranks passing a message round iters times; even
// ranks send first, so it completes.
const ringSrc = `kernel ring(iters = 1) on P = 4 ranks {
  array buf[8]: f64
  repeat iters {
    if rank % 2 == 0 {
      send buf[0:8] to (rank + 1) % P
      recv buf[0:8] from (rank + P - 1) % P
    } else {
      recv buf[0:8] from (rank + P - 1) % P
      send buf[0:8] to (rank + 1) % P
    }
  }
}`

// deadRingSrc is a ring of P ranks that all receive first: a cycle of P
// waits.
const deadRingSrc = `kernel dead() on P = 4 ranks {
  array buf[8]: f64
  recv buf[0:8] from (rank + P - 1) % P
  send buf[0:8] to (rank + 1) % P
}`

// pingSrc is a pingpong of reps round trips: four events per round trip.
const pingSrc = `kernel ping(reps = 10) on P = 2 ranks {
  array buf[8]: f64
  repeat reps {
    if rank == 0 {
      send buf[0:8] to 1
      recv buf[0:8] from 1
    } else {
      recv buf[0:8] from 0
      send buf[0:8] to 0
    }
  }
}`

// TestMemoryBudget checks that the memory an emulation needs is estimated
// and refused before anything per rank is allocated: a ring of 10^7 ranks
// fails at once (it used to ask for 10 GB and crash), and the budget can
// be raised or lowered.
func TestMemoryBudget(t *testing.T) {
	tests := []struct {
		name   string
		ranks  string
		limit  int64
		errHas []string // "" : no error
	}{
		{"ten million ranks, default budget", "10000000", 0,
			[]string{"k.spmd:1:1: emulating 10,000,000 ranks needs about 25.09 GiB of memory", "the budget is 2 GiB: raise it with --max-memory (e.g. --max-memory=26GiB)"}},
		{"a million ranks, default budget", "1000000", 0, []string{"emulating 1,000,000 ranks needs about 2.558 GiB", "--max-memory=3GiB"}},
		{"1000 ranks, 1 MiB", "1000", 1 << 20, []string{"emulating 1,000 ranks needs about 3.438 MiB", "the budget is 1 MiB: raise it with --max-memory (e.g. --max-memory=4MiB)"}},
		{"1000 ranks, 4 MiB", "1000", 4 << 20, nil},
		{"1000 ranks, default budget", "1000", 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := checkSource(t, "k.spmd", deadRingSrc, "P", tt.ranks)
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := Emulate(k, steps(), EmulateOptions{Limits: EmulateLimits{MaxMemory: tt.limit}})
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			if tt.errHas == nil {
				var se *ScheduleError // the ring deadlocks: it ran
				if !errors.As(err, &se) || se.Kind != "deadlock" {
					t.Fatalf("got %v, want the ring's deadlock", err)
				}
				return
			}
			var be *BudgetError
			if !errors.As(err, &be) || be.Limit != "memory" {
				t.Fatalf("got %v, want a memory BudgetError", err)
			}
			for _, s := range tt.errHas {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("refusing took %v", d)
			}
			if grown := after.TotalAlloc - before.TotalAlloc; grown > 1<<20 {
				t.Errorf("refusing allocated %d B", grown)
			}
		})
	}
}

// TestEmulationMemoryEstimate checks the estimate against the heap that
// emulations actually keep: at least what they keep, at most twice (the
// estimate counts the critical path's ring full, and a short run fills
// little of it; the long wave run fills it).
func TestEmulationMemoryEstimate(t *testing.T) {
	if testing.Short() {
		t.Skip("emulates 40,000 ranks")
	}
	tests := []struct {
		path string
		defs []string
	}{
		{"", []string{"P", "20000"}}, // the ring
		{"../../examples/wave.spmd", []string{"Px", "200", "Py", "200", "sweeps", "2"}},
		{"../../examples/halo2d.spmd", []string{"Px", "100", "Py", "100"}},
		{"../../examples/wave.spmd", []string{"Px", "96", "Py", "64", "sweeps", "100"}},
	}
	for _, tt := range tests {
		var k *lang.Checked
		if tt.path == "" {
			k = checkSource(t, "ring.spmd", ringSrc, tt.defs...)
		} else {
			k = loadKernel(t, tt.path, tt.defs...)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		em, err := newEmulator(k, steps(), EmulateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := em.run(); err != nil {
			t.Fatal(err)
		}
		if _, err := em.result(); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(em)
		live := float64(after.HeapAlloc) - float64(before.HeapAlloc)
		est := emulationMemory(k.NumRanks())
		if est < live || est > 2*live {
			t.Errorf("%s %v: estimated %.0f B, the emulation keeps %.0f B", tt.path, tt.defs, est, live)
		}
	}
}

// TestEventBudget checks that an emulation stops at its event budget with
// an error naming the statement and the flag, within the budget: a
// pingpong of 2^62 round trips (2^64 events, more than a counter holds)
// used to run for ever.
func TestEventBudget(t *testing.T) {
	tests := []struct {
		name   string
		reps   string
		limit  int64
		errHas string // "": no error
	}{
		{"2^62 round trips", "4611686018427387904", 100_000,
			"k.spmd:5:7: the emulation reached its budget of 100,000 events (all ranks together) here, at rank 0, 13.89 h into the predicted run: raise it with --max-events, or emulate fewer iterations"},
		{"2^63-1 round trips, default budget", "9223372036854775807", 0, "budget of 100,000,000 events"},
		{"exactly the budget", "1000", 4000, ""},
		{"one event over", "1000", 3999, "budget of 3,999 events"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if testing.Short() && tt.limit == 0 {
				t.Skip("runs 10^8 events")
			}
			k := checkSource(t, "k.spmd", pingSrc, "reps", tt.reps)
			em, err := Emulate(k, steps(), EmulateOptions{Limits: EmulateLimits{MaxEvents: tt.limit}})
			if tt.errHas == "" {
				if err != nil {
					t.Fatal(err)
				}
				if em.Events != tt.limit {
					t.Errorf("%d events, want %d", em.Events, tt.limit)
				}
				return
			}
			var be *BudgetError
			if !errors.As(err, &be) || be.Limit != "events" {
				t.Fatalf("got %v, want an event BudgetError", err)
			}
			if !strings.Contains(err.Error(), tt.errHas) {
				t.Errorf("error %q does not contain %q", err, tt.errHas)
			}
		})
	}
}

// TestProgress checks that Progress is called every ProgressEvents events
// with the count so far.
func TestProgress(t *testing.T) {
	k := checkSource(t, "k.spmd", pingSrc, "reps", "600000") // 2.4 million events
	var got []int64
	em, err := Emulate(k, steps(), EmulateOptions{Progress: func(n int64) { got = append(got, n) }})
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{ProgressEvents, 2 * ProgressEvents}
	if diff := cmp.Diff(want, got); diff != "" || em.Events != 2_400_000 {
		t.Errorf("%d events; progress calls (-want +got):\n%s", em.Events, diff)
	}
}

// TestTimelineLimit checks that the timeline stops at its limit, counts
// what it left out, and that the emulation's result does not change.
func TestTimelineLimit(t *testing.T) {
	k := checkSource(t, "k.spmd", pingSrc, "reps", "10") // 40 events
	plain, err := Emulate(k, steps(), EmulateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int64{1, 7, 40, 100} {
		var buf bytes.Buffer
		em, err := Emulate(k, steps(), EmulateOptions{Timeline: &buf, Limits: EmulateLimits{MaxTimelineEvents: limit}})
		if err != nil {
			t.Fatal(err)
		}
		lines := int64(strings.Count(buf.String(), "\n"))
		if want := min(limit, 40); lines != want || em.TimelineDropped != 40-want {
			t.Errorf("limit %d: %d lines, %d dropped; want %d and %d", limit, lines, em.TimelineDropped, want, 40-want)
		}
		em.TimelineDropped = 0
		if diff := cmp.Diff(plain, em); diff != "" {
			t.Errorf("limit %d: the emulation differs (-without +with timeline):\n%s", limit, diff)
		}
	}
}

// TestLargeDeadlock checks that a deadlock of many ranks is reported at
// once, with the first and last waits of its cycle and their count, not a
// line per rank.
func TestLargeDeadlock(t *testing.T) {
	tests := []struct {
		ranks   string
		waits   int
		omitted int64
		has     []string
	}{
		{"100000", 2 * chainEnds, 100000 - 2*chainEnds, []string{
			"deadlock: 100,000 of 100,000 ranks cannot complete (a cycle of blocking operations;",
			"the chain of 100,000 waits, its first and last 8:\n\trank 0: recv of 64 B from rank 99999 at k.spmd:3:3; waits for rank 99999\n",
			"\trank 99993: recv of 64 B from rank 99992 at k.spmd:3:3; waits for rank 99992\n\t… 99,984 more waits …\n\trank 8: recv",
			"\trank 1: recv of 64 B from rank 0 at k.spmd:3:3; waits for rank 0",
		}},
		{"17", 2 * chainEnds, 1, []string{"\t… 1 more waits …\n\trank 8:"}},
		{"16", 16, 0, []string{"rank 9: recv of 64 B from rank 8"}},
		{"3", 3, 0, []string{"the chain of waits:\n\trank 0: recv of 64 B from rank 2"}},
	}
	for _, tt := range tests {
		t.Run(tt.ranks, func(t *testing.T) {
			k := checkSource(t, "k.spmd", deadRingSrc, "P", tt.ranks)
			_, err := Emulate(k, steps(), EmulateOptions{})
			var se *ScheduleError
			if !errors.As(err, &se) || se.Kind != "deadlock" {
				t.Fatalf("got %v, want a deadlock", err)
			}
			if len(se.Waits) != tt.waits || se.Omitted != tt.omitted {
				t.Errorf("%d waits kept, %d omitted; want %d and %d", len(se.Waits), se.Omitted, tt.waits, tt.omitted)
			}
			for _, s := range tt.has {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error does not contain %q:\n%s", s, err)
				}
			}
			if strings.Contains(err.Error(), "more waits") && !strings.Contains(err.Error(), "\t…") {
				t.Error("the omission is not on a line of its own")
			}
		})
	}
}

// TestTimelineOnError checks that the timeline of an emulation that ends
// in an error is written out to its last whole event: it is what explains
// a deadlock or where a budget ran out.
func TestTimelineOnError(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		defs   []string
		limits EmulateLimits
		lines  int
	}{
		{"event budget", pingSrc, []string{"reps", "10"}, EmulateLimits{MaxEvents: 7}, 6},
		{"event budget, short timeline", pingSrc, []string{"reps", "10"}, EmulateLimits{MaxEvents: 7, MaxTimelineEvents: 2}, 2},
		{"deadlock", deadRingSrc, []string{"P", "4"}, EmulateLimits{}, 0},
		{"deadlock after messages", `kernel k() on P = 2 ranks {
  array buf[8]: f64
  if rank == 0 {
    send buf[0:8] to 1
  }
  recv buf[0:8] from 1 - rank
}`, nil, EmulateLimits{}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := checkSource(t, "k.spmd", tt.src, tt.defs...)
			var buf bytes.Buffer
			if _, err := Emulate(k, steps(), EmulateOptions{Timeline: &buf, Limits: tt.limits}); err == nil {
				t.Fatal("no error")
			}
			lines := strings.Split(buf.String(), "\n")
			if last := lines[len(lines)-1]; last != "" {
				t.Errorf("the timeline ends in a partial line %q", last)
			}
			if len(lines)-1 != tt.lines {
				t.Errorf("%d lines, want %d:\n%s", len(lines)-1, tt.lines, buf.String())
			}
		})
	}
}

// TestPathRingGrows checks that the critical path's ring starts small and
// grows to what is used, to its exact length: a ring of 10^5 ranks used
// to hold its full 2^20 stretches (56 MiB) from the start.
func TestPathRingGrows(t *testing.T) {
	tests := []struct {
		ranks       int64
		first, size int64
		add         int64 // stretches added
		grown       int64 // the storage's length then
	}{
		{4, 32, 1 << 14, 100, 128},
		{1024, 1 << 14, 1 << 14, 100, 1 << 14},
		{100_000, 1 << 14, 1 << 20, 40_000, 1 << 16},
		{10_000_000, 1 << 14, 1 << 20, 3 << 20, 1 << 20},
	}
	for _, tt := range tests {
		pr := newPathRing(tt.ranks)
		if int64(len(pr.nodes)) != tt.first || pr.mask+1 != tt.size {
			t.Errorf("%d ranks: storage %d of %d, want %d of %d", tt.ranks, len(pr.nodes), pr.mask+1, tt.first, tt.size)
		}
		for range tt.add {
			pr.alloc(&pathNode{})
		}
		if int64(len(pr.nodes)) != tt.grown || cap(pr.nodes) != len(pr.nodes) {
			t.Errorf("%d ranks, %d stretches: storage %d (capacity %d), want %d", tt.ranks, tt.add, len(pr.nodes), cap(pr.nodes), tt.grown)
		}
	}
}

// floodSrc has rank 0 send n eager messages to rank 1 before rank 1
// receives any: n messages wait at once.
const floodSrc = `kernel flood(n = 10) on P = 2 ranks {
  array buf[1]: f64
  if rank == 0 {
    repeat n {
      send buf[0:1] to 1
    }
  } else {
    repeat n {
      recv buf[0:1] from 0
    }
  }
}`

// TestEagerFlood checks that eager messages waiting in large numbers cost
// no more per message than a few: 200,000 of them took minutes when every
// receive shifted one list of all the waiting messages. And past the
// memory budget the waiting messages end the run with an error at the
// send.
func TestEagerFlood(t *testing.T) {
	eager := unitPricer{msg: 1, eager: 1 << 20}
	k := checkSource(t, "k.spmd", floodSrc, "n", "200000")
	start := time.Now()
	em, err := Emulate(k, eager, EmulateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second || em.Messages != 200_000 || em.Total != 1 {
		t.Errorf("%d messages in %v, total %g s; want 200,000 in well under 5 s, ending at 1 s", em.Messages, d, em.Total)
	}
	_, err = Emulate(k, eager, EmulateOptions{Limits: EmulateLimits{MaxMemory: 4 << 20}})
	var be *BudgetError
	if !errors.As(err, &be) || be.Limit != "memory" {
		t.Fatalf("got %v, want a memory BudgetError", err)
	}
	for _, s := range []string{"k.spmd:5:7: rank 0's send here would make 31,457 eager messages", "messages sent and not yet received wait at once", "exceeds the memory budget of 4 MiB: raise it with --max-memory"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not contain %q", err, s)
		}
	}
}

// TestEagerQueue checks that a pair's queue hands messages out oldest
// first and that its storage follows what waits: a queue that never
// empties does not grow, and a long one lets its blocks go as they are
// taken.
func TestEagerQueue(t *testing.T) {
	var q eagerQueue
	var got []int64
	next := int64(0)
	in := func() { q.push(&eagerMsg{wave: next}); next++ }
	out := func() { got = append(got, q.pop().wave) }
	storage := func() (n int) {
		for _, b := range q.blocks {
			n += cap(b)
		}
		return n
	}
	for range 10_000 { // two in, one out: the queue grows to 10,000
		in()
		in()
		out()
	}
	if s := storage(); q.len() != 10_000 || s > 10_000+2*queueBlock {
		t.Errorf("%d waiting in storage for %d", q.len(), s)
	}
	for range 100_000 { // one in, one out, never empty
		in()
		out()
	}
	if s := storage(); s > 10_000+2*queueBlock {
		t.Errorf("storage for %d after a steady state at 10,000 waiting", s)
	}
	for range 9_000 {
		out()
	}
	if s := storage(); q.len() != 1_000 || s > 1_000+2*queueBlock {
		t.Errorf("%d waiting in storage for %d", q.len(), s)
	}
	for q.len() > 0 {
		out()
	}
	for i, w := range got {
		if w != int64(i) {
			t.Fatalf("message %d out: wave %d, want %d", i, w, i)
		}
	}
	if len(got) != int(next) {
		t.Errorf("%d messages out of %d", len(got), next)
	}
}

// TestPeerBudget checks that the destinations ranks keep count against the
// memory budget: in an exchange of every rank with every other, P^2 of
// them (7,000 ranks used to take 5 GB).
func TestPeerBudget(t *testing.T) {
	const a2a = `kernel a2a() on P = 4 ranks {
  array buf[1]: f64
  for s in 1..P {
    sendrecv buf[0:1] to (rank + s) % P from (rank + P - s) % P into buf[0:1]
  }
}`
	k := checkSource(t, "k.spmd", a2a, "P", "300")
	if _, err := Emulate(k, steps(), EmulateOptions{Limits: EmulateLimits{MaxMemory: 16 << 20}}); err != nil {
		t.Fatalf("within 16 MiB: %v", err)
	}
	_, err := Emulate(k, steps(), EmulateOptions{Limits: EmulateLimits{MaxMemory: 4 << 20}})
	var be *BudgetError
	if !errors.As(err, &be) || be.Limit != "memory" {
		t.Fatalf("got %v, want a memory BudgetError", err)
	}
	for _, s := range []string{"k.spmd:4:5: rank ", "'s send here would make the ranks keep ", "destinations beyond their first 4 each",
		"exceeds the memory budget of 4 MiB: raise it with --max-memory"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not contain %q", err, s)
		}
	}
	// 89,700 events, but sends to new destinations cost more: an exchange
	// of 7,000 ranks ran 76 s on 10^8 events.
	_, err = Emulate(k, steps(), EmulateOptions{Limits: EmulateLimits{MaxEvents: 100_000}})
	if !errors.As(err, &be) || be.Limit != "events" || !strings.Contains(err.Error(), "a send to a new destination beyond a rank's first 4 counts as 33 events") {
		t.Errorf("got %v, want an event BudgetError counting new destinations", err)
	}
}
