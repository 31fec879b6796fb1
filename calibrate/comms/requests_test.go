package comms

import (
	"math"
	"strings"
	"testing"

	"perfc/codegen/spmd"
)

// TestRequestCosts: the REQ regions give a cost per request, the empty
// region's clock reads taken off, and the wait loses half the 8 B copy
// that the emulation charges a wait on its own; the section loads as
// messages.requests.
func TestRequestCosts(t *testing.T) {
	b := bench{kind: Req, bytes: 8, ranks: 2, reps: 100}
	// Per repetition: posts 0.5 us, clock 0.1 us, wait 0.7 us.
	pts, err := reqPoints(b, map[string]spmd.Timing{
		"REQ post":  {MinUs: 45, MedianUs: 50, MaxUs: 60},
		"REQ clock": {MinUs: 10, MedianUs: 10, MaxUs: 10},
		"REQ wait":  {MinUs: 70, MedianUs: 70, MaxUs: 77},
	})
	if err != nil {
		t.Fatal(err)
	}
	// (0.5 − 0.1)/2 = 0.2 us a post, (0.7 − 0.1)/2 = 0.3 us a wait.
	if len(pts) != 2 || pts[0].Bench != ReqPost || math.Abs(pts[0].Time-0.2e-6) > 1e-15 || math.Abs(pts[1].Time-0.3e-6) > 1e-15 {
		t.Fatalf("points %+v, want REQ post 0.2 us and REQ wait 0.3 us", pts)
	}
	if _, err := reqPoints(b, map[string]spmd.Timing{"REQ post": {MedianUs: 1}}); err == nil || !strings.Contains(err.Error(), `no region "REQ clock"`) {
		t.Errorf("a missing region: %v", err)
	}
	q, ok := fitRequests(pts, 0.1e-6)
	if !ok || math.Abs(q.post-0.2e-6) > 1e-15 || math.Abs(q.wait-0.25e-6) > 1e-15 {
		t.Errorf("fit %+v, %v; want post 0.2 us, wait 0.3 − 0.05 us", q, ok)
	}
	if _, ok := fitRequests(pts[:1], 0.1e-6); ok {
		t.Error("a fit without the wait's point")
	}

	var all []Point
	for i, n := range modeSizes(true, false).comms1 {
		all = append(all, Point{Bench: Comms1, Bytes: float64(n), Ranks: 2, Time: 1e-7 + float64(n)/1e10 + 1e-9*float64(i%2)})
	}
	all = append(all, pts...)
	r, err := Analyse(all, 5, "2026-11-26")
	if err != nil {
		t.Fatal(err)
	}
	m, body := tableOf(t, r)
	got := m.Requests()
	if got == nil || math.Abs(got.Post.Value-0.2e-6) > 1e-9 || !strings.Contains(body, "REQ: an irecv and an isend of 8 B") {
		t.Errorf("messages.requests %+v\n%s", got, body)
	}
}
