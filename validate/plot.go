package validate

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"perfc/internal/units"
)

// groupColor tells the tuning cases (blue) from the held-out ones (red);
// a function, not a package-level map, so that nothing can change it.
func groupColor(group string) color.RGBA {
	if group == GroupTuning {
		return color.RGBA{0x1f, 0x77, 0xb4, 0xff}
	}
	return color.RGBA{0xd6, 0x27, 0x28, 0xff}
}

// SavePlot draws predicted against measured to path, SVG or PNG by its
// extension: log-log axes in seconds per run, the line y = x, the ±15 %
// band, and one point per compared case coloured by its group.
func (r *Report) SavePlot(path string) error {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".svg" && ext != ".png" {
		return fmt.Errorf("%s: the accuracy plot is drawn as .svg or .png; name the file so", path)
	}
	p, err := r.plot()
	if err != nil {
		return err
	}
	return p.Save(7*vg.Inch, 6*vg.Inch, path)
}

// bandShare is the half-width of the band the plot shades: ±15 %, the
// issue's target for 90 % of the cases.
const bandShare = 0.15

// plot builds the figure.
func (r *Report) plot() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("perfc validate: %s, %d cases", r.Machine, r.Summary.Compared)
	p.X.Label.Text = "measured time per run"
	p.Y.Label.Text = "predicted time per run"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = decadeTicks{}, decadeTicks{}
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(12), vg.Points(-12)

	points := map[string]plotter.XYs{}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, c := range r.Cases {
		if c.Failure != "" || c.Total == nil || !(c.Total.Measured > 0) || !(c.Total.Predicted > 0) {
			continue // a zero prediction has no place on log axes; the table lists it
		}
		points[c.Group] = append(points[c.Group], plotter.XY{X: c.Total.Measured, Y: c.Total.Predicted})
		lo = math.Min(lo, math.Min(c.Total.Measured, c.Total.Predicted))
		hi = math.Max(hi, math.Max(c.Total.Measured, c.Total.Predicted))
	}
	if math.IsInf(lo, 0) {
		lo, hi = 1e-6, 1 // no points: the axes still show the band
	}
	lo, hi = lo/2, hi*2
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, lo, hi

	band, err := plotter.NewPolygon(plotter.XYs{{X: lo, Y: lo * (1 - bandShare)}, {X: hi, Y: hi * (1 - bandShare)},
		{X: hi, Y: hi * (1 + bandShare)}, {X: lo, Y: lo * (1 + bandShare)}})
	if err != nil {
		return nil, err
	}
	band.Color, band.LineStyle.Width = color.RGBA{0xcc, 0xcc, 0xcc, 0xff}, 0
	p.Add(band)
	p.Legend.Add(fmt.Sprintf("within ±%.0f%%", bandShare*100), band)
	for _, f := range []float64{1 - bandShare, 1 + bandShare} {
		edge, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo * f}, {X: hi, Y: hi * f}})
		if err != nil {
			return nil, err
		}
		edge.Color, edge.Width, edge.Dashes = color.RGBA{0x88, 0x88, 0x88, 0xff}, vg.Points(0.7), []vg.Length{vg.Points(3), vg.Points(2)}
		p.Add(edge)
	}
	diag, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}})
	if err != nil {
		return nil, err
	}
	diag.Color, diag.Width = color.Black, vg.Points(1)
	p.Add(diag)
	p.Legend.Add("predicted = measured", diag)
	for _, g := range []string{GroupTuning, GroupHeldOut} {
		if len(points[g]) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(points[g])
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: groupColor(g), Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
		p.Add(sc)
		p.Legend.Add(fmt.Sprintf("%s (%d)", g, len(points[g])), sc)
	}
	return p, nil
}

// decadeTicks marks the powers of ten of a log axis of times, labelled
// in the unit a reader uses ("1 us", "10 ms"), with unlabelled minor
// ticks at 2 to 9 times each.
type decadeTicks struct{}

// Ticks returns the ticks between min and max.
func (decadeTicks) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(min)); e <= math.Ceil(math.Log10(max)); e++ {
		base := math.Pow(10, e)
		for m := 1.0; m < 10; m++ {
			v := m * base
			if v < min || v > max {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 {
				t.Label = units.Time(v)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}
