package machines

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Difference is one value of two machine tables set side by side
// (Compare): the key path as perfc machines -o json names it
// ("memory.main_bandwidth.value", "compute.ops.entries[op=add].f64"), the
// two values as the tables write them, and, when both are quantities of
// one dimension, the relative change from the first to the second.
type Difference struct {
	Key string `json:"key"`
	A   string `json:"a"` // the first table's value; "" when only the second has the key
	B   string `json:"b"` // the second table's
	// Change is (B − A)/|A| for quantities of one dimension (0 when both
	// are 0, ±Inf when only A is); Numeric says it was computed.
	Change  float64 `json:"change"`
	Numeric bool    `json:"numeric"`
	// Beyond says that the two differ by more than the tolerance (a
	// quantity), or at all (any other value, or a key only one table has).
	Beyond bool `json:"beyond"`
}

// Comparison is two machine tables set side by side, value by value.
type Comparison struct {
	A, B      string       // the tables' names
	Tolerance float64      // relative, as given to Compare
	Values    []Difference // every value either table has but sources and descriptions, in the first table's order
}

// Agree counts the quantities both tables have and those of them within
// the tolerance.
func (c *Comparison) Agree() (within, numeric int) {
	for _, d := range c.Values {
		if d.Numeric {
			numeric++
			if !d.Beyond {
				within++
			}
		}
	}
	return within, numeric
}

// skippedKeys are the keys whose values describe where a number came from
// rather than the machine: two calibrations always differ in them.
var skippedKeys = []string{"source", "description", "date", "name"}

// Compare sets two machine tables side by side: every value of their
// YAML tables (as WriteJSON writes them) but sources, descriptions, dates
// and names, matched by key path; list entries by their op, kind, name or
// level when they have one, by position otherwise. Quantities of one
// dimension ("58.14GB/s", "0.2874ns", a plain number) are compared by
// their relative change, beyond tol when |change| > tol; any other value
// (a formula, a choice, a quantity of another dimension) differs when its
// text does. It is how two calibrations of one host are checked against
// each other (docs/calibrate.md, "Time and agreement").
func Compare(a, b *Machine, tol float64) (*Comparison, error) {
	ta, err := tableTree(a)
	if err != nil {
		return nil, err
	}
	tb, err := tableTree(b)
	if err != nil {
		return nil, err
	}
	c := &Comparison{A: a.Name(), B: b.Name(), Tolerance: tol}
	c.walk("", ta, tb)
	c.laws(a, b)
	return c, nil
}

// lawSizes are the message lengths at which two tables' message laws are
// compared: a law's ranges may split at other lengths in two calibrations,
// so their t0, r∞ and n½ alone do not say whether the laws agree.
var lawSizes = []float64{8, 1 << 10, 64 << 10, 1 << 20, 4 << 20}

// laws compares the times of the message laws both tables have at
// lawSizes ("messages.local at 64KiB").
func (c *Comparison) laws(a, b *Machine) {
	for _, l := range []struct {
		key string
		law func(*Machine) *MessageModel
	}{
		{"messages", func(m *Machine) *MessageModel { return m.Messages("") }},
		{"messages.exchange", (*Machine).Exchange},
		{"messages.sendrecv", (*Machine).SendRecv},
		{"messages.sharing", (*Machine).SharingMessages},
		{"messages.same_core", (*Machine).SameCoreMessages},
		{"messages.local", (*Machine).LocalMessages},
	} {
		la, lb := l.law(a), l.law(b)
		if la == nil || lb == nil {
			continue
		}
		for _, n := range lawSizes {
			ta, tb := la.Time(n, 0), lb.Time(n, 0)
			qa, qb := Quantity{ta, Time}, Quantity{tb, Time}
			c.leaf(fmt.Sprintf("%s at %s", l.key, Quantity{n, Bytes}), qa.format(displayUnit(qa), 4), qb.format(displayUnit(qb), 4))
		}
	}
	for _, kind := range collectiveKinds() {
		ca, oka := a.Collective(kind, "", "")
		cb, okb := b.Collective(kind, "", "")
		if !oka || !okb {
			continue
		}
		for _, at := range collectivePoints {
			bytes := at.bytes
			if kind == "barrier" {
				bytes = 0
			}
			qa, qb := Quantity{ca.Eval(Vars{Bytes: bytes, P: at.p}), Time}, Quantity{cb.Eval(Vars{Bytes: bytes, P: at.p}), Time}
			key := fmt.Sprintf("collectives %s at %s, P=%g", kind, Quantity{bytes, Bytes}, at.p)
			if kind == "barrier" {
				key = fmt.Sprintf("collectives barrier at P=%g", at.p)
			}
			if !slices.ContainsFunc(c.Values, func(d Difference) bool { return d.Key == key }) {
				c.leaf(key, qa.format(displayUnit(qa), 4), qb.format(displayUnit(qb), 4))
			}
		}
		ia, oka := a.CollectiveAfterBarrier(kind, "", "")
		ib, okb := b.CollectiveAfterBarrier(kind, "", "")
		if !oka || !okb {
			continue
		}
		for _, at := range collectivePoints {
			qa, qb := Quantity{ia.Eval(Vars{Bytes: at.bytes, P: at.p}), Time}, Quantity{ib.Eval(Vars{Bytes: at.bytes, P: at.p}), Time}
			key := fmt.Sprintf("collectives %s after a barrier at %s, P=%g", kind, Quantity{at.bytes, Bytes}, at.p)
			if !slices.ContainsFunc(c.Values, func(d Difference) bool { return d.Key == key }) {
				c.leaf(key, qa.format(displayUnit(qa), 4), qb.format(displayUnit(qb), 4))
			}
		}
	}
}

// collectivePoints are the sizes and rank counts at which Compare
// evaluates two tables' collective costs (their formulas may differ in
// shape and still agree).
var collectivePoints = []struct{ bytes, p float64 }{{8, 2}, {4 << 10, 4}, {256 << 10, 4}}

// tableTree is a machine's table as WriteJSON writes it, decoded with its
// keys in order.
func tableTree(m *Machine) (*orderedObject, error) {
	var buf bytes.Buffer
	if err := m.WriteJSON(&buf); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(&buf)
	dec.UseNumber()
	v, err := decodeOrdered(dec)
	if err != nil {
		return nil, fmt.Errorf("machines: reading the JSON of %s back: %w", m.Name(), err)
	}
	obj, ok := v.(*orderedObject)
	if !ok {
		return nil, fmt.Errorf("machines: the JSON of %s is not an object", m.Name())
	}
	return obj, nil
}

// orderedObject is a JSON object with its keys in the order written.
type orderedObject struct {
	keys   []string
	values map[string]any
}

// decodeOrdered decodes one JSON value, objects as *orderedObject, arrays
// as []any, numbers as json.Number.
func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := &orderedObject{values: map[string]any{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := kt.(string)
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				if _, dup := obj.values[key]; !dup {
					obj.keys = append(obj.keys, key)
				}
				obj.values[key] = v
			}
			_, err := dec.Token() // '}'
			return obj, err
		case '[':
			var list []any
			for dec.More() {
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			_, err := dec.Token() // ']'
			return list, err
		}
	}
	return tok, nil
}

// walk compares two values at path.
func (c *Comparison) walk(path string, a, b any) {
	switch {
	case a == nil && b == nil:
		return
	case isObject(a) && isObject(b):
		oa, ob := a.(*orderedObject), b.(*orderedObject)
		for _, k := range oa.keys {
			if !slices.Contains(skippedKeys, k) {
				c.walk(join(path, k), oa.values[k], ob.values[k])
			}
		}
		for _, k := range ob.keys {
			if _, ok := oa.values[k]; !ok && !slices.Contains(skippedKeys, k) {
				c.walk(join(path, k), nil, ob.values[k])
			}
		}
	case isList(a) && isList(b):
		if sa, sb := splits(a.([]any)), splits(b.([]any)); sa != sb {
			// Two fits that split a law's lengths at other points have
			// ranges that do not correspond: their laws are compared at
			// fixed lengths instead (laws), and the splits here.
			c.Values = append(c.Values, Difference{Key: path + " (split at)", A: sa, B: sb, Beyond: true})
			return
		}
		c.walkList(path, a.([]any), b.([]any))
	case isObject(a) || isList(a) || isObject(b) || isList(b):
		// A section one table has (or writes in another shape) and the
		// other does not: each of its values is on one side only.
		if a != nil {
			c.oneSide(path, a, true)
		}
		if b != nil {
			c.oneSide(path, b, false)
		}
	default:
		c.leaf(path, a, b)
	}
}

// walkList compares two lists entry by entry: by each entry's identity
// (op, kind, name, level) when every entry has one, by position otherwise.
func (c *Comparison) walkList(path string, a, b []any) {
	ida, idb := identities(a), identities(b)
	if ida == nil || idb == nil {
		for i := range max(len(a), len(b)) {
			var x, y any
			if i < len(a) {
				x = a[i]
			}
			if i < len(b) {
				y = b[i]
			}
			c.walk(fmt.Sprintf("%s[%d]", path, i), x, y)
		}
		return
	}
	for i, id := range ida {
		j := slices.Index(idb, id)
		var y any
		if j >= 0 {
			y = b[j]
		}
		c.walk(path+"["+id+"]", a[i], y)
	}
	for j, id := range idb {
		if !slices.Contains(ida, id) {
			c.walk(path+"["+id+"]", nil, b[j])
		}
	}
}

// splits lists where a Hockney law's ranges end ("32B, 16KiB"), or ""
// for a list that is not one of ranges.
func splits(list []any) string {
	var ends []string
	for _, e := range list {
		obj, ok := e.(*orderedObject)
		if !ok {
			return ""
		}
		_, t0 := obj.values["t0"]
		below, ok := obj.values["below"].(string)
		switch {
		case !t0:
			return ""
		case ok:
			ends = append(ends, below)
		}
	}
	return strings.Join(ends, ", ")
}

// identityKeys name a list entry, in the order tried.
var identityKeys = []string{"op", "kind", "name", "level"}

// identities names every entry of a list by its first identity key
// ("op=add"), or returns nil when some entry has none or two share one.
func identities(list []any) []string {
	ids := make([]string, 0, len(list))
	for _, e := range list {
		obj, ok := e.(*orderedObject)
		if !ok {
			return nil
		}
		id := ""
		for _, k := range identityKeys {
			if s, ok := obj.values[k].(string); ok {
				id = k + "=" + s
				break
			}
		}
		if id == "" || slices.Contains(ids, id) {
			return nil
		}
		ids = append(ids, id)
	}
	return ids
}

// oneSide records every value under v as present in one table only.
func (c *Comparison) oneSide(path string, v any, inA bool) {
	if inA {
		c.walk(path, v, placeholder(v))
	} else {
		c.walk(path, placeholder(v), v)
	}
}

// missing stands for a value the other table does not have.
type missing struct{}

// placeholder is a value of v's shape whose leaves are missing.
func placeholder(v any) any {
	switch t := v.(type) {
	case *orderedObject:
		p := &orderedObject{keys: t.keys, values: map[string]any{}}
		for _, k := range t.keys {
			p.values[k] = placeholder(t.values[k])
		}
		return p
	case []any:
		p := make([]any, len(t))
		for i, e := range t {
			p[i] = placeholder(e)
		}
		return p
	}
	return missing{}
}

// leaf compares two scalars (either may be nil or missing: not in that
// table).
func (c *Comparison) leaf(path string, a, b any) {
	d := Difference{Key: path, A: scalarText(a), B: scalarText(b)}
	qa, oka := scalarQuantity(a)
	qb, okb := scalarQuantity(b)
	switch {
	case oka && okb && qa.Dim == qb.Dim:
		d.Numeric = true
		switch {
		case qa.Value == qb.Value:
			d.Change = 0
		case qa.Value == 0:
			d.Change = math.Inf(int(math.Copysign(1, qb.Value)))
		default:
			d.Change = (qb.Value - qa.Value) / math.Abs(qa.Value)
		}
		d.Beyond = math.Abs(d.Change) > c.Tolerance
	default:
		d.Beyond = d.A != d.B
	}
	c.Values = append(c.Values, d)
}

// scalarText is a scalar as the table writes it; "" for a value the
// table does not have.
func scalarText(v any) string {
	switch t := v.(type) {
	case nil, missing:
		return ""
	case string:
		return t
	case json.Number:
		return t.String()
	case bool:
		return strconv.FormatBool(t)
	}
	return fmt.Sprint(v)
}

// scalarQuantity reads a scalar as a quantity: a JSON number, or a string
// such as "58.14GB/s" or "1.563".
func scalarQuantity(v any) (Quantity, bool) {
	switch t := v.(type) {
	case json.Number:
		f, err := t.Float64()
		return Quantity{f, Dimensionless}, err == nil
	case string:
		q, err := ParseQuantity(t)
		return q, err == nil && !math.IsNaN(q.Value) && !math.IsInf(q.Value, 0)
	}
	return Quantity{}, false
}

func isObject(v any) bool { _, ok := v.(*orderedObject); return ok }
func isList(v any) bool   { _, ok := v.([]any); return ok }

// join appends a key to a path.
func join(path, key string) string {
	if path == "" {
		return key
	}
	if strings.ContainsAny(key, ".[]") {
		key = strconv.Quote(key)
	}
	return path + "." + key
}
