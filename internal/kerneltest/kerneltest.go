// Package kerneltest parses and checks kernels for tests, failing the test
// with the positioned errors (source line and caret) when a kernel does not
// check, so that the packages' tests share one way to load a kernel.
package kerneltest

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"perfc/lang"
	"perfc/parser"
)

// Load parses and checks a kernel file; defs are name, value pairs of
// parameter overrides, as -D gives them.
func Load(t testing.TB, path string, defs ...string) *lang.Checked {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return Check(t, path, string(src), defs...)
}

// Check parses and checks kernel source text named name (its base name is
// what positions show); defs are as for Load.
func Check(t testing.TB, name, src string, defs ...string) *lang.Checked {
	t.Helper()
	f, err := parser.ParseFile(filepath.Base(name), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var ovs []lang.Override
	for i := 0; i+1 < len(defs); i += 2 {
		ovs = append(ovs, lang.Override{Name: defs[i], Value: defs[i+1]})
	}
	k, err := lang.Check(f, "", ovs)
	if err != nil {
		var list lang.ErrorList
		if errors.As(err, &list) {
			t.Fatal(list.Format(f.Source))
		}
		t.Fatal(err)
	}
	return k
}
