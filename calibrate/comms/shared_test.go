package comms

import (
	"strings"
	"testing"

	"perfc/calibrate/fit"
)

// TestFitShared checks the slowdown of concurrent copies by hand: COMMS3
// laws per step t = T0 + n/Rinf at P = 2 (2 messages) and at the first P
// beyond the cores (P(P−1) messages) give a message's time per byte
// 1/(2·Rinf₂) and 1/(P(P−1)·Rinf_P); the factor is C times their ratio,
// written only when it is at least sharedMin.
func TestFitShared(t *testing.T) {
	h := func(rinf float64) fit.Hockney { return fit.Hockney{T0: 1e-6, Rinf: rinf} }
	for _, tt := range []struct {
		name   string
		sat    map[int]fit.Hockney
		cores  int
		ok     bool
		factor float64
		yaml   string // "" when no section
	}{
		// P=2: 1/(2·10e9) = 50 ps/B; P=4: 1/(12·2e9) = 41.67 ps/B; 2 × 41.67/50.
		{"slowed", map[int]fit.Hockney{2: h(10e9), 4: h(2e9), 8: h(1e9)}, 2, true, 2 * (1.0 / 24e9) / (1.0 / 20e9), "1.667"},
		// P=4: 1/(12·5e9) = 16.67 ps/B: 2 × 16.67/50 = 0.667, faster than one at a time.
		{"not slowed", map[int]fit.Hockney{2: h(10e9), 4: h(5e9)}, 2, true, 2 * (1.0 / 60e9) / (1.0 / 20e9), ""},
		{"the first P beyond the cores", map[int]fit.Hockney{2: h(10e9), 4: h(5e9), 8: h(0.1e9)}, 4, true, 4 * (1.0 / 5.6e9) / (1.0 / 20e9), "14.29"},
		{"no rank count beyond the cores", map[int]fit.Hockney{2: h(10e9), 4: h(2e9)}, 4, false, 0, ""},
		{"no law at P=2", map[int]fit.Hockney{4: h(2e9)}, 2, false, 0, ""},
		{"cores unknown", map[int]fit.Hockney{2: h(10e9), 4: h(2e9)}, 0, false, 0, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sf, ok := fitShared(tt.sat, tt.cores)
			if ok != tt.ok {
				t.Fatalf("fitShared ok = %v, want %v", ok, tt.ok)
			}
			if ok && (sf.factor-tt.factor > 1e-9 || tt.factor-sf.factor > 1e-9) {
				t.Errorf("factor %g, want %g", sf.factor, tt.factor)
			}
			r := &Result{saturation: tt.sat, cores: tt.cores, samples: 7, date: "2026-11-26", transport: Transport{Backend: "goroutine"}}
			sec := r.sharedSection()
			if tt.yaml == "" {
				if sec != nil {
					t.Errorf("a section %+v, want none", sec)
				}
				return
			}
			if sec == nil || sec.Factor != tt.yaml || !strings.Contains(sec.Source, "COMMS3 laws, P=") || strings.Contains(sec.Source, "ran twice") {
				t.Errorf("section %+v, want factor %s", sec, tt.yaml)
			}
			// With the sharingRanks kernel run twice, the source gives both
			// runs' times (when the factor is its).
			r.twinShared = &twinRuns{bytes: 1 << 20, kept: 450e-6, dropped: 700e-6}
			want := sf.ranks == sharingRanks
			if got := strings.Contains(r.sharedSection().Source, "the 4-rank kernel ran twice, in two processes, and their COMMS3 rounds at 1MiB (every rank sending to every other) took 450us and 700us"); got != want {
				t.Errorf("twice in the source: %v, want %v (%s)", got, want, r.sharedSection().Source)
			}
		})
	}
}

// TestSharingSection: COMMS1 measured in the sharingRanks kernel becomes
// messages.sharing when the host has fewer cores than those ranks, with
// the law the points follow; not when the ranks had a core each, or the
// cores are unknown.
func TestSharingSection(t *testing.T) {
	pts := synthetic(knownFormulas())
	handoff := func(n float64) float64 { return 0.1e-6 + n/40e9 }
	for _, n := range modeSizes(false, false).comms1 {
		pts = append(pts, Point{Bench: Comms1, Bytes: float64(n), Ranks: sharingRanks, Time: handoff(float64(n))})
	}
	r, err := Analyse(pts, 9, "2026-11-26")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		cores int
		want  bool
	}{{2, true}, {sharingRanks, false}, {0, false}} {
		r.cores = tt.cores
		m := r.Messages().(messagesYAML)
		if (m.Sharing != nil) != tt.want {
			t.Fatalf("%d cores: sharing section %+v, want one: %v", tt.cores, m.Sharing, tt.want)
		}
		if !tt.want {
			continue
		}
		if len(m.Sharing.Ranges) != 1 || m.Sharing.Ranges[0].T0 != "100ns" || m.Sharing.Ranges[0].Rinf != "40GB/s" {
			t.Errorf("sharing law %+v, want one range of t0 100ns, r∞ 40GB/s", m.Sharing.Ranges)
		}
		if !strings.Contains(m.Sharing.Source, "between ranks 0 and 1 of 4 on 2 cores") || !strings.Contains(m.Sharing.Ranges[0].Source, "P=4") {
			t.Errorf("sources %q, %q do not say where the law was measured", m.Sharing.Source, m.Sharing.Ranges[0].Source)
		}
	}
}
