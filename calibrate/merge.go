package calibrate

import (
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v4"

	"perfc/calibrate/host"
	"perfc/machines"
)

// MergeInto writes the communication benchmarks of r (a calibration run
// with OnlyComms) into base, a table of this host that perfc calibrate
// wrote (file names it in errors): its messages, collectives and ranks
// sections are replaced, its results of COMMS2, COMMS3, the collectives
// and SYNCH1 replaced by r's, and its source says so; every other key is
// kept as it is. Why: on a host whose copies between cores run slow in
// spells (docs/calibrate.md, "Waiting for the host"), the message laws
// are the part of a calibration that most often catches a bad moment, and
// they take half of a full run; measuring them again alone took 6 minutes
// with the host's waits (2026-11-27), the whole calibration 5.5-9. The base must
// describe this host (its host.cpu and host.cores): a table of another
// machine with these messages would be neither.
func (r *Result) MergeInto(base []byte, file string) ([]byte, error) {
	if r.Comms == nil {
		return nil, errors.New("calibrate: no communication benchmarks to write")
	}
	if _, err := machines.Parse(file, base); err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(base, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: a machine table is a mapping of keys", file)
	}
	top := doc.Content[0]
	if err := r.sameHost(top, file); err != nil {
		return nil, err
	}
	c, err := r.commsSections()
	if err != nil {
		return nil, err
	}
	for _, kv := range []struct {
		key string
		v   any
	}{{"messages", c.messages}, {"collectives", c.collectives}, {"ranks", c.ranks}} {
		if err := setKey(top, kv.key, kv.v); err != nil {
			return nil, err
		}
	}
	if err := r.mergeResults(top, c.results); err != nil {
		return nil, err
	}
	if src := value(top, "source"); src != nil && src.Kind == yaml.ScalarNode {
		src.Value = strings.TrimSuffix(src.Value, ".") + fmt.Sprintf("; messages and collectives measured again by perfc calibrate --comms-into (%s mode), %s, took %s%s",
			r.Mode, r.Date, r.Elapsed.Round(1e9), settleNote(r.Settle))
		src.Style = 0
	}
	top.HeadComment = "" // the base's header, which this one replaces
	if len(top.Content) > 0 {
		top.Content[0].HeadComment = ""
	}
	out, err := encodeTable("# Machine table of this host, written by perfc calibrate (docs/calibrate.md); its messages and collectives by perfc calibrate --comms-into.\n", top)
	if err != nil {
		return nil, err
	}
	if _, err := machines.Parse(file, out); err != nil {
		return nil, fmt.Errorf("calibrate: the merged table does not load: %w", err)
	}
	return out, nil
}

// CheckCommsBase reports whether base (file) can take this host's
// communication benchmarks (MergeInto): a table that loads and describes
// this host. perfc calibrate --comms-into checks it before minutes of
// benchmarks.
func CheckCommsBase(base []byte, file string) error {
	if _, err := machines.Parse(file, base); err != nil {
		return err
	}
	info, err := host.Read()
	if err != nil {
		return err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(base, &doc); err != nil || len(doc.Content) != 1 {
		return fmt.Errorf("%s: not a machine table", file)
	}
	return (&Result{Host: info}).sameHost(doc.Content[0], file)
}

// sameHost reports an error when the table's host is not this one.
func (r *Result) sameHost(top *yaml.Node, file string) error {
	h := value(top, "host")
	if h == nil || h.Kind != yaml.MappingNode {
		return fmt.Errorf("%s:%d:%d: the table has no host: section: --comms-into takes a table that perfc calibrate wrote on this host", file, top.Line, top.Column)
	}
	cpu, cores := value(h, "cpu"), value(h, "cores")
	if cpu == nil || cores == nil || cpu.Value != r.Host.CPU || cores.Value != fmt.Sprint(r.Host.Cores) {
		got, at := "?", h
		if cpu != nil && cores != nil {
			got, at = fmt.Sprintf("%s, %s cores", cpu.Value, cores.Value), cpu
		}
		return fmt.Errorf("%s:%d:%d: the table describes %s; this host is %s, %d cores: calibrate this host whole (perfc calibrate -o FILE)",
			file, at.Line, at.Column, got, r.Host.CPU, r.Host.Cores)
	}
	return nil
}

// mergeResults replaces the results of the communication benchmarks in
// top's results: list by the new ones.
func (r *Result) mergeResults(top *yaml.Node, fresh []any) error {
	var kept []*yaml.Node
	if old := value(top, "results"); old != nil && old.Kind == yaml.SequenceNode {
		for _, e := range old.Content {
			if n := value(e, "name"); n == nil || !isCommsResult(n.Value) {
				kept = append(kept, e)
			}
		}
	}
	for _, f := range fresh {
		var n yaml.Node
		if err := n.Encode(f); err != nil {
			return err
		}
		kept = append(kept, &n)
	}
	if len(kept) == 0 {
		return nil
	}
	setNode(top, "results", &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: kept})
	return nil
}

// isCommsResult reports whether a result of a table was written by the
// communication benchmarks (comms.Result.Results).
func isCommsResult(name string) bool {
	for _, p := range []string{"COMMS1", "COMMS2", "COMMS3", "COLL ", "SYNCH1"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// value is the value node of key in mapping m, or nil.
func value(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// setKey sets key of mapping m to v, encoded, in its place or at the end.
func setKey(m *yaml.Node, key string, v any) error {
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return err
	}
	setNode(m, key, &n)
	return nil
}

// setNode sets key of mapping m to n, in its place or at the end.
func setNode(m *yaml.Node, key string, n *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = n
			return
		}
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, n)
}
