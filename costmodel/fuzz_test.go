package costmodel_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"perfc/analyze"
	"perfc/costmodel"
	"perfc/costmodel/emulate"
	"perfc/lang"
	"perfc/machines"
	"perfc/parser"
)

// Patterns that shape FuzzPredict's seeds: comments are dropped and large
// numbers made small, so that the seeds start small. The inputs are not
// filtered: the fuzzer is free to make numbers large again, since the
// emulation's budgets (fuzzLimits) end a long run quickly with an error.
var (
	fuzzComment = regexp.MustCompile(`//[^\n]*`)
	fuzzLarge   = regexp.MustCompile(`[0-9][0-9_]{2,}`)
)

// fuzzLimits keep every emulation of FuzzPredict fast: 10^5 events and
// 64 MiB (about 25,000 ranks) at most.
var fuzzLimits = emulate.EmulateLimits{MaxEvents: 100_000, MaxMemory: 64 << 20}

// FuzzPredict runs every kernel the checker accepts through analysis and
// prediction (emulation included) on four machines (one whose ranks share
// two cores). Whatever the kernel,
// Analyze and Predict return without panicking, and a prediction they make
// is finite, not negative and encodes as JSON. The seeds are the examples
// and the checker's test files, with comments dropped and large numbers
// made small.
//
//	go test -run=^$ -fuzz=FuzzPredict -fuzztime=3m ./costmodel
func FuzzPredict(f *testing.F) {
	for _, pattern := range []string{"../lang/testdata/check/*.spmd", "../examples/*.spmd"} {
		files, _ := filepath.Glob(pattern)
		for _, name := range files {
			if src, err := os.ReadFile(name); err == nil {
				f.Add(fuzzLarge.ReplaceAll(fuzzComment.ReplaceAll(src, nil), []byte("6")))
			}
		}
	}
	var ms []*machines.Machine
	for _, name := range []string{"cm5-32", "bluemountain", "unit"} {
		m, err := machines.Builtin(name)
		if err != nil {
			f.Fatal(err)
		}
		ms = append(ms, m)
	}
	m, err := machines.Load("testdata/cores.yaml") // ranks sharing two cores
	if err != nil {
		f.Fatal(err)
	}
	ms = append(ms, m)
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := parser.ParseFile("fuzz.spmd", src)
		if err != nil {
			return
		}
		for _, k := range file.Kernels {
			c, err := lang.Check(file, k.Name.Name, nil)
			if c == nil || err != nil {
				continue
			}
			for _, m := range ms {
				fuzzPredict(t, c, m)
			}
		}
	})
}

// fuzzPredict analyses and prices c on m and checks what comes out.
func fuzzPredict(t *testing.T, c *lang.Checked, m *machines.Machine) {
	t.Helper()
	rep, err := analyze.Analyze(c, analyze.Options{Cache: m.CacheHierarchy()})
	if err != nil {
		if err.Error() == "" {
			t.Errorf("%s: analysis failed with an empty message", m.Name())
		}
		return
	}
	pred, err := costmodel.Predict(c, rep, m, costmodel.Options{Limits: fuzzLimits})
	if err != nil {
		if err.Error() == "" {
			t.Errorf("%s: prediction failed with an empty message", m.Name())
		}
		return
	}
	if math.IsNaN(pred.Total) || math.IsInf(pred.Total, 0) || pred.Total < 0 {
		t.Errorf("%s: predicted total %v s", m.Name(), pred.Total)
	}
	if _, err := json.Marshal(pred); err != nil {
		t.Errorf("%s: prediction does not encode as JSON: %v", m.Name(), err)
	}
}
