package analyze

import (
	"perfc/analyze/cache"
	"perfc/analyze/symbolic"
	"perfc/lang"
)

// This file is the analytic cache-line model: for every region and every
// level of a cache hierarchy, the lines the level brings in and writes back,
// from a stride and reuse analysis in the style of Kerncraft's layer
// conditions (docs/counts.md, "Cache lines", states the model and its
// assumptions for users).
//
// The kernel's loops and repeats form a tree whose root is the kernel body.
// References hang from the innermost loop that encloses them, in groups: one
// array, one chain of enclosing constructs, equal byte strides in every loop,
// so that the members differ by constant offsets (a stencil's u[i-1] and
// u[i+1]; a load and a store of C[i][j]). The footprint of a node is the
// number of distinct lines its groups touch while the loops inside it run
// over their ranges and the loops outside stay put; it is computed, not
// simulated: a group's addresses are a lattice of segments (a contiguous run
// where strides are below a line, a strided family of runs above), and the
// union of the members' translated lattices is counted line by line over the
// residues of the segments' alignment, so it is exact for rectangular nests.
//
// The layer condition of a node is that one of its iterations fits: the
// footprint of its body is at most the level's capacity. Then everything an
// iteration touches is still cached in the next (the reuse distance of LRU is
// at most one body), and each execution of the node misses only its
// footprint, once. Otherwise the node's children are examined in turn, each
// execution of the body bringing in its own lines again. Stores are
// write-allocate and write-back: a stored line is brought in like a loaded
// one and written back once per time it is brought in.
//
// The model runs inside every `perfc predict`, so it is kept cheap: values
// and formulas are apart (symInt, est: a formula is built only for a count
// or a condition that is reported, and a footprint that is only compared
// is counted in int64, beside its exact twin in cachemodel_footprint.go and
// cachemodel_lattice.go), footprints are memoised by the loops that run,
// and the models of one Analyze share what does not depend on the rank
// (cachemodel_share.go).
//
// The model is split by concern: this file holds its entry (cacheLines) and
// types; cachemodel_values.go its numbers (symInt, est); cachemodel_tree.go
// the loop tree and the reference groups; cachemodel_levels.go the layer
// conditions level by level; cachemodel_footprint.go footprints;
// cachemodel_lattice.go lattice counting; cachemodel_share.go what the
// models of one Analyze share.

// cacheNode is a loop or repeat of the kernel, or the kernel body (root).
type cacheNode struct {
	stmt    lang.Stmt // *lang.ForStmt or *lang.RepeatStmt; nil for the root
	name    string    // the loop index, "repeat", or "kernel"
	parent  *cacheNode
	chain   []level       // the node's chain, its own level last (nil for the root)
	items   []cacheItem   // children and direct groups in program order
	under   []*refGroup   // every group at or below the node, in program order
	arrays  [][]*refGroup // under by array (byArray)
	entries *Count        // executions of the node; computed when first needed
}

// cacheItem is a child loop or a group of references directly in a node.
type cacheItem struct {
	node  *cacheNode
	group *refGroup
}

// groupMember is one reference of a group.
type groupMember struct {
	ref   *refInfo
	text  string
	store bool
	addr  symbolic.Poly // byte offset in the array, in symbols and loop indices
	base  symInt        // the address at the representative iteration
}

// groupDim is one loop or repeat of a group's chain.
type groupDim struct {
	node   *cacheNode
	loop   *lang.ForStmt // nil for a repeat
	index  string        // loop index ("" for a repeat)
	stride symInt        // bytes per iteration (0 for a repeat)
	trip   est           // average iterations per entry, as this group sees them
	n      int64         // trip rounded to an integer, at least 1 when trip > 0
	// deps lists the earlier dimensions whose index the loop's bounds read
	// (a triangular loop), and box is the number of values the loop's index
	// takes over the whole iteration space (its bounding box).
	deps []int
	box  int64
}

// refGroup is the references of one array in one place whose addresses
// differ by constants.
type refGroup struct {
	id        int // its place in cacheModel.groups
	array     *lang.Object
	region    string
	node      *cacheNode
	chain     []level
	elem      int64
	members   []groupMember
	strides   []symbolic.Poly // per loop and repeat of chain; nil when irregular
	dims      []groupDim
	irregular bool      // an address that is not affine in the loop indices
	count     Count     // executions of the group's statement
	empty     bool      // the group never executes
	share     int       // its number among the groups models share, or -1
	extents   []*symInt // memoised extent per dimension
}

// cacheModel is the analytic model for one rank.
type cacheModel struct {
	ra     *rankAnalysis
	root   *cacheNode
	nodes  map[lang.Stmt]*cacheNode
	groups []*refGroup
	// footprints memoises footprint: visiting a node, stating its
	// condition and finding its reusers ask for the same sets again.
	footprints map[footprintKey]est
	// trips memoises boundTrip.
	trips map[lang.Stmt]boundTrip
	// share is what the models of the plan share (cachemodel_share.go).
	share *cacheShare
	// execs memoises chainCount, chains chainInfo.
	execs  map[chainLevels]Count
	chains map[chainLevels]*chainInfo
	// windows memoises windowCount: the levels of a hierarchy ask for the
	// same windows (cachemodel_reuse.go).
	windows map[windowKey]windowValue
	// splitting lists the splits being visited: the executions their
	// children leave out (cachemodel_split.go); filtered marks the groups
	// whose charges honoured them.
	splitting []func(*lang.Env) bool
	filtered  map[*refGroup]bool
	// splitIters memoises splitIterations.
	splitIters map[splitKey][]splitIteration
}

// cacheLines fills Counts.Cache of every region of rt for the levels of h.
func (ra *rankAnalysis) cacheLines(rt *regionTotals, h cache.Hierarchy) error {
	if len(h) == 0 {
		return nil
	}
	m, err := newCacheModel(ra)
	if err != nil {
		return err
	}
	perLevel := make([]*levelState, len(h))
	for i, lv := range h {
		st := newLevelState(lv)
		if err := m.visit(m.root, st, ""); err != nil {
			return err
		}
		perLevel[i] = st
	}
	for _, name := range rt.order {
		c, ok := rt.counts[name]
		if !ok {
			if !m.hasRegion(name) {
				continue
			}
			c = rt.get(name)
		}
		for _, st := range perLevel {
			c.Cache = append(c.Cache, st.region(m.groups, name))
		}
	}
	return nil
}

// hasRegion reports whether any group belongs to region name.
func (m *cacheModel) hasRegion(name string) bool {
	for _, g := range m.groups {
		if g.region == name {
			return true
		}
	}
	return false
}

// sumCacheLines adds the per-level cache counts of two regions (levels in
// the same order), merging their conditions.
func sumCacheLines(a, b []CacheLines) []CacheLines {
	if len(a) == 0 {
		return append([]CacheLines(nil), b...)
	}
	out := make([]CacheLines, len(a))
	copy(out, a)
	for i := range out {
		out[i].Conditions = append([]string(nil), a[i].Conditions...)
		if i >= len(b) || b[i].Level != out[i].Level {
			continue
		}
		out[i].Lines = out[i].Lines.add(b[i].Lines)
		out[i].WriteBacks = out[i].WriteBacks.add(b[i].WriteBacks)
		for _, c := range b[i].Conditions {
			out[i].Conditions = appendNew(out[i].Conditions, c)
		}
	}
	return out
}
