package emulate

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"perfc/lang"
)

// TestCopyLedger places copies by hand (copyLedger): a copy that takes 1 s
// alone and 2 s beside another (f = 2) takes the whole bandwidth alone,
// so one placed beside it waits for it; with f = 1.5 it takes 3/4, and a
// copy beside it runs at a third of its speed meanwhile.
func TestCopyLedger(t *testing.T) {
	type copyAt struct{ start, alone, shared float64 }
	tests := []struct {
		name   string
		copies []copyAt
		prune  float64 // before the last copy, when positive
		ends   []float64
	}{
		{"alone", []copyAt{{0, 1, 2}}, 0, []float64{1}},
		{"two at once, f = 2", []copyAt{{0, 1, 2}, {0, 1, 2}}, 0, []float64{1, 2}},
		{"the second starts during the first", []copyAt{{0, 1, 2}, {0.5, 1, 2}}, 0, []float64{1, 2}},
		{"the second starts after the first", []copyAt{{0, 1, 2}, {1, 1, 2}}, 0, []float64{1, 2}},
		// 0.25 of the bandwidth left for 1 s: a third of the copy, then
		// the rest alone.
		{"two at once, f = 1.5", []copyAt{{0, 1, 1.5}, {0, 1, 1.5}}, 0, []float64{1, 1 + 2.0/3}},
		// Placed later but earlier in time: half before the first, the
		// rest after it.
		{"placed out of time order", []copyAt{{10, 1, 2}, {9.5, 1, 2}}, 0, []float64{11, 11.5}},
		{"no slowdown", []copyAt{{3, 1, 1}, {3, 1, 2}}, 0, []float64{4, 4}},
		{"three at once", []copyAt{{0, 1, 2}, {0, 1, 2}, {0, 1, 2}}, 0, []float64{1, 2, 3}},
		{"pruned before", []copyAt{{0, 1, 2}, {5, 1, 2}, {5, 1, 2}}, 3, []float64{1, 6, 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newCopyLedger()
			var ends []float64
			for i, c := range tt.copies {
				if tt.prune > 0 && i == len(tt.copies)-1 {
					l.prune(tt.prune)
				}
				ends = append(ends, l.place(c.start, c.alone, c.shared))
			}
			if diff := cmp.Diff(tt.ends, ends, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("ends (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCopyLedgerBounded checks that pruning keeps a ledger within
// ledgerCap pieces when nothing can be dropped by time, and merges
// pieces of the same use.
func TestCopyLedgerBounded(t *testing.T) {
	l := newCopyLedger()
	for i := range 3 * ledgerCap / 4 {
		l.place(float64(2*i), 1, 2) // 2 pieces each: busy, then free
	}
	l.prune(0)
	if len(l.at) > ledgerCap || len(l.at) != len(l.used) {
		t.Fatalf("%d pieces (%d uses) after pruning, want at most %d", len(l.at), len(l.used), ledgerCap)
	}
	// A copy beside the last one still waits for it.
	last := float64(2 * (3*ledgerCap/4 - 1))
	if got := l.place(last, 1, 2); got != last+2 {
		t.Errorf("a copy beside the last ends at %g, want %g", got, last+2)
	}
	l.prune(math.Inf(1))
	if len(l.at) != 1 || l.used[0] != 0 {
		t.Errorf("pruned past every copy: %v %v, want one free piece", l.at, l.used)
	}
}

// besidePricer is serialPricer whose messages are priced with the
// slowdown of copies at once (msg) and which prices them alone by
// aloneMsg (SharedCopier), from `from` bytes on.
type besidePricer struct {
	serialPricer
	aloneMsg float64
	from     int64
}

func (b besidePricer) AloneCopies() (Pricer, int64) {
	alone := b.serialPricer
	alone.msg = b.aloneMsg
	return alone, b.from
}

// TestCopiesBesideCopies emulates ranks that share cores with long copies
// priced by the copies beside them (docs/emulate.md, "Copies beside
// copies"), each message 2 ms beside another copy and 1 ms alone, by
// hand. A pingpong between ranks 0 and 1 of 4 on 2 cores copies alone:
// 1 ms a message, where the price beside another gives 2. Two pairs that
// exchange at once ((0, 1) copying on core 0, (2, 3) on core 1; each
// half one message): the first pair's halves take the bandwidth for 2 ms,
// the second pair's follow, 4 ms in all, what the price of copies at once
// gives with both pairs on their cores together. Messages shorter than
// `from` keep their price.
func TestCopiesBesideCopies(t *testing.T) {
	const pingpong = `kernel pp() on P = 4 ranks {
  array a[8]: f64
  repeat 4 {
    if rank == 0 {
      send a to 1
      recv a from 1
    } else if rank == 1 {
      recv a from 0
      send a to 0
    }
  }
}`
	const pairs = `kernel e() on P = 4 ranks {
  array a[8]: f64
  exchange a with rank ^ 1
}`
	const ms = 1e-3
	serial := serialPricer{boundPricer{sharedPricer{unitPricer: unitPricer{msg: 2 * ms, eager: -1}, cores: 2}}}
	beside := besidePricer{serial, ms, 64}
	tests := []struct {
		name, src string
		p         Pricer
		want      float64 // ms
	}{
		{"pingpong beside idle ranks", pingpong, beside, 8},
		{"pingpong, the price of copies at once", pingpong, serial, 16},
		{"pingpong of messages shorter than from", pingpong, besidePricer{serial, ms, 65}, 16},
		{"two pairs at once", pairs, beside, 4},
		{"two pairs at once, the price of copies at once", pairs, serial, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			em, err := Emulate(checkSource(t, "c.spmd", tt.src), tt.p, EmulateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(em.Total/ms-tt.want) > 1e-9 {
				t.Errorf("total %g ms, want %g ms", em.Total/ms, tt.want)
			}
			checkPathCovers(t, em)
		})
	}
}

// TestSharedCopiesAloneCost checks that a copy's price alone is asked the
// way its price was (the statement's, a sendrecv's whole event) and is
// never above it.
func TestSharedCopiesAloneCost(t *testing.T) {
	serial := serialPricer{boundPricer{sharedPricer{unitPricer: unitPricer{msg: 2, eager: -1}, cores: 2}}}
	sh := newSharedCopies(besidePricer{serial, 1, 0})
	if sh == nil || sh.serial == nil {
		t.Fatal("no shared copies, or no sendrecv pricer, from a SharedCopier")
	}
	rs := &rankState{}
	rs.kind, rs.stmt = ActSendRecv, &lang.CommStmt{}
	rs.send = half{peer: 1, bytes: 8}
	rs.recv = half{peer: 1, bytes: 8}
	if got := sh.aloneCost(0, rs, 2); got != 1 {
		t.Errorf("alone cost %g, want 1", got)
	}
	if got := sh.aloneCost(0, rs, 0.5); got != 0.5 {
		t.Errorf("alone cost above the price: %g, want the price 0.5", got)
	}
	if newSharedCopies(serial) != nil || newSharedCopies(noAlone{besidePricer{serial, 1, 0}}) != nil {
		t.Error("shared copies from a pricer without them")
	}
}

// noAlone is a besidePricer that says its prices have no slowdown of
// copies at once.
type noAlone struct{ besidePricer }

func (noAlone) AloneCopies() (Pricer, int64) { return nil, 0 }
