package main

import (
	"strings"
	"testing"
)

// ctlKernel has a region whose name holds an escape sequence, a tab and a
// carriage return, written raw in the source.
const ctlKernel = "kernel k(N = 4) {\n  array a[N]: f64\n  region \"a\x1b[31mred\tx\rb\" {\n    for i in 0..N {\n      a[i] = a[i] * 2.0\n    }\n  }\n}\n"

// TestRegionNamesEscaped checks that no verb prints a region name's
// control characters raw, and that they show as escapes (lang.Printable).
func TestRegionNamesEscaped(t *testing.T) {
	for _, args := range [][]string{
		{"count", "-", "--cache", "L1=32KiB/64B/8"},
		{"predict", "-"},
		{"parse", "-"},
	} {
		code, out, errOut := runCLI(t, ctlKernel, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if strings.ContainsAny(out+errOut, "\x1b\r\t") {
			t.Errorf("%v prints a control character raw:\n%q", args, out)
		}
		if !strings.Contains(out, `a\x1b[31mred\tx\rb`) {
			t.Errorf("%v does not show the escaped name:\n%s", args, out)
		}
	}
}
