package calibrate

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"perfc/machines"
)

// TestTinyCalibrationLoads runs the whole calibration in its test mode and
// checks that the table it writes loads and has every section (not its
// numbers, which belong to the machine).
func TestTinyCalibrationLoads(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs generated programs")
	}
	var names []string
	res, err := Run(context.Background(), Options{Mode: Tiny, CacheDir: t.TempDir(), Progress: func(name string, done, total float64) {
		if done > total+1e-9 {
			t.Errorf("progress %g of %g", done, total)
		}
		names = append(names, name)
	}})
	if err != nil {
		t.Fatal(err)
	}
	data, err := res.Table()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "host.yaml")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("CALIB_SHOW") != "" {
		t.Logf("%s", data)
	}
	m, err := machines.Load(path)
	if err != nil {
		t.Fatalf("the table does not load: %v\n%s", err, data)
	}
	if m.LocalMessages() == nil {
		t.Errorf("the table has no messages.local (the LOCAL pingpong's law)")
	}
	for _, key := range []string{"\nhost:", "\ncompute:", "  loop:", "  access:", "  ops:", "  latency:", "\nmemory:",
		"compose: ecm", "main_bandwidth:", "write_allocate:", "\nmessages:", "\ncollectives:", "\nresults:", "TICK2", "RINF1", "IMH stride"} {
		if !strings.Contains(string(data), key) {
			t.Errorf("the table has no %q", strings.TrimSpace(key))
		}
	}
	if len(names) == 0 {
		t.Error("no progress reported")
	}
	if !slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "the caches' capacities, a second look") }) ||
		len(res.Looked) != len(res.Host.Caches) {
		t.Errorf("the second look at the capacities was not taken (progress %q, looked %v)", names, res.Looked)
	}
	mergeComms(t, data)
}

// mergeComms runs the communication benchmarks alone and writes them into
// base, the table of a whole calibration of this host (--comms-into): the
// result loads, keeps base's compute and memory, has the new messages,
// collectives and results, and says so in its source; a table of another
// host is refused, and such a calibration writes no table of its own.
func mergeComms(t *testing.T, base []byte) {
	t.Helper()
	res, err := Run(context.Background(), Options{Mode: Tiny, CacheDir: t.TempDir(), OnlyComms: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Core != nil || res.Memory != nil || res.Comms == nil {
		t.Fatalf("a calibration of the messages alone measured the core %v, the memory %v, the messages %v", res.Core != nil, res.Memory != nil, res.Comms != nil)
	}
	if _, err := res.Table(); err == nil || !strings.Contains(err.Error(), "MergeInto") {
		t.Errorf("Table of the messages alone: %v, want an error that names MergeInto", err)
	}
	out, err := res.MergeInto(base, "host.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m, err := machines.Parse("merged.yaml", out)
	if err != nil {
		t.Fatalf("the merged table does not load: %v\n%s", err, out)
	}
	b, err := machines.Parse("host.yaml", base)
	if err != nil {
		t.Fatal(err)
	}
	mb, _ := m.Memory().MainBandwidth()
	bb, _ := b.Memory().MainBandwidth()
	if mb.Value != bb.Value || len(m.Memory().Caches()) != len(b.Memory().Caches()) || m.Source() == b.Source() {
		t.Errorf("the merged table's memory changed (%v against %v), or its source did not", mb, bb)
	}
	if m.Messages("") == nil || m.LocalMessages() == nil || len(m.Results()) == 0 {
		t.Errorf("the merged table lacks the messages, messages.local or results")
	}
	count := func(text, name string) int { return strings.Count(text, "name: "+name) }
	for _, name := range []string{"SYNCH1 barrier, P=2", "TICK2"} {
		if n := count(string(out), name); n != 1 {
			t.Errorf("the merged table has %d results %q, want 1 (replaced, or kept)", n, name)
		}
	}
	if strings.Count(string(out), "# Machine table of this host") != 1 {
		t.Errorf("the merged table has %d headers, want 1:\n%s", strings.Count(string(out), "# Machine table of this host"), out)
	}
	if !strings.Contains(m.Source(), "messages and collectives measured again by perfc calibrate --comms-into") {
		t.Errorf("the merged table's source does not say what was measured again")
	}
	other := strings.Replace(string(base), "\n  cores: ", "\n  cores: 9", 1)
	if _, err := res.MergeInto([]byte(other), "other.yaml"); err == nil || !strings.Contains(err.Error(), "calibrate this host whole") {
		t.Errorf("a table of another host: %v, want an error that says to calibrate this host", err)
	}
}
