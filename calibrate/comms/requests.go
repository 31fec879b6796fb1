package comms

import "fmt"

// reqFit is what a non-blocking request costs its rank, from the Req
// benchmark: post per isend or irecv; wait per request a wait completes,
// less the 8 B message's copy that the emulation charges a wait on its
// own (per rank and repetition, one of the two messages: the side ready
// last copies; docs/emulate.md).
type reqFit struct {
	post, wait      float64 // s, per request
	measured, copy8 float64 // the wait's measured time per request, and the COMMS1 time of 8 B
	spread          float64 // the larger of the two regions' spreads
}

// fitRequests reads the ReqPost and ReqWait points (two ranks) against
// the message law's time of 8 B (COMMS1's); false when they were not
// measured.
func fitRequests(pts []Point, copy8 float64) (reqFit, bool) {
	var post, wait *Point
	for i := range pts {
		switch p := &pts[i]; {
		case p.Bench == ReqPost && p.Ranks == partition:
			post = p
		case p.Bench == ReqWait && p.Ranks == partition:
			wait = p
		}
	}
	if post == nil || wait == nil {
		return reqFit{}, false
	}
	return reqFit{post: post.Time, wait: max(wait.Time-copy8/2, 0), measured: wait.Time, copy8: copy8,
		spread: max(post.Spread, wait.Spread)}, true
}

// requestsYAML is messages.requests (docs/machines.md).
type requestsYAML struct {
	Post   string `yaml:"post"`
	Wait   string `yaml:"wait"`
	Source string `yaml:"source"`
}

// requestsSection writes the fitted request costs with what they came
// from in the source; nil when not measured.
func (r *Result) requestsSection() *requestsYAML {
	q := r.requests
	if q == nil {
		return nil
	}
	return &requestsYAML{
		Post: fmtTime(q.post),
		Wait: fmtTime(q.wait),
		Source: fmt.Sprintf("%s REQ: an irecv and an isend of 8 B posted to the other rank, then a wait for both, each in its own region, an empty region's clock reads taken off (median of %d measurements, spread %s): post %s a request, wait %s a request less half the %s copy of 8 B (the COMMS1 law) that the emulation charges a wait, P=2, %s",
			r.transport.Command(), r.samples, percent(q.spread), fmtTime(q.post), fmtTime(q.measured), fmtTime(q.copy8), r.date),
	}
}
