package costmodel

import (
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfc/analyze"
	"perfc/lang"
	"perfc/machines"
)

// sweep3dPair checks and analyses the detailed SWEEP3D and its abstract
// form (examples/sweep3d_abstract.spmd, the blocks' computation stated as
// work) at the same parameters.
func sweep3dPair(t *testing.T, defs ...string) (detailed, abstract *lang.Checked, rd, ra *analyze.Report) {
	t.Helper()
	load := func(name string) (*lang.Checked, *analyze.Report) {
		src, err := os.ReadFile("../examples/" + name + ".spmd")
		if err != nil {
			t.Fatal(err)
		}
		k := checkSource(t, name+".spmd", string(src), defs...)
		rep, err := analyze.Analyze(k, analyze.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return k, rep
	}
	detailed, rd = load("sweep3d")
	abstract, ra = load("sweep3d_abstract")
	return detailed, abstract, rd, ra
}

// workSummary is what the abstract form states and must reproduce exactly:
// operations by kind and type (not pattern: the abstract operations are
// not in the detailed statements), flop, loads, stores and their bytes,
// the lines of every cache level below L1 and the messages.
type workSummary struct {
	Ops                                map[string]string
	Flop, Loads, Stores, LoadB, StoreB string
	Lines, WriteBacks                  map[string]string
	Messages, MessageBytes             string
}

func summarize(c analyze.Counts) workSummary {
	s := workSummary{Ops: map[string]string{}, Lines: map[string]string{}, WriteBacks: map[string]string{},
		Flop: c.Flop.Exact(), Loads: c.Loads.Exact(), Stores: c.Stores.Exact(),
		LoadB: c.LoadBytes.Exact(), StoreB: c.StoreBytes.Exact()}
	ops := map[string]analyze.Count{}
	for _, o := range c.Ops {
		k := fmt.Sprintf("%s %s", o.Op, o.Type)
		if prev, ok := ops[k]; ok {
			ops[k] = addCounts(prev, o.Count)
		} else {
			ops[k] = o.Count
		}
	}
	for k, n := range ops {
		s.Ops[k] = n.Exact()
	}
	for _, l := range c.Cache {
		if l.Level == "L1" {
			continue // see TestAbstractSweep3D: the abstract streams reuse less in L1
		}
		s.Lines[l.Level], s.WriteBacks[l.Level] = l.Lines.Exact(), l.WriteBacks.Exact()
	}
	n, b := 0.0, 0.0
	for _, m := range c.Messages {
		n += m.Count.Float()
		b += m.Bytes.Float()
	}
	s.Messages, s.MessageBytes = fmt.Sprint(n), fmt.Sprint(b)
	return s
}

// addCounts adds two exact integer counts (the ops of one kind and type
// in several patterns).
func addCounts(a, b analyze.Count) analyze.Count {
	v := a.Value
	if v == nil {
		return b
	}
	sum := *v
	sum.Add(&sum, b.Value)
	return analyze.Count{Value: &sum}
}

// TestAbstractSweep3D compares SWEEP3D with its abstract form: every rank
// class's counts in every region agree exactly on what the work items
// state (operations by kind and type, flop, loads, stores, bytes, the
// lines below L1, the messages), and the predictions agree within a
// tolerance on each table, as docs/predict.md ("Abstract work") explains:
// exactly on the tables that price flop at peak (bluemountain, the
// compute-bound host.yaml), within 15% on the measured host with the ECM
// composition, which prices what the abstract form does not state (the
// detailed kernel's chain through its divide, its loop structure and its
// multiply-add pairs).
func TestAbstractSweep3D(t *testing.T) {
	_, _, rd, ra := sweep3dPair(t)
	if len(rd.Classes) != len(ra.Classes) {
		t.Fatalf("%d rank classes, the abstract form %d", len(rd.Classes), len(ra.Classes))
	}
	computed := false
	for i, cd := range rd.Classes {
		ca := ra.Classes[i]
		for j, reg := range cd.Regions {
			computed = computed || !reg.Counts.Flop.IsZero()
			got, want := summarize(ca.Regions[j].Counts), summarize(reg.Counts)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("ranks %v, region %q (-detailed +abstract):\n%s", cd.Ranks, reg.Name, diff)
			}
		}
		if d, a := cd.Total.MaddPairs.Float(), ca.Total.MaddPairs.Float(); d == 0 || a != 0 {
			t.Errorf("multiply-add pairs: detailed %g, abstract %g; want some and none (work states no pairs)", d, a)
		}
	}
	if !computed {
		t.Fatal("no region of SWEEP3D computes: the comparison compared nothing")
	}

	detailed, abstract, _, _ := sweep3dPair(t)
	for _, tt := range []struct {
		machine   string
		tolerance float64 // relative
	}{
		{"bluemountain", 1e-9},
		{"testdata/host.yaml", 1e-9},
		{"../docs/host-2026-11-25.yaml", 0.15},
	} {
		t.Run(tt.machine, func(t *testing.T) {
			var m *machines.Machine
			var err error
			if _, statErr := os.Stat(tt.machine); statErr == nil {
				m, err = machines.Load(tt.machine)
			} else {
				m, err = machines.Builtin(tt.machine)
			}
			if err != nil {
				t.Fatal(err)
			}
			predict := func(k *lang.Checked) float64 {
				p := predictCached(t, k, m, Options{})
				return p.Total
			}
			d, a := predict(detailed), predict(abstract)
			if rel := math.Abs(a-d) / d; rel > tt.tolerance {
				t.Errorf("predicted %.6g s for SWEEP3D, %.6g s for its abstract form: %.1f%% apart, more than %g%%",
					d, a, 100*rel, 100*tt.tolerance)
			}
			t.Logf("%s: SWEEP3D %.4g s, abstract %.4g s (%+.1f%%)", tt.machine, d, a, 100*(a-d)/d)
		})
	}
}
