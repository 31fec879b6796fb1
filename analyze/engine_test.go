package analyze

import (
	"strings"
	"testing"
	"time"

	"perfc/lang"
	"perfc/parser"
)

// TestEnumerationLimitFailsFast checks that a non-affine nest too large to
// enumerate is refused before it is walked, with a positioned message.
func TestEnumerationLimitFailsFast(t *testing.T) {
	src := "kernel k(N = 1000000000) {\n  array a[10]: f64\n  for i in 0..N {\n    if i % 2 == 0 {\n      a[i % 10] = a[i % 10] + 1.0\n    }\n  }\n}\n"
	f, err := parser.ParseFile("na.spmd", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	k, err := lang.Check(f, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = Analyze(k, Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "na.spmd:3:3: cannot count this loop nest in closed form") {
		t.Fatalf("error %v", err)
	}
	// The error comes from a bound check, not from walking 2 million
	// iterations: this is a correctness property (no hang), asserted with a
	// bound generous enough for any machine.
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("refusing took %v", d)
	}
	// At a size that can be enumerated, the count is exact: N/2 executions.
	k, err = lang.Check(f, "", []lang.Override{{Name: "N", Value: "1000"}})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Analyze(k, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.Classes[0].Total.Stores.Exact(); got != "500" {
		t.Errorf("stores %s, want 500", got)
	}
	if len(rep.Notes) == 0 || !strings.Contains(rep.Notes[0], "enumerating") {
		t.Errorf("notes %q should say the count was enumerated", rep.Notes)
	}
}

// TestTraceSet checks the trace-key set below and above the size where it
// starts keeping a map, and merging into empty and non-empty sets.
func TestTraceSet(t *testing.T) {
	key := func(i int) traceKey { return traceKey{id: "w", vals: [8]int64{int64(i), int64(i % 3)}} }
	for _, n := range []int{0, 1, maxTraceScan, maxTraceScan + 1, 3 * maxTraceScan} {
		var s traceSet
		for i := range n {
			if !s.add(key(i)) {
				t.Fatalf("n=%d: key %d reported seen on first add", n, i)
			}
		}
		for i := range n {
			if s.add(key(i)) {
				t.Fatalf("n=%d: key %d reported new on second add", n, i)
			}
		}
		if s.has(key(n)) || len(s.keys) != n {
			t.Fatalf("n=%d: has a key never added, or holds %d keys", n, len(s.keys))
		}
		var into, other traceSet
		into.add(key(-1))
		other.merge(s)
		into.merge(s)
		for i := -1; i < n; i++ {
			if other.has(key(i)) != (i >= 0) || !into.has(key(i)) {
				t.Fatalf("n=%d: merge lost or invented key %d", n, i)
			}
		}
	}
}
