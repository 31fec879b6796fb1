package analyze

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestZZCPU(t *testing.T) {
	only := os.Getenv("ZZ")
	files, _ := filepath.Glob("../examples/*.spmd")
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".spmd")
		if only != "" && !strings.Contains(","+only+",", ","+name+",") {
			continue
		}
		src, _ := os.ReadFile(f)
		k := loadKernel(t, f, src, nil)
		for i := 0; i < 20; i++ {
			Analyze(k, Options{Rank: AllRanks})
		}
		best := time.Hour
		for r := 0; r < 5; r++ {
			c0 := cpuNow()
			for i := 0; i < 100; i++ {
				if _, err := Analyze(k, Options{Rank: AllRanks}); err != nil {
					t.Fatal(err)
				}
			}
			best = min(best, (cpuNow()-c0)/100)
		}
		fmt.Printf("%-18s %8.3f ms CPU\n", name, float64(best)/1e6)
	}
}
