package emulate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWavefrontMPP checks the MPP closed forms, eqs. (2) and (3), against
// the emulation: with blocking messages the emulated time is exactly their
// sum (eq. (2) alone when messages are free, eq. (3) alone when compute
// is); with eager sends the emulation overlaps and the sum is an upper
// bound.
func TestWavefrontMPP(t *testing.T) {
	tests := []struct {
		name           string
		px, py, n      int64
		p              unitPricer
		tcomp, tcomm   float64
		emulated       float64
		depthComm      int64
		closedIsBigger bool
	}{
		{"compute only", 10, 10, 4, unitPricer{cpu: 1, eager: -1}, 22, 0, 22, 36, false},
		{"messages only", 10, 10, 4, unitPricer{msg: 1, eager: -1}, 0, 48, 48, 36, false},
		{"messages only 3x7", 3, 7, 9, unitPricer{msg: 1, eager: -1}, 0, 2*8 + 4*8, 2*8 + 4*8, 16, false},
		// With unit compute and messages the emulation takes exactly the sum.
		{"both", 10, 10, 4, unitPricer{cpu: 1, msg: 1, eager: -1}, 22, 48, 70, 36, false},
		{"compute-heavy", 10, 10, 4, unitPricer{cpu: 5, msg: 3, eager: -1}, 110, 144, 254, 36, false},
		{"non-square", 7, 3, 6, unitPricer{cpu: 2, msg: 0.5, eager: -1}, 2 * (9 + 5), 0.5 * (16 + 20), 2*(9+5) + 0.5*(16+20), 16, false},
		// Eager sends overlap messages with the next wave's work: the sum
		// is then an upper bound.
		{"eager", 10, 10, 4, unitPricer{cpu: 5, msg: 3, eager: 1 << 20}, 110, 144, 0, 36, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wf, err := AnalyzeWavefront(wave(t, tt.px, tt.py, tt.n), tt.p, nil)
			if err != nil {
				t.Fatal(err)
			}
			if wf == nil {
				t.Fatal("the wave kernel is not recognised as a wavefront")
			}
			if wf.Sweeps != tt.n || wf.Corners != 1 || wf.DepthComp != tt.px+tt.py-1 || wf.DepthComm != tt.depthComm || wf.DelayComm != 4 || wf.DelayComp != 1 {
				t.Errorf("sweeps %d corners %d depths %d, %d delays %d, %d", wf.Sweeps, wf.Corners, wf.DepthComp, wf.DepthComm, wf.DelayComp, wf.DelayComm)
			}
			if wf.TComp != tt.tcomp || wf.TComm != tt.tcomm || wf.ClosedForm != tt.tcomp+tt.tcomm {
				t.Errorf("eq. (2) %g, eq. (3) %g, closed form %g; want %g, %g", wf.TComp, wf.TComm, wf.ClosedForm, tt.tcomp, tt.tcomm)
			}
			if tt.closedIsBigger {
				if wf.Emulated >= wf.ClosedForm {
					t.Errorf("emulated %g, closed form %g: the emulation should overlap compute and messages", wf.Emulated, wf.ClosedForm)
				}
			} else if wf.Emulated != tt.emulated {
				t.Errorf("emulated %g, want %g", wf.Emulated, tt.emulated)
			}
		})
	}
}

// TestWavefrontDetection checks which kernels are wavefronts.
func TestWavefrontDetection(t *testing.T) {
	tests := []struct {
		path    string
		defs    []string
		sweeps  int64 // 0: not a wavefront
		corners int64
	}{
		{"../../examples/wave.spmd", []string{"Px", "4", "Py", "3"}, 4, 1},
		{"../../examples/sweep3d.spmd", []string{"Px", "4", "Py", "4", "kt", "4", "mk", "2"}, 8 * 3 * 2, 4},
		{"../../examples/halo2d.spmd", []string{"Px", "3", "Py", "3"}, 0, 0},
		{"../../examples/pingpong.spmd", nil, 0, 0},
		{"../../examples/cannon.spmd", []string{"N", "6", "Px", "3", "Py", "3"}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			wf, err := AnalyzeWavefront(loadKernel(t, tt.path, tt.defs...), steps(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var sweeps, corners int64
			if wf != nil {
				sweeps, corners = wf.Sweeps, wf.Corners
			}
			if sweeps != tt.sweeps || corners != tt.corners {
				t.Errorf("sweeps %d from %d corners, want %d from %d", sweeps, corners, tt.sweeps, tt.corners)
			}
		})
	}
}

// TestWavefrontClusterFormulas records, for the paper's figures and the
// boundary cases of its conditions, which printed cluster formulas agree
// with the step emulation of the paper's own rules (the ground truth; its
// agreement with the figures is tested in emulate_cluster_test.go).
func TestWavefrontClusterFormulas(t *testing.T) {
	const (
		eq7       = "(7) collisions occur"
		eq12      = "(12) S_1"
		printed   = "(6)-(15) S_1 as printed"
		general   = "(6)-(15) S_1, general condition"
		scan12    = "(16) scan S_I from (12)"
		scanSplit = "(16) scan S_I from the case split"
		groups    = "transitional groups = min(S_x, S_y) + 1"
	)
	tests := []struct {
		name         string
		sx, sy, l, n int64
		agree        map[string]bool
		transitional int64
		cycle        []int64
		collide      bool
	}{
		// Fig. 4: (10) is false; (12) holds, the case split's (11) is off by
		// one from wave 2L+1 = 5 on; 2 transitional groups, not 6.
		{"fig4 5x5 L=2", 5, 5, 2, 12, map[string]bool{eq7: true, eq12: true, printed: false, general: false, scan12: true, scanSplit: false, groups: false}, 4, []int64{5, 4}, true},
		// Fig. 5: (10) holds; (14) and (15) hold, (12) does not.
		{"fig5 8x8 L=1", 8, 8, 1, 12, map[string]bool{eq7: true, eq12: false, printed: true, general: true, scan12: false, scanSplit: true, groups: false}, -1, []int64{11, 5}, true},
		// Fig. 6: (10) as printed (S_x ≥ 4L + 1) is false but the general
		// condition max(S_x, S_y) > 4L + 1 holds, and only it is right; 4
		// transitional groups, as printed.
		{"fig6 3x8 L=1", 3, 8, 1, 12, map[string]bool{eq7: true, eq12: false, printed: false, general: true, scan12: false, scanSplit: true, groups: true}, 4, []int64{11, 5}, true},
		// S_x = 4L + 1: the printed (10), S_x ≥ 4L + 1, is right; the
		// general form's strict > is not.
		{"(10) boundary 5x5 L=1", 5, 5, 1, 12, map[string]bool{eq7: true, eq12: true, printed: true, general: false, scan12: true, scanSplit: false, groups: false}, 4, []int64{5}, true},
		// S_x = S_y = 2L: (7) says waves collide, the emulation has none.
		{"(7) boundary 6x6 L=3", 6, 6, 3, 12, map[string]bool{eq7: false, eq12: false, printed: false, general: false, scan12: false, scanSplit: false, groups: false}, 0, []int64{4}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wf, err := AnalyzeWavefront(wave(t, 2*tt.sx, 2*tt.sy, tt.n), onCluster(tt.sx, tt.sy, tt.l), nil)
			if err != nil {
				t.Fatal(err)
			}
			cw := wf.Cluster
			if cw == nil {
				t.Fatalf("no cluster analysis; notes %v", wf.Notes)
			}
			got := map[string]bool{}
			for _, c := range cw.Checks {
				got[c.Formula] = c.Agrees
			}
			if diff := cmp.Diff(tt.agree, got); diff != "" {
				t.Errorf("formulas that agree with the emulation (-recorded +got):\n%s\nchecks %+v", diff, cw.Checks)
			}
			if cw.Collide != tt.collide || cw.Transitional != tt.transitional {
				t.Errorf("collide %v transitional %d, want %v %d", cw.Collide, cw.Transitional, tt.collide, tt.transitional)
			}
			if diff := cmp.Diff(tt.cycle, cw.SteadyCycle); diff != "" {
				t.Errorf("steady-state delay cycle at the boundary (-want +got):\n%s", diff)
			}
			if cw.M != 2 || cw.N != 2 || cw.L != tt.l || len(cw.Waves) != int(tt.n) {
				t.Errorf("m %d n %d L %d waves %d", cw.M, cw.N, cw.L, len(cw.Waves))
			}
		})
	}
}

// TestWavefrontOneRowOfNodes checks eq. (17): one row of two nodes of
// 8 × 8 with one link, where S_I must come from the case split.
func TestWavefrontOneRowOfNodes(t *testing.T) {
	wf, err := AnalyzeWavefront(wave(t, 16, 8, 8), onCluster(8, 8, 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, c := range wf.Cluster.Checks {
		got[c.Formula] = c.Agrees
	}
	want := map[string]bool{"(7) collisions occur": true, "(17) scan, one row of nodes, S_I from (12)": false,
		"(17) scan, one row of nodes, S_I from the case split": true, "transitional groups = min(S_x, S_y) + 1": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
