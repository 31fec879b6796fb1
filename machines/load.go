package machines

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"go.yaml.in/yaml/v4"

	"perfc/internal/readlimit"
	"perfc/lang"
)

// Load reads a user's machine table from a YAML file of at most
// readlimit.Max bytes.
func Load(path string) (*Machine, error) {
	data, err := readlimit.File(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse builds a machine from the YAML text of a table. name is the file name
// used in error positions. Every problem of the table is reported at once, as
// an ErrorList of "file:line:col: message" errors. A table over
// readlimit.Max bytes is refused.
func Parse(name string, data []byte) (*Machine, error) {
	if len(data) > readlimit.Max {
		var errs ErrorList
		addError(&errs, name, 0, 0, "the table is %d bytes; perfc reads at most 1 MiB (%d bytes) of a machine table: give it a smaller file", len(data), readlimit.Max)
		return nil, withSource(errs, name, nil)
	}
	return build(name, bytes.Clone(data), nil)
}

// Assignment is one parameter override for a what-if study (-M name=value).
// Value is a constant expression with a unit that may refer to the
// parameters, the overridden one included ("bw=2*bw" doubles the
// bandwidth). Origin is where it was written, the position its errors name
// ("-M bw=2*bw"); when empty it is "-M Name=Value".
type Assignment struct {
	Name, Value string
	Origin      string
}

// origin is where the assignment's errors point.
func (a Assignment) origin() string {
	if a.Origin != "" {
		return a.Origin
	}
	return "-M " + a.Name + "=" + a.Value
}

// parseAssignment splits a command-line override "name=value" into an
// Assignment whose Origin is "-M " followed by s; the error says what the
// form is.
func parseAssignment(s string) (Assignment, *Error) {
	origin := "-M " + s
	name, value, ok := strings.Cut(s, "=")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	if !ok || name == "" || value == "" {
		return Assignment{}, &Error{Pos: lang.Position{Filename: origin}, Msg: "want name=value, such as bw=100MB/s or bw=2*bw"}
	}
	return Assignment{Name: name, Value: value, Origin: origin}, nil
}

// ParseAssignments parses the -M overrides of a command line, each
// "name=value", reporting every malformed one at once.
func ParseAssignments(list []string) ([]Assignment, error) {
	var out []Assignment
	var errs ErrorList
	for _, s := range list {
		a, err := parseAssignment(s)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, a)
	}
	if len(errs) > 0 {
		return nil, &lang.SourceError{List: errs}
	}
	return out, nil
}

// With returns a new machine: m's table with the overrides applied in
// order, after any that m was built with. Two switches are accepted besides
// parameters: compose=sum|max and startup=per_step|per_pattern; any other
// name is a path into the table (override_path.go), whose value replaces
// the table's there. Each value must have its parameter's dimension. m
// itself is never changed, so values already read from it keep their
// numbers and other goroutines may go on reading it.
func (m *Machine) With(overrides ...Assignment) (*Machine, error) {
	all := slices.Concat(m.overrides, overrides)
	return build(m.file, m.data, all)
}

// build decodes a table, applying overrides to its parameters. Its errors
// are a *lang.SourceError over the table's text.
func build(file string, data []byte, overrides []Assignment) (*Machine, error) {
	m, err := decode(file, data, overrides)
	if err != nil {
		return nil, withSource(err, file, data)
	}
	return m, nil
}

// decode is build with the bare errors.
func decode(file string, data []byte, overrides []Assignment) (*Machine, error) {
	root, err := parseYAML(file, data)
	if err != nil {
		return nil, err
	}
	d := &decoder{
		file:      file,
		overrides: overrides,
		applied:   make([]bool, len(overrides)),
		m:         &Machine{file: file, data: data, overrides: overrides},
	}
	done := d.applyPathOverrides(root)
	d.machine(root)
	d.annotateOverrides(done)
	if len(d.errs) > 0 {
		return nil, d.errs
	}
	return d.m, nil
}

// parseYAML parses exactly one YAML document into a node tree, turning the
// YAML library's errors into positioned errors.
func parseYAML(file string, data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Load(data, &doc); err != nil {
		var errs ErrorList
		var one *yaml.LoadError
		var many *yaml.LoadErrors
		switch {
		case errors.As(err, &one):
			addError(&errs, file, one.Mark.Line, one.Mark.Column, "YAML: %s", one.Message)
		case errors.As(err, &many):
			for _, e := range many.Errors {
				addError(&errs, file, e.Mark.Line, e.Mark.Column, "YAML: %s", e.Message)
			}
		default:
			addError(&errs, file, 0, 0, "YAML: %v (a machine table is one YAML document)", err)
		}
		return nil, errs
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if err := checkAliases(file, root); err != nil {
		return nil, err
	}
	return root, nil
}

// maxAliasNodes bounds the nodes that aliases repeat, all uses together.
// The decoder follows an alias at every use, so a few kilobytes of nested
// aliases ("billion laughs") would otherwise make it walk billions of
// nodes; a real table repeats a few hundred at most.
const maxAliasNodes = 100_000

// checkAliases refuses a table whose aliases repeat more than
// maxAliasNodes nodes, naming the alias at which the budget runs out.
func checkAliases(file string, root *yaml.Node) error {
	sizes := map[*yaml.Node]int64{}
	var total int64
	var bad *yaml.Node
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n == nil || bad != nil {
			return
		}
		if n.Kind == yaml.AliasNode {
			total += expandedSize(n.Alias, sizes)
			if total > maxAliasNodes {
				bad = n
			}
			return
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(root)
	if bad == nil {
		return nil
	}
	var errs ErrorList
	addError(&errs, file, bad.Line, bad.Column, "YAML: the alias *%s takes the aliases' repeated nodes over %d (the limit); write the repeated part out, or share numbers through params", bad.Value, maxAliasNodes)
	return errs
}

// expandedSize is the number of nodes n stands for with every alias in it
// expanded, memoized in sizes and capped just above maxAliasNodes so that
// it cannot overflow. An alias to a node being expanded (a cycle) counts
// as over the cap.
func expandedSize(n *yaml.Node, sizes map[*yaml.Node]int64) int64 {
	if n == nil {
		return 0
	}
	if s, ok := sizes[n]; ok {
		if s < 0 {
			return maxAliasNodes + 1 // a cycle
		}
		return s
	}
	if n.Kind == yaml.AliasNode {
		return expandedSize(n.Alias, sizes)
	}
	sizes[n] = -1
	size := int64(1)
	for _, c := range n.Content {
		size = min(size+expandedSize(c, sizes), maxAliasNodes+1)
	}
	sizes[n] = size
	return size
}

// decoder reads a node tree strictly into a Machine, collecting errors.
type decoder struct {
	file      string
	m         *Machine
	errs      ErrorList
	overrides []Assignment
	applied   []bool
}

// errorf reports a problem at a node. Every caller passes the node the
// problem is in; a nil one (a key the table does not have, which the
// callers check first) is reported at the file rather than panicking: two
// cache levels without names once reached the duplicate-name check with
// no name node (FuzzParse).
func (d *decoder) errorf(n *yaml.Node, format string, args ...any) {
	if n == nil {
		addError(&d.errs, d.file, 0, 0, format, args...)
		return
	}
	addError(&d.errs, d.file, n.Line, n.Column, format, args...)
}

// errorInScalar reports an error at a byte offset inside a one-line scalar
// (an expression), counting the opening quote of a quoted scalar.
func (d *decoder) errorInScalar(n *yaml.Node, off int, msg string) {
	col := n.Column
	if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 && !strings.Contains(n.Value, "\n") {
		col += off
		if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
			col++
		}
	}
	addError(&d.errs, d.file, n.Line, col, "%s", msg)
}

// deref follows YAML aliases.
func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// isNull reports whether a node is an explicit null (~), the table's way of
// writing a cell the paper leaves undefined.
func isNull(n *yaml.Node) bool {
	n = deref(n)
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// kindName names what a node is, for "got a list" messages.
func kindName(n *yaml.Node) string {
	switch deref(n).Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return fmt.Sprintf("'%s'", n.Value)
}

// fields is a YAML mapping read strictly: every key known, none repeated.
type fields struct {
	d     *decoder
	node  *yaml.Node
	what  string
	vals  map[string]*yaml.Node
	keyAt map[string]*yaml.Node
	order []string
}

// mapping reads n as a mapping of the keys in known (any key if known is
// empty). Unknown and repeated keys are errors; a node that is not a mapping
// is an error and gives an empty result, so callers need no checks.
func (d *decoder) mapping(n *yaml.Node, what string, known ...string) *fields {
	f := &fields{d: d, node: n, what: what, vals: map[string]*yaml.Node{}, keyAt: map[string]*yaml.Node{}}
	n = deref(n)
	if n == nil {
		return f
	}
	f.node = n
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "%s must be a mapping (key: value lines), got %s", what, kindName(n))
		return f
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), n.Content[i+1]
		key := k.Value
		switch {
		case k.Kind != yaml.ScalarNode:
			d.errorf(k, "keys of %s must be names", what)
		case f.keyAt[key] != nil:
			d.errorf(k, "duplicate key '%s' in %s (first at line %d)", key, what, f.keyAt[key].Line)
		case len(known) > 0 && !slices.Contains(known, key):
			d.errorf(k, "unknown key '%s' in %s%s (known: %s)", key, what, suggest(key, known), strings.Join(known, ", "))
		default:
			f.keyAt[key], f.vals[key] = k, v
			f.order = append(f.order, key)
		}
	}
	return f
}

// suggest proposes the known key closest to a misspelt one.
func suggest(key string, known []string) string {
	best, bestDist := "", min(3, len(key)) // a suggestion must share most of the key
	for _, k := range known {
		if dist := editDistance(strings.ToLower(key), strings.ToLower(k)); dist < bestDist {
			best, bestDist = k, dist
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(": did you mean '%s'?", best)
}

// editDistance is the Levenshtein distance between two short strings.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

func (f *fields) get(key string) *yaml.Node { return f.vals[key] }

func (f *fields) has(key string) bool { return f.vals[key] != nil }

// require reports a missing key at the mapping and says whether it is there.
func (f *fields) require(key string) bool {
	if f.has(key) {
		return true
	}
	if f.node != nil && f.node.Kind == yaml.MappingNode {
		f.d.errorf(f.node, "%s needs '%s'", f.what, key)
	}
	return false
}

// str reads a scalar string; "" when absent.
func (f *fields) str(key string) string {
	n := deref(f.get(key))
	if n == nil {
		return ""
	}
	if n.Kind != yaml.ScalarNode {
		f.d.errorf(n, "'%s' must be text, got %s", key, kindName(n))
		return ""
	}
	return strings.TrimSpace(n.Value)
}

// requiredStr reads a scalar string that must be present and not empty.
func (f *fields) requiredStr(key string) string {
	if !f.require(key) {
		return ""
	}
	s := f.str(key)
	if s == "" && deref(f.get(key)).Kind == yaml.ScalarNode {
		f.d.errorf(f.get(key), "'%s' must not be empty", key)
	}
	return s
}

// choice reads a scalar that must be one of the given words; def when absent.
func (f *fields) choice(key, def string, words ...string) string {
	if !f.has(key) {
		return def
	}
	s := f.str(key)
	if !slices.Contains(words, s) {
		f.d.errorf(f.get(key), "'%s' must be %s, got '%s'", key, orList(words), s)
		return def
	}
	return s
}

// orList joins words as "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// source is the section's own source if it has one, else the inherited one.
func (f *fields) source(inherited string) string {
	if s := f.str("source"); s != "" {
		return s
	}
	return inherited
}

// names reads a scalar or a list of scalars ("f64" or [i32, i64]).
func (f *fields) names(key string) []string {
	n := deref(f.get(key))
	if n == nil {
		return nil
	}
	if n.Kind == yaml.ScalarNode {
		return []string{strings.TrimSpace(n.Value)}
	}
	if n.Kind != yaml.SequenceNode {
		f.d.errorf(n, "'%s' must be a value or a list of values, got %s", key, kindName(n))
		return nil
	}
	var out []string
	for _, item := range n.Content {
		item = deref(item)
		if item.Kind != yaml.ScalarNode {
			f.d.errorf(item, "'%s' must list plain values, got %s (quote text that contains ': ')", key, kindName(item))
			continue
		}
		out = append(out, strings.TrimSpace(item.Value))
	}
	return out
}

// list returns the items of a sequence node, reporting anything else.
func (d *decoder) list(n *yaml.Node, what string) []*yaml.Node {
	n = deref(n)
	if n == nil {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, "%s must be a list (lines starting with -), got %s", what, kindName(n))
		return nil
	}
	return n.Content
}

// ---------------------------------------------------------------------------
// Numbers and costs

// rule is a constraint on a constant's value.
type rule uint8

const (
	nonNegative rule = iota
	positive
	wholeNonNegative // a count that may be zero
	wholePositive
)

// anyDim, which no real dimension equals, lets a parameter take any dimension.
const anyDim Dim = 0

// scope is the expression scope of the table: its parameters so far, and the
// given run-time variables.
func (d *decoder) scope(vars varSet) *exprScope {
	names := make([]string, len(d.m.params))
	for i, p := range d.m.params {
		names[i] = p.Name
	}
	return &exprScope{vars: vars, params: d.paramValue, paramNames: names}
}

func (d *decoder) paramValue(name string) (Quantity, bool) {
	p, ok := d.m.Param(name)
	return p.Quantity, ok
}

// valueAndSource splits a field into its value node and own source: a bare
// scalar, or a mapping {value: …, source: …}.
func (d *decoder) valueAndSource(n *yaml.Node, key string) (*yaml.Node, string) {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		return n, ""
	}
	f := d.mapping(n, fmt.Sprintf("'%s'", key), "value", "source")
	if !f.require("value") {
		return nil, ""
	}
	return deref(f.get("value")), f.str("source")
}

// number reads a constant: a quantity or an expression over the parameters,
// of dimension want, satisfying r. Its source is the field's own; else, for
// a bare parameter name, the parameter's; else the enclosing section's; else
// that of the parameters it uses.
func (d *decoder) number(n *yaml.Node, key string, want Dim, r rule, inherited string) Number {
	valueNode, own := d.valueAndSource(n, key)
	if valueNode == nil {
		return Number{}
	}
	q, unit, used, ok := d.constant(valueNode, key, want)
	if !ok || !d.checkRule(valueNode, key, q, r) {
		return Number{}
	}
	// A bare parameter name carries the parameter's own provenance; anything
	// else is sourced by its entry or section, and only then by its parameters.
	src := own
	if src == "" && len(used) == 1 && strings.TrimSpace(valueNode.Value) == used[0] {
		src = d.paramSources(used)
	}
	src = firstNonEmpty(src, inherited, d.paramSources(used))
	if src == "" {
		d.errorf(valueNode, "'%s' has no source: add source: (paper, table or equation, line; or benchmark and date) to it or to its section", key)
	}
	return Number{Quantity: q, Unit: unit, Source: src, Given: true}
}

// constant evaluates a constant expression node, checking its dimension.
// It returns the unit to print the value in and the parameters it reads.
func (d *decoder) constant(n *yaml.Node, key string, want Dim) (q Quantity, unit string, used []string, ok bool) {
	if n.Kind != yaml.ScalarNode || isNull(n) {
		d.errorf(n, "'%s' must be a number with a unit, such as 54us or 50MB/s, got %s", key, kindName(n))
		return Quantity{}, "", nil, false
	}
	q, unit, used, err := evalConstant(n.Value, d.scope(0))
	var ee *exprError
	switch {
	case errors.As(err, &ee):
		d.errorInScalar(n, ee.off, fmt.Sprintf("'%s': %s", key, ee.msg))
		return Quantity{}, "", nil, false
	case want != anyDim && q.Dim != want:
		d.errorf(n, "'%s' needs %s, got %s (%s)", key, want.Describe(), q.Dim.Describe(), n.Value)
		return Quantity{}, "", nil, false
	case math.IsNaN(q.Value) || math.IsInf(q.Value, 0):
		d.errorf(n, "'%s' is not a finite number (%s)", key, n.Value)
		return Quantity{}, "", nil, false
	}
	if unit == "" && len(used) == 1 && strings.TrimSpace(n.Value) == used[0] {
		p, _ := d.m.Param(used[0])
		unit = p.Unit
	}
	return q, unit, used, true
}

// evalConstant evaluates a constant: a plain quantity, where a blank may
// separate number and unit ("50 MB/s"), or else an expression over the
// parameters. A lone literal also gives its unit, so that the value prints
// as written.
func evalConstant(text string, sc *exprScope) (Quantity, string, []string, error) {
	if q, err := ParseQuantity(text); err == nil {
		trimmed := strings.TrimSpace(text)
		return q, strings.TrimSpace(trimmed[scanNumber(trimmed):]), nil, nil
	}
	c, tree, used, err := compileExpr(text, sc)
	if err != nil {
		return Quantity{}, "", nil, err
	}
	unit := ""
	if tree.kind == litNode {
		unit = strings.TrimSpace(tree.text[scanNumber(tree.text):])
	}
	return Quantity{c.prog.eval(&Vars{}), c.dim}, unit, used, nil
}

// checkRule applies a value constraint, naming what is wrong.
func (d *decoder) checkRule(n *yaml.Node, key string, q Quantity, r rule) bool {
	switch {
	case q.Value < 0 && q.Dim == Time:
		d.errorf(n, "'%s' is a negative time (%s)", key, n.Value)
	case q.Value < 0:
		d.errorf(n, "'%s' must not be negative (%s)", key, n.Value)
	case (r == positive || r == wholePositive) && q.Value == 0:
		d.errorf(n, "'%s' must be greater than zero (%s)", key, n.Value)
	case (r == wholeNonNegative || r == wholePositive) && q.Value != math.Trunc(q.Value):
		d.errorf(n, "'%s' must be a whole number (%s)", key, n.Value)
	default:
		return true
	}
	return false
}

// paramSources is the provenance of a value computed from parameters.
func (d *decoder) paramSources(used []string) string {
	var parts []string
	for _, name := range used {
		if p, ok := d.m.Param(name); ok {
			parts = append(parts, name+": "+p.Source)
		}
	}
	return strings.Join(parts, "; ")
}

// optNumber reads an optional constant; the zero Number when absent.
func (d *decoder) optNumber(f *fields, key string, want Dim, r rule, inherited string) Number {
	if !f.has(key) {
		return Number{}
	}
	return d.number(f.get(key), key, want, r, inherited)
}

// reqNumber reads a constant that must be present.
func (d *decoder) reqNumber(f *fields, key string, want Dim, r rule, inherited string) Number {
	if !f.require(key) {
		return Number{}
	}
	return d.number(f.get(key), key, want, r, inherited)
}

// costSamples are the points at which every cost expression is evaluated at
// load time, to catch costs that go negative or infinite early.
func costSamples() [2]Vars {
	return [2]Vars{
		{Bytes: 0, P: 1, N: 0, Stride: 1, Level: 0, Lines: 0},
		{Bytes: 1 << 20, P: 1024, N: 1e6, Stride: 64, Level: 5, Lines: 1e4},
	}
}

// cost reads a time cost: an expression over the variables in vars and the
// parameters, {value: expression, source: …}, or a measured table {x:
// variable, points: [[x, y], …], source: …}.
func (d *decoder) cost(n *yaml.Node, key string, vars varSet, inherited string) *Cost {
	n = deref(n)
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "points" {
				return d.table(n, key, vars, inherited)
			}
		}
	}
	valueNode, own := d.valueAndSource(n, key)
	if valueNode == nil {
		return nil
	}
	if valueNode.Kind != yaml.ScalarNode || isNull(valueNode) {
		d.errorf(valueNode, "'%s' must be an expression such as '6.96us + 1.15us/B * bytes', got %s", key, kindName(valueNode))
		return nil
	}
	c, _, used, err := compileExpr(valueNode.Value, d.scope(vars))
	var ee *exprError
	if errors.As(err, &ee) {
		d.errorInScalar(valueNode, ee.off, fmt.Sprintf("'%s': %s", key, ee.msg))
		return nil
	}
	if c.dim != Time {
		d.errorf(valueNode, "'%s' needs a time, got %s (%s)", key, c.dim.Describe(), valueNode.Value)
		return nil
	}
	c.key, c.where, c.vars = key, d.position(valueNode), vars
	if !d.checkSamples(valueNode, c) {
		return nil
	}
	c.source = firstNonEmpty(own, inherited, d.paramSources(used))
	if c.source == "" {
		d.errorf(valueNode, "'%s' has no source: add source: to it or to its section", key)
	}
	return c
}

// badTime says what is wrong with an evaluated cost.
func badTime(t float64) string {
	if t < 0 {
		return "a negative time (" + Quantity{t, Time}.String() + ")"
	}
	return "not finite"
}

// describeVars lists the variables of a sample point that a cost may read.
func describeVars(v Vars, vars varSet) string {
	var parts []string
	for id := range numVars {
		if vars.has(id) {
			parts = append(parts, fmt.Sprintf("%s=%g", id.name(), v.get(id)))
		}
	}
	if len(parts) == 0 {
		return "any point"
	}
	return strings.Join(parts, ", ")
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// table reads a measured table: points (x, y) over one variable, x strictly
// increasing, y times; or, with by:, a grid of points (by, x, y) over two,
// grouped in rows of increasing by (docs/machines.md, "Measured tables").
func (d *decoder) table(n *yaml.Node, key string, vars varSet, inherited string) *Cost {
	f := d.mapping(n, fmt.Sprintf("the table '%s'", key), "x", "by", "points", "source")
	src := f.source(inherited)
	if src == "" {
		d.errorf(n, "the table '%s' has no source: add source: (benchmark and date, or paper, figure and line)", key)
	}
	if !f.require("x") || !f.require("points") {
		return nil
	}
	id, ok := d.tableVar(f, "x", key, vars)
	if !ok {
		return nil
	}
	items := d.list(f.get("points"), fmt.Sprintf("points of '%s'", key))
	var c *Cost
	if f.has("by") {
		c = d.grid(f, key, id, vars, items)
	} else {
		c = d.table1(f, key, id, items)
	}
	if c == nil {
		return nil
	}
	c.source, c.key, c.where = src, key, d.position(n)
	if !d.checkSamples(n, c) {
		return nil
	}
	return c
}

// tableVar reads the variable a table is over (its x: or by:).
func (d *decoder) tableVar(f *fields, field, key string, vars varSet) (varID, bool) {
	name := f.str(field)
	id, ok := varNamed(name)
	if !ok || !vars.has(id) {
		d.errorf(f.get(field), "the table '%s' must be over one of the variables %s, got '%s'", key, vars, name)
		return 0, false
	}
	return id, true
}

// table1 reads the points [x, y] of a table over one variable.
func (d *decoder) table1(f *fields, key string, id varID, items []*yaml.Node) *Cost {
	if len(items) < 2 {
		d.errorf(f.get("points"), "the table '%s' needs at least two points", key)
		return nil
	}
	t := &table{x: id}
	for _, p := range items {
		x, y, ok := d.point(p, id)
		if !ok {
			continue
		}
		if len(t.xs) > 0 && x <= t.xs[len(t.xs)-1] {
			d.errorf(p, "points of '%s' must have strictly increasing %s", key, id.name())
			continue
		}
		t.xs, t.ys = append(t.xs, x), append(t.ys, y)
	}
	if len(t.xs) < len(items) {
		return nil // reported
	}
	return &Cost{text: fmt.Sprintf("table over %s (%d points)", id.name(), len(t.xs)), dim: Time, table: t, vars: setOf(id)}
}

// grid reads the points [by, x, y] of a table over two variables: rows of
// one value of by, by strictly increasing from row to row and x strictly
// increasing within a row; at least two rows, a row of one point being
// constant over x.
func (d *decoder) grid(f *fields, key string, x varID, vars varSet, items []*yaml.Node) *Cost {
	by, ok := d.tableVar(f, "by", key, vars)
	if !ok {
		return nil
	}
	if by == x {
		d.errorf(f.get("by"), "the table '%s' is over %s twice: by: must name another variable than x:", key, x.name())
		return nil
	}
	g := &grid{by: by}
	bad := false
	for _, p := range items {
		b, xv, y, ok := d.point3(p, by, x)
		if !ok {
			bad = true
			continue
		}
		last := len(g.at) - 1
		switch {
		case last >= 0 && b == g.at[last]:
			if row := &g.rows[last]; xv <= row.xs[len(row.xs)-1] {
				d.errorf(p, "points of '%s' must have strictly increasing %s within one %s", key, x.name(), by.name())
				bad = true
				continue
			}
		case last >= 0 && b < g.at[last]:
			d.errorf(p, "points of '%s' must come in rows of increasing %s (this %s=%g follows %g)", key, by.name(), by.name(), b, g.at[last])
			bad = true
			continue
		default:
			g.at, g.rows = append(g.at, b), append(g.rows, table{x: x})
		}
		row := &g.rows[len(g.rows)-1]
		row.xs, row.ys = append(row.xs, xv), append(row.ys, y)
	}
	if bad {
		return nil
	}
	if len(g.at) < 2 {
		d.errorf(f.get("points"), "the table '%s' over %s and %s needs rows of at least two values of %s; with one, leave out by:", key, x.name(), by.name(), by.name())
		return nil
	}
	return &Cost{text: fmt.Sprintf("table over %s and %s (%d rows, %d points)", x.name(), by.name(), len(g.at), len(items)),
		dim: Time, table: g, vars: setOf(x, by)}
}

// point3 reads one [by, x, y] point of a grid.
func (d *decoder) point3(n *yaml.Node, by, x varID) (float64, float64, float64, bool) {
	n = deref(n)
	if n.Kind != yaml.SequenceNode || len(n.Content) != 3 {
		d.errorf(n, "a point of a table with by: must be [%s, %s, time], such as [4, 1KiB, 204.5us]", by.name(), x.name())
		return 0, 0, 0, false
	}
	bq, _, _, okB := d.constant(deref(n.Content[0]), by.name(), by.dim())
	xq, _, _, okX := d.constant(deref(n.Content[1]), x.name(), x.dim())
	yq, _, _, okY := d.constant(deref(n.Content[2]), "time", Time)
	if !okB || !okX || !okY || !d.checkRule(deref(n.Content[2]), "time", yq, nonNegative) {
		return 0, 0, 0, false
	}
	return bq.Value, xq.Value, yq.Value, true
}

// point reads one [x, y] pair of a measured table.
func (d *decoder) point(n *yaml.Node, x varID) (float64, float64, bool) {
	n = deref(n)
	if n.Kind != yaml.SequenceNode || len(n.Content) != 2 {
		d.errorf(n, "a point must be [x, y], such as [1KiB, 204.5us]")
		return 0, 0, false
	}
	xq, _, _, okX := d.constant(deref(n.Content[0]), x.name(), x.dim())
	yq, _, _, okY := d.constant(deref(n.Content[1]), "time", Time)
	if !okX || !okY || !d.checkRule(deref(n.Content[1]), "time", yq, nonNegative) {
		return 0, 0, false
	}
	return xq.Value, yq.Value, true
}
