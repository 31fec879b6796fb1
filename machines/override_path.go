package machines

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"

	"perfc/lang"
)

// Overrides by path. A table that perfc calibrate wrote has no params:
// every number is a literal of its section, so a what-if study on the
// table a user actually has (-M core_switch=0.3us, -M
// compute.core.entry=0.5) needs to name the value where it is. An
// assignment whose name is neither a parameter nor a switch is a path
// into the table: keys separated by dots, and in a list an index from 0
// or the entry whose name, kind or level is the segment
// (collectives.entries.scatter.after_barrier, memory.caches.L2.bandwidth). Its
// value is YAML (a number with its unit, a list, a mapping) and replaces
// the node at the path before the table is decoded, so that it is checked
// as the table's own text is: dimension, range, the section's keys. The
// last key may be one the section lacks (core_switch in a table without
// it); the decoder refuses it if the section has no such key. The
// section's source, if it has one, says that the value was overridden,
// and errors about the new value are the assignment's, not the table's
// line's.

// pathOverride is one assignment applied by path: the position its new
// nodes carry, a line no node of the table has (the assignment's index,
// negated), so that the decoder's errors there, and only those, are the
// assignment's; and where it was written.
type pathOverride struct {
	line, col int
	origin    string
}

// applyPathOverrides applies to root, in order, every assignment that is
// not a parameter of the table or a switch, marking it applied; it
// returns where each applied one sits, and records an error for each
// path that does not resolve or value that is not YAML.
func (d *decoder) applyPathOverrides(root *yaml.Node) []pathOverride {
	params := child(root, "params")
	var done []pathOverride
	for i, a := range d.overrides {
		if !isPathOverride(a, params) {
			continue
		}
		d.applied[i] = true
		if at, err := setPath(root, a, i); err != "" {
			addError(&d.errs, a.origin(), 0, 0, "%s", err)
		} else {
			done = append(done, at)
		}
	}
	return done
}

// isPathOverride reports whether an assignment is a path into the table:
// not a switch, not one of the table's params, and with a dot or naming a
// top-level key (core_switch), so that a misspelt parameter is reported
// as one, with the table's parameters listed (reportUnknownOverrides).
func isPathOverride(a Assignment, params *yaml.Node) bool {
	if a.Name == "compose" || a.Name == "startup" || child(params, a.Name) != nil {
		return false
	}
	return strings.Contains(a.Name, ".") || slices.Contains(machineKeys(), a.Name)
}

// setPath replaces the node at a's path by a's value, the id-th override,
// or explains why it cannot ("" when it did).
func setPath(root *yaml.Node, a Assignment, id int) (pathOverride, string) {
	segs := strings.Split(a.Name, ".")
	if !isPath(segs) {
		return pathOverride{}, fmt.Sprintf("'%s' is not a path into the table (keys separated by dots, such as compute.core.entry or memory.caches.L2.bandwidth)", a.Name)
	}
	value, err := valueNode(a.Value)
	if err != "" {
		return pathOverride{}, err
	}
	n, where := deref(root), "the table"
	for i, seg := range segs[:len(segs)-1] {
		next, err := step(n, seg, where)
		if err != "" {
			return pathOverride{}, err
		}
		n, where = next, strings.Join(segs[:i+1], ".")
	}
	last := segs[len(segs)-1]
	at := pathOverride{line: -1 - id, col: 1, origin: a.origin()}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if deref(n.Content[i]).Value == last {
				value.LineComment = n.Content[i+1].LineComment
				n.Content[i+1] = value
				place(value, at)
				noteOverride(n, last, a)
				return at, ""
			}
		}
		key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: last, Line: at.line, Column: at.col}
		n.Content = append(n.Content, key, value)
		place(value, at)
		noteOverride(n, last, a)
		return at, ""
	case yaml.SequenceNode:
		j, err := entry(n, last, where)
		if err != "" {
			return pathOverride{}, err
		}
		n.Content[j] = value
		place(value, at)
		return at, ""
	}
	return pathOverride{}, fmt.Sprintf("%s is a value, not a section: it has no '%s'", where, last)
}

// isPath reports whether every segment of a path is non-empty and
// without spaces.
func isPath(segs []string) bool {
	for _, s := range segs {
		if s == "" || strings.ContainsAny(s, " \t=") {
			return false
		}
	}
	return true
}

// valueNode parses an override's value as one YAML node.
func valueNode(text string) (*yaml.Node, string) {
	var doc yaml.Node
	if err := yaml.Load([]byte(text), &doc); err != nil || doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, fmt.Sprintf("the value '%s' is not one YAML value (a number with its unit such as 0.3us, a list in brackets, a mapping in braces)", text)
	}
	if err := checkAliases("", doc.Content[0]); err != nil {
		var l ErrorList
		if errors.As(err, &l) && len(l) > 0 {
			return nil, "the value's " + l[0].Msg
		}
		return nil, err.Error()
	}
	return doc.Content[0], ""
}

// step goes from a section to its child seg: a mapping's key, a list's
// entry (entry).
func step(n *yaml.Node, seg, where string) (*yaml.Node, string) {
	switch n.Kind {
	case yaml.MappingNode:
		if c := child(n, seg); c != nil {
			return c, ""
		}
		return nil, fmt.Sprintf("%s has no '%s' (its keys: %s)", where, seg, strings.Join(mappingKeys(n), ", "))
	case yaml.SequenceNode:
		j, err := entry(n, seg, where)
		if err != "" {
			return nil, err
		}
		return deref(n.Content[j]), ""
	}
	return nil, fmt.Sprintf("%s is a value, not a section: it has no '%s'", where, seg)
}

// entry finds a list's entry: seg an index from 0, or the value of an
// entry's name, kind or level. Not compare.go's identityKeys, which try op
// first: a collective entry with an op (allreduce's sum) would then be
// named by its op, not by its kind.
func entry(n *yaml.Node, seg, where string) (int, string) {
	if j, err := strconv.Atoi(seg); err == nil {
		if j < 0 || j >= len(n.Content) {
			return 0, fmt.Sprintf("%s has %d entries: '%s' is not an index from 0 to %d", where, len(n.Content), seg, len(n.Content)-1)
		}
		return j, ""
	}
	var names []string
	for j, e := range n.Content {
		for _, key := range []string{"name", "kind", "level"} {
			if c := child(e, key); c != nil && c.Kind == yaml.ScalarNode {
				if c.Value == seg {
					return j, ""
				}
				names = append(names, c.Value)
				break
			}
		}
	}
	if len(names) == 0 {
		return 0, fmt.Sprintf("%s is a list of %d entries: give an index from 0, not '%s'", where, len(n.Content), seg)
	}
	return 0, fmt.Sprintf("%s has no entry '%s' (give an index from 0 or one of: %s)", where, seg, strings.Join(names, ", "))
}

// mappingKeys lists a mapping's keys in order.
func mappingKeys(n *yaml.Node) []string {
	var keys []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		keys = append(keys, deref(n.Content[i]).Value)
	}
	return keys
}

// place puts every node of a value at the override's position, so that
// the decoder's errors about it are found (annotateOverrides).
func place(n *yaml.Node, at pathOverride) {
	n.Line, n.Column = at.line, at.col
	for _, c := range n.Content {
		place(c, at)
	}
}

// noteOverride appends to the source of the mapping holding an
// overridden key (when it has one) that the key was set by the
// assignment, so that the table printed with it says where the value came
// from.
func noteOverride(n *yaml.Node, key string, a Assignment) {
	if key == "source" {
		return
	}
	if src := child(n, "source"); src != nil && src.Kind == yaml.ScalarNode {
		src.Value += fmt.Sprintf("; %s set by %s", key, a.origin())
		src.Style = 0
	}
}

// annotateOverrides moves every error at the position of an overridden
// value to the assignment that set it: the value is not in the table's
// text, so a caret under the line it replaced would point at what the
// user did not write. Any other error of the table says which paths were
// set, since one of them may be its cause (an r∞ overridden beside an
// n½ that no longer agrees with it).
func (d *decoder) annotateOverrides(done []pathOverride) {
	if len(done) == 0 {
		return
	}
	var all []string
	for _, at := range done {
		all = append(all, at.origin)
	}
	with := " (with " + strings.Join(all, ", ") + ")"
	for _, e := range d.errs {
		moved := false
		for _, at := range done {
			if e.Pos.Filename == d.file && e.Pos.Line == at.line && e.Pos.Col == at.col {
				e.Pos, moved = lang.Position{Filename: at.origin}, true
				break
			}
		}
		if !moved && e.Pos.Filename == d.file {
			e.Msg += with
		}
	}
}
