package comms

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"perfc/calibrate/fit"
)

// Plot draws the fits against their points into dir, each as PNG and SVG:
// comms-pingpong (COMMS1 half round trip against bytes, log-log, with the
// fitted ranges and their boundaries), comms-exchange and comms-sendrecv
// (COMMS2's exchange and COMMS3's sendrecv on two ranks, the same way,
// when they were fitted; PlotNames lists them) and comms-collectives (one panel per
// kind: time against bytes per rank count with the formula; the barrier
// against P, with its formula when the table has it). Lengths of 0 B cannot stand on a log axis and are left out
// of the drawing (not of the fit).
func (r *Result) Plot(dir string) error {
	for _, l := range r.lawPlots() {
		pp, err := r.lawPlot(l)
		if err != nil {
			return err
		}
		if err := saveBoth(dir, l.name, 8*vg.Inch, 6*vg.Inch, func(dc draw.Canvas) { pp.Draw(dc) }); err != nil {
			return err
		}
	}
	grid, err := r.collectivePlots()
	if err != nil {
		return err
	}
	tiles := draw.Tiles{Rows: len(grid), Cols: len(grid[0]), PadX: vg.Millimeter, PadY: vg.Millimeter,
		PadTop: vg.Points(2), PadBottom: vg.Points(2), PadLeft: vg.Points(2), PadRight: vg.Points(2)}
	return saveBoth(dir, "comms-collectives", 12*vg.Inch, 11*vg.Inch, func(dc draw.Canvas) {
		canvases := plot.Align(grid, tiles, dc)
		for i := range grid {
			for j, p := range grid[i] {
				if p != nil {
					p.Draw(canvases[i][j])
				}
			}
		}
	})
}

// saveBoth draws into dir/name.png and dir/name.svg.
func saveBoth(dir, name string, w, h vg.Length, draw1 func(draw.Canvas)) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	png := vgimg.New(w, h)
	draw1(draw.New(png))
	if err := writeFile(filepath.Join(dir, name+".png"), vgimg.PngCanvas{Canvas: png}); err != nil {
		return err
	}
	svg := vgsvg.New(w, h)
	draw1(draw.New(svg))
	return writeFile(filepath.Join(dir, name+".svg"), svg)
}

// writeFile writes a canvas to a file and reports a failed close.
func writeFile(path string, c io.WriterTo) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// palette colours the series by rank count.
var palette = []color.RGBA{{0x1f, 0x77, 0xb4, 0xff}, {0xd6, 0x27, 0x28, 0xff}, {0x2c, 0xa0, 0x2c, 0xff}, {0x94, 0x67, 0xbd, 0xff}}

// logAxes makes both axes logarithmic.
func logAxes(p *plot.Plot) {
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
}

// lawFigure is one figure of a message law against its points.
type lawFigure struct {
	name  string // file name, without extension
	bench Bench  // the points, on two ranks
	title string
	yText string
	law   *fit.Piecewise
}

// lawPlots are the message laws Plot draws: COMMS1's always, COMMS2's
// exchange and COMMS3's sendrecv on two ranks when they were fitted.
func (r *Result) lawPlots() []lawFigure {
	out := []lawFigure{{"comms-pingpong", Comms1, "COMMS1 pingpong", "time of one message (us)", &r.messages}}
	if r.exchange != nil {
		out = append(out, lawFigure{"comms-exchange", Comms2, "COMMS2 exchange in place", "time of one exchange (us)", r.exchange})
	}
	if r.sendrecv != nil {
		out = append(out, lawFigure{"comms-sendrecv", Comms3, "COMMS3 sendrecv into another buffer", "time of one sendrecv (us)", r.sendrecv})
	}
	return out
}

// PlotNames are the files Plot writes, without their extensions (.png
// and .svg).
func (r *Result) PlotNames() []string {
	var out []string
	for _, l := range r.lawPlots() {
		out = append(out, l.name)
	}
	return append(out, "comms-collectives")
}

// lawPlot is a law's time against bytes with its piecewise fit and the
// boundaries of its ranges.
func (r *Result) lawPlot(l lawFigure) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s, P = 2, %s: %s", l.title, r.date, describePiecewise(*l.law))
	p.X.Label.Text = "message length (B)"
	p.Y.Label.Text = l.yText
	logAxes(p)
	n, t := series(r.points, l.bench, partition)
	var pts plotter.XYs
	for i := range n {
		if n[i] > 0 {
			pts = append(pts, plotter.XY{X: n[i], Y: t[i] * 1e6})
		}
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("plot: no %s lengths above 0 B", l.title)
	}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, err
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: palette[0], Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
	p.Add(sc)
	p.Legend.Add("measured (median)", sc)
	line, err := plotter.NewLine(curve(pts[0].X, pts[len(pts)-1].X, func(x float64) float64 { return l.law.Time(x) * 1e6 }))
	if err != nil {
		return nil, err
	}
	line.Color, line.Width = palette[1], vg.Points(1.2)
	p.Add(line)
	p.Legend.Add("Hockney ranges", line)
	for _, b := range l.law.Below {
		v, err := plotter.NewLine(plotter.XYs{{X: b, Y: pts[0].Y / 2}, {X: b, Y: pts[len(pts)-1].Y * 2}})
		if err != nil {
			return nil, err
		}
		v.Color, v.Dashes = color.Gray{0x90}, []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(v)
	}
	p.Legend.Top, p.Legend.Left = true, true
	return p, nil
}

// curve samples f at 200 points evenly in log between lo and hi.
func curve(lo, hi float64, f func(float64) float64) plotter.XYs {
	var out plotter.XYs
	for i := range 200 {
		x := lo * math.Pow(hi/lo, float64(i)/199)
		out = append(out, plotter.XY{X: x, Y: f(x)})
	}
	return out
}

// collectivePlots is a 3 × 3 grid of panels, one per kind.
func (r *Result) collectivePlots() ([][]*plot.Plot, error) {
	grid := make([][]*plot.Plot, 3)
	for i := range grid {
		grid[i] = make([]*plot.Plot, 3)
	}
	for i, kind := range CollectiveKinds() {
		cf, ok := r.colls[kind]
		if !ok {
			continue
		}
		p, err := r.collectivePlot(kind, cf)
		if err != nil {
			return nil, err
		}
		grid[i/3][i%3] = p
	}
	return grid, nil
}

// collectivePlot is one kind's panel: points and formula per rank count
// against bytes; the barrier's against P.
func (r *Result) collectivePlot(kind string, cf collFit) (*plot.Plot, error) {
	p := plot.New()
	how := "rms " + percent(cf.formula.RMS())
	switch {
	case !cf.fits && kind == "barrier":
		how = "measured points"
	case !cf.fits:
		how += ", misses 10 %"
	}
	p.Title.Text = fmt.Sprintf("%s (%s)", kind, how)
	p.Y.Label.Text = "time (us)"
	logAxes(p)
	ranks := pointRanks(cf.points)
	if kind == "barrier" {
		p.X.Label.Text = "ranks P"
		p.X.Scale, p.X.Tick.Marker = plot.LinearScale{}, plot.DefaultTicks{}
		p.Y.Scale, p.Y.Tick.Marker = plot.LinearScale{}, plot.DefaultTicks{}
		p.Y.Min = 0
		p.Legend.Top, p.Legend.Left = true, true
		var pts plotter.XYs
		for _, pt := range cf.points {
			pts = append(pts, plotter.XY{X: float64(pt.Ranks), Y: pt.Time * 1e6})
		}
		return p, addSeries(p, pts, 0, "SYNCH1", func(x float64) float64 { return cf.formula.at(0, x) * 1e6 }, cf.fits, backToBack)
	}
	p.X.Label.Text = "bytes"
	for i, rk := range ranks {
		var pts plotter.XYs
		for _, pt := range cf.points {
			if pt.Ranks == rk && pt.Bytes > 0 {
				pts = append(pts, plotter.XY{X: pt.Bytes, Y: pt.Time * 1e6})
			}
		}
		if err := addSeries(p, pts, i, fmt.Sprintf("P=%d", rk), func(x float64) float64 { return cf.formula.Time(x, rk) * 1e6 }, true, backToBack); err != nil {
			return nil, err
		}
	}
	if err := r.afterBarrierSeries(p, kind, ranks); err != nil {
		return nil, err
	}
	p.Legend.Top, p.Legend.Left = true, true
	return p, nil
}

// afterBarrierSeries adds to a kind's panel its calls timed right after a
// barrier (the table's after_barrier:), per rank count in that count's
// colour: hollow triangles, and the formula's curve dashed when one fits
// them within the tolerance (the table then has it; otherwise it has the
// measured points).
func (r *Result) afterBarrierSeries(p *plot.Plot, kind string, ranks []int) error {
	cf, ok := r.colls[string(AfterBarrier(kind))]
	if !ok {
		return nil
	}
	for i, rk := range ranks {
		var pts plotter.XYs
		for _, pt := range cf.points {
			if pt.Ranks == rk && pt.Bytes > 0 {
				pts = append(pts, plotter.XY{X: pt.Bytes, Y: pt.Time * 1e6})
			}
		}
		if err := addSeries(p, pts, i, fmt.Sprintf("P=%d after a barrier", rk), func(x float64) float64 { return cf.formula.Time(x, rk) * 1e6 }, cf.fits, afterBarrier); err != nil {
			return err
		}
	}
	return nil
}

// seriesStyle is how a series' points and curve are drawn.
type seriesStyle struct {
	shape  draw.GlyphDrawer
	radius vg.Length
	dashes []vg.Length // the curve's; none: solid
}

// The styles of the collectives' series: calls back to back, and right
// after a barrier.
var (
	backToBack   = seriesStyle{shape: draw.CircleGlyph{}, radius: vg.Points(2.5)}
	afterBarrier = seriesStyle{shape: draw.TriangleGlyph{}, radius: vg.Points(3), dashes: []vg.Length{vg.Points(3), vg.Points(2)}}
)

// addSeries draws points and, when the formula is the table's (withCurve),
// its curve, in the i-th colour and the given style.
func addSeries(p *plot.Plot, pts plotter.XYs, i int, name string, f func(float64) float64, withCurve bool, style seriesStyle) error {
	if len(pts) == 0 {
		return nil
	}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	clr := palette[i%len(palette)]
	sc.GlyphStyle = draw.GlyphStyle{Color: clr, Radius: style.radius, Shape: style.shape}
	p.Add(sc)
	p.Legend.Add(name, sc)
	if !withCurve || len(pts) < 2 {
		return nil
	}
	lo, hi := pts[0].X, pts[0].X
	for _, q := range pts {
		lo, hi = min(lo, q.X), max(hi, q.X)
	}
	line, err := plotter.NewLine(curve(lo, hi, f))
	if err != nil {
		return err
	}
	line.Color, line.Dashes = clr, style.dashes
	p.Add(line)
	return nil
}
