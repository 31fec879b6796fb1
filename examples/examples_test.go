package examples

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// acceptanceSet is every kernel LANGUAGE.md requires, plus the extras.
var acceptanceSet = []string{
	"broadcast", "cannon", "comms2", "comms3", "concat", "gauss", "halo2d",
	"hypercube", "jacobi_blocking", "jacobi_overlap", "matmul", "matmul_transposed", "meshshift", "permutation",
	"pingpong", "pipeline", "poly1", "poly2", "poly3", "reductions", "rinf1", "ring", "scatter",
	"stencil1d", "stride", "sweep3d", "synch1", "triad", "wave",
}

func TestNames(t *testing.T) {
	if diff := cmp.Diff(acceptanceSet, Names()); diff != "" {
		t.Errorf("Names() mismatch (-want +got):\n%s", diff)
	}
}

func TestSource(t *testing.T) {
	tests := []struct {
		name    string
		wantErr string // "" means success
	}{
		{name: "gauss"},
		{name: "gauss.spmd"},
		{name: "matmul_transposed"},
		{name: "nosuch", wantErr: `no example named "nosuch"`},
		{name: "", wantErr: `"" is not an example name`},
		{name: "../examples/gauss", wantErr: "is not an example name"},
		{name: ".spmd", wantErr: "is not an example name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, err := Source(tt.name)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Source(%q) error = %v, want one containing %q", tt.name, err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), "known examples: broadcast, cannon") {
					t.Errorf("Source(%q) error %q does not list the known examples", tt.name, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Source(%q): %v", tt.name, err)
			}
			if !bytes.Contains(src, []byte("kernel ")) {
				t.Errorf("Source(%q) holds no kernel", tt.name)
			}
		})
	}
}

// TestHeaders checks the convention every example follows: the first line is
// `// NAME: what it is`, the header says where the kernel comes from, and the
// text is plain ASCII so that columns in error carets line up.
func TestHeaders(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			src, err := Source(name)
			if err != nil {
				t.Fatal(err)
			}
			text := string(src)
			first, _, _ := strings.Cut(text, "\n")
			if !strings.HasPrefix(first, "// "+name+": ") {
				t.Errorf("first line %q does not start with %q", first, "// "+name+": ")
			}
			header, _, found := strings.Cut(text, "\nkernel ")
			if !found {
				t.Fatalf("no line starting with `kernel `")
			}
			if !strings.Contains(header, "Source:") && !strings.Contains(header, "A perfc example") {
				t.Errorf("header cites no source (want `Source:` or `A perfc example`)")
			}
			if !strings.Contains(header, "Parameters:") {
				t.Errorf("header does not describe the parameters")
			}
			for i, r := range text {
				if r > 0x7e || (r < 0x20 && r != '\n') {
					line := strings.Count(text[:i], "\n") + 1
					t.Errorf("line %d: non-ASCII or control character %q", line, r)
					break
				}
			}
		})
	}
}

// TestSummary checks the one-line descriptions `perfc examples` lists: the
// first sentence of each header, without the "name: " prefix, joined across
// lines where the sentence wraps.
func TestSummary(t *testing.T) {
	tests := []struct{ name, want string }{
		{"gauss", "Gaussian elimination with partial pivoting, row-block distribution."},
		{"concat.spmd", "the CM-5 concatenation, every rank's local portion appended in rank order and the whole vector delivered to every rank (an allgather)."},
	}
	for _, tt := range tests {
		got, err := Summary(tt.name)
		if err != nil || got != tt.want {
			t.Errorf("Summary(%q) = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
	for _, name := range Names() {
		got, err := Summary(name)
		if err != nil || got == "" || strings.HasPrefix(got, name+":") || strings.Contains(got, "//") || !strings.HasSuffix(got, ".") {
			t.Errorf("Summary(%q) = %q, %v; want the first sentence of the header", name, got, err)
		}
	}
	if _, err := Summary("nosuch"); err == nil {
		t.Error("Summary(nosuch) succeeded")
	}
}
