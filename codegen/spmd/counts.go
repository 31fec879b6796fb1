package spmd

import (
	"slices"
	"sort"
	"strings"
)

// opKinds lists the operation kinds in the analyzer's order
// (analyze.OpKind), which reports follow.
const opKinds = "add sub mul div rem sqrt exp log sin cos abs min max cmp neg bit conv"

// opRank is the position of op in opKinds.
func opRank(op string) int { return slices.Index(strings.Fields(opKinds), op) }

// nominalFlop is the PARKBENCH weight of a floating-point operation, as
// analyze.OpKind.NominalFlop: neg, conv, rem and bit weigh nothing.
func nominalFlop(op string) int64 {
	switch op {
	case "add", "sub", "mul", "cmp", "min", "max", "abs":
		return 1
	case "div", "sqrt":
		return 4
	case "exp", "log", "sin", "cos":
		return 8
	}
	return 0
}

// isFloat reports whether operations of type typ are floating point.
func isFloat(typ string) bool { return typ == "f64" || typ == "f32" }

// addOpCount adds x to list, keeping the analyzer's order: by kind, type,
// pattern.
func addOpCount(list []OpCount, x OpCount) []OpCount {
	for i := range list {
		if list[i].Op == x.Op && list[i].Type == x.Type && list[i].Pattern == x.Pattern {
			list[i].Count += x.Count
			return list
		}
	}
	list = append(list, x)
	sort.Slice(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if a.Op != b.Op {
			return opRank(a.Op) < opRank(b.Op)
		}
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		return a.Pattern < b.Pattern
	})
	return list
}

// addOp adds n operations to c, keeping flop and int ops as the analyzer
// does.
func (c *Counts) addOp(op, typ, pattern string, n int64) {
	c.Ops = addOpCount(c.Ops, OpCount{Op: op, Type: typ, Pattern: pattern, Count: n})
	if isFloat(typ) {
		c.Flop += n * nominalFlop(op)
	} else if op != "conv" {
		c.IntOps += n
	}
}

// addRef adds n executions of one array reference.
func (c *Counts) addRef(ref siteRef, n int64) {
	if ref.store {
		c.Stores += n
		c.StoreBytes += n * ref.size
	} else {
		c.Loads += n
		c.LoadBytes += n * ref.size
	}
	c.Refs = append(c.Refs, RefCount{Array: ref.array, Pos: ref.pos, Text: ref.text, Store: ref.store,
		ElemBytes: ref.size, Count: n, Hoisted: ref.hoisted, Pattern: ref.pattern})
}

// plus returns c + d.
func (c Counts) plus(d Counts) Counts {
	out := c
	out.Ops = append([]OpCount(nil), c.Ops...)
	for _, o := range d.Ops {
		// addOp adds the operation's flop and int ops too.
		out.addOp(o.Op, o.Type, o.Pattern, o.Count)
	}
	out.Madds = append([]OpCount(nil), c.Madds...)
	for _, o := range d.Madds {
		out.Madds = addOpCount(out.Madds, o)
	}
	out.Iterations += d.Iterations
	out.MaddPairs += d.MaddPairs
	out.Loads += d.Loads
	out.Stores += d.Stores
	out.LoadBytes += d.LoadBytes
	out.StoreBytes += d.StoreBytes
	out.Barriers += d.Barriers
	out.LoopEntries += d.LoopEntries
	out.RegionEntries += d.RegionEntries
	out.InnerRegionEntries += d.InnerRegionEntries
	out.Requests = out.Requests.plus(d.Requests)
	out.Refs = append(append([]RefCount(nil), c.Refs...), d.Refs...)
	out.Messages = append(append([]Message(nil), c.Messages...), d.Messages...)
	out.Collectives = append(append([]Collective(nil), c.Collectives...), d.Collectives...)
	return out
}

// siteKindName names point-to-point sites as the analyzer's messages.
func (k siteKind) messageKind() string {
	switch k {
	case siteRecv:
		return "recv"
	case siteISend:
		return "isend"
	case siteIRecv:
		return "irecv"
	}
	return "send"
}

// executedCounts prices the site counters of rank id of size ranks with
// the site table.
func (k *kernelDesc) executedCounts(size, id int, r rankCounters) RankCounts {
	regions := make([]Counts, len(k.regions))
	var branches []Branch
	for i, s := range k.sites {
		n := r.cnt[i]
		c := &regions[s.region]
		switch s.kind {
		case siteIter:
			c.Iterations += n
		case siteEntry:
			c.LoopEntries += n
		case siteRegion:
			c.RegionEntries += n
		case siteInnerRegion:
			c.InnerRegionEntries += n
		case siteExec, siteCond, siteHoist:
			if s.times > 1 {
				n *= s.times
			}
			for _, t := range s.ops {
				c.addOp(t.op, t.typ, s.pattern, n*t.n)
			}
			for _, t := range s.madds {
				c.Madds = addOpCount(c.Madds, OpCount{Op: t.op, Type: t.typ, Pattern: s.pattern, Count: n * t.n})
				c.MaddPairs += n * t.n
			}
			for _, ref := range s.refs {
				c.addRef(ref, n)
			}
		case siteSend, siteRecv, siteISend, siteIRecv:
			if n > 0 {
				peer := r.peer[i]
				if s.varies {
					peer = -2
				}
				c.Messages = append(c.Messages, Message{Kind: s.kind.messageKind(), Stmt: s.stmt, Peer: s.peer,
					PeerRank: peer, Count: n, Bytes: r.bytes[i]})
			}
		case siteColl:
			if n > 0 {
				c.Collectives = append(c.Collectives, Collective{Kind: s.coll, Op: s.redop, Elem: s.elem, Stmt: s.stmt,
					Root: s.peer, Participants: size, Count: n, Bytes: r.bytes[i]})
			}
		case siteBarrier:
			c.Barriers += n
		case siteTaken:
			cond := k.sites[s.cond]
			branches = append(branches, Branch{Stmt: cond.stmt, Region: k.regions[cond.region], Prob: cond.assumed,
				Evaluated: r.cnt[s.cond], Taken: n})
		}
	}
	if r.posted != nil {
		for i := range regions {
			regions[i].Requests = RequestCounts{Posted: r.posted[i], Completed: r.completed[i], Overlapped: r.overlapped[i]}
		}
	}
	out := RankCounts{Rank: id, Branches: branches}
	for i, name := range k.regions {
		out.Regions = append(out.Regions, RegionCounts{Name: name, Counts: regions[i]})
		out.Total = out.Total.plus(regions[i])
	}
	return out
}
