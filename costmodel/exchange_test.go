package costmodel

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"perfc/machines"
)

// TestExchangeLaw checks that a table's messages.exchange prices a whole
// in-place sendrecv or exchange event (the copy to scratch and both halves
// in series, as the goroutine runtime does them), with a fixed peer and
// with a peer that varies (the walked path); that a sendrecv into another
// buffer costs its two halves in series; that it leaves plain sends and
// receives alone; and that without it the halves overlap as before. Times
// worked by hand: a message of 1024 B costs 1 µs + 1024 B / 1 GB/s =
// 2.024 µs; an exchange of 1024 B each way 3 µs + 1024 B / 0.5 GB/s =
// 5.048 µs.
func TestExchangeLaw(t *testing.T) {
	base := mustRead(t, "testdata/ecm.yaml")
	plain, err := machines.Parse("ecm.yaml", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	withX, err := machines.Parse("ecmx.yaml", []byte(base+`  exchange:
    source: test COMMS2
    model: hockney
    t0: 3us
    rinf: 0.5GB/s
`))
	if err != nil {
		t.Fatal(err)
	}
	const head = "kernel k(n = 128) on P = 2 ranks {\n  array a[n], b[n]: f64\n  region \"r\" {\n"
	tests := []struct {
		name      string
		body      string
		want      float64 // with the exchange law, µs
		wantPlain float64 // without it, µs
	}{
		{"exchange in place", "exchange a[0:n] with rank ^ 1", 5.048, 2.024},
		{"sendrecv in place", "sendrecv a[0:n] to rank ^ 1 from rank ^ 1", 5.048, 2.024},
		{"sendrecv into another buffer", "sendrecv a[0:n] to rank ^ 1 from rank ^ 1 into b[0:n]", 4.048, 2.024},
		{"peer that varies", "for d in 0..1 { exchange a[0:n] with rank ^ (1 << d) }", 5.048, 2.024},
		{"peer that varies, into another buffer", "for d in 0..1 { sendrecv a[0:n] to rank ^ (1 << d) from rank ^ (1 << d) into b[0:n] }", 4.048, 2.024},
		{"pingpong", "if rank == 0 { send a[0:n] to 1\n recv a[0:n] from 1 } else { recv a[0:n] from 0\n send a[0:n] to 0 }", 4.048, 4.048},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := head + "    " + tc.body + "\n  }\n}\n"
			for _, c := range []struct {
				m    *machines.Machine
				want float64
			}{{withX, tc.want}, {plain, tc.wantPlain}} {
				p, err := predictSource(t, c.m, src, Options{})
				if err != nil {
					t.Fatal(err)
				}
				got := 0.0
				for _, r := range p.Regions {
					if r.Name == "r" {
						got = r.Messages * 1e6
					}
				}
				// Point-to-point messages: the emulated critical path is
				// the total, and agrees.
				if p.Emulation == nil || math.Abs(p.Total*1e6-c.want) > 1e-6 {
					t.Errorf("%s: emulated total %.6g µs, want %.6g µs", c.m.Name(), p.Total*1e6, c.want)
				}
				if math.Abs(got-c.want) > 1e-9 {
					var terms []string
					for _, r := range p.Regions {
						for _, tm := range r.Terms {
							terms = append(terms, tm.What+": "+tm.How)
						}
					}
					t.Errorf("%s: messages %.6g µs, want %.6g µs\n%s", c.m.Name(), got, c.want, strings.Join(terms, "\n"))
				}
			}
		})
	}
}

// TestExchangeLawSharedCores checks the exchange law when four ranks share
// two cores: the emulator copies both messages of an exchange on the core
// of the rank that arrives second, so each costs half the law and the
// event takes the law on one core, and the two pairs copy on the two
// cores at once (pairCopier), as comms2 and hypercube at P = 4 measure
// (the time of P = 2 in L2): one exchange takes the law, four take four
// times it. A sendrecv into another buffer keeps its two messages, which
// the cores put in series.
func TestExchangeLawSharedCores(t *testing.T) {
	m, err := machines.Parse("ecmx.yaml", []byte("cores: 2\n"+mustRead(t, "testdata/ecm.yaml")+`  exchange:
    source: test COMMS2
    model: hockney
    t0: 3us
    rinf: 0.5GB/s
`))
	if err != nil {
		t.Fatal(err)
	}
	const head = "kernel k(n = 128) on P = 4 ranks {\n  array a[n], b[n]: f64\n  region \"r\" {\n"
	for _, tc := range []struct {
		name string
		body string
		want float64 // µs
	}{
		{"exchange in place", "exchange a[0:n] with rank ^ 1", 5.048},
		{"sendrecv into another buffer", "sendrecv a[0:n] to rank ^ 1 from rank ^ 1 into b[0:n]", 4.048},
		{"exchanges in place, four times", "repeat 4 { exchange a[0:n] with rank ^ 1 }", 4 * 5.048},
	} {
		p, err := predictSource(t, m, head+"    "+tc.body+"\n  }\n}\n", Options{})
		if err != nil {
			t.Fatal(err)
		}
		if p.Emulation == nil || math.Abs(p.Total*1e6-tc.want) > 1e-6 {
			t.Errorf("%s: emulated total %.6g µs, want %.6g µs", tc.name, p.Total*1e6, tc.want)
		}
	}
}

// TestSendRecvLaw checks that a table's messages.sendrecv prices a whole
// sendrecv event into another buffer between two ranks with a core each
// (both partners at once, as COMMS3 on two ranks measures it), with a
// fixed peer and with one that varies (the walked path), on the emulated
// path and in the region table alike; that in a kernel that computes with
// what it receives the event adds each half's crossing beyond
// messages.local; that a sendrecv to and from the rank itself is one copy;
// that an exchange in place keeps messages.exchange and plain messages
// their law; and that with ranks sharing cores a sendrecv into another
// buffer keeps its two messages. Times worked by hand for 1024 B: the
// sendrecv law 0.5 µs + 1024 B / 1 GB/s = 1.524 µs; the exchange law
// 5.048 µs and a message 2.024 µs (TestExchangeLaw); messages.local
// 0.5 µs + 1024 B / 2 GB/s = 1.012 µs, so a half's crossing (the mean of
// the message law and the local one) is 0.506 µs beyond it.
func TestSendRecvLaw(t *testing.T) {
	const laws = `  exchange:
    source: test COMMS2
    model: hockney
    t0: 3us
    rinf: 0.5GB/s
  sendrecv:
    source: test COMMS3 on two ranks
    model: hockney
    t0: 0.5us
    rinf: 1GB/s
`
	const local = `  local:
    source: test LOCAL
    model: hockney
    t0: 0.5us
    rinf: 2GB/s
`
	base := mustRead(t, "testdata/ecm.yaml")
	own, err := machines.Parse("ecms.yaml", []byte(base+laws))
	if err != nil {
		t.Fatal(err)
	}
	withLocal, err := machines.Parse("ecml.yaml", []byte(base+laws+local))
	if err != nil {
		t.Fatal(err)
	}
	shared, err := machines.Parse("ecms2.yaml", []byte("cores: 2\n"+base+laws))
	if err != nil {
		t.Fatal(err)
	}
	const kernel = "kernel k(n = 128) on P = %d ranks {\n  array a[n], b[n]: f64\n  region \"r\" {\n    %s\n  }\n%s}\n"
	const reads = "  region \"use\" {\n    a[0] = b[1]\n  }\n"
	tests := []struct {
		name  string
		m     *machines.Machine
		ranks int
		body  string
		after string  // a region after r
		want  float64 // r's messages, and without after the emulated total, µs
		how   string  // in the send half's term
	}{
		{"sendrecv into another buffer", own, 2, "sendrecv a[0:n] to rank ^ 1 from rank ^ 1 into b[0:n]", "", 1.524, "messages.sendrecv"},
		{"peer that varies, into another buffer", own, 2, "for d in 0..1 { sendrecv a[0:n] to rank ^ (1 << d) from rank ^ (1 << d) into b[0:n] }", "", 1.524, "messages.sendrecv"},
		{"bytes", own, 2, "sendrecv 1024 bytes to rank ^ 1 from rank ^ 1", "", 1.524, "messages.sendrecv"},
		{"with a local law", withLocal, 2, "sendrecv a[0:n] to rank ^ 1 from rank ^ 1 into b[0:n]", "", 1.524, "messages.sendrecv"},
		{"a kernel that reads what it receives", withLocal, 2, "sendrecv a[0:n] to rank ^ 1 from rank ^ 1 into b[0:n]", reads, 1.524 + 2*0.506, "crossing the cores once more"},
		{"to and from itself", withLocal, 2, "sendrecv a[0:n] to rank from rank into b[0:n]", "", 1.012, "one copy on the rank's core"},
		{"exchange in place", own, 2, "exchange a[0:n] with rank ^ 1", "", 5.048, "messages.exchange"},
		{"pingpong", own, 2, "if rank == 0 { send a[0:n] to 1\n recv a[0:n] from 1 } else { recv a[0:n] from 0\n send a[0:n] to 0 }", "", 4.048, "hockney model"},
		// Each pair's side that arrives second copies both halves (2 ×
		// 2.024 µs) on its core, the two pairs on the two cores.
		{"ranks sharing cores", shared, 4, "sendrecv a[0:n] to rank ^ 1 from rank ^ 1 into b[0:n]", "", 4.048, "in series with the other half"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := predictSource(t, tc.m, fmt.Sprintf(kernel, tc.ranks, tc.body, tc.after), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if tc.after == "" && (p.Emulation == nil || math.Abs(p.Total*1e6-tc.want) > 1e-6) {
				t.Errorf("emulated total %.6g µs, want %.6g µs", p.Total*1e6, tc.want)
			}
			var got float64
			var hows []string
			for _, r := range p.Regions {
				if r.Name != "r" {
					continue
				}
				got = r.Messages * 1e6
				for _, tm := range r.Terms {
					hows = append(hows, tm.What+": "+tm.How)
				}
			}
			if math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("region's messages %.6g µs, want %.6g µs\n%s", got, tc.want, strings.Join(hows, "\n"))
			}
			if all := strings.Join(hows, "\n"); !strings.Contains(all, tc.how) {
				t.Errorf("terms do not say %q:\n%s", tc.how, all)
			}
		})
	}
}

// TestSendRecvToItselfShared checks that a sendrecv to and from the rank
// itself beyond the private caches (testdata/ecm.yaml: L2 of 1 MiB), the
// other rank copying at the same time, costs the sendrecv law, and below
// them one LOCAL copy (messages.shared is not used). By hand: 1 MiB by
// the sendrecv law 0.5 µs + 1 MiB / 1 GB/s = 1049.076 µs; 512 KiB by
// messages.local 0.5 + 512 KiB / 2 GB/s = 262.644 µs.
func TestSendRecvToItselfShared(t *testing.T) {
	m, err := machines.Parse("ecmself.yaml", []byte(mustRead(t, "testdata/ecm.yaml")+`  sendrecv:
    source: test COMMS3 on two ranks
    model: hockney
    t0: 0.5us
    rinf: 1GB/s
  local:
    source: test LOCAL
    model: hockney
    t0: 0.5us
    rinf: 2GB/s
  shared:
    factor: 1.5
    source: test COMMS3 laws
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		n    int
		want float64 // µs
	}{{131072, 0.5 + 1048.576}, {65536, 0.5 + 262.144}} {
		src := fmt.Sprintf("kernel k(n = %d) on P = 2 ranks {\n  array a[n], b[n]: f64\n  region \"r\" {\n    sendrecv a[0:n] to rank from rank into b[0:n]\n  }\n}\n", tc.n)
		p, err := predictSource(t, m, src, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(p.Total*1e6-tc.want) > 1e-6 {
			t.Errorf("n = %d: %.6g µs, want %.6g µs", tc.n, p.Total*1e6, tc.want)
		}
	}
}
