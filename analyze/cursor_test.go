package analyze

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfc/lang"
	"perfc/parser"
)

// cursorEvent is what a test compares of an event: everything but pointers.
type cursorEvent struct {
	Kind                   EventKind
	Stmt                   string
	Peer, From             int64
	Bytes, RecvBytes       int64
	Flop, Loads, Stores    float64
	Region                 string
	Iterations, IntOps, MP float64
	Req                    int   // posts
	Reqs                   []int // waits
	All                    bool
}

// project copies what an event says into comparable values.
func project(k *lang.Checked, ev *Event) cursorEvent {
	ce := cursorEvent{Kind: ev.Kind, Peer: ev.Peer, From: ev.From, Bytes: ev.Bytes, RecvBytes: ev.RecvBytes}
	if ev.Stmt != nil {
		ce.Stmt = k.File.Source.Position(ev.Stmt.Pos()).String()
	}
	switch ev.Kind {
	case EvISend, EvIRecv:
		ce.Req = ev.Req
	case EvWait:
		ce.Stmt = k.File.Source.Position(ev.WaitStmt.Pos()).String()
		ce.Reqs, ce.All = append([]int{}, ev.Reqs...), ev.All
	}
	if w := ev.Work; w != nil {
		ce.Flop, ce.Loads, ce.Stores, ce.Region = w.Flop, w.Loads, w.Stores, w.Region
		ce.Iterations, ce.IntOps, ce.MP = w.Iterations, w.IntOps, w.MaddPairs
	}
	return ce
}

// eventsOf expands a schedule with Events.
func eventsOf(t *testing.T, k *lang.Checked, s *Schedule) []cursorEvent {
	t.Helper()
	var out []cursorEvent
	if err := s.Events(func(ev *Event) bool { out = append(out, project(k, ev)); return true }); err != nil {
		t.Fatal(err)
	}
	return out
}

// cursorEventsOf expands a schedule with a Cursor.
func cursorEventsOf(t *testing.T, k *lang.Checked, c *Cursor) []cursorEvent {
	t.Helper()
	var out []cursorEvent
	for {
		ev, err := c.Next()
		if err != nil {
			t.Fatal(err)
		}
		if ev == nil {
			return out
		}
		out = append(out, project(k, ev))
	}
}

// cursorKernel parses and checks kernel source text.
func cursorKernel(t *testing.T, name, src string, defs ...lang.Override) *lang.Checked {
	t.Helper()
	f, err := parser.ParseFile(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	k, err := lang.Check(f, "", defs)
	if err != nil {
		t.Fatal(err.(lang.ErrorList).Format(f.Source))
	}
	return k
}

// smallExampleSizes returns the overrides that make each example with
// point-to-point traffic small enough to walk every rank event by event
// (examples not named run at their defaults).
func smallExampleSizes() map[string][]lang.Override {
	return map[string][]lang.Override{
		"gauss":          {{Name: "N", Value: "16"}, {Name: "P", Value: "4"}},
		"wave":           {{Name: "Px", Value: "3"}, {Name: "Py", Value: "3"}},
		"sweep3d":        {{Name: "Px", Value: "3"}, {Name: "Py", Value: "2"}, {Name: "kt", Value: "4"}, {Name: "mk", Value: "2"}},
		"halo2d":         {{Name: "Px", Value: "3"}, {Name: "Py", Value: "3"}},
		"jacobi_overlap": {{Name: "Px", Value: "3"}, {Name: "Py", Value: "3"}},
		"cannon":         {{Name: "N", Value: "6"}, {Name: "Px", Value: "3"}, {Name: "Py", Value: "3"}},
		"meshshift":      {{Name: "Px", Value: "4"}, {Name: "Py", Value: "2"}},
		"comms3":         {{Name: "P", Value: "4"}},
		"hypercube":      {{Name: "P", Value: "8"}},
		"reductions":     {{Name: "P", Value: "4"}, {Name: "reps", Value: "3"}},
		"synch1":         {{Name: "P", Value: "4"}, {Name: "reps", Value: "5"}},
	}
}

// TestCursorMatchesEvents checks that a Cursor yields exactly the events
// Events yields, for every rank of every example at small sizes, including
// ranks whose schedules are shared through ForRank and whose cursors share
// a compiled tree through StartAlike, and again after Reset (when every
// static value comes from the cache).
func TestCursorMatchesEvents(t *testing.T) {
	small := smallExampleSizes()
	files, _ := filepath.Glob("../examples/*.spmd")
	requests, _ := filepath.Glob("testdata/requests/*.spmd")
	for _, path := range append(files, requests...) {
		name := strings.TrimSuffix(filepath.Base(path), ".spmd")
		t.Run(name, func(t *testing.T) {
			k := checkKernel(t, path, small[name]...)
			if k.NumRanks() > 64 {
				t.Skipf("%d ranks at the defaults", k.NumRanks())
			}
			first, err := NewSchedule(k, 0)
			if err != nil {
				t.Fatal(err)
			}
			var cursors []*Cursor // one per distinct tree, to share
			for r := range k.NumRanks() {
				s, err := first.ForRank(r)
				if err != nil {
					t.Fatal(err)
				}
				want := eventsOf(t, k, s)
				c := new(Cursor)
				var alike *Cursor
				for _, o := range cursors {
					if sameTree(o.prog.tree, s.Root) {
						alike = o
					}
				}
				c.StartAlike(s, alike)
				if alike == nil {
					cursors = append(cursors, c)
				} else if c.prog != alike.prog {
					t.Fatalf("rank %d: StartAlike did not share the compiled tree", r)
				}
				if diff := cmp.Diff(want, cursorEventsOf(t, k, c)); diff != "" {
					t.Fatalf("rank %d: cursor events differ (-Events +Cursor):\n%s", r, diff)
				}
				c.Reset()
				if diff := cmp.Diff(want, cursorEventsOf(t, k, c)); diff != "" {
					t.Fatalf("rank %d after Reset: cursor events differ (-Events +Cursor):\n%s", r, diff)
				}
			}
		})
	}
}

// TestCursorIndexDependence covers values that change with loop indices:
// peers, payload slices, branch conditions, inner loop bounds and repeat
// counts that read an index directly or through a let, and a compute
// segment whose work depends on the index.
func TestCursorIndexDependence(t *testing.T) {
	const src = `kernel k(n = 6) on P = 4 ranks {
  array a[64]: f64
  for i in 0..n step 2 {
    let d = floor(i / 2) + 1
    for j in 0..i {
      a[j] = a[j] * 2.0
    }
    if i % 4 == 0 {
      send a[0:d] to (rank + d) % P
      recv a[0:d] from (rank - d) % P
    } else {
      exchange a[i:i+1] with (rank + 2) % P
    }
    repeat d {
      for j in i..n {
        allreduce sum a[0:j+1]
      }
    }
  }
  barrier
}`
	k := cursorKernel(t, "index.spmd", src)
	for r := range k.NumRanks() {
		s, err := NewSchedule(k, r)
		if err != nil {
			t.Fatal(err)
		}
		want := eventsOf(t, k, s)
		if len(want) < 10 {
			t.Fatalf("rank %d: only %d events; the test kernel should produce more", r, len(want))
		}
		c := s.Cursor()
		if c.Rank() != r {
			t.Errorf("Cursor().Rank() = %d, want %d", c.Rank(), r)
		}
		for range 2 {
			if diff := cmp.Diff(want, cursorEventsOf(t, k, c)); diff != "" {
				t.Fatalf("rank %d: cursor events differ (-Events +Cursor):\n%s", r, diff)
			}
			c.Reset()
		}
	}
}

// TestCursorFixed checks that Fixed tells segments whose work is the same
// object every time from segments evaluated per iteration.
func TestCursorFixed(t *testing.T) {
	const src = `kernel k(n = 4) on P = 2 ranks {
  array a[64]: f64
  for i in 0..n {
    for j in 0..8 {
      a[j] = a[j] + 1.0
    }
    send a[0:1] to (rank + 1) % P
    recv a[0:1] from (rank + 1) % P
    for j in 0..i {
      a[j] = a[j] * 2.0
    }
    barrier
  }
}`
	k := cursorKernel(t, "fixed.spmd", src)
	s, err := NewSchedule(k, 0)
	if err != nil {
		t.Fatal(err)
	}
	c := s.Cursor()
	var got []bool
	var works []*Work
	for {
		ev, err := c.Next()
		if err != nil {
			t.Fatal(err)
		}
		if ev == nil {
			break
		}
		if ev.Kind == EvCompute {
			got = append(got, c.Fixed())
			works = append(works, ev.Work)
		}
	}
	// i = 0 has no second segment (the j loop is empty but still a segment
	// with zero work), so expect alternation.
	want := []bool{true, false, true, false, true, false, true, false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Fixed per compute event (-want +got):\n%s", diff)
	}
	if works[0] != works[2] {
		t.Errorf("a fixed segment yielded different Work objects")
	}
}

// TestCursorDeepNesting covers a stack deeper than the frames a Cursor
// holds inline.
func TestCursorDeepNesting(t *testing.T) {
	const src = `kernel k(n = 2) on P = 2 ranks {
  array a[8]: f64
  for i in 0..n {
    repeat 2 {
      for j in 0..n {
        if j >= i {
          for l in 0..2 {
            repeat j + 1 {
              exchange a[0:l+1] with (rank + 1) % P
              a[0] = a[0] + 1.0
            }
          }
        }
      }
    }
  }
}`
	k := cursorKernel(t, "deep.spmd", src)
	s, err := NewSchedule(k, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := eventsOf(t, k, s)
	// Two events (exchange, compute) per innermost iteration: i = 0 runs
	// j = 0 (2 l x 1) and j = 1 (2 l x 2), twice; i = 1 runs j = 1, twice.
	const events = 2 * (2*(2*1+2*2) + 2*(2*2))
	if len(want) != events {
		t.Fatalf("Events yields %d events; the test expects %d", len(want), events)
	}
	if diff := cmp.Diff(want, cursorEventsOf(t, k, s.Cursor())); diff != "" {
		t.Fatalf("cursor events differ (-Events +Cursor):\n%s", diff)
	}
}

// TestScheduleAlike checks that a schedule Alike shares gives every rank
// exactly the events of the rank's own schedule, for every rank of every
// example at small sizes, and that large grids do share (wave: every rank
// alike, since peers are evaluated per rank as the schedule is walked).
func TestScheduleAlike(t *testing.T) {
	small := smallExampleSizes()
	files, _ := filepath.Glob("../examples/*.spmd")
	shared := 0
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".spmd")
		k := checkKernel(t, path, small[name]...)
		if k.NumRanks() > 64 {
			continue
		}
		first, err := NewSchedule(k, 0)
		if err != nil {
			t.Fatal(err)
		}
		for r := int64(1); r < k.NumRanks(); r++ {
			s := first.Alike(r)
			if s == nil {
				continue
			}
			shared++
			own, err := NewSchedule(k, r)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(eventsOf(t, k, own), eventsOf(t, k, s)); diff != "" {
				t.Errorf("%s: rank %d shares rank 0's schedule but its events differ (-own +shared):\n%s", name, r, diff)
			}
		}
	}
	if shared == 0 {
		t.Errorf("no rank shares a schedule")
	}
	k := checkKernel(t, "../examples/wave.spmd", lang.Override{Name: "Px", Value: "96"}, lang.Override{Name: "Py", Value: "64"})
	s, err := NewSchedule(k, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []int64{1, 95, 96, 97, 6143} {
		if a := s.Alike(r); a == nil || !sameTree(a.Root, s.Root) || a.Rank != r {
			t.Errorf("wave 96 x 64: rank %d does not share rank 0's schedule", r)
		}
	}
}
