package calibrate

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"perfc/calibrate/host"
)

// Plots draws every fit against its points into dir, each as PNG and
// SVG: the in-core fits (measured against fitted region times), the
// operation costs, the loop-length sweeps with RINF1's line, the
// working-set curve with the cache sizes marked, the IMH strides and,
// when measured, calibrate/comms's figures (pingpong time against bytes,
// the collectives). It returns the files.
func (r *Result) Plots(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	plots := []struct {
		name string
		draw func() (*plot.Plot, error)
	}{
		{"incore-fit", r.plotCoreFit},
		{"op-costs", r.plotOpCosts},
		{"loops", r.plotLoops},
		{"bandwidth", r.plotBandwidth},
		{"stride", r.plotStride},
	}
	var files []string
	for _, pl := range plots {
		p, err := pl.draw()
		if err != nil {
			return files, fmt.Errorf("plot %s: %w", pl.name, err)
		}
		for _, ext := range []string{".png", ".svg"} {
			path := filepath.Join(dir, pl.name+ext)
			if err := p.Save(8*vg.Inch, 5*vg.Inch, path); err != nil {
				return files, err
			}
			files = append(files, path)
		}
	}
	if r.Comms != nil {
		if err := r.Comms.Plot(dir); err != nil {
			return files, fmt.Errorf("plot comms: %w", err)
		}
		for _, name := range r.Comms.PlotNames() {
			files = append(files, filepath.Join(dir, name+".png"), filepath.Join(dir, name+".svg"))
		}
	}
	return files, nil
}

// palette tells series apart.
var palette = []color.RGBA{{0x1f, 0x77, 0xb4, 0xff}, {0xd6, 0x27, 0x28, 0xff}, {0x2c, 0xa0, 0x2c, 0xff}, {0x94, 0x67, 0xbd, 0xff}, {0xff, 0x7f, 0x0e, 0xff}, {0x8c, 0x56, 0x4b, 0xff}}

// scatter adds points in a colour with a legend entry.
func scatter(p *plot.Plot, name string, xys plotter.XYs, i int) error {
	s, err := plotter.NewScatter(xys)
	if err != nil {
		return err
	}
	s.GlyphStyle = draw.GlyphStyle{Color: palette[i%len(palette)], Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
	p.Add(s)
	p.Legend.Add(name, s)
	return nil
}

// line adds a line in a colour, dashed when asked, with a legend entry
// when name is not "".
func line(p *plot.Plot, name string, xys plotter.XYs, i int, dashed bool) error {
	l, err := plotter.NewLine(xys)
	if err != nil {
		return err
	}
	l.Color, l.Width = palette[i%len(palette)], vg.Points(1.2)
	if dashed {
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	}
	p.Add(l)
	if name != "" {
		p.Legend.Add(name, l)
	}
	return nil
}

// logAxes sets both axes to log scales.
func logAxes(p *plot.Plot) {
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
}

// plotCoreFit draws measured against fitted time of every in-core region
// (µs, log-log) with the line of perfect agreement.
func (r *Result) plotCoreFit() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("in-core fits on %s: region time, fitted against measured", r.Host.CPU)
	p.X.Label.Text, p.Y.Label.Text = "measured (µs)", "fitted (µs)"
	logAxes(p)
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, f := range []struct {
		name string
		pts  []point
		fit  []float64
		rms  float64
	}{
		{"throughput (loops, access, ops)", r.Core.tp, r.Core.throughput.Fitted, r.Core.throughput.RelRMS},
		{"latency (chains)", r.Core.lat, r.Core.latency.Fitted, r.Core.latency.RelRMS},
	} {
		var xys plotter.XYs
		zero := 0
		for j, pt := range f.pts {
			x, y := pt.seconds*1e6, f.fit[j]*1e6
			if y <= 0 {
				zero++ // no place on a log axis
				continue
			}
			xys = append(xys, plotter.XY{X: x, Y: y})
			lo, hi = math.Min(lo, math.Min(x, y)), math.Max(hi, math.Max(x, y))
		}
		name := fmt.Sprintf("%s, rms %s", f.name, pct(f.rms))
		if zero > 0 {
			name += fmt.Sprintf(" (%d fitted at 0 not drawn)", zero)
		}
		if len(xys) == 0 {
			continue
		}
		if err := scatter(p, name, xys, i); err != nil {
			return nil, err
		}
	}
	if lo > hi {
		return p, nil
	}
	return p, line(p, "measured = fitted", plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}}, 3, true)
}

// plotOpCosts draws the fitted cost of every operation per type, beyond
// the loop (throughput), and its latency, as bars (ns).
func (r *Result) plotOpCosts() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "operation costs: throughput beyond the loop (solid) and latency (light), ns"
	p.Y.Label.Text = "ns"
	w := vg.Points(5)
	labels := r.sz.ops
	k := 0
	for ti, t := range r.sz.elems {
		for _, which := range []string{"throughput", "latency"} {
			l := r.Core.throughput
			if which == "latency" {
				l = r.Core.latency
			}
			vals := make(plotter.Values, len(labels))
			for i, op := range labels {
				if v, ok := l.Coefficient(opFeature(op, t)); ok {
					vals[i] = v * 1e9
				}
			}
			b, err := plotter.NewBarChart(vals, w)
			if err != nil {
				return nil, err
			}
			c := palette[ti%len(palette)]
			if which == "latency" {
				c.A = 0x70
			}
			b.Color, b.LineStyle.Width = c, 0
			b.Offset = w * vg.Length(k-len(r.sz.elems))
			p.Add(b)
			p.Legend.Add(t+" "+which, b)
			k++
		}
	}
	p.NominalX(labels...)
	p.Legend.Top = true
	return p, nil
}

// plotLoops draws the time per loop entry against the loop length for the
// empty loop and RINF1, with the fitted lines t = (n + n½)/r∞.
func (r *Result) plotLoops() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "loop-length sweeps: time per loop entry, t = (n + n½)/r∞"
	p.X.Label.Text, p.Y.Label.Text = "loop length n", "ns per entry"
	logAxes(p)
	for i, g := range []string{groupLoop, groupRinf} {
		f := r.Core.loopRinf
		if g == groupRinf {
			f = r.Core.rinf1
		}
		var pts, fitted plotter.XYs
		for _, pt := range r.Core.tp {
			if pt.group == g {
				n := float64(pt.n)
				pts = append(pts, plotter.XY{X: n, Y: pt.seconds / float64(pt.reps) * 1e9})
				fitted = append(fitted, plotter.XY{X: n, Y: (n + f.NHalf) / f.Rinf * 1e9})
			}
		}
		name := map[string]string{groupLoop: "empty loop", groupRinf: "RINF1 A = B*C"}[g]
		if err := scatter(p, name, pts, i); err != nil {
			return nil, err
		}
		if err := line(p, fmt.Sprintf("fit: 1/r∞ %s, n½ %s", ns(1/f.Rinf), sig4(f.NHalf)), fitted, i, true); err != nil {
			return nil, err
		}
	}
	p.Legend.Top, p.Legend.Left = true, true
	return p, nil
}

// plotBandwidth draws the working-set curve: bytes streamed per second of
// each stream kind against the working set, the cache sizes as vertical
// lines and every level's fitted delivery rate over its plateau.
func (r *Result) plotBandwidth() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "working-set sweep: bytes loaded or stored per second (delivery rates dashed)"
	p.X.Label.Text, p.Y.Label.Text = "working set (bytes)", "GB/s"
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	ymax := 0.0
	for i, kind := range streamKinds() {
		if i == 3 {
			i = 5 // 3 and 4 draw the cache sizes and the rates
		}
		var xys plotter.XYs
		for _, c := range r.Memory.curve {
			if c.kind == kind {
				xys = append(xys, plotter.XY{X: float64(c.bytes), Y: c.rate / 1e9})
				ymax = math.Max(ymax, c.rate/1e9)
			}
		}
		if err := line(p, kind, xys, i, false); err != nil {
			return nil, err
		}
	}
	for _, lf := range r.Memory.levels {
		sizes := append([]int64(nil), lf.sizes...)
		sort.Slice(sizes, func(a, b int) bool { return sizes[a] < sizes[b] })
		xys := plotter.XYs{{X: float64(sizes[0]), Y: lf.bw / 1e9}, {X: float64(sizes[len(sizes)-1]), Y: lf.bw / 1e9}}
		if err := line(p, "", xys, 4, true); err != nil {
			return nil, err
		}
		ymax = math.Max(ymax, lf.bw/1e9)
	}
	for _, c := range r.Host.Caches {
		x := float64(c.Size)
		if err := line(p, "", plotter.XYs{{X: x, Y: 0}, {X: x, Y: ymax * 1.05}}, 3, true); err != nil {
			return nil, err
		}
		lb, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: x, Y: ymax * 1.05}}, Labels: []string{c.Name + " " + host.Bytes(int64(c.Size))}})
		if err != nil {
			return nil, err
		}
		p.Add(lb)
	}
	p.Y.Min = 0
	return p, nil
}

// plotStride draws the IMH benchmark: time per access and per line
// counted into L1 against the stride.
func (r *Result) plotStride() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "IMH strided read out of cache: cost against stride"
	p.X.Label.Text, p.Y.Label.Text = "stride (bytes)", "ns"
	logAxes(p)
	var acc, per plotter.XYs
	for _, s := range r.Memory.strides {
		acc = append(acc, plotter.XY{X: float64(s.strideBytes), Y: s.perAccess * 1e9})
		if s.perLine > 0 {
			per = append(per, plotter.XY{X: float64(s.strideBytes), Y: s.perLine * 1e9})
		}
	}
	if err := line(p, "per access", acc, 0, false); err != nil {
		return nil, err
	}
	if len(per) > 0 {
		if err := line(p, "per line counted into L1", per, 1, false); err != nil {
			return nil, err
		}
	}
	p.Legend.Top, p.Legend.Left = true, true
	return p, nil
}
