package analyze

import (
	"fmt"
	"math/big"
	"slices"

	"perfc/analyze/symbolic"
	"perfc/lang"
)

// Requests of non-blocking messages (isend, irecv) in the analyzer. The
// messages they move are counted as any point-to-point message (kinds
// isend and irecv, comm.go); what they add is a lifetime: a request is
// active from its post to the wait that completes it. Whether a wait
// completes a request, and whether the rank computed between the post and
// the wait, depends on the rank's path through guards and loops, so the
// request counts are taken from the rank's schedule (its events in
// program order), which also checks the lifetime rules rank by rank.

// RequestCounts summarises the requests of a region's posts.
type RequestCounts struct {
	// Posted counts the isend and irecv statements run with a peer (a post
	// to none starts no request).
	Posted Count `json:"posted"`
	// Completed counts the posted requests a wait completed. Every request
	// must be complete by the end of its loop iteration or kernel, so it
	// equals Posted in a kernel that counts at all; the generated program
	// counts it where its waits complete requests.
	Completed Count `json:"completed"`
	// Overlapped counts the posted requests with computation between the
	// post and the wait that completed them: at least one executed
	// statement that counts an operation or an array reference (a message
	// whose transfer can hide behind work).
	Overlapped Count `json:"overlapped"`
}

// add returns r + d.
func (r RequestCounts) add(d RequestCounts) RequestCounts {
	return RequestCounts{Posted: r.Posted.add(d.Posted), Completed: r.Completed.add(d.Completed),
		Overlapped: r.Overlapped.add(d.Overlapped)}
}

// requestNumber returns the number of the request id names.
func (p *plan) requestNumber(id *lang.Ident) int {
	if id == nil {
		return -1
	}
	n, _ := p.k.Info.RequestNumber(id.Name)
	return n
}

// requestTracker is the state of a rank's requests while its schedule is
// expanded.
type requestTracker struct {
	active []activeRequest // by request number
	reqs   []int           // the Reqs of the last EvWait, reused
}

// activeRequest is one request of a rank.
type activeRequest struct {
	post  *lang.CommStmt // the post that started it; nil when not active
	depth int            // the expander's loop depth at the post
}

// init sizes the tracker for a kernel's requests.
func (t *requestTracker) init(k *lang.Checked) {
	t.active = make([]activeRequest, len(k.Info.Requests))
}

// post starts the request of an EvISend or EvIRecv, unless its peer is
// none; a request still active is an error naming both posts.
func (x *expander) post(ev *Event) error {
	if ev.Peer < 0 || ev.Req < 0 || ev.Req >= len(x.reqs.active) {
		return nil
	}
	a := &x.reqs.active[ev.Req]
	if a.post != nil {
		return x.ra.repostError(ev.Stmt, a.post)
	}
	*a = activeRequest{post: ev.Stmt, depth: x.depth}
	return nil
}

// wait yields the EvWait of a wait or waitall, completing the requests it
// names that are active.
func (x *expander) wait(s *lang.WaitStmt) (bool, error) {
	t := &x.reqs
	t.reqs = t.reqs[:0]
	if s.All {
		for i := range t.active {
			if t.active[i].post != nil {
				t.reqs = append(t.reqs, i)
				t.active[i] = activeRequest{}
			}
		}
	} else {
		for _, id := range s.Reqs {
			n := x.ra.p.requestNumber(id)
			if n >= 0 && n < len(t.active) && t.active[n].post != nil {
				t.reqs = append(t.reqs, n)
				t.active[n] = activeRequest{}
			}
		}
	}
	x.ev = Event{Kind: EvWait, Peer: -1, From: -1, Reqs: t.reqs, All: s.All, WaitStmt: s}
	return x.yield(&x.ev), nil
}

// requestsDone reports a request still active at the end of an iteration
// of loop n (one posted in that iteration) or, for n nil, at the end of
// the kernel.
func (x *expander) requestsDone(n *SNode) error {
	for _, a := range x.reqs.active {
		if a.post == nil || (n != nil && a.depth <= x.depth) {
			continue
		}
		if n == nil {
			return x.ra.activeAtKernelEnd(a.post)
		}
		return x.ra.activeAtIterationEnd(a.post, n.Stmt, x.indexText(n))
	}
	return nil
}

// indexText is " (i = 3)" for the current iteration of a for loop.
func (x *expander) indexText(n *SNode) string {
	loop, ok := n.Stmt.(*lang.ForStmt)
	if !ok {
		return ""
	}
	obj := x.ra.k.Info.Defs[loop.Var]
	if obj == nil {
		return ""
	}
	return fmt.Sprintf(" (%s = %d)", loop.Var.Name, x.env.Index[obj.Slot])
}

// computes reports whether a compute segment did any counted work: an
// operation or an array reference.
func (w *Work) computes() bool {
	if w.Loads > 0 || w.Stores > 0 {
		return true
	}
	return slices.ContainsFunc(w.Ops, func(o OpWork) bool { return o.N > 0 })
}

// requestCounts adds the rank's request counts to its regions, from its
// schedule: a kernel without requests has none.
func (ra *rankAnalysis) requestCounts(rt *regionTotals) error {
	if len(ra.k.Info.Requests) == 0 {
		return nil
	}
	regions := map[*lang.CommStmt]string{}
	for _, l := range ra.p.leaves {
		if s, ok := l.stmt.(*lang.CommStmt); ok && l.kind == leafComm {
			regions[s] = l.region
		}
	}
	s, err := NewSchedule(ra.k, ra.rank)
	if err != nil {
		return err
	}
	type state struct {
		region   string
		computed bool
	}
	active := make([]*state, len(ra.k.Info.Requests))
	tally := map[string]*[3]int64{}
	at := func(region string) *[3]int64 {
		if tally[region] == nil {
			tally[region] = new([3]int64)
		}
		return tally[region]
	}
	var order []string
	err = s.Events(func(ev *Event) bool {
		switch ev.Kind {
		case EvISend, EvIRecv:
			if ev.Peer >= 0 {
				region := regions[ev.Stmt]
				if tally[region] == nil {
					order = append(order, region)
				}
				active[ev.Req] = &state{region: region}
				at(region)[0]++
			}
		case EvCompute:
			if ev.Work.computes() {
				for _, a := range active {
					if a != nil {
						a.computed = true
					}
				}
			}
		case EvWait:
			for _, r := range ev.Reqs {
				a := active[r]
				at(a.region)[1]++
				if a.computed {
					at(a.region)[2]++
				}
				active[r] = nil
			}
		}
		return true
	})
	if err != nil {
		return err
	}
	count := func(n int64) Count {
		v := big.NewRat(n, 1)
		return Count{Value: v, Formula: symbolic.Const(v)}
	}
	for _, region := range order {
		t := tally[region]
		c := rt.get(region)
		c.Requests = c.Requests.add(RequestCounts{Posted: count(t[0]), Completed: count(t[1]), Overlapped: count(t[2])})
	}
	return nil
}
