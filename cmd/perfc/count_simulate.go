package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"perfc"
	"perfc/analyze"
	"perfc/analyze/cache"
	"perfc/internal/progress"
	"perfc/internal/units"
	"perfc/lang"
)

// simulateArgs are perfc count's flags for the exact simulation beside the
// analytic cache model (docs/counts.md, "Simulation").
type simulateArgs struct {
	Machine      string `short:"m" help:"Take the cache hierarchy from this machine table (a built-in name or a YAML file) instead of --cache or the host's." placeholder:"NAME|FILE.yaml"`
	Simulate     bool   `help:"Also replay one rank's address trace through an exact set-associative LRU simulator (the rank of --rank, else the first class's representative) and print its lines beside the model's."`
	MaxAccesses  int64  `placeholder:"N" help:"Simulation budget: the most loads and stores --simulate replays (default 200000000)."`
	PerIteration bool   `help:"Also print each region's cache lines and bytes per cache line of work, over the whole run and in steady state."`
}

// hierarchy returns the caches to model: the machine table's with -m, the
// --cache spec, or this machine's.
func (s simulateArgs) hierarchy(spec string) (cache.Hierarchy, error) {
	if s.Machine == "" {
		return cacheHierarchy(spec)
	}
	if spec != "" {
		return nil, fmt.Errorf("-m and --cache both name the caches; give one of them")
	}
	m, err := perfc.LoadMachine(s.Machine, nil)
	if err != nil {
		return nil, err
	}
	h := m.CacheHierarchy()
	if len(h) == 0 {
		return nil, fmt.Errorf("-m %s: the machine table describes no caches; give them with --cache", s.Machine)
	}
	return h, nil
}

// simulate runs the simulation when --simulate asks for it and keeps it in
// the report, with a progress line on standard error for long traces.
func (c *countCmd) simulate(e env, k *lang.Checked, h cache.Hierarchy, rep *analyze.Report) error {
	if !c.Simulate {
		return nil
	}
	rank := c.Rank
	if rank < 0 {
		rank = rep.Classes[0].Rank
	}
	var bar *progress.Bar // made at the first report, when the total is known
	defer bar.Finish()
	sim, err := analyze.Simulate(k, h, analyze.SimOptions{Rank: rank, MaxAccesses: c.MaxAccesses,
		Progress: func(done, total int64) {
			if bar == nil {
				bar = progress.New(e.stderr, "simulating (loads and stores)", total)
			}
			bar.Set(done)
		}})
	if err != nil {
		return err
	}
	rep.Simulation = sim
	return nil
}

// printSimulation prints the simulation beside the model: per region and
// level, lines in and lines written back, simulated, modelled, and the
// model's difference in per cent of the simulation.
func printSimulation(w io.Writer, rep *analyze.Report) {
	sim := rep.Simulation
	if sim == nil {
		return
	}
	var cl *analyze.Class
	for _, c := range rep.Classes {
		if c.Ranks.Contains(sim.Rank) {
			cl = c
		}
	}
	fmt.Fprintf(w, "\nexact LRU simulation of rank %d (cache %s; %s loads and stores; arrays in declaration order, each at a multiple of %s):\n",
		sim.Rank, sim.Cache, units.Int(sim.Accesses), formatBytes(int64(sim.Align)))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "region\tlevel\tlines in: simulated\tmodel\tdifference\twritten back: simulated\tmodel\tdifference\t")
	for _, r := range sim.Regions {
		var model []analyze.CacheLines
		if cl != nil && r.Name != analyze.SimFlush {
			model = regionCache(cl, r.Name)
		}
		printSimRows(tw, lang.Printable(r.Name), r.Levels, model)
	}
	var total []analyze.CacheLines
	if cl != nil {
		total = cl.Total.Cache
	}
	printSimRows(tw, "total", sim.Total, total)
	tw.Flush()
	fmt.Fprintln(w, "(the model charges the final write-backs to the region that stored the lines; the simulation counts them at the final flush)")
}

// regionCache is the model's cache lines of one region of a class.
func regionCache(cl *analyze.Class, name string) []analyze.CacheLines {
	for _, r := range cl.Regions {
		if r.Name == name {
			return r.Counts.Cache
		}
	}
	return nil
}

// printSimRows prints one row per level; model may be nil (no model row).
func printSimRows(tw io.Writer, name string, levels []analyze.SimLevel, model []analyze.CacheLines) {
	for i, l := range levels {
		if i > 0 {
			name = ""
		}
		ml, mw, dl, dw := "-", "-", "", ""
		if i < len(model) && model[i].Level == l.Level {
			ml, mw = num(model[i].Lines), num(model[i].WriteBacks)
			dl, dw = percentDiff(model[i].Lines.Float(), l.Lines), percentDiff(model[i].WriteBacks.Float(), l.WriteBacks)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", name, l.Level, units.Int(l.Lines), ml, dl, units.Int(l.WriteBacks), mw, dw)
	}
}

// percentDiff is the model's difference from the simulation in per cent of
// the simulation ("exact" when equal, "+n" when the simulation is zero).
func percentDiff(model float64, sim int64) string {
	switch {
	case model == float64(sim):
		return "exact"
	case sim == 0:
		return "(none simulated)"
	}
	return fmt.Sprintf("%+.1f %%", 100*(model-float64(sim))/float64(sim))
}
