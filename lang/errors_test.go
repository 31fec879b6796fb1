package lang_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfc/lang"
)

// TestPrintable checks that every character that would act on a terminal
// is shown as a Go escape, and that everything else passes unchanged.
func TestPrintable(t *testing.T) {
	tests := []struct{ in, want string }{
		{"pivot search", "pivot search"},
		{"naïve – ü", "naïve – ü"},
		{"bad\x1b[31mred", `bad\x1b[31mred`},
		{"two\nlines\r", `two\nlines\r`},
		{"tab\there", `tab\there`},
		{"del\x7f", `del\x7f`},
		{"c1\u0085", `c1\u0085`},
		{"sep\u2028", `sep\u2028`},
		{"bad\xffbyte", `bad\xffbyte`},
	}
	for _, tt := range tests {
		if got := lang.Printable(tt.in); got != tt.want {
			t.Errorf("Printable(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestFormatEscapesSourceLine checks that an error's source line shows
// control characters escaped, with the caret still under the column of the
// error, counted in characters of the line as shown.
func TestFormatEscapesSourceLine(t *testing.T) {
	src := lang.NewSource("k.spmd", []byte("région \"a\x1bb\" x\n"))
	// The error is at the x: byte column 15 (é is two bytes, ESC one).
	errs := lang.ErrorList{{Pos: lang.Position{Filename: "k.spmd", Line: 1, Col: 15}, Msg: "bad \x1b name"}}
	want := "k.spmd:1:15: bad \\x1b name\n" +
		"    région \"a\\x1bb\" x\n" +
		"                    ^\n"
	if diff := cmp.Diff(want, errs.Format(src)); diff != "" {
		t.Errorf("Format (-want +got):\n%s", diff)
	}
}

// TestFormatKeepsMessageLayout checks that a message written on several
// lines (a deadlock's chain of waits) keeps its newlines and tabs while its
// other control characters are escaped.
func TestFormatKeepsMessageLayout(t *testing.T) {
	errs := lang.ErrorList{{Pos: lang.Position{Filename: "k.spmd", Line: 2, Col: 1}, Msg: "deadlock:\n\trank 0 waits\x1b"}}
	want := "k.spmd:2:1: deadlock:\n\trank 0 waits\\x1b\n"
	if diff := cmp.Diff(want, errs.Format(nil)); diff != "" {
		t.Errorf("Format (-want +got):\n%s", diff)
	}
}
