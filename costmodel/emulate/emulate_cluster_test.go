package emulate

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// msgKey names one message of a wavefront run: sender, receiver, wave.
type msgKey struct{ src, dst, wave int64 }

// messageEnds emulates k with p and returns when every message ended.
func messageEnds(t *testing.T, p Pricer, px, py, n int64) (map[msgKey]float64, *Emulation) {
	t.Helper()
	ends := map[msgKey]float64{}
	em, err := Emulate(wave(t, px, py, n), p, EmulateOptions{Observe: func(iv *Interval) {
		if iv.Kind == ActSend && iv.Peer >= 0 {
			ends[msgKey{iv.Rank, iv.Peer, iv.Wave}] = iv.End
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	return ends, em
}

// stepEmulate runs the LANL paper's own emulation of the wavefront on a
// px × py grid, one step at a time: every rank receives from the west, then
// from the north, and sends east, then south, n times; a message takes one
// step and happens when both ranks have finished their previous message;
// across the boundary between two neighbouring nodes of sx × sy ranks at
// most lx (east–west) or ly (north–south) messages happen per step (0: no
// limit), the earliest wave first. It is a reference for Emulate written
// the plain way: no event queue, no cursor.
func stepEmulate(px, py, n, sx, sy, lx, ly int64) map[msgKey]float64 {
	type op struct {
		send bool
		peer int64
	}
	progs := make([][]op, px*py)
	for r := range px * py {
		x, y := r%px, r/px
		for range n {
			if x > 0 {
				progs[r] = append(progs[r], op{false, r - 1})
			}
			if y > 0 {
				progs[r] = append(progs[r], op{false, r - px})
			}
			if x < px-1 {
				progs[r] = append(progs[r], op{true, r + 1})
			}
			if y < py-1 {
				progs[r] = append(progs[r], op{true, r + px})
			}
		}
	}
	pc := make([]int, px*py)
	seq := map[[2]int64]int64{}
	ends := map[msgKey]float64{}
	node := func(r int64) (int64, int64) { return (r % px) / sx, (r / px) / sy }
	for step := int64(1); ; step++ {
		var cands []msgKey
		left := false
		for s := range px * py {
			if pc[s] == len(progs[s]) {
				continue
			}
			left = true
			o := progs[s][pc[s]]
			if !o.send || pc[o.peer] == len(progs[o.peer]) {
				continue
			}
			if r := progs[o.peer][pc[o.peer]]; !r.send && r.peer == s {
				cands = append(cands, msgKey{s, o.peer, seq[[2]int64{s, o.peer}] + 1})
			}
		}
		if !left {
			return ends
		}
		sort.Slice(cands, func(i, j int) bool {
			a, b := cands[i], cands[j]
			if a.wave != b.wave {
				return a.wave < b.wave
			}
			if a.src != b.src {
				return a.src < b.src
			}
			return a.dst < b.dst
		})
		used := map[[4]int64]int64{}
		for _, c := range cands {
			ax, ay := node(c.src)
			bx, by := node(c.dst)
			if ax != bx || ay != by {
				limit := lx
				if ax == bx {
					limit = ly
				}
				b := [4]int64{min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)}
				if limit > 0 && used[b] >= limit {
					continue
				}
				used[b]++
			}
			seq[[2]int64{c.src, c.dst}]++
			ends[c] = float64(step)
			pc[c.src]++
			pc[c.dst]++
		}
		if len(cands) == 0 {
			panic("stepEmulate: no message can move")
		}
	}
}

// TestEmulateMatchesStepRules compares Emulate with the paper's step rules
// on random grids, node shapes and link counts: every message must end on
// the same step.
func TestEmulateMatchesStepRules(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 60 {
		px, py := 1+rng.Int64N(8), 1+rng.Int64N(8)
		sx, sy := 1+rng.Int64N(px), 1+rng.Int64N(py)
		lx, ly := rng.Int64N(4), rng.Int64N(4)
		n := 1 + rng.Int64N(6)
		name := fmt.Sprintf("%d:%dx%d/%dx%d/L%d,%d/N%d", i, px, py, sx, sy, lx, ly, n)
		t.Run(name, func(t *testing.T) {
			p := steps()
			p.cluster = &Cluster{Sx: sx, Sy: sy, Lx: lx, Ly: ly, Inter: func(int64) float64 { return 1 }}
			got, _ := messageEnds(t, p, px, py, n)
			want := stepEmulate(px, py, n, sx, sy, lx, ly)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("message end steps (-step rules +Emulate):\n%s", diff)
			}
		})
	}
}

// firstLink returns the steps at which waves 1..n cross the first y
// boundary, between ranks (0, sy−1) and (0, sy).
func firstLink(ends map[msgKey]float64, px, sy, n int64) []float64 {
	var out []float64
	for w := int64(1); w <= n; w++ {
		out = append(out, ends[msgKey{(sy - 1) * px, sy * px, w}])
	}
	return out
}

// TestEmulateLANLFigure4 reproduces Fig. 4 of the LANL paper ([002]
// L113-124): 2 × 2 SMPs of 5 × 5 processors, two links each way. Waves 1
// and 2 are collision-free (delay 4 at the boundary); wave 3 would use the
// first y link at step 18, but waves 1 and 2 hold both links at step 18 (on
// the 5th and 3rd link), so it collides, and waves 3 and 4 cross on odd
// steps.
func TestEmulateLANLFigure4(t *testing.T) {
	ends, em := messageEnds(t, onCluster(5, 5, 2), 10, 10, 4)
	if diff := cmp.Diff([]float64{10, 14, 19, 23}, firstLink(ends, 10, 5, 4)); diff != "" {
		t.Errorf("first y link, waves 1-4 (-want +got):\n%s", diff)
	}
	// At step 18 the 5th link, (4,4)→(4,5), carries wave 1 and the 3rd,
	// (2,4)→(2,5), wave 2.
	if got := ends[msgKey{4*10 + 4, 5*10 + 4, 1}]; got != 18 {
		t.Errorf("wave 1 on the 5th link at step %g, want 18", got)
	}
	if got := ends[msgKey{4*10 + 2, 5*10 + 2, 2}]; got != 18 {
		t.Errorf("wave 2 on the 3rd link at step %g, want 18", got)
	}
	if em.LinkWaits == 0 {
		t.Errorf("no message waited for a link")
	}
}

// TestEmulateLANLFigure5 reproduces Fig. 5 ([002] L156-160): the y boundary
// between SMPs of 8 × 8 processors with one link: the third wavefront uses
// the first link at step 32, as waves 1 and 2 use the single link on every
// step from 25 to 31.
func TestEmulateLANLFigure5(t *testing.T) {
	ends, _ := messageEnds(t, onCluster(8, 8, 1), 8, 16, 3)
	if got := firstLink(ends, 8, 8, 3)[2]; got != 32 {
		t.Errorf("wave 3 on the first link at step %g, want 32", got)
	}
	var used []float64
	for x := int64(0); x < 8; x++ {
		for w := int64(1); w <= 2; w++ {
			if s := ends[msgKey{7*8 + x, 8*8 + x, w}]; s >= 25 && s <= 31 {
				used = append(used, s)
			}
		}
	}
	slices.Sort(used)
	if diff := cmp.Diff([]float64{25, 26, 27, 28, 29, 30, 31}, used); diff != "" {
		t.Errorf("steps 25-31 on the link used by waves 1 and 2 (-want +got):\n%s", diff)
	}
}

// TestEmulateLANLFigure6 reproduces Fig. 6 ([002] L180-184): L = 1, S_x = 3,
// S_y = 8 (here 2 × 2 SMPs). There are 4 transitional groups (of L = 1
// wave): the repetition delay at the source equals the one at the first
// inter-SMP boundary only after 4 wavefronts.
func TestEmulateLANLFigure6(t *testing.T) {
	const n = 12
	ends, _ := messageEnds(t, onCluster(3, 8, 1), 6, 16, n)
	link := firstLink(ends, 6, 8, n)
	var source []float64
	for w := int64(1); w <= n; w++ {
		source = append(source, ends[msgKey{0, 1, w}])
	}
	var differ []int
	for i := 1; i < n; i++ {
		if source[i]-source[i-1] != link[i]-link[i-1] {
			differ = append(differ, i)
		}
	}
	if diff := cmp.Diff([]int{1, 2, 3, 4}, differ); diff != "" {
		t.Errorf("delays after wave i that differ between source and boundary (-want +got):\n%s\nsource %v\nlink %v", diff, source, link)
	}
}
