package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// countSizes are the sizes of TestNumbersGolden: every power of ten from 1
// to 10^18 and some odd values (2^53 - 1, 2^53 + 1, 10^18 - 1).
func countSizes() []string {
	var sizes []string
	for v, e := "1", 0; e <= 18; v, e = v+"0", e+1 {
		sizes = append(sizes, v)
	}
	return append(sizes, "7", "1966080", "9007199254740991", "9007199254740993", "31415926535897932", "999999999999999999")
}

// exponentForm matches a number in exponent form with the digits, commas
// and points before its exponent.
var exponentForm = regexp.MustCompile(`[0-9][0-9,.]*e[+-]?[0-9][0-9,]*`)

// TestNumbersGolden runs perfc predict and perfc count on the triad at
// sizes from 1 to 10^18 and keeps the lines that print counts, times and
// rates in testdata/numbers_triad.golden; no number may have a comma in
// exponent form (issue 12: "1e,+07 pair").
func TestNumbersGolden(t *testing.T) {
	var b strings.Builder
	for _, n := range countSizes() {
		fmt.Fprintf(&b, "N = %s\n", n)
		code, out, errOut := runCLI(t, "", "predict", "../../examples/triad.spmd", "-D", "N="+n)
		if code != 0 {
			t.Fatalf("predict N=%s: status %d: %s", n, code, errOut)
		}
		keep(&b, out, "predicted time:", "  triad  madd", "  triad    ")
		code, out, errOut = runCLI(t, "", "count", "../../examples/triad.spmd", "-D", "N="+n, "--cache", "L1=32KiB/64B/8")
		if code != 0 {
			t.Fatalf("count N=%s: status %d: %s", n, code, errOut)
		}
		keep(&b, out, "  multiply-add pairs", "  nominal flop", "  load b[i]", "  triad   L1")
	}
	got := b.String()
	for _, num := range exponentForm.FindAllString(got, -1) {
		if strings.Contains(num, ",") {
			t.Errorf("a comma in exponent form: %q", num)
		}
	}
	golden(t, "numbers_triad.golden", got)
}

// keep writes the lines of out that start with one of the prefixes.
func keep(b *strings.Builder, out string, prefixes ...string) {
	for _, line := range strings.Split(out, "\n") {
		for _, p := range prefixes {
			if strings.HasPrefix(line, p) {
				fmt.Fprintln(b, strings.TrimRight(line, " "))
				break
			}
		}
	}
}
