package machines

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// pathTable is the calibrated-host test table, which has no params: every
// what-if on it goes by path.
func pathTable(t *testing.T) *Machine {
	t.Helper()
	m, err := Load(filepath.Join("testdata", "ecm.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestOverrideByPath: -M with a path replaces the value there (in a
// mapping, a list entry by name and by index), adds a key the section
// lacks, leaves the receiver unchanged, and the table written with the
// overrides loads back to the same machine, its source saying what was
// set.
func TestOverrideByPath(t *testing.T) {
	orig := pathTable(t)
	m, err := override(orig,
		"memory.caches.L2.bandwidth=64GB/s", // a list entry by its name
		"memory.caches.0.size=32KiB",        // by its index
		"memory.main_bandwidth=16GB/s",
		"cores=2", "core_switch=0.3us", // keys the table lacks
	)
	if err != nil {
		t.Fatal(err)
	}
	type seen struct {
		L1Size, L2Bandwidth, Main, CoreSwitch, Cores float64
	}
	read := func(m *Machine) seen {
		caches := m.Memory().Caches()
		main, _ := m.Memory().MainBandwidth()
		cs, _ := m.CoreSwitch()
		cores, _ := m.Cores()
		return seen{L1Size: float64(caches[0].Size), L2Bandwidth: caches[1].Bandwidth.Value, Main: main.Value, CoreSwitch: cs.Value, Cores: cores.Value}
	}
	want := seen{L1Size: 32 << 10, L2Bandwidth: 64e9, Main: 16e9, CoreSwitch: 0.3e-6, Cores: 2}
	if diff := cmp.Diff(want, read(m)); diff != "" {
		t.Errorf("after the overrides (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(seen{L1Size: 48 << 10, L2Bandwidth: 128e9, Main: 32e9}, read(orig)); diff != "" {
		t.Errorf("With changed its receiver (-want +got):\n%s", diff)
	}
	var text bytes.Buffer
	if err := m.WriteYAML(&text); err != nil {
		t.Fatal(err)
	}
	back, err := Parse("back.yaml", text.Bytes())
	if err != nil {
		t.Fatalf("the table written with the overrides does not load back: %v\n%s", err, text.String())
	}
	if diff := cmp.Diff(want, read(back)); diff != "" {
		t.Errorf("loaded back (-want +got):\n%s", diff)
	}
	if !strings.Contains(text.String(), "main_bandwidth set by -M memory.main_bandwidth=16GB/s") {
		t.Errorf("the memory section's source does not say what was set:\n%s", text.String())
	}
}

// TestOverrideByPathErrors: a path that does not resolve says what is
// there instead; a value the section refuses is reported at the
// assignment, not at the table line it replaced; a failed override leaves
// the machine as it was.
func TestOverrideByPathErrors(t *testing.T) {
	tests := []struct {
		arg, want string
	}{
		{"memory.caches.L4.size=1MiB", "-M memory.caches.L4.size=1MiB: memory.caches has no entry 'L4' (give an index from 0 or one of: L1, L2, L3)"},
		{"memory.caches.3.size=1MiB", "-M memory.caches.3.size=1MiB: memory.caches has 3 entries: '3' is not an index from 0 to 2"},
		{"memory.cache.L2.size=1MiB", "-M memory.cache.L2.size=1MiB: memory has no 'cache' (its keys: source, compose, caches, main_bandwidth, write_allocate)"},
		{"memory.main_bandwidth.value=1GB/s", "-M memory.main_bandwidth.value=1GB/s: memory.main_bandwidth is a value, not a section: it has no 'value'"},
		{"memory..size=1", "-M memory..size=1: 'memory..size' is not a path into the table (keys separated by dots, such as compute.core.entry or memory.caches.L2.bandwidth)"},
		{"memory.main_bandwidth=[1", "-M memory.main_bandwidth=[1: the value '[1' is not one YAML value (a number with its unit such as 0.3us, a list in brackets, a mapping in braces)"},
		{"memory.main_bandwidth=1us", "-M memory.main_bandwidth=1us: 'main_bandwidth' needs a bandwidth, got a time (1us)"},
		{"memory.caches.L2.bandwidth=-1GB/s", "-M memory.caches.L2.bandwidth=-1GB/s: 'bandwidth' must not be negative (-1GB/s)"},
		{"memory.bandwith=1GB/s", "-M memory.bandwith=1GB/s: unknown key 'bandwith' in memory"},
		// An error elsewhere in the table that the value caused says which paths were set.
		{"memory.caches=[{name: L1, size: 48KiB, line: 64B, assoc: 12}, {name: L2, size: 1MiB, line: 64B, assoc: 16}]",
			"testdata/ecm.yaml:31:12: compose: ecm needs a bandwidth on cache L2 (the rate at which it delivers lines to L1) (with -M memory.caches=[{name: L1, size: 48KiB, line: 64B, assoc: 12}, {name: L2, size: 1MiB, line: 64B, assoc: 16}])"},
		{"core_switch=0.3us", "-M core_switch=0.3us: core_switch is the cost of switching between ranks that share cores: give cores too"},
		{"bw=1MB/s", "-M bw=1MB/s: machine ecm-example has no parameter 'bw' (it has none; switches: compose, startup; or a path into the table, such as compute.core.entry)"},
	}
	for _, tt := range tests {
		m := pathTable(t)
		got, err := override(m, tt.arg)
		if err == nil || got != nil {
			t.Errorf("override(%q) = %v, %v; want an error", tt.arg, got, err)
			continue
		}
		if msg := err.Error(); !strings.HasPrefix(msg, tt.want) {
			t.Errorf("override(%q):\n got %s\nwant %s…", tt.arg, msg, tt.want)
		}
		if c := m.Memory().Caches(); c[1].Bandwidth.Value != 128e9 {
			t.Errorf("a failed override(%q) changed the machine", tt.arg)
		}
	}
}
