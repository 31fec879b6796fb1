package codegen

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// quality runs the long comparisons of generated programs with
// hand-written Go: go test ./codegen -run TestQuality -quality.
var quality = flag.Bool("quality", false, "compare generated programs with hand-written Go (slow: about a minute)")

// handTriad is the STREAM triad written by hand: three slices, the loop,
// the minimum of repeated timings.
const handTriad = `package main

import (
	"fmt"
	"time"
)

func main() {
	const n = %d
	a, b, c := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range a {
		a[i], b[i], c[i] = 1, 2, 0.5
	}
	best := time.Duration(1 << 62)
	for rep := 0; rep < %d; rep++ {
		start := time.Now()
		for i := range a {
			a[i] = b[i] + 3.0*c[i]
		}
		best = min(best, time.Since(start))
	}
	fmt.Println(best.Seconds(), a[n/2])
}
`

// handPingpong is the pingpong written by hand with channels: the master
// sends its buffer, the slave copies it into its own and sends that back.
const handPingpong = `package main

import (
	"fmt"
	"time"
)

func main() {
	const n, reps, samples = %d, %d, %d
	ping, pong := make(chan []float64), make(chan []float64)
	go func() {
		mine := make([]float64, n)
		for {
			copy(mine, <-ping)
			pong <- mine
		}
	}()
	buf := make([]float64, n)
	best := time.Duration(1 << 62)
	for s := 0; s < samples; s++ {
		start := time.Now()
		for r := 0; r < reps; r++ {
			ping <- buf
			copy(buf, <-pong)
		}
		best = min(best, time.Since(start))
	}
	fmt.Println(best.Seconds()/(2*reps), buf[0])
}
`

// buildHand builds a hand-written program and returns its binary.
func buildHand(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module hand\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	goCommand(t, dir, "build", "-o", "hand", ".")
	return filepath.Join(dir, "hand")
}

// runHand runs a hand-written program and returns the first number it
// prints: the best time it measured, in seconds.
func runHand(t *testing.T, bin string) float64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := Run(ctx, bin)
	if err != nil {
		t.Fatal(err)
	}
	v, err := strconv.ParseFloat(strings.Fields(string(out))[0], 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// runGenerated runs a generated program and returns the minimum time of
// one run of a region, in seconds.
func runGenerated(t *testing.T, bin, region string, args ...string) float64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	m, err := Measure(ctx, bin, args...)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range m.Regions {
		if r.Name == region {
			return r.MinUs / 1e6
		}
	}
	t.Fatalf("no region %q", region)
	return 0
}

// bestOf runs the generated and the hand-written program alternately,
// rounds times (the machine may be busy with other work), and returns the
// best time of each.
func bestOf(t *testing.T, rounds int, generated, hand func() float64) (gen, handBest float64) {
	gen, handBest = math.Inf(1), math.Inf(1)
	for range rounds {
		gen = min(gen, generated())
		handBest = min(handBest, hand())
	}
	return gen, handBest
}

// TestQuality compares generated programs with hand-written Go: the triad
// must reach 90% of the hand-written bandwidth, the pingpong's half round
// trip must be within 10% of a channel pingpong's.
func TestQuality(t *testing.T) {
	if !*quality {
		t.Skip("run with -quality")
	}
	if _, err := goTool(); err != nil {
		t.Skip(err)
	}
	t.Run("triad", func(t *testing.T) {
		const n, reps = 10_000_000, 10
		_, gen, _ := buildOne(t, checkExample(t, "triad", fmt.Sprintf("N=%d", n)), false, "")
		hand := buildHand(t, fmt.Sprintf(handTriad, n, reps))
		g, h := bestOf(t, 5,
			func() float64 { return runGenerated(t, gen, "triad", "-reps", "1", "-samples", fmt.Sprint(reps)) },
			func() float64 { return runHand(t, hand) })
		genBW, handBW := 24*n/g/1e6, 24*n/h/1e6
		t.Logf("triad, N = %d: generated %.0f MB/s (%.3f ms), hand-written %.0f MB/s (%.3f ms): %.1f%%",
			n, genBW, g*1e3, handBW, h*1e3, 100*genBW/handBW)
		if genBW < 0.9*handBW {
			t.Errorf("the generated triad reaches %.1f%% of the hand-written bandwidth, want at least 90%%", 100*genBW/handBW)
		}
	})
	t.Run("pingpong", func(t *testing.T) {
		const n, reps, samples = 1024, 20000, 5
		_, gen, _ := buildOne(t, checkExample(t, "pingpong", fmt.Sprintf("n=%d,reps=%d", n, reps)), false, "")
		hand := buildHand(t, fmt.Sprintf(handPingpong, n, reps, samples))
		g, h := bestOf(t, 5,
			func() float64 {
				return runGenerated(t, gen, "round trips", "-reps", "1", "-samples", fmt.Sprint(samples)) / (2 * reps)
			},
			func() float64 { return runHand(t, hand) })
		t.Logf("pingpong, %d B: generated half round trip %.3f us, hand-written %.3f us: %+.1f%%",
			8*n, g*1e6, h*1e6, 100*(g-h)/h)
		if g > 1.1*h {
			t.Errorf("the generated half round trip is %.1f%% slower than the channel pingpong's, want at most 10%%", 100*(g-h)/h)
		}
	})
}
