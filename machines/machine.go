package machines

import (
	"math"
	"slices"
	"strings"

	"perfc/analyze/cache"
)

// Machine is one machine table: what a machine costs, number by number, with
// where each number comes from. It is built by Parse, Load or Builtin and is
// immutable afterwards: With returns a new machine with overrides applied.
// Sections a table does not give are
// nil; their accessors are safe on nil receivers and report absence.
type Machine struct {
	name        string
	description string
	source      string
	conventions string
	missing     []string
	ranks       Number // the partition the numbers were measured on; zero when the table does not say
	host        []HostField
	cores       coreSharing
	params      []Param
	compute     *Compute
	memory      *Memory
	messages    *MessageModel
	collectives *collectives
	cluster     *Cluster
	disk        *Disk
	results     []Result

	// What the machine was built from, so that With can rebuild it.
	file      string
	data      []byte
	overrides []Assignment
}

// Number is one number of a machine table with its provenance.
type Number struct {
	Quantity
	Unit   string // the unit it is printed in: as written in the table, or "" for perfc's choice
	Source string // paper, table or equation and line; or benchmark and date
	Given  bool   // written in the table; false when perfc computed it from other entries
}

// Derived reports whether the table marks the number [derived]: not printed
// in the paper but reconstructed by the table's author, as the reference
// material marks such numbers. A derived number must not be used to test the
// identity it was derived from.
func (n Number) Derived() bool { return strings.Contains(n.Source, "[derived]") }

// String prints the number in its unit: as written when the table gave it,
// to seven significant digits when perfc computed it.
func (n Number) String() string {
	if !n.Given {
		return n.Quantity.format(n.Unit, 7)
	}
	return n.Quantity.In(n.Unit)
}

// Param is a named quantity of a table that expressions refer to and that a
// user may override (-M name=value) for what-if studies.
type Param struct {
	Name  string
	About string // what the parameter means, if the table says
	Number
}

// Result is a measured benchmark result a table records for reference (a
// Linpack rate, a HiPPI fingerprint). Pricing does not use results.
type Result struct {
	Name string
	Number
}

// HostField is one entry of a table's host: mapping, which says where its
// numbers were measured (CPU model, cores, caches, Go version, date), as
// `perfc calibrate` writes it. Pricing does not read it.
type HostField struct {
	Key, Value string
}

// Host lists the table's host: entries in file order; nil when it has none.
func (m *Machine) Host() []HostField { return slices.Clone(m.host) }

// MeasuredThroughMPI reports whether the table says it was calibrated
// through MPI (host: backend: mpi, as perfc calibrate --mpi writes): its
// ranks are processes, not the goroutines of one program.
func (m *Machine) MeasuredThroughMPI() bool {
	for _, h := range m.host {
		if h.Key == "backend" && h.Value == "mpi" {
			return true
		}
	}
	return false
}

// Name is the machine's name, as in `perfc predict -m NAME`.
func (m *Machine) Name() string { return m.name }

// Ranks is the number of processors the table's numbers were measured on
// (the CM-5's 32-node partition), with its source; ok is false when the
// table does not say. Collective formulas and network terms fitted on one
// partition need not hold on another.
func (m *Machine) Ranks() (n Number, ok bool) { return m.ranks, m.ranks.Given }

// Description is one line saying what machine this is.
func (m *Machine) Description() string { return m.description }

// Source cites the paper or calibration run the table comes from.
func (m *Machine) Source() string { return m.source }

// Conventions states the unit conventions of the source (decimal or binary
// MB, word size), as the table's author read them.
func (m *Machine) Conventions() string { return m.conventions }

// Missing lists what the source does not give, as the table's author says.
func (m *Machine) Missing() []string { return slices.Clone(m.missing) }

// Params lists the parameters in table order, with overrides applied.
func (m *Machine) Params() []Param { return slices.Clone(m.params) }

// Param returns the parameter called name.
func (m *Machine) Param(name string) (Param, bool) {
	for _, p := range m.params {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

// Results lists the recorded benchmark results.
func (m *Machine) Results() []Result { return slices.Clone(m.results) }

// Compute is the compute section, or nil.
func (m *Machine) Compute() *Compute { return m.compute }

// Memory is the memory section, or nil.
func (m *Machine) Memory() *Memory { return m.memory }

// Compose says how compute and memory times combine; sum when the table
// does not say.
func (m *Machine) Compose() Compose { return m.memory.Compose() }

// Messages is the point-to-point message model for payloads of the given
// element type ("" for an abstract `n bytes` payload), or nil when the table
// has none. Most tables have one model for every type; some (the SUPRENUM)
// price single- and double-precision arrays differently. On a cluster of SMP
// nodes this is the cost inside a node; see Cluster.Inter.
//
// Element types are spelled as in the kernel language (f64 f32 i64 i32, the
// String of lang.ElemType), plus u64 and u32 for the CM-5's unsigned rows.
func (m *Machine) Messages(elem string) *MessageModel {
	if m.messages == nil {
		return nil
	}
	if v, ok := m.messages.byElem[elem]; ok {
		return v
	}
	return m.messages
}

// Exchange is the table's law of a whole sendrecv event (messages.exchange,
// written by perfc calibrate from COMMS2), or nil when it has none.
func (m *Machine) Exchange() *MessageModel {
	if m.messages == nil {
		return nil
	}
	return m.messages.exchange
}

// SendRecv is the table's law of a whole sendrecv event into another
// buffer when both partners sendrecv at once (messages.sendrecv, written by
// perfc calibrate from COMMS3 on two ranks), or nil when it has none.
func (m *Machine) SendRecv() *MessageModel {
	if m.messages == nil {
		return nil
	}
	return m.messages.sendrecv
}

// SharingMessages is the table's message law for ranks that outnumber
// its cores (messages.sharing, written by perfc calibrate from COMMS1 run
// with more ranks than cores), or nil when it has none (then the message
// law is the same at any P). On the goroutine runtime such ranks park,
// and a message hands the core from sender to receiver; ranks with a
// core each spin, and every message is a copy between cores.
func (m *Machine) SharingMessages() *MessageModel {
	if m.messages == nil {
		return nil
	}
	return m.messages.sharing
}

// SameCoreMessages is the table's message law between two ranks that
// take turns on one core (messages.same_core, written by perfc calibrate
// from COMMS1 between the two ranks of core 0 when ranks outnumber the
// cores), or nil when it has none (then such a message costs
// messages.sharing's price). The payload's lines are in that core's
// caches, and the message hands the core from sender to receiver.
func (m *Machine) SameCoreMessages() *MessageModel {
	if m.messages == nil {
		return nil
	}
	return m.messages.sameCore
}

// LocalMessages is the table's message law for payloads that stay with
// their sender (messages.local, written by perfc calibrate from its LOCAL
// pingpong, each rank sending its own buffer and receiving into
// another), or nil when it has none. The goroutine runtime's copy reads
// the payload where its sender left it: COMMS1, which returns what it
// received, reads lines the other core has just written, the slowest
// case; a payload its sender holds copies several times faster.
func (m *Machine) LocalMessages() *MessageModel {
	if m.messages == nil {
		return nil
	}
	return m.messages.local
}

// SharedCopies is the table's slowdown of concurrent copies
// (messages.shared), or nil when it has none (then a message costs its law
// whatever the ranks per core).
func (m *Machine) SharedCopies() *SharedCopies {
	if m.messages == nil {
		return nil
	}
	return m.messages.shared
}

// Requests is the table's cost of non-blocking requests
// (messages.requests), or nil when it has none (then a request costs only
// the message law's overheads).
func (m *Machine) Requests() *Requests {
	if m.messages == nil {
		return nil
	}
	return m.messages.requests
}

// Wakeup is the table's wake-up cost (messages.wakeup), or nil when it has
// none (then waiting costs nothing beyond the wait).
func (m *Machine) Wakeup() *Wakeup {
	if m.messages == nil {
		return nil
	}
	return m.messages.wakeup
}

// Noise is the table's synchronisation noise (messages.noise), or nil when
// it has none (then ranks that compute the same work arrive together).
func (m *Machine) Noise() *Noise {
	if m.messages == nil {
		return nil
	}
	return m.messages.noise
}

// Collective returns the table's cost of a collective operation, evaluated
// with Vars{Bytes, P} (Bytes as docs/language.md defines the size of each
// collective). kind, op and elem are spelled as in the kernel language
// (lang.CommKind, lang.ReduceOp and lang.ElemType print them so; op and
// elem may be ""); "segscan" names the CM-5's segmented scan. The entry for
// exactly (kind, op, elem) wins, then one for any element type, then one for
// any operator, then one for the kind alone. When the table has none,
// pricing falls back to MPICH().
func (m *Machine) Collective(kind, op, elem string) (*Cost, bool) {
	if m.collectives == nil {
		return nil, false
	}
	return m.collectives.lookup(kind, op, elem)
}

// CollectiveAfterBarrier returns the table's cost of a collective call
// that runs right after a barrier (analyze.AfterBarrier): the entry
// Collective would use, when it gives an `after_barrier:` time (calibrate
// measures it as the IMH benchmarks do, a barrier and then the call). ok
// is false when that entry has none: its time: prices every call.
func (m *Machine) CollectiveAfterBarrier(kind, op, elem string) (*Cost, bool) {
	if m.collectives == nil {
		return nil, false
	}
	key, ok := m.collectives.find(kind, op, elem)
	if !ok {
		return nil, false
	}
	c, ok := m.collectives.afterBarrier[key]
	return c, ok
}

// MPICH returns the α, β, γ of the MPICH collective algorithms when the table
// asks for them (collectives: algorithm: mpich).
func (m *Machine) MPICH() (MPICH, bool) {
	if m.collectives == nil || m.collectives.mpich == nil {
		return MPICH{}, false
	}
	return *m.collectives.mpich, true
}

// Cluster is the cluster-of-SMP-nodes section, or nil.
func (m *Machine) Cluster() *Cluster { return m.cluster }

// Disk returns the disk read and write costs.
func (m *Machine) Disk() (Disk, bool) {
	if m.disk == nil {
		return Disk{}, false
	}
	return *m.disk, true
}

// ---------------------------------------------------------------------------
// Compute

// Pattern is an operand pattern of a per-operation cost table (CM-5 Table 1):
// where the three operands of an arithmetic statement live.
type Pattern string

// The patterns of CM-5 Table 1; "x&y&z" means any assignment of the three
// operands, such as x = y•z or y = x•z.
const (
	ArrayScalarScalar Pattern = "a&s&s" // one array element and two scalars
	ThreeArrays       Pattern = "a&b&c" // three array elements
	TwoArraysScalar   Pattern = "a&b&s" // two array elements and a scalar
)

func knownPattern(p string) bool {
	switch Pattern(p) {
	case ArrayScalarScalar, ThreeArrays, TwoArraysScalar:
		return true
	}
	return false
}

// Op is an operation priced by a per-operation cost table.
type Op string

// Operations. Table 1 of the CM-5 paper measures add, sub, mul, div and madd;
// the others are priced through a table's fallback rules.
const (
	OpAdd  Op = "add"
	OpSub  Op = "sub"
	OpMul  Op = "mul"
	OpDiv  Op = "div"
	OpMadd Op = "madd" // a multiply and an add in one statement
	OpCmp  Op = "cmp"  // the test of a condition
	OpSqrt Op = "sqrt"
	OpExp  Op = "exp"
	OpLog  Op = "log"
	OpSin  Op = "sin"
	OpCos  Op = "cos"
	OpAbs  Op = "abs"
	OpMin  Op = "min"
	OpMax  Op = "max"
)

// ops are the operations a table may price, for knownOp and Ops.
var ops = []Op{OpAdd, OpSub, OpMul, OpDiv, OpMadd, OpCmp, OpSqrt, OpExp, OpLog, OpSin, OpCos, OpAbs, OpMin, OpMax}

// Ops lists the operations a per-operation table may price.
func Ops() []Op { return slices.Clone(ops) }

func knownOp(op string) bool { return slices.Contains(ops, Op(op)) }

// Compute holds what the tables give about arithmetic.
type Compute struct {
	source       string
	free         bool
	peak         map[string]Number // by element type; "" for every type
	registerRate Number
	registerMadd Number
	ops          map[opKey]Number
	opOrder      []opKey // file order, for Describe
	fallbacks    []fallback
	latency      map[opKey]Number // per-operation latency, for loop-carried chains
	latencyOrder []opKey
	window       Number // reorder window, as a time: how far the core runs ahead of a chain
	loop         LoopCost
	access       AccessCost
	clock        ClockCost
	vectors      []VectorUnit
	imh          *IMH
	core         CoreModel
}

// CoreModel is compute.core: what prices a loop from the machine code the
// compiler emitted for it (docs/predict.md, "In-core time from the compiled
// code"). A machine loop takes, per iteration, the largest of its 64-byte
// blocks of code / BlocksPerCycle (the front end), its instructions / Issue,
// its loads / LoadPorts, its stores / StorePorts and its floating-point
// instructions / FPPorts, in cycles of Cycle each. The widths are what a
// calibration fitted (perfc calibrate, docs/calibrate.md), not the vendor's
// port counts.
type CoreModel struct {
	Cycle          Number // time of one core cycle
	Issue          Number // instructions per cycle
	LoadPorts      Number // memory-reading instructions per cycle
	StorePorts     Number // memory-writing instructions per cycle
	FPPorts        Number // floating-point instructions per cycle
	BlocksPerCycle Number // 64-byte blocks of code the front end runs per cycle
	// Window is the reorder window (as compute.latency.window) fitted with
	// the entries' work priced by their code: optional; without it the
	// latency section's window is used.
	Window Number
	// WindowExponent is the exponent p of the window law's smooth maximum
	// (T_e^p + (L_e/n)^p)^(1/p) between an entry's work and its chain's
	// share of the window (docs/predict.md): optional, used with Window;
	// without it the law takes the plain maximum (p = ∞).
	WindowExponent Number
	// Entry is the cycles each entry of a machine loop costs beyond its
	// iterations' code (the front end's redirect into a loop and out of
	// it, Hockney's n½ for compiled code): optional; zero when absent.
	Entry Number
	// Divider is the time one divide or square root holds the core's
	// divider, by machinecode.DividerKind ("div f64", "sqrt f32"):
	// optional; a kind it gives is a resource of a loop's code (its
	// instructions of that kind times this), and a kind it does not give
	// is priced by its operation cost added to the loop's time.
	Divider map[string]Number
}

// EntryTime is what entries entries of a machine loop cost: entries ×
// Entry cycles (zero without Entry).
func (c CoreModel) EntryTime(entries float64) float64 {
	return entries * c.Entry.Value * c.Cycle.Value
}

// WindowMax is the window law's maximum of an entry's work te and its
// chain's share of the window share: (te^p + share^p)^(1/p) with p the
// model's WindowExponent, the plain max(te, share) without one. Where the
// two are close an out-of-order core hides neither fully (POLY1's Horner
// loop at k = 8 … 16 on this host measured 9–13 % above the plain max);
// far apart the smooth maximum is the larger of the two.
func (c CoreModel) WindowMax(te, share float64) float64 {
	p := c.WindowExponent.Value
	if !c.WindowExponent.Given || p <= 0 || te <= 0 || share <= 0 {
		return max(te, share)
	}
	m := max(te, share)
	return m * math.Pow(math.Pow(te/m, p)+math.Pow(share/m, p), 1/p)
}

// DividerCycles is Divider in cycles of Cycle, for machinecode.Widths;
// nil when the model gives no divider.
func (c CoreModel) DividerCycles() map[string]float64 {
	if len(c.Divider) == 0 || c.Cycle.Value <= 0 {
		return nil
	}
	out := make(map[string]float64, len(c.Divider))
	for k, n := range c.Divider {
		out[k] = n.Value / c.Cycle.Value
	}
	return out
}

// Core is the table's model of the core's code throughput; ok is false
// when the table gives none (the pricing then charges the loop, access
// and operation costs).
func (c *Compute) Core() (CoreModel, bool) {
	if c == nil || !c.core.Cycle.Given {
		return CoreModel{}, false
	}
	return c.core, true
}

// opKey keys an operation cost; pattern "" is an entry for every pattern.
type opKey struct{ pattern, op, elem string }

// LoopCost is the in-core cost of running a loop (for or repeat), beside
// what its body does: per iteration (the increment, compare and branch) and
// per entry (its start-up, RINF1's n½ term). A cost the table does not give
// is the zero Number (Given false).
type LoopCost struct {
	Iteration Number
	Entry     Number
}

// ClockCost is what the generated program's own timing adds to what it
// measures: per region entry (a clock read and the region bookkeeping
// between the start and the end of the region, TICK2) and per run (the
// clock reads that start and end a run, measured outside every region).
// A kernel's measured time includes them, so a prediction that is to be
// compared with it must too (docs/predict.md, "The program's clock").
// A cost the table does not give is the zero Number.
type ClockCost struct {
	Region Number
	Run    Number
	// SharedStart is what a run costs beyond Run when its ranks outnumber
	// the table's cores (perfc calibrate's START benchmark): the ranks
	// that wait at the harness's gate between runs are woken, and take
	// the cores in turn, before the run's first synchronisation completes.
	SharedStart Number
}

// AccessCost is the in-core cost of one element loaded or stored with its
// line in L1 (the load and store ports); transfers between levels are
// priced from the cache levels' bandwidths. A cost the table does not give
// is the zero Number.
type AccessCost struct {
	Load  Number
	Store Number
}

// fallback prices an operation the table does not measure as a multiple of
// one it does.
type fallback struct {
	op, as string
	times  float64
	source string
}

// Free reports whether compute and memory cost nothing (step-counting machines).
func (c *Compute) Free() bool { return c != nil && c.free }

// Peak is the peak arithmetic rate for the element type (flop/s).
func (c *Compute) Peak(elem string) (Number, bool) {
	if c == nil {
		return Number{}, false
	}
	if n, ok := c.peak[elem]; ok && elem != "" {
		return n, true
	}
	n, ok := c.peak[""]
	return n, ok
}

// RegisterRate is the rate of basic operations on operands in registers
// (CM-5: 11 Mflop/s).
func (c *Compute) RegisterRate() (Number, bool) {
	if c == nil || !c.registerRate.Given {
		return Number{}, false
	}
	return c.registerRate, true
}

// RegisterMaddRate is the rate of multiply-adds on operands in registers,
// counting a multiply-add as 2 flop (CM-5: 22 Mflop/s).
func (c *Compute) RegisterMaddRate() (Number, bool) {
	if c == nil || !c.registerMadd.Given {
		return Number{}, false
	}
	return c.registerMadd, true
}

// OpCost is the time of one operation with operands in cache, from the
// per-operation table: the entry for the pattern, else the entry without a
// pattern (every pattern). An operation the table does not measure (cmp,
// sqrt, exp …) is priced by the table's fallback rules, tried in file order
// until one's base operation has a cost for this pattern and type, and the
// returned Source says so. Element types follow docs/machines.md: the CM-5's
// short, long, single and double are i32, i64, f32 and f64.
func (c *Compute) OpCost(p Pattern, op Op, elem string) (Number, bool) {
	if c == nil {
		return Number{}, false
	}
	return c.lookup(c.ops, p, op, elem)
}

// Latency is the latency of one operation (the time from its operands to
// its result), which bounds a loop-carried dependency chain, from the
// table's latency entries: by pattern, then for every pattern, then by the
// ops fallback rules applied to the latency entries.
func (c *Compute) Latency(p Pattern, op Op, elem string) (Number, bool) {
	if c == nil || c.latency == nil {
		return Number{}, false
	}
	return c.lookup(c.latency, p, op, elem)
}

// HasOps reports whether the table has a per-operation cost table.
func (c *Compute) HasOps() bool { return c != nil && len(c.ops) > 0 }

// Window is the reorder window as a time (compute.latency.window): the
// in-core work an out-of-order core issues ahead of a waiting dependency
// chain. Chains that restart at every entry of their loop overlap as many
// entries as the window holds (docs/predict.md, "Chains that restart").
// It is the zero Number when the table does not give it.
func (c *Compute) Window() (Number, bool) {
	if c == nil || !c.window.Given {
		return Number{}, false
	}
	return c.window, true
}

// HasLatency reports whether the table gives operation latencies.
func (c *Compute) HasLatency() bool { return c != nil && len(c.latency) > 0 }

// lookup finds an operation's cost in one of the per-operation tables.
func (c *Compute) lookup(table map[opKey]Number, p Pattern, op Op, elem string) (Number, bool) {
	if n, ok := direct(table, p, string(op), elem); ok {
		return n, true
	}
	for _, f := range c.fallbacks {
		if f.op != string(op) {
			continue
		}
		base, ok := direct(table, p, f.as, elem)
		if !ok {
			continue // a later rule for the operation may apply
		}
		n := base
		n.Value *= f.times
		n.Given = false
		n.Source = f.source + "; " + f.as + ": " + base.Source
		return n, true
	}
	return Number{}, false
}

// direct is the entry for the pattern, else the one for every pattern.
func direct(table map[opKey]Number, p Pattern, op, elem string) (Number, bool) {
	if n, ok := table[opKey{string(p), op, elem}]; ok {
		return n, true
	}
	n, ok := table[opKey{"", op, elem}]
	return n, ok
}

// Loop is the table's loop cost; ok is false when it gives none.
func (c *Compute) Loop() (LoopCost, bool) {
	if c == nil {
		return LoopCost{}, false
	}
	return c.loop, c.loop.Iteration.Given || c.loop.Entry.Given
}

// Clock is what the generated program's timing adds per region entry and
// per run; ok is false when the table gives neither.
func (c *Compute) Clock() (ClockCost, bool) {
	if c == nil {
		return ClockCost{}, false
	}
	return c.clock, c.clock.Region.Given || c.clock.Run.Given
}

// Access is the table's in-core cost per element loaded and stored; ok is
// false when it gives none.
func (c *Compute) Access() (AccessCost, bool) {
	if c == nil {
		return AccessCost{}, false
	}
	return c.access, c.access.Load.Given || c.access.Store.Given
}

// VectorUnit is the Hockney (r∞, n½) description of one vector kernel form
// on a vector unit (CM-5 Tables 2–3).
type VectorUnit struct {
	Form  string // the kernel form, such as "a=b*c+d" (lower case, no blanks)
	Elem  string // element type, "" for every type
	Work  Number // flop per element
	Rinf  Number // asymptotic rate r∞, flop/s
	Nhalf Number // half-performance length n½, elements
	Nv    Number // length above which the vector unit beats scalar code (zero if not given)
}

// Time is the Hockney time for vector length n: work·(n + n½)/r∞.
func (v VectorUnit) Time(n float64) float64 {
	return v.Work.Value * (n + v.Nhalf.Value) / v.Rinf.Value
}

// Vector returns the vector unit entry for a kernel form and element type;
// blanks and case in form do not matter ("A(I) = B(I)*C(I)" is not a form;
// write "a=b*c").
func (c *Compute) Vector(form, elem string) (VectorUnit, bool) {
	if c == nil {
		return VectorUnit{}, false
	}
	form = canonicalForm(form)
	for _, exact := range []bool{true, false} {
		for _, v := range c.vectors {
			if v.Form == form && (exact && v.Elem == elem || !exact && v.Elem == "") {
				return v, true
			}
		}
	}
	return VectorUnit{}, false
}

// Vectors lists every vector unit entry.
func (c *Compute) Vectors() []VectorUnit {
	if c == nil {
		return nil
	}
	return slices.Clone(c.vectors)
}

// canonicalForm lower-cases a kernel form and drops blanks.
func canonicalForm(form string) string {
	return strings.ToLower(strings.Join(strings.Fields(form), ""))
}

// IMH holds the processor–memory terms of the IMH model ([000] Table 3):
// T_pm = T_n·N_n + T_c·N_c + T_e·S.
type IMH struct {
	Tn    Number // per item transferred between processor and memory
	Tc    Number // per cache line brought into cache
	Te    Number // per unit of stride (slope compensation)
	TnPer string // what N_n counts: "element" or "byte" (the paper is ambiguous)
}

// IMH returns the IMH processor–memory terms.
func (c *Compute) IMH() (IMH, bool) {
	if c == nil || c.imh == nil {
		return IMH{}, false
	}
	return *c.imh, true
}

// ---------------------------------------------------------------------------
// Memory

// Compose says how compute and memory times combine.
type Compose uint8

const (
	ComposeSum Compose = iota // no overlap: add (the IMH and CM-5 papers)
	ComposeMax                // full overlap: the larger one
	// ComposeECM is the Execution-Cache-Memory model (Hager, Treibig,
	// Wellein): in-core time (loop, accesses, operations, the latency of
	// loop-carried chains) and the transfers between cache levels, each
	// level's lines at the bandwidth of the level they come from, overlap
	// fully (docs/predict.md, "Pricing a modern core").
	ComposeECM
)

func (c Compose) String() string {
	switch c {
	case ComposeMax:
		return "max"
	case ComposeECM:
		return "ecm"
	}
	return "sum"
}

// composeNamed reads a compose switch.
func composeNamed(s string) (Compose, bool) {
	switch s {
	case "sum":
		return ComposeSum, true
	case "max":
		return ComposeMax, true
	case "ecm":
		return ComposeECM, true
	}
	return ComposeSum, false
}

// Memory holds the memory hierarchy.
type Memory struct {
	source  string
	compose Compose
	caches  []Cache
	main    Number
	// writeAllocate is the table's write_allocate: whether a store that
	// misses brings its line in first; writeAllocateGiven says the table
	// gave it.
	writeAllocate, writeAllocateGiven bool
	// shared is the slowdown of a rank's transfers from memory when
	// every core streams at once (memory.shared); nil when not given.
	shared      *SharedCopies
	bottlenecks []Bottleneck
	cost        *Cost
	global      *Cost
}

// Cache is one level of the cache hierarchy, L1 first. Its geometry is the
// cache.Level the analyzer counts with, so that CacheHierarchy returns the
// levels as they are: a line size the table does not give is taken to be
// 64 B, and an associativity it does not give (or one that does not make a
// valid level) to be full, and Level.Source, the machine's name, says so.
// Table keeps the level as the table writes it, with units and sources;
// Bandwidth and LineCost price the level.
type Cache struct {
	cache.Level
	Table     CacheTable
	Bandwidth Number // bytes per second delivered by this level; zero if not given
	LineCost  Number // time to bring one line into this level; zero if not given
}

// CacheTable is a cache level as its machine table writes it.
type CacheTable struct {
	Size   Number // bytes
	Line   Number // bytes; zero if the source does not give it
	Assoc  int    // ways; 0 fully associative (as in analyze/cache); -1 not given
	Source string // the level's source in the table
}

// Bottleneck is a (r̂∞, f½) pair of the PARKBENCH bottleneck model
// r = r̂∞/(1 + f½/f), or the NWT (A, ŝ½, f½) triple.
type Bottleneck struct {
	Name  string // poly1 (register↔cache), poly2 (memory↔register), …
	Rhat  Number // peak rate r̂∞ (or A), flop/s
	Fhalf Number // half-performance intensity f½, flop/mref
	Shalf Number // half-performance grain ŝ½, flop; zero if not given
}

// Compose says how compute and memory times combine (sum if not given).
func (m *Memory) Compose() Compose {
	if m == nil {
		return ComposeSum
	}
	return m.compose
}

// Caches lists the cache levels, L1 first.
func (m *Memory) Caches() []Cache {
	if m == nil {
		return nil
	}
	return slices.Clone(m.caches)
}

// Shared is the table's slowdown of a rank's transfers between the last
// cache level and memory when every core of the host streams at once
// (memory.shared, perfc calibrate's SHARED benchmark), or nil.
func (m *Memory) Shared() *SharedCopies { return m.shared }

// MainBandwidth is the main-memory bandwidth.
func (m *Memory) MainBandwidth() (Number, bool) {
	if m == nil || !m.main.Given {
		return Number{}, false
	}
	return m.main, true
}

// WriteAllocate reports whether a store that misses brings its line in
// first (write_allocate); given is false when the table does not say. The
// cache-line model always counts stores as write-allocate.
func (m *Memory) WriteAllocate() (on, given bool) {
	if m == nil {
		return false, false
	}
	return m.writeAllocate, m.writeAllocateGiven
}

// Bottleneck returns the bottleneck entry called name.
func (m *Memory) Bottleneck(name string) (Bottleneck, bool) {
	if m == nil {
		return Bottleneck{}, false
	}
	for _, b := range m.bottlenecks {
		if b.Name == name {
			return b, true
		}
	}
	return Bottleneck{}, false
}

// Bottlenecks lists the bottleneck entries.
func (m *Memory) Bottlenecks() []Bottleneck {
	if m == nil {
		return nil
	}
	return slices.Clone(m.bottlenecks)
}

// Cost is the time of one memory access stream, evaluated with Vars{N
// (elements transferred), Lines (cache lines brought in), Stride (elements),
// Bytes}; the IMH machines write T_n·n + T_c·lines + T_e·stride.
func (m *Memory) Cost() (*Cost, bool) {
	if m == nil || m.cost == nil {
		return nil, false
	}
	return m.cost, true
}

// Global is the time to move Bytes between a global memory and local
// memories with P processing elements (the NWT's virtual global memory).
func (m *Memory) Global() (*Cost, bool) {
	if m == nil || m.global == nil {
		return nil, false
	}
	return m.global, true
}

// ---------------------------------------------------------------------------
// Messages

// MessageKind is the form of a message model.
type MessageKind uint8

const (
	HockneyModel MessageKind = iota // t0 + bytes/r∞, possibly in ranges of message length
	LogGPModel                      // L + 2o + (bytes−1)·G
	ExprModel                       // an expression or a measured table over bytes and level
)

func (k MessageKind) String() string {
	switch k {
	case LogGPModel:
		return "loggp"
	case ExprModel:
		return "expr"
	}
	return "hockney"
}

// Startup is the start-up convention of a pattern of several messages ([000]
// §5.2.2): one start-up per step (Eq. 7) or one per pattern (L732–741).
type Startup uint8

const (
	PerStep Startup = iota
	PerPattern
)

func (s Startup) String() string {
	if s == PerPattern {
		return "per_pattern"
	}
	return "per_step"
}

// MessageModel prices one point-to-point message.
type MessageModel struct {
	kind    MessageKind
	source  string
	ranges  []Hockney
	loggp   LogGP
	time    *Cost
	network Network
	eager   Number
	startup Startup
	byElem  map[string]*MessageModel
	// exchange prices a whole sendrecv event (both halves) where the
	// runtime serialises them (COMMS2); nil when the table does not say.
	exchange *MessageModel
	// sendrecv prices a whole sendrecv event into another buffer, both
	// partners posting at once (COMMS3 on two ranks); nil when the table
	// does not say.
	sendrecv *MessageModel
	// sharing prices a message when the kernel's ranks outnumber the
	// table's cores (COMMS1 with more ranks than cores); nil when the
	// table does not say.
	sharing *MessageModel
	// sameCore prices a message between two ranks bound to one core when
	// the kernel's ranks outnumber the table's cores; nil when the table
	// does not say.
	sameCore *MessageModel
	// local prices a message whose payload stays with its sender (a sent
	// array the kernel never receives into: COMMS1 with a send and a
	// receive buffer on each rank); nil when the table does not say.
	local *MessageModel
	// wakeup is the cost of waking a rank that blocked long enough for
	// its thread to sleep; nil when the table does not say.
	wakeup *Wakeup
	// noise is the synchronisation noise of the ranks' compute; nil when
	// the table does not say.
	noise *Noise
	// shared is the slowdown of long messages that the cores copy at the
	// same time when ranks share them; nil when the table does not say.
	shared *SharedCopies
	// requests is what a non-blocking request costs its rank beyond the
	// message's overheads; nil when the table does not say.
	requests *Requests
}

// Requests is what a non-blocking request costs its rank (messages.requests)
// beyond the message law's overheads: Post at each isend or irecv, Wait at
// the wait that completes it, per request. A Hockney law has no per-side
// overhead, and the generated programs' runtime spends a tenth of a
// microsecond or more on each request's bookkeeping (docs/emulate.md,
// "Non-blocking messages"). Calibrated by perfc calibrate's REQ benchmark
// (docs/calibrate-comms.md).
type Requests struct {
	Post   Number // per isend or irecv posted, s
	Wait   Number // per request a wait completes, s
	Source string
}

// Noise is the synchronisation noise of a host (messages.noise): two ranks
// that each compute the same segment of T seconds and then exchange a
// message finish, on average, Excess(T) = Time + PerCompute·T later than
// the compute alone and the exchange alone take, because each segment has
// its own jitter (the OS, the clock, the caches) and the first rank to
// arrive waits for the second. Calibrated by perfc calibrate's NOISE
// benchmark (docs/calibrate.md); the emulator turns it into the waits of
// every synchronisation (docs/emulate.md, "Synchronisation noise").
type Noise struct {
	Time       Number // the excess of a synchronisation after a short compute, s
	PerCompute Number // the excess per second of compute since the ranks last synchronised (dimensionless)
	Source     string
}

// Excess is the expected time beyond their mean that two ranks lose at a
// synchronisation after each computed t seconds since their last one: 0
// when they computed nothing in between (the message law was measured so).
func (n *Noise) Excess(t float64) float64 {
	if !(t > 0) {
		return 0
	}
	return n.Time.Value + n.PerCompute.Value*t
}

// SharedCopies is how much longer a message's bytes take when more ranks
// than cores communicate (messages.shared): the cores then copy messages
// at the same time, and copies that stream from a cache level or memory
// the cores share divide its bandwidth. A message between ranks that
// share the table's cores costs its law's time of no bytes plus Factor
// times the rest (messages, or messages.exchange for a whole sendrecv).
// Calibrated by perfc calibrate from COMMS3's laws at P = 2 (one copy at
// a time) and at the first P beyond the cores (docs/calibrate-comms.md,
// "Copies at the same time"), priced as docs/predict.md says ("Ranks
// sharing cores").
type SharedCopies struct {
	Factor Number // the slowdown of the bytes' time, at least 1
	Source string
}

// Wakeup is the cost a blocked rank pays to be woken (messages.wakeup):
// a rank of the generated programs that waits for a message or a barrier
// longer than After has had its OS thread put to sleep by the Go
// scheduler, and the operation that releases it ends Time later than it
// would for a rank still spinning. Calibrated by perfc calibrate's gapped
// pingpong (docs/calibrate-comms.md), explained in docs/predict.md.
type Wakeup struct {
	Time   Number // the extra time of the operation that wakes the rank
	After  Number // how long a rank waits before its thread sleeps
	Source string
}

// Exchange is the law of one sendrecv or exchange event that moves n bytes
// each way between two ranks, both halves together, as COMMS2 measures it
// ([001] L517), or nil when the table has none (then the halves overlap
// and the event costs the longer). A variant by element type has none of
// its own: the top-level model's is used (Machine.Exchange).
func (mm *MessageModel) Exchange() *MessageModel { return mm.exchange }

// Hockney is one range of the Hockney message law t = t0 + n/r∞ ([001] eqs.
// 3.4–3.11). All four parameters are filled: those the table gives (Given)
// and the others computed from them (t0 = n½/r∞, π0 = 1/t0).
type Hockney struct {
	Below Number // this range prices messages shorter than Below bytes; zero: no bound
	// FittedTo is the longest message the range's law was fitted on, when
	// it is shorter than Below (not Given otherwise): between the two the
	// time goes in a straight line from this law's at FittedTo to the next
	// range's at Below, so that the piecewise law has no jump where no
	// length was measured.
	FittedTo Number
	T0       Number // start-up time
	Pi0      Number // specific performance π0 = 1/t0
	Rinf     Number // asymptotic bandwidth r∞
	Nhalf    Number // half-performance length n½, bytes
}

// Time is t0 + bytes/r∞.
func (h Hockney) Time(bytes float64) float64 { return h.T0.Value + bytes/h.Rinf.Value }

// LogGP holds the LogGP parameters (Alexandrov et al. 1995).
type LogGP struct {
	L          Number // network latency
	O          Number // processor overhead per send or receive
	Gap        Number // g: minimum time between consecutive messages
	GapPerByte Number // G: time per byte of a long message
}

// Network describes how far a message travels and what distance costs.
type Network struct {
	Topology  string // "flat" (every pair one level apart) or "fat_tree"
	Arity     int    // fat tree: children per switch (CM-5: 4)
	PerLevel  Number // extra time per level crossed beyond BaseLevel
	BaseLevel int    // levels crossed by the messages the model was measured with
	Source    string
}

// Kind is the form of the model.
func (mm *MessageModel) Kind() MessageKind { return mm.kind }

// Source cites the model.
func (mm *MessageModel) Source() string { return mm.source }

// TimeCost is the time entry of an expr model (an expression or measured
// table over bytes and level), which, unlike the Hockney and LogGP laws,
// may go negative for sizes the table was not measured at; pricing checks
// it with Cost.Check. It reports false for the other models.
func (mm *MessageModel) TimeCost() (*Cost, bool) {
	if mm.kind != ExprModel || mm.time == nil {
		return nil, false
	}
	return mm.time, true
}

// Time is the time of one message of the given size that crosses the given
// number of network levels (see Levels): the model's time plus PerLevel for
// each level beyond BaseLevel.
func (mm *MessageModel) Time(bytes float64, level int) float64 {
	var t float64
	switch mm.kind {
	case HockneyModel:
		t = mm.hockneyTime(bytes)
	case LogGPModel:
		g := mm.loggp
		t = g.L.Value + 2*g.O.Value + max(bytes-1, 0)*g.GapPerByte.Value
	case ExprModel:
		t = mm.time.Eval(Vars{Bytes: bytes, Level: float64(level)})
	}
	if extra := level - mm.network.BaseLevel; extra > 0 {
		t += float64(extra) * mm.network.PerLevel.Value
	}
	return t
}

// hockneyTime is the piecewise Hockney law's time of a message: its
// range's law, or, between the longest length a range was fitted on and
// the next range's start (where a calibration measured nothing), the
// straight line from the one law's time to the other's. The laws of two
// ranges seldom meet in that gap (a range whose points curve upwards is
// fitted through the origin), and without it the time jumped there: by
// −44 % and +77 % at 1 MiB in the COMMS1 and LOCAL laws of a calibration
// of this host (docs/machines.md, the hockney model).
func (mm *MessageModel) hockneyTime(bytes float64) float64 {
	for i, r := range mm.ranges {
		if r.Below.Value != 0 && bytes >= r.Below.Value {
			continue
		}
		if lo, hi := r.FittedTo.Value, r.Below.Value; r.FittedTo.Given && i+1 < len(mm.ranges) && bytes > lo {
			a, b := r.Time(lo), mm.ranges[i+1].Time(hi)
			return a + (b-a)*(bytes-lo)/(hi-lo)
		}
		return r.Time(bytes)
	}
	return mm.ranges[len(mm.ranges)-1].Time(bytes)
}

// rangeFor picks the Hockney range for a message length: the first whose
// bound exceeds it, else the last (which then extends beyond its bound).
func (mm *MessageModel) rangeFor(bytes float64) Hockney {
	for _, r := range mm.ranges {
		if r.Below.Value == 0 || bytes < r.Below.Value {
			return r
		}
	}
	return mm.ranges[len(mm.ranges)-1]
}

// Levels is the number of network levels a message from rank a to rank b
// crosses: 0 for a rank to itself; on a flat network 1 for any other pair; in
// a fat tree of arity k, the height of the lowest switch above both (1 inside
// a group of k ranks, 2 inside a group of k², …).
func (mm *MessageModel) Levels(a, b int) int {
	if a == b {
		return 0
	}
	if mm.network.Topology != "fat_tree" {
		return 1
	}
	h := 0
	for a != b {
		a, b = a/mm.network.Arity, b/mm.network.Arity
		h++
	}
	return h
}

// Network describes the topology used by Levels and the cost of distance.
func (mm *MessageModel) Network() Network { return mm.network }

// Hockney returns the Hockney range that prices a message of the given size.
func (mm *MessageModel) Hockney(bytes float64) (Hockney, bool) {
	if mm.kind != HockneyModel {
		return Hockney{}, false
	}
	return mm.rangeFor(bytes), true
}

// HockneyRanges lists the Hockney ranges in order of message length.
func (mm *MessageModel) HockneyRanges() []Hockney { return slices.Clone(mm.ranges) }

// LogGP returns the LogGP parameters of a LogGP model.
func (mm *MessageModel) LogGP() (LogGP, bool) { return mm.loggp, mm.kind == LogGPModel }

// Expr returns the cost of an expression model (variables bytes and level).
func (mm *MessageModel) Expr() (*Cost, bool) { return mm.time, mm.kind == ExprModel }

// EagerLimit is the largest message sent without waiting for the receiver.
func (mm *MessageModel) EagerLimit() (Number, bool) { return mm.eager, mm.eager.Given }

// Startup is the start-up convention for patterns of several messages.
func (mm *MessageModel) Startup() Startup { return mm.startup }

// ---------------------------------------------------------------------------
// Collectives

// MPICH holds the parameters of the MPICH collective algorithms (Thakur,
// Rabenseifner & Gropp 2005): a message of n bytes costs α + n·β, and
// reducing n bytes locally costs n·γ.
type MPICH struct {
	Alpha Number // time per message
	Beta  Number // time per byte
	Gamma Number // local reduction time per byte
}

// collectives holds the table's collective costs keyed by (kind, op, elem),
// "" meaning any.
type collectives struct {
	source       string
	entries      map[collKey]*Cost
	afterBarrier map[collKey]*Cost // the entries' after_barrier: times, where given
	rows         []collRow         // the entries as written, for Describe
	mpich        *MPICH
}

// collRow is one cost as the table wrote it, for several kinds and types.
type collRow struct {
	kinds, elems []string
	op           string
	cost         *Cost
	afterBarrier *Cost // nil: none given
}

type collKey struct{ kind, op, elem string }

func (c *collectives) lookup(kind, op, elem string) (*Cost, bool) {
	key, ok := c.find(kind, op, elem)
	if !ok {
		return nil, false
	}
	return c.entries[key], true
}

// find is the key of the entry that prices (kind, op, elem): the exact
// one, then any element type, then any operator, then the kind alone.
func (c *collectives) find(kind, op, elem string) (collKey, bool) {
	for _, k := range []collKey{{kind, op, elem}, {kind, op, ""}, {kind, "", elem}, {kind, "", ""}} {
		if _, ok := c.entries[k]; ok {
			return k, true
		}
	}
	return collKey{}, false
}

// ---------------------------------------------------------------------------
// Cluster and disk

// Cluster describes a cluster of SMP nodes ([002] §3): each node holds a
// logical sx × sy block of ranks; at most lx messages cross a node boundary
// east–west and ly north–south at a time.
type Cluster struct {
	source         string
	sx, sy, lx, ly Number
	inter          *MessageModel
}

// Node is the shape of one node in ranks; 0 means the whole grid in that
// direction (one node holds all ranks).
func (c *Cluster) Node() (sx, sy int) { return int(c.sx.Value), int(c.sy.Value) }

// Links is the number of messages that may cross one node boundary at a
// time, east–west and north–south; 0 means no limit.
func (c *Cluster) Links() (lx, ly int) { return int(c.lx.Value), int(c.ly.Value) }

// NodeOf is the node holding grid position (rx, ry).
func (c *Cluster) NodeOf(rx, ry int) (nx, ny int) {
	sx, sy := c.Node()
	if sx > 0 {
		nx = rx / sx
	}
	if sy > 0 {
		ny = ry / sy
	}
	return nx, ny
}

// Inter is the model of a message between nodes; inside a node, messages
// cost what Machine.Messages says.
func (c *Cluster) Inter() *MessageModel { return c.inter }

// Source cites the cluster description.
func (c *Cluster) Source() string { return c.source }

// Disk holds the memory–disk costs of the IMH model ([000] L793–795).
type Disk struct {
	Read, Write Transfer
	source      string
}

// Transfer is a start-up time and a bandwidth.
type Transfer struct {
	Startup   Number
	Bandwidth Number
}

// Time is Startup + bytes/Bandwidth.
func (t Transfer) Time(bytes float64) float64 { return t.Startup.Value + bytes/t.Bandwidth.Value }
