package analyze

import (
	"slices"

	"perfc/lang"
)

// Runs of leaves. Ranks that differ somewhere (a corner and an interior rank of a
// halo exchange, the octants' neighbours of a sweep) are usually alike in
// most regions: the stencil, the compute block. A leaf run is a run of
// consecutive leaves of one region; when a region is one run, its
// counts on one rank are kept with the decisions, atoms and traced
// evaluations they rest on, and another rank that makes the same decisions
// and evaluates the traces alike takes the counts as they are instead of
// summing every leaf again.

// leafRun is a run of consecutive leaves of one region.
type leafRun struct {
	region string
	leaves []*leaf
	// whole says the region has no other run, so its counts are the
	// run's alone and can be kept for other ranks.
	whole bool
}

// runMemo is one rank's counts of a whole-region run and what they
// rest on.
type runMemo struct {
	counts     Counts
	decisions  []decision
	atoms      []atom
	traced     []traced
	notes      []string
	enumerated bool
	// peers holds, per message of counts, the peer expression of a
	// message to one rank (nil for a varying peer): the peer is
	// evaluated anew for the rank that takes the counts.
	peers []lang.Expr
}

// leafRuns splits the plan's leaves into runs of one region.
func (p *plan) leafRuns() []*leafRun {
	var out []*leafRun
	runs := map[string]int{}
	for _, l := range p.leaves {
		if n := len(out); n > 0 && out[n-1].region == l.region {
			out[n-1].leaves = append(out[n-1].leaves, l)
			continue
		}
		out = append(out, &leafRun{region: l.region, leaves: []*leaf{l}})
		runs[l.region]++
	}
	for _, s := range out {
		s.whole = runs[s.region] == 1
	}
	return out
}

// countRun adds the counts of one run to c (empty when s.whole), taking
// another rank's when this rank makes the same decisions. rankFree says
// that no formula of the run's counts mentions a rank-dependent symbol
// (they were checked, here or on the rank that kept them); false means
// unknown.
func (ra *rankAnalysis) countRun(s *leafRun, c *Counts) (rankFree bool, err error) {
	if !s.whole {
		return false, ra.leaves(s.leaves, c)
	}
	if m := ra.p.runMemos[s]; m != nil && ra.replayTraces(m.traced) && ra.adopt(m.decisions, m.atoms) {
		*c = m.counts.shareClone()
		for i, peer := range m.peers {
			if peer != nil {
				v, err := ra.k.EvalInt(peer, &lang.Env{Rank: ra.rank})
				if err != nil {
					return false, err
				}
				c.Messages[i].Rank = v
			}
		}
		ra.adoptTraces(m.traced)
		ra.enumerated = ra.enumerated || m.enumerated
		for _, n := range m.notes {
			ra.addNote(n)
		}
		return true, nil
	}
	decisions, atoms, traced, notes, peers := len(ra.decisions), len(ra.atoms), len(ra.traced), len(ra.notes), len(ra.peers)
	untraceable, enumerated, rankFormula := ra.untraceable, ra.enumerated, ra.rankFormula
	ra.untraceable, ra.enumerated, ra.rankFormula = false, false, false
	// Record afresh: every evaluation and execution count the run
	// rests on must be in its own lists, even when an earlier run of
	// this rank made it (the other rank may not have).
	seen, memo := ra.traceSeen, ra.execMemo
	ra.traceSeen, ra.execMemo = traceSet{}, nil
	err = ra.leaves(s.leaves, c)
	ownEnumerated, ownUntraceable, ownRankFormula := ra.enumerated, ra.untraceable, ra.rankFormula
	ra.untraceable = untraceable || ownUntraceable
	ra.enumerated = enumerated || ownEnumerated
	ra.rankFormula = rankFormula || ownRankFormula
	seen.merge(ra.traceSeen)
	ra.traceSeen = seen
	ra.execMemo = mergeMaps(memo, ra.execMemo)
	if err != nil || ownUntraceable || ownRankFormula || ra.p.runMemos[s] != nil || !ra.shareableCounts(c) || len(c.Messages) != len(ra.peers)-peers {
		return false, err
	}
	own := runMemo{enumerated: ownEnumerated}
	own.counts = c.clone()
	own.decisions = slices.Clone(ra.decisions[decisions:])
	own.atoms = slices.Clone(ra.atoms[atoms:])
	own.traced = slices.Clone(ra.traced[traced:])
	own.notes = slices.Clone(ra.notes[notes:])
	own.peers = slices.Clone(ra.peers[peers:])
	if ra.p.runMemos == nil {
		ra.p.runMemos = map[*leafRun]*runMemo{}
	}
	ra.p.runMemos[s] = &own
	return true, nil
}

// leaves adds every leaf's counts to c.
func (ra *rankAnalysis) leaves(ls []*leaf, c *Counts) error {
	for _, l := range ls {
		if err := ra.leaf(l, c); err != nil {
			return err
		}
	}
	return nil
}

// shareableCounts reports whether counts found on this rank hold for any
// rank that makes the same decisions: no formula mentions the rank.
func (ra *rankAnalysis) shareableCounts(c *Counts) bool {
	ok := true
	c.forEachCount(func(n Count) {
		if ok && ra.rankDependentPoly(n.Formula) {
			ok = false
		}
	})
	return ok
}

// mergeMaps returns the union of a and b (either may be nil), adding the
// smaller into the larger.
func mergeMaps[K comparable, V any](a, b map[K]V) map[K]V {
	if len(a) < len(b) {
		a, b = b, a
	}
	if a == nil {
		return b
	}
	for k, v := range b {
		a[k] = v
	}
	return a
}

// shareClone returns a copy of a kept run's counts for a rank that takes
// them: it shares the lists nothing changes in place (references,
// operations, vectors, collectives) and copies the messages, whose peer
// ranks are set for the rank. Only mergeClasses changes a region's counts
// in place afterwards (demoting formulas), and it clones them first; the
// cache lines are added to a list of the rank's own.
func (c *Counts) shareClone() Counts {
	out := *c
	out.Messages = slices.Clone(c.Messages)
	out.Cache = nil
	return out
}

// clone returns a copy of c that shares no slice with it, so that adding
// cache lines to one, or demoting a formula of one, leaves the other alone.
// Counts themselves are immutable.
func (c *Counts) clone() Counts {
	out := *c
	out.Ops = slices.Clone(c.Ops)
	out.Madds = slices.Clone(c.Madds)
	out.Loops = slices.Clone(c.Loops)
	out.Refs = slices.Clone(c.Refs)
	out.Messages = slices.Clone(c.Messages)
	out.Collectives = slices.Clone(c.Collectives)
	out.Vectors = slices.Clone(c.Vectors)
	for i := range out.Vectors {
		out.Vectors[i].Ops = slices.Clone(out.Vectors[i].Ops)
		out.Vectors[i].Madds = slices.Clone(out.Vectors[i].Madds)
	}
	out.Cache = slices.Clone(c.Cache)
	out.Chains = slices.Clone(c.Chains)
	for i := range out.Chains {
		out.Chains[i] = out.Chains[i].clone()
	}
	return out
}
