package machines

import (
	"bytes"
	"strings"
	"testing"
)

// TestClockSharedStart reads compute.clock.shared_start with its unit,
// prints it among the table's values, and refuses a negative one.
func TestClockSharedStart(t *testing.T) {
	m, err := Parse("m.yaml", []byte(header+"compute:\n  source: s\n  clock: {region: 50ns, run: 80ns, shared_start: 12.5us, source: START}\n"))
	if err != nil {
		t.Fatal(err)
	}
	c, ok := m.Compute().Clock()
	if !ok || !c.SharedStart.Given || c.SharedStart.Value != 12.5e-6 || c.SharedStart.Source != "START" {
		t.Errorf("clock %+v, want shared_start 12.5us from START", c)
	}
	var out bytes.Buffer
	if err := m.Describe(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "start of a run whose ranks outnumber the cores") {
		t.Errorf("Describe does not print shared_start:\n%s", out.String())
	}
	_, err = Parse("m.yaml", []byte(header+"compute:\n  source: s\n  clock: {run: 80ns, shared_start: -1us}\n"))
	if err == nil || !strings.Contains(err.Error(), "shared_start") {
		t.Errorf("a negative shared_start: %v", err)
	}
}
