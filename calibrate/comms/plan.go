package comms

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Bench names the benchmark a region measures.
type Bench string

// The benchmarks: PARKBENCH's COMMS1, COMMS2, COMMS3 and SYNCH1 ([001]
// §3.3, shared/reference/benchmarks.md) and one per collective kind.
const (
	Comms1 Bench = "COMMS1" // pingpong between ranks 0 and 1; t = half the round trip
	// Local is a pingpong whose payloads stay with their senders: each
	// rank sends its own buffer and receives into another, so a message
	// copies lines its sender holds, where COMMS1 returns what it
	// received and every copy reads lines the other core wrote
	// (messages.local; docs/calibrate-comms.md, "Payloads that stay").
	Local Bench = "LOCAL"
	// SameCore is COMMS1 between rank 0 and rank C of the sharingRanks
	// kernel on a host of C cores (1 < C < sharingRanks): the goroutine
	// runtime binds rank r to core r mod C, so the two take turns on core
	// 0 and every copy reads lines that core's caches hold
	// (messages.same_core; docs/calibrate-comms.md, "Partners on one
	// core").
	SameCore Bench = "SAMECORE"
	Comms2   Bench = "COMMS2" // both ranks exchange at once; t = one exchange
	Comms3   Bench = "COMMS3" // every rank sends to every other; t = the P(P−1) messages
	Synch1   Bench = "SYNCH1" // barrier; t = one barrier
	// Gap and Wake measure the wake-up of a rank that waited
	// (docs/calibrate-comms.md, "Wake-up"): rank 0 computes a gap of
	// blocks × 1000 triad elements, alone (Gap, t = the gap) or before an
	// 8-byte pingpong round trip with rank 1 (Wake, t = gap + round trip).
	Gap  Bench = "GAP"
	Wake Bench = "WAKE"
	// Req measures what a non-blocking request costs its rank
	// (messages.requests; docs/calibrate-comms.md, "Requests"): each
	// repetition posts an irecv and an isend of 8 B to the other rank in a
	// region, enters an empty region (the clock reads, taken off), and
	// waits for both in a third; it gives a ReqPost and a ReqWait point, per
	// request.
	Req     Bench = "REQ"
	ReqPost Bench = "REQ post"
	ReqWait Bench = "REQ wait"
	// Entry is the clock reads of a region entered once per repetition
	// after a barrier, empty: taken off the collectives after a barrier.
	Entry Bench = "ENTRY"
)

// afterBarrierSuffix marks the benchmark of a collective after a barrier:
// each repetition a barrier and then one call in a region of its own, as
// the IMH benchmarks time one (benchmarks.md, [000] A.4-A.5), the Entry
// region's clock reads taken off (the table's collectives'
// after_barrier:). The plain kind calls it back to back in one region
// (their time:).
const afterBarrierSuffix = " after a barrier"

// AfterBarrier is the benchmark of kind after a barrier
// (afterBarrierSuffix).
func AfterBarrier(kind string) Bench { return Bench(kind + afterBarrierSuffix) }

// afterBarrierOf is the collective kind of a benchmark after a barrier,
// and whether b is one.
func afterBarrierOf(b Bench) (string, bool) { return strings.CutSuffix(string(b), afterBarrierSuffix) }

// entersAfterBarrier reports whether a benchmark's region is entered
// once per repetition after a barrier: a collective's AfterBarrier, or
// Entry.
func (b Bench) entersAfterBarrier() bool {
	_, ok := afterBarrierOf(b)
	return ok || b == Entry
}

// reqRegions are the regions of the Req benchmark, in the order they run.
var reqRegions = [...]string{"REQ post", "REQ clock", "REQ wait"}

// gapBlock is the elements of one block of a gap's compute loop (about
// 1 µs of triad on the host).
const gapBlock = 1000

// collectiveKinds are the language's collectives (docs/language.md),
// measured against ranks and bytes; the barrier is SYNCH1.
var collectiveKinds = [...]string{"bcast", "reduce", "allreduce", "scatter", "gather", "allgather", "alltoall", "scan"}

// CollectiveKinds lists the collective kinds Run measures (barrier last).
func CollectiveKinds() []string { return append(collectiveKinds[:], "barrier") }

// bench is one timed region of a calibration kernel: a benchmark at one
// message length, repeated reps times inside the region so that one region
// lasts about the plan's target time with one build for many lengths.
type bench struct {
	kind  Bench  // COMMS1 …, or Bench(kind) for a collective
	bytes int64  // message length (per rank's block for scatter … alltoall)
	ranks int    // the kernel's P
	reps  int64  // repetitions inside the region
	per   int64  // operations timed per repetition (2 messages in a round trip)
	name  string // the region name
	// blocks is the gap of Gap and Wake: blocks of gapBlock elements that
	// rank 0 computes before each repetition's round trip.
	blocks int64
	// peer is SameCore's partner of rank 0 (the host's cores).
	peer int
}

// kernelPlan is one generated kernel: every benchmark at one rank count.
type kernelPlan struct {
	ranks   int
	mpi     bool // estimate MPI's costs (the repetitions differ, not the text)
	benches []bench
}

// sharingRanks is the kernel whose COMMS1 measures messages when ranks
// outnumber the cores (messages.sharing): 4, beyond the cores of a 2-core
// host (its law is written only when the host has fewer cores).
const sharingRanks = 4

// sizes are the message lengths of each benchmark for one mode.
type sizes struct {
	comms1, comms2, comms3, coll []int64
	// pair are COMMS3's further lengths on two ranks, where its round is
	// one sendrecv of each rank with the other at once: the law of a
	// sendrecv into another buffer (messages.sendrecv), which needs the
	// exchange's lengths where the rank counts' comparison
	// (messages.shared) needs comms3's.
	pair    []int64
	gaps    []int64 // gaps of Gap and Wake, in blocks of gapBlock elements
	ranks   []int   // rank counts of COMMS3, SYNCH1 and the collectives
	target  float64 // seconds one region should last
	samples int     // measurements per kernel (the median is kept)
	mpi     bool    // the benchmarks run as MPI processes (the estimates differ)
	// cores are the host's cores that goroutine ranks share, rank r
	// bound to core r mod cores (0: unknown, or MPI ranks, which Open MPI
	// binds to no core when they oversubscribe): with 1 < cores <
	// sharingRanks the sharingRanks kernel measures SameCore too.
	cores int
}

// pointMax is the full run's longest pingpong and exchange: 32 MiB, four
// times the host's last-level cache, so that the last range of the law is
// fitted on copies from memory. Until session 15 they stopped at 4 MiB,
// and messages of 16 and 32 MiB from memory (the suite's pingpong, comms2,
// hypercube, permutation) were priced on the 1-4 MiB range's 22.9 GB/s
// against 17 GB/s measured: -25 to -34 %.
const pointMax = 32 << 20

// modeSizes chooses the lengths: the full run measures the pingpong and
// the exchange at every power of two from 8 B to 32 MiB and at 1.5 times
// the powers from 1.5 KiB (the switches between cache regimes lie between
// them; host-baseline.md: 16 KiB and 256 KiB; the exchange at powers of
// four until session 20, whose 15 lengths no six Hockney ranges followed
// within 10 %: the 2026-11-27 01:02 law was 31 % off its 8 KiB point,
// and comms2 at 8 KiB was predicted 22 % short), the collectives from 8 B to 32 MiB
// (four times the last-level cache of the host, where no formula of the
// small lengths reaches: collSizes) on 2, 4 and 8 ranks; --quick keeps fewer
// lengths on 2 and 4 ranks. tiny is for tests: a few lengths, short regions.
func modeSizes(quick, tiny bool) sizes {
	switch {
	case tiny:
		return sizes{
			comms1: []int64{0, 8, 64, 512, 4 << 10, 32 << 10, 256 << 10},
			comms2: []int64{8, 4 << 10, 256 << 10},
			comms3: []int64{8, 4 << 10, 64 << 10},
			pair:   []int64{512, 256 << 10},
			coll:   []int64{8, 4 << 10},
			gaps:   []int64{0, 4, 64},
			ranks:  []int{2, 4}, target: 200e-6, samples: 3,
		}
	case quick:
		c1 := []int64{0, 8, 64, 512}
		for n := int64(4 << 10); n <= 4<<20; n *= 2 {
			c1 = append(c1, n)
		}
		return sizes{
			comms1: c1,
			comms2: []int64{0, 8, 512, 32 << 10, 1 << 20},
			comms3: []int64{8, 512, 32 << 10, 1 << 20},
			pair:   []int64{64, 4 << 10, 8 << 10, 256 << 10},
			coll:   []int64{8, 512, 4 << 10, 32 << 10, 128 << 10},
			gaps:   []int64{0, 4, 16, 64, 128},
			ranks:  []int{2, 4}, target: 5e-3, samples: 7,
		}
	}
	c1 := []int64{0}
	for n := int64(8); n <= pointMax; n *= 2 {
		if n == nonTemporalCopy {
			c1 = append(c1, belowNonTemporal(1))
		}
		c1 = append(c1, n)
		if n >= 1<<10 && n < pointMax {
			c1 = append(c1, 3*n/2)
		}
	}
	return sizes{
		comms1: c1,
		comms2: c1,
		comms3: []int64{8, 64, 512, 4 << 10, 32 << 10, 256 << 10, 1 << 20},
		pair:   c1[1:], // from 8 B: CoreSwitch compares the shortest lengths of two rank counts
		coll:   collFull(),
		gaps:   []int64{0, 2, 4, 8, 16, 32, 64, 128},
		ranks:  []int{2, 4, 8}, target: 20e-3, samples: 9,
	}
}

// collFull are the full run's collective lengths: 8, 64 and 512 B, then
// every power of two from 4 KiB to 32 MiB, and a length just below each
// block count's non-temporal threshold (belowNonTemporal: 1 and 2 blocks).
// The machine table interpolates linearly between them, and the cost per
// byte changes where the blocks leave a cache level (which depends on P):
// lengths eight times apart put a 500 KB bcast 30 % above its measured
// time (interpolated from 256 KiB and 2 MiB, 2026-11-26), twice apart
// within a few per cent, except across a copy's step at 1 MiB.
func collFull() []int64 {
	out := []int64{8, 64, 512}
	for n := int64(4 << 10); n <= 32<<20; n *= 2 {
		for _, blocks := range []int64{2, 1} {
			if n == nonTemporalCopy/blocks {
				out = append(out, belowNonTemporal(blocks))
			}
		}
		out = append(out, n)
	}
	return out
}

// nonTemporalCopy is the length from which Go's copy on amd64 stores
// with non-temporal instructions (runtime/memmove_amd64.s: a forward
// copy of 0x100000 bytes or more takes gobble_big_data_fwd, VMOVNTDQ),
// so that what it writes goes to memory, not into the caches. Every
// message and collective of the goroutine runtime is such a copy, and its
// cost steps at that length: a scatter of 4 ranks measured 228 µs a call
// at 1 MiB − 64 B a block and 300 µs at 1 MiB (2026-11-28), so that the
// collective's points at 512 KiB and 1 MiB, interpolated, priced the
// suite's 840,896 B scatter at 235 µs against 178 µs measured
// (docs/calibrate-comms.md, "The copy's step at 1 MiB").
const nonTemporalCopy = 1 << 20

// belowNonTemporal is a length just below the step of a copy of blocks
// blocks of it (nonTemporalCopy/blocks less 1/32 of it): a collective
// copies 1, 2, 4… blocks at once (a binomial tree's subtrees), each
// count stepping at its own length, and the table, which interpolates
// linearly between its points, needs one on each side of a step.
func belowNonTemporal(blocks int64) int64 {
	at := nonTemporalCopy / blocks
	return at - at/32
}

// plan lists the kernels of a mode: COMMS1, LOCAL and COMMS2 need two
// ranks and go into the two-rank kernel, REQ into a two-rank kernel of its
// own; COMMS1 runs again between ranks 0 and 1 of
// the sharingRanks kernel (messages.sharing), and there between the two
// ranks of core 0 as SAMECORE when the host has fewer cores than its ranks
// (messages.same_core); COMMS3, SYNCH1 and the collectives go into every
// rank count's kernel.
func plan(s sizes) []kernelPlan {
	var out []kernelPlan
	for _, p := range s.ranks {
		kp := kernelPlan{ranks: p, mpi: s.mpi}
		if p == 2 || p == sharingRanks {
			for _, n := range s.comms1 {
				kp.add(Comms1, n, 2, s.target)
			}
		}
		if p == sharingRanks && sharesCore(s.cores) {
			for _, n := range s.comms1 {
				kp.add(SameCore, n, 2, s.target)
				kp.benches[len(kp.benches)-1].peer = s.cores
			}
		}
		if p == 2 {
			for _, n := range s.comms1 {
				kp.add(Local, n, 2, s.target)
			}
			for _, n := range s.comms2 {
				kp.add(Comms2, n, 1, s.target)
			}
			for _, g := range s.gaps {
				kp.addGap(Gap, g, s.target)
				kp.addGap(Wake, g, s.target)
			}
		}
		for _, n := range comms3Sizes(s, p) {
			kp.add(Comms3, n, 1, s.target)
		}
		kp.add(Synch1, 0, 1, s.target)
		// Each collective twice, back to back in half the time one took
		// until session 21, and after a barrier in a quarter (the
		// calibration stays within its 10 minutes: in half, a full run's
		// work went from about 5 to 6.5 minutes, as short calls after a
		// barrier cost two or three times their estimate); Entry once,
		// for the clock reads of the ones after a barrier.
		for _, kind := range collectiveKinds {
			for _, n := range collSizes(s.coll, p) {
				kp.add(Bench(kind), n, 1, s.target/2)
				kp.add(AfterBarrier(kind), n, 1, s.target/4)
			}
		}
		kp.add(Entry, 0, 1, s.target/4)
		out = append(out, kp)
	}
	// REQ has a kernel of its own: the goroutine runtime matches every
	// message of a kernel with requests in mailboxes (codegen/spmd
	// requests.go), and COMMS1's 8 B messages took 0.78 µs there against
	// 0.11 µs in the rendezvous slots (2026-11-26).
	req := kernelPlan{ranks: partition, mpi: s.mpi}
	req.add(Req, 8, 1, s.target)
	return append(out, req)
}

// comms3Sizes are COMMS3's lengths on p ranks: on two, comms3's and
// pair's in order, each once.
func comms3Sizes(s sizes, p int) []int64 {
	if p != partition {
		return s.comms3
	}
	out := slices.Concat(s.comms3, s.pair)
	slices.Sort(out)
	return slices.Compact(out)
}

// sharesCore reports whether on a host of cores cores rank 0 of the
// sharingRanks kernel shares its core with another rank that is not rank 1
// (COMMS1's partner): rank cores, bound to core 0 (cores mod cores).
func sharesCore(cores int) bool { return 1 < cores && cores < sharingRanks }

// collMemory bounds the bytes × P² of a collective's block: an alltoall
// keeps P blocks to send and P to receive on each of P ranks, 2·P²·bytes
// in all, every statement's apart in codegen's estimate (the runtime
// shares them between statements of one payload since session 35, so the
// estimate is an upper bound), and codegen refuses a kernel whose
// estimated buffers exceed 80 % of the memory. So 2 ranks go to 32 MiB, 4 to 16 MiB and 8 to 4 MiB, kernels of
// 3.3, 4.6 and 3.4 GB by codegen's estimate; the machine table extends
// each row linearly in bytes beyond its last length.
const collMemory = 256 << 20

// collSizes are the lengths of the collectives on p ranks: those whose
// block times p² stays within collMemory.
func collSizes(all []int64, p int) []int64 {
	var out []int64
	for _, n := range all {
		if n*int64(p*p) <= collMemory || n == all[0] {
			out = append(out, n)
		}
	}
	return out
}

// add appends one benchmark with as many repetitions as make it last about
// target seconds by the rough estimate.
func (kp *kernelPlan) add(kind Bench, n int64, per int64, target float64) {
	est := estimate(kind, float64(n), kp.ranks, kp.mpi) * float64(per)
	reps := int64(math.Max(1, math.Round(target/est)))
	name := fmt.Sprintf("%s %dB", kind, n)
	if base, ok := afterBarrierOf(kind); ok {
		name = fmt.Sprintf("%s %dB%s", base, n, afterBarrierSuffix)
	}
	if kind == Synch1 || kind == Entry {
		name = string(kind)
	}
	kp.benches = append(kp.benches, bench{kind: kind, bytes: n, ranks: kp.ranks, reps: reps, per: per, name: name})
}

// addGap appends a Gap or Wake benchmark of the given blocks, one
// operation per repetition (the gap, or the gap and a round trip).
func (kp *kernelPlan) addGap(kind Bench, blocks int64, target float64) {
	est := float64(blocks)*gapBlock*0.7e-9 + 10e-6
	if blocks == 0 {
		est = 1e-6 // a round trip of a tight loop
	}
	reps := int64(math.Max(1, math.Round(target/est)))
	kp.benches = append(kp.benches, bench{kind: kind, bytes: 8, ranks: kp.ranks, reps: reps, per: 1, blocks: blocks,
		name: fmt.Sprintf("%s %d", kind, blocks)})
}

// estimate is a rough time of one operation in seconds, from the host's
// hand-measured figures (host-baseline.md: a wake-up and a copy at some GB/s;
// ranks beyond the 2 cores wait for one). It only sets repetition counts:
// a wrong guess makes a region longer or shorter, never wrong.
//
// MPI's messages cost more on the same host (Open MPI 4.1.4's shared
// memory, measured by hand with a C pingpong: about 2 µs for a short
// synchronous message and 2 GB/s for long ones; an 8 B allreduce on 4
// ranks oversubscribing 2 cores 12 µs, as each step waits for a rank that
// yields its core), so mpi estimates with those figures: without them a
// --quick calibration's regions would last ten times their target.
func estimate(kind Bench, n float64, p int, mpi bool) float64 {
	fp := float64(p)
	lg := math.Max(1, math.Log2(fp))
	share := math.Max(1, fp/2) // ranks per core
	wake, bw := 0.4e-6, 10e9
	if mpi {
		wake, bw = 2e-6, 2e9
	}
	if base, ok := afterBarrierOf(kind); ok { // a barrier and the call
		return estimate(Synch1, n, p, mpi) + estimate(Bench(base), n, p, mpi)
	}
	switch kind {
	case Entry: // a barrier and two clock reads
		return estimate(Synch1, n, p, mpi) + 0.1e-6
	case Comms1, Local, SameCore:
		return wake + n/bw
	case Req: // two posts, a wait, three regions' clock reads
		return 2*wake + 0.5e-6
	case Comms2:
		return 1.5*wake + n/(0.6*bw)
	case Comms3:
		return (fp - 1) * (wake*share + n*share/(0.5*bw))
	case Synch1:
		return lg * wake * share
	case "bcast", "reduce", "allreduce", "scan":
		return lg*wake*share + n*lg*share/(0.5*bw)
	default: // scatter, gather, allgather, alltoall: P blocks
		return lg*wake*share + n*fp*share/(0.5*bw)
	}
}

// arrays sizes the kernel's arrays: buf for COMMS1 and COMMS2, sb and rb
// for COMMS3, x for the collectives (elements of 8 bytes, at least one).
func (kp kernelPlan) arrays() (buf, sr, x int64) {
	buf, sr, x = 1, 1, 1
	for _, b := range kp.benches {
		e := max(1, b.bytes/8)
		switch b.kind {
		case Comms1, SameCore, Comms2:
			buf = max(buf, e)
		case Comms3, Local:
			sr = max(sr, e)
		case Synch1, Entry:
		default:
			x = max(x, e)
		}
	}
	return buf, sr, x
}

// source is the kernel text of the plan, in perfc's language: one region
// per benchmark, each a repeat of the benchmark's operation after a
// barrier outside the regions. Every length
// is a multiple of 8 bytes, so payloads are slices of f64 arrays (real
// data: reductions add f64 elements, as a user's kernel does).
func (kp kernelPlan) source() string {
	var b strings.Builder
	buf, sr, x := kp.arrays()
	fmt.Fprintf(&b, "// perfc calibrate: communication benchmarks on %d ranks (generated)\n", kp.ranks)
	fmt.Fprintf(&b, "kernel calibrate_comms_p%d() on P = %d ranks {\n", kp.ranks, kp.ranks)
	fmt.Fprintf(&b, "  array buf[%d]: f64\n  array sb[%d], rb[%d]: f64\n  array x[%d]: f64\n", buf, sr, sr, x)
	if slices.ContainsFunc(kp.benches, func(bn bench) bool { return bn.blocks > 0 }) {
		fmt.Fprintf(&b, "  array wa[%d], wb[%d], wc[%d]: f64\n", gapBlock, gapBlock, gapBlock)
	}
	for _, bn := range kp.benches {
		if kp.ranks > 1 {
			// Every region starts with the ranks together: a rank that
			// leaves a region early would start the next one early and
			// wait there for the others, and the region, timed on its
			// slowest rank, would include that wait. GAP, where only
			// rank 0 computes, made every following WAKE region cost a
			// gap too much (docs/calibrate-comms.md, "Wake-up").
			b.WriteString("  barrier\n")
		}
		if bn.kind == Req {
			b.WriteString(bn.reqSource())
			continue
		}
		if bn.kind.entersAfterBarrier() {
			fmt.Fprintf(&b, "  repeat %d {\n    barrier\n    region %q {\n", bn.reps, bn.name)
			for _, line := range bn.body() {
				fmt.Fprintf(&b, "      %s\n", line)
			}
			b.WriteString("    }\n  }\n")
			continue
		}
		fmt.Fprintf(&b, "  region %q {\n    repeat %d {\n", bn.name, bn.reps)
		for _, line := range bn.body() {
			fmt.Fprintf(&b, "      %s\n", line)
		}
		b.WriteString("    }\n  }\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// reqSource is the Req benchmark: its three regions entered once per
// repetition, the posts, an empty region and the wait.
func (bn bench) reqSource() string {
	return fmt.Sprintf(`  repeat %d {
    region %q {
      irecv rb[0:1] from rank ^ 1 as qa
      isend sb[0:1] to rank ^ 1 as qb
    }
    region %q {
    }
    region %q {
      wait qa, qb
    }
  }
`, bn.reps, reqRegions[0], reqRegions[1], reqRegions[2])
}

// body is the statements of one repetition.
func (bn bench) body() []string {
	e := bn.bytes / 8
	s := fmt.Sprintf("[0:%d]", e)
	kind := bn.kind
	if base, ok := afterBarrierOf(kind); ok {
		kind = Bench(base)
	}
	switch kind {
	case Entry:
		return nil
	case Comms1: // COMMS1 ([001] L515-557): the slave returns what it received
		return []string{
			"if rank == 0 {",
			"  send buf" + s + " to 1",
			"  recv buf" + s + " from 1",
			"} else if rank == 1 {",
			"  recv buf" + s + " from 0",
			"  send buf" + s + " to 0",
			"}",
		}
	case SameCore: // COMMS1 between rank 0 and the other rank of its core
		return []string{
			"if rank == 0 {",
			fmt.Sprintf("  send buf%s to %d", s, bn.peer),
			fmt.Sprintf("  recv buf%s from %d", s, bn.peer),
			fmt.Sprintf("} else if rank == %d {", bn.peer),
			"  recv buf" + s + " from 0",
			"  send buf" + s + " to 0",
			"}",
		}
	case Local: // COMMS1 with a send and a receive buffer on each rank
		return []string{
			"if rank == 0 {",
			"  send sb" + s + " to 1",
			"  recv rb" + s + " from 1",
			"} else if rank == 1 {",
			"  recv rb" + s + " from 0",
			"  send sb" + s + " to 0",
			"}",
		}
	case Comms2: // COMMS2 ([001] L517): both send at once
		return []string{"exchange buf" + s + " with rank ^ 1"}
	case Comms3: // COMMS3 ([001] L559-565): P − 1 shift steps (examples/comms3.spmd)
		return []string{
			"for s in 1..P {",
			"  sendrecv sb" + s + " to (rank + s) % P from (rank + P - s) % P into rb" + s,
			"}",
		}
	case Synch1:
		return []string{"barrier"}
	case Gap, Wake: // rank 0 computes, rank 1 waits (in the round trip's receive)
		gap := []string{"if rank == 0 {"}
		if bn.blocks > 0 { // gap 0 is the round trip of this kernel without a gap: fitWakeup's reference
			gap = append(gap,
				fmt.Sprintf("  repeat %d {", bn.blocks),
				fmt.Sprintf("    for i in 0..%d { wa[i] = wb[i] + 3.0*wc[i] }", gapBlock),
				"  }")
		}
		if bn.kind == Gap {
			return append(gap, "}")
		}
		return append(gap,
			"  send buf[0:1] to 1",
			"  recv buf[0:1] from 1",
			"} else if rank == 1 {",
			"  recv buf[0:1] from 0",
			"  send buf[0:1] to 0",
			"}")
	case "bcast":
		return []string{"bcast x" + s + " from 0"}
	case "reduce":
		return []string{"reduce sum x" + s + " to 0"}
	case "allreduce", "scan":
		return []string{string(kind) + " sum x" + s}
	case "scatter":
		return []string{"scatter x" + s + " from 0"}
	case "gather":
		return []string{"gather x" + s + " to 0"}
	default: // allgather, alltoall
		return []string{string(kind) + " x" + s}
	}
}
