package costmodel

import (
	"fmt"

	"perfc/analyze"
	"perfc/costmodel/emulate"
	"perfc/lang"
	"perfc/machines"
)

// One pricing for the region table and the emulator.
//
// The region table prices a region's work as a whole: the cache-line model
// counts the lines a region brings in, vector loops are priced per entry,
// main-memory bandwidth is charged unless the working set fits, and compute
// and memory compose (sum or max) per region. A compute segment of a
// schedule carries none of that context: only its operations, loads and
// stores. So the emulator does not price a segment on its own; it charges
// the segment its share of its region's compute-and-memory cost on the
// rank's class:
//
//	cost(segment) = cost(region) × weight(segment) / weight(region)
//
// where weight is the segment's own price, compute and memory terms priced
// by the same rules and added (sum composition, no cache model, no loop
// iterations: weightOf says why), or, where
// that is 0 for the whole region, the bytes it moves or its iterations. The
// weight is linear in the counts, and a rank's segments in a region add up to the
// region's counts, so a rank's segments in a region cost exactly what the
// region table charges for it, whatever the composition or the memory
// model; the weights only decide how that cost is spread over the
// region's segments in time.

// regionShares holds, for every class of alike ranks of an analysis, the
// factor cost(region) / weight(region) of each region, and maps ranks to
// classes.
type regionShares struct {
	ranks   int64
	classes []analyze.RankSet
	factors []map[string]share // by class, then by region name
	// byRank is every rank's class, built on the first lookup: the
	// emulator asks for every rank, many times.
	byRank []int32
}

// share is cost(region) / weight(region) for one region of one class, and
// the weight it was measured with.
type share struct {
	factor float64
	weight weightKind
}

// weightKind says what a segment's share of its region is proportional
// to: its own price, or, in a region whose work the rules price only as a
// whole (cache lines on a table with an operation table: the segment's own
// price is 0), the bytes it moves, else its iterations.
type weightKind uint8

const (
	weightPrice weightKind = iota
	weightBytes
	weightIterations
)

// addClass records the shares of one class from its priced regions.
func (s *regionShares) addClass(p *machinePricer, cl *analyze.Class, regions []RegionPrediction) {
	f := make(map[string]share, len(regions))
	for i, r := range cl.Regions {
		cost := composeTime(p.m.Compose(), regions[i].Compute, regions[i].Memory)
		if cost == 0 {
			continue
		}
		w := workOfCounts(r.Counts)
		for _, kind := range []weightKind{weightPrice, weightBytes, weightIterations} {
			if x := p.weightOf(kind, w); x > 0 {
				f[r.Name] = share{factor: cost / x, weight: kind}
				break
			}
		}
	}
	s.classes = append(s.classes, cl.Ranks)
	s.factors = append(s.factors, f)
}

// classOf returns the index of the class rank belongs to, or -1.
func (s *regionShares) classOf(rank int64) int {
	if s.byRank == nil {
		s.byRank = make([]int32, s.ranks)
		last := 0 // neighbouring ranks tend to be alike
		for r := range s.byRank {
			s.byRank[r] = -1
			for j := range s.classes {
				i := (last + j) % len(s.classes)
				if s.classes[i].Contains(int64(r)) {
					s.byRank[r], last = int32(i), i
					break
				}
			}
		}
	}
	if rank < 0 || rank >= int64(len(s.byRank)) {
		return -1
	}
	return int(s.byRank[rank])
}

// weightOf is the weight of some work: its own price (compute and memory
// terms added), the bytes it loads and stores, or its iterations. Only
// what a compute segment carries is read, and each is linear in it, so the
// weight of a region's counts is the sum of the weights of its segments.
// The price leaves loop iterations and entries out (compose: ecm prices
// them): the iterations of a loop that communicates are in the region's
// counts but in no segment's work (the schedule keeps such a loop as a
// loop), so they would make the region's weight exceed its segments' sum.
func (p *machinePricer) weightOf(kind weightKind, w *workload) float64 {
	switch kind {
	case weightBytes:
		return w.loadBytes + w.storeBytes
	case weightIterations:
		return w.iterations
	}
	priced := *w
	priced.iterations, priced.loopEntries = 0, 0
	return sumTerms(p.computeTerms(&priced)) + sumTerms(p.memoryTerms(&priced))
}

// workOfCounts is the workload of a region's counts as a compute segment
// carries it (fromWork): operations, flop, loads and stores, without the
// cache lines, strides, footprint and vector loops of the region.
func workOfCounts(c analyze.Counts) *workload {
	w := &workload{flop: c.Flop.Float(), loads: c.Loads.Float(), stores: c.Stores.Float(),
		loadBytes: c.LoadBytes.Float(), storeBytes: c.StoreBytes.Float(), iterations: c.Iterations.Float()}
	w.vectorRefs = w.loads + w.stores
	for _, o := range c.Ops {
		w.ops = append(w.ops, opN{o.Op, o.Type, o.Pattern, o.Count.Float()})
	}
	for _, o := range c.Madds {
		w.madds = append(w.madds, opN{o.Op, o.Type, o.Pattern, o.Count.Float()})
	}
	return w
}

// regionOf names the region of a segment as the analysis names it.
func regionOf(w *analyze.Work) string {
	if w.Region == "" {
		return outsideRegions
	}
	return w.Region
}

// ComputeClass implements emulate.RankComputer: ranks of one class of the analysis
// the pricer was built from (PricerFor, Predict) pay the same for the same
// segment. Without an analysis every rank is in class 0.
func (p *machinePricer) ComputeClass(rank int64) int {
	if p.shares == nil {
		return 0
	}
	return p.shares.classOf(rank)
}

// ComputeOn implements emulate.RankComputer: the segment's share of its region's
// cost on a rank of the class. Without an analysis it is Compute.
func (p *machinePricer) ComputeOn(class int, x *analyze.Work) float64 {
	if p.shares == nil || class < 0 {
		return p.Compute(x)
	}
	sh, ok := p.shares.factors[class][regionOf(x)]
	if !ok {
		return 0
	}
	return sh.factor * p.weightOf(sh.weight, fromWork(x))
}

// PricerFor returns the Pricer with which Predict emulates: compute
// segments cost their share of the region table's cost for the analysed
// counts rep (analysed with m.CacheHierarchy() for the cache-line model),
// so that `perfc emulate` and `perfc predict` charge every rank the same.
func PricerFor(k *lang.Checked, rep *analyze.Report, m *machines.Machine, opts Options) emulate.Pricer {
	p := newOptionsPricer(m, k, opts)
	p.copiers = copyingRanks(rep)
	p.shares = &regionShares{ranks: p.ranks}
	for _, cl := range rep.Classes {
		p.shares.addClass(p, cl, p.priceClass(cl, rep))
	}
	return p
}

// The machine pricer is every optional interface of the emulator's but
// Injector: it prices compute per rank class, hands out the schedules it
// built, and names the table entry behind an unusable price.
var (
	_ emulate.RankComputer = (*machinePricer)(nil)
	_ emulate.Scheduler    = (*machinePricer)(nil)
	_ emulate.EntryChecker = (*machinePricer)(nil)
)

// Schedule implements emulate.Scheduler: rank r's schedule from the
// schedules walkMessages built for its messages, or sharing the tree of an
// alike one of them; nil when it built none, so that the emulator builds
// it.
func (p *machinePricer) Schedule(r int64) (*analyze.Schedule, error) {
	if p.schedules == nil {
		return nil, nil
	}
	return p.schedule(r)
}

// MessageEntryError implements emulate.EntryChecker for a message of
// bytes from src to dst, described by what.
func (p *machinePricer) MessageEntryError(src, dst int64, bytes int64, what string) error {
	use := fmt.Sprintf("%s on machine %s", what, p.m.Name())
	if mm := p.m.Messages(""); mm != nil {
		if cost, ok := mm.TimeCost(); ok {
			_, err := cost.Check(machines.Vars{Bytes: float64(bytes), Level: float64(mm.Levels(int(src), int(dst)))}, use)
			return err
		}
	}
	return nil
}

// CollectiveEntryError implements emulate.EntryChecker for a collective
// call, described by what.
func (p *machinePricer) CollectiveEntryError(kind, op, elem string, bytes int64, participants int64, what string) error {
	use := fmt.Sprintf("%s on machine %s", what, p.m.Name())
	if cost, ok := p.m.CollectiveAfterBarrier(kind, op, elem); ok {
		if _, err := cost.Check(machines.Vars{Bytes: float64(bytes), P: float64(participants)}, use+" (its after_barrier: time)"); err != nil {
			return err
		}
	}
	if cost, ok := p.m.Collective(kind, op, elem); ok {
		_, err := cost.Check(machines.Vars{Bytes: float64(bytes), P: float64(participants)}, use)
		return err
	}
	return nil
}
