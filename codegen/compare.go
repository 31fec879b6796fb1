package codegen

import (
	"fmt"
	"math/big"
	"sort"
	"strings"

	"perfc/analyze"
	"perfc/codegen/spmd"
)

// Counts of a run set against the analyzer's. Both sides are flattened
// into named counts per rank and region ("loads", "ops mul f64", "load
// a[i] at f.spmd:3:5", "send f.spmd:7:3 to 1 bytes", …) and compared name
// by name; a count missing on one side is zero. Counts that a statement
// inside a `prob` branch contributes to are expectations in the analyzer
// and facts of the data in the run, so they are shown, not compared.

// CountComparison is the result of CompareCounts.
type CountComparison struct {
	Ranks    int          `json:"ranks"`
	Compared int          `json:"compared"` // exact counts compared, all ranks and regions
	Diffs    []CountDiff  `json:"diffs"`    // exact counts that differ
	Data     []CountDiff  `json:"data"`     // counts that depend on data, for rank 0 of each analyzer class
	Branches []BranchStat `json:"branches"`
}

// CountDiff is one count on both sides.
type CountDiff struct {
	Rank     int     `json:"rank"`
	Region   string  `json:"region"`
	Count    string  `json:"count"`
	Analyzer string  `json:"analyzer"` // exact: an integer or p/q
	Value    float64 `json:"analyzer_value"`
	Executed int64   `json:"executed"`
}

// BranchStat is a data condition over all ranks: the probability written
// after prob and the fraction of evaluations that were true.
type BranchStat struct {
	Stmt      string  `json:"stmt"`
	Region    string  `json:"region"`
	Prob      float64 `json:"prob"`
	Evaluated int64   `json:"evaluated"`
	Taken     int64   `json:"taken"`
	Observed  float64 `json:"observed"`
}

// OK reports whether every exact count agreed.
func (c *CountComparison) OK() bool { return len(c.Diffs) == 0 }

// CompareCounts compares the counts executed by program p with the
// analyzer's report for the same kernel and parameters.
func CompareCounts(p *Program, ex *spmd.Executed, rep *analyze.Report) (*CountComparison, error) {
	if ex.Schema != spmd.ExecutedSchema {
		return nil, fmt.Errorf("the program printed schema %q, want %q", ex.Schema, spmd.ExecutedSchema)
	}
	if int64(ex.Ranks) != rep.Ranks || len(ex.PerRank) != ex.Ranks {
		return nil, fmt.Errorf("the run has %d ranks (%d counted), the analysis %d", ex.Ranks, len(ex.PerRank), rep.Ranks)
	}
	dependent := p.dataDependent()
	c := &CountComparison{Ranks: ex.Ranks, Diffs: []CountDiff{}, Data: []CountDiff{}}
	for _, rc := range ex.PerRank {
		class := classOf(rep, int64(rc.Rank))
		if class == nil {
			return nil, fmt.Errorf("the analysis has no class for rank %d", rc.Rank)
		}
		// The analyzer reports the peers of a class's representative; the
		// other ranks of the class are compared without peer ranks.
		rep := int64(rc.Rank) == class.Rank
		want := map[string]analyze.Counts{}
		for _, r := range class.Regions {
			want[r.Name] = r.Counts
		}
		for _, r := range rc.Regions {
			c.compareRegion(rc.Rank, r.Name, flattenAnalyzed(want[r.Name], rep), flattenExecuted(r.Counts, rep), dependent[r.Name], rep)
			delete(want, r.Name)
		}
		for name, counts := range want {
			c.compareRegion(rc.Rank, name, flattenAnalyzed(counts, rep), nil, dependent[name], rep)
		}
	}
	c.Branches = branchStats(ex)
	if c.Branches == nil {
		c.Branches = []BranchStat{}
	}
	return c, nil
}

// classOf returns the analyzer's class of a rank.
func classOf(rep *analyze.Report, rank int64) *analyze.Class {
	for _, cl := range rep.Classes {
		if cl.Ranks.Contains(rank) {
			return cl
		}
	}
	return nil
}

// compareRegion compares one region of one rank.
func (c *CountComparison) compareRegion(rank int, region string, want map[string]*big.Rat, got map[string]int64,
	dependent func(string) bool, representative bool) {
	names := map[string]bool{}
	for n := range want {
		names[n] = true
	}
	for n := range got {
		names[n] = true
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		w := want[n]
		if w == nil {
			w = new(big.Rat)
		}
		d := CountDiff{Rank: rank, Region: region, Count: n, Analyzer: ratText(w), Executed: got[n]}
		d.Value, _ = w.Float64()
		switch {
		case dependent != nil && dependent(n):
			if representative {
				c.Data = append(c.Data, d)
			}
		case w.Cmp(new(big.Rat).SetInt64(got[n])) != 0:
			c.Compared++
			c.Diffs = append(c.Diffs, d)
		default:
			c.Compared++
		}
	}
}

// ratText writes an exact count.
func ratText(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	return r.RatString()
}

// Names of flattened counts. Each side writes them with these functions.
func opName(list, op, typ, pattern string) string { return list + " " + op + " " + typ + " " + pattern }
func refName(store bool, text, pos string) string {
	if store {
		return "store " + text + " at " + pos
	}
	return "load " + text + " at " + pos
}
func messagePrefix(kind, stmt string) string { return kind + " " + stmt + " " }
func messageName(kind, stmt string, peer int64, withPeer bool, what string) string {
	if !withPeer {
		return messagePrefix(kind, stmt) + what
	}
	return fmt.Sprintf("%s%s %d %s", messagePrefix(kind, stmt), map[string]string{"send": "to", "recv": "from", "isend": "to", "irecv": "from"}[kind], peer, what)
}
func collectiveName(kind, stmt, what string) string { return kind + " " + stmt + " " + what }

// flattenAnalyzed names every count of an analyzed region; withPeers
// names messages by their peer rank.
func flattenAnalyzed(c analyze.Counts, withPeers bool) map[string]*big.Rat {
	out := map[string]*big.Rat{}
	add := func(name string, n analyze.Count) {
		if n.Value == nil {
			return
		}
		if out[name] == nil {
			out[name] = new(big.Rat)
		}
		out[name].Add(out[name], n.Value)
	}
	for name, n := range map[string]analyze.Count{"iterations": c.Iterations, "flop": c.Flop, "int_ops": c.IntOps,
		"madd_pairs": c.MaddPairs, "loads": c.Loads, "stores": c.Stores, "load_bytes": c.LoadBytes,
		"store_bytes": c.StoreBytes, "barriers": c.Barriers, "loop_entries": c.LoopEntries,
		"region_entries": c.RegionEntries, "inner_region_entries": c.InnerRegionEntries} {
		add(name, n)
	}
	for _, o := range c.Ops {
		add(opName("ops", o.Op.String(), string(o.Type), o.Pattern), o.Count)
	}
	for _, o := range c.Madds {
		add(opName("madds", o.Op.String(), string(o.Type), o.Pattern), o.Count)
	}
	for _, r := range c.Refs {
		add(refName(r.Store, r.Text, r.Pos), r.Count)
	}
	for _, m := range c.Messages {
		add(messageName(m.Kind, m.Stmt, m.Rank, withPeers, "count"), m.Count)
		add(messageName(m.Kind, m.Stmt, m.Rank, withPeers, "bytes"), m.Bytes)
	}
	for _, col := range c.Collectives {
		add(collectiveName(col.Kind, col.Stmt, "count"), col.Count)
		add(collectiveName(col.Kind, col.Stmt, "bytes"), col.Bytes)
	}
	add("requests posted", c.Requests.Posted)
	add("requests completed", c.Requests.Completed)
	add("requests overlapped", c.Requests.Overlapped)
	dropZeros(out)
	return out
}

// flattenExecuted names every count of an executed region.
func flattenExecuted(c spmd.Counts, withPeers bool) map[string]int64 {
	out := map[string]int64{"iterations": c.Iterations, "flop": c.Flop, "int_ops": c.IntOps, "madd_pairs": c.MaddPairs,
		"loads": c.Loads, "stores": c.Stores, "load_bytes": c.LoadBytes, "store_bytes": c.StoreBytes, "barriers": c.Barriers,
		"loop_entries": c.LoopEntries, "region_entries": c.RegionEntries, "inner_region_entries": c.InnerRegionEntries}
	for _, o := range c.Ops {
		out[opName("ops", o.Op, o.Type, o.Pattern)] += o.Count
	}
	for _, o := range c.Madds {
		out[opName("madds", o.Op, o.Type, o.Pattern)] += o.Count
	}
	for _, r := range c.Refs {
		out[refName(r.Store, r.Text, r.Pos)] += r.Count
	}
	for _, m := range c.Messages {
		out[messageName(m.Kind, m.Stmt, m.PeerRank, withPeers, "count")] += m.Count
		out[messageName(m.Kind, m.Stmt, m.PeerRank, withPeers, "bytes")] += m.Bytes
	}
	for _, col := range c.Collectives {
		out[collectiveName(col.Kind, col.Stmt, "count")] += col.Count
		out[collectiveName(col.Kind, col.Stmt, "bytes")] += col.Bytes
	}
	out["requests posted"] += c.Requests.Posted
	out["requests completed"] += c.Requests.Completed
	out["requests overlapped"] += c.Requests.Overlapped
	for name, n := range out {
		if n == 0 {
			delete(out, name)
		}
	}
	return out
}

// dropZeros removes zero counts, which the two sides list differently.
func dropZeros(m map[string]*big.Rat) {
	for name, n := range m {
		if n.Sign() == 0 {
			delete(m, name)
		}
	}
}

// dataDependent returns, per region, whether a count name receives a
// contribution from a statement inside a prob branch.
func (p *Program) dataDependent() map[string]func(string) bool {
	exact := map[string]map[string]bool{}
	prefixes := map[string][]string{}
	for _, s := range p.sites {
		if !s.prob || s.kind == "siteTaken" {
			continue
		}
		region := p.Regions[s.region]
		if exact[region] == nil {
			exact[region] = map[string]bool{}
		}
		names, prefix := s.countNames()
		for _, n := range names {
			exact[region][n] = true
		}
		if prefix != "" {
			prefixes[region] = append(prefixes[region], prefix)
		}
	}
	out := map[string]func(string) bool{}
	for _, region := range p.Regions {
		names, pre := exact[region], prefixes[region]
		out[region] = func(n string) bool {
			if names[n] {
				return true
			}
			for _, p := range pre {
				if strings.HasPrefix(n, p) {
					return true
				}
			}
			return false
		}
	}
	return out
}

// countNames lists the flattened counts a site contributes to, and a
// prefix for point-to-point sites, whose peer rank is known only at run
// time.
func (s site) countNames() (names []string, prefix string) {
	switch s.kind {
	case "siteIter":
		return []string{"iterations"}, ""
	case "siteEntry":
		return []string{"loop_entries"}, ""
	case "siteRegion":
		return []string{"region_entries"}, ""
	case "siteInnerRegion":
		return []string{"inner_region_entries"}, ""
	case "siteBarrier":
		return []string{"barriers"}, ""
	case "siteSend":
		return nil, messagePrefix("send", s.stmt)
	case "siteRecv":
		return nil, messagePrefix("recv", s.stmt)
	case "siteISend":
		return nil, messagePrefix("isend", s.stmt)
	case "siteIRecv":
		return nil, messagePrefix("irecv", s.stmt)
	case "siteWait":
		return nil, ""
	case "siteColl":
		return []string{collectiveName(s.coll, s.stmt, "count"), collectiveName(s.coll, s.stmt, "bytes")}, ""
	}
	for _, o := range s.ops {
		names = append(names, opName("ops", o.op, o.typ, s.pattern))
		if o.typ == "f64" || o.typ == "f32" {
			names = append(names, "flop")
		} else if o.op != "conv" {
			names = append(names, "int_ops")
		}
	}
	for _, o := range s.madds {
		names = append(names, opName("madds", o.op, o.typ, s.pattern), "madd_pairs")
	}
	for _, r := range s.refs {
		names = append(names, refName(r.store, r.text, r.pos))
		if r.store {
			names = append(names, "stores", "store_bytes")
		} else {
			names = append(names, "loads", "load_bytes")
		}
	}
	return names, ""
}

// branchStats sums every data condition over the ranks.
func branchStats(ex *spmd.Executed) []BranchStat {
	var out []BranchStat
	index := map[string]int{}
	for _, rc := range ex.PerRank {
		for _, b := range rc.Branches {
			i, ok := index[b.Stmt]
			if !ok {
				i = len(out)
				index[b.Stmt] = i
				out = append(out, BranchStat{Stmt: b.Stmt, Region: b.Region, Prob: b.Prob})
			}
			out[i].Evaluated += b.Evaluated
			out[i].Taken += b.Taken
		}
	}
	for i := range out {
		if out[i].Evaluated > 0 {
			out[i].Observed = float64(out[i].Taken) / float64(out[i].Evaluated)
		}
	}
	return out
}
