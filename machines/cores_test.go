package machines

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCores checks the keys of ranks that share cores: read with their
// source (the table's when they have none of their own), absent means
// every rank has its own core, and bad values are refused with the place
// and what to do.
func TestCores(t *testing.T) {
	type got struct {
		Cores, CoresSource string
		HasCores           bool
		Switch             string
		HasSwitch          bool
	}
	tests := []struct {
		name, body string
		want       got
		err        string
	}{
		{"absent", "", got{}, ""},
		{"cores only", "cores: 2\n", got{Cores: "2", CoresSource: "test", HasCores: true}, ""},
		{"both", "cores: 2\ncore_switch: 0.05us\n", got{Cores: "2", CoresSource: "test", HasCores: true, Switch: "0.05us", HasSwitch: true}, ""},
		{"zero cores", "cores: 0\n", got{}, "m.yaml:4:8: 'cores' must be greater than zero (0)"},
		{"fractional cores", "cores: 1.5\n", got{}, "'cores' must be a whole number"},
		{"a switch that is no time", "cores: 2\ncore_switch: 5MB/s\n", got{}, "'core_switch' needs a time, got a bandwidth (5MB/s)"},
		{"cores and a cluster", "cores: 2\ncluster: {source: s, node: {sx: 2, sy: 2}, links: {lx: 1, ly: 1}}\n", got{}, "m.yaml:4:8: cores (ranks sharing the cores of one host) and cluster (nodes of ranks, each with its own processor) exclude each other"},
		{"a switch without cores", "core_switch: 1us\n", got{}, "m.yaml:4:14: core_switch is the cost of switching between ranks that share cores: give cores too"},
	}
	for _, tt := range tests {
		m, err := Parse("m.yaml", []byte(header+tt.body))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		var g got
		n, ok := m.Cores()
		g.HasCores = ok
		if ok {
			g.Cores, g.CoresSource = n.String(), n.Source
		}
		s, ok := m.CoreSwitch()
		g.HasSwitch = ok
		if ok {
			g.Switch = s.String()
		}
		if diff := cmp.Diff(tt.want, g); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tt.name, diff)
		}
	}
}

// TestDescribeCores checks that perfc machines prints the cores.
func TestDescribeCores(t *testing.T) {
	m, err := Parse("m.yaml", []byte(header+"cores: 2\ncore_switch: 0.05us\n"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := m.Describe(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\n  cores ", "  0.05us  "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("Describe does not print %q:\n%s", want, b.String())
		}
	}
}

// TestExportCores checks that a copy of a table (-o yaml) keeps its cores.
func TestExportCores(t *testing.T) {
	m, err := Parse("m.yaml", []byte(header+"cores: 2\ncore_switch: {value: 0.05us, source: ring}\n"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := m.WriteYAML(&b); err != nil {
		t.Fatal(err)
	}
	back, err := Parse("copy.yaml", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	n, ok := back.Cores()
	s, sok := back.CoreSwitch()
	if !ok || n.Value != 2 || !sok || s.String() != "0.05us" || s.Source != "ring" {
		t.Errorf("the copy has cores %v (%v), core_switch %v %q (%v):\n%s", n, ok, s, s.Source, sok, b.String())
	}
}
