package machines

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"
)

// TableSchema names the JSON form of a machine table (`perfc machines NAME
// -o json`, docs/machines.md): the YAML table's own keys, in its order,
// after a "schema" key.
const TableSchema = "perfc.machine/v1"

// WriteYAML writes the machine as a YAML table that Parse reads back to an
// equal machine. Without -M overrides that is the table as it was written,
// comments and all, so that it can be copied and edited; with overrides,
// each overridden parameter's value and source, and the compose and startup
// switches, are rewritten in place.
func (m *Machine) WriteYAML(w io.Writer) error {
	text, err := m.yamlText()
	if err != nil {
		return err
	}
	_, err = w.Write(text)
	return err
}

// WriteJSON writes the machine's YAML table as one indented JSON object
// with the same keys, "schema" first. Scalars keep YAML's reading: numbers,
// booleans and null stay so, quantities such as 84.65us are strings.
func (m *Machine) WriteJSON(w io.Writer) error {
	text, err := m.yamlText()
	if err != nil {
		return err
	}
	root, err := parseYAML(m.file, text)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	buf.WriteString(`{"schema":` + strconv.Quote(TableSchema))
	if root.Kind == yaml.MappingNode && len(root.Content) > 0 {
		buf.WriteByte(',')
		body, err := jsonOf(root)
		if err != nil {
			return err
		}
		buf.Write(body[1:]) // the table's own object, without its '{'
	} else {
		buf.WriteByte('}')
	}
	var out bytes.Buffer
	if err := json.Indent(&out, buf.Bytes(), "", "  "); err != nil {
		return fmt.Errorf("machines: indenting the JSON of %s: %w", m.name, err)
	}
	out.WriteByte('\n')
	_, err = w.Write(out.Bytes())
	return err
}

// jsonOf converts a YAML node to compact JSON, keeping the order of keys.
func jsonOf(n *yaml.Node) ([]byte, error) {
	n = deref(n)
	var buf bytes.Buffer
	switch n.Kind {
	case yaml.MappingNode:
		buf.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				buf.WriteByte(',')
			}
			key, _ := json.Marshal(deref(n.Content[i]).Value)
			value, err := jsonOf(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			buf.Write(key)
			buf.WriteByte(':')
			buf.Write(value)
		}
		buf.WriteByte('}')
	case yaml.SequenceNode:
		buf.WriteByte('[')
		for i, item := range n.Content {
			if i > 0 {
				buf.WriteByte(',')
			}
			value, err := jsonOf(item)
			if err != nil {
				return nil, err
			}
			buf.Write(value)
		}
		buf.WriteByte(']')
	default:
		if n.ShortTag() == "!!timestamp" {
			// A date (host: {date: 2026-11-25}) stays as written, not a
			// time of day in UTC.
			b, _ := json.Marshal(n.Value)
			buf.Write(b)
			break
		}
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, fmt.Errorf("machines: line %d: %w", n.Line, err)
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("machines: line %d: %w", n.Line, err)
		}
		buf.Write(b)
	}
	return buf.Bytes(), nil
}

// yamlText is the table's text with the overrides written into it.
func (m *Machine) yamlText() ([]byte, error) {
	if len(m.overrides) == 0 {
		return m.data, nil
	}
	var doc yaml.Node
	if err := yaml.Load(m.data, &doc); err != nil {
		return nil, fmt.Errorf("machines: rereading %s: %w", m.file, err)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	for _, p := range m.params {
		if strings.HasPrefix(p.Source, "override ") {
			param := child(child(root, "params"), p.Name)
			setScalar(param, "value", exactQuantity(p.Number))
			setScalar(param, "source", p.Source)
		}
	}
	params := child(root, "params")
	for _, a := range m.overrides {
		switch a.Name {
		default:
			if isPathOverride(a, params) {
				if _, err := setPath(root, a, 0); err != "" {
					return nil, fmt.Errorf("machines: %s: %s", a.origin(), err)
				}
			}
		case "compose":
			setScalar(ensureMapping(root, "memory"), "compose", a.Value)
		case "startup":
			messages := child(root, "messages")
			setScalar(messages, "startup", a.Value)
			byElem := child(messages, "by_elem")
			for i := 1; byElem != nil && i < len(byElem.Content); i += 2 {
				setScalar(deref(byElem.Content[i]), "startup", a.Value)
			}
			setScalar(child(child(root, "cluster"), "inter"), "startup", a.Value)
		}
	}
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, fmt.Errorf("machines: writing %s: %w", m.file, err)
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// exactQuantity writes a number in its unit with as many digits as it takes
// to read back the same value.
func exactQuantity(n Number) string {
	if n.Unit == "" {
		return strconv.FormatFloat(n.Value, 'g', -1, 64)
	}
	u, err := parseUnit(n.Unit)
	if err != nil || u.dim != n.Dim {
		return n.String()
	}
	return strconv.FormatFloat(u.from(n.Value), 'g', -1, 64) + n.Unit
}

// child returns the value of key in a mapping node, or nil.
func child(n *yaml.Node, key string) *yaml.Node {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if deref(n.Content[i]).Value == key {
			return deref(n.Content[i+1])
		}
	}
	return nil
}

// ensureMapping returns the mapping under key, adding an empty one if the
// table has none.
func ensureMapping(n *yaml.Node, key string) *yaml.Node {
	if c := child(n, key); c != nil {
		return c
	}
	c := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, c)
	return c
}

// setScalar sets key of a mapping node to a string, adding the key if it
// is missing; a nil node (a section the table does not have) is left alone.
func setScalar(n *yaml.Node, key, value string) {
	if n == nil || n.Kind != yaml.MappingNode {
		return
	}
	scalar := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if deref(n.Content[i]).Value == key {
			scalar.LineComment = n.Content[i+1].LineComment
			n.Content[i+1] = scalar
			return
		}
	}
	n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, scalar)
}
