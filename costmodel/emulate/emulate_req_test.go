package emulate

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// loggpPricer is a LogGP machine: a message of n bytes costs
// o + L + (n−1)G + o, each side pays o, successive sends are g apart;
// a flop costs perFlop.
type loggpPricer struct {
	unitPricer
	l, o, g, gPerByte float64
}

func (p loggpPricer) Message(src, dst int64, bytes int64) float64 {
	return 2*p.o + p.l + float64(max(bytes-1, 0))*p.gPerByte
}

func (p loggpPricer) MessageOverheads(src, dst, bytes int64) (send, recv, gap float64) {
	return p.o, p.o, p.g
}

// The LogGP machine of the hand-computed cases: o = 1, L = 5, g = 3,
// G = 0.1 per byte, a flop 1 s: a message of 64 B costs
// 1 + 5 + 6.3 + 1 = 13.3 s, its transfer 11.3 s.
func loggpTable() loggpPricer {
	return loggpPricer{unitPricer: unitPricer{perFlop: 1, coll: 1, eager: -1}, l: 5, o: 1, g: 3, gPerByte: 0.1}
}

// The Hockney machine of the same cases: every message 10 s, no per-side
// overhead, a flop 1 s.
func hockneyTable() unitPricer { return unitPricer{msg: 10, perFlop: 1, coll: 1, eager: -1} }

// copyingHost is hockneyTable on a shared-memory host, where the side of
// a message that is ready last copies it (CopyingTransfers).
type copyingHost struct{ unitPricer }

func (copyingHost) CopiesMessages() bool { return true }

// requestHost is hockneyTable with the runtime's cost of a request
// (RequestCoster): 0.5 s at each post, 0.25 s for each request a wait
// completes.
type requestHost struct{ unitPricer }

func (requestHost) RequestCosts() (post, wait float64, ok bool) { return 0.5, 0.25, true }

// eagerHockney is hockneyTable sending messages of up to 1 MiB eagerly.
func eagerHockney() unitPricer { p := hockneyTable(); p.eager = 1 << 20; return p }

// overlapKernel posts a message from rank 0 to rank 1 (64 B), computes
// `flop` flop on both ranks and waits.
func overlapKernel(flop string) string {
	return `kernel ov(m = ` + flop + `) on P = 2 ranks {
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

// TestRequestsByHand checks emulated times of non-blocking messages
// worked out by hand from the rules (docs/emulate.md, "Non-blocking
// messages"), on a LogGP and a Hockney machine.
func TestRequestsByHand(t *testing.T) {
	const twoPosts = `kernel two() on P = 2 ranks {
  array a[8], c[8]: f64
  if rank == 0 {
    isend a to 1 as r1
    isend c to 1 as r2
  } else {
    irecv a from 0 as r1
    irecv c from 0 as r2
  }
  waitall
}`
	// A blocking receive and an irecv on one pair, and a blocking send
	// against an irecv: matched in posting order (the sizes differ, so a
	// wrong order is a size mismatch).
	const mixed = `kernel mixed() on P = 2 ranks {
  array a[8], c[4]: f64
  if rank == 0 {
    isend a to 1 as r
    send c to 1
    wait r
  } else {
    irecv a from 0 as r
    recv c from 0
    wait r
  }
}`
	// A sendrecv whose halves meet an irecv and an isend.
	const halves = `kernel halves() on P = 2 ranks {
  array a[8], b[8], c[8], d[8]: f64
  if rank == 0 {
    irecv b from 1 as r
    isend a to 1 as s
    waitall
  } else {
    sendrecv c to 0 from 0 into d
  }
}`
	type rank struct{ End, Wait, ReqWait, Comm float64 }
	tests := []struct {
		name  string
		src   string
		p     Pricer
		total float64
		ranks []rank
	}{
		// Compute (64 s) longer than the transfer: only the overheads
		// show. Rank 0 posts [0, 1], computes [1, 65], its isend
		// completed at 1 + 11.3; rank 1 computes [0, 64] and its wait
		// pays o: 65. Blocking, it would be 64 + 13.3.
		{"LogGP, compute hides the transfer", overlapKernel("64"), loggpTable(), 65,
			[]rank{{65, 0, 0, 1}, {65, 0, 0, 1}}},
		// Compute (8 s) shorter: rank 0 waits from 9 to 12.3 for its
		// isend; rank 1 from 8 to 12.3, then pays o.
		{"LogGP, the wait pays the rest", overlapKernel("8"), loggpTable(), 13.3,
			[]rank{{12.3, 3.3, 3.3, 1}, {13.3, 4.3, 4.3, 1}}},
		{"Hockney, compute hides the transfer", overlapKernel("64"), hockneyTable(), 64,
			[]rank{{64, 0, 0, 0}, {64, 0, 0, 0}}},
		{"Hockney, the wait pays the rest", overlapKernel("8"), hockneyTable(), 10,
			[]rank{{10, 2, 2, 0}, {10, 2, 2, 0}}},
		// On a host that copies messages both sides are ready at 0 and the
		// sender copies (the later side; a tie goes to the sender): its
		// wait pays the 10 s copy after its computation, the receiver's
		// request completes at 10.
		{"copying host, computation does not hide the copy", overlapKernel("64"), copyingHost{hockneyTable()}, 74,
			[]rank{{74, 0, 0, 10}, {64, 0, 0, 0}}},
		{"copying host, short computation", overlapKernel("8"), copyingHost{hockneyTable()}, 18,
			[]rank{{18, 0, 0, 10}, {10, 2, 2, 0}}},
		// An eager isend leaves at once and waits in rank 1's inbox,
		// where the irecv finds it: the same times.
		{"Hockney, eager", overlapKernel("8"), eagerHockney(), 10,
			[]rank{{10, 2, 2, 0}, {10, 2, 2, 0}}},
		// Two posts are g apart: the second isend starts at 3, not 1.
		// The messages arrive at 1 + 11.3 = 12.3 and 4 + 11.3 = 15.3;
		// rank 1's waitall pays o after each: 13.3, then 16.3. Rank 0
		// waits 2 s for the gap and from 4 to 15.3 in waitall.
		{"LogGP, two posts pay g", twoPosts, loggpTable(), 16.3,
			[]rank{{15.3, 2 + 11.3, 11.3, 2}, {16.3, 14.3, 14.3, 2}}},
		{"Hockney, two posts", twoPosts, hockneyTable(), 10,
			[]rank{{10, 10, 10, 0}, {10, 10, 10, 0}}},
		// The isend of 64 B meets the irecv at 1 (rank 0's post) and
		// arrives at 12.3. The blocking send of 32 B meets the recv at 1
		// and, both sides blocking, takes the whole message time
		// (1 + 5 + 3.1 + 1 = 10.1 s): [1, 11.1] on both ranks. Then rank
		// 0 waits for its isend until 12.3, rank 1 for its irecv until
		// 12.3 and pays o: 13.3.
		{"LogGP, blocking and non-blocking on one pair", mixed, loggpTable(), 13.3,
			[]rank{{12.3, 1.2, 1.2, 1 + 10.1}, {13.3, 1 + 1.2, 1.2, 10.1 + 1}}},
		// Requests that cost their rank 0.5 s at the post and 0.25 s at
		// the wait: both posts end at 0.5, the message moves [0.5, 10.5];
		// the 64 s of compute hide it and each wait pays 0.25: 64.75.
		{"request costs, compute hides the transfer", overlapKernel("64"), requestHost{hockneyTable()}, 64.75,
			[]rank{{64.75, 0, 0, 0.75}, {64.75, 0, 0, 0.75}}},
		// 8 s of compute end at 8.5: each rank waits 2 s, then pays 0.25.
		{"request costs, the wait pays the rest", overlapKernel("8"), requestHost{hockneyTable()}, 10.75,
			[]rank{{10.75, 2, 2, 0.75}, {10.75, 2, 2, 0.75}}},
		// Two posts each side, [0, 0.5] and [0.5, 1]: the messages arrive
		// at 10.5 and 11. The waitall waits 9.5 s for the first, pays
		// 0.25 (10.75), waits 0.25 s for the second, pays 0.25: 11.25.
		{"request costs, two posts and a waitall", twoPosts, requestHost{hockneyTable()}, 11.25,
			[]rank{{11.25, 9.75, 9.75, 1.5}, {11.25, 9.75, 9.75, 1.5}}},
	}
	tests = append(tests, []struct {
		name  string
		src   string
		p     Pricer
		total float64
		ranks []rank
	}{
		// Rank 1's send half (blocking: it pays its own o inside) meets
		// the irecv posted at 0 and arrives at 13.3 − 1 = 12.3; its
		// receive half meets the isend ready at 1 and arrives at 12.3,
		// then pays o: the sendrecv spans [0, 13.3], busy for its longer
		// half (12.3). Rank 0 waits from 1 to 12.3, then pays the irecv's
		// o.
		{"LogGP, a sendrecv meets an irecv and an isend", halves, loggpTable(), 13.3,
			[]rank{{13.3, 11.3, 11.3, 2}, {13.3, 1, 0, 12.3}}},
		{"Hockney, a sendrecv meets an irecv and an isend", halves, hockneyTable(), 10,
			[]rank{{10, 10, 10, 0}, {10, 0, 0, 10}}},
	}...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := checkSource(t, "req.spmd", tt.src)
			em, err := Emulate(k, tt.p, EmulateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !near(em.Total, tt.total) {
				t.Errorf("total %g, want %g", em.Total, tt.total)
			}
			var got []rank
			for _, r := range em.PerRank {
				got = append(got, rank{r.End, r.Wait, r.RequestWait, r.Comm})
			}
			if diff := cmp.Diff(tt.ranks, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("per rank (end, wait, request wait, comm) (-want +got):\n%s", diff)
			}
			checkPathCovers(t, em)
		})
	}
}

// TestRequestsCriticalPath checks that the critical path runs through the
// message a wait waited for: rank 0's post, then the transfer and rank
// 1's wait, entered via the request (a wait's stretch names the post of
// the request it waited for).
func TestRequestsCriticalPath(t *testing.T) {
	k := checkSource(t, "req.spmd", overlapKernel("8"))
	em, err := Emulate(k, loggpTable(), EmulateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []PathStep{
		{Rank: 0, Start: 0, End: 1, Events: 1, Kind: "isend", First: "req.spmd:4:5", Last: "req.spmd:4:5", Via: "start"},
		{Rank: 1, Start: 1, End: 13.3, Events: 1, Kind: "wait", First: "req.spmd:6:5", Last: "req.spmd:6:5", Via: "request"},
	}
	if diff := cmp.Diff(want, em.Critical, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("critical path (-want +got):\n%s", diff)
	}
	if em.Requests != 2 || em.Messages != 1 {
		t.Errorf("requests %d, messages %d; want 2 and 1", em.Requests, em.Messages)
	}
}

// TestRequestsTimeline checks the intervals of posts and waits: a wait
// shows its blocked time as Start − Posted, and the overhead it pays as
// End − Start.
func TestRequestsTimeline(t *testing.T) {
	k := checkSource(t, "req.spmd", overlapKernel("8"))
	var got []Interval
	_, err := Emulate(k, loggpTable(), EmulateOptions{Observe: func(iv *Interval) {
		c := *iv
		c.Stmt, c.Wait = nil, nil
		got = append(got, c)
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := []Interval{
		{Rank: 0, Kind: ActISend, Posted: 0, Start: 0, End: 1, Peer: 1, From: -1, Bytes: 64, Wave: 1},
		{Rank: 0, Kind: ActCompute, Posted: 1, Start: 1, End: 9, Peer: -1, From: -1},
		{Rank: 0, Kind: ActWait, Posted: 9, Start: 12.3, End: 12.3, Peer: -1, From: -1},
		{Rank: 1, Kind: ActIRecv, Posted: 0, Start: 0, End: 0, Peer: 0, From: -1, Bytes: 64},
		{Rank: 1, Kind: ActCompute, Posted: 0, Start: 0, End: 8, Peer: -1, From: -1},
		{Rank: 1, Kind: ActWait, Posted: 8, Start: 12.3, End: 13.3, Peer: -1, From: -1},
	}
	sortIntervals(got)
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("intervals (-want +got):\n%s", diff)
	}
}

// sortIntervals orders intervals by rank, then by time.
func sortIntervals(ivs []Interval) {
	for i := 1; i < len(ivs); i++ {
		for j := i; j > 0 && (ivs[j].Rank < ivs[j-1].Rank || ivs[j].Rank == ivs[j-1].Rank && ivs[j].Posted < ivs[j-1].Posted); j-- {
			ivs[j], ivs[j-1] = ivs[j-1], ivs[j]
		}
	}
}

// TestRequestsDeadlock checks that a deadlock through waits names the wait
// and the post it waits for, on both ranks.
func TestRequestsDeadlock(t *testing.T) {
	const src = `kernel dl() on P = 2 ranks {
  array a[8]: f64
  irecv a from 1 - rank as r
  wait r
  send a to 1 - rank
}`
	for _, p := range []Pricer{loggpTable(), hockneyTable()} {
		k := checkSource(t, "dl.spmd", src)
		_, err := Emulate(k, p, EmulateOptions{})
		var se *ScheduleError
		if !errors.As(err, &se) || se.Kind != "deadlock" {
			t.Fatalf("error %v, want a deadlock", err)
		}
		for _, want := range []string{
			"dl.spmd:4:3: deadlock: 2 of 2 ranks cannot complete (a cycle of blocking operations",
			"rank 0: wait at dl.spmd:4:3 for irecv r of 64 B from rank 1 (posted at dl.spmd:3:3); waits for rank 1",
			"rank 1: wait at dl.spmd:4:3 for irecv r of 64 B from rank 0 (posted at dl.spmd:3:3); waits for rank 0",
		} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error\n%v\ndoes not contain %q", err, want)
			}
		}
	}
}

// TestRequestsUnreceived checks that an isend nobody receives is an
// error rather than a silent success.
func TestRequestsUnreceived(t *testing.T) {
	const src = `kernel un() on P = 2 ranks {
  array a[8]: f64
  if rank == 0 {
    isend a to 1 as r
    wait r
  }
}`
	k := checkSource(t, "un.spmd", src)
	_, err := Emulate(k, hockneyTable(), EmulateOptions{})
	var se *ScheduleError
	if !errors.As(err, &se) || se.Kind != "deadlock" || !strings.Contains(err.Error(), "wait at un.spmd:5:5 for isend r of 64 B to rank 1 (posted at un.spmd:4:5); waits for rank 1, which has finished its schedule") {
		t.Fatalf("error %v, want a deadlock naming the wait and the isend", err)
	}
	// Eager, the isend completes, and the message is left unreceived.
	_, err = Emulate(k, eagerHockney(), EmulateOptions{})
	if !errors.As(err, &se) || se.Kind != "unreceived message" || !strings.Contains(err.Error(), "un.spmd:4:5: rank 0 sends 64 B to rank 1 here (message 1 on that pair), but rank 1 finishes without receiving it") {
		t.Fatalf("error %v, want an unreceived message at the isend", err)
	}
}

// TestRequestsShareLinks checks that non-blocking messages queue for the
// links of a node boundary as blocking ones do: two isends posted at once
// across a boundary with one link cross one after the other.
func TestRequestsShareLinks(t *testing.T) {
	const src = `kernel links() on grid(Px = 2, Py = 1) {
  array a[8], c[8]: f64
  if rank == 0 {
    isend a to 1 as r1
    isend c to 1 as r2
  } else {
    irecv a from 0 as r1
    irecv c from 0 as r2
  }
  waitall
}`
	k := checkSource(t, "links.spmd", src)
	em, err := Emulate(k, onCluster(1, 1, 1), EmulateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if em.Total != 2 || em.LinkWaits != 1 || em.LinkWait != 1 || em.Messages != 2 {
		t.Errorf("total %g, link waits %d (%g), messages %d; want 2, 1 (1), 2", em.Total, em.LinkWaits, em.LinkWait, em.Messages)
	}
	checkPathCovers(t, em)
	// Both ranks end at 2; the path ends on rank 0 (the first of them),
	// whose wait for its second isend follows the first message, which
	// held the link the second waited for.
	want := []PathStep{
		{Rank: 0, Start: 0, End: 0, Events: 1, Kind: "isend", First: "links.spmd:4:5", Last: "links.spmd:4:5", Via: "start"},
		{Rank: 0, Start: 0, End: 1, Events: 1, Kind: "send", First: "links.spmd:4:5", Last: "links.spmd:4:5", Via: "message"},
		{Rank: 0, Start: 1, End: 2, Events: 1, Kind: "wait", First: "links.spmd:5:5", Last: "links.spmd:5:5", Via: "request"},
	}
	if diff := cmp.Diff(want, em.Critical); diff != "" {
		t.Errorf("critical path (-want +got):\n%s", diff)
	}
}

// TestRankDependentSegments checks that ranks sharing a schedule tree
// (Schedule.Alike) compute their own segments: a loop bound that depends
// on the rank used to be evaluated once, for the first rank, and every
// alike rank computed what it computed.
func TestRankDependentSegments(t *testing.T) {
	const src = `kernel k() on P = 3 ranks {
  array a[16]: f64
  for i in 0..(rank == 0 ? 4 : 10) {
    a[i] = a[i] * 2.0
  }
  barrier
}`
	k := checkSource(t, "k.spmd", src)
	em, err := Emulate(k, unitPricer{perFlop: 1, coll: 1, eager: -1}, EmulateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []float64
	for _, r := range em.PerRank {
		got = append(got, r.Compute)
	}
	if diff := cmp.Diff([]float64{4, 10, 10}, got); diff != "" {
		t.Errorf("compute per rank (-want +got):\n%s", diff)
	}
}
