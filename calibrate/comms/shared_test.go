package comms

import (
	"fmt"
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

// TestSameCorePlan: the sharingRanks kernel measures SAMECORE between rank
// 0 and rank C (both on core 0 of C cores) at COMMS1's lengths when
// 1 < C < sharingRanks, and not on one core (COMMS1's partner already
// shares it), on as many cores as ranks, or when the cores are unknown.
func TestSameCorePlan(t *testing.T) {
	for _, tt := range []struct{ cores, want int }{{2, 2}, {3, 3}, {1, 0}, {sharingRanks, 0}, {0, 0}} {
		s := modeSizes(true, false)
		s.cores = tt.cores
		var got []bench
		for _, kp := range plan(s) {
			for _, b := range kp.benches {
				if b.kind == SameCore {
					got = append(got, b)
					if kp.ranks != sharingRanks {
						t.Errorf("%d cores: SAMECORE in the %d-rank kernel", tt.cores, kp.ranks)
					}
				}
			}
		}
		if tt.want == 0 {
			if len(got) > 0 {
				t.Errorf("%d cores: %d SAMECORE benchmarks, want none", tt.cores, len(got))
			}
			continue
		}
		if len(got) != len(s.comms1) {
			t.Fatalf("%d cores: %d SAMECORE lengths, want COMMS1's %d", tt.cores, len(got), len(s.comms1))
		}
		body := strings.Join(got[1].body(), "\n")
		for _, want := range []string{fmt.Sprintf("send buf[0:1] to %d", tt.want), fmt.Sprintf("} else if rank == %d {", tt.want)} {
			if !strings.Contains(body, want) {
				t.Errorf("%d cores: body %q lacks %q", tt.cores, body, want)
			}
		}
	}
}

// TestSameCoreSection: SAMECORE points become messages.same_core with the
// law they follow when the host's cores put two ranks other than 0 and 1
// on one core, and name where they were measured; not otherwise.
func TestSameCoreSection(t *testing.T) {
	pts := synthetic(knownFormulas())
	turns := func(n float64) float64 { return 0.15e-6 + n/50e9 }
	for _, n := range modeSizes(false, false).comms1 {
		pts = append(pts, Point{Bench: SameCore, Bytes: float64(n), Ranks: sharingRanks, Time: turns(float64(n))})
	}
	r, err := Analyse(pts, 9, "2026-11-27")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		cores int
		want  bool
	}{{2, true}, {3, true}, {1, false}, {sharingRanks, false}, {0, false}} {
		r.cores = tt.cores
		m := r.Messages().(messagesYAML)
		if (m.SameCore != nil) != tt.want {
			t.Fatalf("%d cores: same_core section %+v, want one: %v", tt.cores, m.SameCore, tt.want)
		}
		if !tt.want {
			continue
		}
		if len(m.SameCore.Ranges) != 1 || m.SameCore.Ranges[0].T0 != "150ns" || m.SameCore.Ranges[0].Rinf != "50GB/s" {
			t.Errorf("same-core law %+v, want one range of t0 150ns, r∞ 50GB/s", m.SameCore.Ranges)
		}
		want := fmt.Sprintf("between ranks 0 and %d of 4 on %d cores, both bound to core 0", tt.cores, tt.cores)
		if !strings.Contains(m.SameCore.Source, want) || !strings.Contains(m.SameCore.Ranges[0].Source, "SAMECORE pingpong") {
			t.Errorf("sources %q, %q do not say where the law was measured (%q)", m.SameCore.Source, m.SameCore.Ranges[0].Source, want)
		}
	}
}

// TestCapShared checks the cap by hand: the laws of TestFitShared's
// "slowed" case give 1.667; COMMS3 rounds at 1 MiB, the longest length
// both rank counts ran (P = 2 ran on to 32 MiB), of 100 µs at P = 2 and T
// at P = 4 give 2 × (T/12)/(100 µs/2), which lowers the factor when it is
// lower and never raises it.
func TestCapShared(t *testing.T) {
	sat := map[int]fit.Hockney{2: {T0: 1e-6, Rinf: 10e9}, 4: {T0: 1e-6, Rinf: 2e9}}
	for _, tt := range []struct {
		name   string
		roundP float64 // the P = 4 round at 1 MiB
		factor string  // "" when no section
		capped bool
	}{
		{"capped", 480e-6, "1.6", true},                         // 2 × 40/50
		{"the slopes' factor is lower", 600e-6, "1.667", false}, // 2 × 50/50 = 2
		{"capped below the least slowdown", 330e-6, "", true},   // 2 × 27.5/50 = 1.1
	} {
		t.Run(tt.name, func(t *testing.T) {
			pts := []Point{
				{Bench: Comms3, Ranks: 2, Bytes: 1 << 20, Time: 100e-6},
				{Bench: Comms3, Ranks: 2, Bytes: 32 << 20, Time: 5e-3},
				{Bench: Comms3, Ranks: 4, Bytes: 256 << 10, Time: 90e-6},
				{Bench: Comms3, Ranks: 4, Bytes: 1 << 20, Time: tt.roundP},
			}
			r := &Result{saturation: sat, points: pts, cores: 2, samples: 7, date: "2026-11-27", transport: Transport{Backend: "goroutine"}}
			sec := r.sharedSection()
			if tt.factor == "" {
				if sec != nil {
					t.Fatalf("a section %+v, want none", sec)
				}
				return
			}
			if sec == nil || sec.Factor != tt.factor {
				t.Fatalf("section %+v, want factor %s", sec, tt.factor)
			}
			if got := strings.Contains(sec.Source, "capped at the whole message's slowdown at 1MiB, the longest length of both (a round 480us at P=4, 100us at P=2), where the slopes gave 1.667"); got != tt.capped {
				t.Errorf("the cap in the source: %v, want %v (%s)", got, tt.capped, sec.Source)
			}
		})
	}
}
