package costmodel

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"perfc/analyze"
	"perfc/costmodel/emulate"
	"perfc/internal/units"
	"perfc/lang"
	"perfc/machinecode"
	"perfc/machines"
)

// PredictionSchema names the JSON schema of a Prediction (docs/predict.md).
const PredictionSchema = "perfc.prediction/v1"

// RegionPrediction is the predicted time of one region on the slowest
// rank, broken down by resource.
type RegionPrediction struct {
	Name        string  `json:"name"`
	Compute     float64 `json:"compute"`
	Memory      float64 `json:"memory"`
	Messages    float64 `json:"messages"`
	Collectives float64 `json:"collectives"`
	// Clock is the program's own clock reads in the region (compute.clock):
	// part of what the program measures, added after composing the rest.
	Clock      float64 `json:"clock,omitempty"`
	Time       float64 `json:"time"`
	Bottleneck string  `json:"bottleneck"`
	Terms      []Term  `json:"terms"`
}

// ClassPrediction is the predicted time of one class of alike ranks.
type ClassPrediction struct {
	Ranks string  `json:"ranks"`
	Rank  int64   `json:"representative"`
	Time  float64 `json:"time"`
}

// Prediction is what perfc predicts for a kernel on a machine. It is a
// prediction, never a measurement.
type Prediction struct {
	Schema     string             `json:"schema"`
	Kernel     string             `json:"kernel"`
	File       string             `json:"file"`
	Machine    string             `json:"machine"`
	Params     []analyze.Param    `json:"params"`
	Ranks      int64              `json:"ranks"`
	Method     string             `json:"method"`
	Compose    string             `json:"compose"`
	Total      float64            `json:"total"` // seconds, predicted
	Slowest    ClassPrediction    `json:"slowest"`
	Classes    []ClassPrediction  `json:"classes"`
	Regions    []RegionPrediction `json:"regions"`
	Bottleneck string             `json:"bottleneck"`
	// PARKBENCH metrics: R_B = nominal flop of all ranks / T (Mflop/s), R_T = 1/T.
	NominalFlop float64  `json:"nominal_flop"`
	RB          float64  `json:"rb_mflops"`
	RT          float64  `json:"rt_per_s"`
	Warnings    []string `json:"warnings,omitempty"`
	Notes       []string `json:"notes,omitempty"`
	// RankSum is the slowest rank's sum of costs, without waiting; for a
	// kernel whose ranks wait on each other Total is the emulated critical
	// path instead, and Emulation and Wavefront say more.
	RankSum   float64            `json:"rank_sum"`
	Emulation *emulate.Emulation `json:"emulation,omitempty"`
	Wavefront *emulate.Wavefront `json:"wavefront,omitempty"`
	// Overrides are the -M assignments of the machine, and whether each
	// priced anything (MarkOverrides).
	Overrides []Override `json:"overrides,omitempty"`
}

// Options tune a prediction.
type Options struct {
	// PaperRules prices the way a source paper did where it differs from
	// the exact counts (see docs/predict.md); only some machines have rules.
	PaperRules bool
	// NoEmulation keeps the sum of per-rank costs for a kernel whose ranks
	// wait on each other, instead of emulating its critical path.
	NoEmulation bool
	// VectorUnits prices innermost loops of a vector form on the machine's
	// vector units (Hockney's r∞, n½) when their mean length is at least
	// N_v, and on the scalar processor otherwise.
	VectorUnits bool
	// Warm prices steady-state repetitions with warm caches: a cache level
	// that holds the rank's working set brings no lines in, so the lines
	// the cache-line model counts for it (first touches) are not charged
	// (docs/predict.md, "Warm caches"). perfc check sets it: the generated
	// program refills its arrays before each timed run.
	Warm bool
	// Limits bound the emulation of a kernel whose ranks wait on each
	// other (zero: the defaults), and Progress follows it
	// (emulate.EmulateOptions).
	Limits   emulate.EmulateLimits
	Progress func(events int64)
	// Code is the machine code of the built program whose run the
	// prediction is compared with (machinecode.Read): with a table that has
	// compute.core, compose: ecm prices each region's loops by their
	// compiled code (docs/predict.md, "In-core time from the compiled
	// code"). nil prices by the counts.
	Code *machinecode.Code
}

// Predict prices the counts of a kernel on a machine: every rank class is
// priced region by region, and the slowest class decides the total. rep
// must cover every rank (the zero analyze.Options): a report of one rank
// would predict the time of that rank, not of the kernel, and is refused.
func Predict(k *lang.Checked, rep *analyze.Report, m *machines.Machine, opts Options) (*Prediction, error) {
	if err := coversEveryRank(rep); err != nil {
		return nil, err
	}
	p := newOptionsPricer(m, k, opts)
	p.copiers = copyingRanks(rep)
	pred := &Prediction{
		Schema: PredictionSchema, Kernel: rep.Kernel, File: rep.File, Machine: m.Name(), Params: rep.Params,
		Ranks: rep.Ranks, Compose: m.Compose().String(), Method: "sum of per-rank costs, slowest rank class",
	}
	var slowest []RegionPrediction
	p.shares = &regionShares{ranks: p.ranks}
	for _, cl := range rep.Classes {
		regions := p.priceClass(cl, rep)
		p.shares.addClass(p, cl, regions)
		p.shareCores(cl, regions) // after addClass: the emulator models the sharing itself
		p.addClock(cl, regions)   // after shareCores, which recomposes the regions' times
		regions, _ = p.addRunClock(regions)
		var total float64
		for _, r := range regions {
			total += r.Time
		}
		cp := ClassPrediction{Ranks: cl.Ranks.String(), Rank: cl.Rank, Time: total}
		pred.Classes = append(pred.Classes, cp)
		if slowest == nil || total > pred.Total {
			pred.Total, pred.Slowest, slowest = total, cp, regions
		}
		pred.NominalFlop += cl.Total.Flop.Float() * float64(cl.Ranks.Len())
	}
	pred.Regions = slowest
	pred.Bottleneck = bottleneckOf(sumRegions(slowest))
	if p.sharesCores() {
		p.note(fmt.Sprintf("%d ranks share %d cores (the table's cores): a region's compute and memory time includes waiting for a core (term \"waiting for a core\"), as for ranks that all compute it alike; the emulation models the run queue itself (docs/predict.md, \"Ranks sharing cores\")", p.ranks, p.Cores()))
	}
	if pred.Total > 0 {
		pred.RB = pred.NominalFlop / pred.Total / 1e6
		pred.RT = 1 / pred.Total
	}
	pred.RankSum = pred.Total
	unpriced, err := p.unpricedWarnings(rep, pred.Total)
	if err != nil {
		return nil, err
	}
	pred.Warnings = append(pred.Warnings, unpriced...)
	if n := p.vectorNote(rep); n != "" {
		p.note(n)
	}
	if n := p.ecmKeysNote(); n != "" {
		p.note(n)
	}
	if u := usesOf(rep); u.messages || u.collectives {
		if n := partitionNote(p.m, k.NumRanks()); n != "" {
			p.note(n)
		}
	}
	if hasPointToPoint(rep) && !opts.NoEmulation {
		// Ranks wait on each other's messages: the time is a critical path.
		em, err := emulate.Emulate(k, p, emulate.EmulateOptions{Limits: opts.Limits, Progress: opts.Progress})
		if err != nil {
			return nil, err
		}
		pred.Emulation = em
		// The emulated schedules carry no clock reads (compute.clock):
		// the slowest rank's are added to its critical path.
		pred.Total = em.Total + sumRegions(pred.Regions).Clock
		addNoiseTerms(pred, em, p.m)
		pred.Method = "discrete-event emulation of every rank's schedule (critical path); the regions show the slowest rank's own costs"
		// The wavefront analysis only adds to the prediction: when it
		// fails, the emulated time stands, and the note says why the
		// closed forms are missing.
		if wf, err := emulate.AnalyzeWavefront(k, p, em); err != nil {
			p.note("the LANL wavefront analysis ([002]) could not be made, so no closed form is shown beside the emulation: " + err.Error())
		} else if wf != nil {
			pred.Wavefront = wf
		}
		if pred.Total > 0 {
			pred.RB = pred.NominalFlop / pred.Total / 1e6
			pred.RT = 1 / pred.Total
		}
	} else if hasPointToPoint(rep) {
		pred.Warnings = append(pred.Warnings, "the kernel's ranks wait on each other's messages; this sum of per-rank costs ignores waiting (a lower bound on a pipeline); without --no-emulation the critical path is emulated")
	}
	pred.Warnings = append(pred.Warnings, cacheWarnings(rep, m)...)
	for _, c := range rep.Conflicts {
		pred.Warnings = append(pred.Warnings, c.Message) // set-associative conflicts the model does not price
	}
	pred.Warnings = append(pred.Warnings, probWarnings(k)...)
	for n := range p.notes {
		pred.Notes = append(pred.Notes, n)
	}
	sort.Strings(pred.Notes)
	pred.Notes = append(pred.Notes, rep.Notes...)
	if err := checkPrediction(pred, rep, m); err != nil {
		return nil, err
	}
	return pred, nil
}

// priceClass prices every region of one class.
func (p *machinePricer) priceClass(cl *analyze.Class, rep *analyze.Report) []RegionPrediction {
	var out []RegionPrediction
	walked, wholeLaws := p.walkMessages(cl)
	refilled := map[string]bool{}
	for _, r := range cl.Regions {
		w := fromCounts(r.Counts, rep.Footprint.Bytes, p.isECM())
		p.applyWarm(w)
		p.applyRefill(w, refilled)
		rp := RegionPrediction{Name: r.Name}
		compute := p.vectorTerms(w, r.Counts.Vectors)
		compute = append(compute, p.computeTerms(w)...)
		memory := p.memoryTerms(w)
		rp.Terms = append(append(rp.Terms, compute...), memory...)
		for _, t := range rp.Terms {
			if t.Resource == "compute" {
				rp.Compute += t.Time
			} else {
				rp.Memory += t.Time
			}
		}
		if p.isECM() {
			rp.Memory = ecmMemory(memory) // the levels' transfers overlap
			shared, _ := p.memoryShared()
			if t, ok := rereadTerm(r.Counts.Refs, memory, rp.Compute, shared); ok {
				rp.Terms = append(rp.Terms, t)
				rp.Memory = max(rp.Memory, memoryTransfer(memory)+t.Time)
			}
		}
		for _, t := range p.messageTerms(cl.Rank, r.Counts, walked, wholeLaws) {
			rp.Messages += t.Time
			rp.Terms = append(rp.Terms, t)
		}
		for _, t := range p.collectiveTerms(r.Counts) {
			rp.Collectives += t.Time
			rp.Terms = append(rp.Terms, t)
		}
		rp.Time = composeTime(p.m.Compose(), rp.Compute, rp.Memory) + rp.Messages + rp.Collectives
		rp.Bottleneck = bottleneckOf(rp)
		out = append(out, rp)
	}
	return out
}

// messageTerms prices a rank's point-to-point messages: every send and
// every receive costs one message time (a receive waits for its message),
// except that the two halves of a sendrecv or exchange overlap: the receive
// half costs only what it takes longer than the send half. A statement in
// walked (walkMessages) is priced message by message, with its real peers,
// and says so by the law of the whole event it took (wholeLaws); the
// others from the counts.
func (p *machinePricer) messageTerms(rank int64, c analyze.Counts, walked map[string]float64, wholeLaws map[string]string) []Term {
	var terms []Term
	overlapped := p.rules.overlappedReceives(c.Messages)
	inPlace := p.inPlaceStmts()
	for i, msg := range c.Messages {
		n := msg.Count.Float()
		if n == 0 {
			continue
		}
		if isRequest(msg.Kind) { // the overheads only (requests.go)
			terms = append(terms, p.requestTerm(rank, msg))
			continue
		}
		bytes := msg.Bytes.Float() / n
		peer := msg.Rank
		if peer < 0 {
			peer = (rank + 1) % max(p.ranks, 1) // a peer that varies: a neighbour, unless walked
		}
		src, dst := rank, peer
		if msg.Kind == "recv" {
			src, dst = peer, rank
		}
		unit, how := p.message(src, dst, bytes, msg.Elem, msg.Stmt)
		half := msg.Kind == "recv" && hasSendAt(c.Messages, msg.Stmt)
		if sum, ok := walked[walkKey(msg.Stmt, msg.Kind)]; ok {
			unit = sum / n
			if msg.Rank < 0 {
				how += ", mean over the rank's messages, each priced with its own peer and size"
			}
		}
		_, isWalked := walked[walkKey(msg.Stmt, msg.Kind)]
		if law, ok := wholeLaws[walkKey(msg.Stmt, "send")]; ok && msg.Rank < 0 {
			how = law + ", mean over the rank's events, each priced with its own peer and size"
			if half {
				how = "included in the send half's " + law
			}
		}
		pair := half || msg.Kind == "send" && hasRecvAt(c.Messages, msg.Stmt) // a half of a sendrecv or exchange
		serial := false                                                       // a half of a sendrecv whose halves run in series
		if _, ok := overlapped[i]; !ok && msg.Rank >= 0 && pair {
			if t, why, law, ok := p.wholeEvent(rank, peer, peer, bytes, inPlace[msg.Stmt], p.crossPos[msg.Stmt]); ok {
				serial = true
				switch {
				case half && inPlace[msg.Stmt]:
					how = "included in the send half's exchange law (in place: the copy and both halves in series)"
				case half:
					how = "included in the send half's " + law + " (the whole event)"
				case !isWalked:
					unit, how = t, why
				default:
					how = why
				}
				if half && !isWalked {
					unit = 0
				}
			} else if _, _, ok := p.exchange(rank, peer, peer, bytes); ok && !inPlace[msg.Stmt] {
				serial = true
				how += ", in series with the other half (the runtime copies both halves one after the other)"
			}
		}
		if why, ok := overlapped[i]; ok {
			unit, how = 0, why
		} else if serial {
			if unit > 0 {
				unit, how = p.switchTerm(unit, how)
			}
		} else if !half {
			unit, how = p.switchTerm(unit, how)
		} else {
			how = "overlaps the send half of the same sendrecv: charged only where longer (" + how + ")"
			if _, ok := walked[walkKey(msg.Stmt, msg.Kind)]; !ok {
				unit = 0
			}
		}
		terms = append(terms, Term{Resource: "message", What: fmt.Sprintf("%s %s (%s)", msg.Kind, msg.Peer, msg.Stmt),
			Count: n, Unit: "message of " + units.Count(bytes) + " B", UnitCost: unit, Time: n * unit, How: how})
	}
	return terms
}

// walkMessages prices the point-to-point messages of a class's
// representative event by event, as the emulator charges them when nobody
// waits, for the statements whose counts cannot say it: a peer that
// varies from call to call (a hypercube's partner), and the halves of a
// sendrecv or exchange (the event takes the longer of its halves, so the
// receive half is charged max(0, receive − send) per event). The result
// is keyed by walkKey; nil when no statement needs it, or when the
// schedule cannot be built (the counts' pricing is kept). laws names, by
// the send half's key, the law of the whole event that priced a sendrecv
// or exchange statement's events, when one did.
func (p *machinePricer) walkMessages(cl *analyze.Class) (times map[string]float64, laws map[string]string) {
	if !needsWalk(cl.Total.Messages) {
		return nil, nil
	}
	if n := commEvents(cl.Total); n > maxWalkedEvents {
		p.note(fmt.Sprintf("ranks %s have %.4g communication events, more than the %d priced one by one: "+
			"a peer that varies is priced as a neighbour and a sendrecv as its send half", cl.Ranks, n, maxWalkedEvents))
		return nil, nil
	}
	s, err := p.schedule(cl.Rank)
	if err != nil {
		return nil, nil
	}
	r := cl.Rank
	// Summed by statement and half during the walk, named once after it:
	// formatting a position for every event was most of the walk's time.
	type half struct {
		stmt lang.Stmt
		send bool
	}
	sums := map[half]float64{}
	// The law of the whole event, by statement: "" when some of its events
	// took none, or another.
	whole := map[lang.Stmt]string{}
	mark := func(st lang.Stmt, law string) {
		if prev, seen := whole[st]; seen && prev != law {
			law = ""
		}
		whole[st] = law
	}
	err = s.Events(func(ev *analyze.Event) bool {
		var send, recv float64
		cs := ev.Stmt
		switch ev.Kind {
		case analyze.EvSend:
			if ev.Peer >= 0 {
				sums[half{ev.Stmt, true}] += p.messageOf(cs, r, ev.Peer, ev.Bytes)
			}
		case analyze.EvRecv:
			if ev.Peer >= 0 {
				sums[half{ev.Stmt, false}] += p.messageOf(cs, ev.Peer, r, ev.Bytes)
			}
		case analyze.EvSendRecv:
			if !isInPlace(ev.Stmt) {
				if t, _, ok := p.sendrecvInto(r, ev.Peer, ev.From, float64(max(ev.Bytes, ev.RecvBytes)), p.crossStmt[cs]); ok {
					sums[half{ev.Stmt, true}] += t // the whole event (messages.sendrecv)
					sums[half{ev.Stmt, false}] += 0
					mark(ev.Stmt, sendrecvLawHow)
					break
				}
			}
			if t, _, ok := p.exchange(r, ev.Peer, ev.From, float64(max(ev.Bytes, ev.RecvBytes))); ok {
				// The runtime copies both halves in series; in place,
				// the exchange law prices the whole event.
				if isInPlace(ev.Stmt) {
					sums[half{ev.Stmt, true}] += t
					sums[half{ev.Stmt, false}] += 0
					mark(ev.Stmt, exchangeLawHow)
				} else {
					mark(ev.Stmt, "")
					sums[half{ev.Stmt, true}] += p.messageOf(cs, r, ev.Peer, ev.Bytes)
					sums[half{ev.Stmt, false}] += p.messageOf(cs, ev.From, r, ev.RecvBytes)
				}
				break
			}
			mark(ev.Stmt, "")
			if ev.Peer >= 0 {
				send = p.messageOf(cs, r, ev.Peer, ev.Bytes)
				sums[half{ev.Stmt, true}] += send
			}
			if ev.From >= 0 {
				recv = p.messageOf(cs, ev.From, r, ev.RecvBytes)
				sums[half{ev.Stmt, false}] += max(0, recv-send)
			}
		}
		return true
	})
	if err != nil {
		return nil, nil
	}
	times = make(map[string]float64, len(sums))
	for h, t := range sums {
		kind := "recv"
		if h.send {
			kind = "send"
		}
		times[walkKey(p.k.File.Source.Position(h.stmt.Pos()).String(), kind)] += t
	}
	for st, law := range whole {
		if law == "" {
			continue
		}
		if laws == nil {
			laws = map[string]string{}
		}
		laws[walkKey(p.k.File.Source.Position(st.Pos()).String(), "send")] = law
	}
	return times, laws
}

// schedule returns rank r's schedule, sharing the tree of an alike rank's
// schedule built before (Schedule.Alike), and keeps it for the emulation
// (Schedule, for emulate.Scheduler).
func (p *machinePricer) schedule(r int64) (*analyze.Schedule, error) {
	if s := p.schedules[r]; s != nil {
		return s, nil
	}
	for _, other := range p.schedules {
		if s := other.Alike(r); s != nil {
			p.schedules[r] = s
			return s, nil
		}
	}
	s, err := analyze.NewSchedule(p.k, r)
	if err != nil {
		return nil, err
	}
	if p.schedules == nil {
		p.schedules = map[int64]*analyze.Schedule{}
	}
	p.schedules[r] = s
	return s, nil
}

// maxWalkedEvents bounds the communication events walkMessages prices one
// by one for a class, so that a prediction stays fast (and ends) for
// kernels with very many messages.
const maxWalkedEvents = 1 << 20

// commEvents counts the communication events of some counts.
func commEvents(c analyze.Counts) float64 {
	n := c.Barriers.Float()
	for _, m := range c.Messages {
		n += m.Count.Float()
	}
	for _, col := range c.Collectives {
		n += col.Count.Float()
	}
	return n
}

// needsWalk reports whether some message's price needs walkMessages: a
// peer that varies, or a receive that is the half of a sendrecv.
func needsWalk(msgs []analyze.Message) bool {
	for _, m := range msgs {
		if m.Rank < 0 || m.Kind == "recv" && hasSendAt(msgs, m.Stmt) {
			return true
		}
	}
	return false
}

// walkKey names one direction of a point-to-point statement.
func walkKey(stmt, kind string) string { return stmt + " " + kind }

// collectiveTerms prices a rank's collectives and barriers.
func (p *machinePricer) collectiveTerms(c analyze.Counts) []Term {
	var terms []Term
	for _, col := range c.Collectives {
		n := col.Count.Float()
		if n == 0 {
			continue
		}
		bytes := col.Bytes.Float() / n
		unit, how, src := p.collective(col.Kind, col.Op, col.Elem, bytes, col.Participants, col.AfterBarrier)
		what := strings.Join(strings.Fields(col.Kind+" "+col.Op+" "+col.Elem), " ")
		terms = append(terms, Term{Resource: "collective", What: fmt.Sprintf("%s (%s)", what, col.Stmt), Count: n,
			Unit: "call of " + units.Count(bytes) + " B", UnitCost: unit, Time: n * unit, How: how, Source: src})
	}
	if n := c.Barriers.Float(); n > 0 {
		unit, how, src := p.collective("barrier", "", "", 0, p.ranks, false)
		terms = append(terms, Term{Resource: "collective", What: "barrier", Count: n, Unit: "call", UnitCost: unit,
			Time: n * unit, How: how, Source: src})
	}
	return terms
}

// sumRegions adds regions into one for the whole kernel.
func sumRegions(rs []RegionPrediction) RegionPrediction {
	var t RegionPrediction
	for _, r := range rs {
		t.Compute += r.Compute
		t.Memory += r.Memory
		t.Messages += r.Messages
		t.Collectives += r.Collectives
		t.Clock += r.Clock
		t.Time += r.Time
	}
	return t
}

// bottleneckOf names the resource that takes the longest.
func bottleneckOf(r RegionPrediction) string {
	best, name := 0.0, "none"
	for _, c := range []struct {
		name string
		t    float64
	}{{"compute", r.Compute}, {"memory", r.Memory}, {"messages", r.Messages}, {"collectives", r.Collectives}, {"clock reads", r.Clock}} {
		if c.t > best {
			best, name = c.t, c.name
		}
	}
	return name
}

// hasPointToPoint reports whether any rank sends or receives a message.
func hasPointToPoint(rep *analyze.Report) bool {
	for _, cl := range rep.Classes {
		if len(cl.Total.Messages) > 0 {
			return true
		}
	}
	return false
}

// cacheWarnings flags arrays and working sets larger than a cache level of
// the machine (the CM-5 block of Gaussian elimination at N = 512: 65,664 B
// against 64 KiB).
func cacheWarnings(rep *analyze.Report, m *machines.Machine) []string {
	var out []string
	for _, c := range m.Memory().Caches() {
		size := int64(c.Size)
		if size <= 0 {
			continue
		}
		for _, a := range rep.Footprint.Arrays {
			if a.Bytes > size {
				out = append(out, fmt.Sprintf("array %s is %s, larger than the %s of %s (%s): it does not stay in cache", a.Name, units.Bytes(a.Bytes), c.Name, m.Name(), c.Table.Size.String()))
			}
		}
		if rep.Footprint.Bytes > size {
			out = append(out, fmt.Sprintf("the working set of one rank is %s, larger than the %s of %s (%s)", units.Bytes(rep.Footprint.Bytes), c.Name, m.Name(), c.Table.Size.String()))
		}
	}
	return out
}

// probWarnings lists every assumed branch probability.
func probWarnings(k *lang.Checked) []string {
	var out []string
	lang.Inspect(k.Kernel.Body, func(n lang.Node) bool {
		if s, ok := n.(*lang.IfStmt); ok && s.Prob != nil {
			out = append(out, fmt.Sprintf("assumed: the condition %s at %s is true with probability %s",
				lang.ExprString(s.Cond), k.File.Source.Position(s.Pos()), lang.ExprString(s.Prob)))
		}
		return true
	})
	return out
}

// isFinite reports whether t is a usable time.
func isFinite(t float64) bool { return !math.IsNaN(t) && !math.IsInf(t, 0) }

// hasSendAt reports whether a send half comes from the statement at pos
// (a sendrecv or exchange, whose halves overlap).
func hasSendAt(msgs []analyze.Message, pos string) bool {
	for _, m := range msgs {
		if m.Kind == "send" && m.Stmt == pos {
			return true
		}
	}
	return false
}

// isInPlace reports whether a sendrecv or exchange receives into the
// buffer it sends (exchange, sendrecv without into): the runtime copies
// what it sends to scratch first, as MPI_Sendrecv_replace. A `SIZE bytes`
// payload has no data to keep in place: the runtime sends from one buffer
// of its own and receives into another (codegen: generator.sendrecv), so
// it is not in place.
func isInPlace(s *lang.CommStmt) bool {
	return (s.Kind == lang.Exchange || s.Kind == lang.SendRecv && s.Into == nil) && (s.Payload == nil || s.Payload.Bytes == nil)
}

// inPlaceStmts maps the position (file:line:col, as analyze.Message.Stmt
// spells it) of every in-place sendrecv and exchange of the kernel to true.
func (p *machinePricer) inPlaceStmts() map[string]bool {
	if p.m.Exchange() == nil && p.m.SendRecv() == nil || p.k == nil || p.k.Kernel == nil {
		return nil // nothing reads it
	}
	out := map[string]bool{}
	lang.Inspect(p.k.Kernel, func(n lang.Node) bool {
		if s, ok := n.(*lang.CommStmt); ok && isInPlace(s) {
			out[p.k.File.Source.Position(s.Pos()).String()] = true
		}
		return true
	})
	return out
}

// hasRecvAt reports whether the statement at pos also receives: the send
// half of a sendrecv or exchange.
func hasRecvAt(msgs []analyze.Message, pos string) bool {
	for _, m := range msgs {
		if m.Kind == "recv" && m.Stmt == pos {
			return true
		}
	}
	return false
}

// coversEveryRank refuses counts that leave ranks out (analysed with
// analyze.Options.OnlyRank): the slowest rank may be one of them, so that a
// kernel where rank r loops N·r times would be predicted at 0 s.
func coversEveryRank(rep *analyze.Report) error {
	var n int64
	for _, cl := range rep.Classes {
		n += cl.Ranks.Len()
	}
	if n != rep.Ranks {
		return fmt.Errorf("the counts of kernel %s cover %d of its %d ranks; a prediction needs every rank's counts (analyze.Options without OnlyRank)", rep.Kernel, n, rep.Ranks)
	}
	return nil
}
