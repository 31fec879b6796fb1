package lang

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// The canonical printer behind `perfc fmt`. Like go/printer it prints a
// tree, not tokens: the layout of the input is forgotten except for three
// things that carry meaning for a reader, the spelling of literals, the
// parentheses the author wrote, and the comments with the blank lines that
// group statements.
//
// Layout rules:
//
//   - Two spaces of indentation per block level, one statement per line,
//     `} else {` on one line, a block with nothing in it printed as `{}`.
//   - One blank line between kernels; elsewhere a blank line is kept where
//     the source had one or more, except right after `{` and before `}`.
//   - Spacing in expressions follows gofmt's idea that spaces show
//     structure. Comparisons, `&&`, `||` and `? :` always have spaces. An
//     arithmetic chain (operators of precedence 5, `* / % << >> &`, and 4,
//     `+ - | ^`, not separated by parentheses) is printed with spaces
//     around every operator, except that when it mixes both levels the
//     tighter level loses its spaces: `N / P`, `a + b + c`, `8*n + 1`.
//     The operands of an operator without spaces have none either, even
//     inside parentheses: `1 - 2*(oct%2)`, `(rank + 1) % P`.
//     Inside brackets (indices, array dimensions, slice bounds), in loop
//     ranges and in `SIZE bytes` no arithmetic operator has spaces, since
//     the brackets, `..` and the keyword already delimit the operand:
//     `A[i*S+1]`, `x[0:N+1]`, `for k in j..N+1`, `8*n bytes`.
//   - Comments are kept in order. A comment that follows code on its line
//     stays at the end of the printed line holding that code; a comment on
//     a line of its own is printed on a line of its own, indented like the
//     statement or `}` that follows it. A comment after one that spans
//     lines starts a line of its own.
//
// The printer never adds or drops parentheses that are in the tree. When a
// hand-built tree nests an operator inside a tighter one without a
// ParenExpr, the printer writes the parentheses the text needs to mean
// the same tree.

// Fprint writes the canonical form of f to w. It reports the first node
// the printer could not print (a nil expression where the grammar needs
// one, an unknown node type), or the error of w.
func Fprint(w io.Writer, f *File) error {
	out, err := printFile(f)
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}

// Format returns the canonical form of f. It is Fprint for callers that
// hold a tree from the parser, which always prints; a part of a malformed
// hand-built tree is printed as `<invalid: why>` (use Fprint to get the
// error instead).
func Format(f *File) []byte {
	out, _ := printFile(f)
	return out
}

// printFile runs a printer over f and returns the text and the first
// problem found in the tree.
func printFile(f *File) ([]byte, error) {
	if f == nil {
		return nil, errors.New("lang: cannot print a nil *File")
	}
	// Without a Source, positions cannot be related to lines, so every
	// comment goes on a line of its own and no blank line is kept.
	p := &printer{src: f.Source, comments: f.Comments, lastEnd: printNoOffset, blank: printBlankNever}
	p.file(f)
	return p.out.Bytes(), p.err
}

// printBlank says whether a blank line goes before the next line that
// starts an item (a statement, a kernel or a comment on a line of its own).
type printBlank uint8

const (
	printBlankNever    printBlank = iota // after `{` and at the top of the file
	printBlankAsSource                   // where the source has a blank line
	printBlankAlways                     // between kernels
)

// printNoOffset stands for a position a hand-built tree did not set.
const printNoOffset = -1

// printer holds the state of one Fprint call: the output, the line being
// built, and the comments not yet printed.
type printer struct {
	src      *Source
	comments []*Comment
	next     int // index of the first comment not yet printed

	out        bytes.Buffer
	line       []byte // the current output line, without indentation
	lineIndent int    // indentation of the current line, fixed when it starts
	lineClosed bool   // the current line ends in a // comment: nothing may follow
	indent     int    // indentation for the next line

	lastEnd int        // source offset just after the last item printed
	blank   printBlank // rule for the next item's leading blank line

	err error // first problem with the tree
}

// ---------------------------------------------------------------------------
// Output

// text appends s to the current line.
func (p *printer) text(s string) {
	if p.lineClosed {
		// Only comments are written at line ends, and they end the line
		// before any code; this keeps code out of a // comment regardless.
		p.endLine()
	}
	if len(p.line) == 0 {
		p.lineIndent = p.indent
	}
	p.line = append(p.line, s...)
}

// endLine writes the current line, if it has anything, with its
// indentation and without trailing blanks.
func (p *printer) endLine() {
	if len(p.line) == 0 {
		return
	}
	p.out.WriteString(strings.Repeat("  ", p.lineIndent))
	p.out.Write(bytes.TrimRight(p.line, " \t"))
	p.out.WriteByte('\n')
	p.line = p.line[:0]
	p.lineClosed = false
}

// startItem ends the current line and writes the blank line the blank
// rule asks for before an item that starts at source offset start.
func (p *printer) startItem(start int) {
	p.endLine()
	switch p.blank {
	case printBlankAlways:
		p.blankLine()
	case printBlankAsSource:
		if p.sourceHasBlankLine(p.lastEnd, start) {
			p.blankLine()
		}
	}
	p.blank = printBlankAsSource
}

// blankLine writes an empty line unless the output is empty or already
// ends in one, so that blank lines never pile up.
func (p *printer) blankLine() {
	b := p.out.Bytes()
	if len(b) == 0 || bytes.HasSuffix(b, []byte("\n\n")) {
		return
	}
	p.out.WriteByte('\n')
}

// advance records that the source up to offset end has been printed.
func (p *printer) advance(end int) {
	p.lastEnd = max(p.lastEnd, end)
}

// invalid records a problem with the tree and prints a marker in its place.
func (p *printer) invalid(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if p.err == nil {
		p.err = errors.New("lang: cannot print " + msg)
	}
	p.text("<invalid: " + msg + ">")
}

// ---------------------------------------------------------------------------
// Comments

// flush prints every comment that starts before source offset before,
// ending the current line. Comments that follow code on their source line
// are appended to the current line until one is printed on a line of its
// own or one spans lines; after that the rest are each on a line of their
// own too, so that their order is kept. A // comment closes its line.
func (p *printer) flush(before int) {
	if before == printNoOffset {
		return
	}
	ownLines := false
	for p.next < len(p.comments) {
		c := p.comments[p.next]
		start := printOffset(c.Slash)
		if start >= before {
			break
		}
		text := printCommentText(c.Text)
		if !ownLines && len(p.line) > 0 && !p.lineClosed && p.followsCode(p.next) {
			p.text(" " + text)
			// A comment that spans lines ends its line inside itself: a
			// comment after it would, read again, start a line of its own
			// (printed so now, the output is a fixed point).
			ownLines = strings.Contains(text, "\n")
		} else {
			ownLines = true
			p.startItem(start)
			p.text(text)
		}
		p.lineClosed = strings.HasPrefix(c.Text, "//")
		if start != printNoOffset {
			p.advance(start + len(c.Text))
		}
		p.next++
	}
	p.endLine()
}

// hasCommentBefore reports whether a comment not yet printed starts before
// source offset before.
func (p *printer) hasCommentBefore(before int) bool {
	return before != printNoOffset && p.next < len(p.comments) &&
		printOffset(p.comments[p.next].Slash) < before
}

// printCommentText returns a comment's text without trailing blanks on
// any of its lines (a CR of a CRLF file included), as gofmt trims them.
func printCommentText(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return strings.Join(lines, "\n")
}

// followsCode reports whether something other than blanks and comments
// precedes comment i on its source line: then it is a trailing comment of
// that code.
func (p *printer) followsCode(i int) bool {
	start := printOffset(p.comments[i].Slash)
	if p.src == nil || start == printNoOffset || start > len(p.src.Text) {
		return false
	}
	text := p.src.Text
	lineStart := bytes.LastIndexByte(text[:start], '\n') + 1
	for off := lineStart; off < start; off++ {
		if text[off] == ' ' || text[off] == '\t' || text[off] == '\r' || p.inComment(i, off) {
			continue
		}
		return true
	}
	return false
}

// inComment reports whether source offset off lies inside one of the
// comments before comment i.
func (p *printer) inComment(i, off int) bool {
	for j := i - 1; j >= 0; j-- {
		start := printOffset(p.comments[j].Slash)
		if start == printNoOffset {
			continue
		}
		if off >= start && off < start+len(p.comments[j].Text) {
			return true
		}
		if start+len(p.comments[j].Text) <= off {
			// Comments are in source order and do not overlap, so no
			// earlier comment reaches off either.
			return false
		}
	}
	return false
}

// sourceHasBlankLine reports whether the source between offsets from and
// to holds a line with nothing but blanks on it.
func (p *printer) sourceHasBlankLine(from, to int) bool {
	if p.src == nil || from == printNoOffset || to == printNoOffset || from >= to || to > len(p.src.Text) {
		return false
	}
	// The first piece ends the line of the earlier item and the last one
	// starts the line of the later item; the pieces between are whole lines.
	pieces := bytes.Split(p.src.Text[from:to], []byte("\n"))
	for i := 1; i < len(pieces)-1; i++ {
		if len(bytes.TrimSpace(pieces[i])) == 0 {
			return true
		}
	}
	return false
}

// printOffset returns the byte offset of pos, or printNoOffset.
func printOffset(pos Pos) int {
	if !pos.IsValid() {
		return printNoOffset
	}
	return pos.Offset()
}

// ---------------------------------------------------------------------------
// Declarations

// file prints the kernels and procs of f in source order with one blank
// line between them, and the comments before, between and after them.
func (p *printer) file(f *File) {
	for i, item := range printFileItems(f) {
		if item == nil {
			p.invalid("nil *Kernel or *Proc")
			continue
		}
		if i > 0 {
			p.blank = printBlankAlways
		}
		p.flush(printOffset(item.Pos()))
		p.startItem(printOffset(item.Pos()))
		switch item := item.(type) {
		case *Kernel:
			p.kernel(item)
		case *Proc:
			p.proc(item)
		}
	}
	p.flush(math.MaxInt)
	p.endLine()
}

// kernel prints `kernel name(params) [on …] { body }`.
func (p *printer) kernel(k *Kernel) {
	p.text("kernel ")
	p.ident(k.Name)
	p.text("(")
	p.params(k.Params)
	p.text(")")
	if r := k.Ranks; r != nil {
		if r.Grid {
			p.text(" on grid(")
			p.params(r.Params)
			p.text(")")
		} else {
			p.text(" on ")
			p.params(r.Params)
			p.text(" ranks")
		}
	}
	p.text(" ")
	p.block(k.Body)
	p.advance(printEnd(k.Body))
}

// params prints `a = 1, b = 2`, dropping a trailing comma of the source.
func (p *printer) params(params []*Param) {
	for i, prm := range params {
		if i > 0 {
			p.text(", ")
		}
		if prm == nil {
			p.invalid("nil *Param")
			continue
		}
		p.ident(prm.Name)
		p.text(" = ")
		p.expr(prm.Default, false)
	}
}

// ident prints a name.
func (p *printer) ident(id *Ident) {
	if id == nil {
		p.invalid("nil *Ident")
		return
	}
	p.text(id.Name)
}

// ---------------------------------------------------------------------------
// Statements

// block prints `{`, the statements one per line with the comments between
// them, and `}`. An empty block without comments is `{}`.
func (p *printer) block(b *Block) {
	if b == nil {
		p.invalid("nil *Block")
		return
	}
	p.text("{")
	p.advance(printOffset(b.Lbrace) + 1)
	rbrace := printOffset(b.Rbrace)
	if len(b.Stmts) == 0 && !p.hasCommentBefore(rbrace) {
		p.text("}")
		p.advance(rbrace + 1)
		return
	}
	p.indent++
	p.blank = printBlankNever
	for _, s := range b.Stmts {
		if s == nil {
			p.endLine()
			p.invalid("nil Stmt")
			continue
		}
		start := printOffset(s.Pos())
		p.flush(start)
		p.startItem(start)
		p.stmt(s)
		p.advance(printEnd(s))
	}
	p.flush(rbrace)
	p.indent--
	p.endLine()
	p.text("}")
	p.advance(rbrace + 1)
}

// stmt prints one statement on the current line (its blocks span more).
func (p *printer) stmt(s Stmt) {
	switch s := s.(type) {
	case *LetStmt:
		p.text("let ")
		p.ident(s.Name)
		p.text(" = ")
		p.expr(s.Value, false)
	case *ArrayDecl:
		p.arrayDecl(s)
	case *VarDecl:
		p.varDecl(s)
	case *ForStmt:
		p.forStmt(s)
	case *RepeatStmt:
		p.text("repeat ")
		p.expr(s.Count, false)
		p.text(" ")
		p.block(s.Body)
	case *AssignStmt:
		p.assign(s)
	case *IfStmt:
		p.ifStmt(s)
	case *RegionStmt:
		p.text("region " + printQuote(s.Name) + " ")
		p.block(s.Body)
	case *CommStmt:
		p.comm(s)
	case *WaitStmt:
		p.wait(s)
	case *WorkStmt:
		p.work(s)
	case *ProcCallStmt:
		p.procCall(s)
	case *Block:
		p.block(s)
	default:
		p.invalid("statement of type %T", s)
	}
}

// assign prints `lhs op rhs`.
func (p *printer) assign(s *AssignStmt) {
	p.expr(s.Lhs, false)
	if int(s.Op) >= len(assignOpNames) {
		p.text(" ")
		p.invalid("assignment operator %d", s.Op)
		p.text(" ")
	} else {
		p.text(" " + s.Op.String() + " ")
	}
	p.expr(s.Rhs, false)
}

// arrayDecl prints `array a[N], b[N][M]: f64`.
func (p *printer) arrayDecl(s *ArrayDecl) {
	p.text("array ")
	for i, a := range s.Arrays {
		if i > 0 {
			p.text(", ")
		}
		if a == nil {
			p.invalid("nil *ArraySpec")
			continue
		}
		p.ident(a.Name)
		p.indices(a.Dims)
	}
	p.text(": ")
	p.elemType(s.Elem)
}

// varDecl prints `var s, t: f64 = init`.
func (p *printer) varDecl(s *VarDecl) {
	p.text("var ")
	for i, id := range s.Names {
		if i > 0 {
			p.text(", ")
		}
		p.ident(id)
	}
	p.text(": ")
	p.elemType(s.Elem)
	if s.Init != nil {
		p.text(" = ")
		p.expr(s.Init, false)
	}
}

// elemType prints f64 f32 i64 or i32.
func (p *printer) elemType(t ElemType) {
	if t == NoElem || int(t) >= len(elemNames) {
		p.invalid("element type %d", t)
		return
	}
	p.text(t.String())
}

// forStmt prints `for i in lo..hi [step s] { body }`; the bounds are
// compact, since `..` binds them visually.
func (p *printer) forStmt(s *ForStmt) {
	p.text("for ")
	p.ident(s.Var)
	p.text(" in ")
	p.expr(s.Lo, true)
	p.text("..")
	p.expr(s.Hi, true)
	if s.Step != nil {
		p.text(" step ")
		p.expr(s.Step, false)
	}
	p.text(" ")
	p.block(s.Body)
}

// ifStmt prints `if cond [prob p] { … } [else …]`, an else-if chain on
// the lines of its closing braces.
func (p *printer) ifStmt(s *IfStmt) {
	p.text("if ")
	p.expr(s.Cond, false)
	if s.Prob != nil {
		p.text(" prob ")
		p.expr(s.Prob, false)
	}
	p.text(" ")
	p.block(s.Then)
	switch e := s.Else.(type) {
	case nil:
	case *IfStmt:
		p.text(" else ")
		p.ifStmt(e)
	case *Block:
		p.text(" else ")
		p.block(e)
	default:
		p.invalid("else branch of type %T", e)
	}
}

// comm prints a communication statement: the verb, the reduction
// operator, the payload and the peers with their keywords.
func (p *printer) comm(s *CommStmt) {
	if int(s.Kind) >= len(commNames) {
		p.invalid("communication kind %d", s.Kind)
		return
	}
	p.text(s.Kind.String())
	if s.Kind == Reduce || s.Kind == Allreduce || s.Kind == Scan {
		if s.Op == NoReduce || int(s.Op) >= len(reduceNames) {
			p.invalid("reduction operator %d", s.Op)
		} else {
			p.text(" " + s.Op.String())
		}
	}
	if s.Kind == Barrier {
		return
	}
	p.text(" ")
	p.payload(s.Payload)
	switch s.Kind {
	case Send, Reduce, Gather:
		p.text(" to ")
		p.expr(s.Peer, false)
	case Recv, Bcast, Scatter:
		p.text(" from ")
		p.expr(s.Peer, false)
	case Exchange:
		p.text(" with ")
		p.expr(s.Peer, false)
	case SendRecv:
		p.text(" to ")
		p.expr(s.Peer, false)
		p.text(" from ")
		p.expr(s.From, false)
		if s.Into != nil {
			p.text(" into ")
			p.payload(s.Into)
		}
	case ISend, IRecv:
		p.post(s)
	case Allreduce, Allgather, Alltoall, Scan:
		// No peer.
	default:
		p.invalid("%s", UnhandledComm("lang: print", s.Kind))
	}
}

// payload prints `SIZE bytes` or `name[i][lo:hi:step]…`, all compact.
func (p *printer) payload(pl *Payload) {
	if pl == nil {
		p.invalid("nil *Payload")
		return
	}
	if pl.Bytes != nil {
		p.expr(pl.Bytes, true)
		p.text(" bytes")
		return
	}
	p.ident(pl.Name)
	for _, sub := range pl.Subs {
		p.subscript(sub)
	}
}

// subscript prints one bracket of a payload: `[i]`, `[lo:hi]` or
// `[lo:hi:step]`, compact.
func (p *printer) subscript(s *Subscript) {
	if s == nil {
		p.invalid("nil *Subscript")
		return
	}
	p.text("[")
	if !s.IsRange() {
		p.expr(s.Index, true)
		p.text("]")
		return
	}
	p.expr(s.Lo, true)
	p.text(":")
	p.expr(s.Hi, true)
	if s.Step != nil {
		p.text(":")
		p.expr(s.Step, true)
	}
	p.text("]")
}

// indices prints `[x][y]…` with compact expressions.
func (p *printer) indices(xs []Expr) {
	for _, x := range xs {
		p.text("[")
		p.expr(x, true)
		p.text("]")
	}
}

// QuoteString returns s as a string literal of the language: in double
// quotes, with `"` and `\` escaped, the only escapes the lexer knows.
func printQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// ---------------------------------------------------------------------------
// Expressions

// Precedence levels of the operators that are not BinaryOps, and the
// boundary between arithmetic and the rest.
const (
	printPrecCond     = 0 // c ? a : b
	printPrecArith    = 4 // + - | ^ and, above, * / % << >> &
	printPrecTight    = 5 // the tighter arithmetic level
	printPrecUnary    = 6 // -x !x
	printNoTightLevel = 7 // no arithmetic level is tight
)

// expr prints e as a whole expression. Compact removes the spaces around
// arithmetic operators (inside brackets, ranges and byte sizes).
func (p *printer) expr(e Expr, compact bool) {
	if e == nil {
		p.invalid("nil Expr")
		return
	}
	switch e := e.(type) {
	case *Ident:
		p.ident(e)
	case *IntLit:
		p.text(e.Text)
	case *FloatLit:
		p.text(e.Text)
	case *NoneLit:
		p.text("none")
	case *DirExpr:
		p.dir(e)
	case *ParenExpr:
		p.text("(")
		p.expr(e.X, compact)
		p.text(")")
	case *CallExpr:
		p.call(e, compact)
	case *IndexExpr:
		p.ident(e.Name)
		p.indices(e.Index)
	case *UnaryExpr:
		p.text(e.Op.String())
		p.operand(e.X, printNeedsParens(e.X, printPrecUnary, false), compact)
	case *BinaryExpr:
		p.binary(e, compact, printTightLevel(e, compact))
	case *CondExpr:
		p.operand(e.Cond, printNeedsParens(e.Cond, printPrecCond+1, false), compact)
		p.text(" ? ")
		p.expr(e.Then, compact)
		p.text(" : ")
		p.expr(e.Else, compact)
	default:
		p.invalid("expression of type %T", e)
	}
}

// dir prints east, west, north or south.
func (p *printer) dir(d *DirExpr) {
	name := printDirName(d.Dir)
	if name == "" {
		p.invalid("direction %d", d.Dir)
		return
	}
	p.text(name)
}

// printDirName is Direction.String that gives "" for an invalid value
// instead of panicking.
func printDirName(d Direction) string {
	if int(d) >= len(dirNames) {
		return ""
	}
	return dirNames[d]
}

// call prints `name(a, b)`; arguments keep the spacing mode of the caller.
func (p *printer) call(c *CallExpr, compact bool) {
	p.ident(c.Fun)
	p.text("(")
	for i, a := range c.Args {
		if i > 0 {
			p.text(", ")
		}
		p.expr(a, compact)
	}
	p.text(")")
}

// operand prints a sub-expression, in parentheses when the tree needs them
// but has no ParenExpr (a hand-built tree).
func (p *printer) operand(e Expr, parens, compact bool) {
	if parens {
		p.text("(")
		p.expr(e, compact)
		p.text(")")
		return
	}
	p.expr(e, compact)
}

// binary prints `x op y`. Arithmetic operators at or above tight (the
// level computed once for the whole chain) are printed without spaces.
func (p *printer) binary(e *BinaryExpr, compact bool, tight int) {
	if int(e.Op) >= len(binaryNames) {
		p.invalid("binary operator %d", e.Op)
		return
	}
	prec := e.Op.Precedence()
	// `a - -b` keeps its spaces: `a--b` is hard to read.
	_, signedY := e.Y.(*UnaryExpr)
	tightOp := prec >= printPrecArith && prec >= tight && !signedY
	// The operands of a tight operator read as one unit, so nothing in
	// them has spaces either: `2*(oct%2)`, not `2*(oct % 2)`.
	compact = compact || tightOp
	p.binaryOperand(e.X, prec, false, compact, tight)
	if tightOp {
		p.text(e.Op.String())
	} else {
		p.text(" " + e.Op.String() + " ")
	}
	p.binaryOperand(e.Y, prec, true, compact, tight)
}

// binaryOperand prints an operand of an operator of precedence prec. An
// arithmetic operand of an arithmetic operator continues the chain and
// keeps its tight level; anything else starts afresh.
func (p *printer) binaryOperand(x Expr, prec int, right, compact bool, tight int) {
	if printNeedsParens(x, prec, right) {
		p.operand(x, true, compact)
		return
	}
	if b, ok := x.(*BinaryExpr); ok && printInChain(b, prec) {
		p.binary(b, compact, tight)
		return
	}
	p.expr(x, compact)
}

// printInChain reports whether b, an operand of an operator of precedence
// prec printed without parentheses, belongs to the same arithmetic chain.
func printInChain(b *BinaryExpr, prec int) bool {
	return prec >= printPrecArith && b.Op.Precedence() >= printPrecArith
}

// printNeedsParens reports whether x must be parenthesised as an operand
// of an operator of precedence prec (on the right side when right is set):
// a looser operator, an equal one on the right (operators are left
// associative), an equal comparison (comparisons do not chain), or a
// conditional anywhere but at the top.
func printNeedsParens(x Expr, prec int, right bool) bool {
	switch x := x.(type) {
	case *CondExpr:
		return prec > printPrecCond
	case *BinaryExpr:
		xp := x.Op.Precedence()
		return xp < prec || (xp == prec && (right || x.Op.IsComparison()))
	}
	return false
}

// printTightLevel decides the spacing of the arithmetic chain rooted at e:
// in compact mode every arithmetic level is tight; otherwise the tighter
// level is tight when the chain mixes both, and no level when it does not.
func printTightLevel(e *BinaryExpr, compact bool) int {
	if compact {
		return printPrecArith
	}
	if e.Op.Precedence() < printPrecArith {
		return printNoTightLevel
	}
	if loose, tight := printChainLevels(e); loose && tight {
		return printPrecTight
	}
	return printNoTightLevel
}

// printChainLevels reports whether the arithmetic chain rooted at e has
// operators of the looser (+ - | ^) and of the tighter (* / % << >> &)
// level.
func printChainLevels(e *BinaryExpr) (loose, tight bool) {
	prec := e.Op.Precedence()
	loose, tight = prec == printPrecArith, prec == printPrecTight
	for i, x := range []Expr{e.X, e.Y} {
		if b, ok := x.(*BinaryExpr); ok && !printNeedsParens(b, prec, i == 1) && printInChain(b, prec) {
			l, t := printChainLevels(b)
			loose, tight = loose || l, tight || t
		}
	}
	return loose, tight
}

// ---------------------------------------------------------------------------
// Source extents

// printEnd returns the source offset just after node n, or printNoOffset.
// The AST keeps first positions and closing brackets; the end of the rest
// follows from the spelling of their last token.
func printEnd(n Node) int {
	switch n := n.(type) {
	case nil:
		return printNoOffset
	case *Block:
		if n == nil { // a malformed tree, already reported
			return printNoOffset
		}
		return printAfter(n.Rbrace, 1)
	case *Ident:
		return printAfter(n.NamePos, len(n.Name))
	case *IntLit:
		return printAfter(n.LitPos, len(n.Text))
	case *FloatLit:
		return printAfter(n.LitPos, len(n.Text))
	case *NoneLit:
		return printAfter(n.NonePos, len("none"))
	case *DirExpr:
		return printAfter(n.DirPos, len(printDirName(n.Dir)))
	case *ParenExpr:
		return printAfter(n.Rparen, 1)
	case *CallExpr:
		return printAfter(n.Rparen, 1)
	case *IndexExpr:
		return printAfter(n.Rbrack, 1)
	case *UnaryExpr:
		return printEndExpr(n.X)
	case *BinaryExpr:
		return printEndExpr(n.Y)
	case *CondExpr:
		return printEndExpr(n.Else)
	case *Payload:
		if n == nil {
			return printNoOffset
		}
		return printOffset(n.End)
	}
	return printEndStmt(n)
}

// printEndExpr is printEnd for an expression that may be a nil interface.
func printEndExpr(e Expr) int {
	if e == nil {
		return printNoOffset
	}
	return printEnd(e)
}

// printEndStmt returns the source offset just after a statement.
func printEndStmt(n Node) int {
	switch n := n.(type) {
	case *LetStmt:
		return printEndExpr(n.Value)
	case *ArrayDecl:
		return printAfter(n.ElemPos, len("f64")) // every element type has three letters
	case *VarDecl:
		if n.Init != nil {
			return printEnd(n.Init)
		}
		return printAfter(n.ElemPos, len("f64")) // every element type has three letters
	case *ForStmt:
		return printEnd(n.Body)
	case *RepeatStmt:
		return printEnd(n.Body)
	case *RegionStmt:
		return printEnd(n.Body)
	case *AssignStmt:
		return printEndExpr(n.Rhs)
	case *IfStmt:
		if n.Else != nil {
			return printEnd(n.Else)
		}
		return printEnd(n.Then)
	case *CommStmt:
		return printEndComm(n)
	case *WorkStmt:
		return printEndWork(n)
	case *ProcCallStmt:
		return printAfter(n.Rparen, 1)
	}
	return printNoOffset
}

// printEndComm returns the source offset just after a communication
// statement: after its last operand, or after `barrier`.
func printEndComm(s *CommStmt) int {
	switch {
	case s.Into != nil:
		return printEnd(s.Into)
	case s.From != nil:
		return printEnd(s.From)
	case s.Peer != nil:
		return printEnd(s.Peer)
	case s.Payload != nil:
		return printEnd(s.Payload)
	}
	return printAfter(s.KindPos, len("barrier"))
}

// printAfter returns the offset n bytes after pos, or printNoOffset.
func printAfter(pos Pos, n int) int {
	if !pos.IsValid() {
		return printNoOffset
	}
	return pos.Offset() + n
}
