package lang

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// The JSON dump behind `perfc parse -o json`: the tree as nested objects
// whose keys keep a fixed, readable order (node, pos, the fields in AST
// order, then annotations sorted by key), which encoding/json cannot do
// with maps. The schema is documented in docs/ast-json.md.

// Annotate returns extra fields for a node of the JSON dump, such as the
// "type" and "value" a checker computed; nil or an empty map adds nothing.
// A key may not repeat one of the node's own fields.
type Annotate func(Node) map[string]any

// EncodeJSON writes the tree rooted at n (a *File, a *Kernel or any other
// node) to w as indented JSON ending in a newline. Positions are resolved
// through src, or through the File's Source when n is a *File and src is
// nil. annotate may be nil.
func EncodeJSON(w io.Writer, src *Source, n Node, annotate Annotate) error {
	compact, err := JSONTree(src, n, annotate)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, compact, "", "  "); err != nil {
		return fmt.Errorf("lang: indenting the JSON dump: %w", err)
	}
	out.WriteByte('\n')
	_, err = w.Write(out.Bytes())
	return err
}

// JSONTree returns the tree rooted at n as compact JSON, to be embedded in
// a larger document (for instance as a json.RawMessage field).
func JSONTree(src *Source, n Node, annotate Annotate) (json.RawMessage, error) {
	if f, ok := n.(*File); ok && src == nil && f != nil {
		src = f.Source
	}
	b := &jsonBuilder{src: src, annotate: annotate}
	tree := b.node(n)
	if b.err != nil {
		return nil, b.err
	}
	var out bytes.Buffer
	if err := jsonWrite(&out, tree); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// jsonObject is a JSON object that keeps its keys in insertion order.
type jsonObject struct {
	keys   []string
	values []any
}

// set appends a field; a nil value (an absent optional child) is left out.
func (o *jsonObject) set(key string, value any) {
	if value == nil {
		return
	}
	if obj, ok := value.(*jsonObject); ok && obj == nil {
		return
	}
	o.keys = append(o.keys, key)
	o.values = append(o.values, value)
}

// has reports whether the object already holds key.
func (o *jsonObject) has(key string) bool { return slices.Contains(o.keys, key) }

// jsonBuilder turns AST nodes into jsonObjects and remembers the first
// problem: a nil node where the grammar needs one, or a bad annotation.
type jsonBuilder struct {
	src      *Source
	annotate Annotate
	err      error
}

// fail records the first problem found.
func (b *jsonBuilder) fail(format string, args ...any) {
	if b.err == nil {
		b.err = fmt.Errorf("lang: JSON dump: "+format, args...)
	}
}

// pos formats a position as file:line:col, or "-" when it is unknown.
func (b *jsonBuilder) pos(p Pos) string {
	if !p.IsValid() || b.src == nil {
		return "-"
	}
	return b.src.Position(p).String()
}

// object starts the object of node n: its kind and position.
func (b *jsonBuilder) object(kind string, n Node) *jsonObject {
	o := &jsonObject{}
	o.set("node", kind)
	o.set("pos", b.pos(n.Pos()))
	return o
}

// finish appends the annotations of n, sorted by key, to its object.
func (b *jsonBuilder) finish(o *jsonObject, n Node) *jsonObject {
	if b.annotate == nil {
		return o
	}
	extra := b.annotate(n)
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if o.has(k) {
			b.fail("annotation %q of the %s at %s repeats one of its fields", k, o.values[0], o.values[1])
			continue
		}
		o.keys = append(o.keys, k)
		o.values = append(o.values, extra[k])
	}
	return o
}

// node returns the object of any node; nil for a nil node.
func (b *jsonBuilder) node(n Node) *jsonObject {
	switch n := n.(type) {
	case nil:
		return nil
	case *File:
		return b.file(n)
	case *Comment:
		o := b.object("Comment", n)
		o.set("text", n.Text)
		return b.finish(o, n)
	case *Kernel:
		return b.kernel(n)
	case *Param:
		return b.param(n)
	case *RankSpec:
		o := b.object("RankSpec", n)
		o.set("grid", n.Grid)
		o.set("params", jsonList(n.Params, b.param))
		return b.finish(o, n)
	case *ArraySpec:
		return b.arraySpec(n)
	case *Payload:
		return b.payload(n)
	case Stmt:
		return b.stmt(n)
	case Expr:
		return b.expr(n)
	}
	b.fail("unknown node type %T", n)
	return nil
}

// file returns the object of a File: its name, kernels and comments.
func (b *jsonBuilder) file(f *File) *jsonObject {
	if f == nil {
		return nil
	}
	o := b.object("File", f)
	if f.Source != nil {
		o.set("name", f.Source.Name)
	}
	o.set("kernels", jsonList(f.Kernels, b.kernel))
	o.set("comments", jsonList(f.Comments, func(c *Comment) *jsonObject { return b.node(c) }))
	return b.finish(o, f)
}

// kernel returns the object of a Kernel.
func (b *jsonBuilder) kernel(k *Kernel) *jsonObject {
	if k == nil {
		b.fail("nil *Kernel")
		return nil
	}
	o := b.object("Kernel", k)
	o.set("name", b.name(k.Name))
	o.set("params", jsonList(k.Params, b.param))
	if k.Ranks != nil {
		o.set("ranks", b.node(k.Ranks))
	}
	o.set("body", b.block(k.Body))
	return b.finish(o, k)
}

// param returns the object of a Param.
func (b *jsonBuilder) param(p *Param) *jsonObject {
	if p == nil || p.Name == nil {
		b.fail("nil *Param or parameter name")
		return nil
	}
	o := b.object("Param", p)
	o.set("name", p.Name.Name)
	o.set("default", b.required(p.Default, "parameter default"))
	return b.finish(o, p)
}

// name returns a declared or referenced name as a plain string.
func (b *jsonBuilder) name(id *Ident) any {
	if id == nil {
		b.fail("nil *Ident")
		return nil
	}
	return id.Name
}

// required returns the object of an expression the grammar requires.
func (b *jsonBuilder) required(e Expr, what string) *jsonObject {
	if e == nil {
		b.fail("missing %s", what)
		return nil
	}
	return b.expr(e)
}

// optional returns the object of an expression that may be absent.
func (b *jsonBuilder) optional(e Expr) *jsonObject {
	if e == nil {
		return nil
	}
	return b.expr(e)
}

// exprs returns the objects of a list of expressions, [] for none.
func (b *jsonBuilder) exprs(xs []Expr) []any {
	return jsonList(xs, func(x Expr) *jsonObject { return b.required(x, "expression in a list") })
}

// jsonList maps the elements of a slice to their objects; never nil, so
// an empty list prints as [].
func jsonList[T, R any](xs []T, f func(T) R) []any {
	out := make([]any, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

// ---------------------------------------------------------------------------
// Statements

// block returns the object of a Block.
func (b *jsonBuilder) block(bl *Block) *jsonObject {
	if bl == nil {
		b.fail("nil *Block")
		return nil
	}
	o := b.object("Block", bl)
	o.set("stmts", jsonList(bl.Stmts, b.stmt))
	return b.finish(o, bl)
}

// stmt returns the object of a statement; the kind is the Go type name
// without its Stmt suffix.
func (b *jsonBuilder) stmt(s Stmt) *jsonObject {
	var o *jsonObject
	switch s := s.(type) {
	case nil:
		b.fail("nil Stmt")
		return nil
	case *Block:
		return b.block(s)
	case *LetStmt:
		o = b.object("Let", s)
		o.set("name", b.name(s.Name))
		o.set("value", b.required(s.Value, "let value"))
	case *ArrayDecl:
		o = b.object("ArrayDecl", s)
		o.set("arrays", jsonList(s.Arrays, b.arraySpec))
		o.set("elem", b.elem(s.Elem))
	case *VarDecl:
		o = b.object("VarDecl", s)
		o.set("names", jsonList(s.Names, func(id *Ident) any { return b.name(id) }))
		o.set("elem", b.elem(s.Elem))
		o.set("init", b.optional(s.Init))
	case *ForStmt:
		o = b.object("For", s)
		o.set("var", b.name(s.Var))
		o.set("lo", b.required(s.Lo, "loop start"))
		o.set("hi", b.required(s.Hi, "loop end"))
		o.set("step", b.optional(s.Step))
		o.set("body", b.block(s.Body))
	case *RepeatStmt:
		o = b.object("Repeat", s)
		o.set("count", b.required(s.Count, "repeat count"))
		o.set("body", b.block(s.Body))
	case *AssignStmt:
		o = b.object("Assign", s)
		o.set("op", jsonEnumName(assignOpNames[:], s.Op))
		o.set("lhs", b.required(s.Lhs, "assignment target"))
		o.set("rhs", b.required(s.Rhs, "assigned value"))
	case *IfStmt:
		o = b.ifStmt(s)
	case *RegionStmt:
		o = b.object("Region", s)
		o.set("name", s.Name)
		o.set("body", b.block(s.Body))
	case *CommStmt:
		o = b.comm(s)
	case *WaitStmt:
		o = b.wait(s)
	default:
		b.fail("unknown statement type %T", s)
		return nil
	}
	return b.finish(o, s)
}

// ifStmt returns the fields of an IfStmt; else is a Block or an If.
func (b *jsonBuilder) ifStmt(s *IfStmt) *jsonObject {
	o := b.object("If", s)
	o.set("cond", b.required(s.Cond, "condition"))
	o.set("prob", b.optional(s.Prob))
	o.set("then", b.block(s.Then))
	if s.Else != nil {
		o.set("else", b.stmt(s.Else))
	}
	return o
}

// comm returns the fields of a CommStmt; the kind ("send", "allreduce",
// …) is a field, and only the operands the kind has are present.
func (b *jsonBuilder) comm(s *CommStmt) *jsonObject {
	o := b.object("Comm", s)
	o.set("kind", jsonEnumName(commNames[:], s.Kind))
	if s.Op != NoReduce {
		o.set("op", jsonEnumName(reduceNames[:], s.Op))
	}
	if s.Payload != nil {
		o.set("payload", b.payload(s.Payload))
	}
	o.set("peer", b.optional(s.Peer))
	o.set("from", b.optional(s.From))
	if s.Into != nil {
		o.set("into", b.payload(s.Into))
	}
	if s.Req != nil {
		o.set("req", b.name(s.Req))
	}
	return o
}

// arraySpec returns the object of one `name[d1][d2]…`.
func (b *jsonBuilder) arraySpec(a *ArraySpec) *jsonObject {
	if a == nil {
		b.fail("nil *ArraySpec")
		return nil
	}
	o := b.object("ArraySpec", a)
	o.set("name", b.name(a.Name))
	o.set("dims", b.exprs(a.Dims))
	return b.finish(o, a)
}

// payload returns the object of a Payload: either "bytes", or "name",
// "index" and the optional "lo" and "hi" of a range.
func (b *jsonBuilder) payload(p *Payload) *jsonObject {
	if p == nil {
		b.fail("nil *Payload")
		return nil
	}
	o := b.object("Payload", p)
	if p.Bytes != nil {
		o.set("bytes", b.expr(p.Bytes))
		return b.finish(o, p)
	}
	o.set("name", b.name(p.Name))
	o.set("index", b.exprs(p.Index))
	o.set("lo", b.optional(p.Lo))
	o.set("hi", b.optional(p.Hi))
	return b.finish(o, p)
}

// elem returns the name of an element type.
func (b *jsonBuilder) elem(t ElemType) any {
	if t == NoElem {
		b.fail("missing element type")
		return nil
	}
	return jsonEnumName(elemNames[:], t)
}

// jsonEnumName returns names[v], or a number in brackets for a value out
// of range, so that a malformed tree still dumps.
func jsonEnumName[T ~uint8](names []string, v T) string {
	if int(v) < len(names) {
		return names[v]
	}
	return fmt.Sprintf("<%d>", v)
}

// ---------------------------------------------------------------------------
// Expressions

// expr returns the object of an expression; the kind is the Go type name
// without its Expr suffix.
func (b *jsonBuilder) expr(e Expr) *jsonObject {
	var o *jsonObject
	switch e := e.(type) {
	case nil:
		b.fail("nil Expr")
		return nil
	case *Ident:
		o = b.object("Ident", e)
		o.set("name", e.Name)
	case *IntLit:
		o = b.object("IntLit", e)
		o.set("text", e.Text)
	case *FloatLit:
		o = b.object("FloatLit", e)
		o.set("text", e.Text)
	case *NoneLit:
		o = b.object("NoneLit", e)
	case *DirExpr:
		o = b.object("Dir", e)
		o.set("dir", jsonEnumName(dirNames[:], e.Dir))
	case *BinaryExpr:
		o = b.object("Binary", e)
		o.set("op", jsonEnumName(binaryNames[:], e.Op))
		o.set("x", b.required(e.X, "left operand"))
		o.set("y", b.required(e.Y, "right operand"))
	case *UnaryExpr:
		o = b.object("Unary", e)
		o.set("op", e.Op.String())
		o.set("x", b.required(e.X, "operand"))
	case *CondExpr:
		o = b.object("Cond", e)
		o.set("cond", b.required(e.Cond, "condition"))
		o.set("then", b.required(e.Then, "then value"))
		o.set("else", b.required(e.Else, "else value"))
	case *ParenExpr:
		o = b.object("Paren", e)
		o.set("x", b.required(e.X, "parenthesised expression"))
	case *CallExpr:
		o = b.object("Call", e)
		o.set("fun", b.name(e.Fun))
		o.set("args", b.exprs(e.Args))
	case *IndexExpr:
		o = b.object("Index", e)
		o.set("name", b.name(e.Name))
		o.set("index", b.exprs(e.Index))
	default:
		b.fail("unknown expression type %T", e)
		return nil
	}
	return b.finish(o, e)
}

// ---------------------------------------------------------------------------
// Writing

// jsonWrite writes v as compact JSON: jsonObjects with their keys in
// order, lists, and any other value through encoding/json without HTML
// escaping (so that "<=" stays readable).
func jsonWrite(out *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case *jsonObject:
		out.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				out.WriteByte(',')
			}
			if err := jsonWriteValue(out, k); err != nil {
				return err
			}
			out.WriteByte(':')
			if err := jsonWrite(out, v.values[i]); err != nil {
				return err
			}
		}
		out.WriteByte('}')
	case []any:
		out.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				out.WriteByte(',')
			}
			if err := jsonWrite(out, x); err != nil {
				return err
			}
		}
		out.WriteByte(']')
	default:
		return jsonWriteValue(out, v)
	}
	return nil
}

// jsonWriteValue writes a leaf value (or an annotation of any shape)
// with encoding/json.
func jsonWriteValue(out *bytes.Buffer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("lang: JSON dump: %w", err)
	}
	out.WriteString(strings.TrimSuffix(buf.String(), "\n"))
	return nil
}
