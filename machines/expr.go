package machines

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds the cost expression language of machine tables:
//
//	84.65us + 0.117us/B * bytes        T_s + bytes / bw
//	log2(P) * 5us                      max(0, level - 1) * 1us
//
// An expression is parsed once (a small recursive-descent parser), its
// dimensions are checked against the variables and parameters in scope, its
// constant parts are folded, and what is left is compiled to a short postfix
// program that evaluates without allocating.
//
// Grammar (precedence from low to high, all binary operators left-assoc.):
//
//	expr    = term { ("+" | "-") term } .
//	term    = unary { ("*" | "/") unary } .
//	unary   = ("-" | "+") unary | power .
//	power   = primary [ "^" [ "-" ] int ] .
//	primary = number [ unit ] | name | name "(" expr { "," expr } ")" | "(" expr ")" .
//
// A unit belongs to a number only when it follows it without a blank
// ("50MB/s", "0.117us/B"); a '/' continues the unit only when a unit symbol
// follows it, so "2us/B" is a time per byte while "2us/level" divides by the
// variable level. "^" binds tighter than a unary minus (-2^2 is -4) and its
// exponent is an integer literal, so that dimensions stay exact.

// Vars are the run-time variables a cost expression may read. Which of them
// a given entry may use depends on where it stands (a message cost reads
// bytes, level and P; a memory cost n, lines and stride).
type Vars struct {
	Bytes  float64 // size of the message or transfer, in B
	P      float64 // ranks taking part
	N      float64 // elements (vector length, elements transferred)
	Stride float64 // access stride, in elements
	Level  float64 // network levels a message crosses (see MessageModel.Levels)
	Lines  float64 // cache lines transferred
}

// varID names one field of Vars.
type varID uint8

const (
	varBytes varID = iota
	varP
	varN
	varStride
	varLevel
	varLines
	numVars
)

// name is the spelling of the variable in expressions.
func (id varID) name() string {
	switch id {
	case varBytes:
		return "bytes"
	case varP:
		return "P"
	case varN:
		return "n"
	case varStride:
		return "stride"
	case varLevel:
		return "level"
	}
	return "lines"
}

// dim is the dimension of the variable: bytes is a size, the rest are counts.
func (id varID) dim() Dim {
	if id == varBytes {
		return Bytes
	}
	return Dimensionless
}

// varNamed returns the variable spelled name.
func varNamed(name string) (varID, bool) {
	for id := range numVars {
		if id.name() == name {
			return id, true
		}
	}
	return 0, false
}

// get reads one variable.
func (v *Vars) get(id varID) float64 {
	switch id {
	case varBytes:
		return v.Bytes
	case varP:
		return v.P
	case varN:
		return v.N
	case varStride:
		return v.Stride
	case varLevel:
		return v.Level
	}
	return v.Lines
}

// varSet is a set of variables, one bit per varID.
type varSet uint8

func setOf(ids ...varID) varSet {
	var s varSet
	for _, id := range ids {
		s |= 1 << id
	}
	return s
}

func (s varSet) has(id varID) bool { return s&(1<<id) != 0 }

// String lists the set as "bytes, level, P" for error messages.
func (s varSet) String() string {
	var names []string
	for id := range numVars {
		if s.has(id) {
			names = append(names, id.name())
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// isFunction reports whether name is one of the built-in functions.
func isFunction(name string) bool {
	switch name {
	case "min", "max", "ceil", "floor", "log2":
		return true
	}
	return false
}

// ---------------------------------------------------------------------------
// Syntax

// exprError is an error at a byte offset inside an expression's text; the
// machine loader turns the offset into a file position.
type exprError struct {
	off int
	msg string
}

func (e *exprError) Error() string { return e.msg }

// nodeKind distinguishes the expression nodes.
type nodeKind uint8

const (
	litNode    nodeKind = iota // a number with its unit
	nameNode                   // a variable or a parameter
	unaryNode                  // -x
	binaryNode                 // x op y
	powerNode                  // x ^ k
	callNode                   // f(x, …)
)

// exprNode is one node of a parsed expression. The checker fills dim and,
// for constant subtrees, value.
type exprNode struct {
	kind  nodeKind
	off   int    // byte offset of the node's first character
	text  string // the literal or name as written
	op    byte   // binaryNode: + - * /
	power int    // powerNode
	args  []*exprNode
	value float64 // litNode: SI value; after checking: value of a constant
	dim   Dim
	konst bool // after checking: the subtree reads no variable
	varID varID
}

// maxNesting bounds parenthesis and operator nesting so that a hostile
// expression cannot exhaust the parser's stack.
const maxNesting = 64

// exprParser is a recursive-descent parser over one expression text.
type exprParser struct {
	text  string
	pos   int
	depth int
}

// parseExpr parses text into a tree, or returns an *exprError.
func parseExpr(text string) (*exprNode, error) {
	p := &exprParser{text: text}
	n, err := p.expr()
	if err != nil {
		return nil, err
	}
	p.skipBlanks()
	if p.pos < len(p.text) {
		return nil, p.errorf(p.pos, "unexpected %s after the expression", p.describeNext())
	}
	return n, nil
}

func (p *exprParser) errorf(off int, format string, args ...any) *exprError {
	return &exprError{off, fmt.Sprintf(format, args...)}
}

func (p *exprParser) skipBlanks() {
	for p.pos < len(p.text) && (p.text[p.pos] == ' ' || p.text[p.pos] == '\t') {
		p.pos++
	}
}

// peek returns the next non-blank byte, or 0 at the end.
func (p *exprParser) peek() byte {
	p.skipBlanks()
	if p.pos < len(p.text) {
		return p.text[p.pos]
	}
	return 0
}

// describeNext names what comes next for an error message.
func (p *exprParser) describeNext() string {
	p.skipBlanks()
	if p.pos >= len(p.text) {
		return "end of expression"
	}
	r, _ := utf8.DecodeRuneInString(p.text[p.pos:])
	if isIdentStart(r) {
		return fmt.Sprintf("'%s'", p.text[p.pos:p.pos+identLen(p.text[p.pos:])])
	}
	return fmt.Sprintf("'%s'", string(r))
}

func (p *exprParser) enter() error {
	p.depth++
	if p.depth > maxNesting {
		return p.errorf(p.pos, "expression nests more than %d levels deep", maxNesting)
	}
	return nil
}

func (p *exprParser) expr() (*exprNode, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	x, err := p.term()
	for err == nil {
		c := p.peek()
		if c != '+' && c != '-' {
			break
		}
		off := p.pos
		p.pos++
		var y *exprNode
		if y, err = p.term(); err == nil {
			x = &exprNode{kind: binaryNode, off: off, op: c, args: []*exprNode{x, y}}
		}
	}
	return x, err
}

func (p *exprParser) term() (*exprNode, error) {
	x, err := p.unary()
	for err == nil {
		c := p.peek()
		if c != '*' && c != '/' {
			break
		}
		off := p.pos
		p.pos++
		var y *exprNode
		if y, err = p.unary(); err == nil {
			x = &exprNode{kind: binaryNode, off: off, op: c, args: []*exprNode{x, y}}
		}
	}
	return x, err
}

func (p *exprParser) unary() (*exprNode, error) {
	c := p.peek()
	if c != '-' && c != '+' {
		return p.power()
	}
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	off := p.pos
	p.pos++
	x, err := p.unary()
	if err != nil || c == '+' {
		return x, err
	}
	return &exprNode{kind: unaryNode, off: off, args: []*exprNode{x}}, nil
}

func (p *exprParser) power() (*exprNode, error) {
	x, err := p.primary()
	if err != nil || p.peek() != '^' {
		return x, err
	}
	off := p.pos
	p.pos++
	p.skipBlanks()
	start := p.pos
	if p.pos < len(p.text) && p.text[p.pos] == '-' {
		p.pos++
	}
	for p.pos < len(p.text) && p.text[p.pos] >= '0' && p.text[p.pos] <= '9' {
		p.pos++
	}
	k, convErr := strconv.Atoi(p.text[start:p.pos])
	if convErr != nil || k < -maxPower || k > maxPower {
		return nil, p.errorf(start, "the power after ^ must be an integer from -%d to %d", maxPower, maxPower)
	}
	return &exprNode{kind: powerNode, off: off, power: k, args: []*exprNode{x}}, nil
}

func (p *exprParser) primary() (*exprNode, error) {
	c := p.peek()
	switch {
	case c == '(':
		p.pos++
		x, err := p.expr()
		if err != nil {
			return nil, err
		}
		if p.peek() != ')' {
			return nil, p.errorf(p.pos, "expected ')', found %s", p.describeNext())
		}
		p.pos++
		return x, nil
	case c >= '0' && c <= '9' || c == '.':
		return p.number()
	}
	r, _ := utf8.DecodeRuneInString(p.text[p.pos:])
	if p.pos < len(p.text) && isIdentStart(r) {
		return p.name()
	}
	return nil, p.errorf(p.pos, "expected a number, a name or '(', found %s", p.describeNext())
}

// number reads a literal and the unit written directly after it.
func (p *exprParser) number() (*exprNode, error) {
	start := p.pos
	n := scanNumber(p.text[p.pos:])
	if n == 0 {
		return nil, p.errorf(p.pos, "expected a number, found %s", p.describeNext())
	}
	v, err := strconv.ParseFloat(p.text[p.pos:p.pos+n], 64)
	if err != nil {
		return nil, p.errorf(p.pos, "'%s' is not a number", p.text[p.pos:p.pos+n])
	}
	p.pos += n
	u := unit{1, 1, Dimensionless}
	if unitText := p.scanUnit(); unitText != "" {
		if u, err = parseUnit(unitText); err != nil {
			return nil, p.errorf(p.pos-len(unitText), "%v (for a product write %s*%s)", err, p.text[start:start+n], unitText)
		}
	} else if sym := p.unitAfterBlank(); sym != "" {
		return nil, p.errorf(p.pos, "write the unit directly after the number, without a blank: %s%s", p.text[start:p.pos], sym)
	}
	return &exprNode{kind: litNode, off: start, text: p.text[start:p.pos], value: u.to(v), dim: u.dim, konst: true}, nil
}

// scanUnit consumes the unit glued to a number: a run of letters, then any
// "/symbol" whose symbol is a known unit.
func (p *exprParser) scanUnit() string {
	start := p.pos
	n := unitSymbolLen(p.text[p.pos:])
	if n == 0 {
		return ""
	}
	p.pos += n
	for p.pos < len(p.text) && p.text[p.pos] == '/' {
		m := unitSymbolLen(p.text[p.pos+1:])
		if _, ok := lookupUnit(p.text[p.pos+1 : p.pos+1+m]); m == 0 || !ok {
			break
		}
		p.pos += 1 + m
	}
	return p.text[start:p.pos]
}

// unitAfterBlank returns the unit symbol that follows a blank after a
// number, the likely mistake "50 MB/s", or "" when what follows is not a
// unit or is a variable name.
func (p *exprParser) unitAfterBlank() string {
	b := p.blankLen()
	if b == 0 {
		return ""
	}
	rest := p.text[p.pos+b:]
	sym := rest[:unitSymbolLen(rest)]
	_, isUnit := lookupUnit(sym)
	_, isVar := varNamed(sym)
	if !isUnit || isVar || len(rest) > len(sym) && rest[len(sym)] != '/' && rest[len(sym)] != ' ' {
		return ""
	}
	return sym
}

func (p *exprParser) blankLen() int {
	i := p.pos
	for i < len(p.text) && (p.text[i] == ' ' || p.text[i] == '\t') {
		i++
	}
	return i - p.pos
}

// unitSymbolLen is the length of the run of letters at the start of s
// (unit symbols are letters only, µ included).
func unitSymbolLen(s string) int {
	for i, r := range s {
		if !unicode.IsLetter(r) {
			return i
		}
	}
	return len(s)
}

func isIdentStart(r rune) bool { return r == '_' || r < utf8.RuneSelf && unicode.IsLetter(r) }

// identLen is the length of the identifier at the start of s.
func identLen(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return i
		}
	}
	return len(s)
}

// name reads a variable, a parameter or a function call.
func (p *exprParser) name() (*exprNode, error) {
	start := p.pos
	p.pos += identLen(p.text[p.pos:])
	name := p.text[start:p.pos]
	if p.peek() != '(' {
		return &exprNode{kind: nameNode, off: start, text: name}, nil
	}
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	p.pos++
	call := &exprNode{kind: callNode, off: start, text: name}
	for {
		arg, err := p.expr()
		if err != nil {
			return nil, err
		}
		call.args = append(call.args, arg)
		switch p.peek() {
		case ',':
			p.pos++
			continue
		case ')':
			p.pos++
			return call, nil
		}
		return nil, p.errorf(p.pos, "expected ',' or ')' in the call of %s, found %s", name, p.describeNext())
	}
}

// ---------------------------------------------------------------------------
// Checking

// exprScope says what names an expression may use: the run-time variables
// allowed where it stands, and the machine's parameters (constants).
type exprScope struct {
	vars   varSet
	params func(name string) (Quantity, bool)
	// paramNames lists the parameters for "unknown name" messages.
	paramNames []string
}

// check resolves names, computes the dimension of every node and folds
// constant subtrees. It records the parameters the expression reads.
func check(n *exprNode, sc *exprScope, used map[string]bool) error {
	for _, a := range n.args {
		if err := check(a, sc, used); err != nil {
			return err
		}
	}
	switch n.kind {
	case litNode:
		return nil
	case nameNode:
		return checkName(n, sc, used)
	case unaryNode:
		x := n.args[0]
		n.dim, n.konst, n.value = x.dim, x.konst, -x.value
	case powerNode:
		x := n.args[0]
		n.dim, n.konst, n.value = x.dim.Pow(n.power), x.konst, math.Pow(x.value, float64(n.power))
	case binaryNode:
		return checkBinary(n)
	case callNode:
		return checkCall(n)
	}
	return nil
}

// checkName resolves a name to a variable in scope or a parameter.
func checkName(n *exprNode, sc *exprScope, used map[string]bool) error {
	if id, ok := varNamed(n.text); ok {
		if !sc.vars.has(id) {
			return &exprError{n.off, fmt.Sprintf("variable %s is not available here (available: %s)", n.text, sc.vars)}
		}
		n.varID, n.dim = id, id.dim()
		return nil
	}
	if sc.params != nil {
		if q, ok := sc.params(n.text); ok {
			n.dim, n.value, n.konst = q.Dim, q.Value, true
			used[n.text] = true
			return nil
		}
	}
	if isFunction(n.text) {
		return &exprError{n.off, fmt.Sprintf("%s is a function: write %s(…)", n.text, n.text)}
	}
	params := "none"
	if len(sc.paramNames) > 0 {
		params = strings.Join(sc.paramNames, ", ")
	}
	return &exprError{n.off, fmt.Sprintf("unknown name %s: not a variable available here (%s) nor a parameter (%s)", n.text, sc.vars, params)}
}

// checkBinary applies the dimension rules of + - * /.
func checkBinary(n *exprNode) error {
	x, y := n.args[0], n.args[1]
	n.konst = x.konst && y.konst
	switch n.op {
	case '+', '-':
		if x.dim != y.dim {
			return &exprError{n.off, fmt.Sprintf("cannot %s %s and %s", verb(n.op), x.dim.Describe(), y.dim.Describe())}
		}
		n.dim = x.dim
		if n.op == '+' {
			n.value = x.value + y.value
		} else {
			n.value = x.value - y.value
		}
	case '*':
		n.dim, n.value = x.dim.Mul(y.dim), x.value*y.value
	case '/':
		n.dim, n.value = x.dim.Div(y.dim), x.value/y.value
	}
	return nil
}

func verb(op byte) string {
	if op == '+' {
		return "add"
	}
	return "subtract"
}

// checkCall applies the rules of the built-in functions: min and max take
// two or more arguments of one dimension; ceil, floor and log2 take a number.
func checkCall(n *exprNode) error {
	switch n.text {
	case "min", "max":
		if len(n.args) < 2 {
			return &exprError{n.off, fmt.Sprintf("%s needs two or more arguments", n.text)}
		}
		n.dim, n.konst, n.value = n.args[0].dim, true, n.args[0].value
		for _, a := range n.args {
			if a.dim != n.dim {
				return &exprError{a.off, fmt.Sprintf("%s mixes %s and %s", n.text, n.dim.Describe(), a.dim.Describe())}
			}
			n.konst = n.konst && a.konst
			if n.text == "min" {
				n.value = math.Min(n.value, a.value)
			} else {
				n.value = math.Max(n.value, a.value)
			}
		}
	case "ceil", "floor", "log2":
		if len(n.args) != 1 {
			return &exprError{n.off, fmt.Sprintf("%s takes one argument", n.text)}
		}
		a := n.args[0]
		if a.dim != Dimensionless {
			return &exprError{a.off, fmt.Sprintf("%s needs a number, got %s: divide by a unit first, as in %s(bytes/16KiB)", n.text, a.dim.Describe(), n.text)}
		}
		n.dim, n.konst, n.value = Dimensionless, a.konst, unaryFunc(n.text)(a.value)
	default:
		return &exprError{n.off, fmt.Sprintf("unknown function %s (functions: min, max, ceil, floor, log2)", n.text)}
	}
	return nil
}

// unaryFunc returns the function of one argument spelled name.
func unaryFunc(name string) func(float64) float64 {
	switch name {
	case "ceil":
		return math.Ceil
	case "floor":
		return math.Floor
	}
	return math.Log2
}

// ---------------------------------------------------------------------------
// Compilation and evaluation

// opcode is one instruction of a compiled expression.
type opcode uint8

const (
	opConst opcode = iota // push val
	opVar                 // push the variable arg
	opNeg
	opAdd
	opSub
	opMul
	opDiv
	opPow // raise to the integer power arg
	opMin // combine the top arg values
	opMax
	opCeil
	opFloor
	opLog2
)

type instr struct {
	op  opcode
	arg int
	val float64
}

// maxStack bounds the values an expression keeps pending during evaluation;
// evaluation uses a fixed array of this size so that it never allocates.
const maxStack = 32

// program is a compiled expression in postfix form.
type program struct {
	code []instr
}

// compile turns a checked tree into a program; constant subtrees become one
// opConst. It fails only when the expression needs more than maxStack slots.
func compile(n *exprNode) (program, error) {
	var p program
	depth := p.emit(n, 0)
	if depth > maxStack {
		return program{}, &exprError{n.off, fmt.Sprintf("expression needs more than %d pending values; split it into parameters", maxStack)}
	}
	return p, nil
}

// emit appends the code of n to p, given depth values already pending, and
// returns the greatest stack depth reached.
func (p *program) emit(n *exprNode, depth int) int {
	if n.konst {
		p.code = append(p.code, instr{op: opConst, val: n.value})
		return depth + 1
	}
	if n.kind == nameNode {
		p.code = append(p.code, instr{op: opVar, arg: int(n.varID)})
		return depth + 1
	}
	most := depth
	for i, a := range n.args {
		most = max(most, p.emit(a, depth+i))
	}
	in := instr{arg: len(n.args)}
	switch n.kind {
	case unaryNode:
		in.op = opNeg
	case powerNode:
		in.op, in.arg = opPow, n.power
	case binaryNode:
		in.op = binaryOpcode(n.op)
	case callNode:
		in.op = callOpcode(n.text)
	}
	p.code = append(p.code, in)
	return most
}

// binaryOpcode is the instruction of a binary operator.
func binaryOpcode(op byte) opcode {
	switch op {
	case '+':
		return opAdd
	case '-':
		return opSub
	case '*':
		return opMul
	}
	return opDiv
}

// callOpcode is the instruction of a built-in function.
func callOpcode(name string) opcode {
	switch name {
	case "min":
		return opMin
	case "max":
		return opMax
	case "ceil":
		return opCeil
	case "floor":
		return opFloor
	}
	return opLog2
}

// eval runs the program. The stack is a fixed array on the Go stack, so an
// evaluation does not allocate.
func (p *program) eval(v *Vars) float64 {
	if len(p.code) == 1 && p.code[0].op == opConst {
		return p.code[0].val
	}
	var stack [maxStack]float64
	sp := 0
	for _, in := range p.code {
		switch in.op {
		case opConst:
			stack[sp] = in.val
			sp++
		case opVar:
			stack[sp] = v.get(varID(in.arg))
			sp++
		case opNeg:
			stack[sp-1] = -stack[sp-1]
		case opAdd:
			sp--
			stack[sp-1] += stack[sp]
		case opSub:
			sp--
			stack[sp-1] -= stack[sp]
		case opMul:
			sp--
			stack[sp-1] *= stack[sp]
		case opDiv:
			sp--
			stack[sp-1] /= stack[sp]
		case opPow:
			stack[sp-1] = math.Pow(stack[sp-1], float64(in.arg))
		case opMin, opMax:
			r := stack[sp-in.arg]
			for _, x := range stack[sp-in.arg+1 : sp] {
				if in.op == opMin {
					r = math.Min(r, x)
				} else {
					r = math.Max(r, x)
				}
			}
			sp -= in.arg - 1
			stack[sp-1] = r
		case opCeil:
			stack[sp-1] = math.Ceil(stack[sp-1])
		case opFloor:
			stack[sp-1] = math.Floor(stack[sp-1])
		case opLog2:
			stack[sp-1] = math.Log2(stack[sp-1])
		}
	}
	return stack[0]
}

// ---------------------------------------------------------------------------
// Measured tables

// measured is a measured cost: a table over one variable or a grid over
// two. The variables come by value: a pointer through an interface would
// make every Cost.Eval allocate.
type measured interface {
	eval(v Vars) float64
}

// table is a measured cost: points (x, y) over one variable, interpolated
// piecewise linearly. The segment is chosen by x (never by the smallest y);
// below the first point and above the last the end segments are extended
// linearly, so a table of two points is the straight line through them. A
// table of one point (a row of a grid) is constant.
type table struct {
	x      varID
	xs, ys []float64 // SI units; xs strictly increasing
}

// eval interpolates the table at the variable's value.
func (t *table) eval(v Vars) float64 {
	if len(t.xs) == 1 {
		return t.ys[0]
	}
	i, w := segment(t.xs, v.get(t.x))
	return t.ys[i-1] + w*(t.ys[i]-t.ys[i-1])
}

// segment finds where x falls among the increasing xs (two or more): the
// value there is y[i-1] + w·(y[i] − y[i-1]), the segment chosen by x and the
// end segments extended (w below 0 or above 1).
func segment(xs []float64, x float64) (i int, w float64) {
	i, _ = slices.BinarySearch(xs, x) // first point with xs[i] >= x
	i = min(max(i, 1), len(xs)-1)     // the segment [i-1, i], end segments extended
	return i, (x - xs[i-1]) / (xs[i] - xs[i-1])
}

// grid is a measured cost over two variables: a table over x for each
// measured value of by (its rows), interpolated linearly in by between the
// two rows around it and extended beyond the first and last rows as a table
// extends its end segments, except that beyond the last row it never falls
// below that row. A collective measured over bytes on 2, 4 and 8
// ranks is one: no formula over bytes and P may fit it, and a table over
// bytes alone would price every rank count as the one it was measured on.
type grid struct {
	by   varID
	at   []float64 // the rows' values of by, strictly increasing, at least two
	rows []table
}

// eval interpolates between the rows around by's value.
func (g *grid) eval(v Vars) float64 {
	i, w := segment(g.at, v.get(g.by))
	switch w {
	case 0: // on a row: the other may extend its end segment below zero
		return g.rows[i-1].eval(v)
	case 1:
		return g.rows[i].eval(v)
	}
	y0, y1 := g.rows[i-1].eval(v), g.rows[i].eval(v)
	if w > 1 {
		// Beyond the last row, never below it: its rows, each extended
		// over x with its own end segment, may cross there (2 ranks
		// measured to 32 MiB, 8 to 2 MiB), and a line through crossed
		// rows would fall below zero at many ranks.
		return max(y1, y0+w*(y1-y0))
	}
	return y0 + w*(y1-y0)
}

// ---------------------------------------------------------------------------
// Cost

// Cost is a cost entry of a machine table: an expression over run-time
// variables and parameters, or a measured table. Parameters are folded in
// when the machine is loaded (and again after an override), so evaluating a
// Cost reads only its variables and never allocates.
type Cost struct {
	text   string // as written; for a table, a summary
	dim    Dim
	prog   program
	table  measured // nil for an expression
	source string
	// key, where and vars name the entry for errors at pricing time (Check):
	// its key ('time'), file:line:col in the table, and the variables it
	// may read.
	key   string
	where string
	vars  varSet
}

// Eval evaluates the cost for the given variables, in SI units of Dim
// (seconds for a time).
func (c *Cost) Eval(v Vars) float64 {
	if c.table != nil {
		return c.table.eval(v)
	}
	return c.prog.eval(&v)
}

// Dim is the dimension of the cost's value.
func (c *Cost) Dim() Dim { return c.dim }

// String is the expression as written in the table.
func (c *Cost) String() string { return c.text }

// Source is the provenance of the entry.
func (c *Cost) Source() string { return c.source }

// IsConstant reports whether the cost reads no variable.
func (c *Cost) IsConstant() bool {
	return c.table == nil && len(c.prog.code) == 1 && c.prog.code[0].op == opConst
}

// compileExpr parses, checks and compiles an expression. It returns the
// checked tree and the names of the parameters the expression reads.
func compileExpr(text string, sc *exprScope) (*Cost, *exprNode, []string, error) {
	tree, err := parseExpr(text)
	if err != nil {
		return nil, nil, nil, err
	}
	used := map[string]bool{}
	if err := check(tree, sc, used); err != nil {
		return nil, nil, nil, err
	}
	prog, err := compile(tree)
	if err != nil {
		return nil, nil, nil, err
	}
	names := make([]string, 0, len(used))
	for name := range used {
		names = append(names, name)
	}
	slices.Sort(names)
	return &Cost{text: strings.TrimSpace(text), dim: tree.dim, prog: prog}, tree, names, nil
}
