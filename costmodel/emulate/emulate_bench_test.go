package emulate

import (
	"testing"
	"time"

	"perfc/analyze"
	"perfc/internal/cputime"
)

// blueMountainLike prices like LANL's Blue Mountain as modelled for SWEEP3D
// ([002] L251-258): 38 KiB-class messages at t0 = 150 us and 30 MB/s between
// 8 x 16 nodes with L = 4 links per boundary; inside a node the IMH Origin
// 2000 stand-ins; compute at 390 Mflop/s.
type blueMountainLike struct{}

func (blueMountainLike) Compute(w *analyze.Work) float64 { return w.Flop / 390e6 }
func (blueMountainLike) Message(src, dst int64, bytes int64) float64 {
	return 85e-6 + float64(bytes)/15e6
}
func (blueMountainLike) Collective(kind, op, elem string, bytes int64, participants int64) float64 {
	return 0
}
func (blueMountainLike) EagerLimit() int64 { return -1 }
func (blueMountainLike) Cluster() *Cluster {
	return &Cluster{Sx: 8, Sy: 16, Lx: 4, Ly: 4, Inter: func(bytes int64) float64 { return 150e-6 + float64(bytes)/30e6 }}
}

// benchmarkWave emulates the wave kernel on a 96 x 64 grid (6,144 ranks,
// Blue Mountain's size) with 1,000 waves.
func benchmarkWave(b *testing.B, p Pricer) {
	k := loadKernel(b, "../../examples/wave.spmd", "Px", "96", "Py", "64", "sweeps", "1000", "cells", "4800")
	b.ReportAllocs()
	b.ResetTimer()
	cpu0, ok := cputime.Process()
	var em *Emulation
	for b.Loop() {
		var err error
		if em, err = Emulate(k, p, EmulateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	secs := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(em.Events)/secs, "events/s")
	b.ReportMetric(float64(2*em.Messages)/secs, "msg-events/s")
	b.ReportMetric(em.Total, "predicted-s")
	reportCPU(b, cpu0, ok)
}

// reportCPU reports the CPU time per operation since cpu0: the machine is
// shared, and the wall clock also counts time spent waiting for a core.
func reportCPU(b *testing.B, cpu0 time.Duration, ok bool) {
	if cpu1, _ := cputime.Process(); ok {
		b.ReportMetric(float64(cpu1-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
	}
}

// BenchmarkEmulateSweep6144 is the Sweep3D-like wavefront on Blue
// Mountain's 6,144 ranks, 1,000 waves, with the cluster's link limits.
func BenchmarkEmulateSweep6144(b *testing.B) { benchmarkWave(b, blueMountainLike{}) }

// BenchmarkEmulateSweep6144Flat is the same on the unit machine without
// clusters: the emulator's speed without link contention.
func BenchmarkEmulateSweep6144Flat(b *testing.B) { benchmarkWave(b, steps()) }

// BenchmarkEmulateMemory100 and BenchmarkEmulateMemory1000 emulate the same
// grid with 100 and 1,000 waves: the memory (B/op) must not grow with the
// number of events.
func BenchmarkEmulateMemory100(b *testing.B)  { benchmarkWaves(b, "100") }
func BenchmarkEmulateMemory1000(b *testing.B) { benchmarkWaves(b, "1000") }

func benchmarkWaves(b *testing.B, waves string) {
	k := loadKernel(b, "../../examples/wave.spmd", "Px", "32", "Py", "32", "sweeps", waves)
	b.ReportAllocs()
	cpu0, ok := cputime.Process()
	for b.Loop() {
		if _, err := Emulate(k, blueMountainLike{}, EmulateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu0, ok)
}
