package costmodel

import (
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"perfc/analyze"
	"perfc/costmodel/emulate"
	"perfc/examples"
	"perfc/lang"
	"perfc/machines"
)

// oneTables returns every built-in table, the host-style test table
// (caches with bandwidths, main-memory bandwidth) with both compositions,
// an operation table whose memory is priced only by cache lines, and a
// compose: ecm table (loop, access and operation costs, latencies, lines
// per level): the tables on which the emulator must charge what the region
// table charges.
func oneTables(t *testing.T) map[string]*machines.Machine {
	t.Helper()
	out := map[string]*machines.Machine{}
	for _, name := range machines.BuiltinNames() {
		m, err := machines.Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = m
	}
	m, err := machines.Load("testdata/opcache.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out["opcache"] = m
	if m, err = machines.Load("testdata/ecm.yaml"); err != nil {
		t.Fatal(err)
	}
	out["ecm"] = m
	for _, compose := range []string{"max", "sum"} {
		m, err := machines.Load("testdata/host.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if m, err = m.With(machines.Assignment{Name: "compose", Value: compose}); err != nil {
			t.Fatal(err)
		}
		out["host-"+compose] = m
	}
	// The laws of a calibrated table that price a whole sendrecv event
	// (messages.sendrecv, messages.exchange) and a payload that stays with
	// its sender (messages.local, and the crossing it decides).
	host, err := os.ReadFile("testdata/host.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if m, err = machines.Parse("host-sendrecv.yaml", append(host, []byte(`  exchange: {source: test COMMS2, model: hockney, t0: 3us, rinf: 2GB/s}
  sendrecv: {source: test COMMS3 on two ranks, model: hockney, t0: 1.5us, rinf: 4GB/s}
  local: {source: test LOCAL, model: hockney, t0: 0.5us, rinf: 8GB/s}
`)...)); err != nil {
		t.Fatal(err)
	}
	out["host-sendrecv"] = m
	return out
}

// ownCosts is what the region table charges one class of ranks: compute
// and memory composed per region, and all of it.
type ownCosts struct{ compute, total float64 }

// classCosts prices every class of rep region by region, as Predict does.
func classCosts(p *machinePricer, rep *analyze.Report) []ownCosts {
	var out []ownCosts
	for _, cl := range rep.Classes {
		var c ownCosts
		for _, r := range p.priceClass(cl, rep) {
			c.compute += composeTime(p.m.Compose(), r.Compute, r.Memory)
			c.total += r.Time
		}
		out = append(out, c)
	}
	return out
}

// TestEmulationChargesRegionCosts checks that one pricing serves the
// region table and the emulator (issue 12 item 2): for every example on
// every table, every rank's emulated compute time equals the compute and
// memory its class's regions are charged; the busy time (compute and
// communication) of the rank that represents its class equals the class's
// total (the other ranks of a class may cross other network levels or node
// boundaries than their representative, which the table does not price);
// and the prediction of a kernel whose ranks wait is the emulated critical
// path, which no class's own costs exceed (the waiting it reports is not
// negative).
func TestEmulationChargesRegionCosts(t *testing.T) {
	tables := oneTables(t)
	for _, name := range examples.Names() {
		k := loadKernel(t, "../examples/"+name+".spmd")
		for mname, m := range tables {
			rep, err := analyze.Analyze(k, analyze.Options{Cache: m.CacheHierarchy()})
			if err != nil {
				t.Fatal(err)
			}
			for oname, opts := range oneOptions {
				if opts.VectorUnits && len(m.Compute().Vectors()) == 0 ||
					opts.PaperRules && newOptionsPricer(m, k, opts).rules == (paperRules{}) ||
					opts.Warm && m.CacheHierarchy() == nil {
					continue // priced as without the option
				}
				t.Run(name+"/"+mname+oname, func(t *testing.T) {
					emulationChargesRegionCosts(t, k, rep, m, opts)
				})
			}
		}
	}
}

// oneOptions are the pricing options the emulation must follow: the exact
// counts, vector units, the source papers' rules, and warm caches.
var oneOptions = map[string]Options{"": {}, "/vector-units": {VectorUnits: true}, "/paper-rules": {PaperRules: true}, "/warm": {Warm: true}}

// emulationChargesRegionCosts checks one kernel on one table with one set
// of options (TestEmulationChargesRegionCosts).
func emulationChargesRegionCosts(t *testing.T, k *lang.Checked, rep *analyze.Report, m *machines.Machine, opts Options) {
	costs := classCosts(newOptionsPricer(m, k, opts), rep)
	em, err := emulate.Emulate(k, PricerFor(k, rep, m, opts), emulate.EmulateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range em.PerRank {
		own := costs[classIndex(t, rep, r.Rank)]
		if !sameTime(r.Compute, own.compute) {
			t.Errorf("rank %d: emulated compute %g s, region table %g s (compute and memory)", r.Rank, r.Compute, own.compute)
			break
		}
		if rep.Classes[classIndex(t, rep, r.Rank)].Rank != r.Rank || opts.PaperRules && isIMHTable(m) {
			// The IMH paper's rule 3 (two overlapping messages cost one)
			// applies to the region table only: the emulation runs every
			// message (docs/predict.md).
			continue
		}
		if !sameTime(r.Busy(), own.total) {
			t.Errorf("rank %d: emulated busy %g s (compute %g + communication %g), region table %g s",
				r.Rank, r.Busy(), r.Compute, r.Comm, own.total)
		}
	}
	pred, err := Predict(k, rep, m, opts)
	var unpriced *UnpricedError
	if errors.As(err, &unpriced) {
		return // the table prices nothing the kernel does (TestUnpriced)
	}
	if err != nil {
		t.Fatal(err)
	}
	if pred.Emulation == nil {
		return
	}
	if !sameTime(pred.Total, em.Total) {
		t.Errorf("predicted %g s, emulated critical path %g s", pred.Total, em.Total)
	}
	if wait := pred.Total - pred.RankSum; wait < -1e-9*pred.Total {
		t.Errorf("waiting = total %g s − own costs %g s < 0", pred.Total, pred.RankSum)
	}
}

// classIndex is the index of the class of rank in rep.
func classIndex(t *testing.T, rep *analyze.Report, rank int64) int {
	t.Helper()
	for i, cl := range rep.Classes {
		if cl.Ranks.Contains(rank) {
			return i
		}
	}
	t.Fatalf("rank %d is in no class", rank)
	return -1
}

// sameTime compares two times to a relative 1e-9.
func sameTime(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// TestWalkLimit checks that a class with more communication events than
// maxWalkedEvents is priced from its counts, with a note, instead of one
// message at a time: a prediction with --no-emulation stays fast.
func TestWalkLimit(t *testing.T) {
	const src = `kernel ring(n = 1000000000) on P = 8 ranks {
  array x[4]: f64
  for i in 0..n {
    sendrecv x[0:4] to (rank + 1) % P from (rank + P - 1) % P
  }
}`
	for _, tt := range []struct {
		n    string
		note bool
	}{{"1000000000", true}, {"1000", false}} {
		k := checkSource(t, "ring.spmd", src, "n", tt.n)
		m, err := machines.Builtin("cm5-32")
		if err != nil {
			t.Fatal(err)
		}
		pred := predictCached(t, k, m, Options{NoEmulation: true})
		noted := false
		for _, n := range pred.Notes {
			noted = noted || strings.Contains(n, "priced one by one")
		}
		if noted != tt.note {
			t.Errorf("n = %s: note about the limit %v, want %v: %q", tt.n, noted, tt.note, pred.Notes)
		}
	}
}
