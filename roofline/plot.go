package roofline

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"perfc/internal/units"
	"perfc/lang"
)

// Save draws the roofline to path, SVG or PNG by its extension.
func (r *Roofline) Save(path string) error {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".svg" && ext != ".png" {
		return fmt.Errorf("%s: the roofline is drawn as .svg or .png; name the file so", path)
	}
	p, err := r.plot()
	if err != nil {
		return err
	}
	return p.Save(8*vg.Inch, 6*vg.Inch, path)
}

// WriteTo draws the roofline to w in the given format ("svg" or "png").
func (r *Roofline) WriteTo(w io.Writer, format string) error {
	p, err := r.plot()
	if err != nil {
		return err
	}
	c, err := p.WriterTo(8*vg.Inch, 6*vg.Inch, format)
	if err != nil {
		return err
	}
	_, err = c.WriteTo(w)
	return err
}

// ceilingColors and pointColors tell the lines and points apart.
var ceilingColors = []color.RGBA{{0x1f, 0x77, 0xb4, 0xff}, {0x2c, 0xa0, 0x2c, 0xff}, {0x94, 0x67, 0xbd, 0xff}, {0x8c, 0x56, 0x4b, 0xff}, {0x17, 0xbe, 0xcf, 0xff}}

// plot builds the figure: log-log axes, intensity in flop/B against Gflop/s.
func (r *Roofline) plot() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("roofline of %s on %s (prediction, ranks %s)", r.Kernel, r.Machine, r.Ranks)
	p.X.Label.Text = "arithmetic intensity (flop/B)"
	p.Y.Label.Text = "performance (Gflop/s)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}

	// The axes span the points and the ridge points, a decade around them.
	xmin, xmax := math.Inf(1), math.Inf(-1)
	ymin, ymax := math.Inf(1), math.Inf(-1)
	widen := func(x, y float64) {
		if x > 0 {
			xmin, xmax = min(xmin, x), max(xmax, x)
		}
		if y > 0 {
			ymin, ymax = min(ymin, y), max(ymax, y)
		}
	}
	for _, pt := range r.Points {
		if pt.Intensity > 0 && pt.Predicted > 0 {
			widen(pt.Intensity, pt.Predicted/1e9)
		}
	}
	if r.Peak != nil {
		widen(0, r.Peak.Peak/1e9)
		for _, c := range r.Ceilings {
			if c.BW > 0 {
				widen(r.Peak.Peak/c.BW, 0)
			}
		}
	}
	if math.IsInf(xmin, 1) {
		xmin, xmax = 0.01, 100
	}
	if math.IsInf(ymin, 1) {
		ymin, ymax = 0.01, 100
	}
	xmin, xmax = xmin/10, xmax*10
	for _, c := range r.Ceilings {
		if c.BW > 0 {
			widen(0, c.BW*xmin/1e9)
		}
	}
	ymin, ymax = ymin/2, ymax*2
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = xmin, xmax, ymin, ymax

	roof := func(x float64) float64 { return math.Inf(1) }
	if r.Peak != nil {
		peak := r.Peak.Peak / 1e9
		roof = func(float64) float64 { return peak }
		line, err := plotter.NewLine(plotter.XYs{{X: xmin, Y: peak}, {X: xmax, Y: peak}})
		if err != nil {
			return nil, err
		}
		line.Color, line.Width = color.Black, vg.Points(1.5)
		p.Add(line)
		if err := addLabel(p, xmin*1.1, peak*1.08, fmt.Sprintf("%s %s", r.Peak.Name, units.Rate(r.Peak.Peak)), color.Black); err != nil {
			return nil, err
		}
	}
	for i, c := range r.Ceilings {
		if c.BW <= 0 {
			continue
		}
		bw := c.BW / 1e9
		clr := ceilingColors[i%len(ceilingColors)]
		x1 := min(xmax, roof(0)/bw)
		line, err := plotter.NewLine(plotter.XYs{{X: xmin, Y: bw * xmin}, {X: x1, Y: bw * x1}})
		if err != nil {
			return nil, err
		}
		line.Color, line.Width, line.Dashes = clr, vg.Points(1.2), []vg.Length{vg.Points(5), vg.Points(3)}
		p.Add(line)
		if err := addLabel(p, xmin*1.1, bw*xmin*1.25, fmt.Sprintf("%s %s", c.Name, units.Bandwidth(c.BW)), clr); err != nil {
			return nil, err
		}
	}
	var xys plotter.XYs
	var names []string
	// Levels of a region at the same intensity (a stream that misses in
	// every level) share one point and one label.
	for _, pt := range r.Points {
		if pt.Intensity <= 0 || pt.Predicted <= 0 {
			continue
		}
		xy := plotter.XY{X: pt.Intensity, Y: pt.Predicted / 1e9}
		name := lang.Printable(pt.Region)
		if n := len(xys) - 1; n >= 0 && xys[n] == xy && strings.HasPrefix(names[n], name+" @ ") {
			names[n] += ", " + pt.Level
			continue
		}
		xys = append(xys, xy)
		names = append(names, name+" @ "+pt.Level)
	}
	if len(xys) > 0 {
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: color.RGBA{0xd6, 0x27, 0x28, 0xff}, Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}
		p.Add(sc)
		lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: names})
		if err != nil {
			return nil, err
		}
		for i := range lb.TextStyle {
			lb.TextStyle[i].Font.Size = vg.Points(8)
			lb.TextStyle[i].XAlign = draw.XLeft
		}
		lb.Offset = vg.Point{X: vg.Points(5), Y: vg.Points(-3)}
		p.Add(lb)
	}
	return p, nil
}

// addLabel writes a ceiling's name beside its line.
func addLabel(p *plot.Plot, x, y float64, text string, clr color.Color) error {
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: x, Y: y}}, Labels: []string{text}})
	if err != nil {
		return err
	}
	lb.TextStyle[0].Color = clr
	lb.TextStyle[0].Font.Size = vg.Points(8)
	lb.TextStyle[0].XAlign = draw.XLeft
	p.Add(lb)
	return nil
}
