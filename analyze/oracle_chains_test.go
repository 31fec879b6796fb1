package analyze

import (
	"math/big"
	"slices"

	"perfc/lang"
)

// The oracle's side of the dependency chains. Which operations lie on a
// chain is the analyzer's static finding (chains.go, tested case by case in
// chains_test.go); what the oracle checks is every count a chain reports:
// the carrying loop's iterations and entries, the operations of the chain's steps over
// their executions, and what the loop's body does (its iterations and those
// of nested loops, operations, multiply-add pairs, loads and stores), all
// from the concrete walk.

// oracleLoop is where a for or repeat loop is.
type oracleLoop struct {
	enclosing []lang.Stmt
	region    string
}

// flatChain is one chain reduced to values.
type flatChain struct {
	Iterations, Entries       *big.Rat
	Ops                       map[string]*big.Rat // "add f64"
	BodyIterations, BodyMadds *big.Rat
	BodyLoads, BodyStores     *big.Rat
	BodyOps                   map[string]*big.Rat
}

// newFlatChain returns a chain of zero counts.
func newFlatChain() flatChain {
	return flatChain{Iterations: new(big.Rat), Entries: new(big.Rat), Ops: map[string]*big.Rat{}, BodyIterations: new(big.Rat),
		BodyMadds: new(big.Rat), BodyLoads: new(big.Rat), BodyStores: new(big.Rat), BodyOps: map[string]*big.Rat{}}
}

// flattenChain reduces one of the analyzer's chains.
func flattenChain(ch Chain) flatChain {
	f := newFlatChain()
	f.Iterations.Set(ratOrZero(ch.Iterations.Value))
	f.Entries.Set(ratOrZero(ch.Entries.Value))
	for _, o := range ch.Ops {
		addTo(f.Ops, o.Op.String()+" "+string(o.Type), ratOrZero(o.Count.Value))
	}
	f.BodyIterations.Set(ratOrZero(ch.Body.Iterations.Value))
	f.BodyLoads.Set(ratOrZero(ch.Body.Loads.Value))
	f.BodyStores.Set(ratOrZero(ch.Body.Stores.Value))
	for _, o := range ch.Body.Ops {
		addTo(f.BodyOps, o.Op.String()+" "+string(o.Type), ratOrZero(o.Count.Value))
	}
	for _, o := range ch.Body.Madds {
		f.BodyMadds.Add(f.BodyMadds, ratOrZero(o.Count.Value))
	}
	dropZeroEntries(f.Ops)
	dropZeroEntries(f.BodyOps)
	return f
}

// dropZeroEntries removes the entries whose count is zero.
func dropZeroEntries(m map[string]*big.Rat) {
	for k, v := range m {
		if v.Sign() == 0 {
			delete(m, k)
		}
	}
}

// chainLeaves returns the analyzer's chain leaves of k.
func chainLeaves(k *lang.Checked) []*leaf {
	var out []*leaf
	for _, l := range newPlan(k).leaves {
		if l.kind == leafChain {
			out = append(out, l)
		}
	}
	return out
}

// tallyChains adds every chain of a loop that ran to its region's counts.
func (w *oracleRun) tallyChains(at func(string) *flatCounts) {
	pr := w.pr
	for _, l := range pr.chains {
		loop := l.stmt
		iters := w.loopIters[loop]
		if iters == nil || iters.Sign() == 0 {
			continue // a loop that never runs carries nothing, as in the report
		}
		body := w.loopBody(loop)
		for _, cc := range l.carried {
			f := body
			f.Iterations = iters
			f.Entries = w.loopEntries[loop]
			f.Ops = map[string]*big.Rat{}
			for _, s := range cc.steps {
				n := new(big.Rat)
				if e := w.execs[pr.local[s.leaf.stmt]]; e != nil {
					n.Mul(e, big.NewRat(s.n, 1))
				}
				n.Mul(n, factorOf(s.factor))
				addTo(f.Ops, s.op.String()+" "+string(s.typ), n)
			}
			dropZeroEntries(f.Ops)
			if len(f.Ops) == 0 {
				continue // no step ran: no chain, as in the report
			}
			key := pr.k.File.Source.Position(loop.Pos()).String() + " " + cc.name
			at(pr.loops[loop].region).Chains[key] = f
		}
	}
}

// loopBody sums what the walk did inside loop: the iterations of it and of
// every loop nested in it, and the statements and hoisted references inside.
func (w *oracleRun) loopBody(loop lang.Stmt) flatChain {
	pr := w.pr
	f := newFlatChain()
	inside := func(enclosing []lang.Stmt) bool { return slices.Contains(enclosing, loop) }
	for m, n := range w.loopIters {
		if m == loop || inside(pr.loops[m].enclosing) {
			f.BodyIterations.Add(f.BodyIterations, n)
		}
	}
	addRefs := func(refs []oracleRef, n *big.Rat) {
		for _, r := range refs {
			if r.store {
				f.BodyStores.Add(f.BodyStores, n)
			} else {
				f.BodyLoads.Add(f.BodyLoads, n)
			}
		}
	}
	for loc, n := range w.execs {
		if !inside(loc.enclosing) {
			continue
		}
		for _, o := range loc.ops {
			addTo(f.BodyOps, o.op.String()+" "+string(o.typ), new(big.Rat).Mul(n, big.NewRat(o.n, 1)))
		}
		for _, m := range loc.madd {
			f.BodyMadds.Add(f.BodyMadds, new(big.Rat).Mul(n, big.NewRat(m.n, 1)))
		}
		addRefs(loc.refs, n)
	}
	// A reference hoisted out of a loop nested in this one is loaded on
	// each entry of that loop, inside this one's body.
	for m, n := range w.hoist {
		if inside(pr.loops[m].enclosing) {
			addRefs(pr.hoisted[m], n)
		}
	}
	dropZeroEntries(f.BodyOps)
	return f
}
