package machines

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfc/analyze/cache"
	goldenfile "perfc/internal/golden"
)

// near reports whether got is within rel (relative) of want.
func near(got, want, rel float64) bool {
	return math.Abs(got-want) <= rel*math.Abs(want)
}

func mustBuiltin(t *testing.T, name string) *Machine {
	t.Helper()
	m, err := Builtin(name)
	if err != nil {
		t.Fatalf("Builtin(%q): %v", name, err)
	}
	return m
}

func TestBuiltinNames(t *testing.T) {
	want := []string{"bluemountain", "cm5-32", "cm5-512", "cs2", "dec-alpha", "delta", "i860xp", "ipsc860",
		"nwt", "origin2000", "paragon", "rs6000-530", "sp2", "suprenum", "t3e", "unit"}
	if diff := cmp.Diff(want, BuiltinNames()); diff != "" {
		t.Errorf("BuiltinNames (-want +got):\n%s", diff)
	}
}

// TestBuiltinsLoad checks that every built-in loads, is named after its
// file, and gives a source for every parameter.
func TestBuiltinsLoad(t *testing.T) {
	for _, name := range BuiltinNames() {
		m := mustBuiltin(t, name)
		if m.Name() != name {
			t.Errorf("%s.yaml is named %q", name, m.Name())
		}
		if m.Description() == "" || m.Source() == "" {
			t.Errorf("%s: empty description or source", name)
		}
		for _, p := range m.Params() {
			if p.Source == "" || !p.Given {
				t.Errorf("%s: parameter %s has no source", name, p.Name)
			}
		}
	}
}

func TestBuiltinUnknown(t *testing.T) {
	_, err := Builtin("cray-1")
	if err == nil || !strings.Contains(err.Error(), `no built-in machine 'cray-1'; available: bluemountain, cm5-32,`) {
		t.Errorf("Builtin(cray-1) = %v, want an error listing the names", err)
	}
}

// TestDescribeGolden compares `perfc machines NAME` output with the golden
// files; go test -update rewrites them.
func TestDescribeGolden(t *testing.T) {
	for _, name := range BuiltinNames() {
		var buf bytes.Buffer
		if err := mustBuiltin(t, name).Describe(&buf); err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", "describe", name+".txt")
		goldenfile.Check(t, golden, buf.String())
	}
}

// TestCM5 checks the CM-5 tables against the paper's numbers, including the
// rows of the Gaussian-elimination estimate ([004] Table 6).
func TestCM5(t *testing.T) {
	m := mustBuiltin(t, "cm5-32")
	msg := m.Messages("f64")
	us := 1e-6
	checks := []struct {
		what      string
		got, want float64
	}{
		{"Eq. 1 at l = 1000 B, same cluster", msg.Time(1000, 1), (84.65 + 117) * us},
		{"Eq. 1 at l = 0", msg.Time(0, 1), 84.65 * us},
		{"Eq. 1 at 1000 B across 3 fat-tree levels", msg.Time(1000, 3), (84.65 + 117 + 2) * us},
		{"levels 0-3", float64(msg.Levels(0, 3)), 1},
		{"levels 0-4", float64(msg.Levels(0, 4)), 2},
		{"levels 5-31", float64(msg.Levels(5, 31)), 3},
		{"levels 7-7", float64(msg.Levels(7, 7)), 0},
	}
	for _, c := range checks {
		if !near(c.got, c.want, 1e-12) {
			t.Errorf("%s = %g, want %g", c.what, c.got, c.want)
		}
	}

	collectives := []struct {
		kind, op, elem string
		vars           Vars
		want           float64
	}{
		{"allreduce", "max", "f64", Vars{}, 14.24 * us}, // Table 4, Table 6 row 1
		{"allreduce", "max", "i64", Vars{}, 4.36 * us},  // Table 6 row 2 (the example's piv is i64)
		{"reduce", "max", "i32", Vars{}, 4.36 * us},
		{"reduce", "and", "u32", Vars{}, 3.70 * us},
		{"scan", "sum", "f64", Vars{}, 33.70 * us},
		{"segscan", "min", "f64", Vars{}, 20.31 * us},
		{"bcast", "", "f64", Vars{Bytes: 65 * 8}, 604.96 * us}, // Eq. 2, Table 6 row 3 at N = 64
		{"bcast", "", "", Vars{Bytes: 513 * 8}, 4726.56 * us},  // Table 6 at N = 512
		{"allgather", "", "f64", Vars{Bytes: 8, P: 32}, (23.44 + 0.975*256) * us},
		{"barrier", "", "", Vars{P: 32}, 5 * us},
	}
	for _, c := range collectives {
		cost, ok := m.Collective(c.kind, c.op, c.elem)
		if !ok {
			t.Errorf("no cost for %s %s %s", c.kind, c.op, c.elem)
			continue
		}
		if got := cost.Eval(c.vars); !near(got, c.want, 1e-9) {
			t.Errorf("%s %s %s at %+v = %g, want %g", c.kind, c.op, c.elem, c.vars, got, c.want)
		}
	}
	if _, ok := m.Collective("scan", "xor", "f64"); ok {
		t.Error("scan xor f64 is undefined in Table 4 but has a cost")
	}
	if cost, _ := mustBuiltin(t, "cm5-512").Collective("bcast", "", ""); !near(cost.Eval(Vars{Bytes: 100}), (7.40+124)*us, 1e-12) {
		t.Errorf("cm5-512 broadcast of 100 B = %g, want Eq. 3", cost.Eval(Vars{Bytes: 100}))
	}

	c := m.Compute()
	ops := []struct {
		p    Pattern
		op   Op
		elem string
		want float64
	}{
		{ThreeArrays, OpDiv, "f64", 1.37 * us},
		{TwoArraysScalar, OpMul, "i32", 0.70 * us},
		{ArrayScalarScalar, OpMadd, "f32", 0.24 * us},
		{TwoArraysScalar, OpCmp, "f64", 0.41 * us}, // priced as a subtract
		{ThreeArrays, OpExp, "f32", 2 * 0.94 * us}, // priced as two divides
	}
	for _, o := range ops {
		got, ok := c.OpCost(o.p, o.op, o.elem)
		if !ok || !near(got.Value, o.want, 1e-12) {
			t.Errorf("OpCost(%s, %s, %s) = %v, %v; want %g s", o.p, o.op, o.elem, got, ok, o.want)
		}
	}
	if got, _ := c.OpCost(TwoArraysScalar, OpCmp, "f64"); got.Given || !strings.Contains(got.Source, "L429") {
		t.Errorf("a fallback cost must say it is derived and why; got %+v", got)
	}
	if _, ok := c.OpCost(ThreeArrays, OpAdd, "u32"); ok {
		t.Error("Table 1 has no unsigned column but OpCost found one")
	}
	v, ok := c.Vector("A = B*C", "f64")
	if !ok || v.Rinf.Value != 13.49e6 || v.Nhalf.Value != 200 || v.Nv.Value != 16 {
		t.Errorf("Vector(a=b*c, f64) = %+v, %v", v, ok)
	}
	if v, _ := c.Vector("a=b*c+d*e", "f32"); v.Work.Value != 3 || !near(v.Time(160), 3*320/19.82e6, 1e-12) {
		t.Errorf("Vector(a=b*c+d*e, f32) = %+v", v)
	}
	if r, ok := c.RegisterRate(); !ok || r.Value != 11e6 {
		t.Errorf("RegisterRate = %v, %v", r, ok)
	}
	caches := m.Memory().Caches()
	if len(caches) != 1 || caches[0].Table.Size.Value != 65536 || caches[0].Table.Line.Given || caches[0].Table.Assoc != -1 {
		t.Errorf("CM-5 caches = %+v, want one 64 KiB cache, line and associativity not given", caches)
	}
	want := cache.Level{Name: caches[0].Name, Size: 65536, Line: 64, Assoc: 0, Source: "cm5-32 (line size assumed 64 B) (associativity assumed full)"}
	if h := m.CacheHierarchy(); caches[0].Level != want || len(h) != 1 || h[0] != caches[0].Level {
		t.Errorf("CM-5 cache level = %+v, CacheHierarchy = %+v; want the level %+v, as CacheHierarchy returns it", caches[0].Level, h, want)
	}
	if m.Compose() != ComposeSum {
		t.Errorf("CM-5 compose = %v, want sum", m.Compose())
	}
}

// TestIMH checks the IMH tables, with the SP's Table 5 predictions
// ([000] Table 5, L754-773).
func TestIMH(t *testing.T) {
	m := mustBuiltin(t, "sp2")
	h, ok := m.Messages("").Hockney(0)
	if !ok || h.T0.Value != 54e-6 || h.Rinf.Value != 50e6 {
		t.Fatalf("SP Hockney = %+v, want T_s = 54us, 50MB/s", h)
	}
	ms := 1e-3
	checks := []struct {
		kind string
		vars Vars
		want float64 // the printed prediction, rounded to whole ms
	}{
		{"scatter", Vars{Bytes: 2e6, P: 8}, 140 * ms},
		{"scatter", Vars{Bytes: 1e6, P: 16}, 150 * ms},
		{"bcast", Vars{Bytes: 2e6, P: 8}, 60 * ms},
		{"bcast", Vars{Bytes: 1e6, P: 16}, 40 * ms},
	}
	for _, c := range checks {
		cost, _ := m.Collective(c.kind, "", "")
		if got := cost.Eval(c.vars); math.Round(got/ms)*ms != c.want {
			t.Errorf("%s at %+v = %g, printed %g", c.kind, c.vars, got, c.want)
		}
	}
	if got := m.Messages("").Time(16e6, 1); math.Round(got/ms) != 320 {
		t.Errorf("permutation of 16 MB = %g, printed 320 ms", got)
	}
	imh, ok := m.Compute().IMH()
	if !ok || imh.Tn.Value != 120e-9 || imh.Tc.Value != 135e-9 || imh.Te.Value != 100e-9 || imh.TnPer != "element" {
		t.Errorf("SP IMH terms = %+v", imh)
	}
	cost, _ := m.Memory().Cost()
	if got := cost.Eval(Vars{N: 1000, Lines: 63, Stride: 2}); !near(got, 1000*120e-9+63*135e-9+2*100e-9, 1e-12) {
		t.Errorf("SP memory cost = %g", got)
	}
	disk, _ := m.Disk()
	if !near(disk.Read.Time(255e6), 1+1e-3, 1e-12) || !near(disk.Write.Time(0), 1e-3, 1e-12) {
		t.Errorf("SP disk = %+v", disk)
	}
	mpich, _ := m.MPICH()
	if mpich.Alpha.Value != 54e-6 || !near(mpich.Beta.Value, 20e-9, 1e-12) || mpich.Gamma.Value != 0 {
		t.Errorf("SP MPICH = %+v", mpich)
	}
	for name, ts := range map[string]float64{"t3e": 29e-6, "origin2000": 85e-6} {
		if h, _ := mustBuiltin(t, name).Messages("").Hockney(0); h.T0.Value != ts {
			t.Errorf("%s T_s = %g, want %g", name, h.T0.Value, ts)
		}
	}
}

// TestNWT checks [003] Table 1 at pe = 1 (L101-108): the table
// holds a0 and a1 and the printed r∞, π0, n½, which must follow from them.
func TestNWT(t *testing.T) {
	m := mustBuiltin(t, "nwt")
	h, _ := m.Messages("").Hockney(0)
	a0 := h.T0.Value * 1e6                // us
	a1 := 1 / h.Rinf.Value * 1e6          // us/byte, from per_byte
	a1p, _ := m.Param("a1")               // as printed
	rinfMbyte := h.Rinf.Value / (1 << 20) // Mbyte/s, 1 Mbyte = 2^20 B
	checks := []struct {
		what      string
		got, want float64
	}{
		{"a0", a0, 2.092370e2},
		{"a1", a1p.Value * 1e6, 1.313087e-3},
		{"r = (1.024^2 a1)^-1", 1 / (1.024 * 1.024 * a1), 7.262842e2},
		{"printed r_inf in Mbyte/s", rinfMbyte, 7.262842e2},
		{"n_half = a0/a1", a0 / (a1p.Value * 1e6), 1.593474e5},
		{"printed n_half", h.Nhalf.Value, 1.593474e5},
		{"pi0 = 1/a0 (MHz)", 1 / a0, 4.779269e-3},
		{"printed pi0 (MHz)", h.Pi0.Value / 1e6, 4.779269e-3},
	}
	for _, c := range checks {
		if !near(c.got, c.want, 1e-6) {
			t.Errorf("%s = %.7g, want %.7g", c.what, c.got, c.want)
		}
	}
	global, _ := m.Memory().Global()
	if got := global.Eval(Vars{Bytes: 1e6, P: 2}); !near(got, (231.5412-41.85576/2+1.262411e-3*1e6/2)*1e-6, 1e-12) {
		t.Errorf("eq. 7 at pe = 2, n = 1e6 = %g", got)
	}
	if b, ok := m.Memory().Bottleneck("global-triad"); !ok || b.Shalf.Value != 3.190438e5 || b.Fhalf.Dim != Intensity {
		t.Errorf("global-triad = %+v", b)
	}
	if v, _ := m.Compute().Vector("a=b*c", "f64"); !near(v.Nhalf.Value, 2600.0/9, 1e-12) || !v.Nhalf.Derived() {
		t.Errorf("dyad vector n_half = %+v, want 2600/9, marked [derived]", v.Nhalf)
	}
}

// TestParkbenchC2 checks the identities t0 = n½/r∞ and π0 = r∞/n½ on the
// rows whose n½ is printed, and π0·t0 = 1 on every row ([001] eqs. 3.7 and
// 3.10, Table C.2), within tolerances that allow for its 3 printed digits.
func TestParkbenchC2(t *testing.T) {
	tested := 0
	for _, name := range []string{"ipsc860", "delta", "paragon", "cs2", "suprenum"} {
		m := mustBuiltin(t, name)
		models := []*MessageModel{m.Messages("")}
		if f32 := m.Messages("f32"); f32 != models[0] {
			models = append(models, f32)
		}
		for _, mm := range models {
			for i, h := range mm.HockneyRanges() {
				if !h.T0.Given || !h.Pi0.Given || !h.Rinf.Given || !h.Nhalf.Given {
					t.Errorf("%s row %d: all four parameters must be kept as printed", name, i)
				}
				if !near(h.Pi0.Value*h.T0.Value, 1, 0.01) {
					t.Errorf("%s row %d: pi0*t0 = %g", name, i, h.Pi0.Value*h.T0.Value)
				}
				if h.Nhalf.Derived() {
					continue // a reconstruction built from the identity cannot test it
				}
				tol := 0.005
				if name == "ipsc860" && i == 0 {
					tol = 0.03 // the N < 100 row
				}
				if got := h.Nhalf.Value / h.Rinf.Value; !near(got, h.T0.Value, tol) {
					t.Errorf("%s row %d: n_half/r_inf = %g s, t0 = %g s", name, i, got, h.T0.Value)
				}
				if got := h.Rinf.Value / h.Nhalf.Value; !near(got, h.Pi0.Value, tol) {
					t.Errorf("%s row %d: r_inf/n_half = %g Hz, pi0 = %g Hz", name, i, got, h.Pi0.Value)
				}
				tested++
			}
		}
	}
	if tested != 4 {
		t.Errorf("tested the identities on %d rows, want the 4 rows with a printed n_half", tested)
	}
	// The range is chosen by message length.
	msg := mustBuiltin(t, "ipsc860").Messages("")
	if h, _ := msg.Hockney(99); h.Rinf.Value != 2.36e6 {
		t.Errorf("iPSC/860 at 99 B uses r_inf = %g", h.Rinf.Value)
	}
	if got := msg.Time(100, 1); !near(got, 200e-6+100/2.80e6, 1e-12) {
		t.Errorf("iPSC/860 at 100 B = %g, want the N > 100 law", got)
	}
	// SUPRENUM prices single-precision arrays by their own row.
	sup := mustBuiltin(t, "suprenum")
	if h, _ := sup.Messages("f32").Hockney(0); h.Rinf.Value != 0.67e6 {
		t.Errorf("SUPRENUM f32 r_inf = %g, want 0.67 MB/s", h.Rinf.Value)
	}
	if h, _ := sup.Messages("i32").Hockney(0); h.Rinf.Value != 4.82e6 {
		t.Errorf("SUPRENUM i32 r_inf = %g, want the dp row", h.Rinf.Value)
	}
}

func TestParkbenchC1(t *testing.T) {
	m := mustBuiltin(t, "i860xp")
	if b, ok := m.Memory().Bottleneck("poly1"); !ok || b.Rhat.Value != 13.50e6 || b.Fhalf.Value != 0.44 {
		t.Errorf("i860XP POLY1 = %+v", b)
	}
	if v, ok := m.Compute().Vector("a=b*c", "f64"); !ok || v.Rinf.Value != 7.64e6 || v.Nhalf.Value != 2.58 {
		t.Errorf("i860XP RINF1 = %+v", v)
	}
	if _, ok := mustBuiltin(t, "rs6000-530").Compute().Vector("a=b*c", "f64"); ok {
		t.Error("the RS/6000 RINF1 cell is blank but a vector entry exists")
	}
	if _, ok := mustBuiltin(t, "dec-alpha").Memory().Bottleneck("poly2"); ok {
		t.Error("the DEC alpha POLY2 cell is blank but an entry exists")
	}
	if r := m.Results(); len(r) != 3 || r[0].Value != 14.7e6 {
		t.Errorf("i860XP results = %+v", r)
	}
}

func TestClusters(t *testing.T) {
	bm := mustBuiltin(t, "bluemountain")
	c := bm.Cluster()
	sx, sy := c.Node()
	lx, ly := c.Links()
	if sx*sy != 128 || lx != 4 || ly != 4 {
		t.Errorf("Blue Mountain node %dx%d, links %d,%d", sx, sy, lx, ly)
	}
	if got := c.Inter().Time(38000, 1); !near(got, 150e-6+38000/30e6, 1e-12) {
		t.Errorf("HiPPI message of 38 kB = %g", got)
	}
	if nx, ny := c.NodeOf(9, 17); nx != 1 || ny != 1 {
		t.Errorf("NodeOf(9, 17) = %d, %d", nx, ny)
	}
	if p, _ := bm.Param("rflops"); !p.Derived() {
		t.Error("rflops is a stand-in and must be marked [derived]")
	}

	unit := mustBuiltin(t, "unit")
	if !unit.Compute().Free() || unit.Messages("f64").Time(1e6, 0) != 1 || unit.Cluster().Inter().Time(8, 3) != 1 {
		t.Error("the unit machine must price every message at 1 s and compute at nothing")
	}
	if nx, ny := unit.Cluster().NodeOf(100, 100); nx != 0 || ny != 0 {
		t.Error("by default one node holds every rank")
	}
	unit, err := override(unit, "sx=5", "sy=5", "lx=2", "ly=2")
	if err != nil {
		t.Fatal(err)
	}
	if sx, sy := unit.Cluster().Node(); sx != 5 || sy != 5 {
		t.Errorf("after -M sx=5 sy=5: node %dx%d", sx, sy)
	}
	if mp, _ := unit.MPICH(); mp.Alpha.Value != 1 || mp.Beta.Value != 0 {
		t.Errorf("unit MPICH = %+v", mp)
	}
}

// TestFullTable loads a user table that uses every part of the schema.
func TestFullTable(t *testing.T) {
	m, err := Load(filepath.Join("testdata", "full.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	us := 1e-6
	msg := m.Messages("f64")
	g, ok := msg.LogGP()
	if !ok || g.L.Value != 2*us || g.GapPerByte.Value != 0.5e-9 {
		t.Errorf("LogGP = %+v", g)
	}
	checks := []struct {
		what      string
		got, want float64
	}{
		{"LogGP 1001 B, level 1", msg.Time(1001, 1), 2*us + 2*0.5*us + 1000*0.5e-9},
		{"LogGP 1 B, level 4", msg.Time(1, 4), 3*us + 3*0.1*us},
		{"fat tree of arity 2, 0-5", float64(msg.Levels(0, 5)), 3},
		{"f32 table at 512 B", m.Messages("f32").Time(512, 1), 3.5 * us},
		{"f32 table beyond the last point", m.Messages("f32").Time(2<<20, 1), 500*us + (500*us-4*us)/float64(1<<20-1024)*float64(1<<20)},
		{"i32 first range", m.Messages("i32").Time(1000, 1), 3*us + 1000/1e9},
		{"i32 second range", m.Messages("i32").Time(2048, 1), 5*us + 2048/2e9},
		{"peak f32", get(m.Compute().Peak("f32")), 20e9},
		{"peak i64 (none)", get(m.Compute().Peak("i64")), 0},
		{"sqrt as 2 divides", get(m.Compute().OpCost(ThreeArrays, OpSqrt, "f64")), 8e-9},
		{"L2 line cost", m.Memory().Caches()[1].LineCost.Value, 5e-9},
		{"main bandwidth", get(m.Memory().MainBandwidth()), 20e9},
		{"disk write 1 MB", func() float64 { d, _ := m.Disk(); return d.Write.Time(1e6) }(), 4e-3},
		{"eager limit", get(msg.EagerLimit()), 16384},
	}
	for _, c := range checks {
		if !near(c.got, c.want, 1e-12) {
			t.Errorf("%s = %g, want %g", c.what, c.got, c.want)
		}
	}
	collectives := []struct {
		kind, op, elem string
		want           float64
	}{
		{"allreduce", "sum", "i32", 2 * us},
		{"allreduce", "max", "i64", 3 * us},               // exact beats op-only
		{"allreduce", "max", "f64", 4 * us},               // op-only beats kind-only
		{"allreduce", "sum", "f64", 2*us*5 + 1000*0.5e-9}, // kind-only, at P = 32, 1000 B
		{"allreduce", "xor", "i32", 2*us*5 + 1000*0.5e-9}, // ~ leaves the cell undefined
		{"barrier", "", "", 1 * us},
	}
	for _, c := range collectives {
		cost, ok := m.Collective(c.kind, c.op, c.elem)
		if !ok || !near(cost.Eval(Vars{Bytes: 1000, P: 32}), c.want, 1e-12) {
			t.Errorf("Collective(%s, %s, %s) = %v, %v; want %g", c.kind, c.op, c.elem, cost, ok, c.want)
		}
	}
	if _, ok := m.Collective("reduce", "sum", "f64"); ok {
		t.Error("reduce sum f64 has no entry; pricing must fall back to MPICH")
	}
	if mp, _ := m.MPICH(); mp.Gamma.Value != 0.1e-9 || !near(mp.Alpha.Value, 3*us, 1e-12) {
		t.Errorf("MPICH = %+v, want alpha = L + 2o", mp)
	}
	if m.Compose() != ComposeMax || msg.Startup() != PerPattern {
		t.Errorf("compose %v, startup %v", m.Compose(), msg.Startup())
	}
	if v, ok := m.Compute().Vector("a=b*c", "i64"); !ok || v.Rinf.Value != 8e9 {
		t.Errorf("a vector entry without elem applies to every type; got %+v, %v", v, ok)
	}
	if p, _ := m.Param("link_bw"); !near(p.Value, 2e9, 1e-12) || p.Dim != Bandwidth {
		t.Errorf("link_bw = %+v", p)
	}
	if c := m.Cluster(); c.Inter().Kind() != HockneyModel {
		t.Errorf("cluster inter model = %v", c.Inter().Kind())
	}
}

// get drops the ok of an accessor.
func get(n Number, _ bool) float64 { return n.Value }

// override applies command-line assignments ("name=value") to m.
func override(m *Machine, list ...string) (*Machine, error) {
	as, err := ParseAssignments(list)
	if err != nil {
		return nil, err
	}
	return m.With(as...)
}

func TestOverride(t *testing.T) {
	orig := mustBuiltin(t, "sp2")
	m, err := override(orig, "bw=100 MB/s")
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Messages("").Time(1e6, 1); !near(got, 54e-6+10e-3, 1e-12) {
		t.Errorf("after -M bw=100MB/s a 1 MB message takes %g", got)
	}
	// With returns a new machine: the receiver keeps its numbers.
	if got := orig.Messages("").Time(1e6, 1); !near(got, 54e-6+1e6/50e6, 1e-12) {
		t.Errorf("With changed its receiver: a 1 MB message takes %g", got)
	}
	if p, _ := orig.Param("bw"); p.Value != 50e6 || strings.HasPrefix(p.Source, "override") {
		t.Errorf("With changed its receiver's parameter: %+v", p)
	}
	if m, err = override(m, "bw=2*bw", "T_s=T_s/2"); err != nil {
		t.Fatal(err)
	}
	h, _ := m.Messages("").Hockney(0)
	if h.Rinf.Value != 200e6 || h.T0.Value != 27e-6 {
		t.Errorf("after twice the bandwidth again and half the start-up: %+v", h)
	}
	scatter, _ := m.Collective("scatter", "", "")
	if got := scatter.Eval(Vars{Bytes: 2e6, P: 8}); !near(got, 27e-6+7*2e6/200e6/2, 1e-12) {
		t.Errorf("the scatter cost does not follow the override: %g", got)
	}
	if mp, _ := m.MPICH(); !near(mp.Beta.Value, 5e-9, 1e-12) {
		t.Errorf("MPICH beta = %g after the override", mp.Beta.Value)
	}
	p, _ := m.Param("bw")
	if p.Source != "override -M bw=2*bw" || p.String() != "200MB/s" {
		t.Errorf("overridden parameter = %+v (%s)", p, p)
	}
	if m, err = override(m, "compose=max", "startup=per_pattern"); err != nil {
		t.Fatal(err)
	}
	if m.Compose() != ComposeMax || m.Messages("").Startup() != PerPattern {
		t.Error("the compose and startup switches did not apply")
	}
	// Built-ins are fresh copies.
	if h, _ := mustBuiltin(t, "sp2").Messages("").Hockney(0); h.Rinf.Value != 50e6 {
		t.Errorf("overriding one copy changed another: %g", h.Rinf.Value)
	}
}

func TestOverrideErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"bw=5us"}, `-M bw=5us: 'bw' needs a bandwidth, got a time (5us)`},
		{[]string{"foo=1"}, `-M foo=1: machine sp2 has no parameter 'foo' (parameters: T_s, bw, T_n, T_c, T_e; switches: compose, startup; or a path into the table, such as compute.core.entry)`},
		{[]string{"bw"}, `-M bw: want name=value, such as bw=100MB/s or bw=2*bw`},
		{[]string{"bw=-1MB/s"}, `-M bw=-1MB/s: 'bw' must be a finite value not below zero (-1MB/s)`},
		{[]string{"bw=bw/0"}, `-M bw=bw/0: 'bw' must be a finite value not below zero (bw/0)`},
		{[]string{"bw=2 * 5 MB/s"}, `-M bw=2 * 5 MB/s: write the unit directly after the number, without a blank: 5MB`},
		{[]string{"bw=T_e"}, `-M bw=T_e: unknown name T_e: not a variable available here (none) nor a parameter (T_s, bw)`},
		{[]string{"compose=min"}, `-M compose=min: compose must be sum, max or ecm`},
		{[]string{"startup=never"}, `-M startup=never: startup must be per_step or per_pattern`},
		{[]string{"T_s=1us", "bw=1s"}, `-M bw=1s: 'bw' needs a bandwidth, got a time (1s)`},
	}
	for _, tt := range tests {
		m := mustBuiltin(t, "sp2")
		got, err := override(m, tt.args...)
		if err == nil || err.Error() != tt.want || got != nil {
			t.Errorf("override(%q) = %v, %v\nwant %s", tt.args, got, err, tt.want)
		}
		if h, _ := m.Messages("").Hockney(0); h.T0.Value != 54e-6 || h.Rinf.Value != 50e6 {
			t.Errorf("a failed override(%q) changed the machine", tt.args)
		}
	}
	if _, err := override(mustBuiltin(t, "ipsc860"), "bw=1MB/s"); err == nil ||
		err.Error() != `-M bw=1MB/s: machine ipsc860 has no parameter 'bw' (it has none; switches: compose, startup; or a path into the table, such as compute.core.entry)` {
		t.Errorf("override on a machine without parameters: %v", err)
	}
}

// TestAbsentSections checks that asking a table for a section it does not
// give reports absence instead of panicking.
func TestAbsentSections(t *testing.T) {
	pingpong := mustBuiltin(t, "ipsc860") // messages only
	if _, ok := pingpong.Compute().Peak("f64"); ok {
		t.Error("Peak on a table without compute")
	}
	if _, ok := pingpong.Compute().OpCost(ThreeArrays, OpAdd, "f64"); ok {
		t.Error("OpCost on a table without compute")
	}
	if _, ok := pingpong.Compute().Vector("a=b*c", "f64"); ok || pingpong.Compute().Vectors() != nil || pingpong.Compute().Free() {
		t.Error("vector units on a table without compute")
	}
	if _, ok := pingpong.Compute().IMH(); ok {
		t.Error("IMH on a table without compute")
	}
	if pingpong.Memory().Caches() != nil || pingpong.Memory().Bottlenecks() != nil || pingpong.Compose() != ComposeSum {
		t.Error("memory entries on a table without memory")
	}
	if _, ok := pingpong.Memory().Cost(); ok {
		t.Error("memory cost on a table without memory")
	}
	if _, ok := pingpong.Collective("bcast", "", ""); ok {
		t.Error("a collective on a table without collectives")
	}
	if _, ok := pingpong.MPICH(); ok {
		t.Error("MPICH on a table without collectives")
	}
	if _, ok := pingpong.Disk(); ok || pingpong.Cluster() != nil {
		t.Error("disk or cluster on a table without them")
	}
	if _, ok := pingpong.Messages("").LogGP(); ok {
		t.Error("LogGP parameters of a Hockney model")
	}
	if mustBuiltin(t, "i860xp").Messages("f64") != nil {
		t.Error("messages on a single-processor table")
	}
}

// TestCacheAnySetCount checks that a table's cache of a whole number of sets
// that is not a power of two (a 20 MiB 16-way L3: 20,480 sets) keeps the
// ways the table gives, rather than being assumed fully associative.
func TestCacheAnySetCount(t *testing.T) {
	m, err := Parse("m.yaml", []byte(header+"memory:\n  source: test\n  caches:\n"+
		"    - {name: L2, size: 1280KiB, line: 64B, assoc: 20}\n"+
		"    - {name: L3, size: 20MiB, line: 64B, assoc: 16}\n"))
	if err != nil {
		t.Fatal(err)
	}
	h := m.CacheHierarchy()
	want := cache.Hierarchy{
		{Name: "L2", Size: 1280 << 10, Line: 64, Assoc: 20, Source: "m"},
		{Name: "L3", Size: 20 << 20, Line: 64, Assoc: 16, Source: "m"},
	}
	if diff := cmp.Diff(want, h); diff != "" {
		t.Errorf("CacheHierarchy mismatch (-want +got):\n%s", diff)
	}
	if len(h) == 2 && h[1].Sets() != 20480 {
		t.Errorf("L3 has %d sets, want 20480", h[1].Sets())
	}
}

// TestECMTable checks the keys of a calibrated host's table: host, loop,
// access, operations without a pattern, latencies, compose ecm and
// write_allocate.
func TestECMTable(t *testing.T) {
	m, err := Load(filepath.Join("testdata", "ecm.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ns := 1e-9
	c := m.Compute()
	loop, okLoop := c.Loop()
	access, okAccess := c.Access()
	checks := []struct {
		what      string
		got, want float64
	}{
		{"loop iteration", loop.Iteration.Value, 0.25 * ns},
		{"loop entry", loop.Entry.Value, 2 * ns},
		{"access load", access.Load.Value, 0.03 * ns},
		{"access store", access.Store.Value, 0.08 * ns},
		{"div f64, any pattern", get(c.OpCost(TwoArraysScalar, OpDiv, "f64")), 0.68 * ns},
		{"div f64 a&b&c (its own entry wins)", get(c.OpCost(ThreeArrays, OpDiv, "f64")), 0.7 * ns},
		{"div i32 a&b&c (the entry for every pattern)", get(c.OpCost(ThreeArrays, OpDiv, "i32")), 3 * ns},
		{"exp f64: the first rule applies", get(c.OpCost(ArrayScalarScalar, OpExp, "f64")), 0.5 * ns},
		{"exp f32: madd f32 missing, the second rule applies", get(c.OpCost(ArrayScalarScalar, OpExp, "f32")), 1.4 * ns},
		{"latency add f64", get(c.Latency(ThreeArrays, OpAdd, "f64")), 1 * ns},
		{"latency div f64", get(c.Latency(ArrayScalarScalar, OpDiv, "f64")), 3.25 * ns},
		{"latency exp f64 by the second ops rule (no madd latency)", get(c.Latency(ArrayScalarScalar, OpExp, "f64")), 13 * ns},
		{"latency window", get(c.Window()), 24 * ns},
		{"main bandwidth", get(m.Memory().MainBandwidth()), 32e9},
		{"L3 bandwidth", m.Memory().Caches()[2].Bandwidth.Value, 64e9},
	}
	for _, ck := range checks {
		if !near(ck.got, ck.want, 1e-12) {
			t.Errorf("%s = %g, want %g", ck.what, ck.got, ck.want)
		}
	}
	if !okLoop || !okAccess || !c.HasLatency() {
		t.Errorf("Loop ok %v, Access ok %v, HasLatency %v; want all true", okLoop, okAccess, c.HasLatency())
	}
	if _, ok := c.OpCost(ThreeArrays, OpAdd, "f64"); ok {
		t.Error("add has no ops entry and no fallback; OpCost must report absence")
	}
	if _, ok := c.Latency(ThreeArrays, OpSqrt, "f64"); ok {
		t.Error("sqrt has no latency entry and no fallback; Latency must report absence")
	}
	if n, _ := c.OpCost(ArrayScalarScalar, OpExp, "f32"); n.Given || !strings.Contains(n.Source, "div: test RINF1") {
		t.Errorf("a fallback's cost is computed and says from what; got %+v", n)
	}
	if w, _ := c.Window(); w.Source != "test POLY1 window k=2..64" {
		t.Errorf("window source %q: want its own", w.Source)
	}
	if w, ok := (&Compute{}).Window(); ok || w.Given {
		t.Error("a table without compute.latency.window must report its absence")
	}
	if wa, given := m.Memory().WriteAllocate(); !wa || !given {
		t.Errorf("WriteAllocate = %v, %v; want true, true", wa, given)
	}
	if m.Compose() != ComposeECM || m.Compose().String() != "ecm" {
		t.Errorf("compose = %v, want ecm", m.Compose())
	}
	wantHost := []HostField{{"cpu", "AMD EPYC (test)"}, {"cores", "2"}, {"caches", "L1d 48KiB, L2 1MiB, L3 32MiB"},
		{"go", "go1.26.0"}, {"goamd64", "v1"}, {"date", "2026-11-25"}}
	if diff := cmp.Diff(wantHost, m.Host()); diff != "" {
		t.Errorf("Host (-want +got):\n%s", diff)
	}
	var buf bytes.Buffer
	if err := m.Describe(&buf); err != nil {
		t.Fatal(err)
	}
	goldenfile.Check(t, filepath.Join("testdata", "describe-ecm.txt"), buf.String())
}

// TestECMNeeds checks that compose: ecm refuses a memory section it cannot
// price with, at the compose key or the -M switch.
func TestECMNeeds(t *testing.T) {
	table := header + `memory:
  source: s
  compose: ecm
  caches:
    - {name: L1, size: 48KiB}
    - {name: L2, size: 1MiB}
`
	_, err := Parse("m.yaml", []byte(table))
	want := "m.yaml:6:12: compose: ecm needs a bandwidth on cache L2 (the rate at which it delivers lines to L1), main_bandwidth (the rate at which memory delivers lines to the last level)"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v\nwant %s", err, want)
	}
	_, err = override(mustBuiltin(t, "ipsc860"), "compose=ecm")
	want = "-M compose=ecm: compose=ecm needs caches (the cache-line model counts the lines each level brings in), main_bandwidth (the rate at which memory delivers lines to the last level)"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	if m, err := override(mustBuiltin(t, "sp2"), "compose=ecm"); err != nil || m.Compose() != ComposeECM {
		t.Errorf("sp2 has one cache level and main_bandwidth, all that ecm needs; got %v", err)
	}
	m, err := Load(filepath.Join("testdata", "full.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := override(m, "compose=ecm"); err == nil || !strings.Contains(err.Error(), "a bandwidth on cache L2") {
		t.Errorf("full.yaml's L2 has a line cost, not a bandwidth: compose=ecm must be refused; got %v", err)
	}
}

// TestFittedToLine checks the line a range's fitted_to draws to the next
// range's law across the lengths no calibration measured: a LOCAL law of
// this host (2026-11-27 20:24) was 625 µs at 16 MiB − 1 B by its 1..12 MiB
// range and 804 µs at 16 MiB by the next, a jump of 29 %.
func TestFittedToLine(t *testing.T) {
	const mib = 1 << 20
	table := func(fitted string) string {
		return header + `messages:
  source: test
  model: hockney
  ranges:
    - {below: 16MiB,` + fitted + ` t0: 1ns, rinf: 26.84GB/s}
    - {t0: 1ns, rinf: 20.87GB/s}
`
	}
	lower := func(n float64) float64 { return 1e-9 + n/26.84e9 }
	upper := func(n float64) float64 { return 1e-9 + n/20.87e9 }
	at12, at16 := lower(12*mib), upper(16*mib)
	tests := []struct {
		name   string
		fitted string
		bytes  float64
		want   float64
	}{
		{"inside the range's points", " fitted_to: 12MiB,", 8 * mib, lower(8 * mib)},
		{"at its last point", " fitted_to: 12MiB,", 12 * mib, at12},
		{"a quarter of the way across", " fitted_to: 12MiB,", 13 * mib, at12 + (at16-at12)/4},
		{"just short of the next range", " fitted_to: 12MiB,", 16*mib - 1, at12 + (at16-at12)*(4*mib-1)/(4*mib)},
		{"at the next range's start", " fitted_to: 12MiB,", 16 * mib, at16},
		{"beyond", " fitted_to: 12MiB,", 32 * mib, upper(32 * mib)},
		{"without fitted_to the range's own law", "", 16*mib - 1, lower(16*mib - 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Parse("m.yaml", []byte(table(tt.fitted)))
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Messages("").Time(tt.bytes, 1); !near(got, tt.want, 1e-12) {
				t.Errorf("Time(%g B) = %.6g s, want %.6g s", tt.bytes, got, tt.want)
			}
		})
	}
}
