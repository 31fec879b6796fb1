package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCountAnySetCount runs perfc count with caches whose set counts are not
// powers of two (a 20 MiB 16-way L3 has 20,480 sets; issue 15): the hierarchy
// is accepted as written and every level gets its cache lines. A size that is
// not a whole number of sets is still refused, with the column and the
// reason.
func TestCountAnySetCount(t *testing.T) {
	code, out, errOut := runCLI(t, "", "count", "../../examples/triad.spmd", "--cache", "L3=20MiB/64B/16")
	if code != 0 {
		t.Fatalf("count --cache L3=20MiB/64B/16: status %d, stderr %s", code, errOut)
	}
	for _, want := range []string{
		"; cache L3=20MiB/64B/16\n",
		"triad   L3     3,750,000  1,250,000",
		"from L3 while 192 B <= 20 MiB: holds",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("count --cache L3=20MiB/64B/16: output lacks %q:\n%s", want, out)
		}
	}

	const spec = "L1=48KiB/64B/12,L2=1280KiB/64B/20,L3=20MiB/64B/16"
	code, out, errOut = runCLI(t, "", "count", "../../examples/triad.spmd", "--cache", spec, "-o", "json")
	var doc struct {
		Cache   string `json:"cache"`
		Classes []struct {
			Total struct {
				Cache []struct {
					Level string `json:"level"`
				} `json:"cache"`
			} `json:"total"`
		} `json:"classes"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 0 {
		t.Fatalf("count --cache %s -o json: status %d, %v; stderr %s", spec, code, err, errOut)
	}
	if doc.Cache != spec || len(doc.Classes) != 1 || len(doc.Classes[0].Total.Cache) != 3 {
		t.Errorf("count --cache %s -o json: cache %q, %d classes, want the spec and three levels of lines: %s", spec, doc.Cache, len(doc.Classes), out)
	}

	code, _, errOut = runCLI(t, "", "count", "../../examples/triad.spmd", "--cache", "L1=48KiB/64B/12,L3=20MiB/64B/24")
	if want := "--cache:1:17: cache level L3: size 20MiB is 327680 lines of 64B, not a whole number of sets of 24 ways"; code != 1 || !strings.Contains(errOut, want) {
		t.Errorf("count --cache L3=20MiB/64B/24: status %d, stderr %q; want status 1 and %q", code, errOut, want)
	}
}
