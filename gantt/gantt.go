// Package gantt draws an emulation's timeline as a Gantt chart (SVG or PNG):
// one row per rank, fed by the emulator's intervals (emulate.EmulateOptions.Observe).
// It keeps the plotting library out of pricing and emulation, which do not
// import it.
package gantt

import (
	"fmt"
	"image/color"
	"io"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"perfc/costmodel/emulate"
	"perfc/internal/units"
)

// Chart draws an emulation's timeline: one row per rank, computing,
// communicating and waiting in different colours, idle (finished) blank.
// It is fed interval by interval (Observe, for EmulateOptions.Observe) and
// keeps memory bounded whatever the number of events: a run of at most
// MaxRows ranks and MaxBars intervals is drawn exactly; a larger
// one is summarised, each row standing for a band of consecutive ranks and
// the time cut into Bins columns, each cell filled in proportion to
// the time the band spent computing, communicating and waiting in it. The
// chart says which it is.
type Chart struct {
	ranks    int64
	rows     int64 // rows drawn
	perRow   int64 // ranks per row
	bars     []ganttBar
	exact    bool
	width    float64               // time per bin, once binned
	cells    [][numClasses]float64 // rows × Bins, time per activity class
	horizon  float64               // the latest end seen
	coreWait bool                  // some rank waited for a core (the legend names it then)
}

// Chart limits: beyond MaxRows ranks, rows stand for bands of ranks;
// beyond MaxBars intervals the time is binned into Bins columns.
const (
	MaxRows = 64
	MaxBars = 20000
	Bins    = 400
)

// ganttClass is what a stretch of a row shows.
type ganttClass uint8

const (
	classCompute ganttClass = iota
	classComm
	classWait
	classCore  // ready, but every core taken (ranks sharing cores)
	numClasses // the number of classes
)

var (
	classNames  = [numClasses]string{"compute", "communication", "waiting", "waiting for a core"}
	classColors = [numClasses]color.Color{
		color.RGBA{R: 0x4c, G: 0x72, B: 0xb0, A: 0xff}, // blue
		color.RGBA{R: 0xdd, G: 0x84, B: 0x52, A: 0xff}, // orange
		color.RGBA{R: 0xd0, G: 0xd0, B: 0xd0, A: 0xff}, // light grey
		color.RGBA{R: 0xc4, G: 0x4e, B: 0x52, A: 0xff}, // red
	}
)

// ganttBar is one stretch of one row.
type ganttBar struct {
	row        int32
	class      ganttClass
	start, end float64
}

// New prepares a chart of a run on the given number of ranks.
func New(ranks int64) *Chart {
	g := &Chart{ranks: max(ranks, 1), exact: true}
	g.rows = min(g.ranks, MaxRows)
	g.perRow = ceilDiv(g.ranks, g.rows)
	g.rows = ceilDiv(g.ranks, g.perRow)
	g.exact = g.perRow == 1
	if !g.exact {
		g.startBins()
	}
	return g
}

// Observe adds one interval: waiting from Posted to Start (its last
// CoreWait for a core, when ranks share cores), then computing or
// communicating to End.
func (g *Chart) Observe(iv *emulate.Interval) {
	row := int32(iv.Rank / g.perRow)
	ready := iv.Start - max(0, min(iv.CoreWait, iv.Start-iv.Posted))
	if ready > iv.Posted {
		g.add(ganttBar{row: row, class: classWait, start: iv.Posted, end: ready})
	}
	if iv.Start > ready {
		g.coreWait = true
		g.add(ganttBar{row: row, class: classCore, start: ready, end: iv.Start})
	}
	if iv.End > iv.Start {
		class := classComm
		if iv.Kind == emulate.ActCompute {
			class = classCompute
		}
		g.add(ganttBar{row: row, class: class, start: iv.Start, end: iv.End})
	}
}

// add records a bar, exactly or in bins.
func (g *Chart) add(b ganttBar) {
	g.horizon = max(g.horizon, b.end)
	if g.exact {
		if len(g.bars) < MaxBars {
			g.bars = append(g.bars, b)
			return
		}
		g.startBins()
	}
	g.bin(b)
}

// startBins switches to the binned summary, moving the exact bars into
// bins.
func (g *Chart) startBins() {
	g.exact = false
	g.cells = make([][numClasses]float64, g.rows*Bins)
	g.width = 0
	bars := g.bars
	g.bars = nil
	for _, b := range bars {
		g.bin(b)
	}
}

// bin spreads a bar over the time bins it overlaps, coarsening the bins
// (merging them in pairs) whenever the bar ends beyond the last one.
func (g *Chart) bin(b ganttBar) {
	if g.width == 0 {
		if b.end <= 0 {
			return
		}
		g.width = b.end / (Bins / 4)
	}
	for b.end > g.width*Bins {
		g.coarsen()
	}
	first := int(b.start / g.width)
	last := min(int(b.end/g.width), Bins-1)
	row := g.cells[int(b.row)*Bins : (int(b.row)+1)*Bins]
	for i := first; i <= last; i++ {
		lo, hi := max(b.start, float64(i)*g.width), min(b.end, float64(i+1)*g.width)
		if hi > lo {
			row[i][b.class] += hi - lo
		}
	}
}

// coarsen doubles the bin width, merging neighbouring bins.
func (g *Chart) coarsen() {
	for r := range int(g.rows) {
		row := g.cells[r*Bins : (r+1)*Bins]
		for i := range Bins / 2 {
			a, b := row[2*i], row[2*i+1]
			for c := range a {
				row[i][c] = a[c] + b[c]
			}
		}
		clear(row[Bins/2:])
	}
	g.width *= 2
}

// Summarised reports whether the chart is a binned summary rather than
// the exact timeline.
func (g *Chart) Summarised() bool { return !g.exact }

// Save draws the chart to path, SVG or PNG by its extension.
func (g *Chart) Save(path, title string) error {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".svg" && ext != ".png" {
		return fmt.Errorf("%s: the chart is written as .svg or .png; name the file so", path)
	}
	p, w, h := g.plot(title)
	return p.Save(w, h, path)
}

// WriteTo draws the chart to w in the given format ("svg" or "png").
func (g *Chart) WriteTo(w io.Writer, format, title string) error {
	p, width, height := g.plot(title)
	c, err := p.WriterTo(width, height, format)
	if err != nil {
		return err
	}
	_, err = c.WriteTo(w)
	return err
}

// plot builds the chart and its size.
func (g *Chart) plot(title string) (*plot.Plot, vg.Length, vg.Length) {
	p := plot.New()
	scale, unit := timeScale(g.horizon)
	p.Title.Text = title
	if g.exact {
		p.Title.Text += fmt.Sprintf("\n%d ranks, every event", g.ranks)
	} else {
		what := fmt.Sprintf("%d ranks", g.ranks)
		if g.perRow > 1 {
			what += fmt.Sprintf(", each row a band of %d ranks", g.perRow)
		}
		p.Title.Text += fmt.Sprintf("\n%s; time in %d columns of %s, shaded by the share of each activity", what, Bins, formatDuration(g.width))
	}
	p.X.Label.Text = "time (" + unit + ")"
	p.X.Min, p.X.Max = 0, max(1.02*g.horizon*scale, 1e-12)
	// The legend sits in a band kept free above the first row.
	p.Y.Min, p.Y.Max = 0, float64(g.rows+legendRows)
	p.Y.Tick.Marker = rowTicks{rows: g.rows, perRow: g.perRow, ranks: g.ranks}
	p.Add(ganttPlotter{g: g, scale: scale})
	for c := range classNames {
		if ganttClass(c) == classCore && !g.coreWait {
			continue // every rank had a core of its own
		}
		p.Legend.Add(classNames[c], swatch{classColors[c]})
	}
	p.Legend.Top = true
	p.Legend.Left = false
	p.Legend.TextStyle.Font.Size = rowHeight
	height := vg.Length(1.6)*vg.Inch + vg.Length(g.rows+legendRows)*rowHeight
	return p, 10 * vg.Inch, height
}

// rowHeight is the height of one row of the chart; legendRows rows above
// the first are kept for the legend.
const (
	rowHeight  = vg.Length(11)
	legendRows = 4
)

// ganttPlotter draws the rows; row 0 (rank 0) is at the top.
type ganttPlotter struct {
	g     *Chart
	scale float64
}

// Plot draws every bar, or every cell of the summary.
func (gp ganttPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	x, y := p.Transforms(&c)
	g := gp.g
	// Binned cells overlap their neighbours by half a point, so that
	// anti-aliasing leaves no hairlines between them.
	var overlap vg.Length
	if !g.exact {
		overlap = 0.5
	}
	rect := func(row int64, lo, hi float64, top, bottom float64, clr color.Color) {
		y0 := float64(g.rows-1-row) + 0.1 + 0.8*bottom
		y1 := float64(g.rows-1-row) + 0.1 + 0.8*top
		x0, x1 := x(lo*gp.scale), x(hi*gp.scale)+overlap
		if x1-x0 < 0.3 {
			x1 = x0 + 0.3 // keep a short event visible
		}
		c.FillPolygon(clr, []vg.Point{{X: x0, Y: y(y0)}, {X: x1, Y: y(y0)}, {X: x1, Y: y(y1)}, {X: x0, Y: y(y1)}})
	}
	if g.exact {
		for _, b := range g.bars {
			rect(int64(b.row), b.start, b.end, 1, 0, classColors[b.class])
		}
		return
	}
	// A cell stacks its shares from the bottom: compute, communication,
	// waiting, each as tall as its share of the band's time in the cell.
	for r := range g.rows {
		n := min(g.perRow, g.ranks-r*g.perRow)
		capacity := g.width * float64(n)
		for i := range Bins {
			cell := g.cells[int(r)*Bins+i]
			lo, hi := float64(i)*g.width, float64(i+1)*g.width
			at := 0.0
			for cl := range cell {
				share := min(cell[cl]/capacity, 1-at)
				if share > 1e-3 {
					rect(r, lo, hi, at+share, at, classColors[cl])
				}
				at += share
			}
		}
	}
}

// DataRange is the chart's extent.
func (gp ganttPlotter) DataRange() (xmin, xmax, ymin, ymax float64) {
	return 0, gp.g.horizon * gp.scale, 0, float64(gp.g.rows)
}

// rowTicks labels rows with their ranks, thinning labels on tall charts.
type rowTicks struct{ rows, perRow, ranks int64 }

// Ticks returns one tick per labelled row.
func (rt rowTicks) Ticks(_, _ float64) []plot.Tick {
	every := int64(1)
	for rt.rows/every > 32 {
		every *= 2
	}
	var ticks []plot.Tick
	for r := int64(0); r < rt.rows; r++ {
		t := plot.Tick{Value: float64(rt.rows-1-r) + 0.5}
		if r%every == 0 {
			lo, hi := r*rt.perRow, min(rt.ranks, (r+1)*rt.perRow)-1
			t.Label = fmt.Sprintf("rank %d", lo)
			if hi > lo {
				t.Label = fmt.Sprintf("ranks %d-%d", lo, hi)
			}
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// swatch is a legend thumbnail: a filled square.
type swatch struct{ clr color.Color }

// Thumbnail fills the legend's thumbnail box.
func (s swatch) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	c.FillPolygon(s.clr, []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}})
}

// timeScale picks the unit for a time axis that reaches horizon seconds:
// the factor to multiply seconds by and the unit's name.
func timeScale(horizon float64) (float64, string) {
	switch {
	case horizon >= 1 || horizon == 0:
		return 1, "s"
	case horizon >= 1e-3:
		return 1e3, "ms"
	}
	return 1e6, "us"
}

// formatDuration writes a time in the unit a reader uses (units.Time).
func formatDuration(t float64) string { return units.Time(t) }

// ceilDiv is ⌈a/b⌉ for positive b.
func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }
