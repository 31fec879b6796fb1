package lang

// The AST of a .spmd file. Every node carries the compact Pos of its first
// token (and, where a printer or a message needs it, the position of a
// closing token). The parser builds these nodes; the checker annotates them
// through an Info, never by mutating them, so one File can be checked with
// many parameter bindings.

import "fmt"

// Node is implemented by every AST node.
type Node interface {
	Pos() Pos // position of the first token
}

// File is a parsed .spmd file.
type File struct {
	Source   *Source
	Kernels  []*Kernel
	Procs    []*Proc    // file-level procedures, in source order (ast_proc.go)
	Comments []*Comment // every comment, in source order (kept for perfc fmt)
}

// Comment is a // line comment or a /* block */ comment, text included.
type Comment struct {
	Slash Pos
	Text  string
}

func (c *Comment) Pos() Pos { return c.Slash }

// Kernel is one SPMD program: `kernel name(params) [on …] { body }`.
type Kernel struct {
	KernelPos Pos
	Name      *Ident
	Params    []*Param  // kernel parameters with defaults, in order
	Ranks     *RankSpec // nil: one rank (P = 1)
	Body      *Block
}

func (k *Kernel) Pos() Pos { return k.KernelPos }

// Param is `name = default`, a kernel or rank parameter. The default may use
// earlier parameters.
type Param struct {
	Name    *Ident
	Default Expr
}

func (p *Param) Pos() Pos { return p.Name.NamePos }

// RankSpec is `on P = 32 ranks` (Grid false, one param named P) or
// `on grid(Px = 4, Py = 4)` (Grid true, params Px and Py; P = Px*Py).
type RankSpec struct {
	OnPos  Pos
	Grid   bool
	Params []*Param
}

func (r *RankSpec) Pos() Pos { return r.OnPos }

// Block is `{ stmts }`.
type Block struct {
	Lbrace Pos
	Stmts  []Stmt
	Rbrace Pos
}

func (b *Block) Pos() Pos { return b.Lbrace }

// ---------------------------------------------------------------------------
// Types

// ElemType is the element type of arrays and vars.
type ElemType uint8

const (
	NoElem ElemType = iota
	F64
	F32
	I64
	I32
)

var elemNames = [...]string{NoElem: "?", F64: "f64", F32: "f32", I64: "i64", I32: "i32"}

func (t ElemType) String() string { return elemNames[t] }

// Size is the element size in bytes.
func (t ElemType) Size() int {
	switch t {
	case F64, I64:
		return 8
	case F32, I32:
		return 4
	}
	return 0
}

// IsFloat reports whether t is a floating-point type.
func (t ElemType) IsFloat() bool { return t == F64 || t == F32 }

// ElemTypeNamed returns the type spelled name, or NoElem.
func ElemTypeNamed(name string) ElemType {
	for t, n := range elemNames {
		if n == name && t != int(NoElem) {
			return ElemType(t)
		}
	}
	return NoElem
}

// ---------------------------------------------------------------------------
// Statements

// Stmt is implemented by every statement node.
type Stmt interface {
	Node
	stmtNode()
}

// LetStmt is `let name = value`: a named static value (integer or float).
type LetStmt struct {
	LetPos Pos
	Name   *Ident
	Value  Expr
}

// ArrayDecl is `array a[N], b[N][M]: f64`: per-rank local arrays, row-major.
type ArrayDecl struct {
	ArrayPos Pos
	Arrays   []*ArraySpec
	Elem     ElemType
	ElemPos  Pos
}

// ArraySpec is one `name[d1][d2]…` in an ArrayDecl.
type ArraySpec struct {
	Name *Ident
	Dims []Expr
}

func (a *ArraySpec) Pos() Pos { return a.Name.NamePos }

// VarDecl is `var s, t: f64 = 0`: register-resident scalars (no memory traffic).
type VarDecl struct {
	VarPos  Pos
	Names   []*Ident
	Elem    ElemType
	ElemPos Pos
	Init    Expr // nil: zero
}

// ForStmt is `for i in lo..hi [step s] { body }`, a half-open range.
type ForStmt struct {
	ForPos Pos
	Var    *Ident
	Lo, Hi Expr
	Step   Expr // nil: 1
	Body   *Block
}

// RepeatStmt is `repeat count { body }`, a loop without an index.
type RepeatStmt struct {
	RepeatPos Pos
	Count     Expr
	Body      *Block
}

// AssignOp is the operator of an assignment.
type AssignOp uint8

const (
	Assign    AssignOp = iota // =
	AddAssign                 // +=
	SubAssign                 // -=
	MulAssign                 // *=
	DivAssign                 // /=
)

var assignOpNames = [...]string{"=", "+=", "-=", "*=", "/="}

func (op AssignOp) String() string { return assignOpNames[op] }

// Binary returns the arithmetic operator of a compound assignment
// (`+=` → Add) and false for plain `=`.
func (op AssignOp) Binary() (BinaryOp, bool) {
	switch op {
	case AddAssign:
		return Add, true
	case SubAssign:
		return Sub, true
	case MulAssign:
		return Mul, true
	case DivAssign:
		return Quo, true
	}
	return 0, false
}

// AssignStmt is `lhs op rhs`; Lhs is an *Ident (a var) or an *IndexExpr
// with one index per array dimension.
type AssignStmt struct {
	Lhs   Expr
	OpPos Pos
	Op    AssignOp
	Rhs   Expr
}

// IfStmt is `if cond [prob p] { … } [else …]`. Prob is required when the
// condition reads array data or a var; Else is nil, a *Block or an *IfStmt.
type IfStmt struct {
	IfPos Pos
	Cond  Expr
	Prob  Expr // nil: a static condition
	Then  *Block
	Else  Stmt
}

// RegionStmt is `region "name" { body }`: a named part of every report.
type RegionStmt struct {
	RegionPos Pos
	Name      string // unquoted
	NamePos   Pos
	Body      *Block
}

// Payload is what a communication statement moves: an array section such
// as `A[0][0:N+1]`, a column `A[1:n+1][j]`, a block `A[r0:r1][c0:c1]` or a
// strided slice `x[0:n:2]` (one Subscript per bracket written, each a fixed
// index or a range; the dimensions after the last bracket are whole), a
// scalar var (`best`), or an abstract size (`8*n bytes`). A section that is
// not one contiguous run of memory is packed into a scratch buffer before
// it is sent and unpacked after it is received (lang.Pack).
type Payload struct {
	StartPos Pos
	Bytes    Expr         // non-nil: `SIZE bytes`; the fields below are unused
	Name     *Ident       // array or var
	Subs     []*Subscript // the brackets, one per dimension from the first
	End      Pos          // position just after the payload
}

func (p *Payload) Pos() Pos { return p.StartPos }

// HasRange reports whether any bracket of the payload is a range.
func (p *Payload) HasRange() bool {
	for _, s := range p.Subs {
		if s.IsRange() {
			return true
		}
	}
	return false
}

// SizeExprs returns the expressions a payload's size depends on: its byte
// size, or the bounds and steps of its ranges (fixed indices choose where
// the elements are, not how many).
func (p *Payload) SizeExprs() []Expr {
	if p.Bytes != nil {
		return []Expr{p.Bytes}
	}
	var out []Expr
	for _, s := range p.Subs {
		if s.IsRange() {
			out = append(out, s.Lo, s.Hi)
			if s.Step != nil {
				out = append(out, s.Step)
			}
		}
	}
	return out
}

// Subscript is one bracket of an array payload: a fixed index `[i]`, or a
// half-open range `[lo:hi]` with an optional constant step `[lo:hi:step]`
// (elements lo, lo+step, … below hi).
type Subscript struct {
	Lbrack Pos
	Index  Expr // a fixed index; nil for a range
	Lo, Hi Expr // a range; both nil for a fixed index
	Step   Expr // nil: 1
}

func (s *Subscript) Pos() Pos { return s.Lbrack }

// IsRange reports whether the bracket is a range.
func (s *Subscript) IsRange() bool { return s.Index == nil }

// CommKind names a communication statement.
type CommKind uint8

const (
	Send CommKind = iota
	Recv
	SendRecv
	Exchange
	ISend // isend P to PEER as REQ: post a send, complete it at a wait
	IRecv // irecv P from PEER as REQ: post a receive, complete it at a wait
	Bcast
	Reduce
	Allreduce
	Scatter
	Gather
	Allgather
	Alltoall
	Scan
	Barrier
)

var commNames = [...]string{"send", "recv", "sendrecv", "exchange", "isend", "irecv", "bcast", "reduce", "allreduce",
	"scatter", "gather", "allgather", "alltoall", "scan", "barrier"}

func (k CommKind) String() string {
	if int(k) < len(commNames) {
		return commNames[k]
	}
	return fmt.Sprintf("CommKind(%d)", k)
}

// IsNonBlocking reports whether the statement posts a request that a
// WaitStmt completes.
func (k CommKind) IsNonBlocking() bool { return k == ISend || k == IRecv }

// IsCollective reports whether every rank takes part in the operation.
func (k CommKind) IsCollective() bool { return k >= Bcast }

// CommKindNamed returns the kind spelled name.
func CommKindNamed(name string) (CommKind, bool) {
	for k, n := range commNames {
		if n == name {
			return CommKind(k), true
		}
	}
	return 0, false
}

// ReduceOp is the operator of reduce, allreduce and scan.
type ReduceOp uint8

const (
	NoReduce ReduceOp = iota
	ReduceSum
	ReduceProd
	ReduceMax
	ReduceMin
	ReduceAnd
	ReduceOr
	ReduceXor
)

var reduceNames = [...]string{"", "sum", "prod", "max", "min", "and", "or", "xor"}

func (op ReduceOp) String() string { return reduceNames[op] }

// ReduceOpNamed returns the operator spelled name, or NoReduce.
func ReduceOpNamed(name string) ReduceOp {
	for op, n := range reduceNames {
		if n == name && op != 0 {
			return ReduceOp(op)
		}
	}
	return NoReduce
}

// CommStmt is every communication statement:
//
//	send P to PEER             recv P from PEER
//	sendrecv P to PEER from PEER [into Q]
//	exchange P with PEER
//	bcast P from ROOT          reduce OP P to ROOT       allreduce OP P
//	scatter P from ROOT        gather P to ROOT          allgather P
//	alltoall P                 scan OP P                 barrier
//
// Peers and roots are integer expressions; `east west north south`,
// `neighbor(dx, dy)` and `none` are expressions whose value is a rank or
// none. For sendrecv, Payload is sent to Peer and Into (or Payload itself,
// when Into is nil) is received from From. For scatter, gather, allgather
// and alltoall, Payload is one rank's block.
type CommStmt struct {
	KindPos Pos
	Kind    CommKind
	Op      ReduceOp // reduce, allreduce, scan
	OpPos   Pos
	Payload *Payload // nil for barrier
	Peer    Expr     // send/sendrecv: destination; recv: source; exchange: partner; bcast/scatter/reduce/gather: root
	From    Expr     // sendrecv only: the source
	Into    *Payload // sendrecv only: the receive buffer, nil to receive in place
	Req     *Ident   // isend, irecv: the request named after 'as'
}

func (*LetStmt) stmtNode()    {}
func (*ArrayDecl) stmtNode()  {}
func (*VarDecl) stmtNode()    {}
func (*ForStmt) stmtNode()    {}
func (*RepeatStmt) stmtNode() {}
func (*AssignStmt) stmtNode() {}
func (*IfStmt) stmtNode()     {}
func (*RegionStmt) stmtNode() {}
func (*CommStmt) stmtNode()   {}
func (*Block) stmtNode()      {}

func (s *LetStmt) Pos() Pos    { return s.LetPos }
func (s *ArrayDecl) Pos() Pos  { return s.ArrayPos }
func (s *VarDecl) Pos() Pos    { return s.VarPos }
func (s *ForStmt) Pos() Pos    { return s.ForPos }
func (s *RepeatStmt) Pos() Pos { return s.RepeatPos }
func (s *AssignStmt) Pos() Pos { return s.Lhs.Pos() }
func (s *IfStmt) Pos() Pos     { return s.IfPos }
func (s *RegionStmt) Pos() Pos { return s.RegionPos }
func (s *CommStmt) Pos() Pos   { return s.KindPos }

// ---------------------------------------------------------------------------
// Expressions

// Expr is implemented by every expression node.
type Expr interface {
	Node
	exprNode()
}

// Ident is a name: a parameter, let, array, var, loop index or builtin
// (`rank`, `P`, and on a grid `rx ry Px Py`).
type Ident struct {
	NamePos Pos
	Name    string
}

// IntLit is an integer literal such as 1024 or 20_000_000; Text keeps the
// spelling for perfc fmt.
type IntLit struct {
	LitPos Pos
	Text   string
}

// FloatLit is a floating-point literal such as 3.0 or 1e-6.
type FloatLit struct {
	LitPos Pos
	Text   string
}

// BinaryOp is a binary operator.
type BinaryOp uint8

const (
	Add  BinaryOp = iota // +
	Sub                  // -
	Mul                  // *
	Quo                  // /
	Rem                  // %
	Shl                  // <<
	Shr                  // >>
	And                  // &
	Or                   // |
	Xor                  // ^
	Eql                  // ==
	Neq                  // !=
	Lss                  // <
	Leq                  // <=
	Gtr                  // >
	Geq                  // >=
	LAnd                 // &&
	LOr                  // ||
)

var binaryNames = [...]string{"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^",
	"==", "!=", "<", "<=", ">", ">=", "&&", "||"}

func (op BinaryOp) String() string { return binaryNames[op] }

// Precedence is Go's: 5 for * / % << >> &, 4 for + - | ^, 3 for
// comparisons, 2 for &&, 1 for ||. The conditional `?:` is below all (0).
func (op BinaryOp) Precedence() int {
	switch op {
	case Mul, Quo, Rem, Shl, Shr, And:
		return 5
	case Add, Sub, Or, Xor:
		return 4
	case Eql, Neq, Lss, Leq, Gtr, Geq:
		return 3
	case LAnd:
		return 2
	}
	return 1
}

// IsComparison reports whether op yields a boolean from two numbers.
func (op BinaryOp) IsComparison() bool { return op >= Eql && op <= Geq }

// BinaryOpNamed returns the operator spelled s.
func BinaryOpNamed(s string) (BinaryOp, bool) {
	for op, n := range binaryNames {
		if n == s {
			return BinaryOp(op), true
		}
	}
	return 0, false
}

// BinaryExpr is `x op y`.
type BinaryExpr struct {
	X     Expr
	OpPos Pos
	Op    BinaryOp
	Y     Expr
}

// UnaryOp is a prefix operator.
type UnaryOp uint8

const (
	Neg UnaryOp = iota // -
	Not                // !
)

func (op UnaryOp) String() string {
	if op == Not {
		return "!"
	}
	return "-"
}

// UnaryExpr is `-x` or `!x`.
type UnaryExpr struct {
	OpPos Pos
	Op    UnaryOp
	X     Expr
}

// CondExpr is `cond ? then : else`.
type CondExpr struct {
	Cond     Expr
	Question Pos
	Then     Expr
	Else     Expr
}

// ParenExpr is `(x)`; kept so that perfc fmt prints the parentheses the
// author wrote.
type ParenExpr struct {
	Lparen Pos
	X      Expr
	Rparen Pos
}

// CallExpr is an intrinsic call `name(args)`: abs min max sqrt exp log sin
// cos floor ceil log2 neighbor, and the conversions f64 f32 i64 i32.
type CallExpr struct {
	Fun    *Ident
	Args   []Expr
	Rparen Pos
}

// IndexExpr is an array element `a[i][j]`.
type IndexExpr struct {
	Name   *Ident
	Index  []Expr
	Rbrack Pos
}

// DirExpr is a grid direction `east west north south`: the neighbouring
// rank in that direction, or none at the edge of the grid.
type DirExpr struct {
	DirPos Pos
	Dir    Direction
}

// Direction is a grid direction. Offsets follow LANGUAGE.md: rank =
// ry*Px + rx; east is (rx+1, ry), south is (rx, ry+1).
type Direction uint8

const (
	East Direction = iota
	West
	North
	South
)

var dirNames = [...]string{"east", "west", "north", "south"}

func (d Direction) String() string { return dirNames[d] }

// Offset returns the grid offset (dx, dy) of the direction.
func (d Direction) Offset() (dx, dy int) {
	switch d {
	case East:
		return 1, 0
	case West:
		return -1, 0
	case North:
		return 0, -1
	}
	return 0, 1
}

// DirectionNamed returns the direction spelled name.
func DirectionNamed(name string) (Direction, bool) {
	for d, n := range dirNames {
		if n == name {
			return Direction(d), true
		}
	}
	return 0, false
}

// NoneLit is `none`: no peer. A send or recv with peer none does nothing.
type NoneLit struct {
	NonePos Pos
}

func (*Ident) exprNode()      {}
func (*IntLit) exprNode()     {}
func (*FloatLit) exprNode()   {}
func (*BinaryExpr) exprNode() {}
func (*UnaryExpr) exprNode()  {}
func (*CondExpr) exprNode()   {}
func (*ParenExpr) exprNode()  {}
func (*CallExpr) exprNode()   {}
func (*IndexExpr) exprNode()  {}
func (*DirExpr) exprNode()    {}
func (*NoneLit) exprNode()    {}

func (e *Ident) Pos() Pos      { return e.NamePos }
func (e *IntLit) Pos() Pos     { return e.LitPos }
func (e *FloatLit) Pos() Pos   { return e.LitPos }
func (e *BinaryExpr) Pos() Pos { return e.X.Pos() }
func (e *UnaryExpr) Pos() Pos  { return e.OpPos }
func (e *CondExpr) Pos() Pos   { return e.Cond.Pos() }
func (e *ParenExpr) Pos() Pos  { return e.Lparen }
func (e *CallExpr) Pos() Pos   { return e.Fun.NamePos }
func (e *IndexExpr) Pos() Pos  { return e.Name.NamePos }
func (e *DirExpr) Pos() Pos    { return e.DirPos }
func (e *NoneLit) Pos() Pos    { return e.NonePos }

// Unparen strips any parentheses around e.
func Unparen(e Expr) Expr {
	for {
		p, ok := e.(*ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}

// Pos returns the position of the first kernel, or NoPos.
func (f *File) Pos() Pos {
	if len(f.Kernels) > 0 {
		return f.Kernels[0].Pos()
	}
	return NoPos
}

// Kernel returns the kernel called name, or nil.
func (f *File) Kernel(name string) *Kernel {
	for _, k := range f.Kernels {
		if k.Name.Name == name {
			return k
		}
	}
	return nil
}
