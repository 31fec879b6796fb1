package analyze

import (
	"fmt"
	"math/big"
	"strings"
	"testing"

	"perfc/lang"
)

// The oracle's requests: the concrete walk keeps each rank's active
// requests by name, marks them computed when a statement that counts an
// operation or a reference runs (or a loop loads its hoisted references),
// and tallies posted, completed and overlapped requests by the region of
// their post, independently of the schedule the analyzer takes them from.

// oracleRequests is the request state of one rank's walk.
type oracleRequests struct {
	active map[string]*oracleRequest
	tally  map[string]map[string]*big.Rat // region → "posted" … → count
}

// oracleRequest is one active request.
type oracleRequest struct {
	region   string
	computed bool
}

// count adds one to a region's request count.
func (q *oracleRequests) count(region, what string) {
	if q.tally == nil {
		q.tally = map[string]map[string]*big.Rat{}
	}
	if q.tally[region] == nil {
		q.tally[region] = map[string]*big.Rat{}
	}
	addTo(q.tally[region], what, big.NewRat(1, 1))
}

// compute marks every active request computed.
func (q *oracleRequests) compute() {
	for _, r := range q.active {
		r.computed = true
	}
}

// computed marks the active requests computed when loc counts something
// and runs.
func (w *oracleRun) computed(loc *oracleLocal, mult *big.Rat) {
	if loc == nil || mult.Sign() == 0 {
		return
	}
	for _, o := range loc.ops {
		if o.n > 0 {
			w.reqs.compute()
			return
		}
	}
	if len(loc.refs) > 0 {
		w.reqs.compute()
	}
}

// post starts the request of an isend or irecv whose peer is a rank.
func (w *oracleRun) post(s *lang.CommStmt, region string) error {
	to, err := w.pr.k.EvalInt(s.Peer, w.env)
	if err != nil || to < 0 {
		return err
	}
	if w.reqs.active == nil {
		w.reqs.active = map[string]*oracleRequest{}
	}
	if w.reqs.active[s.Req.Name] != nil {
		return fmt.Errorf("oracle: request %s posted again while active on rank %d", s.Req.Name, w.env.Rank)
	}
	w.reqs.active[s.Req.Name] = &oracleRequest{region: region}
	w.reqs.count(region, "posted")
	return nil
}

// wait completes the active requests a wait names (all for waitall).
func (w *oracleRun) wait(s *lang.WaitStmt) {
	complete := func(name string) {
		r := w.reqs.active[name]
		if r == nil {
			return
		}
		w.reqs.count(r.region, "completed")
		if r.computed {
			w.reqs.count(r.region, "overlapped")
		}
		delete(w.reqs.active, name)
	}
	if s.All {
		for name := range w.reqs.active {
			complete(name)
		}
		return
	}
	for _, id := range s.Reqs {
		complete(id.Name)
	}
}

// done reports a request still active at the end of the kernel.
func (q *oracleRequests) done() error {
	for name := range q.active {
		return fmt.Errorf("oracle: request %s still active at the end of the kernel", name)
	}
	return nil
}

// flattenRequests adds a region's request counts to f.
func flattenRequests(f *flatCounts, r RequestCounts) {
	addTo(f.Requests, "posted", ratOrZero(r.Posted.Value))
	addTo(f.Requests, "completed", ratOrZero(r.Completed.Value))
	addTo(f.Requests, "overlapped", ratOrZero(r.Overlapped.Value))
}

// TestRequestLifetimeErrors checks the rank-by-rank errors of requests
// that the checker cannot prove: a request one rank never waits for, and
// one posted again under a second guard.
func TestRequestLifetimeErrors(t *testing.T) {
	for _, tt := range []struct{ name, src, want string }{
		{"active at the end of an iteration", `kernel k(n = 8) on P = 4 ranks {
  array a[n]: f64
  for it in 0..3 {
    if rank > 0 { irecv a[0:1] from rank - 1 as r }
    if rank == 0 { wait r }
  }
}`, "4:19: request r of this irecv is still active at the end of an iteration of the loop at 3:3 on rank 1 (it = 0): every iteration must complete what it posts; add 'wait r' (or 'waitall') after it in the loop body"},
		{"posted again while active", `kernel k(n = 8) on P = 4 ranks {
  array a[n]: f64
  if rank > 0 { irecv a[0:1] from rank - 1 as r }
  if rank > 1 { irecv a[2:3] from rank - 1 as r }
  waitall
}`, "4:17: request r is posted again by this irecv on rank 2 while the irecv at 3:17 is still active; complete it first with 'wait r'"},
		{"active at the end of the kernel", `kernel k(n = 8) on P = 2 ranks {
  array a[n]: f64
  isend a[0:1] to 1 - rank as r
  if rank == 0 { wait r }
}`, "3:3: request r of this isend is still active at the end of the kernel on rank 1: no wait completed it; add 'wait r' (or 'waitall') after it"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			k := loadKernel(t, "k.spmd", []byte(tt.src), nil)
			_, err := Analyze(k, Options{})
			if err == nil || !strings.HasSuffix(err.Error(), tt.want) {
				t.Errorf("Analyze: %v\nwant an error ending %q", err, tt.want)
			}
			// Events and a Cursor report the same error on every rank.
			found := false
			for r := range k.NumRanks() {
				s, err := NewSchedule(k, r)
				if err != nil {
					t.Fatal(err)
				}
				evErr := s.Events(func(*Event) bool { return true })
				c := s.Cursor()
				var curErr error
				for {
					ev, err := c.Next()
					if ev == nil {
						curErr = err
						break
					}
				}
				if fmt.Sprint(evErr) != fmt.Sprint(curErr) {
					t.Errorf("rank %d: Events says %v, the Cursor %v", r, evErr, curErr)
				}
				found = found || (evErr != nil && strings.HasSuffix(evErr.Error(), tt.want))
			}
			if !found {
				t.Errorf("no rank's schedule reports %q", tt.want)
			}
		})
	}
}

// TestRequestCountsOracle checks the request counts of the kernels of
// testdata/requests against the oracle (TestOracleTestdata does the
// same for testdata/oracle; these are kept apart so that each new
// statement has its own cases).
func TestRequestCountsOracle(t *testing.T) {
	oracleDir(t, "testdata/requests")
}
