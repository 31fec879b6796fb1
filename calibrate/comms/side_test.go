package comms

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"perfc/calibrate/fit"
)

// side names the points of calibrations to compare (points.json files of
// TestRun), two groups separated by a semicolon, files by commas:
// -comms.side 'g1.json,g2.json;m1.json,m2.json'. TestSideBySide prints
// the table docs/mpi.md shows: each group's median over its runs.
var side = flag.String("comms.side", "", "TestSideBySide: two groups of points.json files, 'a,b;c,d'")

// TestSideBySide prints the goroutine and MPI backends' message costs side
// by side (docs/mpi.md): COMMS1 as one Hockney law over every length and
// as the table's ranges, and the medians of chosen benchmarks.
func TestSideBySide(t *testing.T) {
	if *side == "" {
		t.Skip("give -comms.side 'a.json,b.json;c.json,d.json'")
	}
	groups := strings.Split(*side, ";")
	if len(groups) != 2 {
		t.Fatalf("-comms.side %q: want two groups separated by ;", *side)
	}
	var med [2][]Point
	for i, g := range groups {
		var runs [][]Point
		for _, f := range strings.Split(g, ",") {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var pts []Point
			if err := json.Unmarshal(data, &pts); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			runs = append(runs, pts)
		}
		med[i] = medianPoints(runs)
	}
	var b strings.Builder
	row := func(name string, f func(pts []Point) string) {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", name, f(med[0]), f(med[1]))
	}
	b.WriteString("| | goroutine | MPI |\n|---|---|---|\n")
	one := func(pts []Point) (fit.Hockney, error) {
		n, tt := series(pts, Comms1, partition)
		return fit.FitHockney(n, tt)
	}
	row("COMMS1 one law, t0", func(pts []Point) string {
		h, err := one(pts)
		if err != nil {
			return err.Error()
		}
		return fmt.Sprintf("%s (rms %s)", fmtTime(h.T0), percent(h.RMS()))
	})
	row("COMMS1 one law, r∞", func(pts []Point) string {
		h, err := one(pts)
		if err != nil {
			return "-"
		}
		return fmtRate(h.Rinf)
	})
	row("COMMS1 ranges (t0, r∞)", func(pts []Point) string {
		r, err := Analyse(pts, 1, "")
		if err != nil || r.messagesErr != nil {
			return "-"
		}
		var parts []string
		for _, h := range r.messages.Laws {
			parts = append(parts, fmt.Sprintf("%s–%s: %s, %s", fmtBytes(h.From), fmtBytes(h.To), fmtTime(h.T0), fmtRate(h.Rinf)))
		}
		return strings.Join(parts, "; ")
	})
	pick := func(bench Bench, bytes float64, p int) func([]Point) string {
		return func(pts []Point) string {
			for _, x := range pts {
				if x.Bench == bench && x.Bytes == bytes && x.Ranks == p {
					return fmtTime(x.Time)
				}
			}
			return "-"
		}
	}
	for _, n := range []float64{8, 4 << 10, 64 << 10, 1 << 20, 4 << 20} {
		row(fmt.Sprintf("COMMS1 %s", fmtBytes(n)), pick(Comms1, n, 2))
	}
	for _, n := range []float64{8, 32 << 10, 1 << 20} {
		row(fmt.Sprintf("COMMS2 exchange %s", fmtBytes(n)), pick(Comms2, n, 2))
	}
	// The collectives: one row per kind and length, the rank counts
	// measured by both groups in each cell ("P=2 / P=4").
	var ranks []int
	for _, p := range []int{2, 4, 8, 16} {
		if pick(Synch1, 0, p)(med[0]) != "-" && pick(Synch1, 0, p)(med[1]) != "-" {
			ranks = append(ranks, p)
		}
	}
	perP := func(bench Bench, bytes float64) func([]Point) string {
		return func(pts []Point) string {
			var cells []string
			for _, p := range ranks {
				cells = append(cells, pick(bench, bytes, p)(pts))
			}
			return strings.Join(cells, " / ")
		}
	}
	ps := make([]string, len(ranks))
	for i, p := range ranks {
		ps[i] = fmt.Sprint(p)
	}
	at := "P = " + strings.Join(ps, " / ")
	row("SYNCH1 barrier, "+at, perP(Synch1, 0))
	for _, kind := range collectiveKinds {
		for _, n := range []float64{8, 32 << 10} {
			row(fmt.Sprintf("%s %s, %s", kind, fmtBytes(n), at), perP(Bench(kind), n))
		}
	}
	lines := strings.Split(b.String(), "\n")
	var kept []string
	for _, l := range lines { // rows measured by neither group (P=8 of a quick run) are left out
		if !strings.HasSuffix(l, "| - | - |") {
			kept = append(kept, l)
		}
	}
	t.Log("\n" + strings.Join(kept, "\n"))
}

// medianPoints is the median time of each benchmark over several runs
// (the points measured by every run).
func medianPoints(runs [][]Point) []Point {
	type key struct {
		b      Bench
		n      float64
		p      int
		blocks int64
	}
	times := map[key][]float64{}
	var order []key
	for _, pts := range runs {
		for _, x := range pts {
			k := key{x.Bench, x.Bytes, x.Ranks, x.Blocks}
			if _, ok := times[k]; !ok {
				order = append(order, k)
			}
			times[k] = append(times[k], x.Time)
		}
	}
	var out []Point
	for _, k := range order {
		ts := times[k]
		if len(ts) != len(runs) {
			continue
		}
		slices.Sort(ts)
		m := ts[len(ts)/2]
		if len(ts)%2 == 0 {
			m = (ts[len(ts)/2-1] + ts[len(ts)/2]) / 2
		}
		out = append(out, Point{Bench: k.b, Bytes: k.n, Ranks: k.p, Blocks: k.blocks, Time: m, Min: ts[0]})
	}
	return out
}

func TestMedianPoints(t *testing.T) {
	a := []Point{{Bench: Comms1, Bytes: 8, Ranks: 2, Time: 3}, {Bench: Synch1, Ranks: 4, Time: 1}}
	b := []Point{{Bench: Comms1, Bytes: 8, Ranks: 2, Time: 1}}
	c := []Point{{Bench: Comms1, Bytes: 8, Ranks: 2, Time: 2}}
	got := medianPoints([][]Point{a, b, c})
	if len(got) != 1 || got[0].Time != 2 || got[0].Min != 1 {
		t.Errorf("medianPoints = %+v, want COMMS1 8 B with median 2 and minimum 1 (SYNCH1 is not in every run)", got)
	}
	got = medianPoints([][]Point{a, b})
	if len(got) != 1 || got[0].Time != 2 {
		t.Errorf("medianPoints of two runs = %+v, want the mean of the middle two, 2", got)
	}
}
