package costmodel

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"perfc/analyze"
	"perfc/costmodel/emulate"
	"perfc/examples"
	"perfc/machines"
)

// loadCores loads the test table whose ranks share two cores.
func loadCores(t *testing.T) *machines.Machine {
	t.Helper()
	m, err := machines.Load("testdata/cores.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRegionTableSharesCores checks that the region table scales a
// region's compute and memory time as the emulation gives for ranks that
// all compute it alike: P ranks on 2 cores, segments shorter and longer
// than a time slice; and that without sharing (P ≤ C) nothing changes.
func TestRegionTableSharesCores(t *testing.T) {
	const src = `kernel c(n = 1000, reps = 1) on P = 4 ranks {
  array a[n], b[n]: f64
  repeat reps {
    region "work" {
      for i in 0..n {
        a[i] = a[i] * b[i] + 1.0
      }
    }
    barrier
  }
}`
	m := loadCores(t)
	for _, tt := range []struct {
		p, n, reps int64
		factor     float64 // the scaling of the region's own time
	}{
		{2, 1000, 1, 1},
		{3, 1000, 1, 2},
		{4, 1000, 3, 2},
		{16, 1000, 5, 8},
		// 40 ms segments: a goroutine rank keeps its core until it waits
		// (no time slices), so still ⌈P/C⌉.
		{3, 40_000_000, 1, 2},
		{5, 40_000_000, 2, 3},
	} {
		name := fmt.Sprintf("P=%d n=%d reps=%d", tt.p, tt.n, tt.reps)
		t.Run(name, func(t *testing.T) {
			text := strings.Replace(src, "n = 1000, reps = 1) on P = 4", fmt.Sprintf("n = %d, reps = %d) on P = %d", tt.n, tt.reps, tt.p), 1)
			k := checkSource(t, "c.spmd", text)
			rep, err := analyze.Analyze(k, analyze.Options{Cache: m.CacheHierarchy()})
			if err != nil {
				t.Fatal(err)
			}
			own := classCosts(newOptionsPricer(m, k, Options{}), rep)[0].compute
			pred, err := Predict(k, rep, m, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var work RegionPrediction
			for _, r := range pred.Regions {
				if r.Name == "work" {
					work = r
				}
			}
			seg := own / float64(tt.reps)
			want := tt.factor
			if f := emulate.SharedMakespan(seg, tt.p, 2, math.Inf(1)) / seg; !sameTime(f, want) {
				t.Errorf("SharedMakespan gives %g × the segment, want %g", f, want)
			}
			if got := composeTime(m.Compose(), work.Compute, work.Memory); !sameTime(got, want*own) {
				t.Errorf("region time %g s, want %g × own %g s", got, want, own)
			}
			// The emulation of the same kernel, without the barriers' cost,
			// takes reps rounds of SharedMakespan.
			em, err := emulate.Emulate(k, freeCollectives{PricerFor(k, rep, m, Options{}).(*machinePricer)}, emulate.EmulateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !sameTime(em.Total, want*own) {
				t.Errorf("emulated %g s, region table %g s", em.Total, want*own)
			}
			// Each rank computes its own time, whatever it waits for a core.
			for _, r := range em.PerRank {
				if !sameTime(r.Compute, own) {
					t.Errorf("rank %d computes %g s, the region table's own time is %g s", r.Rank, r.Compute, own)
				}
			}
			hasTerm := false
			for _, term := range work.Terms {
				hasTerm = hasTerm || term.Resource == "cores"
			}
			if hasTerm != (want > 1) {
				t.Errorf("a waiting-for-a-core term: %v, want %v (%+v)", hasTerm, want > 1, work.Terms)
			}
		})
	}
}

// freeCollectives is a pricer whose collectives cost nothing, keeping its
// other methods (the optional interfaces too).
type freeCollectives struct{ *machinePricer }

func (freeCollectives) Collective(kind, op, elem string, bytes int64, participants int64) float64 {
	return 0
}

// TestCoresEveryExample emulates every example on the table whose ranks
// share two cores and checks what must hold whatever the kernel: each
// rank's time adds up (compute + communication + waiting + waiting for a
// core = its end), each rank computes what the region table charges its
// class on its own, and the critical path runs from 0 to the total
// without gaps or overlaps.
func TestCoresEveryExample(t *testing.T) {
	m := loadCores(t)
	for _, name := range examples.Names() {
		t.Run(name, func(t *testing.T) {
			k := loadKernel(t, "../examples/"+name+".spmd")
			if k.NumRanks() <= 2 {
				t.Skip("no more ranks than cores")
			}
			rep, err := analyze.Analyze(k, analyze.Options{Cache: m.CacheHierarchy()})
			if err != nil {
				t.Fatal(err)
			}
			costs := classCosts(newOptionsPricer(m, k, Options{}), rep)
			em, err := emulate.Emulate(k, PricerFor(k, rep, m, Options{}), emulate.EmulateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if em.Cores != 2 {
				t.Errorf("Emulation.Cores = %d, want 2", em.Cores)
			}
			for _, r := range em.PerRank {
				if sum := r.Compute + r.Comm + r.Wait + r.CoreWait; !sameTime(sum, r.End) && math.Abs(sum-r.End) > 1e-15 {
					t.Errorf("rank %d: %g + %g + %g + %g = %g, but it ends at %g", r.Rank, r.Compute, r.Comm, r.Wait, r.CoreWait, sum, r.End)
				}
				if r.Wait < -1e-12 || r.CoreWait < -1e-12 {
					t.Errorf("rank %d waits a negative time: %+v", r.Rank, r)
				}
				if own := costs[classIndex(t, rep, r.Rank)].compute; !sameTime(r.Compute, own) {
					t.Errorf("rank %d computes %g s, its class's regions %g s", r.Rank, r.Compute, own)
				}
			}
			if em.CriticalCut {
				return
			}
			at := 0.0
			for i, s := range em.Critical {
				if math.Abs(s.Start-at) > 1e-9*max(em.Total, 1e-9) {
					t.Fatalf("critical path step %d (%+v) starts at %g, the previous ended at %g", i, s, s.Start, at)
				}
				at = s.End
			}
			if tot := em.CriticalTotals; math.Abs(at-em.Total) > 1e-9*em.Total || !sameTime(tot.Compute+tot.Comm, em.Total) {
				t.Errorf("critical path ends at %g with totals %+v, total %g", at, tot, em.Total)
			}
		})
	}
}

// TestTimeSliceByBackend checks the time slice the pricer gives the
// emulator: none for goroutine ranks (a rank keeps its core until it
// waits), mpiTimeSlice for a table whose messages went through MPI
// (processes that the operating system slices).
func TestTimeSliceByBackend(t *testing.T) {
	data, err := os.ReadFile("testdata/cores.yaml")
	if err != nil {
		t.Fatal(err)
	}
	k := checkSource(t, "c.spmd", `kernel c() on P = 4 ranks {
  barrier
}`)
	for _, tt := range []struct {
		host string
		want float64
	}{
		{"", math.Inf(1)},
		{"host:\n  backend: mpi\n", mpiTimeSlice},
	} {
		m, err := machines.Parse("cores.yaml", append(slices.Clone(data), tt.host...))
		if err != nil {
			t.Fatal(err)
		}
		rep, err := analyze.Analyze(k, analyze.Options{})
		if err != nil {
			t.Fatal(err)
		}
		p := PricerFor(k, rep, m, Options{}).(*machinePricer)
		if got := p.TimeSlice(); got != tt.want {
			t.Errorf("host %q: TimeSlice() = %g, want %g", tt.host, got, tt.want)
		}
	}
}
