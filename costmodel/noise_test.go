package costmodel

import (
	"math"
	"testing"

	"perfc/lang"
	"perfc/machines"
	"perfc/parser"
)

// TestNoiseTerm checks what a table's messages.noise does to a prediction:
// two ranks compute the same region and then exchange; with excess(c) =
// 0.5·c the emulation delays the exchange by m/2 = 0.5·c, where c is the
// compute each rank did since the start (the region "work"), and the
// region "halo" shows that delay as its term "waiting: noise". Without the
// law the prediction is what it was.
func TestNoiseTerm(t *testing.T) {
	base := mustRead(t, "testdata/ecm.yaml")
	plain, err := machines.Parse("ecm.yaml", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	noisy, err := machines.Parse("noisy.yaml", []byte(base+"  noise: {time: 0us, per_compute: 0.5, source: test NOISE}\n"))
	if err != nil {
		t.Fatal(err)
	}
	const src = `kernel k(n = 4096) on P = 2 ranks {
  array a[n], b[n], x[8]: f64
  region "work" {
    for i in 0..n { a[i] = a[i] + 2.0 * b[i] }
  }
  region "halo" {
    exchange x with rank ^ 1
  }
}`
	f, err := parser.ParseFile("k.spmd", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	k, err := lang.Check(f, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	predict := func(m *machines.Machine) *Prediction {
		t.Helper()
		p := predictCached(t, k, m, Options{})
		return p
	}
	region := func(p *Prediction, name string) RegionPrediction {
		for _, r := range p.Regions {
			if r.Name == name {
				return r
			}
		}
		t.Fatalf("no region %q", name)
		return RegionPrediction{}
	}
	pp, pn := predict(plain), predict(noisy)
	work := region(pp, "work").Time
	if pp.Emulation.Noise != nil {
		t.Errorf("an emulation without a noise law has noise %v", pp.Emulation.Noise)
	}
	if got, want := pn.Total-pp.Total, 0.5*work; work <= 0 || math.Abs(got-want) > 1e-9*pp.Total {
		t.Errorf("with the noise law the total grows by %g s, want 0.5 × the work %g s = %g s", got, work, want)
	}
	var term *Term
	halo := region(pn, "halo")
	for i := range halo.Terms {
		if halo.Terms[i].Resource == "waiting" {
			term = &halo.Terms[i]
		}
	}
	if term == nil || math.Abs(term.Time-0.5*work) > 1e-9*work || term.Source != "test NOISE" {
		t.Fatalf("halo's waiting term %+v, want 0.5 × %g s from the table's noise", term, work)
	}
	if got, want := halo.Time-region(pp, "halo").Time, term.Time; math.Abs(got-want) > 1e-15 {
		t.Errorf("halo's time grows by %g s, want its noise term %g s", got, want)
	}
	for _, r := range region(pp, "halo").Terms {
		if r.Resource == "waiting" {
			t.Errorf("a waiting term without a noise law: %+v", r)
		}
	}
}
