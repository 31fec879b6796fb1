package emulate

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// wakePricer is the unit pricer with a wake-up cost (Waker).
type wakePricer struct {
	unitPricer
	cost, after float64
	on          bool
}

func (w wakePricer) Wakeup() (cost, after float64, ok bool) { return w.cost, w.after, w.on }

// TestWakeup checks that a blocking message, an eager receive and a barrier
// that release a rank which waited longer than after end the wake-up cost
// later, and that a shorter wait or a pricer without the cost adds nothing.
// Rank 0 computes n (one flop a unit) before it sends or reaches the
// barrier; rank 1 waits from time 0; a message and the barrier cost 1.
func TestWakeup(t *testing.T) {
	const send = `kernel w(n = 3) on P = 2 ranks {
  array a[16]: f64
  if rank == 0 {
    for i in 0..n { a[i] = a[i] * 2.0 }
    send a[0:1] to 1
  } else {
    recv a[0:1] from 0
  }
}`
	const barrier = `kernel w(n = 3) on P = 2 ranks {
  array a[16]: f64
  if rank == 0 {
    for i in 0..n { a[i] = a[i] * 2.0 }
  }
  barrier
}`
	base := unitPricer{msg: 1, coll: 1, perFlop: 1, eager: -1}
	eager := base
	eager.eager = 1 << 20
	tests := []struct {
		name   string
		src    string
		n      int
		pricer unitPricer
		on     bool
		want   float64
	}{
		{"blocking, short wait", send, 3, base, true, 4},
		{"blocking, long wait", send, 8, base, true, 8 + 1 + 100},
		{"blocking, no wake-up cost", send, 8, base, false, 9},
		{"eager, short wait", send, 3, eager, true, 4},
		{"eager, long wait", send, 8, eager, true, 8 + 1 + 100},
		{"barrier, short wait", barrier, 3, base, true, 4},
		{"barrier, long wait", barrier, 8, base, true, 8 + 1 + 100},
		{"barrier, no wake-up cost", barrier, 8, base, false, 9},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := checkSource(t, "w.spmd", tc.src, "n", fmt.Sprint(tc.n))
			em, err := Emulate(k, wakePricer{unitPricer: tc.pricer, cost: 100, after: 4, on: tc.on}, EmulateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, em.Total); diff != "" {
				t.Errorf("total (-want +got):\n%s", diff)
			}
		})
	}
}
