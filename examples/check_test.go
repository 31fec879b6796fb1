package examples_test

import (
	"strings"
	"testing"

	"perfc/examples"
	"perfc/lang"
	"perfc/parser"
)

// parseAndCheck parses the example called name and checks its first
// kernel with the given overrides (procs.spmd has two; the others one).
func parseAndCheck(t *testing.T, name string, overrides []lang.Override) (*lang.Checked, error) {
	t.Helper()
	return parseAndCheckKernel(t, name, "", overrides)
}

// parseAndCheckKernel is parseAndCheck for the kernel called kernel.
func parseAndCheckKernel(t *testing.T, name, kernel string, overrides []lang.Override) (*lang.Checked, error) {
	t.Helper()
	file := parseExample(t, name)
	checked, err := lang.Check(file, kernel, overrides)
	if err != nil {
		return nil, err
	}
	return checked, nil
}

// parseExample parses the example called name, which must hold one
// kernel, or two when it shows procs that several kernels call.
func parseExample(t *testing.T, name string) *lang.File {
	t.Helper()
	src, err := examples.Source(name)
	if err != nil {
		t.Fatal(err)
	}
	file, err := parser.ParseFile(name+".spmd", src)
	if err != nil {
		t.Fatalf("ParseFile:\n%v", err)
	}
	if want := max(1, min(2, len(file.Procs)+1)); len(file.Kernels) != want {
		t.Fatalf("%d kernels and %d procs, want %d kernels", len(file.Kernels), len(file.Procs), want)
	}
	return file
}

// TestExamplesCheck parses and checks every kernel of every example at its
// defaults: the acceptance set must always be valid input, without
// warnings (a proc nothing calls).
func TestExamplesCheck(t *testing.T) {
	for _, name := range examples.Names() {
		t.Run(name, func(t *testing.T) {
			for _, k := range parseExample(t, name).Kernels {
				c, err := parseAndCheckKernel(t, name, k.Name.Name, nil)
				if err != nil {
					t.Errorf("Check kernel %s:\n%v", k.Name.Name, err)
					continue
				}
				if len(c.Warnings) > 0 {
					t.Errorf("kernel %s: warnings %v", k.Name.Name, c.Warnings)
				}
			}
		})
	}
}

// TestExampleDefaults pins the defaults taken from the papers, so that a
// change to an example that silently moves it away from its source fails.
func TestExampleDefaults(t *testing.T) {
	tests := []struct {
		example string
		want    map[string]string // parameter -> value
	}{
		{"gauss", map[string]string{"N": "256", "P": "32"}},                        // LANGUAGE.md; Table 6
		{"sweep3d", map[string]string{"it": "8", "jt": "8", "kt": "320"}},          // Blue Mountain subgrid
		{"sweep3d_abstract", map[string]string{"it": "8", "jt": "8", "kt": "320"}}, // as sweep3d
		{"permutation", map[string]string{"m": "16000000"}},                        // IMH Table 5
		{"scatter", map[string]string{"m": "2000000", "P": "8"}},                   // IMH Table 5
		{"broadcast", map[string]string{"m": "2000000", "P": "8"}},                 // IMH Table 5
		{"meshshift", map[string]string{"size": "16384", "Px": "32", "Py": "16"}},  // CM-5 Table 5
		{"hypercube", map[string]string{"P": "512"}},                               // CM-5 Sec. 7.2
		{"poly1", map[string]string{"n": "10000", "k": "10"}},                      // PARKBENCH POLY1
		{"pingpong", map[string]string{"P": "2"}},                                  // COMMS1
	}
	for _, tt := range tests {
		t.Run(tt.example, func(t *testing.T) {
			checked, err := parseAndCheck(t, tt.example, nil)
			if err != nil {
				t.Fatalf("Check:\n%v", err)
			}
			for name, want := range tt.want {
				got, ok := checked.Param(name)
				if !ok {
					t.Errorf("no parameter %s", name)
					continue
				}
				if s := got.String(); s != want {
					t.Errorf("%s = %s, want %s", name, s, want)
				}
			}
		})
	}
}

// TestExampleConstraints checks that the constraints the headers state
// (divisibility, powers of two) are enforced by the checker rather than
// silently rounded.
func TestExampleConstraints(t *testing.T) {
	tests := []struct {
		example   string
		overrides []lang.Override
		wantErr   string // "" means the overrides are valid
	}{
		{"gauss", []lang.Override{{Name: "N", Value: "512"}}, ""},
		{"gauss", []lang.Override{{Name: "N", Value: "100"}}, "N / P"},
		{"sweep3d", []lang.Override{{Name: "mk", Value: "10"}, {Name: "mmi", Value: "3"}}, ""},
		{"sweep3d", []lang.Override{{Name: "mk", Value: "7"}}, "kt / mk"},
		{"sweep3d", []lang.Override{{Name: "mmi", Value: "4"}}, "mm / mmi"},
		{"sweep3d_abstract", []lang.Override{{Name: "mk", Value: "10"}, {Name: "mmi", Value: "3"}}, ""},
		{"sweep3d_abstract", []lang.Override{{Name: "mk", Value: "7"}}, "kt / mk"},
		{"sweep3d_abstract", []lang.Override{{Name: "it", Value: "6"}, {Name: "jt", Value: "6"}}, ""},
		{"hypercube", []lang.Override{{Name: "P", Value: "64"}}, ""},
		{"hypercube", []lang.Override{{Name: "P", Value: "100"}}, "log2(P)"},
		{"cannon", []lang.Override{{Name: "Px", Value: "8"}}, ""},
		{"cannon", []lang.Override{{Name: "N", Value: "250"}}, "N / q"},
		{"meshshift", []lang.Override{{Name: "size", Value: "65536"}}, ""},
		{"meshshift", []lang.Override{{Name: "size", Value: "1001"}}, "size / 8"},
	}
	for _, tt := range tests {
		t.Run(tt.example, func(t *testing.T) {
			_, err := parseAndCheck(t, tt.example, tt.overrides)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("overrides %v: unexpected error:\n%v", tt.overrides, err)
			case tt.wantErr != "" && err == nil:
				t.Errorf("overrides %v: no error, want one mentioning %q", tt.overrides, tt.wantErr)
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Errorf("overrides %v: error\n%v\ndoes not mention %q", tt.overrides, err, tt.wantErr)
			}
		})
	}
}

// TestExamplesFormatted checks that every example is in the canonical form
// of `perfc fmt`, comments included, as gofmt -l does for Go code.
func TestExamplesFormatted(t *testing.T) {
	for _, name := range examples.Names() {
		t.Run(name, func(t *testing.T) {
			src, err := examples.Source(name)
			if err != nil {
				t.Fatal(err)
			}
			file, err := parser.ParseFile(name+".spmd", src)
			if err != nil {
				t.Fatalf("ParseFile:\n%v", err)
			}
			if got := lang.Format(file); string(got) != string(src) {
				t.Errorf("%s.spmd is not formatted; run `perfc fmt -w examples/%s.spmd`", name, name)
			}
		})
	}
}
