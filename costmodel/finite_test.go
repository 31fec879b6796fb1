package costmodel

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"perfc/analyze"
	"perfc/costmodel/emulate"
	"perfc/internal/jsonwalk"
	"perfc/lang"
	"perfc/machines"
)

// testMachine is a table with costs that are fine at the load-time sample
// points but go negative at the sizes and rank counts of the kernels
// below: a broadcast formula 2000us - P*1us (negative beyond P = 2000) and
// a message time measured over 0 to 1 MiB that falls with the size
// (negative beyond 2 MiB).
const testMachine = `
name: badcosts
description: costs that go negative beyond the load-time samples
source: perfc test
compute:
  source: test
  peak: {f64: 1Gflop/s}
messages:
  source: test
  model: expr
  time:
    x: bytes
    points: [[0B, 10us], [1MiB, 5us]]
collectives:
  source: test
  entries:
    - {kind: bcast, time: 2000us - P*1us}
    - {kind: barrier, time: 5us}
`

const bcastKernel = `
kernel b(m = 64) on P = 8 ranks {
  region "broadcast" {
    bcast m bytes from 0
  }
}
`

const pingKernel = `
kernel ping(n = 8) on P = 2 ranks {
  array buf[n]: f64
  region "ping" {
    if rank == 0 {
      send buf[0:n] to 1
    } else {
      recv buf[0:n] from 0
    }
  }
}
`

// hugeKernel does 10^360 multiply-adds: its count is beyond float range.
const hugeKernel = `
kernel huge(R = 1_000_000_000_000_000_000) {
  var s: f64 = 0
  region "deep" {
    repeat R { repeat R { repeat R { repeat R { repeat R { repeat R { repeat R { repeat R { repeat R { repeat R {
    repeat R { repeat R { repeat R { repeat R { repeat R { repeat R { repeat R { repeat R { repeat R { repeat R {
      s = s + 2.0*s
    } } } } } } } } } }
    } } } } } } } } } }
  }
}
`

// memoryMachine prices memory with a cost that is positive at the
// load-time samples (n = 0 and 10^6 elements) and negative between 10 and
// 100 elements.
const memoryMachine = `
name: mem
description: a memory cost that dips below zero between the samples
source: perfc test
compute: {source: test, peak: {f64: 1Gflop/s}}
memory:
  source: test
  cost: 1ns*(n - 10)*(n - 100)
`

// memoryKernel moves 50 elements: 25 loads and 25 stores.
const memoryKernel = `
kernel m(n = 25) {
  array a[n]: f64
  for i in 0..n {
    a[i] = a[i] * 2.0
  }
}
`

// predictSource analyses and prices kernel source on a machine.
func predictSource(t *testing.T, m *machines.Machine, src string, opts Options, defs ...string) (*Prediction, error) {
	t.Helper()
	k := checkSource(t, "k.spmd", src, defs...)
	rep, err := analyze.Analyze(k, analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return Predict(k, rep, m, opts)
}

// predictCached counts k with m's cache hierarchy and predicts it, as
// perfc predict -m does; an error ends the test.
func predictCached(t *testing.T, k *lang.Checked, m *machines.Machine, opts Options) *Prediction {
	t.Helper()
	rep, err := analyze.Analyze(k, analyze.Options{Cache: m.CacheHierarchy()})
	if err != nil {
		t.Fatal(err)
	}
	pred, err := Predict(k, rep, m, opts)
	if err != nil {
		t.Fatal(err)
	}
	return pred
}

// TestPredictRefusesUnusableCosts checks that a negative cost, a count
// beyond float range and a cost that overflows when multiplied by its
// count are errors that name their cause, on the paths of predict with
// and without emulation and of emulate; and that what is not refused
// encodes as JSON.
func TestPredictRefusesUnusableCosts(t *testing.T) {
	bad, err := machines.Parse("bad.yaml", []byte(testMachine))
	if err != nil {
		t.Fatal(err)
	}
	huge, err := machines.Builtin("cm5-32")
	if err != nil {
		t.Fatal(err)
	}
	if huge, err = huge.With(machines.Assignment{Name: "t_startup", Value: "1e308s"}); err != nil {
		t.Fatal(err)
	}
	cm5, err := machines.Builtin("cm5-32")
	if err != nil {
		t.Fatal(err)
	}
	memory, err := machines.Parse("mem.yaml", []byte(memoryMachine))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		m    *machines.Machine
		src  string
		opts Options
		defs []string
		want []string // substrings of the error; none: no error
	}{
		{"bcast on 8 ranks", bad, bcastKernel, Options{}, nil, nil},
		{"bcast formula negative at P = 4096", bad, bcastKernel, Options{}, []string{"P", "4096"},
			[]string{"bad.yaml:17:27: 'time' (2000us - P*1us) is a negative time (-2.096ms) at bytes=64, P=4096", `bcast at k.spmd:4:5 in region "broadcast"`}},
		{"message inside the measured range", bad, pingKernel, Options{}, nil, nil},
		{"measured message table extrapolated below zero", bad, pingKernel, Options{}, []string{"n", "524288"},
			[]string{"bad.yaml:12:5: 'time' (table over bytes (2 points)) is a negative time (-10us) at bytes=4.194304e+06", "from rank 0 to rank 1"}},
		{"measured message table extrapolated below zero, no emulation", bad, pingKernel, Options{NoEmulation: true}, []string{"n", "524288"},
			[]string{"bad.yaml:12:5: 'time' (table over bytes (2 points)) is a negative time (-10us) at bytes=4.194304e+06", `send at k.spmd:6:7 in region "ping" of rank 0`}},
		{"t_startup = 1e308 s, emulated", huge, pingKernel, Options{}, []string{"n", "8"}, nil},
		{"memory cost negative between the samples", memory, memoryKernel, Options{}, nil,
			[]string{`the unit cost of processor-memory transfers in region "(outside regions)" is a negative time (-40 ns per element; 1ns*(n - 10)*(n - 100) with n = 50 elements`,
				"correct the machine table's entry"}},
		{"count beyond float range", cm5, hugeKernel, Options{}, nil,
			[]string{`the count of madd f64 s&s&s in region "deep" is beyond float range`, "-D"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ovs []string
			for i := 0; i+1 < len(tt.defs); i += 2 {
				ovs = append(ovs, tt.defs[i], tt.defs[i+1])
			}
			pred, err := predictSource(t, tt.m, tt.src, tt.opts, ovs...)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if _, err := json.Marshal(pred); err != nil {
					t.Errorf("the prediction does not encode as JSON: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error; want one containing %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\nwant it to contain %q", err, w)
				}
			}
		})
	}
}

// TestPredictRefusesOverflow checks that a finite unit cost whose product
// with the count, or whose sum over a run, goes beyond float range is an
// error naming the term or the largest cost, with and without emulation.
func TestPredictRefusesOverflow(t *testing.T) {
	m, err := machines.Builtin("cm5-32")
	if err != nil {
		t.Fatal(err)
	}
	if m, err = m.With(machines.Assignment{Name: "t_startup", Value: "1e308s"}); err != nil {
		t.Fatal(err)
	}
	const reps = `
kernel pingpong(reps = 100) on P = 2 ranks {
  array buf[8]: f64
  region "round trips" {
    repeat reps {
      if rank == 0 {
        send buf[0:8] to 1
        recv buf[0:8] from 1
      } else {
        recv buf[0:8] from 0
        send buf[0:8] to 0
      }
    }
  }
}
`
	tests := []struct {
		name string
		opts Options
		want []string
	}{
		{"emulated", Options{}, []string{"the emulation of kernel pingpong has total_s = +Inf",
			"the largest single cost is a message of 64 B from rank 0 to rank 1 at 1e+308 s"}},
		{"sum of costs", Options{NoEmulation: true}, []string{`send 1 (k.spmd:7:9) in region "round trips": 100 message of 64 B x 1e+308 s overflows float range`,
			"hockney model", "-M"}},
	}
	for _, tt := range tests {
		_, err := predictSource(t, m, reps, tt.opts)
		if err == nil {
			t.Errorf("%s: no error", tt.name)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error\n%v\nwant it to contain %q", tt.name, err, w)
			}
		}
	}
}

// TestCheckFiniteNumbers checks that the last guard names a number that is
// not finite by its JSON path, wherever it is.
func TestCheckFiniteNumbers(t *testing.T) {
	pred := &Prediction{Regions: []RegionPrediction{{Name: "a"}, {Name: "b", Terms: []Term{{Time: 1}, {Time: math.NaN()}}}}}
	em := &emulate.Emulation{PerRank: []emulate.RankTime{{}, {}, {Wait: math.Inf(1)}}}
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"term", pred, "p has regions[1].terms[1].time = NaN"},
		{"emulation", em, "p has per_rank[2].wait_s = +Inf"},
		{"wavefront", &emulate.Wavefront{TComp: math.Inf(-1)}, "p has tcomp_s = -Inf"},
		{"cluster of a wavefront", &emulate.Wavefront{Cluster: &emulate.ClusterWave{}}, ""},
		{"finite", &Prediction{Total: 1, Regions: []RegionPrediction{{Time: 1}}}, ""},
	}
	for _, tt := range tests {
		err := jsonwalk.CheckFinite("p", tt.v)
		got := ""
		if err != nil {
			got, _, _ = strings.Cut(err.Error(), ":")
		}
		if got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}
