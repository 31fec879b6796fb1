package analyze

import (
	"fmt"
	"math"

	"perfc/lang"
	"perfc/parser"
)

// This file is `perfc count --per-iteration`: the cache lines per cache line
// of work (Kerncraft's unit) of each region, over the whole run and in
// steady state, and the parameter sizes at which each layer condition
// breaks (conditions.go).
//
// The whole run is the model's total (first touches, the halo rows a
// stencil loads before its first result, the end of the run) divided by the
// work. The steady state is the cost of the work in the middle of a long,
// warm run, as Kerncraft states it, from two more runs of the model:
//
//   - the marginal cost of the last iterations: the model again with the
//     last eighth of the iterations (at least one) of every outermost loop
//     or repeat of the region taken off; the lines those iterations add,
//     over the work they add. Taking iterations off the end keeps the start
//     of the run and its first touches in both runs, so they cancel; inner
//     loops, and so the layer conditions that decide the lines of an
//     iteration, are unchanged;
//   - a warm run: the model with every such loop run twice in a row
//     (wrapped in repeat 2); the lines the second run adds, over the work.
//     Where everything the loops touch stays in a level, that is 0.
//
// The steady state is the fewer of the two, per level: a warm run's
// marginal cost. A difference that is negative (a triangular nest, whose
// last iterations are the smallest) is not taken.

// SteadyRegion is one region's lines per cache line of work.
type SteadyRegion struct {
	Region string `json:"region"`
	Rank   int64  `json:"rank"` // the rank the figures are for
	// Work is the region's work in cache lines: the executions of its most
	// executed reference times that reference's element size, over the
	// first level's line size (8 iterations of an f64 loop a 64 B line).
	Work float64 `json:"work_lines"`
	// TakenOff says which iterations the marginal cost leaves out; ""
	// when there are none to leave out, and Why says why (the steady
	// state is then the warm run's alone).
	TakenOff string        `json:"taken_off,omitempty"`
	Why      string        `json:"why,omitempty"`
	Levels   []SteadyLevel `json:"levels"`
}

// SteadyLevel is one level's traffic per cache line of work.
type SteadyLevel struct {
	Level     string `json:"level"`
	LineBytes int    `json:"line_bytes"`
	// Lines and WriteBacks over the whole run per cache line of work;
	// SteadyLines and SteadyWriteBacks in steady state (nil when there is
	// none).
	Lines            float64  `json:"lines"`
	WriteBacks       float64  `json:"writebacks"`
	SteadyLines      *float64 `json:"steady_lines,omitempty"`
	SteadyWriteBacks *float64 `json:"steady_writebacks,omitempty"`
	// Conditions are the level's layer conditions in the region, with
	// where each changes (conditions.go).
	Conditions []ConditionLimit `json:"conditions,omitempty"`
}

// steadyFraction is the part of an outermost loop's iterations taken off.
const steadyFraction = 8

// takeOff is the number of iterations taken off a loop of trip iterations:
// an eighth, at least one; from 32 iterations on, rounded down to a multiple
// of 16 and at least 16, so that a loop that walks across lines (matvec's
// column index) takes whole lines off for elements of 4 bytes and more.
func takeOff(trip int64) int64 {
	off := max(1, trip/steadyFraction)
	if trip >= 32 {
		off = max(16, off-off%16)
	}
	return off
}

// SteadyState works out the lines per cache line of work of every region of
// rep's class that holds rank (the first class when rank < 0), over the
// whole run and in steady state. opts are the options rep was made with.
func SteadyState(k *lang.Checked, opts Options, rep *Report, rank int64) ([]SteadyRegion, error) {
	cl := rep.Classes[0]
	for _, c := range rep.Classes {
		if rank >= 0 && c.Ranks.Contains(rank) {
			cl = c
		}
	}
	if len(opts.Cache) == 0 {
		return nil, fmt.Errorf("per-iteration figures need a cache hierarchy")
	}
	line := int64(opts.Cache[0].Line)
	short, takenOff, why, err := shortened(k, cl.Rank)
	if err != nil {
		return nil, err
	}
	twice, err := repeated(k, cl.Rank)
	if err != nil {
		return nil, err
	}
	o := opts
	o.OnlyRank = &cl.Rank
	var shortCl, twiceCl *Class
	if short != nil {
		shortRep, err := Analyze(short, o)
		if err != nil {
			return nil, err
		}
		shortCl = shortRep.Classes[0]
	}
	if twice != nil {
		twiceRep, err := Analyze(twice, o)
		if err != nil {
			return nil, err
		}
		twiceCl = twiceRep.Classes[0]
	}
	var out []SteadyRegion
	for _, r := range cl.Regions {
		if len(r.Counts.Cache) == 0 || len(r.Counts.Refs) == 0 {
			continue
		}
		sr := SteadyRegion{Region: r.Name, Rank: cl.Rank, Work: workOf(r.Counts, line)}
		if sr.Work == 0 {
			continue
		}
		sc, tc := classRegion(shortCl, r.Name), classRegion(twiceCl, r.Name)
		dw := 0.0
		if sc != nil {
			dw = sr.Work - workOf(*sc, line)
		}
		switch {
		case short == nil:
			sr.Why = why
		case dw <= 0:
			sr.Why = "taking " + takenOff + " off changes no work in this region"
		default:
			sr.TakenOff = takenOff
		}
		for i, c := range r.Counts.Cache {
			lv := SteadyLevel{Level: c.Level, LineBytes: opts.Cache[i].Line,
				Lines: c.Lines.Float() / sr.Work, WriteBacks: c.WriteBacks.Float() / sr.Work,
				Conditions: conditionLimits(k, c.Conditions, int64(opts.Cache[i].Size))}
			lines, wbs := math.Inf(1), math.Inf(1)
			if sr.TakenOff != "" && i < len(sc.Cache) {
				lines = marginal(c.Lines, sc.Cache[i].Lines, dw)
				wbs = marginal(c.WriteBacks, sc.Cache[i].WriteBacks, dw)
			}
			if tc != nil && i < len(tc.Cache) {
				lines = min(lines, marginal(tc.Cache[i].Lines, c.Lines, sr.Work))
				wbs = min(wbs, marginal(tc.Cache[i].WriteBacks, c.WriteBacks, sr.Work))
			}
			if !math.IsInf(lines, 1) && !math.IsInf(wbs, 1) {
				lv.SteadyLines, lv.SteadyWriteBacks = &lines, &wbs
			}
			sr.Levels = append(sr.Levels, lv)
		}
		out = append(out, sr)
	}
	return out, nil
}

// classRegion is the counts of region name in cl (nil when cl is nil or
// has no such region).
func classRegion(cl *Class, name string) *Counts {
	if cl == nil {
		return nil
	}
	for i := range cl.Regions {
		if cl.Regions[i].Name == name {
			return &cl.Regions[i].Counts
		}
	}
	return nil
}

// marginal is (more - less) / work, or +Inf when more < less: the lines do
// not grow with the work (a triangular nest whose last iterations are the
// smallest, where the average trips the model uses change), so the
// difference is no steady state.
func marginal(more, less Count, work float64) float64 {
	d := more.Float() - less.Float()
	if d < 0 {
		return math.Inf(1)
	}
	return d / work
}

// workOf is a region's work in lines of line bytes (SteadyRegion.Work).
func workOf(c Counts, line int64) float64 {
	best, bytes := 0.0, 0.0
	for _, r := range c.Refs {
		if n := r.Count.Float(); n > best {
			best, bytes = n, n*float64(r.Size)
		}
	}
	return bytes / float64(line)
}

// shortened returns k with the last eighth (at least one) of the
// iterations of every outermost loop and repeat of every region taken off,
// parsed and checked anew from the kernel's source with its parameters, and
// a description of what was taken off; nil and the reason when no loop has
// two iterations or more.
func shortened(k *lang.Checked, rank int64) (*lang.Checked, string, string, error) {
	return variant(k, rank, false)
}

// repeated returns k with every outermost loop and repeat of every region
// run twice in a row (wrapped in repeat 2), parsed and checked anew.
func repeated(k *lang.Checked, rank int64) (*lang.Checked, error) {
	r, _, _, err := variant(k, rank, true)
	return r, err
}

// variant is shortened (wrap false) or repeated (wrap true).
func variant(k *lang.Checked, rank int64, wrap bool) (*lang.Checked, string, string, error) {
	f, err := parser.ParseFile(k.File.Source.Name, k.File.Source.Text)
	if err != nil {
		return nil, "", "", err
	}
	var kern *lang.Kernel
	for _, x := range f.Kernels {
		if x.Name.Name == k.Kernel.Name.Name {
			kern = x
		}
	}
	if kern == nil {
		return nil, "", "", fmt.Errorf("kernel %s not found again in %s", k.Kernel.Name.Name, k.File.Source.Name)
	}
	s := &shortener{k: k, env: &lang.Env{Rank: rank, Index: make([]int64, k.Info.NumSlots)}, wrap: wrap}
	s.block(kern.Body)
	if s.err != nil {
		return nil, "", "", s.err
	}
	if len(s.taken) == 0 {
		return nil, "", "no outermost loop of a region has two iterations or more", nil
	}
	// The parameters the kernel declares (the rank count among them when
	// it declares one), with the values k was checked with.
	declared := map[string]bool{}
	for _, p := range kern.Params {
		declared[p.Name.Name] = true
	}
	if kern.Ranks != nil {
		for _, p := range kern.Ranks.Params {
			declared[p.Name.Name] = true
		}
	}
	var ovs []lang.Override
	for _, p := range k.Params {
		if declared[p.Name] {
			ovs = append(ovs, lang.Override{Name: p.Name, Value: p.Value.String()})
		}
	}
	short, err := lang.Check(f, k.Kernel.Name.Name, ovs)
	if err != nil {
		return nil, "", "", fmt.Errorf("checking the kernel with iterations taken off: %w", err)
	}
	desc := ""
	for i, t := range s.taken {
		if i > 0 {
			desc += ", "
		}
		desc += t
	}
	return short, desc, "", nil
}

// shortener takes the last iterations off the outermost loops of a freshly
// parsed kernel body. Statements are matched with the checked kernel's by
// position, to evaluate bounds with its values.
type shortener struct {
	k     *lang.Checked
	env   *lang.Env
	wrap  bool // wrap the loops in repeat 2 instead of shortening them
	taken []string
	err   error
}

// block visits the statements of b that are not inside a loop.
func (s *shortener) block(b *lang.Block) {
	for i, st := range b.Stmts {
		switch st.(type) {
		case *lang.ForStmt, *lang.RepeatStmt:
			if s.wrap {
				two := &lang.IntLit{LitPos: st.Pos(), Text: "2"}
				b.Stmts[i] = &lang.RepeatStmt{RepeatPos: st.Pos(), Count: two, Body: &lang.Block{Lbrace: st.Pos(), Stmts: []lang.Stmt{st}, Rbrace: st.Pos()}}
				s.taken = append(s.taken, "twice")
				continue
			}
		}
		s.stmt(st)
	}
}

// stmt shortens an outermost loop or repeat, or looks inside a region,
// block or static if for one.
func (s *shortener) stmt(st lang.Stmt) {
	switch st := st.(type) {
	case *lang.Block:
		s.block(st)
	case *lang.RegionStmt:
		s.block(st.Body)
	case *lang.IfStmt:
		s.block(st.Then)
		if st.Else != nil {
			s.stmt(st.Else)
		}
	case *lang.ForStmt:
		s.loop(st)
	case *lang.RepeatStmt:
		s.repeat(st)
	}
}

// loop takes the last eighth of a for loop's iterations off its upper
// bound.
func (s *shortener) loop(st *lang.ForStmt) {
	orig, ok := s.original(st).(*lang.ForStmt)
	if !ok {
		return
	}
	lo, err1 := s.k.EvalInt(orig.Lo, s.env)
	hi, err2 := s.k.EvalInt(orig.Hi, s.env)
	step := int64(1)
	var err3 error
	if orig.Step != nil {
		step, err3 = s.k.EvalInt(orig.Step, s.env)
	}
	if err1 != nil || err2 != nil || err3 != nil || step < 1 {
		return // bounds that read an enclosing index or the data: left whole
	}
	trip := (hi - lo + step - 1) / step
	if trip < 2 {
		return
	}
	off := takeOff(trip)
	st.Hi = minus(st.Hi, off*step)
	pos := s.k.File.Source.Position(st.ForPos)
	s.taken = append(s.taken, fmt.Sprintf("the last %d of %d iterations of %s (line %d)", off, trip, st.Var.Name, pos.Line))
}

// repeat takes the last eighth of a repeat's repetitions off.
func (s *shortener) repeat(st *lang.RepeatStmt) {
	orig, ok := s.original(st).(*lang.RepeatStmt)
	if !ok {
		return
	}
	n, err := s.k.EvalInt(orig.Count, s.env)
	if err != nil || n < 2 {
		return
	}
	off := takeOff(n)
	st.Count = minus(st.Count, off)
	pos := s.k.File.Source.Position(st.RepeatPos)
	s.taken = append(s.taken, fmt.Sprintf("the last %d of %d repetitions (line %d)", off, n, pos.Line))
}

// original finds the checked kernel's statement at st's position.
func (s *shortener) original(st lang.Stmt) lang.Stmt {
	var found lang.Stmt
	lang.Inspect(s.k.Kernel.Body, func(n lang.Node) bool {
		if x, ok := n.(lang.Stmt); ok && found == nil && x.Pos() == st.Pos() && sameKind(x, st) {
			found = x
		}
		return found == nil
	})
	return found
}

// sameKind reports whether two statements are of one type.
func sameKind(a, b lang.Stmt) bool {
	_, fa := a.(*lang.ForStmt)
	_, fb := b.(*lang.ForStmt)
	_, ra := a.(*lang.RepeatStmt)
	_, rb := b.(*lang.RepeatStmt)
	return fa == fb && ra == rb
}

// minus returns the expression (e) - n, positioned at e.
func minus(e lang.Expr, n int64) lang.Expr {
	return &lang.BinaryExpr{X: &lang.ParenExpr{Lparen: e.Pos(), X: e, Rparen: e.Pos()}, OpPos: e.Pos(), Op: lang.Sub,
		Y: &lang.IntLit{LitPos: e.Pos(), Text: fmt.Sprint(n)}}
}
