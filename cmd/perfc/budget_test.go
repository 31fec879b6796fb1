package main

import (
	"strings"
	"testing"
)

// TestBudgetFlags checks that the verbs that analyse take --max-ranks and
// --max-enumerated, and that a spent budget is an error that names the
// statement and the flag (docs/counts.md, Budgets).
func TestBudgetFlags(t *testing.T) {
	const oddRanks = "kernel odd(N = 8) on P = 1000 ranks {\n  array a[N]: f64\n  region \"r\" {\n    if rank ^ 1 > rank {\n      a[0] = a[0] + 1.0\n    }\n  }\n}\n"
	const nonAffine = "kernel na(N = 300) {\n  array a[N]: f64\n  for i in 0..N {\n    for j in 0..N {\n      if (i*j + rank) % 3 == 0 {\n        a[j] = a[j] + 1.0\n      }\n    }\n  }\n}\n"
	tests := []struct {
		name  string
		stdin string
		args  []string
		code  int
		want  []string // in stderr
	}{
		{"count past --max-ranks", oddRanks, []string{"count", "-", "--max-ranks", "10"}, 1,
			[]string{"<stdin>:4:8: kernel odd has 1000 ranks", "raise it with --max-ranks", "    if rank ^ 1 > rank {"}},
		{"count within --max-ranks", oddRanks, []string{"count", "-", "--max-ranks", "1000"}, 0, nil},
		{"predict past --max-ranks", oddRanks, []string{"predict", "-", "--max-ranks", "10"}, 1,
			[]string{"<stdin>:4:8: kernel odd has 1000 ranks", "raise it with --max-ranks"}},
		{"sweep past --max-ranks", oddRanks, []string{"sweep", "-", "-D", "N=8,16", "--max-ranks", "10"}, 1,
			[]string{"<stdin>:4:8: kernel odd has 1000 ranks", "raise it with --max-ranks"}},
		{"count past --max-enumerated", nonAffine, []string{"count", "-", "--max-enumerated", "1000"}, 1,
			[]string{"<stdin>:4:5: cannot count this loop nest in closed form", "raise the budget with --max-enumerated"}},
		{"predict within --max-enumerated", nonAffine, []string{"predict", "-", "--max-enumerated", "1000000"}, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, tt.stdin, tt.args...)
			if code != tt.code {
				t.Fatalf("exit status %d, want %d; stderr:\n%s", code, tt.code, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr does not contain %q:\n%s", w, errOut)
				}
			}
		})
	}
	for _, verb := range []string{"count", "predict", "sweep", "check"} {
		_, out, _ := runCLI(t, "", verb, "--help")
		if !strings.Contains(out, "--max-ranks=N") || !strings.Contains(out, "--max-enumerated=N") {
			t.Errorf("%s --help does not list --max-ranks and --max-enumerated:\n%s", verb, out)
		}
	}
}
