package analyze

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"perfc/internal/cputime"
	"perfc/lang"
)

// BenchmarkCount times Analyze on every example at its default parameters
// (every rank); parsing and checking are done once, outside the timing.
func BenchmarkCount(b *testing.B) {
	files, err := filepath.Glob("../examples/*.spmd")
	if err != nil || len(files) == 0 {
		b.Fatalf("no examples found: %v", err)
	}
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			b.Fatal(err)
		}
		k := loadKernel(b, file, src, nil)
		b.Run(strings.TrimSuffix(filepath.Base(file), ".spmd"), func(b *testing.B) {
			benchmarkAnalyze(b, k)
		})
	}
}

// BenchmarkCountN shows that a closed-form count costs the same at any
// size: each kernel at a small and a huge size (the largest whose arrays
// still fit 2^63 bytes).
func BenchmarkCountN(b *testing.B) {
	for _, tc := range []struct{ example, name, settings string }{
		{"triad", "N=10^3", "N=1000"},
		{"triad", "N=10^12", "N=1_000_000_000_000"},
		{"matmul", "N=10^3", "N=1000"},
		{"matmul", "N=10^9", "N=1_000_000_000"},
		{"gauss", "N=10^3", "N=1000 P=8"},
		{"gauss", "N=10^6", "N=1_000_000 P=8"},
	} {
		k := loadKernel(b, tc.example, exampleSource(b, tc.example), parseSetting(b, tc.settings))
		b.Run(tc.example+"/"+tc.name, func(b *testing.B) {
			benchmarkAnalyze(b, k)
		})
	}
}

// benchmarkAnalyze times Analyze of every rank of k, in wall-clock and in
// CPU time (cpu-ms/op, what the speed targets are stated in: on a shared
// machine the wall clock also counts time spent waiting for a core).
func benchmarkAnalyze(b *testing.B, k *lang.Checked) {
	b.ReportAllocs()
	cpu0, ok := cputime.Process()
	for b.Loop() {
		if _, err := Analyze(k, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	if cpu1, _ := cputime.Process(); ok {
		b.ReportMetric(float64(cpu1-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
	}
}
