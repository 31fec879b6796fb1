package lang

import "slices"

// WorkStmt is `work ITEM {, ITEM}`: abstract work, for modelling a piece of
// code before its loops are written. It states what the code will do, not
// how:
//
//	work 2*N*N flop f64, load 16*N*N bytes from a, store 8*N*N bytes to c
//	work N add f64, load 8*N bytes in 32768
//
// An item is a number of operations of a kind and type (WorkOp), or a
// number of bytes loaded or stored (WorkMem) streaming through an array or
// a working set of a given size. The checker lowers the statement into a
// synthetic loop nest that does exactly that work (checkwork.go,
// worklower.go); every later stage counts, prices, emulates and generates
// that nest, so the statement is "counted like the loops it stands for".
type WorkStmt struct {
	WorkPos Pos
	Items   []WorkItem
}

// WorkItem is a WorkOp or a WorkMem.
type WorkItem interface {
	Node
	workItem()
}

// WorkOp is `COUNT KIND TYPE`: COUNT operations of KIND (an operation kind
// the analyzer counts, or `flop`, which counts as `add`) in TYPE.
type WorkOp struct {
	Count   Expr
	Kind    string // as written: "add", "flop", …
	KindPos Pos
	Elem    ElemType
	ElemPos Pos
}

// WorkMem is `load BYTES bytes [from ARRAY | in SET]` or
// `store BYTES bytes [to ARRAY | in SET]`. With an array the bytes stream
// through it from its first element (its size is the working set); with
// `in SET` they stream through a buffer of SET bytes; with neither, through
// a buffer of BYTES bytes.
type WorkMem struct {
	KindPos Pos
	Store   bool
	Bytes   Expr
	Array   *Ident // from/to ARRAY; nil otherwise
	Set     Expr   // in SET; nil otherwise
	End     Pos    // just after 'bytes' or the array name (an `in SET` item ends with SET)
}

func (*WorkOp) workItem()  {}
func (*WorkMem) workItem() {}

func (w *WorkOp) Pos() Pos  { return w.Count.Pos() }
func (w *WorkMem) Pos() Pos { return w.KindPos }

func (*WorkStmt) stmtNode()  {}
func (s *WorkStmt) Pos() Pos { return s.WorkPos }

// Word returns "load" or "store".
func (w *WorkMem) Word() string {
	if w.Store {
		return "store"
	}
	return "load"
}

// Preposition returns the word before the array: "from" for a load, "to"
// for a store.
func (w *WorkMem) Preposition() string {
	if w.Store {
		return "to"
	}
	return "from"
}

// WorkFlop is the operation kind `flop`, which counts as an add.
const WorkFlop = "flop"

// workOpKinds are the operation kinds a work item may name: the analyzer's
// (analyze.OpKinds, in its order; analyze/work_test.go checks them) and
// flop. workIntOnly and workFloatOnly are the kinds that need an integer
// or a floating-point type.
var (
	workOpKinds   = [...]string{"add", "sub", "mul", "div", "rem", "sqrt", "exp", "log", "sin", "cos", "abs", "min", "max", "cmp", "neg", "bit", "conv", WorkFlop}
	workIntOnly   = [...]string{"rem", "bit"}
	workFloatOnly = [...]string{"sqrt", "exp", "log", "sin", "cos", WorkFlop}
)

// WorkOpKinds returns the operation kinds a work item may name, flop last.
func WorkOpKinds() []string { return slices.Clone(workOpKinds[:]) }

// WorkMemoryWords returns the contextual words that start a memory item of
// a work statement. They are not keywords: outside `work` they are names.
func WorkMemoryWords() []string { return []string{"load", "store"} }
