package machines

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v4"
)

// describe returns what perfc machines NAME prints for m: every number with
// its unit and source, which is how two machines are compared here.
func describe(t *testing.T, m *Machine) string {
	t.Helper()
	var b bytes.Buffer
	if err := m.Describe(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestWriteYAMLRoundTrip checks that the YAML of every built-in table, and
// of tables with overrides and switches, loads back to an equal machine.
func TestWriteYAMLRoundTrip(t *testing.T) {
	type variant struct {
		name      string
		overrides []string
	}
	var tests []variant
	for _, name := range BuiltinNames() {
		tests = append(tests, variant{name, nil})
	}
	tests = append(tests,
		variant{"cm5-32", []string{"t_send=t_send/3", "compose=max", "startup=per_pattern"}},
		variant{"bluemountain", []string{"sx=4", "sx=2*sx", "startup=per_pattern"}},
		variant{"suprenum", []string{"startup=per_pattern", "compose=max"}},
		variant{"unit", []string{"compose=max"}},
	)
	for _, tt := range tests {
		t.Run(strings.Join(append([]string{tt.name}, tt.overrides...), " "), func(t *testing.T) {
			m, err := Builtin(tt.name)
			if err != nil {
				t.Fatal(err)
			}
			if m, err = override(m, tt.overrides...); err != nil {
				t.Fatal(err)
			}
			var text bytes.Buffer
			if err := m.WriteYAML(&text); err != nil {
				t.Fatal(err)
			}
			back, err := Parse(tt.name+".yaml", text.Bytes())
			if err != nil {
				t.Fatalf("the YAML does not load back: %v\n%s", err, text.String())
			}
			if diff := cmp.Diff(describe(t, m), describe(t, back)); diff != "" {
				t.Errorf("loaded back to a different machine (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(m.Params(), back.Params()); diff != "" {
				t.Errorf("parameters differ after loading back (-want +got):\n%s", diff)
			}
			for _, mm := range back.messageModels() {
				if len(tt.overrides) > 0 && strings.Contains(strings.Join(tt.overrides, " "), "startup=per_pattern") && mm.Startup() != PerPattern {
					t.Errorf("a message model lost startup=per_pattern")
				}
			}
		})
	}
}

// TestWriteJSON checks that the JSON of a table has the YAML's keys and
// values, "schema" first.
func TestWriteJSON(t *testing.T) {
	for _, name := range BuiltinNames() {
		m, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := m.WriteJSON(&out); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(out.String(), "{\n  \"schema\": \""+TableSchema+"\",\n  \"name\": \""+name+"\",") {
			t.Errorf("%s: JSON does not start with schema and name:\n%.200s", name, out.String())
		}
		var got map[string]any
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		delete(got, "schema")
		// The reference: the YAML decoded generically, through JSON so
		// that numbers compare as float64 on both sides.
		var fromYAML any
		if err := yaml.Unmarshal(m.data, &fromYAML); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(fromYAML)
		if err != nil {
			t.Fatal(err)
		}
		var want map[string]any
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: JSON differs from the YAML (-want +got):\n%s", name, diff)
		}
	}
}

// TestECMRoundTrip checks that the YAML and the JSON of a calibrated
// host's table, with and without a compose switch, load back to an equal
// machine: host, loop, access, operations of every pattern, latencies,
// compose and write_allocate included.
func TestECMRoundTrip(t *testing.T) {
	for _, overrides := range [][]string{nil, {"compose=max"}} {
		m, err := Load(filepath.Join("testdata", "ecm.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if m, err = override(m, overrides...); err != nil {
			t.Fatal(err)
		}
		for _, format := range []string{"yaml", "json"} {
			var text bytes.Buffer
			write := m.WriteYAML
			if format == "json" {
				write = m.WriteJSON
			}
			if err := write(&text); err != nil {
				t.Fatal(err)
			}
			back, err := Parse("ecm."+format, text.Bytes())
			if err != nil {
				t.Fatalf("%s %v: does not load back: %v\n%s", format, overrides, err, text.String())
			}
			if diff := cmp.Diff(describe(t, m), describe(t, back)); diff != "" {
				t.Errorf("%s %v: loaded back to a different machine (-want +got):\n%s", format, overrides, diff)
			}
			if !strings.Contains(describe(t, back), "write allocate      true") || len(back.Host()) != 6 {
				t.Errorf("%s %v: write_allocate or host lost", format, overrides)
			}
		}
	}
}
