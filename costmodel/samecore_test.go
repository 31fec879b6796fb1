package costmodel

import (
	"os"
	"strings"
	"testing"

	"perfc/analyze"
	"perfc/machines"
)

// TestSameCoreMessages checks messages.same_core by hand on
// testdata/cores.yaml (2 cores, core switch 0.05 µs, caches of 32 KiB and
// 1 MiB) with messages.sharing t0 = 0.5 µs and 20 GB/s, messages.same_core
// t0 = 0.2 µs and 50 GB/s and messages.exchange t0 = 2 µs and 4 GB/s: at
// P = 4 rank r runs on core r mod 2, so a message between ranks 0 and 2
// costs the same-core law (plus the switch in the region table) at any
// length; one between ranks 0 and 1 keeps the sharing law; an in-place
// exchange between ranks 0 and 2 is two messages of the same-core law. Only two ranks copy there, the regime the law was
// measured in: when every rank copies it prices one-core messages longer
// than the first-level cache, their bytes' part times messages.shared;
// when MPI ranks (which Open MPI binds to no core) copy, or the table
// has no such section, the rules without it price the message.
func TestSameCoreMessages(t *testing.T) {
	base, err := os.ReadFile("testdata/cores.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const laws = "  rinf: bw\n" +
		"  sharing: {source: test, model: hockney, t0: 0.5us, rinf: 20GB/s}\n" +
		"  exchange: {source: test, model: hockney, t0: 2us, rinf: 4GB/s}\n"
	sharing := strings.Replace(string(base), "  rinf: bw\n", laws, 1)
	same := strings.Replace(sharing, "  rinf: bw\n", "  rinf: bw\n  same_core: {source: test, model: hockney, t0: 0.2us, rinf: 50GB/s}\n", 1)
	mpi := same + "host:\n  backend: mpi\n"
	sharedSame := strings.Replace(same, "  rinf: bw\n", "  rinf: bw\n  shared: {factor: 2, source: test}\n", 1)
	sameLaw := func(n float64) float64 { return 0.2e-6 + n/50e9 }
	sharingLaw := func(n float64) float64 { return 0.5e-6 + n/20e9 }
	const sw = 0.05e-6
	const twoOfFour = `kernel k() on P = 4 ranks {
  array a[N]: f64
  region "x" {
    if rank == 0 {
      send a to PEER
    } else if rank == PEER {
      recv a from 0
    }
  }
}`
	const everyRank = `kernel k() on P = 4 ranks {
  array a[N], b[N]: f64
  region "x" {
    sendrecv a to (rank + 2) % P from (rank + 2) % P into b
  }
}`
	const exchange = `kernel k() on P = 4 ranks {
  array a[N]: f64
  region "x" {
    if rank % 2 == 0 {
      exchange a with (rank + 2) % P
    }
  }
}`
	exchangeAll := strings.Replace(strings.Replace(exchange, "    if rank % 2 == 0 {\n", "", 1), "    }\n  }\n}", "  }\n}", 1)
	for _, tt := range []struct {
		name, table, src, n, peer string
		bytes                     float64
		want                      float64 // the first message term's unit cost
		how                       string  // what its how names
	}{
		{"one core, 8 B", same, twoOfFour, "1", "2", 8, sameLaw(8) + sw, "messages.same_core: ranks 0 and 2 take turns on core 0"},
		{"one core, 256 KiB", same, twoOfFour, "32768", "2", 262144, sameLaw(262144) + sw, "messages.same_core"},
		{"across cores, 8 B", same, twoOfFour, "1", "1", 8, sharingLaw(8) + sw, "messages.sharing"},
		{"one core, no same_core", sharing, twoOfFour, "1", "2", 8, sharingLaw(8) + sw, "messages.sharing"},
		{"one core, MPI ranks", mpi, twoOfFour, "1", "2", 8, sharingLaw(8) + sw, "messages.sharing"},
		// Every rank copies. Within the first-level cache (32 KiB) the
		// kernel's handovers of the cores dominate, which
		// messages.sharing was measured with; beyond it the payload's
		// bytes do, copied on the one core at the same-core law's rate
		// while the other core copies too (messages.shared).
		{"every rank copies, 8 KiB", sharedSame, everyRank, "1024", "", 8192, sharingLaw(8192) + sw, "messages.sharing"},
		{"every rank copies, 256 KiB", sharedSame, everyRank, "32768", "", 256 << 10, 0.2e-6 + 2*(256<<10)/50e9 + sw, "messages.same_core: ranks 0 and 2 take turns on core 0), its bytes' part x 2 (messages.shared"},
		{"every rank copies, 2 MiB", sharedSame, everyRank, "262144", "", 2 << 20, 0.2e-6 + 2*(2<<20)/50e9 + sw, "messages.same_core: ranks 0 and 2 take turns on core 0), its bytes' part x 2 (messages.shared"},
		{"every rank copies, 256 KiB, no same_core", strings.Replace(sharing, "  rinf: bw\n", "  rinf: bw\n  shared: {factor: 2, source: test}\n", 1), everyRank, "32768", "", 256 << 10, 1e-6 + 2*(256<<10)/5e9 + sw, "messages.shared"},
		{"exchange in place, one core", same, exchange, "1024", "", 8192, 2*sameLaw(8192) + sw, "two messages of messages.same_core in series"},
		{"exchange in place, every rank", same, exchangeAll, "1024", "", 8192, 2e-6 + 8192/4e9 + sw, "messages.exchange"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := machines.Parse("cores.yaml", []byte(tt.table))
			if err != nil {
				t.Fatal(err)
			}
			src := strings.ReplaceAll(strings.ReplaceAll(tt.src, "PEER", tt.peer), "N]", tt.n+"]")
			k := checkSource(t, "k.spmd", src)
			pred := predictCached(t, k, m, Options{})
			var msg *Term
			for _, r := range pred.Regions {
				for i, term := range r.Terms {
					if term.Resource == "message" && msg == nil {
						msg = &r.Terms[i]
					}
				}
			}
			if msg == nil {
				t.Fatalf("no message term in %+v", pred.Regions)
			}
			if !sameTime(msg.UnitCost, tt.want) || !strings.Contains(msg.How, tt.how) {
				t.Errorf("%s: %g s (%s), want %g s (%s)", msg.What, msg.UnitCost, msg.How, tt.want, tt.how)
			}
			if tt.peer == "" {
				return
			}
			// The emulator's price of the same message, without the
			// switch it charges apart.
			dst := int64(tt.peer[0] - '0')
			rep, err := analyze.Analyze(k, analyze.Options{Cache: m.CacheHierarchy()})
			if err != nil {
				t.Fatal(err)
			}
			if got := PricerFor(k, rep, m, Options{}).Message(0, dst, int64(tt.bytes)); !sameTime(got, tt.want-sw) {
				t.Errorf("the emulator's message 0 -> %d costs %g s, want %g s", dst, got, tt.want-sw)
			}
		})
	}
}
