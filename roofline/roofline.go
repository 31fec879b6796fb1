// Package roofline puts a prediction on a roofline: each region's
// arithmetic intensity per memory level (nominal flop per byte of the cache
// lines the analytic model counts), its predicted rate, and the machine
// table's ceilings (peak rate, the bandwidth of each level), as a table
// and, drawn with gonum/plot, as the log-log figure Kerncraft's and
// likwid's users draw by hand (docs/roofline.md). Pricing (costmodel) does
// not import the plotting library; this package does, as gantt does.
package roofline

import (
	"fmt"
	"math"

	"perfc/analyze"
	"perfc/costmodel"
	"perfc/internal/units"
	"perfc/machines"
)

// Schema names the JSON format of a Roofline.
const Schema = "perfc.roofline/v1"

// MainLevel is the name of the main-memory level.
const MainLevel = "memory"

// Ceiling is one roof of the figure: the peak rate (flat) or a level's
// bandwidth (sloped: bandwidth × intensity).
type Ceiling struct {
	Name   string  `json:"name"`                // "peak f64", "L1 bandwidth", "memory bandwidth"
	Level  string  `json:"level,omitempty"`     // the memory level of a bandwidth
	Peak   float64 `json:"peak,omitempty"`      // flop/s, for the peak
	BW     float64 `json:"bandwidth,omitempty"` // B/s, for a bandwidth
	Source string  `json:"source,omitempty"`
}

// Point is one region at one memory level.
type Point struct {
	Region    string  `json:"region"`
	Level     string  `json:"level"`
	Flop      float64 `json:"flop"`      // nominal flop of one rank of the slowest class
	Bytes     float64 `json:"bytes"`     // (lines in + lines written back) × line size
	Intensity float64 `json:"intensity"` // flop/B; 0 when Bytes is 0
	Time      float64 `json:"time"`      // the region's predicted time, s
	Predicted float64 `json:"predicted"` // flop / time, flop/s
	// Bound is min(peak, bandwidth × intensity), flop/s, and BoundBy names
	// the ceiling that gives it; Bound is 0 and BoundBy says why when the
	// table gives neither ceiling.
	Bound   float64 `json:"bound"`
	BoundBy string  `json:"bound_by"`
}

// Roofline is a kernel's regions against a machine's ceilings.
type Roofline struct {
	Schema   string    `json:"schema"`
	Kernel   string    `json:"kernel"`
	File     string    `json:"file"`
	Machine  string    `json:"machine"`
	Ranks    string    `json:"ranks"` // the slowest class, whose counts and times are shown
	Peak     *Ceiling  `json:"peak"`  // nil when the table gives no peak rate
	Ceilings []Ceiling `json:"ceilings"`
	Points   []Point   `json:"points"`
	Notes    []string  `json:"notes,omitempty"`
}

// noPeak and noBandwidth say that a ceiling is missing.
const (
	noPeak      = "no ceiling: the table gives no peak rate"
	noBandwidth = "no ceiling: the table gives no bandwidth"
)

// Build places the regions of the slowest rank class of pred (predicted
// from rep on m) on m's roofline. rep must be analysed with
// m.CacheHierarchy() for the cache levels to have traffic; without a
// hierarchy the only level is main memory, whose traffic is then the bytes
// loaded and stored.
func Build(rep *analyze.Report, pred *costmodel.Prediction, m *machines.Machine) (*Roofline, error) {
	var cl *analyze.Class
	for _, c := range rep.Classes {
		if c.Rank == pred.Slowest.Rank {
			cl = c
		}
	}
	if cl == nil {
		return nil, fmt.Errorf("roofline: the report has no class of rank %d, the prediction's slowest", pred.Slowest.Rank)
	}
	r := &Roofline{Schema: Schema, Kernel: pred.Kernel, File: pred.File, Machine: pred.Machine, Ranks: pred.Slowest.Ranks}
	caches := m.Memory().Caches()
	if len(m.CacheHierarchy()) == 0 {
		caches = nil
	}
	for _, c := range caches {
		ce := Ceiling{Name: c.Name + " bandwidth", Level: c.Name}
		if c.Bandwidth.Value > 0 {
			ce.BW, ce.Source = c.Bandwidth.Value, c.Bandwidth.Source
		}
		r.Ceilings = append(r.Ceilings, ce)
	}
	mainCe := Ceiling{Name: MainLevel + " bandwidth", Level: MainLevel}
	if bw, ok := m.Memory().MainBandwidth(); ok && bw.Value > 0 {
		mainCe.BW, mainCe.Source = bw.Value, bw.Source
	}
	r.Ceilings = append(r.Ceilings, mainCe)
	times := map[string]float64{}
	for _, rp := range pred.Regions {
		times[rp.Name] = rp.Time
	}
	for _, reg := range cl.Regions {
		flop := reg.Counts.Flop.Float()
		if flop == 0 {
			if t := times[reg.Name]; t > 0 {
				r.Notes = append(r.Notes, fmt.Sprintf("region %s does no floating-point work: it has no place on a roofline", reg.Name))
			}
			continue
		}
		if r.Peak == nil {
			r.Peak = peakOf(m, reg.Counts)
		}
		t := times[reg.Name]
		var perf float64
		if t > 0 {
			perf = flop / t
		}
		lines := map[string]analyze.CacheLines{}
		for _, cl := range reg.Counts.Cache {
			lines[cl.Level] = cl
		}
		var last float64
		for i, c := range caches {
			l := lines[c.Name]
			bytes := (l.Lines.Float() + l.WriteBacks.Float()) * float64(c.Line)
			r.Points = append(r.Points, r.point(reg.Name, c.Name, flop, bytes, t, perf, r.ceilingOf(m, i)))
			last = bytes
		}
		if caches == nil {
			last = reg.Counts.LoadBytes.Float() + reg.Counts.StoreBytes.Float()
		}
		r.Points = append(r.Points, r.point(reg.Name, MainLevel, flop, last, t, perf, mainCe))
	}
	if r.Peak == nil {
		r.Peak = peakOf(m, analyze.Counts{})
	}
	if len(r.Points) == 0 {
		r.Notes = append(r.Notes, "no region does floating-point work: there is nothing to place on the roofline")
	}
	for _, p := range r.Points {
		if p.Bound > 0 && p.Predicted > p.Bound*(1+1e-9) {
			r.Notes = append(r.Notes, fmt.Sprintf("region %s at %s: the predicted %s is above its ceiling %s (%s): the prediction does not charge this traffic at this bandwidth (costmodel prices each cache level's lines at that level's bandwidth, and main bandwidth only where no cache level is priced)",
				p.Region, p.Level, units.Rate(p.Predicted), units.Rate(p.Bound), p.BoundBy))
		}
	}
	if r.Peak == nil {
		r.Notes = append(r.Notes, "the table gives no peak rate: no flat ceiling")
	}
	if caches == nil {
		r.Notes = append(r.Notes, "the table gives no caches: main-memory traffic is the bytes loaded and stored")
	}
	return r, nil
}

// ceilingOf is the bandwidth ceiling of the traffic of cache level i: the
// level's own bandwidth, or, with compose: ecm, where a level's bandwidth
// is the rate at which it delivers lines to the level above it
// (docs/predict.md), the next level's (main memory's after the last).
func (r *Roofline) ceilingOf(m *machines.Machine, i int) Ceiling {
	if m.Compose() == machines.ComposeECM {
		i++
	}
	return r.Ceilings[i] // the caches' ceilings, then main memory's
}

// peakOf is the table's peak rate for the floating-point type that does
// most of a region's operations (f64 if none), or its register rate.
func peakOf(m *machines.Machine, c analyze.Counts) *Ceiling {
	n := map[string]float64{}
	for _, o := range c.Ops {
		n[string(o.Type)] += o.Count.Float()
	}
	elem := "f64"
	if n["f32"] > n["f64"] {
		elem = "f32"
	}
	if p, ok := m.Compute().Peak(elem); ok && p.Value > 0 {
		return &Ceiling{Name: "peak " + elem, Peak: p.Value, Source: p.Source}
	}
	if p, ok := m.Compute().RegisterMaddRate(); ok && p.Value > 0 {
		return &Ceiling{Name: "register multiply-add rate", Peak: p.Value, Source: p.Source}
	}
	if p, ok := m.Compute().RegisterRate(); ok && p.Value > 0 {
		return &Ceiling{Name: "register rate", Peak: p.Value, Source: p.Source}
	}
	return nil
}

// point is one region at one level with the ceiling that bounds it.
func (r *Roofline) point(region, level string, flop, bytes, t, perf float64, bw Ceiling) Point {
	p := Point{Region: region, Level: level, Flop: flop, Bytes: bytes, Time: t, Predicted: perf}
	if bytes > 0 {
		p.Intensity = flop / bytes
	}
	bound, by := math.Inf(1), ""
	if r.Peak != nil {
		bound, by = r.Peak.Peak, r.Peak.Name
	}
	if bw.BW > 0 && bytes > 0 && bw.BW*p.Intensity < bound {
		bound, by = bw.BW*p.Intensity, bw.Name
	}
	switch {
	case math.IsInf(bound, 1) && bw.BW == 0:
		p.BoundBy = noPeak + "; " + noBandwidth + " for " + level
	case math.IsInf(bound, 1):
		p.BoundBy = noPeak + "; no traffic at " + level
	default:
		p.Bound, p.BoundBy = bound, by
		if bw.BW == 0 {
			p.BoundBy += " (" + noBandwidth + " for " + level + ")"
		}
	}
	return p
}
