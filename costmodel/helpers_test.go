package costmodel

import (
	"os"
	"path/filepath"
	"testing"

	"perfc/lang"
	"perfc/parser"
)

// loadKernel parses and checks a kernel file; defs are name, value pairs.
func loadKernel(t testing.TB, path string, defs ...string) *lang.Checked {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return checkSource(t, path, string(src), defs...)
}

// checkSource parses and checks kernel source text.
func checkSource(t testing.TB, name, src string, defs ...string) *lang.Checked {
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
		t.Fatal(err.(lang.ErrorList).Format(f.Source))
	}
	return k
}
