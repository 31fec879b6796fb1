package costmodel

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// ganttTotals sums the time a chart holds per activity class.
func ganttTotals(g *Gantt) [3]float64 {
	var tot [3]float64
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
	}{
		{"exact", 4, 3, 3, false},
		{"banded", 16, 8, 3, true},
		{"too many bars", 8, 8, 400, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := wave(t, tt.px, tt.py, tt.n)
			g := NewGantt(k.NumRanks())
			var want [3]float64
			observe := func(iv *Interval) {
				want[classWait] += iv.Start - iv.Posted
				if iv.Kind == ActCompute {
					want[classCompute] += iv.End - iv.Start
				} else {
					want[classComm] += iv.End - iv.Start
				}
				g.Observe(iv)
			}
			if _, err := Emulate(k, unitPricer{msg: 1, cpu: 0.25, eager: -1}, EmulateOptions{Observe: observe}); err != nil {
				t.Fatal(err)
			}
			if g.Summarised() != tt.summarised {
				t.Errorf("summarised %v, want %v", g.Summarised(), tt.summarised)
			}
			if diff := cmp.Diff(want, ganttTotals(g), cmpopts.EquateApprox(1e-9, 1e-9)); diff != "" {
				t.Errorf("time per class (compute, communication, waiting) (-emulation +chart):\n%s", diff)
			}
		})
	}
}

// TestGanttWrite checks the formats a chart is written in.
func TestGanttWrite(t *testing.T) {
	k := wave(t, 3, 2, 2)
	g := NewGantt(k.NumRanks())
	if _, err := Emulate(k, steps(), EmulateOptions{Observe: g.Observe}); err != nil {
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
