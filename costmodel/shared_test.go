package costmodel

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"perfc/analyze"
	"perfc/machines"
)

// TestSharedCopies checks messages.shared by hand: on testdata/cores.yaml
// (t0 = 1 µs, r∞ = 5 GB/s, 2 cores, core switch 0.05 µs, caches L1 32 KiB
// and L2 1 MiB, so 32 KiB private) with factor 2, a message of n ≥ 32 KiB
// between ranks that share the cores (P = 4) costs 1 µs + 2 × n / 5 GB/s
// + 0.05 µs; a shorter one, or without the section, or when only two
// ranks copy, its law plus the switch; with a core each (P = 2) its law.
func TestSharedCopies(t *testing.T) {
	const src = `kernel s(n = 128) on P = 4 ranks {
  array a[n]: f64
  region "x" {
    if COND {
      send a[0:n] to rank + 1
    } else {
      recv a[0:n] from rank - 1
    }
  }
}`
	base, err := os.ReadFile("testdata/cores.yaml")
	if err != nil {
		t.Fatal(err)
	}
	shared := strings.Replace(string(base), "  rinf: bw\n", "  rinf: bw\n  shared: {factor: 2, source: test}\n", 1)
	sharing := strings.Replace(string(base), "  rinf: bw\n", "  rinf: bw\n  sharing: {source: test, model: hockney, t0: 0.5us, rinf: 20GB/s}\n", 1)
	both := strings.Replace(shared, "  rinf: bw\n", "  rinf: bw\n  sharing: {source: test, model: hockney, t0: 0.5us, rinf: 20GB/s}\n", 1)
	// The laws of one copy alone and of two at once (one on each core):
	// beyond the private caches their ratio at the message's length is
	// the slowdown, in place of messages.shared's factor.
	twoLaws := strings.Replace(shared, "  rinf: bw\n", "  rinf: bw\n  local: {source: test, model: hockney, t0: 0.2us, rinf: 10GB/s}\n"+
		"  sendrecv: {source: test, model: hockney, t0: 0.4us, rinf: 6GB/s}\n", 1)
	fasterTwo := strings.Replace(twoLaws, "rinf: 6GB/s", "rinf: 20GB/s", 1)
	ratio := func(n float64) float64 { return (0.4e-6 + n/6e9) / (0.2e-6 + n/10e9) }
	handoff := func(n float64) float64 { return 0.5e-6 + n/20e9 }
	law := func(n float64) float64 { return 1e-6 + n/5e9 }
	slowed := func(n float64) float64 { return 1e-6 + 2*n/5e9 }
	const sw = 0.05e-6
	for _, tt := range []struct {
		name  string
		table string
		p, n  int64 // ranks, elements of 8 B
		want  float64
	}{
		{"shared, 64 KiB", shared, 4, 8192, slowed(65536) + sw},
		{"shared, 32 KiB", shared, 4, 4096, slowed(32768) + sw},
		{"shared, 32 KiB - 8 B: in a core's own caches", shared, 4, 4095, law(32760) + sw},
		{"shared, 8 B", shared, 4, 1, law(8) + sw},
		{"a core each", shared, 2, 8192, law(65536)},
		{"shared, two-copy laws, 64 KiB", twoLaws, 4, 8192, 1e-6 + ratio(65536)*65536/5e9 + sw},
		{"shared, two-copy laws, 1 MiB", twoLaws, 4, 131072, 1e-6 + ratio(1<<20)*(1<<20)/5e9 + sw},
		{"shared, two-copy laws, 32 KiB - 8 B: in a core's own caches", twoLaws, 4, 4095, law(32760) + sw},
		{"shared, two copies at once no slower than one", fasterTwo, 4, 8192, law(65536) + sw},
		{"two-copy laws, a core each", twoLaws, 2, 8192, law(65536)},
		{"no section", string(base), 4, 8192, law(65536) + sw},
		{"two of four ranks copy", shared, 4, 8192, law(65536) + sw},
		// messages.sharing replaces the law when the ranks outnumber the
		// cores, and messages.shared scales its bytes' part.
		{"two of four copy, sharing law, 8 B", sharing, 4, 1, handoff(8) + sw},
		{"two of four copy, sharing law, 64 KiB", sharing, 4, 8192, handoff(65536) + sw},
		{"two of four copy, sharing and shared, 64 KiB", both, 4, 8192, handoff(65536) + sw},
		{"sharing law, a core each", sharing, 2, 8192, law(65536)},
		// Every rank copies: more copiers than cores. A message beyond
		// a core's own caches keeps the top-level law, which shared
		// scales; one within them is copied on the core where its
		// partners take turns, as the sharing law measured it.
		{"sharing law, every rank copies", sharing, 4, 8192, law(65536) + sw},
		{"sharing and shared, every rank copies", both, 4, 8192, slowed(65536) + sw},
		{"sharing law, every rank copies, 8 KiB: in a core's own caches", sharing, 4, 1024, handoff(8192) + sw},
		{"sharing and shared, every rank copies, 8 B", both, 4, 1, handoff(8) + sw},
		{"sharing law, every rank copies, 32 KiB - 8 B", sharing, 4, 4095, handoff(32760) + sw},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := machines.Parse("cores.yaml", []byte(tt.table))
			if err != nil {
				t.Fatal(err)
			}
			text := strings.Replace(src, "n = 128) on P = 4", fmt.Sprintf("n = %d) on P = %d", tt.n, tt.p), 1)
			cond, peers := "rank % 2 == 0", "every rank"
			if strings.HasPrefix(tt.name, "two of") {
				cond, peers = "rank == 0", "ranks 0 and 1"
				text = strings.Replace(text, "} else {", "} else if rank == 1 {", 1)
			}
			text = strings.Replace(text, "COND", cond, 1)
			k := checkSource(t, "s.spmd", text)
			rep, err := analyze.Analyze(k, analyze.Options{Cache: m.CacheHierarchy()})
			if err != nil {
				t.Fatal(err)
			}
			pred, err := Predict(k, rep, m, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var send *Term
			for _, r := range pred.Regions {
				for i, term := range r.Terms {
					if term.Resource == "message" && strings.HasPrefix(term.What, "send") {
						send = &r.Terms[i]
					}
				}
			}
			if send == nil {
				t.Fatalf("no send term in %+v", pred.Regions)
			}
			if !sameTime(send.UnitCost, tt.want) {
				t.Errorf("%s copying: a message costs %g s (%s), want %g s", peers, send.UnitCost, send.How, tt.want)
			}
			wantSharing := tt.p > 2 && (strings.HasPrefix(tt.name, "two of four copy, sharing") ||
				strings.HasPrefix(tt.name, "sharing") && tt.n*8 < 32<<10)
			if says := strings.Contains(send.How, "messages.sharing"); says != wantSharing {
				t.Errorf("the message's how %q names messages.sharing: %v", send.How, says)
			}
			if got := PricerFor(k, rep, m, Options{}).Message(0, 1, tt.n*8); !sameTime(got+sharesSwitch(tt.p), tt.want) {
				t.Errorf("the emulator's message costs %g s, want %g s without the switch", got, tt.want-sharesSwitch(tt.p))
			}
		})
	}
}

// sharesSwitch is the core switch the region table adds at P ranks on the
// 2 cores of testdata/cores.yaml (the emulator charges it apart).
func sharesSwitch(p int64) float64 {
	if p > 2 {
		return 0.05e-6
	}
	return 0
}

// TestAloneCopies checks the pricer without the slowdown of copies at
// once (AloneCopies, for the emulator's copies beside copies) on
// testdata/cores.yaml with messages.shared and the laws of one copy
// alone and two at once: at P = 4, every rank copying, a 1 MiB message
// costs its law alone (1 µs + n / 5 GB/s) where the pricer's own price
// scales its bytes by the laws' ratio; 16 KiB, within the private
// caches (32 KiB), keeps the price; with a core each, two of four ranks
// copying, or no messages.shared, there is nothing to leave out. And a
// pingpong of 1 MiB between ranks 0 and 1 while ranks 2 and 3 exchange
// 8 B once is predicted at the law alone per message.
func TestAloneCopies(t *testing.T) {
	base, err := os.ReadFile("testdata/cores.yaml")
	if err != nil {
		t.Fatal(err)
	}
	twoLaws := strings.Replace(string(base), "  rinf: bw\n", "  rinf: bw\n  shared: {factor: 2, source: test}\n"+
		"  local: {source: test, model: hockney, t0: 0.2us, rinf: 10GB/s}\n"+
		"  sendrecv: {source: test, model: hockney, t0: 0.4us, rinf: 6GB/s}\n", 1)
	ratio := func(n float64) float64 { return (0.4e-6 + n/6e9) / (0.2e-6 + n/10e9) }
	law := func(n float64) float64 { return 1e-6 + n/5e9 }
	const pingpong = `kernel pp(n = 131072) on P = 4 ranks {
  array a[n]: f64
  repeat 4 {
    if rank == 0 {
      send a[0:n] to 1
      recv a[0:n] from 1
    } else if rank == 1 {
      recv a[0:n] from 0
      send a[0:n] to 0
    }
  }
  if rank >= 2 {
    exchange a[0:1] with 5 - rank
  }
}`
	m, k, rep := onTable(t, "cores.yaml", twoLaws, "pp.spmd", pingpong)
	p := PricerFor(k, rep, m, Options{}).(*machinePricer)
	alone, from := p.AloneCopies()
	if alone == nil || from != 32<<10 {
		t.Fatalf("AloneCopies = %v, %d; want a pricer and 32 KiB", alone, from)
	}
	const n = 1 << 20
	if got, want := p.Message(0, 1, n), 1e-6+ratio(n)*n/5e9; !sameTime(got, want) {
		t.Errorf("1 MiB with the slowdown: %g s, want %g s", got, want)
	}
	if got := alone.Message(0, 1, n); !sameTime(got, law(n)) {
		t.Errorf("1 MiB alone: %g s, want %g s", got, law(n))
	}
	if got, want := alone.Message(0, 1, 16<<10), p.Message(0, 1, 16<<10); !sameTime(got, want) {
		t.Errorf("16 KiB alone: %g s, want the price %g s", got, want)
	}
	pred, err := Predict(k, rep, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const sw = 0.05e-6
	want := 8 * (law(n) + sw)
	if pred.Emulation == nil || pred.Total < want || pred.Total > want+2*(law(8)+sw) {
		t.Errorf("pingpong beside idle ranks: %g s, want %g s (the law alone, each message) and at most the 8 B exchange more", pred.Total, want)
	}
	if lc := pred.Emulation.LongCopies; lc == nil || lc.Copies != 8 || !sameTime(lc.Took, lc.Alone) {
		t.Errorf("long copies %+v, want 8 taking what they take alone", lc)
	}

	for _, tt := range []struct {
		name, table, src string
	}{
		{"a core each", twoLaws, strings.Replace(pingpong, "P = 4", "P = 2", 1)},
		{"two of four ranks copy", twoLaws, strings.Replace(pingpong, "rank >= 2", "rank > 5", 1)},
		{"no messages.shared", strings.Replace(twoLaws, "  shared: {factor: 2, source: test}\n", "", 1), pingpong},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, k, rep := onTable(t, "cores.yaml", tt.table, "pp.spmd", tt.src)
			if alone, _ := PricerFor(k, rep, m, Options{}).(*machinePricer).AloneCopies(); alone != nil {
				t.Error("AloneCopies gave a pricer where no price has the slowdown of copies at once")
			}
		})
	}
}
