package emulate

import (
	"fmt"
	"strings"

	"perfc/internal/jsonwalk"
	"perfc/internal/units"
	"perfc/lang"
)

// checkedPricer passes a Pricer's prices to the emulator and keeps the
// first that is negative or not finite, with what was priced; the emulator
// gets 0 in its place, so that the run ends normally and Emulate can
// return the error. It also keeps the largest price, the likely cause of a
// sum that overflows.
type checkedPricer struct {
	Pricer
	err     error
	largest price
}

// price is one call of a Pricer, kept to describe it in an error.
type price struct {
	t                   float64
	message             bool // a point-to-point message, else a collective
	src, dst            int64
	kind, op, elem      string
	bytes, participants int64
}

// String describes the priced event.
func (p price) String() string {
	if p.message {
		return fmt.Sprintf("a message of %s B from rank %d to rank %d", units.Int(p.bytes), p.src, p.dst)
	}
	return fmt.Sprintf("a call of %s with %s B on %s ranks", strings.Join(strings.Fields(p.kind+" "+p.op+" "+p.elem), " "),
		units.Int(p.bytes), units.Int(p.participants))
}

// Message implements Pricer.
func (c *checkedPricer) Message(src, dst int64, bytes int64) float64 {
	t := c.Pricer.Message(src, dst, bytes)
	if usable(t) && t <= c.largest.t {
		return t
	}
	return c.keep(price{t: t, message: true, src: src, dst: dst, bytes: bytes})
}

// Collective implements Pricer.
func (c *checkedPricer) Collective(kind, op, elem string, bytes int64, participants int64) float64 {
	t := c.Pricer.Collective(kind, op, elem, bytes, participants)
	if usable(t) && t <= c.largest.t {
		return t
	}
	return c.keep(price{t: t, kind: kind, op: op, elem: elem, bytes: bytes, participants: participants})
}

// collectiveAfterBarrier is ip's CollectiveAfterBarrier, checked as Collective.
func (c *checkedPricer) collectiveAfterBarrier(ip AfterBarrierPricer, kind, op, elem string, bytes int64, participants int64) float64 {
	t := ip.CollectiveAfterBarrier(kind, op, elem, bytes, participants)
	if usable(t) && t <= c.largest.t {
		return t
	}
	return c.keep(price{t: t, kind: kind, op: op, elem: elem, bytes: bytes, participants: participants})
}

// keep records a price larger than any before, or the first unusable one
// (then the emulator gets 0).
func (c *checkedPricer) keep(p price) float64 {
	if usable(p.t) {
		c.largest = p
		return p.t
	}
	if c.err == nil {
		c.err = fmt.Errorf("%s costs %s", p, badCost(p.t))
		if entry := c.entryError(p); entry != nil {
			c.err = entry
		}
	}
	return 0
}

// entryError names the machine table's entry behind an unusable price when
// the pricer is an EntryChecker (a machine table's pricer) and the entry is
// an expression or a measured table (machines.Cost.Check).
func (c *checkedPricer) entryError(p price) error {
	ec, ok := c.Pricer.(EntryChecker)
	if !ok {
		return nil
	}
	if p.message {
		return ec.MessageEntryError(p.src, p.dst, p.bytes, p.String())
	}
	return ec.CollectiveEntryError(p.kind, p.op, p.elem, p.bytes, p.participants, p.String())
}

// Cluster implements Pricer: a message between nodes is checked as
// Message is.
func (c *checkedPricer) Cluster() *Cluster {
	cl := c.Pricer.Cluster()
	if cl == nil || cl.Inter == nil {
		return cl
	}
	out := *cl
	inter := cl.Inter
	out.Inter = func(bytes int64) float64 {
		t := inter(bytes)
		if usable(t) {
			return t
		}
		if c.err == nil {
			c.err = fmt.Errorf("a message of %s B between two nodes of the cluster costs %s: check the machine table's cluster.inter and the -M overrides", units.Int(bytes), badCost(t))
		}
		return 0
	}
	return &out
}

// checkEmulation is the last step of Emulate: the first unusable price the
// emulator met, else any time of the result that is not finite (a sum of
// finite costs can still overflow).
func checkEmulation(k *lang.Checked, p *checkedPricer, em *Emulation) error {
	if p.err != nil {
		return p.err
	}
	for _, r := range em.PerRank {
		if r.Compute < 0 {
			return fmt.Errorf("kernel %s: rank %d computes for a negative time (%s): a compute or memory cost of the machine table goes below zero; perfc predict --no-emulation names the term",
				k.Kernel.Name.Name, r.Rank, units.Time(r.Compute))
		}
	}
	if err := jsonwalk.CheckFinite("the emulation of kernel "+k.Kernel.Name.Name, em); err != nil {
		if p.largest.t > 0 {
			return fmt.Errorf("%w; the largest single cost is %s at %g s", err, p.largest, p.largest.t)
		}
		return err
	}
	return nil
}

// usable reports whether a price is a time the emulator can use.
func usable(t float64) bool { return t >= 0 && isFinite(t) }

// badCost says what is wrong with a price.
func badCost(t float64) string {
	if t < 0 {
		return "a negative time (" + units.Time(t) + ")"
	}
	return fmt.Sprintf("%g s, not a usable time", t)
}
