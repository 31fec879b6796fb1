package costmodel

import (
	"testing"

	"perfc/analyze"
	"perfc/internal/kerneltest"
	"perfc/lang"
	"perfc/machines"
)

// loadKernel and checkSource load kernels for the tests (internal/kerneltest).
var (
	loadKernel  = kerneltest.Load
	checkSource = kerneltest.Check
)

// onTable parses the machine table text (named name), checks the kernel
// src (named file) and analyzes it with the table's caches.
func onTable(t *testing.T, name, table, file, src string) (*machines.Machine, *lang.Checked, *analyze.Report) {
	t.Helper()
	m, err := machines.Parse(name, []byte(table))
	if err != nil {
		t.Fatal(err)
	}
	k := checkSource(t, file, src)
	rep, err := analyze.Analyze(k, analyze.Options{Cache: m.CacheHierarchy()})
	if err != nil {
		t.Fatal(err)
	}
	return m, k, rep
}
