package gantt

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"perfc/analyze"
	"perfc/costmodel/emulate"
	"perfc/lang"
	"perfc/parser"
)

// unitPricer is the step-counting machine of the LANL model: every message
// takes msg, every compute segment cpu, every collective coll.
type unitPricer struct {
	msg, cpu, coll float64
	eager          int64
}

func (u unitPricer) Compute(*analyze.Work) float64                       { return u.cpu }
func (u unitPricer) Message(_, _ int64, _ int64) float64                 { return u.msg }
func (u unitPricer) Collective(_, _, _ string, _ int64, _ int64) float64 { return u.coll }
func (u unitPricer) EagerLimit() int64                                   { return u.eager }
func (u unitPricer) Cluster() *emulate.Cluster                           { return nil }

// steps is the unit pricer: a message is one step, compute is free,
// sends are synchronous.
func steps() unitPricer { return unitPricer{msg: 1, coll: 1, eager: -1} }

// wave loads examples/wave.spmd on a px × py grid with n sweeps.
func wave(t testing.TB, px, py, n int64) *lang.Checked {
	t.Helper()
	const path = "../examples/wave.spmd"
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(filepath.Base(path), src)
	if err != nil {
		t.Fatal(err)
	}
	k, err := lang.Check(f, "", []lang.Override{{Name: "Px", Value: fmt.Sprint(px)}, {Name: "Py", Value: fmt.Sprint(py)}, {Name: "sweeps", Value: fmt.Sprint(n)}})
	if err != nil {
		t.Fatal(err.(lang.ErrorList).Format(f.Source))
	}
	return k
}

// ganttTotals sums the time a chart holds per activity class.
func ganttTotals(g *Chart) [numClasses]float64 {
	var tot [numClasses]float64
	if !g.Summarised() {
		for _, b := range g.bars {
			tot[b.class] += b.end - b.start
		}
		return tot
	}
	for _, c := range g.cells {
		for i := range c {
			tot[i] += c[i]
		}
	}
	return tot
}

// TestGanttKeepsTime checks that whatever the chart does to stay small —
// keep every bar, band the ranks, bin the time, coarsen the bins — it
// keeps the time each activity took.
func TestGanttKeepsTime(t *testing.T) {
	tests := []struct {
		name       string
		px, py, n  int64
		summarised bool
		cores      int // cores the ranks share; 0: each its own
	}{
		{"exact", 4, 3, 3, false, 0},
		{"banded", 16, 8, 3, true, 0},
		{"too many bars", 8, 8, 400, true, 0},
		{"ranks sharing cores", 4, 3, 3, false, 2},
		{"ranks sharing cores, banded", 16, 8, 3, true, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := wave(t, tt.px, tt.py, tt.n)
			g := New(k.NumRanks())
			var want [numClasses]float64
			observe := func(iv *emulate.Interval) {
				want[classWait] += iv.Start - iv.Posted - iv.CoreWait
				want[classCore] += iv.CoreWait
				if iv.Kind == emulate.ActCompute {
					want[classCompute] += iv.End - iv.Start
				} else {
					want[classComm] += iv.End - iv.Start
				}
				g.Observe(iv)
			}
			var p emulate.Pricer = unitPricer{msg: 1, cpu: 0.25, eager: -1}
			if tt.cores > 0 {
				p = sharedPricer{unitPricer{msg: 1, cpu: 0.25, eager: -1}, tt.cores}
			}
			if _, err := emulate.Emulate(k, p, emulate.EmulateOptions{Observe: observe}); err != nil {
				t.Fatal(err)
			}
			if tt.cores > 0 && want[classCore] == 0 {
				t.Error("no rank waited for a core: the case tests nothing")
			}
			if g.Summarised() != tt.summarised {
				t.Errorf("summarised %v, want %v", g.Summarised(), tt.summarised)
			}
			if diff := cmp.Diff(want, ganttTotals(g), cmpopts.EquateApprox(1e-9, 1e-9)); diff != "" {
				t.Errorf("time per class (compute, communication, waiting, for a core) (-emulation +chart):\n%s", diff)
			}
		})
	}
}

// sharedPricer is the unit pricer on ranks sharing cores.
type sharedPricer struct {
	unitPricer
	cores int
}

func (s sharedPricer) Cores() int          { return s.cores }
func (s sharedPricer) CoreSwitch() float64 { return 0.1 }
func (s sharedPricer) TimeSlice() float64  { return math.Inf(1) }

// TestGanttWrite checks the formats a chart is written in.
func TestGanttWrite(t *testing.T) {
	k := wave(t, 3, 2, 2)
	g := New(k.NumRanks())
	if _, err := emulate.Emulate(k, steps(), emulate.EmulateOptions{Observe: g.Observe}); err != nil {
		t.Fatal(err)
	}
	var svg, png bytes.Buffer
	if err := g.WriteTo(&svg, "svg", "wave"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(svg.String(), "<svg") || !strings.Contains(svg.String(), "rank 5") {
		t.Errorf("the SVG has no chart or no rank labels")
	}
	if err := g.WriteTo(&png, "png", "wave"); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png.Bytes(), []byte("\x89PNG")) {
		t.Errorf("the PNG does not start with the PNG signature")
	}
	err := g.Save(filepath.Join(t.TempDir(), "chart.pdf"), "wave")
	if err == nil || !strings.Contains(err.Error(), "chart.pdf: the chart is written as .svg or .png") {
		t.Errorf("saving as .pdf: got %v", err)
	}
	if err := g.Save(filepath.Join(t.TempDir(), "chart.svg"), "wave"); err != nil {
		t.Error(err)
	}
}
