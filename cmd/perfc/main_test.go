package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	goldenfile "perfc/internal/golden"
)

// runCLI runs perfc in process and returns its exit status and streams.
func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut})
	return code, out.String(), errOut.String()
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}

// TestGolden runs verbs as a user would and compares their whole output.
func TestGolden(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		code  int
		stdin string
	}{
		{"parse_gauss.golden", []string{"parse", "../../examples/gauss.spmd"}, 0, ""},
		{"parse_sweep3d_json.golden", []string{"parse", "../../examples/sweep3d.spmd", "-D", "Px=8", "-o", "json"}, 0, ""},
		{"count_gauss.golden", []string{"count", "../../examples/gauss.spmd", "--symbolic", "--cache", "L1=64KiB/32B/4"}, 0, ""},
		{"count_wave.golden", []string{"count", "../../examples/wave.spmd", "-D", "Px=3", "-D", "Py=3", "--cache", "L1=32KiB/64B/8,L2=1MiB/64B/16"}, 0, ""},
		{"count_triad_json.golden", []string{"count", "../../examples/triad.spmd", "-o", "json", "--cache", "L1=32KiB/64B/8"}, 0, ""},
		{"count_work_model.golden", []string{"count", "testdata/work_model.spmd"}, 0, ""},
		{"predict_sweep3d_abstract_host.golden", []string{"predict", "../../examples/sweep3d_abstract.spmd", "-m", "../../docs/host-2026-11-25.yaml"}, 0, ""},
		{"fmt_stdin.golden", []string{"fmt", "-"}, 0, "kernel k(N=4){array a[N]:f64\nfor i in 0..N{a[i]=a[i]*2.0} // double\n}\n"},
		{"error_prob.golden", []string{"parse", "-"}, 1, "kernel k(N = 4) {\n  array a[N]: f64\n  var s: f64 = 0\n  for i in 0..N {\n    if a[i] > s { s = a[i] }\n  }\n}\n"},
		{"error_define.golden", []string{"count", "../../examples/triad.spmd", "-D", "M=3"}, 1, ""},
		{"predict_gauss.golden", []string{"predict", "../../examples/gauss.spmd"}, 0, ""},
		{"predict_gauss_sp2_json.golden", []string{"predict", "../../examples/gauss.spmd", "-m", "sp2", "-D", "N=64", "-o", "json"}, 0, ""},
		{"predict_gauss_override.golden", []string{"predict", "../../examples/gauss.spmd", "-M", "t_send=0.0585us/B", "-M", "t_startup=42us", "--no-terms"}, 0, ""},
		{"predict_pingpong_override_json.golden", []string{"predict", "../../examples/pingpong.spmd", "-M", "t_send=0.0585us/B", "-M", "compose=max", "-o", "json"}, 0, ""},
		{"error_unpriced.golden", []string{"predict", "../../examples/triad.spmd", "-m", "delta"}, 1, ""},
		{"predict_triad_vector.golden", []string{"predict", "../../examples/triad.spmd", "--vector-units", "-D", "N=4096", "--no-terms"}, 0, ""},
		{"sweep_gauss.golden", []string{"sweep", "../../examples/gauss.spmd", "-D", "N=64,128,256,512"}, 0, ""},
		{"sweep_gauss_csv.golden", []string{"sweep", "../../examples/gauss.spmd", "-D", "N=64,128", "-M", "t_send=0.0585us/B", "-o", "csv"}, 0, ""},
		{"machines.golden", []string{"machines"}, 0, ""},
		{"machines_cm5.golden", []string{"machines", "cm5-32"}, 0, ""},
		{"error_machine.golden", []string{"predict", "../../examples/gauss.spmd", "-m", "cray-1"}, 1, ""},
		{"error_cache.golden", []string{"count", "../../examples/triad.spmd", "--cache", "L1=32KiB/64B/8,L2=1MiB/64X/16"}, 1, ""},
		{"roofline_triad_host.golden", []string{"roofline", "triad", "-m", "../../costmodel/testdata/host.yaml"}, 0, ""},
		{"roofline_halo2d_host.golden", []string{"roofline", "halo2d", "-m", "../../costmodel/testdata/host.yaml"}, 0, ""},
		{"error_table.golden", []string{"predict", "../../examples/gauss.spmd", "-m", "testdata/error_table.yaml"}, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tt.stdin, tt.args...)
			if code != tt.code {
				t.Errorf("exit status %d, want %d; stderr:\n%s", code, tt.code, errOut)
			}
			golden(t, tt.name, out+errOut)
		})
	}
}

// TestHelp checks that every verb answers --help with exit status 0.
func TestHelp(t *testing.T) {
	for _, verb := range verbs {
		code, out, errOut := runCLI(t, "", verb, "--help")
		if code != 0 || !strings.Contains(out, "Usage: perfc "+verb) {
			t.Errorf("%s --help: status %d, stdout %q, stderr %q", verb, code, out, errOut)
		}
	}
}

// TestFmtWrite checks that fmt --write rewrites a file into its canonical
// form and that a second run changes nothing.
func TestFmtWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.spmd")
	if err := os.WriteFile(path, []byte("kernel k(N=4){array a[N]:f64\nfor i in 0..N{a[i]=1.0}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI(t, "", "fmt", "--write", path); code != 0 {
		t.Fatalf("fmt --write: %d %s", code, errOut)
	}
	first, _ := os.ReadFile(path)
	if code, _, errOut := runCLI(t, "", "fmt", "-w", path); code != 0 {
		t.Fatalf("second fmt --write: %d %s", code, errOut)
	}
	second, _ := os.ReadFile(path)
	if string(first) != string(second) || !strings.Contains(string(first), "for i in 0..N {") {
		t.Errorf("not canonical or not idempotent:\n%s\n---\n%s", first, second)
	}
}

// failingWriter fails every write after the first ok bytes, like a disk
// that fills up.
type failingWriter struct{ ok int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) <= w.ok {
		w.ok -= len(p)
		return len(p), nil
	}
	n := w.ok
	w.ok = 0
	return n, errors.New("no space left on device")
}

// TestOutputWriteFails checks that every kind of printer (plain prints,
// tabwriter tables, JSON encoders, kong's help) turns a failed write into
// exit status 1 and one message, instead of a lost table and exit 0.
func TestOutputWriteFails(t *testing.T) {
	tests := [][]string{
		{"predict", "../../examples/gauss.spmd"},
		{"predict", "../../examples/gauss.spmd", "-o", "json"},
		{"count", "../../examples/triad.spmd"},
		{"parse", "../../examples/triad.spmd", "-o", "json"},
		{"fmt", "../../examples/triad.spmd"},
		{"machines"},
		{"sweep", "../../examples/gauss.spmd", "-D", "N=64,128"},
		{"sweep", "../../examples/gauss.spmd", "-D", "N=64,128", "-o", "csv"},
		{"emulate", "../../examples/gauss.spmd"},
		{"--help"},
	}
	for _, args := range tests {
		for _, ok := range []int{0, 10} {
			var errOut bytes.Buffer
			code := run(args, env{stdin: strings.NewReader(""), stdout: &failingWriter{ok: ok}, stderr: &errOut})
			want := "perfc: writing output: no space left on device\n"
			if code != 1 || errOut.String() != want {
				t.Errorf("%v with %d bytes of room: exit %d, stderr %q; want 1 and %q", args, ok, code, errOut.String(), want)
			}
		}
	}
}

// TestInputTooLarge checks that kernel files, machine tables and standard
// input over 1 MiB are refused with the file and the size, and that an
// endless device is cut at the limit instead of read whole.
func TestInputTooLarge(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.spmd")
	if err := os.WriteFile(big, bytes.Repeat([]byte("// comment\n"), 200_000), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args  []string
		stdin string
		want  string
	}{
		{[]string{"parse", "/dev/zero"}, "", "perfc: /dev/zero: the input is more than 1 MiB; perfc reads at most 1 MiB (1048576 bytes)"},
		{[]string{"count", big}, "", "perfc: " + big + ": the input is 2200000 bytes; perfc reads at most 1 MiB"},
		{[]string{"fmt", "-"}, strings.Repeat("x", 1<<20+1), "perfc: <stdin>: the input is more than 1 MiB"},
		{[]string{"predict", "../../examples/triad.spmd", "-m", "/dev/zero"}, "", "perfc: /dev/zero: the input is more than 1 MiB"},
	}
	for _, tt := range tests {
		code, _, errOut := runCLI(t, tt.stdin, tt.args...)
		if code != 1 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", tt.args, code, errOut, tt.want)
		}
	}
}
