package costmodel

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"perfc/machines"
)

// TestIsendsAtOnce checks that the message of an isend that every rank
// posts, between ranks on different cores and beyond the first-level
// cache, costs the sendrecv law (both cores copy at once) in the emulation
// and in the region's breakdown, and that a short message, an isend in a
// branch and ranks of one core keep their law.
func TestIsendsAtOnce(t *testing.T) {
	const sendrecv = `  sendrecv:
    source: test COMMS3 on two ranks
    model: hockney
    t0: 0.5us
    rinf: 2GB/s
`
	base := mustRead(t, "testdata/ecm.yaml")
	parse := func(name, src string) *machines.Machine {
		m, err := machines.Parse(name, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	top := parse("top.yaml", base)
	law := parse("law.yaml", base+sendrecv)
	shared := parse("shared.yaml", "cores: 1\n"+base+sendrecv)
	topShared := parse("topshared.yaml", "cores: 1\n"+base)

	bound := parse("bound.yaml", "cores: 2\n"+base+sendrecv)
	topBound := parse("topbound.yaml", "cores: 2\n"+base)

	const post = "irecv b[0:n] from rank ^ 1 as r\n    isend a[0:n] to rank ^ 1 as s"
	// Four ranks on two cores: rank r on core r mod 2, so rank ^ 1 is on
	// the other core and rank ^ 2 on the same one.
	const post4 = "irecv b[0:n] from rank ^ 2 as r\n    isend a[0:n] to rank ^ 2 as s"
	const branch = "if rank == 0 {\n      irecv b[0:n] from 1 as r\n      isend a[0:n] to 1 as s\n    } else {\n      irecv b[0:n] from 0 as r\n      isend a[0:n] to 0 as s\n    }"
	const kernel = "kernel k(n = %d) on P = %d ranks {\n  array a[n], b[n]: f64\n  region \"post\" {\n    %s\n  }\n  region \"wait\" {\n    wait r, s\n  }\n}\n"
	const lawDiff = (0.5 + 32.768) - (1 + 65.536) // 64 KiB: by the sendrecv law, by the top-level one
	tests := []struct {
		name      string
		with, off *machines.Machine
		ranks     int
		n         int
		body      string
		change    float64 // the emulated total with the law less without, µs
	}{
		{"every rank posts, beyond L1", law, top, 2, 8192, post, lawDiff},
		{"a message in L1", law, top, 2, 16, post, 0},
		{"isends in a branch", law, top, 2, 8192, branch, 0},
		{"ranks of one core", shared, topShared, 2, 8192, post, 0},
		// The two cores copy at once, as with a core each: an isend's
		// copy hands no core over, and one transfer is on the path.
		{"four ranks on two cores, across them", bound, topBound, 4, 8192, post, lawDiff},
		{"four ranks on two cores, within one", bound, topBound, 4, 8192, post4, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := fmt.Sprintf(kernel, tc.n, tc.ranks, tc.body)
			with, err := predictSource(t, tc.with, src, Options{})
			if err != nil {
				t.Fatal(err)
			}
			without, err := predictSource(t, tc.off, src, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if with.Emulation == nil {
				t.Fatal("no emulation")
			}
			if got := (with.Total - without.Total) * 1e6; math.Abs(got-tc.change) > 1e-6 {
				t.Errorf("the law changes the total by %.6g µs, want %.6g µs", got, tc.change)
			}
			var hows []string
			for _, r := range with.Regions {
				for _, tm := range r.Terms {
					hows = append(hows, tm.How)
				}
			}
			says := strings.Contains(strings.Join(hows, "\n"), "every rank posts its isends")
			if says != (tc.change != 0) {
				t.Errorf("breakdown names the law: %v, want %v:\n%s", says, tc.change != 0, strings.Join(hows, "\n"))
			}
		})
	}
}
