package analyze

import (
	"fmt"

	"perfc/analyze/cache"
	"perfc/internal/units"
	"perfc/lang"
)

// This file is `perfc count --simulate`: the kernel's address trace for one
// rank (tracewalk.go) replayed through the exact set-associative LRU
// simulator of package cache, per region and level, to put beside the
// analytic model's lines.

// SimArrayAlign is the alignment Simulate assumes for every array: 8 KiB,
// the page of Go's allocator. A generated program allocates each rank's
// arrays one by one in declaration order (`new([N][M]float64)`), and Go gives
// every object over 32 KiB a run of whole 8 KiB pages of its own; a fresh
// heap hands such runs out one after another. Smaller arrays are placed
// alike here, though Go packs them in size classes (docs/counts.md).
const SimArrayAlign = 8192

// DefaultMaxAccesses is the default work budget of Simulate: 200 million
// loads and stores, 10–40 s of simulation (50–200 ns an access on the
// shared 2-core machine, depending on the levels an access reaches).
const DefaultMaxAccesses = 200_000_000

// SimOptions configure Simulate.
type SimOptions struct {
	// Rank is the rank whose trace is simulated.
	Rank int64
	// MaxAccesses bounds the loads and stores simulated (0:
	// DefaultMaxAccesses); past it Simulate fails naming --max-accesses.
	MaxAccesses int64
	// Align is the alignment of every array (0: SimArrayAlign).
	Align uint64
	// Progress, when set, is called with the accesses made so far every
	// 2^20 accesses, and once with the total at the end.
	Progress func(done, total int64)
}

// SimLevel is what one level of the simulated hierarchy did.
type SimLevel struct {
	Level      string `json:"level"`
	Accesses   int64  `json:"accesses"`   // line lookups
	Lines      int64  `json:"lines"`      // lines brought in (misses)
	WriteBacks int64  `json:"writebacks"` // dirty lines written back
}

// SimRegion is the simulated traffic of one region. The write-backs of the
// final flush (dirty lines left at the end of the run) are a region of
// their own, SimFlush.
type SimRegion struct {
	Name   string     `json:"name"`
	Levels []SimLevel `json:"levels"`
}

// SimFlush names the region that holds the final flush's write-backs.
const SimFlush = "(final flush)"

// SimArray is where Simulate placed one array.
type SimArray struct {
	Name  string `json:"name"`
	Base  uint64 `json:"base"` // byte address of its first element
	Bytes int64  `json:"bytes"`
}

// Simulation is the exact LRU simulation of one rank's trace.
type Simulation struct {
	Rank     int64       `json:"rank"`
	Cache    string      `json:"cache"`
	Align    uint64      `json:"align"`
	Layout   []SimArray  `json:"layout"`
	Accesses int64       `json:"accesses"` // loads and stores replayed
	Regions  []SimRegion `json:"regions"`  // in order of first entry; SimFlush last
	Total    []SimLevel  `json:"total"`    // every region and the flush
}

// Simulate replays rank opts.Rank of k through an exact simulator of h. The
// accesses are counted first (by Analyze, without a cache model), so that a
// trace over budget is refused before it starts and the progress callback
// knows the total.
func Simulate(k *lang.Checked, h cache.Hierarchy, opts SimOptions) (*Simulation, error) {
	if len(h) == 0 {
		return nil, fmt.Errorf("simulate: no cache levels")
	}
	if p := k.NumRanks(); opts.Rank < 0 || opts.Rank >= p {
		return nil, fmt.Errorf("simulate: rank %d is not one of the kernel's ranks 0-%d", opts.Rank, p-1)
	}
	budget := opts.MaxAccesses
	if budget <= 0 {
		budget = DefaultMaxAccesses
	}
	total, err := traceAccesses(k, opts.Rank)
	if err != nil {
		return nil, err
	}
	overBudget := func(limit int64) error {
		return fmt.Errorf("the simulation of rank %d makes %s loads and stores, more than the budget of %s; raise it with --max-accesses, or simulate smaller sizes with -D",
			opts.Rank, units.Int(total), units.Int(limit))
	}
	if total > budget {
		return nil, overBudget(budget)
	}
	align := opts.Align
	if align == 0 {
		align = SimArrayAlign
	}
	l := traceLayout{align: align}
	tr, err := runTrace(k, h, l, opts.Rank, budget, overBudget, func(done int64) {
		if opts.Progress != nil {
			opts.Progress(done, total)
		}
	})
	if err != nil {
		return nil, err
	}
	if opts.Progress != nil {
		opts.Progress(tr.accesses, total)
	}
	return newSimulation(k, h, l, opts.Rank, tr), nil
}

// traceAccesses is the number of loads and stores rank makes, rounded up
// (a data if makes expected counts).
func traceAccesses(k *lang.Checked, rank int64) (int64, error) {
	rep, err := Analyze(k, Options{OnlyRank: &rank})
	if err != nil {
		return 0, err
	}
	n := Sum(rep.Classes[0].Total.Loads, rep.Classes[0].Total.Stores)
	f := n.Float()
	if f > 1<<62 {
		return 1 << 62, nil
	}
	return int64(f + 0.999999), nil
}

// newSimulation orders a trace's result for reports.
func newSimulation(k *lang.Checked, h cache.Hierarchy, l traceLayout, rank int64, tr traceResult) *Simulation {
	s := &Simulation{Rank: rank, Cache: h.String(), Align: l.align, Accesses: tr.accesses}
	bases := l.bases(k.Info.Arrays)
	for _, a := range k.Info.Arrays {
		n := int64(a.Elem.Size())
		for _, d := range l.dims(a) {
			n *= d
		}
		s.Layout = append(s.Layout, SimArray{Name: a.Name, Base: bases[a], Bytes: n})
	}
	s.Total = make([]SimLevel, len(h))
	for i, lv := range h {
		s.Total[i].Level = lv.Name
	}
	for _, name := range append(append([]string(nil), tr.order...), SimFlush) {
		counts, ok := tr.regions[name]
		if !ok {
			continue
		}
		if name != SimFlush && counts[0].Accesses == 0 && counts[0].WriteBacks == 0 {
			continue // entered, but touched no array (a region of messages)
		}
		r := SimRegion{Name: name}
		for i, c := range counts {
			r.Levels = append(r.Levels, SimLevel{Level: c.Name, Accesses: c.Accesses, Lines: c.Misses, WriteBacks: c.WriteBacks})
			s.Total[i].Accesses += c.Accesses
			s.Total[i].Lines += c.Misses
			s.Total[i].WriteBacks += c.WriteBacks
		}
		s.Regions = append(s.Regions, r)
	}
	return s
}

// traceResult is what a trace measured: per region (named as reports name
// them), per level, the simulator's counts; the final flush is kept apart
// under SimFlush. order lists the regions in order of first entry.
type traceResult struct {
	regions  map[string][]cache.LevelCounts
	order    []string
	accesses int64
}

// runTrace walks rank of k with layout l through a new simulator of h,
// charging each region with what the simulator counted while it ran, and
// flushes the simulator at the end. Past limit accesses (0: no limit) the
// walk stops with overLimit's error; progress is called every 2^20
// accesses.
func runTrace(k *lang.Checked, h cache.Hierarchy, l traceLayout, rank, limit int64, overLimit func(int64) error, progress func(int64)) (traceResult, error) {
	sim := cache.NewSimulator(h)
	sink := &progressSink{sim: sim, progress: progress}
	t, err := newTraceWalk(k, newPlan(k), l, rank, sink)
	if err != nil {
		return traceResult{}, err
	}
	t.limit, t.limitErr = limit, overLimit
	res := traceResult{regions: map[string][]cache.LevelCounts{}}
	last := sim.Counts()
	current := regionName("")
	charge := func(next string) {
		now := sim.Counts()
		acc := res.regions[current]
		if acc == nil {
			acc = make([]cache.LevelCounts, len(now))
			res.order = append(res.order, current)
		}
		for i := range now {
			acc[i].Name = now[i].Name
			acc[i].Accesses += now[i].Accesses - last[i].Accesses
			acc[i].Hits += now[i].Hits - last[i].Hits
			acc[i].Misses += now[i].Misses - last[i].Misses
			acc[i].WriteBacks += now[i].WriteBacks - last[i].WriteBacks
		}
		res.regions[current] = acc
		last, current = now, next
	}
	t.onRegion = func(name string) { charge(regionName(name)) }
	if err := t.run(); err != nil {
		return traceResult{}, err
	}
	charge(SimFlush)
	sim.Flush()
	charge("")
	res.order = res.order[:len(res.order)-1] // SimFlush is not a region
	res.accesses = t.accesses
	return res, nil
}

// progressSink passes accesses to the simulator and reports progress every
// 2^20 of them.
type progressSink struct {
	sim      *cache.Simulator
	progress func(int64)
	n        int64
}

// Access forwards one access.
func (p *progressSink) Access(addr uint64, size int, write bool) {
	p.sim.Access(addr, size, write)
	p.n++
	if p.n&(1<<20-1) == 0 && p.progress != nil {
		p.progress(p.n)
	}
}
