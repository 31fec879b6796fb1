package machines

import (
	"maps"
	"math"
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

// coreWidths is a complete compute.core without its divider.
const coreWidths = "cycle: 0.25ns, issue: 4, load_ports: 2, store_ports: 1, fp_ports: 2, blocks_per_cycle: 1"

// TestComputeCoreDivider reads compute.core.divider: the time one divide
// or square root holds the divider, per kind, and in cycles for the
// pricing of code; describe prints each.
func TestComputeCoreDivider(t *testing.T) {
	m, err := Parse("t.yaml", []byte(coreTable(coreWidths+", divider: {div: {f64: 1.25ns, i32: 1.5ns}, sqrt: {f32: 1ns}, source: bench}")))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := m.Compute().Core()
	got := map[string]float64{}
	for k, n := range c.Divider {
		got[k] = n.Value
		if n.Source != "bench" {
			t.Errorf("%s: source %q, want bench", k, n.Source)
		}
	}
	if want := map[string]float64{"div f64": 1.25e-9, "div i32": 1.5e-9, "sqrt f32": 1e-9}; !maps.EqualFunc(got, want, func(a, b float64) bool { return math.Abs(a/b-1) < 1e-12 }) {
		t.Errorf("divider %v, want %v", got, want)
	}
	if cy := c.DividerCycles(); math.Abs(cy["div f64"]-5) > 1e-9 || math.Abs(cy["sqrt f32"]-4) > 1e-9 {
		t.Errorf("DividerCycles = %v, want div f64 5 and sqrt f32 4", cy)
	}
	var b strings.Builder
	if err := m.Describe(&b); err != nil || !strings.Contains(b.String(), "core divider held by one div f64") {
		t.Errorf("Describe does not print the divider (%v):\n%s", err, b.String())
	}
	if (CoreModel{}).DividerCycles() != nil {
		t.Error("a core without a divider has divider cycles")
	}
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
		{coreWidths + ", divider: {sqrt: {i64: 1ns}}", "i64"},
		{coreWidths + ", divider: {div: {f64: 2}}", "f64"},
		{coreWidths + ", divider: {mul: {f64: 1ns}}", "mul"},
		{coreWidths + ", divider: {source: x}", "divider needs div or sqrt"},
		{coreWidths + ", window_exponent: 0.5", "window_exponent 0.5 is below 1"},
		{coreWidths + ", entry: -1", "entry"},
	} {
		_, err := Parse("t.yaml", []byte(coreTable(tc.core)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("core {%s}: error %v, want one naming %s", tc.core, err, tc.want)
		}
	}
}

// TestCoreWindowAndEntry reads compute.core's window_exponent and entry,
// and checks WindowMax by hand: the plain maximum without an exponent, and
// with p = 4 (3^4 + 4^4)^(1/4) = 4.2846 and 2^(1/4)·5 = 5.9460.
func TestCoreWindowAndEntry(t *testing.T) {
	m, err := Parse("t.yaml", []byte(coreTable(coreWidths+", window: 16ns, window_exponent: {value: 4, source: fit of p}, entry: 0.5")))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := m.Compute().Core()
	if c.WindowExponent.Value != 4 || c.WindowExponent.Source != "fit of p" || c.Entry.Value != 0.5 || !c.Entry.Given {
		t.Errorf("window_exponent %+v, entry %+v", c.WindowExponent, c.Entry)
	}
	var b strings.Builder
	if err := m.Describe(&b); err != nil || !strings.Contains(b.String(), "smooth-maximum exponent") || !strings.Contains(b.String(), "cycles per entry") {
		t.Errorf("Describe does not print window_exponent and entry (%v):\n%s", err, b.String())
	}
	for _, tc := range []struct {
		m          CoreModel
		a, b, want float64
	}{
		{CoreModel{}, 3, 4, 4},
		{c, 3, 4, 4.284572294953817},
		{c, 5, 5, 5.946035575013605},
		{c, 0, 4, 4},
	} {
		if got := tc.m.WindowMax(tc.a, tc.b); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("WindowMax(%g, %g) with exponent %v = %g, want %g", tc.a, tc.b, tc.m.WindowExponent.Value, got, tc.want)
		}
	}
}
