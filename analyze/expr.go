package analyze

import (
	"fmt"
	"math/big"

	"perfc/analyze/symbolic"
	"perfc/lang"
)

// This file turns static expressions of the kernel into the engine's terms:
// piecewise polynomials (pieces) for values, and disjoint sets of
// constraints (each a poly ≥ 0) for conditions. Symbols are the names whose
// values are fixed for one rank: parameters, run-constant lets, rank, rx,
// ry, and atoms (run- or rank-constant subexpressions that are not
// polynomials, such as (rank + 1) % P or floor(N / 3)). Loop indices are
// the variables the engine sums over.

// piece is one case of a piecewise value: val where every guard is ≥ 0.
type piece struct {
	guards []symbolic.Poly
	val    symbolic.Poly
}

// atom is a symbol standing for a non-polynomial expression whose value is
// known once the rank is: either a source expression or the floor or
// ceiling of a polynomial in other symbols.
type atom struct {
	name string
	expr lang.Expr     // source expression, or nil
	poly symbolic.Poly // expr == nil: round this poly
	up   bool          // ceil rather than floor
}

// decision is a choice the engine made from concrete values: a guard with
// no loop index, or a rank-dependent condition or peer. Ranks that make the
// same decisions behave alike (see ranks.go).
type decision struct {
	poly    symbolic.Poly
	hasPoly bool
	expr    lang.Expr // a condition (bool) or a peer (none or not)
	peer    bool
	holds   bool
}

// record notes a decision that may differ between ranks.
func (ra *rankAnalysis) record(d decision) {
	if d.hasPoly && !ra.rankDependentPoly(d.poly) {
		return
	}
	if !d.hasPoly && ra.k.Info.Deps[d.expr]&lang.DepRank == 0 {
		return
	}
	ra.decisions = append(ra.decisions, d)
}

// rankDependentPoly reports whether p mentions rank, rx, ry or an atom whose
// value depends on the rank.
func (ra *rankAnalysis) rankDependentPoly(p symbolic.Poly) bool {
	return len(ra.rankSymbols) > 0 && p.AnyVar(func(v string) bool { return ra.rankSymbols[v] })
}

// onlySymbols reports whether every variable of p has a concrete value,
// i.e. p mentions no loop index.
func (ra *rankAnalysis) onlySymbols(p symbolic.Poly) bool {
	return !p.AnyVar(func(v string) bool {
		_, ok := ra.env[v]
		return !ok
	})
}

// pieces converts a static integer expression into a piecewise polynomial.
func (ra *rankAnalysis) pieces(e lang.Expr) ([]piece, error) {
	info := ra.k.Info
	dep := info.Deps[e]
	if dep&lang.DepData != 0 {
		return nil, ra.errorf(e, "internal error: %s reads data in a static context", ra.text(e))
	}
	switch e := e.(type) {
	case *lang.ParenExpr:
		return ra.pieces(e.X)
	case *lang.IntLit, *lang.FloatLit:
		return ra.constPiece(e)
	case *lang.Ident:
		return ra.identPieces(e)
	case *lang.UnaryExpr:
		if e.Op == lang.Neg {
			xs, err := ra.pieces(e.X)
			if err != nil {
				return nil, err
			}
			out := make([]piece, len(xs))
			for i, x := range xs {
				out[i] = piece{guards: x.guards, val: x.val.Neg()}
			}
			return out, nil
		}
	case *lang.BinaryExpr:
		switch e.Op {
		case lang.Add, lang.Sub, lang.Mul:
			return ra.arithPieces(e)
		case lang.Quo:
			if c, ok := info.Values[e.Y]; ok && c.Kind() == lang.IntValue && c.Rat().Sign() != 0 {
				xs, err := ra.pieces(e.X)
				if err != nil {
					return nil, err
				}
				inv := new(big.Rat).Inv(c.Rat())
				out := make([]piece, len(xs))
				for i, x := range xs {
					out[i] = piece{guards: x.guards, val: x.val.Scale(inv)}
				}
				return out, nil
			}
		}
	case *lang.CallExpr:
		switch e.Fun.Name {
		case "min", "max":
			return ra.minMaxPieces(e)
		case "floor", "ceil":
			if dep&lang.DepIndex != 0 {
				return ra.roundPieces(e)
			}
		}
	case *lang.CondExpr:
		if dep&lang.DepIndex != 0 {
			return ra.condExprPieces(e)
		}
	}
	if dep&lang.DepIndex != 0 {
		return nil, &nonAffineError{pos: ra.position(e), what: ra.text(e)}
	}
	return ra.atomPiece(e)
}

// constPiece converts a literal or run-constant value.
func (ra *rankAnalysis) constPiece(e lang.Expr) ([]piece, error) {
	v, err := ra.k.Eval(e, nil)
	if err != nil {
		return nil, err
	}
	r := v.Rat()
	if r == nil {
		return nil, ra.errorf(e, "%s is not a number", ra.text(e))
	}
	return []piece{{val: symbolic.Const(r)}}, nil
}

// identPieces converts a name: parameters, run-constant lets and builtins
// are symbols, indices are variables, lets that vary are expanded.
func (ra *rankAnalysis) identPieces(id *lang.Ident) ([]piece, error) {
	obj := ra.k.Info.ObjectOf(id)
	if obj == nil {
		return nil, ra.errorf(id, "internal error: unresolved name %s", id.Name)
	}
	switch obj.Kind {
	case lang.ParamObj, lang.IndexObj:
		return []piece{{val: ra.p.variable(obj.Name)}}, nil
	case lang.LetObj:
		if obj.Dep == 0 && obj.Value.Kind() == lang.IntValue {
			return []piece{{val: ra.p.variable(obj.Name)}}, nil
		}
		if obj.Dep == 0 {
			return []piece{{val: symbolic.Const(obj.Value.Rat())}}, nil
		}
		return ra.pieces(obj.Expr)
	case lang.BuiltinObj:
		if _, ok := ra.env[obj.Name]; ok {
			return []piece{{val: ra.p.variable(obj.Name)}}, nil
		}
		return ra.atomPiece(id)
	}
	return nil, ra.errorf(id, "internal error: %s %s in a static context", obj.Kind, id.Name)
}

// variable returns the polynomial of one variable, made once per plan:
// every index expression and loop bound names a few variables many times.
func (p *plan) variable(name string) symbolic.Poly {
	if v, ok := p.variables[name]; ok {
		return v
	}
	v := symbolic.Var(name)
	if p.variables == nil {
		p.variables = map[string]symbolic.Poly{}
	}
	p.variables[name] = v
	return v
}

// arithPieces combines the pieces of x and y with +, - or *.
func (ra *rankAnalysis) arithPieces(e *lang.BinaryExpr) ([]piece, error) {
	xs, err := ra.pieces(e.X)
	if err != nil {
		return nil, err
	}
	ys, err := ra.pieces(e.Y)
	if err != nil {
		return nil, err
	}
	var out []piece
	for _, x := range xs {
		for _, y := range ys {
			g, ok := ra.decide(append(clonePolys(x.guards), y.guards...))
			if !ok {
				continue
			}
			var v symbolic.Poly
			switch e.Op {
			case lang.Add:
				v = x.val.Add(y.val)
			case lang.Sub:
				v = x.val.Sub(y.val)
			default:
				v = x.val.Mul(y.val)
			}
			out = append(out, piece{guards: g, val: v})
		}
	}
	return out, nil
}

// minMaxPieces splits min(a, b, …) or max(…) into one piece per argument,
// guarded by its being the smallest (largest); ties go to the first.
func (ra *rankAnalysis) minMaxPieces(e *lang.CallExpr) ([]piece, error) {
	isMax := e.Fun.Name == "max"
	args := make([][]piece, len(e.Args))
	for i, a := range e.Args {
		ps, err := ra.pieces(a)
		if err != nil {
			return nil, err
		}
		args[i] = ps
	}
	// Combine the arguments pairwise: m = pick(m, next).
	acc := args[0]
	for _, next := range args[1:] {
		var out []piece
		for _, a := range acc {
			for _, b := range next {
				base := append(clonePolys(a.guards), b.guards...)
				d := b.val.Sub(a.val) // a wins a min when a ≤ b, a max when a ≥ b
				if isMax {
					d = d.Neg()
				}
				d = integral(d)
				if g, ok := ra.decide(append(clonePolys(base), d)); ok {
					out = append(out, piece{guards: g, val: a.val})
				}
				if g, ok := ra.decide(append(clonePolys(base), d.Neg().Sub(symbolic.Int(1)))); ok {
					out = append(out, piece{guards: g, val: b.val})
				}
			}
		}
		acc = out
	}
	return acc, nil
}

// roundPieces converts floor(x) or ceil(x) of an expression with loop
// indices: exact when the rounding is a polynomial (x integer-valued).
func (ra *rankAnalysis) roundPieces(e *lang.CallExpr) ([]piece, error) {
	xs, err := ra.pieces(e.Args[0])
	if err != nil {
		return nil, err
	}
	up := e.Fun.Name == "ceil"
	out := make([]piece, len(xs))
	for i, x := range xs {
		var r symbolic.Poly
		var ok bool
		if up {
			r, ok = symbolic.Ceil(x.val)
		} else {
			r, ok = symbolic.Floor(x.val)
		}
		if !ok {
			return nil, &nonAffineError{pos: ra.position(e), what: ra.text(e)}
		}
		out[i] = piece{guards: x.guards, val: r}
	}
	return out, nil
}

// condExprPieces converts c ? a : b with a condition on loop indices.
func (ra *rankAnalysis) condExprPieces(e *lang.CondExpr) ([]piece, error) {
	var out []piece
	for _, branch := range []struct {
		neg bool
		x   lang.Expr
	}{{false, e.Then}, {true, e.Else}} {
		sets, err := ra.condSets(e.Cond, branch.neg)
		if err != nil {
			return nil, err
		}
		xs, err := ra.pieces(branch.x)
		if err != nil {
			return nil, err
		}
		for _, s := range sets {
			for _, x := range xs {
				if g, ok := ra.decide(append(clonePolys(s), x.guards...)); ok {
					out = append(out, piece{guards: g, val: x.val})
				}
			}
		}
	}
	return out, nil
}

// atomPiece makes a run- or rank-constant non-polynomial expression a
// symbol, named by its source text.
func (ra *rankAnalysis) atomPiece(e lang.Expr) ([]piece, error) {
	name := "[" + ra.text(e) + "]"
	if _, ok := ra.env[name]; !ok {
		v, err := ra.k.Eval(e, &lang.Env{Rank: ra.rank})
		if err != nil {
			return nil, err
		}
		r := v.Rat()
		if r == nil {
			return nil, ra.errorf(e, "%s is not a number", ra.text(e))
		}
		ra.env[name] = r
		ra.atoms = append(ra.atoms, atom{name: name, expr: e})
		if ra.k.Info.Deps[e]&lang.DepRank != 0 {
			ra.rankSymbols[name] = true
		}
	}
	return []piece{{val: symbolic.Var(name)}}, nil
}

// roundAtom makes ⌊p⌋ or ⌈p⌉ of a polynomial in symbols a symbol.
func (ra *rankAnalysis) roundAtom(p symbolic.Poly, up bool) (symbolic.Poly, error) {
	name := "floor(" + p.String() + ")"
	if up {
		name = "ceil(" + p.String() + ")"
	}
	if _, ok := ra.env[name]; !ok {
		v, err := p.Eval(ra.env)
		if err != nil {
			return symbolic.Poly{}, err
		}
		var r *big.Int
		if up {
			r = symbolic.CeilRat(v)
		} else {
			r = symbolic.FloorRat(v)
		}
		ra.env[name] = new(big.Rat).SetInt(r)
		ra.atoms = append(ra.atoms, atom{name: name, poly: p, up: up})
		if ra.rankDependentPoly(p) {
			ra.rankSymbols[name] = true
		}
	}
	return symbolic.Var(name), nil
}

// condSets converts a static condition (negated when neg) into disjoint
// sets of constraints whose union is exactly where it holds. A condition
// without loop indices is decided at once: one empty set (true) or none.
func (ra *rankAnalysis) condSets(e lang.Expr, neg bool) ([][]symbolic.Poly, error) {
	info := ra.k.Info
	if info.Deps[e]&lang.DepIndex == 0 {
		v, err := ra.k.Eval(e, &lang.Env{Rank: ra.rank})
		if err != nil {
			return nil, err
		}
		holds := v.Bool() != neg
		ra.record(decision{expr: e, holds: v.Bool()})
		if holds {
			return [][]symbolic.Poly{nil}, nil
		}
		return nil, nil
	}
	switch e := e.(type) {
	case *lang.ParenExpr:
		return ra.condSets(e.X, neg)
	case *lang.UnaryExpr:
		if e.Op == lang.Not {
			return ra.condSets(e.X, !neg)
		}
	case *lang.Ident:
		if obj := info.ObjectOf(e); obj != nil && obj.Kind == lang.LetObj && obj.Expr != nil {
			return ra.condSets(obj.Expr, neg)
		}
	case *lang.CondExpr:
		// (c && a) || (!c && b), the two halves disjoint.
		var out [][]symbolic.Poly
		for _, br := range []struct {
			cneg bool
			x    lang.Expr
		}{{false, e.Then}, {true, e.Else}} {
			cs, err := ra.condSets(e.Cond, br.cneg)
			if err != nil {
				return nil, err
			}
			xs, err := ra.condSets(br.x, neg)
			if err != nil {
				return nil, err
			}
			out = append(out, ra.crossSets(cs, xs)...)
		}
		return out, nil
	case *lang.BinaryExpr:
		switch {
		case e.Op == lang.LAnd && !neg, e.Op == lang.LOr && neg:
			// a && b, or !(a || b) = !a && !b
			as, err := ra.condSets(e.X, neg)
			if err != nil {
				return nil, err
			}
			bs, err := ra.condSets(e.Y, neg)
			if err != nil {
				return nil, err
			}
			return ra.crossSets(as, bs), nil
		case e.Op == lang.LOr && !neg, e.Op == lang.LAnd && neg:
			// a || b = a ∪ (!a && b); !(a && b) = !a ∪ (a && !b)
			as, err := ra.condSets(e.X, neg)
			if err != nil {
				return nil, err
			}
			notAs, err := ra.condSets(e.X, !neg)
			if err != nil {
				return nil, err
			}
			bs, err := ra.condSets(e.Y, neg)
			if err != nil {
				return nil, err
			}
			return append(as, ra.crossSets(notAs, bs)...), nil
		case e.Op.IsComparison():
			return ra.comparisonSets(e, neg)
		}
	}
	return nil, &nonAffineError{pos: ra.position(e), what: "condition " + ra.text(e)}
}

// crossSets returns every union of one set of as with one set of bs.
func (ra *rankAnalysis) crossSets(as, bs [][]symbolic.Poly) [][]symbolic.Poly {
	var out [][]symbolic.Poly
	for _, a := range as {
		for _, b := range bs {
			if g, ok := ra.decide(append(clonePolys(a), b...)); ok {
				out = append(out, g)
			}
		}
	}
	return out
}

// comparisonSets converts x op y (negated when neg) into constraints.
func (ra *rankAnalysis) comparisonSets(e *lang.BinaryExpr, neg bool) ([][]symbolic.Poly, error) {
	op := e.Op
	if neg {
		op = negateComparison(op)
	}
	if sets, ok, err := ra.floorComparison(e.X, op, e.Y); ok || err != nil {
		return sets, err
	}
	if sets, ok, err := ra.floorComparison(e.Y, swapComparison(op), e.X); ok || err != nil {
		return sets, err
	}
	xs, err := ra.pieces(e.X)
	if err != nil {
		return nil, err
	}
	ys, err := ra.pieces(e.Y)
	if err != nil {
		return nil, err
	}
	var out [][]symbolic.Poly
	for _, x := range xs {
		for _, y := range ys {
			base := append(clonePolys(x.guards), y.guards...)
			d := integral(x.val.Sub(y.val)) // x − y, scaled to integer coefficients
			one := symbolic.Int(1)
			var sets [][]symbolic.Poly
			switch op {
			case lang.Lss:
				sets = [][]symbolic.Poly{{d.Neg().Sub(one)}}
			case lang.Leq:
				sets = [][]symbolic.Poly{{d.Neg()}}
			case lang.Gtr:
				sets = [][]symbolic.Poly{{d.Sub(one)}}
			case lang.Geq:
				sets = [][]symbolic.Poly{{d}}
			case lang.Eql:
				sets = [][]symbolic.Poly{{d, d.Neg()}}
			case lang.Neq:
				sets = [][]symbolic.Poly{{d.Sub(one)}, {d.Neg().Sub(one)}}
			}
			for _, s := range sets {
				if g, ok := ra.decide(append(clonePolys(base), s...)); ok {
					out = append(out, g)
				}
			}
		}
	}
	return out, nil
}

// floorComparison converts floor(x / c) op y, with c a positive integer
// constant for the run, into constraints on x: floor(x/c) ≥ y ⟺ x ≥ c·y and
// floor(x/c) ≤ y ⟺ x ≤ c·y + c − 1 for integer y. This keeps block-owner
// tests such as `rank == floor(j / BS)` affine in j. ok is false when the
// left side is not of that form.
func (ra *rankAnalysis) floorComparison(left lang.Expr, op lang.BinaryOp, right lang.Expr) ([][]symbolic.Poly, bool, error) {
	call, isCall := lang.Unparen(left).(*lang.CallExpr)
	if !isCall || call.Fun.Name != "floor" || len(call.Args) != 1 {
		return nil, false, nil
	}
	quo, isQuo := lang.Unparen(call.Args[0]).(*lang.BinaryExpr)
	if !isQuo || quo.Op != lang.Quo || ra.k.Info.Deps[quo.Y] != 0 {
		return nil, false, nil
	}
	cv, err := ra.k.Eval(quo.Y, nil)
	if err != nil || !cv.IsInt() || cv.Rat().Sign() <= 0 {
		return nil, false, nil
	}
	xs, err := ra.pieces(quo.X)
	if err != nil {
		return nil, true, err
	}
	cs, err := ra.pieces(quo.Y)
	if err != nil || len(cs) != 1 {
		return nil, false, err
	}
	c := cs[0].val
	ys, err := ra.pieces(right)
	if err != nil {
		return nil, true, err
	}
	one := symbolic.Int(1)
	var out [][]symbolic.Poly
	for _, x := range xs {
		for _, y := range ys {
			base := append(clonePolys(x.guards), y.guards...)
			atLeast := func(y symbolic.Poly) symbolic.Poly { return x.val.Sub(c.Mul(y)) }                // floor ≥ y
			atMost := func(y symbolic.Poly) symbolic.Poly { return c.Mul(y).Add(c).Sub(one).Sub(x.val) } // floor ≤ y
			var sets [][]symbolic.Poly
			switch op {
			case lang.Geq:
				sets = [][]symbolic.Poly{{atLeast(y.val)}}
			case lang.Gtr:
				sets = [][]symbolic.Poly{{atLeast(y.val.Add(one))}}
			case lang.Leq:
				sets = [][]symbolic.Poly{{atMost(y.val)}}
			case lang.Lss:
				sets = [][]symbolic.Poly{{atMost(y.val.Sub(one))}}
			case lang.Eql:
				sets = [][]symbolic.Poly{{atLeast(y.val), atMost(y.val)}}
			case lang.Neq:
				sets = [][]symbolic.Poly{{atMost(y.val.Sub(one))}, {atLeast(y.val.Add(one))}}
			}
			for _, s := range sets {
				if g, ok := ra.decide(append(clonePolys(base), s...)); ok {
					out = append(out, g)
				}
			}
		}
	}
	return out, true, nil
}

// swapComparison returns op with its operands exchanged (a < b ⟺ b > a).
func swapComparison(op lang.BinaryOp) lang.BinaryOp {
	switch op {
	case lang.Lss:
		return lang.Gtr
	case lang.Leq:
		return lang.Geq
	case lang.Gtr:
		return lang.Lss
	case lang.Geq:
		return lang.Leq
	}
	return op
}

// negateComparison returns the comparison that holds exactly when op fails.
func negateComparison(op lang.BinaryOp) lang.BinaryOp {
	switch op {
	case lang.Lss:
		return lang.Geq
	case lang.Leq:
		return lang.Gtr
	case lang.Gtr:
		return lang.Leq
	case lang.Geq:
		return lang.Lss
	case lang.Eql:
		return lang.Neq
	}
	return lang.Eql
}

// integral scales p by the least common multiple of its coefficients'
// denominators, so that p ≥ 0 keeps its meaning and p takes integer values
// at integer points (needed to turn strict comparisons into ≥ 0 − 1).
func integral(p symbolic.Poly) symbolic.Poly {
	l := big.NewInt(1)
	for _, c := range p.Coefficients() {
		d := c.Denom()
		g := new(big.Int).GCD(nil, nil, l, d)
		l.Mul(l, new(big.Int).Quo(d, g))
	}
	if l.Cmp(big.NewInt(1)) == 0 {
		return p
	}
	return p.Scale(new(big.Rat).SetInt(l))
}

// errorf returns a positioned error at node n.
func (ra *rankAnalysis) errorf(n lang.Node, format string, args ...any) error {
	return &lang.Error{Pos: ra.position(n), Msg: fmt.Sprintf(format, args...)}
}

// position resolves a node's position.
func (ra *rankAnalysis) position(n lang.Node) lang.Position {
	return ra.k.File.Source.Position(n.Pos())
}

// text returns the canonical source form of an expression.
func (ra *rankAnalysis) text(e lang.Expr) string { return lang.ExprString(e) }

// place returns a node's position as file:line:col, formatted once per
// plan: every rank's counts name their references and statements by it.
// A loop that shares its position with an earlier loop (a work
// statement's nest) has its ordinal added, file:line:col#2
// (lang.Checked.LoopSuffix), as codegen's comment on it has.
func (ra *rankAnalysis) place(n lang.Node) string {
	if s, ok := ra.p.places[n]; ok {
		return s
	}
	s := ra.position(n).String() + ra.k.LoopSuffix(n)
	if ra.p.places == nil {
		ra.p.places = map[lang.Node]string{}
	}
	ra.p.places[n] = s
	return s
}

// source returns an expression's canonical form, formatted once per plan.
func (ra *rankAnalysis) source(e lang.Expr) string {
	if s, ok := ra.p.sources[e]; ok {
		return s
	}
	s := lang.ExprString(e)
	if ra.p.sources == nil {
		ra.p.sources = map[lang.Expr]string{}
	}
	ra.p.sources[e] = s
	return s
}
