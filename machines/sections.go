package machines

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"
)

// This file decodes a table section by section; load.go holds the strict
// YAML reading, numbers and costs it is built on.

// machine decodes the whole table. Parameters come first whatever their
// place in the file, because every other section may refer to them.
func (d *decoder) machine(root *yaml.Node) {
	f := d.mapping(root, "the machine table", machineKeys()...)
	m := d.m
	if f.has("schema") && f.str("schema") != TableSchema {
		d.errorf(f.get("schema"), "schema must be %s (the JSON form of a table, perfc machines NAME -o json), got '%s'", TableSchema, f.str("schema"))
	}
	m.name = f.requiredStr("name")
	if m.name != "" && !isMachineName(m.name) {
		d.errorf(f.get("name"), "machine name '%s' must be lower case letters, digits, '.', '_' or '-'", m.name)
	}
	m.description = f.requiredStr("description")
	m.source = f.requiredStr("source")
	m.conventions = f.str("conventions")
	m.missing = f.names("missing")
	m.ranks = d.optNumber(f, "ranks", Dimensionless, wholePositive, m.source)
	m.host = d.host(f.get("host"))
	d.cores(f, m)
	d.params(f.get("params"))
	d.reportUnknownOverrides()
	if n := f.get("compute"); n != nil {
		m.compute = d.compute(n)
	}
	if n := f.get("memory"); n != nil {
		m.memory = d.memory(n)
	}
	if n := f.get("messages"); n != nil {
		m.messages = d.messageModel(n, "messages", "", true)
	}
	if n := f.get("collectives"); n != nil {
		m.collectives = d.collectives(n)
	}
	if n := f.get("cluster"); n != nil {
		m.cluster = d.cluster(n)
	}
	if n := f.get("disk"); n != nil {
		m.disk = d.disk(n)
	}
	m.results = d.results(f.get("results"))
	d.applySwitches()
}

// machineKeys are the top-level keys of a table, in the order errors list
// them; computeKeys and memoryKeys those of its compute and memory sections.
// docs/machines.md documents each (vocab_test.go).
func machineKeys() []string {
	return []string{"schema", "name", "description", "source", "conventions", "missing",
		"ranks", "cores", "core_switch", "host", "params", "compute", "memory", "messages", "collectives", "cluster", "disk", "results"}
}

func computeKeys() []string {
	return []string{"source", "free", "peak", "register_rate", "register_madd_rate", "loop", "access", "clock", "ops", "latency", "vector", "imh", "core"}
}

func memoryKeys() []string {
	return []string{"source", "compose", "caches", "main_bandwidth", "write_allocate", "shared", "bottleneck", "cost", "global"}
}

// host reads the host: mapping, where the numbers were measured: any keys,
// each with a plain value (text, a number or a date).
func (d *decoder) host(n *yaml.Node) []HostField {
	if n == nil {
		return nil
	}
	f := d.mapping(n, "host")
	var out []HostField
	for _, key := range f.order {
		v := deref(f.get(key))
		if v.Kind != yaml.ScalarNode || isNull(v) {
			d.errorf(v, "host '%s' must be a plain value such as \"AMD EPYC 9B45\" or 2, got %s", key, kindName(v))
			continue
		}
		out = append(out, HostField{Key: key, Value: strings.TrimSpace(v.Value)})
	}
	return out
}

// reservedName reports names a parameter may not take: the variables, the
// functions and the override switches.
func reservedName(name string) bool {
	_, isVar := varNamed(name)
	return isVar || isFunction(name) || name == "compose" || name == "startup"
}

// isMachineName reports whether s is a valid machine name: lower-case
// letters, digits, '.', '_' and '-', starting with a letter or digit.
func isMachineName(s string) bool {
	for i, c := range s {
		ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || i > 0 && (c == '.' || c == '_' || c == '-')
		if !ok {
			return false
		}
	}
	return s != ""
}

// isIdent reports whether s is a name expressions can refer to.
func isIdent(s string) bool { return s != "" && identLen(s) == len(s) }

// params decodes the parameters in file order; each may use the ones before
// it. Overrides are applied as each parameter is read, so that later
// parameters and every section see the overridden values.
func (d *decoder) params(n *yaml.Node) {
	if n == nil {
		return
	}
	f := d.mapping(n, "params")
	for _, name := range f.order {
		keyNode := f.keyAt[name]
		switch {
		case !isIdent(name):
			d.errorf(keyNode, "parameter name '%s' must be a name (letters, digits, _)", name)
			continue
		case reservedName(name):
			d.errorf(keyNode, "parameter name '%s' is reserved (a variable, a function or an override switch)", name)
			continue
		}
		pf := d.mapping(f.get(name), "parameter "+name, "value", "source", "about")
		src := pf.requiredStr("source")
		if !pf.require("value") {
			continue
		}
		valueNode := deref(pf.get("value"))
		q, unit, _, ok := d.constant(valueNode, name, anyDim)
		if !ok || !d.checkRule(valueNode, name, q, nonNegative) {
			continue
		}
		p := Param{Name: name, About: pf.str("about"), Number: Number{Quantity: q, Unit: unit, Source: src, Given: true}}
		d.m.params = append(d.m.params, d.overrideParam(p))
	}
}

// overrideParam applies every -M assignment to p, in order. The value is
// evaluated with p itself in scope, so "bw=2*bw" doubles the bandwidth.
func (d *decoder) overrideParam(p Param) Param {
	for i, a := range d.overrides {
		if a.Name != p.Name {
			continue
		}
		d.applied[i] = true
		sc := d.scope(0)
		sc.params = func(name string) (Quantity, bool) {
			if name == p.Name {
				return p.Quantity, true
			}
			return d.paramValue(name)
		}
		sc.paramNames = append(sc.paramNames, p.Name)
		q, unit, _, err := evalConstant(a.Value, sc)
		switch {
		case err != nil:
			addError(&d.errs, a.origin(), 0, 0, "%v", err)
		case q.Dim != p.Dim:
			addError(&d.errs, a.origin(), 0, 0, "'%s' needs %s, got %s (%s)", p.Name, p.Dim.Describe(), q.Dim.Describe(), a.Value)
		case q.Value < 0 || math.IsNaN(q.Value) || math.IsInf(q.Value, 0):
			addError(&d.errs, a.origin(), 0, 0, "'%s' must be a finite value not below zero (%s)", p.Name, a.Value)
		default:
			if unit == "" {
				unit = p.Unit
			}
			p.Number = Number{Quantity: q, Unit: unit, Source: "override " + a.origin(), Given: true}
		}
	}
	return p
}

// reportUnknownOverrides reports -M names that are neither a parameter, a
// switch nor a path (isPathOverride).
func (d *decoder) reportUnknownOverrides() {
	for i, a := range d.overrides {
		if d.applied[i] || a.Name == "compose" || a.Name == "startup" {
			continue
		}
		names := make([]string, len(d.m.params))
		for j, p := range d.m.params {
			names[j] = p.Name
		}
		list := "it has none"
		if len(names) > 0 {
			list = "parameters: " + strings.Join(names, ", ")
		}
		addError(&d.errs, a.origin(), 0, 0, "machine %s has no parameter '%s' (%s; switches: compose, startup; or a path into the table, such as compute.core.entry)", d.m.name, a.Name, list)
	}
}

// applySwitches applies the compose and startup overrides.
func (d *decoder) applySwitches() {
	for _, a := range d.overrides {
		switch a.Name {
		case "compose":
			c, ok := composeNamed(a.Value)
			if !ok {
				addError(&d.errs, a.origin(), 0, 0, "compose must be sum, max or ecm")
				continue
			}
			if d.m.memory == nil {
				d.m.memory = &Memory{}
			}
			if c == ComposeECM {
				if missing := d.m.memory.ecmMissing(); missing != "" {
					addError(&d.errs, a.origin(), 0, 0, "compose=ecm needs %s", missing)
					continue
				}
			}
			d.m.memory.compose = c
		case "startup":
			if a.Value != "per_step" && a.Value != "per_pattern" {
				addError(&d.errs, a.origin(), 0, 0, "startup must be per_step or per_pattern")
				continue
			}
			if d.m.messages == nil {
				addError(&d.errs, a.origin(), 0, 0, "machine %s has no message model", d.m.name)
				continue
			}
			s := PerStep
			if a.Value == "per_pattern" {
				s = PerPattern
			}
			for _, mm := range d.m.messageModels() {
				mm.startup = s
			}
		}
	}
}

// messageModels lists every message model of the machine, variants included.
func (m *Machine) messageModels() []*MessageModel {
	var all []*MessageModel
	if m.messages != nil {
		all = append(all, m.messages)
		for _, elem := range elemNames() {
			if v, ok := m.messages.byElem[elem]; ok {
				all = append(all, v)
			}
		}
		if m.messages.exchange != nil {
			all = append(all, m.messages.exchange)
		}
		if m.messages.sendrecv != nil {
			all = append(all, m.messages.sendrecv)
		}
		if m.messages.sharing != nil {
			all = append(all, m.messages.sharing)
		}
		if m.messages.sameCore != nil {
			all = append(all, m.messages.sameCore)
		}
		if m.messages.local != nil {
			all = append(all, m.messages.local)
		}
	}
	if m.cluster != nil && m.cluster.inter != nil {
		all = append(all, m.cluster.inter)
	}
	return all
}

// elemNames are the element types a table may key entries by: the
// language's four and the CM-5's unsigned integers.
func elemNames() []string { return []string{"f64", "f32", "i64", "i32", "u64", "u32"} }

// checkElem reports an unknown element type name.
func (d *decoder) checkElem(n *yaml.Node, elem string) bool {
	if slices.Contains(elemNames(), elem) {
		return true
	}
	d.errorf(n, "unknown element type '%s' (want %s; the CM-5's short, long, single and double are i32, i64, f32, f64)", elem, strings.Join(elemNames(), ", "))
	return false
}

// ---------------------------------------------------------------------------
// Compute

func (d *decoder) compute(n *yaml.Node) *Compute {
	f := d.mapping(n, "compute", computeKeys()...)
	src := f.source("")
	c := &Compute{source: src, free: f.choice("free", "false", "true", "false") == "true"}
	if f.has("loop") {
		lf := d.mapping(f.get("loop"), "loop", "iteration", "entry", "source")
		lsrc := lf.source(src)
		c.loop = LoopCost{Iteration: d.optNumber(lf, "iteration", Time, nonNegative, lsrc), Entry: d.optNumber(lf, "entry", Time, nonNegative, lsrc)}
		d.requireOne(lf, "iteration", "entry")
	}
	if f.has("access") {
		af := d.mapping(f.get("access"), "access", "load", "store", "source")
		asrc := af.source(src)
		c.access = AccessCost{Load: d.optNumber(af, "load", Time, nonNegative, asrc), Store: d.optNumber(af, "store", Time, nonNegative, asrc)}
		d.requireOne(af, "load", "store")
	}
	if f.has("clock") {
		cf := d.mapping(f.get("clock"), "clock", "region", "run", "shared_start", "source")
		csrc := cf.source(src)
		c.clock = ClockCost{Region: d.optNumber(cf, "region", Time, nonNegative, csrc), Run: d.optNumber(cf, "run", Time, nonNegative, csrc),
			SharedStart: d.optNumber(cf, "shared_start", Time, nonNegative, csrc)}
		d.requireOne(cf, "region", "run")
	}
	if f.has("peak") {
		c.peak = d.peak(f.get("peak"), src)
	}
	c.registerRate = d.optNumber(f, "register_rate", Rate, positive, src)
	c.registerMadd = d.optNumber(f, "register_madd_rate", Rate, positive, src)
	if f.has("ops") {
		d.ops(f.get("ops"), c, src)
	}
	if f.has("latency") {
		lf := d.mapping(f.get("latency"), "latency", "source", "window", "entries")
		c.latency, c.latencyOrder = d.opEntries(lf, "latency", lf.source(src), nil)
		c.window = d.optNumber(lf, "window", Time, positive, lf.source(src))
	}
	if f.has("vector") {
		c.vectors = d.vectors(f.get("vector"), src)
	}
	if f.has("imh") {
		c.imh = d.imh(f.get("imh"), src)
	}
	if f.has("core") {
		c.core = d.core(f.get("core"), src)
	}
	return c
}

// core reads compute.core: the cycle time and the widths the pricing of
// compiled code divides a machine loop's instructions by (CoreModel).
func (d *decoder) core(n *yaml.Node, src string) CoreModel {
	f := d.mapping(n, "core", "cycle", "issue", "load_ports", "store_ports", "fp_ports", "blocks_per_cycle", "window", "window_exponent", "entry", "divider", "source")
	src = f.source(src)
	c := CoreModel{Cycle: d.reqNumber(f, "cycle", Time, positive, src)}
	c.Issue = d.reqNumber(f, "issue", Dimensionless, positive, src)
	c.LoadPorts = d.reqNumber(f, "load_ports", Dimensionless, positive, src)
	c.StorePorts = d.reqNumber(f, "store_ports", Dimensionless, positive, src)
	c.FPPorts = d.reqNumber(f, "fp_ports", Dimensionless, positive, src)
	c.BlocksPerCycle = d.reqNumber(f, "blocks_per_cycle", Dimensionless, positive, src)
	c.Window = d.optNumber(f, "window", Time, positive, src)
	c.WindowExponent = d.optNumber(f, "window_exponent", Dimensionless, positive, src)
	if c.WindowExponent.Given && c.WindowExponent.Value < 1 {
		d.errorf(f.get("window_exponent"), "window_exponent %g is below 1: a smooth maximum needs p >= 1 (leave it out for the plain maximum)", c.WindowExponent.Value)
	}
	c.Entry = d.optNumber(f, "entry", Dimensionless, nonNegative, src)
	if f.has("divider") {
		c.Divider = d.divider(f.get("divider"), src)
	}
	return c
}

// dividerElems are the element types of each divider operation: the
// divides of every type and the floating-point square roots, the kinds
// machinecode.DividerKind names.
var dividerElems = map[string][]string{"div": {"f64", "f32", "i64", "i32"}, "sqrt": {"f64", "f32"}}

// divider reads compute.core.divider: per operation (div, sqrt) a time per
// element type, the time one instruction holds the divider.
func (d *decoder) divider(n *yaml.Node, src string) map[string]Number {
	f := d.mapping(n, "divider", "div", "sqrt", "source")
	src = f.source(src)
	out := map[string]Number{}
	for _, op := range []string{"div", "sqrt"} {
		if !f.has(op) {
			continue
		}
		ef := d.mapping(f.get(op), "divider."+op, append(dividerElems[op], "source")...)
		esrc := ef.source(src)
		for _, elem := range ef.order {
			if elem != "source" {
				out[op+" "+elem] = d.number(ef.get(elem), elem, Time, positive, esrc)
			}
		}
	}
	if len(out) == 0 && n != nil {
		d.errorf(n, "divider needs div or sqrt times (e.g. div: {f64: 1.3ns})")
	}
	return out
}

// peak reads one rate for every type, or a rate per element type.
func (d *decoder) peak(n *yaml.Node, src string) map[string]Number {
	n = deref(n)
	isPerElem := n.Kind == yaml.MappingNode && !slices.ContainsFunc(n.Content, func(k *yaml.Node) bool { return k.Value == "value" })
	if !isPerElem {
		return map[string]Number{"": d.number(n, "peak", Rate, positive, src)}
	}
	f := d.mapping(n, "peak", append(elemNames(), "source")...)
	src = f.source(src)
	out := map[string]Number{}
	for _, elem := range f.order {
		if elem != "source" {
			out[elem] = d.number(f.get(elem), elem, Rate, positive, src)
		}
	}
	return out
}

// requireOne reports a mapping that gives none of the keys.
func (d *decoder) requireOne(f *fields, keys ...string) {
	for _, k := range keys {
		if f.has(k) {
			return
		}
	}
	if f.node != nil && f.node.Kind == yaml.MappingNode {
		d.errorf(f.node, "%s needs %s", f.what, strings.Join(keys, " or "))
	}
}

// ops reads the per-operation cost table and its fallback rules.
func (d *decoder) ops(n *yaml.Node, c *Compute, inherited string) {
	f := d.mapping(n, "ops", "source", "entries", "fallback")
	src := f.source(inherited)
	measured := map[string]bool{}
	c.ops, c.opOrder = d.opEntries(f, "ops", src, measured)
	for _, fb := range d.list(f.get("fallback"), "ops.fallback") {
		ff := d.mapping(fb, "a fallback rule", "op", "as", "times", "source")
		rule := fallback{op: ff.requiredStr("op"), as: ff.requiredStr("as"), times: 1, source: ff.source(src)}
		switch {
		case rule.op != "" && !knownOp(rule.op):
			d.errorf(ff.get("op"), "unknown operation '%s'", rule.op)
		case rule.as != "" && !measured[rule.as]:
			d.errorf(ff.get("as"), "fallback '%s' must name an operation the table measures, not '%s'", rule.op, rule.as)
		}
		if ff.has("times") {
			rule.times = d.number(ff.get("times"), "times", Dimensionless, positive, rule.source).Value
		}
		if rule.source == "" {
			d.errorf(fb, "the fallback for '%s' has no source", rule.op)
		}
		c.fallbacks = append(c.fallbacks, rule)
	}
}

// opEntries reads the entries of a per-operation table (ops or latency,
// read as f, whose source is src): each an operation, an optional operand
// pattern (none: every pattern) and a time per element type. The latency
// table has no fallback rules of its own: the ops rules apply to it.
// measured, when not nil, collects the operations given.
func (d *decoder) opEntries(f *fields, what, src string, measured map[string]bool) (map[opKey]Number, []opKey) {
	table := map[opKey]Number{}
	var order []opKey
	for _, e := range d.list(f.get("entries"), what+".entries") {
		ef := d.mapping(e, article(what)+" "+what+" entry", append(elemNames(), "pattern", "op", "source")...)
		pattern, op := ef.str("pattern"), ef.requiredStr("op")
		if ef.has("pattern") && !knownPattern(pattern) {
			d.errorf(ef.get("pattern"), "unknown operand pattern '%s' (want a&s&s, a&b&c or a&b&s; leave pattern out for every pattern)", pattern)
		}
		if op != "" && !knownOp(op) {
			d.errorf(ef.get("op"), "unknown operation '%s' (want add, sub, mul, div, madd, cmp, sqrt, exp, log, sin, cos, abs, min, max)", op)
		}
		esrc := ef.source(src)
		for _, elem := range ef.order {
			if !slices.Contains(elemNames(), elem) {
				continue
			}
			key := opKey{pattern, op, elem}
			if _, dup := table[key]; dup {
				d.errorf(ef.keyAt[elem], "duplicate %s for %s %s", what, describeOpKey(key), elem)
				continue
			}
			table[key] = d.number(ef.get(elem), elem, Time, positive, esrc)
			order = append(order, key)
			if measured != nil {
				measured[op] = true
			}
		}
	}
	return table, order
}

// article is the indefinite article of a word.
func article(word string) string {
	if strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

// describeOpKey names an operation entry's pattern and operation: "a&b&c
// div", or "div (every pattern)".
func describeOpKey(k opKey) string {
	if k.pattern == "" {
		return k.op + " (every pattern)"
	}
	return k.pattern + " " + k.op
}

// vectors reads the Hockney vector-unit entries.
func (d *decoder) vectors(n *yaml.Node, inherited string) []VectorUnit {
	f := d.mapping(n, "vector", "source", "entries")
	src := f.source(inherited)
	var out []VectorUnit
	seen := map[[2]string]bool{}
	for _, e := range d.list(f.get("entries"), "vector.entries") {
		ef := d.mapping(e, "a vector entry", "form", "elem", "work", "rinf", "nhalf", "nv", "source")
		esrc := ef.source(src)
		v := VectorUnit{Form: canonicalForm(ef.requiredStr("form")), Elem: ef.str("elem")}
		if v.Form != "" && !strings.Contains(v.Form, "=") {
			d.errorf(ef.get("form"), "a kernel form is an assignment such as a=b*c+d, got '%s'", v.Form)
		}
		if v.Elem != "" {
			d.checkElem(ef.get("elem"), v.Elem)
		}
		if seen[[2]string{v.Form, v.Elem}] {
			d.errorf(e, "duplicate vector entry for %s %s", v.Form, v.Elem)
		}
		seen[[2]string{v.Form, v.Elem}] = true
		v.Work = d.reqNumber(ef, "work", Flop, positive, esrc)
		v.Rinf = d.reqNumber(ef, "rinf", Rate, positive, esrc)
		v.Nhalf = d.reqNumber(ef, "nhalf", Dimensionless, nonNegative, esrc)
		v.Nv = d.optNumber(ef, "nv", Dimensionless, nonNegative, esrc)
		out = append(out, v)
	}
	return out
}

// imh reads the IMH processor–memory terms.
func (d *decoder) imh(n *yaml.Node, inherited string) *IMH {
	f := d.mapping(n, "imh", "source", "T_n", "T_c", "T_e", "T_n_per")
	src := f.source(inherited)
	f.require("T_n_per")
	return &IMH{
		Tn:    d.reqNumber(f, "T_n", Time, nonNegative, src),
		Tc:    d.reqNumber(f, "T_c", Time, nonNegative, src),
		Te:    d.reqNumber(f, "T_e", Time, nonNegative, src),
		TnPer: f.choice("T_n_per", "element", "element", "byte"),
	}
}

// ---------------------------------------------------------------------------
// Memory

func (d *decoder) memory(n *yaml.Node) *Memory {
	f := d.mapping(n, "memory", memoryKeys()...)
	src := f.source("")
	m := &Memory{source: src}
	m.compose, _ = composeNamed(f.choice("compose", "sum", "sum", "max", "ecm"))
	m.caches = d.caches(f.get("caches"), src)
	m.main = d.optNumber(f, "main_bandwidth", Bandwidth, positive, src)
	if f.has("shared") {
		sf, ssrc := d.ownSourceSection(f.get("shared"), "memory.shared", "how streaming on every core was measured", "factor")
		m.shared = &SharedCopies{Factor: d.reqNumber(sf, "factor", Dimensionless, positive, ssrc), Source: ssrc}
		if m.shared.Factor.Value < 1 && sf.has("factor") {
			d.errorf(sf.get("factor"), "memory.shared factor %g is below 1: ranks streaming at once are at most as fast as one alone; write 1 or leave the section out", m.shared.Factor.Value)
		}
	}
	if f.has("write_allocate") {
		m.writeAllocate = f.choice("write_allocate", "true", "true", "false") == "true"
		m.writeAllocateGiven = true
	}
	if m.compose == ComposeECM {
		if missing := m.ecmMissing(); missing != "" {
			d.errorf(f.get("compose"), "compose: ecm needs %s", missing)
		}
	}
	m.bottlenecks = d.bottlenecks(f.get("bottleneck"), src)
	if f.has("cost") {
		m.cost = d.cost(f.get("cost"), "cost", setOf(varN, varLines, varStride, varBytes), src)
	}
	if f.has("global") {
		m.global = d.cost(f.get("global"), "global", setOf(varBytes, varP), src)
	}
	return m
}

// ecmMissing says what the memory section lacks for compose: ecm, which
// prices the lines brought into each level at the bandwidth of the level
// below it: a bandwidth on every cache level but the first, and
// main_bandwidth. It is "" when nothing is missing.
func (m *Memory) ecmMissing() string {
	var missing []string
	if len(m.caches) == 0 {
		missing = append(missing, "caches (the cache-line model counts the lines each level brings in)")
	}
	for i, c := range m.caches {
		if i > 0 && !c.Bandwidth.Given {
			missing = append(missing, "a bandwidth on cache "+c.Name+" (the rate at which it delivers lines to "+m.caches[i-1].Name+")")
		}
	}
	if !m.main.Given {
		missing = append(missing, "main_bandwidth (the rate at which memory delivers lines to the last level)")
	}
	return strings.Join(missing, ", ")
}

// caches reads the cache levels, L1 first.
func (d *decoder) caches(n *yaml.Node, inherited string) []Cache {
	var out []Cache
	for _, e := range d.list(n, "memory.caches") {
		f := d.mapping(e, "a cache level", "name", "size", "line", "assoc", "bandwidth", "line_cost", "source")
		src := f.source(inherited)
		name := f.requiredStr("name")
		t := CacheTable{Source: src, Assoc: -1}
		if name != "" && slices.ContainsFunc(out, func(o Cache) bool { return o.Name == name }) { // a level without a name is reported missing
			d.errorf(f.get("name"), "duplicate cache level '%s'", name)
		}
		t.Size = d.reqNumber(f, "size", Bytes, wholePositive, src)
		t.Line = d.optNumber(f, "line", Bytes, wholePositive, src)
		if t.Line.Value > 0 && math.Mod(t.Size.Value, t.Line.Value) != 0 {
			d.errorf(f.get("size"), "cache %s: size %s is not a multiple of the line %s", name, t.Size, t.Line)
		}
		t.Assoc = d.assoc(f)
		c := Cache{Level: cacheLevel(d.m.name, name, t), Table: t}
		c.Bandwidth = d.optNumber(f, "bandwidth", Bandwidth, positive, src)
		c.LineCost = d.optNumber(f, "line_cost", Time, nonNegative, src)
		out = append(out, c)
	}
	return out
}

// assoc reads the ways of a cache: a whole number, "full", or absent (-1).
func (d *decoder) assoc(f *fields) int {
	if !f.has("assoc") {
		return -1
	}
	s := f.str("assoc")
	if s == "full" {
		return 0
	}
	ways, err := strconv.Atoi(s)
	if err != nil || ways < 1 {
		d.errorf(f.get("assoc"), "assoc must be a whole number of ways or full, got '%s'", s)
		return -1
	}
	return ways
}

// bottlenecks reads the (r̂∞, f½) entries.
func (d *decoder) bottlenecks(n *yaml.Node, inherited string) []Bottleneck {
	var out []Bottleneck
	for _, e := range d.list(n, "memory.bottleneck") {
		f := d.mapping(e, "a bottleneck entry", "name", "rhat", "fhalf", "shalf", "source")
		src := f.source(inherited)
		b := Bottleneck{Name: f.requiredStr("name")}
		if b.Name != "" && slices.ContainsFunc(out, func(o Bottleneck) bool { return o.Name == b.Name }) { // an entry without a name is reported missing
			d.errorf(f.get("name"), "duplicate bottleneck entry '%s'", b.Name)
		}
		b.Rhat = d.reqNumber(f, "rhat", Rate, positive, src)
		b.Fhalf = d.reqNumber(f, "fhalf", Intensity, nonNegative, src)
		b.Shalf = d.optNumber(f, "shalf", Flop, nonNegative, src)
		out = append(out, b)
	}
	return out
}

// ---------------------------------------------------------------------------
// Messages

// hockneyKeys are the keys of one Hockney law.
func hockneyKeys() []string { return []string{"t0", "pi0", "rinf", "per_byte", "nhalf"} }

// messageModel reads a message model. Variants by element type (by_elem) are
// allowed only at the top, not inside a variant or a cluster.
func (d *decoder) messageModel(n *yaml.Node, what, inherited string, top bool) *MessageModel {
	keys := append(hockneyKeys(), "source", "model", "ranges", "L", "o", "g", "G", "time", "network", "eager_limit", "startup")
	if top {
		keys = append(keys, "by_elem", "exchange", "sendrecv", "sharing", "same_core", "local", "wakeup", "noise", "shared", "requests")
	}
	f := d.mapping(n, what, keys...)
	src := f.source(inherited)
	mm := &MessageModel{source: src}
	if src == "" {
		d.errorf(f.node, "%s has no source: add source: (paper, table or equation, line)", what)
	}
	model := f.choice("model", "", "hockney", "loggp", "expr")
	f.require("model")
	d.rejectForeignKeys(f, model)
	switch model {
	case "hockney":
		mm.kind = HockneyModel
		mm.ranges = d.hockneyRanges(f, src)
	case "loggp":
		mm.kind = LogGPModel
		mm.loggp = LogGP{
			L:          d.reqNumber(f, "L", Time, nonNegative, src),
			O:          d.reqNumber(f, "o", Time, nonNegative, src),
			Gap:        d.reqNumber(f, "g", Time, nonNegative, src),
			GapPerByte: d.reqNumber(f, "G", InvBandwidth, nonNegative, src),
		}
	case "expr":
		mm.kind = ExprModel
		if f.require("time") {
			mm.time = d.cost(f.get("time"), "time", setOf(varBytes, varLevel), src)
		}
	}
	mm.network = d.network(f.get("network"), src)
	mm.eager = d.optNumber(f, "eager_limit", Bytes, wholeNonNegative, src)
	if f.choice("startup", "per_step", "per_step", "per_pattern") == "per_pattern" {
		mm.startup = PerPattern
	}
	if top && f.has("by_elem") {
		mm.byElem = d.byElem(f.get("by_elem"), src)
	}
	if top && f.has("exchange") {
		mm.exchange = d.messageModel(f.get("exchange"), "messages.exchange", "", false)
	}
	if top && f.has("sendrecv") {
		mm.sendrecv = d.messageModel(f.get("sendrecv"), "messages.sendrecv", "", false)
	}
	if top && f.has("sharing") {
		mm.sharing = d.messageModel(f.get("sharing"), "messages.sharing", "", false)
	}
	if top && f.has("same_core") {
		mm.sameCore = d.messageModel(f.get("same_core"), "messages.same_core", "", false)
	}
	if top && f.has("local") {
		mm.local = d.messageModel(f.get("local"), "messages.local", "", false)
	}
	if top && f.has("wakeup") {
		mm.wakeup = d.wakeup(f.get("wakeup"))
	}
	if top && f.has("noise") {
		mm.noise = d.noise(f.get("noise"))
	}
	if top && f.has("shared") {
		mm.shared = d.sharedCopies(f.get("shared"))
	}
	if top && f.has("requests") {
		mm.requests = d.requests(f.get("requests"))
	}
	return mm
}

// requests reads messages.requests: the CPU time a non-blocking request
// costs its rank beyond the message's overheads, at its post and at the
// wait that completes it (docs/machines.md). It needs its own source: it
// is measured apart from the message law.
func (d *decoder) requests(n *yaml.Node) *Requests {
	f, src := d.ownSourceSection(n, "messages.requests", "how the cost of a request was measured", "post", "wait")
	return &Requests{
		Post:   d.reqNumber(f, "post", Time, nonNegative, src),
		Wait:   d.reqNumber(f, "wait", Time, nonNegative, src),
		Source: src,
	}
}

// sharedCopies reads messages.shared: how much longer a message's bytes
// take when ranks outnumber the cores and the cores copy messages at the
// same time (docs/machines.md). It needs its own source: it is measured
// apart from the message law (COMMS3).
func (d *decoder) sharedCopies(n *yaml.Node) *SharedCopies {
	f, src := d.ownSourceSection(n, "messages.shared", "how the slowdown of concurrent copies was measured", "factor")
	sc := &SharedCopies{
		Factor: d.reqNumber(f, "factor", Dimensionless, positive, src),
		Source: src,
	}
	if sc.Factor.Value < 1 && f.has("factor") {
		d.errorf(f.get("factor"), "messages.shared factor %g is below 1: concurrent copies are at most as fast as one alone (the emulation already runs one per core); write 1 or leave the section out", sc.Factor.Value)
	}
	return sc
}

// wakeup reads messages.wakeup: the time a rank that blocked in a message
// or barrier for longer than after takes to be woken (docs/machines.md).
// It needs its own source: it is measured apart from the message law.
func (d *decoder) wakeup(n *yaml.Node) *Wakeup {
	f, src := d.ownSourceSection(n, "messages.wakeup", "how the wake-up cost was measured", "time", "after")
	return &Wakeup{
		Time:   d.reqNumber(f, "time", Time, nonNegative, src),
		After:  d.reqNumber(f, "after", Time, nonNegative, src),
		Source: src,
	}
}

// ownSourceSection reads a section of messages measured apart from the
// message law (wakeup, noise, shared): a mapping of keys and a source of
// its own, which it must give (how says what the source should tell).
func (d *decoder) ownSourceSection(n *yaml.Node, what, how string, keys ...string) (*fields, string) {
	f := d.mapping(n, what, append(keys, "source")...)
	src := f.source("")
	if src == "" {
		d.errorf(f.node, "%s has no source: add source: (%s)", what, how)
	}
	return f, src
}

// rejectForeignKeys reports keys that belong to another model.
func (d *decoder) rejectForeignKeys(f *fields, model string) {
	owner := map[string]string{"ranges": "hockney", "L": "loggp", "o": "loggp", "g": "loggp", "G": "loggp", "time": "expr"}
	for _, k := range hockneyKeys() {
		owner[k] = "hockney"
	}
	for _, k := range f.order {
		if m, ok := owner[k]; ok && model != "" && m != model {
			d.errorf(f.keyAt[k], "'%s' belongs to model %s, not %s", k, m, model)
		}
	}
}

// hockneyRanges reads one Hockney law or a list of ranges of message length.
func (d *decoder) hockneyRanges(f *fields, src string) []Hockney {
	if !f.has("ranges") {
		return []Hockney{d.hockney(f, src)}
	}
	for _, k := range hockneyKeys() {
		if f.has(k) {
			d.errorf(f.keyAt[k], "'%s' cannot stand beside ranges: put it in a range", k)
		}
	}
	var out []Hockney
	items := d.list(f.get("ranges"), "ranges")
	for i, r := range items {
		rf := d.mapping(r, "a message range", append(hockneyKeys(), "below", "fitted_to", "source")...)
		h := d.hockney(rf, rf.source(src))
		h.Below = d.optNumber(rf, "below", Bytes, positive, rf.source(src))
		h.FittedTo = d.optNumber(rf, "fitted_to", Bytes, positive, rf.source(src))
		switch {
		case i < len(items)-1 && !h.Below.Given:
			d.errorf(rf.node, "every range but the last needs below: (the message length where the next range starts)")
		case i > 0 && h.Below.Given && h.Below.Value <= out[i-1].Below.Value:
			d.errorf(rf.get("below"), "ranges must be in increasing order of below")
		case h.FittedTo.Given && i == len(items)-1:
			d.errorf(rf.get("fitted_to"), "fitted_to belongs to a range that another follows (the longest length its law was fitted on, where the line to the next range's law at below starts): remove it from the last range")
		case h.FittedTo.Given && h.FittedTo.Value >= h.Below.Value:
			d.errorf(rf.get("fitted_to"), "fitted_to (%s) must be shorter than the range's below (%s): remove it when the range's points reach below", h.FittedTo, h.Below)
		case h.FittedTo.Given && i > 0 && h.FittedTo.Value < out[i-1].Below.Value:
			d.errorf(rf.get("fitted_to"), "fitted_to (%s) must not be shorter than the previous range's below (%s), where this range starts", h.FittedTo, out[i-1].Below)
		}
		out = append(out, h)
	}
	if len(out) == 0 {
		d.errorf(f.get("ranges"), "ranges must list at least one range")
	}
	return out
}

// consistency is how far a redundant Hockney parameter may differ from the
// value the others imply: the papers print three digits, and PARKBENCH Table
// C.2 rows agree within 3 %.
const consistency = 0.05

// hockney reads one Hockney law from any two independent parameters among
// t0 (or pi0), rinf (or per_byte) and nhalf, and computes the others ([001]
// eqs. 3.7, 3.10: t0 = n½/r∞, π0 = 1/t0). When t0 and r∞ are both given they
// define the law; further given values are kept as printed and must agree.
func (d *decoder) hockney(f *fields, src string) Hockney {
	t0 := d.optNumber(f, "t0", Time, positive, src)
	pi0 := d.optNumber(f, "pi0", Frequency, positive, src)
	rinf := d.optNumber(f, "rinf", Bandwidth, positive, src)
	perByte := d.optNumber(f, "per_byte", InvBandwidth, positive, src)
	nhalf := d.optNumber(f, "nhalf", Bytes, nonNegative, src)
	h := Hockney{T0: t0, Pi0: pi0, Rinf: rinf, Nhalf: nhalf}
	if !t0.Given && pi0.Given {
		h.T0 = computed(1/pi0.Value, Time, "t0 = 1/pi0")
	}
	if !rinf.Given && perByte.Given {
		h.Rinf = computed(1/perByte.Value, Bandwidth, "rinf = 1/per_byte")
		h.Rinf.Source = perByte.Source
	}
	haveT, haveR := h.T0.Value > 0, h.Rinf.Value > 0
	switch {
	case haveT && haveR:
	case haveT && nhalf.Given:
		h.Rinf = computed(nhalf.Value/h.T0.Value, Bandwidth, "rinf = nhalf/t0")
	case haveR && nhalf.Given:
		h.T0 = computed(nhalf.Value/h.Rinf.Value, Time, "t0 = nhalf/rinf ([001] eq. 3.7)")
	default:
		// Report only a law that is short of parameters, not one whose
		// parameters were present but wrong (reported already).
		present := 0
		for _, k := range hockneyKeys() {
			if f.has(k) {
				present++
			}
		}
		if present < 2 && f.node != nil && f.node.Kind == yaml.MappingNode {
			d.errorf(f.node, "a Hockney law needs two of t0 (or pi0), rinf (or per_byte) and nhalf")
		}
		return h
	}
	if !h.Nhalf.Given {
		h.Nhalf = computed(h.T0.Value*h.Rinf.Value, Bytes, "nhalf = t0*rinf")
	}
	if !h.Pi0.Given {
		h.Pi0 = computed(1/h.T0.Value, Frequency, "pi0 = 1/t0 ([001] eq. 3.10)")
	}
	d.agree(f, "pi0", h.Pi0.Value, 1/h.T0.Value)
	d.agree(f, "per_byte", perByte.Value, 1/h.Rinf.Value)
	d.agree(f, "nhalf", h.Nhalf.Value, h.T0.Value*h.Rinf.Value)
	return h
}

// computed is a Number perfc derived from others.
func computed(v float64, dim Dim, how string) Number {
	return Number{Quantity: Quantity{v, dim}, Source: "computed: " + how}
}

// agree reports a given redundant parameter that contradicts the law.
func (d *decoder) agree(f *fields, key string, given, implied float64) {
	if !f.has(key) || given == 0 || implied == 0 {
		return
	}
	if rel := math.Abs(given-implied) / math.Max(given, implied); rel > consistency {
		d.errorf(f.get(key), "'%s' disagrees by %.1f %% with the value the other parameters give (%s): check the table", key, 100*rel,
			formatNumber(implied, 4))
	}
}

// network reads the topology and the cost of distance; flat when absent.
func (d *decoder) network(n *yaml.Node, inherited string) Network {
	net := Network{Topology: "flat", BaseLevel: 1, Source: inherited}
	if n == nil {
		return net
	}
	f := d.mapping(n, "network", "topology", "arity", "per_level", "base_level", "source")
	src := f.source(inherited)
	net.Source = src
	net.Topology = f.choice("topology", "flat", "flat", "fat_tree")
	if net.Topology == "fat_tree" && f.require("arity") {
		arity := d.number(f.get("arity"), "arity", Dimensionless, wholePositive, src)
		net.Arity = int(arity.Value)
		if arity.Given && net.Arity < 2 {
			d.errorf(f.get("arity"), "a fat tree needs arity 2 or more")
			net.Arity = 2
		}
	}
	net.PerLevel = d.optNumber(f, "per_level", Time, nonNegative, src)
	if f.has("base_level") {
		net.BaseLevel = int(d.number(f.get("base_level"), "base_level", Dimensionless, wholeNonNegative, src).Value)
	}
	return net
}

// byElem reads the per-element-type variants of a message model.
func (d *decoder) byElem(n *yaml.Node, inherited string) map[string]*MessageModel {
	f := d.mapping(n, "by_elem", elemNames()...)
	out := map[string]*MessageModel{}
	for _, elem := range f.order {
		out[elem] = d.messageModel(f.get(elem), "messages.by_elem."+elem, inherited, false)
	}
	return out
}

// ---------------------------------------------------------------------------
// Collectives, cluster, disk, results

// collectiveKinds are the collective operations a table may price: the
// language's and the CM-5's segmented scan.
func collectiveKinds() []string {
	return []string{"bcast", "reduce", "allreduce", "scatter", "gather", "allgather", "alltoall", "scan", "segscan", "barrier"}
}

// reduceOps are the operators of reductions and scans.
func reduceOps() []string { return []string{"sum", "prod", "max", "min", "and", "or", "xor"} }

func (d *decoder) collectives(n *yaml.Node) *collectives {
	f := d.mapping(n, "collectives", "source", "entries", "algorithm", "alpha", "beta", "gamma")
	src := f.source("")
	c := &collectives{source: src, entries: map[collKey]*Cost{}, afterBarrier: map[collKey]*Cost{}}
	for _, e := range d.list(f.get("entries"), "collectives.entries") {
		d.collectiveEntry(e, c, src)
	}
	if f.choice("algorithm", "table", "table", "mpich") == "mpich" {
		c.mpich = d.mpich(f, src)
	} else {
		for _, k := range []string{"alpha", "beta", "gamma"} {
			if f.has(k) {
				d.errorf(f.keyAt[k], "'%s' is a parameter of algorithm: mpich", k)
			}
		}
	}
	return c
}

// collectiveEntry reads one entry: kinds, optional operators and element
// types (each a name or a list), and a time or a map of times by operator.
func (d *decoder) collectiveEntry(e *yaml.Node, c *collectives, src string) {
	f := d.mapping(e, "a collective entry", "kind", "op", "elem", "time", "after_barrier", "ops", "source")
	esrc := f.source(src)
	f.require("kind")
	kinds, ops, elems := f.names("kind"), f.names("op"), f.names("elem")
	for _, k := range kinds {
		if !slices.Contains(collectiveKinds(), k) {
			d.errorf(f.get("kind"), "unknown collective '%s' (want %s)", k, strings.Join(collectiveKinds(), ", "))
		}
	}
	for _, op := range ops {
		if !slices.Contains(reduceOps(), op) {
			d.errorf(f.get("op"), "unknown operator '%s' (want %s)", op, strings.Join(reduceOps(), ", "))
		}
	}
	for _, elem := range elems {
		d.checkElem(f.get("elem"), elem)
	}
	type opCost struct {
		op   string
		cost *Cost
	}
	var costs []opCost
	var afterBarrier *Cost // the time of a call right after a barrier (Machine.CollectiveAfterBarrier)
	if f.has("after_barrier") {
		if f.has("ops") {
			d.errorf(f.keyAt["after_barrier"], "after_barrier: goes with time:, not with ops: (give the operators an entry each)")
		} else {
			afterBarrier = d.cost(f.get("after_barrier"), "after_barrier", setOf(varBytes, varP), esrc)
		}
	}
	switch {
	case f.has("time") == f.has("ops"):
		d.errorf(f.node, "a collective entry needs either time: or ops: (a time per operator)")
		return
	case f.has("time"):
		cost := d.cost(f.get("time"), "time", setOf(varBytes, varP), esrc)
		if len(ops) == 0 {
			ops = []string{""}
		}
		for _, op := range ops {
			costs = append(costs, opCost{op, cost})
		}
	default:
		if len(ops) > 0 {
			d.errorf(f.keyAt["op"], "give either op: with time:, or ops:, not both")
		}
		of := d.mapping(f.get("ops"), "ops", reduceOps()...)
		for _, op := range of.order {
			if !isNull(of.get(op)) { // ~ transcribes an operation the paper leaves undefined
				costs = append(costs, opCost{op, d.cost(of.get(op), op, setOf(varBytes, varP), esrc)})
			}
		}
	}
	keyElems := elems
	if len(keyElems) == 0 {
		keyElems = []string{""}
	}
	for _, oc := range costs {
		if oc.cost == nil {
			continue // reported
		}
		c.rows = append(c.rows, collRow{kinds: kinds, elems: elems, op: oc.op, cost: oc.cost, afterBarrier: afterBarrier})
		for _, kind := range kinds {
			for _, elem := range keyElems {
				key := collKey{kind, oc.op, elem}
				if _, dup := c.entries[key]; dup {
					d.errorf(f.node, "duplicate collective entry for %s", describeKey(key))
				}
				c.entries[key] = oc.cost
				if afterBarrier != nil {
					c.afterBarrier[key] = afterBarrier
				}
			}
		}
	}
}

// describeKey names a collective entry: "reduce max f64", "bcast".
func describeKey(k collKey) string {
	return strings.Join(slices.DeleteFunc([]string{k.kind, k.op, k.elem}, func(s string) bool { return s == "" }), " ")
}

// mpich reads α, β, γ; α and β default to the message model's Hockney
// t0 and 1/r∞ (or LogGP L+2o and G), γ to zero.
func (d *decoder) mpich(f *fields, src string) *MPICH {
	p := &MPICH{
		Alpha: d.optNumber(f, "alpha", Time, nonNegative, src),
		Beta:  d.optNumber(f, "beta", InvBandwidth, nonNegative, src),
		Gamma: d.optNumber(f, "gamma", InvBandwidth, nonNegative, src),
	}
	mm := d.m.messages
	if !p.Alpha.Given || !p.Beta.Given {
		switch {
		case mm != nil && mm.kind == HockneyModel && len(mm.ranges) == 1:
			h := mm.ranges[0]
			alpha, beta := h.T0.Value, 1/h.Rinf.Value
			d.defaultNumber(&p.Alpha, alpha, Time, "alpha = t0 of the message model")
			d.defaultNumber(&p.Beta, beta, InvBandwidth, "beta = 1/rinf of the message model")
		case mm != nil && mm.kind == LogGPModel:
			g := mm.loggp
			d.defaultNumber(&p.Alpha, g.L.Value+2*g.O.Value, Time, "alpha = L + 2o of the message model")
			d.defaultNumber(&p.Beta, g.GapPerByte.Value, InvBandwidth, "beta = G of the message model")
		default:
			d.errorf(f.node, "algorithm: mpich needs alpha and beta here (the message model is not a single Hockney or LogGP law)")
		}
	}
	d.defaultNumber(&p.Gamma, 0, InvBandwidth, "gamma not given: local reduction not priced")
	return p
}

// defaultNumber fills an absent Number with a computed value.
func (d *decoder) defaultNumber(n *Number, v float64, dim Dim, how string) {
	if !n.Given {
		*n = computed(v, dim, how)
	}
}

func (d *decoder) cluster(n *yaml.Node) *Cluster {
	f := d.mapping(n, "cluster", "source", "node", "links", "inter")
	src := f.source("")
	c := &Cluster{source: src}
	if d.m.messages == nil {
		d.errorf(f.node, "a cluster needs messages: (the cost of a message inside a node)")
	}
	if f.require("node") {
		nf := d.mapping(f.get("node"), "node", "sx", "sy", "source")
		nsrc := nf.source(src)
		c.sx = d.reqNumber(nf, "sx", Dimensionless, wholeNonNegative, nsrc)
		c.sy = d.reqNumber(nf, "sy", Dimensionless, wholeNonNegative, nsrc)
	}
	if f.require("links") {
		lf := d.mapping(f.get("links"), "links", "lx", "ly", "source")
		lsrc := lf.source(src)
		c.lx = d.reqNumber(lf, "lx", Dimensionless, wholeNonNegative, lsrc)
		c.ly = d.reqNumber(lf, "ly", Dimensionless, wholeNonNegative, lsrc)
	}
	if f.require("inter") {
		c.inter = d.messageModel(f.get("inter"), "cluster.inter", src, false)
	}
	return c
}

func (d *decoder) disk(n *yaml.Node) *Disk {
	f := d.mapping(n, "disk", "source", "read", "write")
	src := f.source("")
	transfer := func(key string) Transfer {
		if !f.require(key) {
			return Transfer{}
		}
		tf := d.mapping(f.get(key), key, "startup", "bandwidth", "source")
		tsrc := tf.source(src)
		return Transfer{
			Startup:   d.reqNumber(tf, "startup", Time, nonNegative, tsrc),
			Bandwidth: d.reqNumber(tf, "bandwidth", Bandwidth, positive, tsrc),
		}
	}
	return &Disk{Read: transfer("read"), Write: transfer("write"), source: src}
}

func (d *decoder) results(n *yaml.Node) []Result {
	var out []Result
	for _, e := range d.list(n, "results") {
		f := d.mapping(e, "a result", "name", "value", "source")
		r := Result{Name: f.requiredStr("name")}
		if f.require("source") {
			r.Number = d.reqNumber(f, "value", anyDim, nonNegative, f.str("source"))
		}
		out = append(out, r)
	}
	return out
}
