package lang

// Type is the type of an expression. The static types IntType and FloatType
// are untyped, like Go's untyped constants: they convert implicitly to an
// element type of the same kind (and an int to a float element type). The
// element types F64Type … I32Type are the types of array elements, vars
// and conversions, and do not mix with each other.
type Type uint8

const (
	InvalidType Type = iota // after an error; suppresses follow-on errors
	IntType                 // integer literals, int parameters and lets, indices, rank
	FloatType               // float literals, float parameters and lets
	BoolType                // comparisons and && || !
	PeerType                // none, east west north south, neighbor(): a rank or none
	F64Type
	F32Type
	I64Type
	I32Type
)

var typeNames = [...]string{
	InvalidType: "invalid", IntType: "int", FloatType: "float", BoolType: "bool", PeerType: "peer",
	F64Type: "f64", F32Type: "f32", I64Type: "i64", I32Type: "i32",
}

// String returns the name of t as messages write it.
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return "invalid"
}

// article returns the name with "a" or "an", as messages write it: "an
// int", "a float", "an f64".
func (t Type) article() string {
	switch t {
	case IntType, InvalidType, F64Type, F32Type, I64Type, I32Type:
		return "an " + t.String()
	}
	return "a " + t.String()
}

// Elem returns the element type of an element-typed Type, or NoElem.
func (t Type) Elem() ElemType {
	switch t {
	case F64Type:
		return F64
	case F32Type:
		return F32
	case I64Type:
		return I64
	case I32Type:
		return I32
	}
	return NoElem
}

// IsElem reports whether t is one of the element types.
func (t Type) IsElem() bool { return t.Elem() != NoElem }

// IsInteger reports whether values of t are integers (int, i64, i32).
func (t Type) IsInteger() bool { return t == IntType || t == I64Type || t == I32Type }

// IsFloat reports whether values of t are floats (float, f64, f32).
func (t Type) IsFloat() bool { return t == FloatType || t == F64Type || t == F32Type }

// IsNumeric reports whether t is an integer or a float type.
func (t Type) IsNumeric() bool { return t.IsInteger() || t.IsFloat() }

// Type returns the expression type of elements of type e.
func (e ElemType) Type() Type {
	switch e {
	case F64:
		return F64Type
	case F32:
		return F32Type
	case I64:
		return I64Type
	case I32:
		return I32Type
	}
	return InvalidType
}

// Dep says what the value of an expression depends on besides the
// parameters. Zero means a constant for the run: the same on every rank and
// in every iteration. DepRank and DepIndex make an expression static but
// per rank or per iteration; DepData makes it data, known only at run time.
type Dep uint8

const (
	DepRank  Dep = 1 << iota // rank, rx, ry, directions, neighbor()
	DepIndex                 // a loop index
	DepData                  // an array element or a var
)

// IsStatic reports whether the value is known before run time.
func (d Dep) IsStatic() bool { return d&DepData == 0 }

// ObjKind says what a name denotes.
type ObjKind uint8

const (
	BadObj       ObjKind = iota
	ParamObj             // a kernel parameter, or P, Px, Py when written in 'on'
	LetObj               // let NAME = value
	ArrayObj             // array NAME[d1]…: T
	VarObj               // var NAME: T
	IndexObj             // the index of a for loop
	BuiltinObj           // rank, rx, ry, and P when it is not a parameter
	IntrinsicObj         // abs min max sqrt exp log sin cos floor ceil log2 neighbor f64 f32 i64 i32
)

var objKindNames = [...]string{
	BadObj: "bad", ParamObj: "parameter", LetObj: "let", ArrayObj: "array", VarObj: "var",
	IndexObj: "loop index", BuiltinObj: "builtin", IntrinsicObj: "intrinsic",
}

// String names the kind as messages write it ("parameter", "loop index").
func (k ObjKind) String() string {
	if int(k) < len(objKindNames) {
		return objKindNames[k]
	}
	return "bad"
}

// article returns the kind with "a" or "an": "an array", "a parameter".
func (k ObjKind) article() string {
	switch k {
	case ArrayObj, IntrinsicObj:
		return "an " + k.String()
	}
	return "a " + k.String()
}

// Object is what a name denotes in one checked kernel.
type Object struct {
	Kind  ObjKind
	Name  string
	Ident *Ident   // declaring identifier (nil for builtins and intrinsics)
	Type  Type     // IntType/FloatType for statics; the element type for arrays and vars
	Elem  ElemType // arrays, vars
	Dims  []int64  // arrays: evaluated dimensions
	Value Value    // params, P/Px/Py, and lets that are constant for the run
	Slot  int      // loop indices: the index into Env.Index
	Loop  *ForStmt // loop indices
	Expr  Expr     // lets: the value expression (evaluated per rank and iteration when Dep != 0)
	Dep   Dep      // lets: what the value depends on; builtins rank, rx, ry: DepRank; indices: DepIndex
}

// Info records what the checker found out about every name and expression
// of a kernel. Its maps are keyed by the AST nodes of the checked kernel.
type Info struct {
	Defs  map[*Ident]*Object // declaring identifiers
	Uses  map[*Ident]*Object // every other identifier, intrinsic names included
	Types map[Expr]Type      // every expression except the names of intrinsic calls
	Deps  map[Expr]Dep       // every expression: what its value depends on
	Data  map[Expr]bool      // true where the expression reads an array element or a var
	// Values holds the value of every expression that is constant for the
	// run (Dep zero) and evaluated for the given parameters. An integer
	// quotient under floor or ceil may be a non-integer rational here.
	Values map[Expr]Value

	NumSlots int       // loop index slots: Env.Index needs this length
	Arrays   []*Object // every array, in declaration order
	Vars     []*Object // every var, in declaration order
	// Requests are the request names of the kernel's isend and irecv
	// statements, each by its first 'as', in that order: a request's
	// number (RequestNumber) is its index here, so that the analyzer and
	// the generated program keep a rank's requests in a slice.
	Requests []*Ident
}

// newInfo returns an Info with empty maps.
func newInfo() *Info {
	return &Info{
		Defs:   map[*Ident]*Object{},
		Uses:   map[*Ident]*Object{},
		Types:  map[Expr]Type{},
		Deps:   map[Expr]Dep{},
		Data:   map[Expr]bool{},
		Values: map[Expr]Value{},
	}
}

// ObjectOf returns the object an identifier declares or uses, or nil.
func (info *Info) ObjectOf(id *Ident) *Object {
	if obj := info.Defs[id]; obj != nil {
		return obj
	}
	return info.Uses[id]
}
