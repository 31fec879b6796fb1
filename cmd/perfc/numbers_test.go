package main

import (
	"fmt"
	"os"
	"path/filepath"
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

// exponentForm matches a number in exponent form with the digits, commas,
// points and signs around its exponent (1e,+07 included).
var exponentForm = regexp.MustCompile(`[0-9][0-9,.]*e[0-9,+-]*[0-9]`)

// TestNumbersGolden runs perfc predict and perfc count on a triad at
// sizes from 1 to 10^18 and keeps the lines that print counts, times and
// rates in testdata/numbers_triad.golden; no number may have a comma in
// exponent form (issue 12: "1e,+07 pair").
func TestNumbersGolden(t *testing.T) {
	var b strings.Builder
	for _, n := range countSizes() {
		fmt.Fprintf(&b, "N = %s\n", n)
		code, out, errOut := runCLI(t, "", "predict", "testdata/numbers_triad.spmd", "-D", "N="+n)
		if code != 0 {
			t.Fatalf("predict N=%s: status %d: %s", n, code, errOut)
		}
		keep(&b, out, "predicted time:", "  triad  madd", "  triad    ")
		code, out, errOut = runCLI(t, "", "count", "testdata/numbers_triad.spmd", "-D", "N="+n, "--cache", "L1=32KiB/64B/8")
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

// hugeKernel does 10^360 multiply-adds: its counts are beyond float range.
const hugeKernel = `kernel huge(R = 1_000_000_000_000_000_000) {
  var s: f64 = 0
  region "deep" {
    repeat R { repeat R { repeat R { repeat R { repeat R { repeat R { repeat R { repeat R { repeat R { repeat R {
    repeat R { repeat R { repeat R { repeat R { repeat R { repeat R { repeat R { repeat R { repeat R { repeat R {
      s = s + 2.0*s
    } } } } } } } } } }
    } } } } } } } } } }
  }
}
`

// negativeTable has a broadcast formula that is fine at the load-time
// samples (P up to 1024) and negative beyond P = 2000.
const negativeTable = `name: neg
description: a broadcast formula that goes negative for many ranks
source: perfc test
compute: {free: true, source: test}
messages: {source: test, model: expr, time: 1us}
collectives:
  source: test
  entries:
    - {kind: bcast, time: 2000us - P*1us}
`

// TestUnusableNumbersAreErrors runs every verb with -o json (and the
// table) on a count beyond float range, a -M override of 1e308 s and a
// table cost that goes negative, and checks that each exits 1 with an
// error that names the cause, never "+Inf", "NaN" or the JSON encoder's
// "unsupported value".
func TestUnusableNumbersAreErrors(t *testing.T) {
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge.spmd")
	neg := filepath.Join(dir, "neg.yaml")
	if err := os.WriteFile(huge, []byte(hugeKernel), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(neg, []byte(negativeTable), 0o644); err != nil {
		t.Fatal(err)
	}
	pingpong := "../../examples/pingpong.spmd"
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"count", huge, "-o", "json", "--cache", "L1=32KiB/64B/8"}, "the count classes[0].total.iterations is 1e+360, beyond float range"},
		{[]string{"predict", huge, "-o", "json"}, `the count of madd f64 s&s&s in region "deep" is beyond float range`},
		{[]string{"sweep", huge, "-D", "R=10,1000000000000000000", "-o", "json"}, `the count of madd f64 s&s&s in region "deep" is beyond float range`},
		{[]string{"predict", pingpong, "-M", "t_startup=1e308s"}, "the largest single cost is a message of 8,192 B from rank 0 to rank 1 at 1e+308 s"},
		{[]string{"predict", pingpong, "-M", "t_startup=1e308s", "-o", "json"}, "the emulation of kernel pingpong has total_s = +Inf"},
		{[]string{"predict", pingpong, "-M", "t_startup=1e308s", "--no-emulation", "-o", "json"}, "100 message of 8,192 B x 1e+308 s overflows float range"},
		{[]string{"emulate", pingpong, "-M", "t_startup=1e308s", "-o", "json"}, "the emulation of kernel pingpong has total_s = +Inf"},
		{[]string{"sweep", pingpong, "-D", "reps=1,100", "-M", "t_startup=1e308s", "-o", "csv"}, "the emulation of kernel pingpong has total_s = +Inf"},
		{[]string{"predict", "../../examples/broadcast.spmd", "-m", neg, "-D", "P=4096", "-o", "json"},
			"neg.yaml:9:27: 'time' (2000us - P*1us) is a negative time (-2.096ms) at bytes=2e+06, P=4096 (for bcast at ../../examples/broadcast.spmd:23:5"},
		{[]string{"emulate", "../../examples/broadcast.spmd", "-m", neg, "-D", "P=4096", "-o", "json"},
			"neg.yaml:9:27: 'time' (2000us - P*1us) is a negative time (-2.096ms) at bytes=2e+06, P=4096 (for a call of bcast with 2,000,000 B on 4,096 ranks"},
	}
	for _, tt := range tests {
		code, out, errOut := runCLI(t, "", tt.args...)
		name := strings.Join(tt.args, " ")
		if code != 1 {
			t.Errorf("%s: exit status %d, want 1", name, code)
		}
		if !strings.Contains(errOut, tt.want) {
			t.Errorf("%s: stderr\n%s\nwant it to contain %q", name, errOut, tt.want)
		}
		for _, bad := range []string{"unsupported value", "Inf s", "NaN"} {
			if strings.Contains(out+errOut, bad) {
				t.Errorf("%s: output has %q:\n%s%s", name, bad, out, errOut)
			}
		}
	}
}
