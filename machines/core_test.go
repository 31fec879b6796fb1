package machines

import (
	"strings"
	"testing"
)

// coreTable is a minimal ecm table with compute.core; extra is added to
// the core mapping.
func coreTable(core string) string {
	return `name: t
description: t
source: test
compute:
  source: test
  loop: {iteration: 0.25ns}
  core: {` + core + `}
memory:
  source: test
  compose: ecm
  caches:
    - {name: L1, size: 32KiB, line: 64B, assoc: 8}
  main_bandwidth: 16GB/s
`
}

func TestComputeCore(t *testing.T) {
	m, err := Parse("t.yaml", []byte(coreTable("cycle: 0.25ns, issue: 4, load_ports: 2, store_ports: 1, fp_ports: 2, blocks_per_cycle: 1, source: fit")))
	if err != nil {
		t.Fatal(err)
	}
	c, ok := m.Compute().Core()
	if !ok {
		t.Fatal("Core: not given")
	}
	got := [6]float64{c.Cycle.Value, c.Issue.Value, c.LoadPorts.Value, c.StorePorts.Value, c.FPPorts.Value, c.BlocksPerCycle.Value}
	if got != [6]float64{0.25e-9, 4, 2, 1, 2, 1} || c.Cycle.Source != "fit" {
		t.Errorf("core %v (source %q)", got, c.Cycle.Source)
	}
	var b strings.Builder
	if err := m.Describe(&b); err != nil || !strings.Contains(b.String(), "core issue width") {
		t.Errorf("Describe does not print compute.core (%v):\n%s", err, b.String())
	}
	if _, ok := (&Compute{}).Core(); ok {
		t.Error("a table without compute.core has one")
	}
	for _, tc := range []struct{ core, want string }{
		{"issue: 4, load_ports: 2, store_ports: 1, fp_ports: 2, blocks_per_cycle: 1", "cycle"},
		{"cycle: 0.25ns, issue: 0, load_ports: 2, store_ports: 1, fp_ports: 2, blocks_per_cycle: 1", "issue"},
		{"cycle: 1GB/s, issue: 4, load_ports: 2, store_ports: 1, fp_ports: 2, blocks_per_cycle: 1", "cycle"},
		{"cycle: 0.25ns, issue: 4, load_ports: 2, store_ports: 1, fp_ports: 2, blocks_per_cycle: 1, ports: 3", "ports"},
	} {
		_, err := Parse("t.yaml", []byte(coreTable(tc.core)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("core {%s}: error %v, want one naming %s", tc.core, err, tc.want)
		}
	}
}
