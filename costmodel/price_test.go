package costmodel

import (
	"math"
	"strings"
	"testing"

	"perfc/analyze"
	"perfc/lang"
	"perfc/machines"
	"perfc/parser"
)

// toyMachine has round numbers so that every term can be worked out by
// hand: a peak rate, a main-memory bandwidth, compose max, LogGP messages,
// a table barrier and MPICH for the rest.
const toyMachine = `
name: toy
description: a machine with round numbers for pricing tests
source: perfc test
compute:
  source: test
  peak: {f64: 1Gflop/s}
memory:
  source: test
  compose: max
  main_bandwidth: {value: 1GB/s, source: test}
messages:
  source: test
  model: loggp
  L: 1us
  o: 0.5us
  g: 1us
  G: 1ns/B
collectives:
  source: test
  entries:
    - {kind: barrier, time: 7us, source: test}
  algorithm: mpich
`

const toyKernel = `
kernel k(N = 1000) on P = 2 ranks {
  array a[N], b[N]: f64
  for i in 0..N {
    a[i] = a[i] + 2.0*b[i]
  }
  sendrecv a[0:10] to (rank + 1) % P from (rank + P - 1) % P into b[0:10]
  barrier
  allreduce sum a[0:4]
}
`

// toyMachineTable loads the toy machine.
func toyMachineTable(t *testing.T) *machines.Machine {
	t.Helper()
	m, err := machines.Parse("toy.yaml", []byte(toyMachine))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// predictToy prices the toy kernel on the toy machine.
func predictToy(t *testing.T, opts Options) *Prediction {
	t.Helper()
	m := toyMachineTable(t)
	k := checkSource(t, "toy.spmd", toyKernel)
	rep, err := analyze.Analyze(k, analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Predict(k, rep, m, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPredictByHand checks every term of a prediction against arithmetic
// done by hand.
func TestPredictByHand(t *testing.T) {
	p := predictToy(t, Options{NoEmulation: true})
	us := 1e-6
	compute := 2000 / 1e9               // 2000 flop at 1 Gflop/s
	memory := 24000 / 1e9               // 2000 loads and 1000 stores of 8 B at 1 GB/s
	message := (2*0.5 + 1 + 79e-3) * us // LogGP 2o + L + (n-1)G for 80 B
	barrier := 7 * us
	allreduce := (2 + 32e-3) * us                                     // MPICH recursive doubling on 2 ranks: α + nβ, α = L + 2o, β = G
	want := math.Max(compute, memory) + message + barrier + allreduce // the receive half overlaps the send
	if math.Abs(p.Total-want) > 1e-12 {
		t.Errorf("total %.6g s, want %.6g s", p.Total, want)
	}
	var sum RegionPrediction
	for _, r := range p.Regions {
		sum.Compute += r.Compute
		sum.Memory += r.Memory
		sum.Messages += r.Messages
		sum.Collectives += r.Collectives
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"compute", sum.Compute, compute}, {"memory", sum.Memory, memory}, {"messages", sum.Messages, message}, {"collectives", sum.Collectives, barrier + allreduce}} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s %.6g s, want %.6g s", c.name, c.got, c.want)
		}
	}
	if p.Bottleneck != "memory" {
		t.Errorf("bottleneck %s, want memory", p.Bottleneck)
	}
	// R_B: the nominal flop of both ranks over the predicted time, in Mflop/s.
	if rb := 4000 / want / 1e6; math.Abs(p.RB-rb) > 1e-9*rb {
		t.Errorf("R_B %.6g Mflop/s, want %.6g", p.RB, rb)
	}
	var names []string
	for _, r := range p.Regions {
		for _, term := range r.Terms {
			names = append(names, term.How)
		}
	}
	if !strings.Contains(strings.Join(names, "|"), "MPICH recursive doubling") {
		t.Errorf("the allreduce should name the MPICH algorithm; terms say %q", names)
	}
	if len(p.Warnings) == 0 || !strings.Contains(p.Warnings[0], "wait on each other") {
		t.Errorf("a kernel with point-to-point messages must warn that waiting is not modelled; warnings %q", p.Warnings)
	}
	// Emulated, the two symmetric ranks never wait: the critical path is the
	// same sum, priced segment by segment.
	em := predictToy(t, Options{})
	if em.Emulation == nil || math.Abs(em.Total-want) > 1e-12 || em.RankSum != p.Total {
		t.Errorf("emulated total %.6g s (rank sum %.6g s), want %.6g s", em.Total, em.RankSum, want)
	}
}

// TestComposeOverride checks a what-if study: with compose sum instead of
// max, compute and memory add up.
func TestComposeOverride(t *testing.T) {
	m, err := machines.Parse("toy.yaml", []byte(strings.Replace(toyMachine, "compose: max", "compose: sum", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if m.Compose() != machines.ComposeSum {
		t.Fatal("compose not sum")
	}
	max := predictToy(t, Options{NoEmulation: true})
	f, _ := parser.ParseFile("toy.spmd", []byte(toyKernel))
	k, _ := lang.Check(f, "", nil)
	rep, err := analyze.Analyze(k, analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Predict(k, rep, m, Options{NoEmulation: true})
	if err != nil {
		t.Fatal(err)
	}
	if d := sum.Total - max.Total; math.Abs(d-2e-6) > 1e-12 {
		t.Errorf("compose sum adds the 2 us of compute: difference %.6g s", d)
	}
}
