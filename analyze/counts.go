package analyze

import (
	"encoding/json"
	"math"
	"math/big"
	"math/bits"

	"perfc/analyze/symbolic"
	"perfc/lang"
)

// Count is one exact count: its value for the given parameters and, where
// the engine found a closed form, the formula in the kernel's symbols
// (parameters, lets, rank). Counts under a `prob p` branch are expected
// values and may be fractions.
type Count struct {
	Value *big.Rat
	// Formula is the closed form; when Symbolic is false it is the constant
	// value only (the count was found by enumerating outer loop levels).
	Formula  symbolic.Poly
	Symbolic bool
}

// zeroCount returns a Count of zero with a zero formula.
func zeroCount() Count { return Count{Value: new(big.Rat), Symbolic: true} }

// add returns c + d.
func (c Count) add(d Count) Count {
	if c.isExactZero() {
		return d
	}
	if d.isExactZero() {
		return c
	}
	sum := ratAdd(c.Value, d.Value)
	if !c.Symbolic || !d.Symbolic {
		// A sum with an enumerated part has no closed form: keep the
		// constant, as Count documents.
		return Count{Value: sum, Formula: symbolic.Const(sum)}
	}
	return Count{Value: sum, Formula: c.Formula.Add(d.Formula), Symbolic: true}
}

// isExactZero reports whether c is unset or a closed-form zero, which adds
// nothing to a value or a formula.
func (c Count) isExactZero() bool {
	return c.Value == nil || (c.Symbolic && c.Value.Sign() == 0 && c.Formula.IsZero())
}

// times returns c × k; counts are immutable, so c × 1 is c itself.
func (c Count) times(k int64) Count {
	if k == 1 {
		return c
	}
	return c.scale(symbolic.NewInt64Rat(k))
}

// scale returns c × k.
func (c Count) scale(k *big.Rat) Count {
	if c.Value == nil {
		return c
	}
	return Count{Value: ratMul(c.Value, k), Formula: c.Formula.Scale(k), Symbolic: c.Symbolic}
}

// ratAdd returns x + y in a new big.Rat. Nearly every count is an integer
// that fits 64 bits, and big.Rat.Add on integers still copies both operands,
// multiplies the denominators and reduces by a gcd: the counting benchmarks
// spent a tenth of their time there.
func ratAdd(x, y *big.Rat) *big.Rat {
	if a, ok := smallInt(x); ok {
		if b, ok := smallInt(y); ok {
			if s := a + b; (s > a) == (b > 0) {
				return symbolic.NewInt64Rat(s)
			}
		}
	}
	return new(big.Rat).Add(x, y)
}

// ratMul returns x × y in a new big.Rat, with ratAdd's fast path for
// integers whose product fits 64 bits.
func ratMul(x, y *big.Rat) *big.Rat {
	if a, ok := smallInt(x); ok {
		if b, ok := smallInt(y); ok {
			if hi, lo := bits.Mul64(uint64(abs64(a)), uint64(abs64(b))); hi == 0 && lo <= math.MaxInt64 {
				p := int64(lo)
				if (a < 0) != (b < 0) {
					p = -p
				}
				return symbolic.NewInt64Rat(p)
			}
		}
	}
	return new(big.Rat).Mul(x, y)
}

// smallInt returns x as an int64 when it is an integer strictly inside the
// int64 range (so that its absolute value fits too).
func smallInt(x *big.Rat) (int64, bool) {
	if !x.IsInt() || !x.Num().IsInt64() {
		return 0, false
	}
	v := x.Num().Int64()
	return v, v != math.MinInt64
}

// IsZero reports whether the count is zero (or unset).
func (c Count) IsZero() bool { return c.Value == nil || c.Value.Sign() == 0 }

// Float returns the value as a float64 (rounded).
func (c Count) Float() float64 {
	if c.Value == nil {
		return 0
	}
	f, _ := c.Value.Float64()
	return f
}

// Exact returns the exact value as text: an integer, or a fraction p/q.
func (c Count) Exact() string {
	if c.Value == nil {
		return "0"
	}
	if c.Value.IsInt() {
		return c.Value.Num().String()
	}
	return c.Value.RatString()
}

// MarshalJSON writes {"value": float, "exact": "text", "formula": "text"}
// (formula only when it is a closed form); see docs/counts.md.
func (c Count) MarshalJSON() ([]byte, error) {
	out := struct {
		Value   float64 `json:"value"`
		Exact   string  `json:"exact"`
		Formula string  `json:"formula,omitempty"`
	}{Value: c.Float(), Exact: c.Exact()}
	if c.Symbolic || c.Value == nil {
		out.Formula = c.Formula.String()
		if out.Formula == "" {
			out.Formula = "0"
		}
	}
	return json.Marshal(out)
}

// OpKind is a kind of arithmetic operation.
type OpKind uint8

const (
	OpAdd OpKind = iota
	OpSub
	OpMul
	OpDiv
	OpRem
	OpSqrt
	OpExp
	OpLog
	OpSin
	OpCos
	OpAbs
	OpMin
	OpMax
	OpCmp
	OpNeg
	OpBit // & | ^ << >> on integers
	OpConv
	numOpKinds
)

var opNames = [...]string{"add", "sub", "mul", "div", "rem", "sqrt", "exp", "log", "sin", "cos",
	"abs", "min", "max", "cmp", "neg", "bit", "conv"}

func (k OpKind) String() string { return opNames[k] }

// OpKinds lists every operation kind in order.
func OpKinds() []OpKind {
	out := make([]OpKind, numOpKinds)
	for i := range out {
		out[i] = OpKind(i)
	}
	return out
}

// MarshalText writes the operation's name.
func (k OpKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// NominalFlop is the PARKBENCH nominal flop weight of a floating-point
// operation (add, sub, mul 1; div, sqrt 4; exp, log, sin, cos 8; a compare
// 1, as IF(X .REL. Y); min, max and abs are compares). Negation and
// conversions are free, as in the McMahon weights.
func (k OpKind) NominalFlop() int64 {
	switch k {
	case OpAdd, OpSub, OpMul, OpCmp, OpMin, OpMax, OpAbs:
		return 1
	case OpDiv, OpSqrt:
		return 4
	case OpExp, OpLog, OpSin, OpCos:
		return 8
	}
	return 0
}

// OpType is the type an operation works in: an element type, or "int" for
// arithmetic on loop indices and rank that is not address arithmetic.
type OpType string

// OpCount is the count of one operation kind in one type.
type OpCount struct {
	Op   OpKind `json:"op"`
	Type OpType `json:"type"`
	// Pattern is the operand pattern of the statements the operations are
	// in (CM-5 Table 1: s&s&s, a&s&s, a&b&s, a&b&c); per-operation cost
	// tables are keyed by it.
	Pattern string `json:"pattern"`
	Count   Count  `json:"count"`
}

// Stride is a reference's byte stride with respect to one enclosing loop.
type Stride struct {
	Loop      string        `json:"loop"`  // the loop index
	Bytes     symbolic.Poly `json:"bytes"` // address change per iteration
	Invariant bool          `json:"invariant"`
}

// RefCount is one array reference in the source.
type RefCount struct {
	Array   string        `json:"array"`
	Pos     string        `json:"pos"`
	Text    string        `json:"text"`
	Store   bool          `json:"store"`
	Elem    lang.ElemType `json:"-"`
	Size    int           `json:"elem_bytes"`
	Count   Count         `json:"count"`
	Strides []Stride      `json:"strides"`
	// Hoisted names the loop the reference was hoisted out of because it is
	// invariant there (a register-resident scalar inside it, like fac[i]
	// in the k loop of Gaussian elimination); "" when not hoisted.
	Hoisted string `json:"hoisted,omitempty"`
	Pattern string `json:"pattern"` // the statement's operand pattern
	// Loop is the innermost loop of the reference's statement
	// (file:line:col, as LoopCount.Stmt), "" outside loops; Offset its
	// address in bytes from the array's start when that loop's and every
	// enclosing loop's index is 0 (OffsetKnown false when the address is
	// not a polynomial). Two references of one array in one loop with the
	// same strides walk together at Offset's difference apart: a 2-D
	// stencil's u[j+1][i] leads u[j-1][i] by two rows, and re-reads from
	// cache the lines u[j+1][i] brought in (docs/predict.md, "Streams read
	// again").
	Loop        string `json:"loop,omitempty"`
	Offset      int64  `json:"offset_bytes"`
	OffsetKnown bool   `json:"offset_known"`
}

// Message is the point-to-point traffic of one statement of one rank.
type Message struct {
	Kind  string `json:"kind"`           // send, recv, isend or irecv
	Elem  string `json:"elem,omitempty"` // element type of the payload; "" for `n bytes`
	Stmt  string `json:"stmt"`           // file:line:col
	Peer  string `json:"peer"`           // source form (east, (rank+1)%P)
	Rank  int64  `json:"peer_rank"`
	Count Count  `json:"count"`
	Bytes Count  `json:"bytes"`
}

// Collective is the traffic of one collective statement.
type Collective struct {
	Kind         string `json:"kind"`
	Op           string `json:"op,omitempty"`
	Elem         string `json:"elem,omitempty"`
	Stmt         string `json:"stmt"`
	Root         string `json:"root,omitempty"`
	Participants int64  `json:"participants"`
	Count        Count  `json:"count"`
	Bytes        Count  `json:"bytes"` // summed over calls; per call = Bytes/Count
	// AfterBarrier: the statement runs right after a barrier (AfterBarrier).
	AfterBarrier bool `json:"after_barrier,omitempty"`
}

// Counts is what one rank does in one region (or in all of them).
type Counts struct {
	Iterations Count     `json:"iterations"`
	Ops        []OpCount `json:"ops"`
	Flop       Count     `json:"flop"`
	IntOps     Count     `json:"int_ops"`
	MaddPairs  Count     `json:"madd_pairs"`
	// Madds breaks the multiply-add pairs down by the additive operation
	// they pair with (add or sub), type and pattern, for pricing.
	Madds       []OpCount    `json:"madds,omitempty"`
	Loads       Count        `json:"loads"`
	Stores      Count        `json:"stores"`
	LoadBytes   Count        `json:"load_bytes"`
	StoreBytes  Count        `json:"store_bytes"`
	Refs        []RefCount   `json:"refs,omitempty"`
	Messages    []Message    `json:"messages,omitempty"`
	Collectives []Collective `json:"collectives,omitempty"`
	Barriers    Count        `json:"barriers"`
	// Vectors lists the innermost loops a vector unit could run.
	Vectors []VectorLoop `json:"vectors,omitempty"`
	Cache   []CacheLines `json:"cache,omitempty"`
	// LoopEntries counts how often a loop (for or repeat) starts: the
	// per-entry cost of a loop (its start-up, RINF1's n½) is priced per
	// entry, its overhead per iteration.
	LoopEntries Count `json:"loop_entries,omitzero"`
	// RegionEntries counts how often a region starts: the generated
	// program reads the clock at every region's start and end, a cost the
	// region's measured time includes (compute.clock, docs/predict.md).
	// It counts in the region it starts; the total, every region's.
	RegionEntries Count `json:"region_entries,omitzero"`
	// InnerRegionEntries counts how often a region starts directly inside
	// this one ((outside regions): at the top level of the body). The
	// clock read that ends this region's stretch before the inner region
	// and the one that resumes it after bracket one more stretch of this
	// region's time, which costs what a region entry does
	// (compute.clock, docs/predict.md "The program's clock").
	InnerRegionEntries Count `json:"inner_region_entries,omitzero"`
	// Chains lists the loop-carried dependency chains of the region, for
	// the latency bound of the loops that carry them (docs/predict.md).
	Chains []Chain `json:"chains,omitempty"`
	// Requests summarises the non-blocking messages (isend, irecv) posted
	// in the region (requests.go).
	Requests RequestCounts `json:"requests,omitzero"`
	// Loops lists every for and repeat loop of the region with its own
	// iterations and entries (ordered by position), so that a pricing that
	// reads the compiled program's code per loop (docs/predict.md, "In-core
	// time from the compiled code") knows how often each loop's code runs.
	Loops []LoopCount `json:"loops,omitempty"`
}

// LoopCount is how often one loop runs in a region: its iterations over
// all entries, and its entries.
type LoopCount struct {
	Stmt       string `json:"stmt"` // file:line:col of the for or repeat
	Iterations Count  `json:"iterations"`
	Entries    Count  `json:"entries"`
}

// Chain is a loop-carried dependency chain: the operations by which one
// iteration of a loop computes a value (a var, or a reference hoisted out
// of the loop) from the value the previous iteration computed, as in
// `s = s + a[i]*b[i]` (the add, not the multiply) or Horner's
// `acc = c + x*acc` (both). An out-of-order core overlaps independent
// iterations but not the operations of one chain, so a loop runs no faster
// than its longest chain's latency per iteration, whatever its throughput.
// The counts are totals over the region, like every other count; Body is
// what the carrying loop's body does in all, for the throughput bound the
// latency is compared with.
//
// Entries and Restarts say whether the chains of successive entries of the
// carrying loop are one chain or many: when the location is set anew
// between one entry's last iteration and the next entry's first (Horner's
// `acc = coef` before `repeat k`, a dot product's `s = 0` before its
// `for k`), the entries' chains are independent and an out-of-order core
// runs several at once, as far as its reorder window reaches; otherwise
// the chain runs on from entry to entry.
type Chain struct {
	Loop       string `json:"loop"`       // file:line:col of the loop that carries the chain
	Var        string `json:"var"`        // the carried var or hoisted reference, as written
	Iterations Count  `json:"iterations"` // iterations of the carrying loop
	Entries    Count  `json:"entries"`    // starts of the carrying loop
	// Restarts is true when every entry starts the chain afresh: the
	// immediately enclosing loop, in the same region, sets the location
	// from values that do not depend on it in each of its iterations.
	Restarts bool      `json:"restarts,omitempty"`
	Ops      []OpCount `json:"ops"` // the operations on the chain, over those iterations
	Body     LoopBody  `json:"body"`
}

// LoopBody is what the body of a loop does over all of its iterations in a
// region, nested loops included.
type LoopBody struct {
	Iterations Count     `json:"iterations"` // iterations of the loop and of every loop nested in it
	Ops        []OpCount `json:"ops"`
	Madds      []OpCount `json:"madds,omitempty"`
	Loads      Count     `json:"loads"`
	Stores     Count     `json:"stores"`
}

// CacheLines is the traffic of one cache level in a region.
type CacheLines struct {
	Level      string   `json:"level"`
	Lines      Count    `json:"lines"`      // lines brought in
	WriteBacks Count    `json:"writebacks"` // dirty lines written back
	Conditions []string `json:"conditions,omitempty"`
}

// Region is the counts of one named region.
type Region struct {
	Name   string `json:"name"`
	Counts Counts `json:"counts"`
}

// Class is a set of ranks that behave alike: the same decisions at every
// rank-dependent condition and peer, so the same counts.
type Class struct {
	Ranks   RankSet  `json:"ranks"`
	Rank    int64    `json:"representative"`
	Total   Counts   `json:"total"`
	Regions []Region `json:"regions"`
}

// ArrayFootprint is one array's size on one rank.
type ArrayFootprint struct {
	Name  string  `json:"name"`
	Elem  string  `json:"elem"`
	Dims  []int64 `json:"dims"`
	Bytes int64   `json:"bytes"`
	Fits  string  `json:"fits"` // smallest cache level that holds it, or "memory"
}

// Footprint is the memory a rank needs.
type Footprint struct {
	Arrays []ArrayFootprint `json:"arrays"`
	Bytes  int64            `json:"bytes"`
	Fits   string           `json:"fits"`
}

// Param is a parameter binding as reported.
type Param struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// SchemaVersion names the JSON schema of a Report (docs/counts.md); it
// changes only when a field changes meaning or disappears.
const SchemaVersion = "perfc.counts/v1"

// Report is the analysis of one checked kernel.
type Report struct {
	Schema    string    `json:"schema"` // SchemaVersion
	Kernel    string    `json:"kernel"`
	File      string    `json:"file"`
	Params    []Param   `json:"params"`
	Ranks     int64     `json:"ranks"`
	Grid      []int64   `json:"grid,omitempty"`
	Cache     string    `json:"cache"`
	Classes   []*Class  `json:"classes"`
	Footprint Footprint `json:"footprint"`
	Notes     []string  `json:"notes,omitempty"`
	// Simulation is the exact LRU simulation of one rank beside the model
	// (perfc count --simulate; simulate.go); nil unless asked for.
	Simulation *Simulation `json:"simulation,omitempty"`
	// Conflicts lists the loops whose reuse a set-associative level loses
	// to conflict misses (conflict.go), for the first class's
	// representative.
	Conflicts []Conflict `json:"conflicts,omitempty"`
	// Steady is the lines per cache line of work, whole run and steady
	// state (perfc count --per-iteration; steady.go); nil unless asked for.
	Steady []SteadyRegion `json:"steady,omitempty"`
}

// Sum returns a + b for counts that may be unset (zero).
func Sum(a, b Count) Count { return a.add(b) }
