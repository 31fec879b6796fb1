package costmodel

import (
	"fmt"
	"math"

	"perfc/analyze"
	"perfc/costmodel/emulate"
	"perfc/internal/units"
	"perfc/machines"
)

// Ranks sharing cores (docs/predict.md, "Ranks sharing cores"): a table's
// cores key says how many cores the kernel's ranks share (goroutine ranks
// on a host). The emulator runs P > C ranks on C cores (emulate.CoreSharer,
// implemented here); the region table scales each region's compute and
// memory time by what the emulation gives for ranks that all compute that
// region alike, and adds the core switch to every blocking message.

// Cores implements emulate.CoreSharer: the cores the table says the ranks
// share, or 0 (every rank has its own).
func (p *machinePricer) Cores() int {
	n, ok := p.m.Cores()
	if !ok || n.Value > math.MaxInt32 {
		return 0
	}
	return int(n.Value)
}

// CoreSwitch implements emulate.CoreSharer: the table's core_switch, or 0.
func (p *machinePricer) CoreSwitch() float64 {
	n, ok := p.m.CoreSwitch()
	if !ok {
		return 0
	}
	return n.Value
}

// mpiTimeSlice is the time slice of ranks that are processes of one host
// sharing its cores (an MPI table: host.backend mpi): Open MPI's
// oversubscribed ranks yield at every poll, and Linux's scheduler gives a
// compute-bound process a slice of a few milliseconds when others wait
// (sched_latency over the tasks on the core); 10 ms is Go's forcePreemptNS,
// which the emulator took for goroutine ranks until they got a scheduler of
// their own.
const mpiTimeSlice = 10e-3

// TimeSlice implements emulate.CoreSharer: +Inf for goroutine ranks, whose
// runtime lets a rank keep its core until it waits (codegen/spmd/cores.go);
// mpiTimeSlice for a table whose messages went through MPI.
func (p *machinePricer) TimeSlice() float64 {
	if p.m.MeasuredThroughMPI() {
		return mpiTimeSlice
	}
	return math.Inf(1)
}

// BindsRanks implements emulate.RankBinder: goroutine ranks each take
// turns on a core of their own, rank r on core r mod C
// (codegen/spmd/cores.go); a table whose messages went through MPI has
// ranks that are processes, which the operating system moves to whichever
// core is free (Open MPI binds no rank when they oversubscribe a node).
func (p *machinePricer) BindsRanks() bool { return !p.m.MeasuredThroughMPI() }

// sharesBoundCores reports whether more ranks than cores share the
// table's cores, each bound to its own (BindsRanks).
func (p *machinePricer) sharesBoundCores() bool { return p.sharesCores() && p.BindsRanks() }

// sameCore reports whether ranks a and b take turns on one core: they
// share bound cores (sharesBoundCores) and a and b are two ranks of one
// core, r mod C.
func (p *machinePricer) sameCore(a, b int64) bool {
	c := int64(p.Cores())
	return p.sharesBoundCores() && a != b && a%c == b%c
}

// sharesCores reports whether more ranks than cores share the table's
// cores.
func (p *machinePricer) sharesCores() bool {
	c := p.Cores()
	return c > 0 && p.ranks > int64(c)
}

// shareCores scales the compute and memory time of a class's regions by
// the sharing of cores, once their costs are recorded for the emulator
// (which models the sharing itself): a region whose compute segments take
// d each costs emulate.SharedMakespan(d)/d times its own time, ⌈P/C⌉ for
// segments of at most a time slice (all of them, for goroutine ranks). The difference is a term of its own,
// "waiting for a core", so that the breakdown still adds up.
func (p *machinePricer) shareCores(cl *analyze.Class, regions []RegionPrediction) {
	if !p.sharesCores() {
		return
	}
	var segs map[string]float64 // counted once a region takes longer than a slice
	c := p.Cores()
	slice := p.TimeSlice()
	for i := range regions {
		rp := &regions[i]
		own := composeTime(p.m.Compose(), rp.Compute, rp.Memory)
		if own <= 0 {
			continue
		}
		d := own // every segment is at most a slice: the factor is ⌈P/C⌉ whatever d
		segments := "compute segments of at most a time slice"
		if math.IsInf(slice, 1) {
			segments = "a rank keeps its core until it waits"
		}
		if own > slice {
			if segs == nil {
				segs = p.segmentsByRegion(cl)
			}
			n, ok := segs[rp.Name]
			if !ok {
				p.note(fmt.Sprintf("ranks %s: the compute segments of region %q were not counted (too many events); the region table assumes segments of a time slice (%s) there", cl.Ranks, rp.Name, units.Time(slice)))
				n = math.Ceil(own / slice)
			}
			d = own / max(n, 1)
			segments = fmt.Sprintf("compute segments of %s", units.Time(d))
		}
		f := emulate.SharedMakespan(d, p.ranks, c, slice) / d
		if f <= 1 {
			continue
		}
		rp.Compute *= f
		rp.Memory *= f
		rp.Terms = append(rp.Terms, Term{Resource: "cores", What: fmt.Sprintf("waiting for a core (%d ranks share %d cores)", p.ranks, c),
			Count: f - 1, Unit: "turn of the region's own time", UnitCost: own, Time: (f - 1) * own,
			How: fmt.Sprintf("the ranks take turns on the cores: the region's compute and memory time x %.4g, as the emulator gives for ranks that all compute it alike (%s; docs/predict.md)", f, segments)})
		rp.Time = composeTime(p.m.Compose(), rp.Compute, rp.Memory) + rp.Messages + rp.Collectives
		rp.Bottleneck = bottleneckOf(*rp)
	}
}

// segmentsByRegion counts the compute segments of a class's representative
// by region (a region's segments are its stretches of compute between
// communication), or returns an empty map when its schedule cannot be
// walked within
// maxWalkedEvents events (then it is empty).
func (p *machinePricer) segmentsByRegion(cl *analyze.Class) map[string]float64 {
	s, err := p.schedule(cl.Rank)
	if err != nil {
		return nil
	}
	out := map[string]float64{}
	n := 0
	err = s.Events(func(ev *analyze.Event) bool {
		n++
		if ev.Kind == analyze.EvCompute {
			out[ev.Work.Region]++
		}
		return n < maxWalkedEvents
	})
	if err != nil || n >= maxWalkedEvents {
		return map[string]float64{}
	}
	return out
}

// switchTerm adds the core switch to a message's unit cost when ranks
// share cores, as the emulator charges it.
func (p *machinePricer) switchTerm(unit float64, how string) (float64, string) {
	if !p.sharesCores() {
		return unit, how
	}
	sw := p.CoreSwitch()
	if sw == 0 {
		return unit, how
	}
	return unit + sw, how + fmt.Sprintf(" + core switch %s (ranks sharing cores)", units.Time(sw))
}

// fewCopiers reports whether the ranks that send or receive
// point-to-point messages are known and no more than the table's cores:
// they copy one message per core at a time, as the two-rank message laws
// were measured (messages.sharing applies, messages.shared does not).
func (p *machinePricer) fewCopiers() bool {
	return p.copiers > 0 && p.copiers <= int64(p.Cores())
}

// sharedFactor is the table's slowdown of concurrent copies
// (messages.shared) for a message from src to dst, or 1: it applies when
// more ranks than cores share the table's cores and more of them than
// cores send or receive messages (then the cores copy messages at the
// same time, which the two-rank message law never saw; a pingpong
// between two of four ranks copies one message at a time), to messages
// that do not fit in a core's private caches (privateCacheBytes: a
// shorter one is copied within the core, untouched by the others),
// inside one node (a cluster's network law is measured as it is). Under
// messages.local and messages.same_core, laws of copies between two
// spinning ranks, it applies to messages longer than the first-level
// cache (firstCacheBytes): at P = 4 on 2 cores every message of
// meshshift at 256 KiB a message cost 7-10 µs, one on each core at once,
// where those laws give 5.0 and 5.3 µs (docs/predict.md, "Ranks sharing
// cores"). Beyond the private caches the factor is the table's own
// per-length law of two copies at once (beyondPrivate) where it has one.
// from names where the factor came from, for the explanation.
func (p *machinePricer) sharedFactor(mm *machines.MessageModel, src, dst int64, bytes float64) (f float64, from string) {
	sc := p.m.SharedCopies()
	private := p.privateCacheBytes()
	if mm != nil && (mm == p.m.LocalMessages() || mm == p.m.SameCoreMessages()) {
		private = p.firstCacheBytes()
	}
	if sc == nil || !p.sharesCores() || bytes < private || p.fewCopiers() || p.crossesNodes(src, dst) {
		return 1, ""
	}
	if p.aloneCopies && bytes >= p.privateCacheBytes() {
		return 1, ""
	}
	if f, ok := p.beyondPrivate(bytes); ok {
		return f, "messages.sendrecv over messages.local at this length, beyond the private caches"
	}
	return sc.Factor.Value, "messages.shared"
}

// AloneCopies implements emulate.SharedCopier: the pricer without the
// slowdown of copies at once for messages at least as long as the
// private caches (sharedFactor), whose copies stream from the level the
// cores share, and that length; nil when the table's prices have no such
// slowdown (no messages.shared, or every rank has a core). The emulator
// prices each such copy by the copies that run beside it (docs/emulate.md,
// "Copies beside copies"). The copy shares the pricer's state, which
// pricing a message does not change.
func (p *machinePricer) AloneCopies() (emulate.Pricer, int64) {
	private := p.privateCacheBytes()
	if p.m.SharedCopies() == nil || !p.sharesCores() || p.fewCopiers() || private == 0 {
		return nil, 0
	}
	alone := *p
	alone.aloneCopies = true
	return &alone, int64(private)
}

// beyondPrivate is the slowdown of a copy of bytes beyond a core's
// private caches while the other cores copy too: the table's law of two
// ranks copying at once, one on each core (messages.sendrecv, COMMS3 on
// two ranks), over its law of one copy alone (messages.local), at that
// length, and at least 1. Such copies stream from the last-level cache
// or memory, which the cores share: on this project's 2-core host the
// ratio is 1.95-2.0 from 1 to 32 MiB, and comms2 at P = 4 measures an
// exchange at 1.9 × its time at P = 2 in L3 and from memory (one pair's
// copies on each core) and at 1.0 in L2. messages.shared, a slope through
// COMMS3's lengths from 8 B to 1 MiB, is 1.41-1.53 there. ok is false
// when the table lacks either law or bytes fit in the private caches.
func (p *machinePricer) beyondPrivate(bytes float64) (float64, bool) {
	sr, lm := p.m.SendRecv(), p.m.LocalMessages()
	if sr == nil || lm == nil || bytes < p.privateCacheBytes() || p.privateCacheBytes() == 0 {
		return 0, false
	}
	one := lm.Time(bytes, 0)
	if !(one > 0) {
		return 0, false
	}
	return max(1, sr.Time(bytes, 0)/one), true
}

// withShared is a message's time t, of which t0 is the law's time of no
// bytes, with the bytes' part scaled by the slowdown f of copies at the
// same time: the start-up is the ranks' own (and their turns on the
// cores are priced apart), the bytes stream through what the cores share.
func withShared(t, t0, f float64) float64 {
	if f <= 1 || t <= t0 {
		return t
	}
	return t0 + f*(t-t0)
}

// sharedCopies scales the bytes' part of the time t of a message of bytes
// under model mm at level and says so.
func (p *machinePricer) sharedCopies(mm *machines.MessageModel, level int, src, dst int64, bytes, t float64, how string) (float64, string) {
	f, from := p.sharedFactor(mm, src, dst, bytes)
	if f <= 1 {
		return t, how
	}
	return withShared(t, mm.Time(0, level), f), how + fmt.Sprintf(", its bytes' part x %.4g (%s: %d ranks share %d cores, which copy at the same time)", f, from, p.ranks, p.Cores())
}

// copyingRanks counts the ranks whose class sends or receives
// point-to-point messages (blocking or requests).
func copyingRanks(rep *analyze.Report) int64 {
	var n int64
	for _, cl := range rep.Classes {
		for _, msg := range cl.Total.Messages {
			if msg.Count.Float() > 0 {
				n += cl.Ranks.Len()
				break
			}
		}
	}
	return n
}

// privateCacheBytes is the size of the largest cache level a core has to
// itself, taken to be every level but the last (the last-level cache is
// shared by the cores of the host this was calibrated on and of most
// multicore CPUs; a table with one level has none private): 0 without
// caches.
func (p *machinePricer) privateCacheBytes() float64 {
	caches := p.m.Memory().Caches()
	if len(caches) < 2 {
		return 0
	}
	return float64(caches[len(caches)-2].Size)
}

// firstCacheBytes is the size of the table's first cache level (a core's
// L1 data cache); 0 without caches.
func (p *machinePricer) firstCacheBytes() float64 {
	caches := p.m.Memory().Caches()
	if len(caches) == 0 {
		return 0
	}
	return float64(caches[0].Size)
}
