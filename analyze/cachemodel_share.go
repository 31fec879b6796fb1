package analyze

import (
	"encoding/binary"

	"perfc/analyze/cache"
	"perfc/analyze/symbolic"
	"perfc/lang"
)

// Analyze builds one cache model per rank class with its own set of
// references (halo2d's west and east edge ranks skip a halo loop each:
// three models), and the models have most of their groups in common. A
// group whose chain and addresses do not depend on the rank, other than
// through static ifs that the rank decides as a whole (if rx > 0), is the
// same in every model where those ifs decide alike: its executions, trips,
// strides and bases, and every footprint of such groups, are computed by
// the first model and taken by the others. The test that every class's
// cache lines equal its representative's analysed alone
// (TestCacheLinesSharedBetweenClasses) holds this to account.

// cacheShare is what the cache models of one plan share.
type cacheShare struct {
	// off shares nothing (TestCacheSharingChangesNothing compares).
	off    bool
	refIDs map[*refInfo]int
	texts  map[*refInfo]string
	// refs keeps the addresses and strides of references that do not
	// depend on the rank.
	refs map[*refInfo]*sharedRef
	// groups maps a shareable group's key to its first finished copy,
	// and ids to its share number.
	groups map[string]*refGroup
	ids    map[string]int
	// footprints are the footprints of shareable groups, by share
	// numbers and the loops that run.
	footprints map[sharedFootprintKey]est
	// visits are the results of visiting a loop, at one level, under
	// which every group is shared.
	visits map[visitKey]*visitRecord
}

// sharedFootprintKey is footprintKey across models, with share numbers
// for group numbers.
type sharedFootprintKey struct {
	one    int // a single group's share number + 1, or 0
	mask   uint64
	groups string
	stores bool
	line   int64
	bare   bool
}

// cacheShared returns the plan's cacheShare, made when first wanted.
func (p *plan) cacheShared() *cacheShare {
	if p.cacheShare == nil {
		p.cacheShare = newCacheShare()
	}
	return p.cacheShare
}

// newCacheShare returns an empty cacheShare.
func newCacheShare() *cacheShare {
	return &cacheShare{refIDs: map[*refInfo]int{}, texts: map[*refInfo]string{}, refs: map[*refInfo]*sharedRef{}, groups: map[string]*refGroup{}, ids: map[string]int{}}
}

// text is a reference's source text, formatted once per plan.
func (s *cacheShare) text(r *refInfo) string {
	t, ok := s.texts[r]
	if !ok {
		t = lang.ExprString(r.ref)
		s.texts[r] = t
	}
	return t
}

// groupKey is the key under which g is shared, or false when g depends
// on the rank in a way the key does not capture: a loop bound, step,
// repeat count, index or array extent that reads the rank, or a static if
// whose condition reads the rank and a loop index.
func (m *cacheModel) groupKey(g *refGroup) (string, bool) {
	info := m.ra.k.Info
	rankFree := func(e lang.Expr) bool { return e == nil || info.Deps[e]&lang.DepRank == 0 }
	var key []byte
	key = append(key, g.region...)
	key = append(key, 0)
	for _, mem := range g.members {
		r := mem.ref
		for _, ix := range r.ref.Index {
			if !rankFree(ix) {
				return "", false
			}
		}
		if spec := m.ra.p.specs[r.array]; spec != nil {
			for _, d := range spec.Dims {
				if !rankFree(d) {
					return "", false
				}
			}
		}
		id, ok := m.share.refIDs[r]
		if !ok {
			id = len(m.share.refIDs)
			m.share.refIDs[r] = id
		}
		key = binary.AppendUvarint(key, uint64(id))
	}
	key = append(key, 0)
	for _, l := range g.chain {
		switch l.kind {
		case loopLevel:
			if !rankFree(l.loop.Lo) || !rankFree(l.loop.Hi) || !rankFree(l.loop.Step) {
				return "", false
			}
		case repeatLevel:
			if !rankFree(l.repeat.Count) {
				return "", false
			}
		case guardLevel:
			dep := info.Deps[l.cond.Cond]
			if dep&lang.DepRank == 0 {
				continue
			}
			if dep&(lang.DepIndex|lang.DepData) != 0 {
				return "", false
			}
			v, err := m.ra.k.Eval(l.cond.Cond, &lang.Env{Rank: m.ra.rank})
			if err != nil {
				return "", false
			}
			taken := byte('n')
			if v.Bool() == l.then {
				taken = 'y'
			}
			key = append(key, taken)
		}
	}
	return string(key), true
}

// finishShared finishes g, or takes a finished copy from an earlier
// model, and gives g its share number.
func (m *cacheModel) finishShared(g *refGroup) error {
	key, ok := m.groupKey(g)
	if !ok || m.share.off {
		return m.finish(g)
	}
	id, seen := m.share.ids[key]
	if !seen {
		id = len(m.share.ids)
		m.share.ids[key] = id
	}
	g.share = id
	src := m.share.groups[key]
	if src == nil {
		if err := m.finish(g); err != nil {
			return err
		}
		m.share.groups[key] = g
		return nil
	}
	g.count, g.empty, g.irregular = src.count, src.empty, src.irregular
	g.dims = make([]groupDim, len(src.dims))
	for k, d := range src.dims {
		d.node = m.nodeOf(d.node)
		g.dims[k] = d
	}
	for i := range g.members {
		g.members[i].base = src.members[i].base
	}
	return nil
}

// nodeOf is this model's node for another model's node n.
func (m *cacheModel) nodeOf(n *cacheNode) *cacheNode {
	if n.stmt == nil {
		return m.root
	}
	return m.nodes[n.stmt]
}

// sharedRef is a reference's address and strides (see addRef).
type sharedRef struct {
	addr    *symbolic.Poly
	strides []symbolic.Poly
	regular bool
}

// refAddress is a reference's byte address and strides, taken from an
// earlier model when the reference does not depend on the rank and this
// rank has every symbol of the address (an atom such as [N/P] is bound by
// the analysis that first meets it).
func (m *cacheModel) refAddress(r *refInfo) (*symbolic.Poly, []symbolic.Poly, bool, error) {
	free := !m.share.off && m.rankFreeRef(r)
	if s := m.share.refs[r]; free && s != nil && m.bound(s.addr, r.chain) {
		return s.addr, s.strides, s.regular, nil
	}
	addr, err := m.ra.linearAddress(r)
	if err != nil {
		return nil, nil, false, err
	}
	strides, regular := m.strides(r, addr)
	if free {
		m.share.refs[r] = &sharedRef{addr: addr, strides: strides, regular: regular}
	}
	return addr, strides, regular, nil
}

// rankFreeRef reports whether nothing a reference's address and strides
// are made of reads the rank: its indices, its array's extents and the
// steps of its loops.
func (m *cacheModel) rankFreeRef(r *refInfo) bool {
	info := m.ra.k.Info
	rankFree := func(e lang.Expr) bool { return e == nil || info.Deps[e]&lang.DepRank == 0 }
	for _, ix := range r.ref.Index {
		if !rankFree(ix) {
			return false
		}
	}
	if spec := m.ra.p.specs[r.array]; spec != nil {
		for _, d := range spec.Dims {
			if !rankFree(d) {
				return false
			}
		}
	}
	for _, l := range r.chain {
		if l.kind == loopLevel && !rankFree(l.loop.Step) {
			return false
		}
	}
	return true
}

// bound reports whether every variable of addr is a symbol of this rank or
// an index of chain.
func (m *cacheModel) bound(addr *symbolic.Poly, chain []level) bool {
	if addr == nil {
		return true
	}
	return !addr.AnyVar(func(v string) bool {
		if _, ok := m.ra.env[v]; ok {
			return false
		}
		for _, l := range chain {
			if l.kind == loopLevel && l.index.Name == v {
				return false
			}
		}
		return true
	})
}

// A loop under which every group is shared has the same layer conditions,
// lines and write-backs in every model: visiting it once is enough. The
// only thing from outside is the failing condition above it, which its
// groups are noted with; a visit is recorded with outerFailed in its place.

// outerFailed stands for the failing condition above a recorded visit; no
// condition reads like it.
const outerFailed = "\x00outer failing condition"

// visitKey identifies a visit across models: the loop, the level and the
// share numbers of the groups under it.
type visitKey struct {
	stmt   lang.Stmt
	level  cache.Level
	groups string
}

// visitRecord is what a visit left for the groups under the loop, in the
// order of x.under: their lines and write-backs (when set) and the
// conditions noted, outerFailed standing for the one from above.
type visitRecord struct {
	lines, wbs []Count
	set        []bool
	conds      [][]string
}

// visitKey returns the key of visiting x at st's level, or false when a
// group under x is not shared or a loop inside has footprints that change
// from one execution to the next (compulsoryEach sums them for this rank).
func (m *cacheModel) visitKey(x *cacheNode, st *levelState) (visitKey, bool) {
	if x.stmt == nil || m.share.off {
		return visitKey{}, false
	}
	ids := make([]byte, 0, 2*len(x.under))
	for _, g := range x.under {
		if g.share < 0 {
			return visitKey{}, false
		}
		ids = binary.AppendUvarint(ids, uint64(g.share))
	}
	if m.nonRectangularBelow(x) {
		return visitKey{}, false
	}
	return visitKey{stmt: x.stmt, level: st.lv, groups: string(ids)}, true
}

// nonRectangularBelow reports whether x or a loop inside it is
// nonRectangular.
func (m *cacheModel) nonRectangularBelow(x *cacheNode) bool {
	if x.chain != nil && m.nonRectangular(x) {
		return true
	}
	for _, it := range x.items {
		if it.node != nil && m.nonRectangularBelow(it.node) {
			return true
		}
	}
	return false
}

// visitShared visits x once for every model: the first records its
// visit, the others replay it.
func (m *cacheModel) visitShared(x *cacheNode, st *levelState, failed string, key visitKey) error {
	rec := m.share.visits[key]
	if rec == nil {
		if err := m.visitNode(x, st, outerFailed); err != nil {
			return err
		}
		rec = &visitRecord{lines: make([]Count, len(x.under)), wbs: make([]Count, len(x.under)), set: make([]bool, len(x.under)), conds: make([][]string, len(x.under))}
		for i, g := range x.under {
			rec.lines[i], rec.set[i] = st.lines[g]
			rec.wbs[i] = st.wbs[g]
			rec.conds[i] = st.conds[g]
			delete(st.conds, g)
		}
		if m.share.visits == nil {
			m.share.visits = map[visitKey]*visitRecord{}
		}
		m.share.visits[key] = rec
	}
	for i, g := range x.under {
		if rec.set[i] {
			st.lines[g], st.wbs[g] = rec.lines[i], rec.wbs[i]
		}
		for _, c := range rec.conds[i] {
			if c == outerFailed {
				c = failed
			}
			st.note(g, c)
		}
	}
	return nil
}
