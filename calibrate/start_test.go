package calibrate

import (
	"math"
	"slices"
	"strings"
	"testing"

	"perfc/codegen/spmd"
)

// TestFitStart works START's excess out by hand: runs of 25 µs (one
// barrier) and 41.05 µs (nine) with a clock of 100 ns a run and 50 ns a
// region entry give a barrier of (41.05 − 25 − 0.05)/8 = 2 µs and an
// excess of 25 − 0.1 − 0.05 − 2 = 22.85 µs; a one-barrier run faster than
// its clock and barrier leaves 0, and a run measured at 0 is an error.
func TestFitStart(t *testing.T) {
	clock := &clockFit{run: 100e-9, region: 50e-9}
	meas := func(us float64) *spmd.Measurement {
		return &spmd.Measurement{Total: spmd.Timing{MedianUs: us, MinUs: us * 0.9, MaxUs: us * 1.1}}
	}
	for _, tc := range []struct {
		one, more, excess float64 // µs
	}{{25, 41.05, 22.85}, {1, 17.05, 0}} {
		f, err := fitStart(meas(tc.one), meas(tc.more), clock, 2, 9)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(f.excess*1e6-tc.excess) > 1e-9 || f.ranks != 4 || f.cores != 2 || math.Abs(f.barrier*1e6-2) > 1e-9 {
			t.Errorf("runs of %g and %g µs: %+v, want a barrier of 2 µs and an excess of %g µs", tc.one, tc.more, *f, tc.excess)
		}
	}
	if _, err := fitStart(meas(0), meas(30), clock, 2, 9); err == nil || !strings.Contains(err.Error(), "START") {
		t.Errorf("a run measured at 0: %v", err)
	}
}

// TestFastestStart keeps the repeat whose excess is the least, with every
// repeat's excess in the order measured; and START's kernel refills an
// array on every rank (startArray).
func TestFastestStart(t *testing.T) {
	fits := []*startFit{{excess: 30e-6, one: 1}, {excess: 9e-6, one: 2}, {excess: 17e-6, one: 3}}
	m := fastestStart(fits)
	if m.excess != 9e-6 || m.one != 2 {
		t.Errorf("fastest %+v, want the second repeat's (9 µs)", *m)
	}
	if want := []float64{30e-6, 9e-6, 17e-6}; !slices.Equal(m.excesses, want) {
		t.Errorf("excesses %v, want %v", m.excesses, want)
	}
	if fits[1].excesses != nil {
		t.Error("fastestStart changed a repeat")
	}
	if m := fastestStart([]*startFit{{excess: 2}}); m.excess != 2 {
		t.Errorf("one repeat: %g, want it (2)", m.excess)
	}
	if m := fastestStart([]*startFit{{excess: 3.352e-6}, {excess: 0}, {excess: 0.3337e-6}}); m.excess != 0.3337e-6 {
		t.Errorf("repeats of 3.352, 0 and 0.3337 µs: %g, want the least positive (0.3337 µs)", m.excess)
	}
	if m := fastestStart([]*startFit{{excess: 0, one: 1}, {excess: 0, one: 2}}); m.excess != 0 || m.one != 1 {
		t.Errorf("repeats of 0 and 0: %+v, want the first", *m)
	}
	if text := startKernel(4, 0).text; !strings.Contains(text, "array refilled[2048]: f64") {
		t.Errorf("START's kernel has no array to refill:\n%s", text)
	}
	if _, err := checkText(startKernel(4, startLater)); err != nil {
		t.Errorf("START's kernel does not check: %v", err)
	}
}
