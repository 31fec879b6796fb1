package emulate

import (
	"encoding/json"
	"math"
	"testing"

	"perfc/lang"
)

// pingKernel sends one message of n f64 from rank 0 to rank 1.
const pingKernel = `
kernel ping(n = 8) on P = 2 ranks {
  array buf[n]: f64
  region "ping" {
    if rank == 0 {
      send buf[0:n] to 1
    } else {
      recv buf[0:n] from 0
    }
  }
}
`

// TestEmulateRefusesUnusablePrices checks that a price that is negative,
// infinite or NaN stops Emulate with the event it priced, whatever the
// Pricer.
func TestEmulateRefusesUnusablePrices(t *testing.T) {
	k := checkSource(t, "k.spmd", pingKernel)
	coll := checkSource(t, "c.spmd", `
kernel coll() on P = 4 ranks {
  array a[4]: f64
  allreduce sum a[0:4]
}
`)
	work := checkSource(t, "w.spmd", `
kernel busy(n = 8) on P = 2 ranks {
  array a[n]: f64
  for i in 0..n {
    a[i] = a[i] * 2.0
  }
}
`)
	tests := []struct {
		name string
		k    *lang.Checked
		p    unitPricer
		want string
	}{
		{"negative message", k, unitPricer{msg: -1, eager: -1}, "a message of 64 B from rank 0 to rank 1 costs a negative time (-1 s)"},
		{"infinite message", k, unitPricer{msg: math.Inf(1), eager: -1}, "a message of 64 B from rank 0 to rank 1 costs +Inf s, not a usable time"},
		{"NaN collective", coll, unitPricer{coll: math.NaN(), eager: -1}, "a call of allreduce sum f64 with 32 B on 4 ranks costs NaN s, not a usable time"},
		{"negative compute", work, unitPricer{cpu: -1, msg: 1, eager: -1}, "kernel busy: rank 0 computes for a negative time (-1 s): a compute or memory cost of the machine table goes below zero; perfc predict --no-emulation names the term"},
		{"negative message between nodes", wave(t, 4, 4, 1), negativeInter(), "a message of 512 B between two nodes of the cluster costs a negative time (-1 s): check the machine table's cluster.inter and the -M overrides"},
		{"usable", k, steps(), ""},
	}
	for _, tt := range tests {
		em, err := Emulate(tt.k, tt.p, EmulateOptions{})
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%s: error %q, want %q", tt.name, got, tt.want)
		}
		if err == nil {
			if _, err := json.Marshal(em); err != nil {
				t.Errorf("%s: the emulation does not encode as JSON: %v", tt.name, err)
			}
		}
	}
}

// negativeInter is the unit pricer on nodes of 2 x 2 ranks where a message
// between nodes costs -1 s.
func negativeInter() unitPricer {
	p := onCluster(2, 2, 0)
	p.cluster.Inter = func(int64) float64 { return -1 }
	return p
}
