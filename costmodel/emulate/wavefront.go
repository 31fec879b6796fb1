package emulate

import (
	"fmt"
	"slices"

	"perfc/analyze"
	"perfc/internal/jsonwalk"
	"perfc/lang"
)

// Wavefront is the LANL wavefront analysis of a kernel ([002] Sec. 2–3,
// L66-205): the pipeline of the MPP model, eqs. (1)–(4), priced with
// the machine and set beside the emulated time, and on a cluster of SMP
// nodes the paper's printed cluster formulas (5)–(18) checked against a
// step emulation of the paper's own rules. Everything in it is a
// prediction; the emulation is the ground truth the formulas are held to.
type Wavefront struct {
	Px     int64 `json:"px"`
	Py     int64 `json:"py"`
	Sweeps int64 `json:"sweeps"` // N_sweep: waves through the grid
	// Corners is the number of distinct corners the sweeps start from; the
	// closed forms assume one.
	Corners int64 `json:"corners"`
	// Pipeline depth (N_s) and repetition delay (d) of eq. (1) for
	// computation and communication.
	DepthComp int64 `json:"depth_comp"` // Px + Py − 1 diagonals
	DepthComm int64 `json:"depth_comm"` // 2(Px + Py − 2) message steps
	DelayComp int64 `json:"delay_comp"` // 1
	DelayComm int64 `json:"delay_comm"` // 4
	// T_cpu is one wave's compute on an interior rank (priced); T_msg one
	// message, eq. (4) (priced, inside a node).
	Tcpu float64 `json:"tcpu_s"`
	Tmsg float64 `json:"tmsg_s"`
	// Eq. (2) and (3) and their sum; the paper prints no total.
	TComp      float64 `json:"tcomp_s"`
	TComm      float64 `json:"tcomm_s"`
	ClosedForm float64 `json:"closed_form_s"`
	Emulated   float64 `json:"emulated_s"`
	// Cluster is the cluster analysis, nil on a flat machine.
	Cluster *ClusterWave `json:"cluster,omitempty"`
	Notes   []string     `json:"notes,omitempty"`
}

// ClusterWave checks the LANL cluster-of-SMPs model ([002] §3) against a
// step emulation: every message one step, compute free, the machine's
// nodes and links.
type ClusterWave struct {
	Sx int64 `json:"sx"`
	Sy int64 `json:"sy"`
	Lx int64 `json:"lx"`
	Ly int64 `json:"ly"`
	L  int64 `json:"l"` // min(Lx, Ly)
	M  int64 `json:"m"` // nodes in x
	N  int64 `json:"n"` // nodes in y
	// Collide: in the step emulation some message waited for a link.
	Collide   bool  `json:"collide"`
	LinkWaits int64 `json:"link_waits"`
	// The paper's conditions: (7) S_x ≥ 2L, collisions occur; (10) as
	// printed, S_x ≥ 4L + 1; and its general form max(S_x, S_y) > 4L + 1.
	Eq7         bool `json:"eq7"`
	Eq10        bool `json:"eq10"`
	Eq10General bool `json:"eq10_general"`
	// Steps per wave I = 1, 2, …: when rank (S_x, S_y) has received wave I
	// (S_1 of eqs. 6–15) and when the last rank has (eqs. 16–18), emulated
	// and by the printed formulas.
	Waves []WaveSteps `json:"waves"`
	// Checks says, formula by formula, whether it agrees with the
	// emulation for every wave.
	Checks []FormulaCheck `json:"checks"`
	// Repetition delays in steps: at the first y boundary link and at the
	// source (rank 0), wave to wave; the steady-state cycle at the
	// boundary; how many waves the source takes to follow it (Transitional,
	// −1 if it does not within the run) against the paper's
	// min(S_x, S_y) + 1 groups of L waves.
	BoundaryDelays    []int64 `json:"boundary_delays"`
	SourceDelays      []int64 `json:"source_delays"`
	SteadyCycle       []int64 `json:"steady_cycle,omitempty"`
	Transitional      int64   `json:"transitional_waves"`
	TransitionalPaper int64   `json:"transitional_groups_paper"`
}

// WaveSteps is one wave of the step emulation and the printed formulas.
type WaveSteps struct {
	Wave      int64  `json:"wave"`
	S1        int64  `json:"s1"`         // emulated: rank (S_x, S_y) has received the wave
	Eq12      int64  `json:"eq12"`       // 2S_y + 2S_x + 4(I−1) + ⌊(I−1)/L⌋
	Printed   int64  `json:"printed"`    // the case split with condition (10) as printed: (6), (8), (11), (12), or (14), (15)
	PrintedEq string `json:"printed_eq"` // which equation Printed used
	General   int64  `json:"general"`    // the case split with the general condition and max(S_x, S_y)
	Scan      int64  `json:"scan"`       // emulated: the last rank has received the wave
	Eq16      int64  `json:"eq16"`       // (16), or (17)/(18) on one row or column of nodes, with S_I from (12)
	Eq16Split int64  `json:"eq16_split"` // the same with S_I from the general case split
}

// FormulaCheck says whether a printed formula agrees with the emulation.
type FormulaCheck struct {
	Formula string `json:"formula"`
	Agrees  bool   `json:"agrees"`
	Waves   int64  `json:"waves"`           // waves compared
	First   int64  `json:"first,omitempty"` // the first wave where it disagrees
	Got     int64  `json:"emulated,omitempty"`
	Want    int64  `json:"formula_value,omitempty"`
}

// wavePattern is one wave as an interior rank sees it: receives from one x
// and one y neighbour, compute, sends to the opposite neighbours.
type wavePattern struct {
	dx, dy int64 // the direction the wave travels
	cpu    float64
	msg    float64
}

// AnalyzeWavefront looks for a pipelined wavefront in k — a loop of
// receive from an x and a y neighbour, compute, send to the opposite
// neighbours on a grid — and returns its analysis, or nil when the kernel
// is not one. em is the kernel's emulation with p (Emulate is run when it
// is nil).
func AnalyzeWavefront(k *lang.Checked, p Pricer, em *Emulation) (*Wavefront, error) {
	px, py, ok := k.Grid()
	if !ok || px < 2 || py < 2 {
		return nil, nil
	}
	waves, err := samplePattern(k, p, px, py)
	if err != nil || waves == nil {
		return nil, err
	}
	if em == nil {
		if em, err = Emulate(k, p, EmulateOptions{}); err != nil {
			return nil, err
		}
	}
	wf := &Wavefront{Px: px, Py: py, Sweeps: int64(len(waves)), DelayComp: 1, DelayComm: 4, Emulated: em.Total}
	corners := map[[2]int64]bool{}
	for _, w := range waves {
		corners[[2]int64{w.dx, w.dy}] = true
		wf.Tcpu += w.cpu
		wf.Tmsg += w.msg
	}
	wf.Corners = int64(len(corners))
	n := wf.Sweeps
	wf.Tcpu /= float64(n)
	wf.Tmsg /= float64(n)
	wf.DepthComp, wf.DepthComm = px+py-1, 2*(px+py-2)
	wf.TComp = float64(wf.DepthComp+n-1) * wf.Tcpu
	wf.TComm = float64(wf.DepthComm+4*(n-1)) * wf.Tmsg
	wf.ClosedForm = wf.TComp + wf.TComm
	if wf.Corners > 1 {
		wf.Notes = append(wf.Notes, fmt.Sprintf("the sweeps start from %d corners; eqs. (2) and (3) assume one, so the closed form leaves out the pipeline refills between directions", wf.Corners))
	}
	wf.Notes = append(wf.Notes, "eqs. (2) and (3) are printed separately; the closed form adds them, as if no message overlapped computation")
	if c := p.Cluster(); c != nil {
		cw, note, err := clusterWave(k, c, px, py, n, corners)
		if err != nil {
			return nil, err
		}
		wf.Cluster = cw
		if note != "" {
			wf.Notes = append(wf.Notes, note)
		}
	}
	if err := jsonwalk.CheckFinite("the wavefront analysis of kernel "+k.Kernel.Name.Name, wf); err != nil {
		return nil, err
	}
	return wf, nil
}

// samplePattern expands the schedule of a rank in the middle of the grid
// and splits it into waves; nil when it is not a wavefront.
func samplePattern(k *lang.Checked, p Pricer, px, py int64) ([]wavePattern, error) {
	rx, ry := px/2, py/2
	r := ry*px + rx
	s, err := newSchedule(k, p, r)
	if err != nil {
		return nil, err
	}
	c := s.Cursor()
	var waves []wavePattern
	var cur wavePattern
	var recvs, sends int
	offset := func(peer int64) (int64, int64) { return peer%px - rx, peer/px - ry }
	for {
		ev, err := c.Next()
		if err != nil {
			return nil, err
		}
		if ev == nil {
			break
		}
		switch ev.Kind {
		case analyze.EvCompute:
			if recvs == 2 && sends == 0 {
				cur.cpu += computeCost(p, r, ev.Work)
			}
			continue
		case analyze.EvRecv:
			if sends != 0 || recvs == 2 || ev.Peer < 0 {
				return nil, nil
			}
			dx, dy := offset(ev.Peer)
			if recvs == 0 && (dy != 0 || (dx != 1 && dx != -1)) || recvs == 1 && (dx != 0 || (dy != 1 && dy != -1)) {
				return nil, nil
			}
			if recvs == 0 {
				cur.dx = -dx
			} else {
				cur.dy = -dy
			}
			recvs++
		case analyze.EvSend:
			if recvs != 2 || ev.Peer < 0 {
				return nil, nil
			}
			dx, dy := offset(ev.Peer)
			if sends == 0 && (dx != cur.dx || dy != 0) || sends == 1 && (dx != 0 || dy != cur.dy) {
				return nil, nil
			}
			cur.msg += p.Message(r, ev.Peer, ev.Bytes) / 2
			sends++
			if sends == 2 {
				waves = append(waves, cur)
				cur, recvs, sends = wavePattern{}, 0, 0
			}
		default:
			return nil, nil
		}
	}
	if recvs != 0 || len(waves) == 0 {
		return nil, nil
	}
	return waves, nil
}

// clusterWave runs the step emulation on the cluster's nodes and checks
// the paper's formulas against it. The formulas describe sweeps from the
// north-west corner on a grid of at least one node.
func clusterWave(k *lang.Checked, c *Cluster, px, py, n int64, corners map[[2]int64]bool) (*ClusterWave, string, error) {
	sx, sy := c.Sx, c.Sy
	if sx <= 0 || sx > px {
		sx = px
	}
	if sy <= 0 || sy > py {
		sy = py
	}
	cw := &ClusterWave{Sx: sx, Sy: sy, Lx: c.Lx, Ly: c.Ly, M: ceilDiv(px, sx), N: ceilDiv(py, sy)}
	if cw.M*cw.N == 1 {
		return nil, "", nil
	}
	if c.Lx == 0 || c.Ly == 0 {
		cw.L = max(c.Lx, c.Ly)
	} else {
		cw.L = min(c.Lx, c.Ly)
	}
	if len(corners) != 1 || !corners[[2]int64{1, 1}] || px%sx != 0 || py%sy != 0 || cw.L == 0 {
		return nil, "the cluster formulas of [002] sec. 3 describe sweeps from the north-west corner over whole nodes with limited links; not evaluated", nil
	}
	L := cw.L
	cw.Eq7 = sx >= 2*L
	cw.Eq10 = sx >= 4*L+1
	cw.Eq10General = max(sx, sy) > 4*L+1
	cw.TransitionalPaper = min(sx, sy) + 1

	// The formulas are checked on the first checkedWaves waves: enough to
	// see the groups of L waves and the steady state, and the step
	// emulation stops once they are through.
	n = min(n, checkedWaves)
	obs, err := observeSteps(k, c, px, py, sx, sy, n)
	if err != nil {
		return nil, "", err
	}
	n = obs.complete(n)
	cw.LinkWaits = obs.linkWaits
	cw.Collide = obs.linkWaits > 0
	for i := range n {
		I := i + 1
		ws := WaveSteps{Wave: I, S1: obs.s1[i], Scan: obs.scan[i], Eq12: eq12(sx, sy, L, I)}
		ws.Printed, ws.PrintedEq = printedS1(sx, sy, L, I, sx, cw.Eq7, cw.Eq10)
		ws.General, _ = printedS1(sx, sy, L, I, max(sx, sy), cw.Eq7, cw.Eq10General)
		ws.Eq16 = eq16(sx, sy, cw.M, cw.N, ws.Eq12)
		ws.Eq16Split = eq16(sx, sy, cw.M, cw.N, ws.General)
		cw.Waves = append(cw.Waves, ws)
	}
	s1Valid := cw.M > 1 && cw.N > 1
	cw.Checks = append(cw.Checks, FormulaCheck{Formula: "(7) collisions occur", Agrees: cw.Eq7 == cw.Collide})
	check := func(name string, emulated, formula func(WaveSteps) int64) {
		fc := FormulaCheck{Formula: name, Agrees: true, Waves: n}
		for _, w := range cw.Waves {
			if g, f := emulated(w), formula(w); g != f {
				fc.Agrees, fc.First, fc.Got, fc.Want = false, w.Wave, g, f
				break
			}
		}
		cw.Checks = append(cw.Checks, fc)
	}
	s1 := func(w WaveSteps) int64 { return w.S1 }
	if s1Valid {
		check("(12) S_1", s1, func(w WaveSteps) int64 { return w.Eq12 })
		check("(6)-(15) S_1 as printed", s1, func(w WaveSteps) int64 { return w.Printed })
		check("(6)-(15) S_1, general condition", s1, func(w WaveSteps) int64 { return w.General })
	}
	scanName := "(16) scan"
	switch {
	case cw.N == 1:
		scanName = "(17) scan, one row of nodes,"
	case cw.M == 1:
		scanName = "(18) scan, one column of nodes,"
	}
	scan := func(w WaveSteps) int64 { return w.Scan }
	check(scanName+" S_I from (12)", scan, func(w WaveSteps) int64 { return w.Eq16 })
	check(scanName+" S_I from the case split", scan, func(w WaveSteps) int64 { return w.Eq16Split })

	cw.BoundaryDelays = diffs(obs.link[:n])
	cw.SourceDelays = diffs(obs.source[:n])
	cw.SteadyCycle = steadyCycle(cw.BoundaryDelays)
	cw.Transitional = transitional(cw.SourceDelays, cw.BoundaryDelays)
	groups := ceilDiv(max(cw.Transitional, 0), L)
	cw.Checks = append(cw.Checks, FormulaCheck{Formula: "transitional groups = min(S_x, S_y) + 1", Waves: n,
		Agrees: cw.Transitional >= 0 && groups == cw.TransitionalPaper, Got: groups, Want: cw.TransitionalPaper})
	return cw, "", nil
}

// eq12 is the printed eq. (12): S_1 = 2S_y + 2S_x + 4(I−1) + ⌊(I−1)/L⌋.
func eq12(sx, sy, l, i int64) int64 { return 2*sy + 2*sx + 4*(i-1) + (i-1)/l }

// printedS1 evaluates the paper's case split for S_1 of wave i with the
// factor f multiplying the int function (S_x as printed, max(S_x, S_y) in
// the general form), given conditions (7) and (10). It names the equation
// it used.
func printedS1(sx, sy, l, i, f int64, eq7, eq10 bool) (int64, string) {
	base := 2*sy + 2*sx
	switch {
	case !eq7 || i <= l:
		return base + 4*(i-1), "(6)"
	case !eq10 && i <= 2*l:
		return base + 4*(i-1) + 1, "(8)"
	case !eq10 && i <= 3*l:
		return base + 4*(i-1) + 1, "(11)"
	case !eq10:
		return base + 4*(i-1) + (i-1)/l, "(12)"
	}
	group := (i - 1) / l // 0-based group of L waves
	first := group*l + 1
	if group%2 == 0 {
		return base + group*f + 4*(i-first), "(14)"
	}
	return base + 4*(l-1) + 5 + (group-1)*f + 4*(i-first), "(15)"
}

// eq16 is the printed eq. (16) — or (17) on one row of nodes, (18) on one
// column, where S_I' leaves out the 2S_y (2S_x) term — for m × n nodes.
func eq16(sx, sy, m, n, si int64) int64 {
	switch {
	case n == 1:
		return si - 2*sy + (m-2)*2*sx + 2*(sx-1) + 2*(sy-1)
	case m == 1:
		return si - 2*sx + (n-2)*2*sy + 2*(sx-1) + 2*(sy-1)
	}
	return si + (m-2)*2*sx + (n-2)*2*sy + 2*(sx-1) + 2*(sy-1)
}

// checkedWaves is the number of waves the cluster formulas are checked on.
const checkedWaves = 64

// stepObservations is what the step emulation shows, per wave.
type stepObservations struct {
	s1, scan     []int64 // when rank (S_x, S_y), the last rank, have received the wave
	link, source []int64 // when the wave crosses the first y boundary link, leaves rank 0
	linkWaits    int64
}

// observeSteps emulates k on the cluster with every message one step and
// compute free, recording what the formulas speak of.
func observeSteps(k *lang.Checked, c *Cluster, px, py, sx, sy, n int64) (*stepObservations, error) {
	obs := &stepObservations{s1: make([]int64, n), scan: make([]int64, n), link: make([]int64, n), source: make([]int64, n)}
	corner := sy*px + sx
	if sx >= px || sy >= py {
		corner = -1
	}
	last := px*py - 1
	// The first y boundary link, (0, S_y − 1) → (0, S_y); on one row of
	// nodes the first x link, (S_x − 1, 0) → (S_x, 0).
	linkSrc, linkDst := (sy-1)*px, sy*px
	if sy >= py {
		linkSrc, linkDst = sx-1, sx
	}
	sourceDst := int64(1)
	step := stepPricer{cluster: &Cluster{Sx: c.Sx, Sy: c.Sy, Lx: c.Lx, Ly: c.Ly, Inter: func(int64) float64 { return 1 }}}
	// Stop once wave n has surely scanned the grid: a wave is never held
	// up by more than 4 + 2 max(S_x, S_y) steps behind the one before.
	until := float64(2*(px+py) + (n+1)*(4+2*max(sx, sy)))
	em, err := Emulate(k, step, EmulateOptions{Until: until, Observe: func(iv *Interval) {
		if iv.Wave < 1 || iv.Wave > n {
			return
		}
		w := iv.Wave - 1
		end := int64(iv.End)
		switch {
		case iv.Kind == ActRecv && (iv.Rank == corner || iv.Rank == last):
			if iv.Rank == corner {
				obs.s1[w] = max(obs.s1[w], end)
			}
			if iv.Rank == last {
				obs.scan[w] = max(obs.scan[w], end)
			}
		case iv.Kind == ActSend && iv.Rank == linkSrc && iv.Peer == linkDst:
			obs.link[w] = end
		case iv.Kind == ActSend && iv.Rank == 0 && iv.Peer == sourceDst:
			obs.source[w] = end
		}
	}})
	if err != nil {
		return nil, err
	}
	obs.linkWaits = em.LinkWaits
	return obs, nil
}

// stepPricer prices as the LANL paper counts: every message and every
// collective one step, compute free, sends synchronous.
type stepPricer struct{ cluster *Cluster }

func (stepPricer) Compute(*analyze.Work) float64                           { return 0 }
func (stepPricer) Message(int64, int64, int64) float64                     { return 1 }
func (stepPricer) Collective(string, string, string, int64, int64) float64 { return 1 }
func (stepPricer) EagerLimit() int64                                       { return -1 }
func (s stepPricer) Cluster() *Cluster                                     { return s.cluster }

// complete returns how many of the first n waves the step emulation saw
// through to the last rank.
func (o *stepObservations) complete(n int64) int64 {
	for w := range n {
		if o.scan[w] == 0 {
			return w
		}
	}
	return n
}

// diffs returns the differences of consecutive values.
func diffs(v []int64) []int64 {
	var out []int64
	for i := 1; i < len(v); i++ {
		out = append(out, v[i]-v[i-1])
	}
	return out
}

// steadyCycle returns the shortest cycle the delays repeat at their end
// (seen at least three times), or nil when they do not settle.
func steadyCycle(d []int64) []int64 {
	for p := 1; 3*p <= len(d); p++ {
		tail := d[len(d)-3*p:]
		periodic := true
		for i := p; i < len(tail); i++ {
			if tail[i] != tail[i-p] {
				periodic = false
				break
			}
		}
		if periodic {
			return slices.Clone(d[len(d)-p:])
		}
	}
	return nil
}

// transitional returns the number of leading waves whose delay at the
// source differs from the delay of the same waves at the boundary, after
// which they agree to the end of the run; −1 when they never settle.
func transitional(source, boundary []int64) int64 {
	k := min(len(source), len(boundary))
	if k == 0 {
		return -1
	}
	j := k
	for j > 0 && source[j-1] == boundary[j-1] {
		j--
	}
	if j == k {
		return -1
	}
	return int64(j)
}
