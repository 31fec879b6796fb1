package comms

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v4"

	"perfc/codegen"
	"perfc/machines"
)

func TestParseMpirunVersion(t *testing.T) {
	for _, c := range []struct{ out, want string }{
		{"mpirun (Open MPI) 4.1.4\n\nReport bugs to http://www.open-mpi.org/community/help/\n", "Open MPI 4.1.4"},
		{"mpirun (Open MPI) 5.0.3", "Open MPI 5.0.3"},
		{"HYDRA build details:\n    Version:                                 4.0.2\n    Release Date:   Thu Apr  7 2022\n", "MPICH 4.0.2"},
		{"HYDRA build details:\n", "MPICH"},
		{"srun: unrecognised option\n", ""},
		{"", ""},
	} {
		if got := parseMpirunVersion(c.out); got != c.want {
			t.Errorf("parseMpirunVersion(%q) = %q, want %q", c.out, got, c.want)
		}
	}
}

func TestLauncherOf(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"mpirun", "--allow-run-as-root", "-n", "2", "/c/kernel", "-json", "-reps", "1"}, "mpirun --allow-run-as-root -n 2"},
		{[]string{"srun", "--mpi=pmix", "-n", "4", "/c/kernel"}, "srun --mpi=pmix -n 4"},
		{[]string{"/c/kernel"}, ""},
	} {
		if got := launcherOf(c.argv, "/c/kernel"); got != c.want {
			t.Errorf("launcherOf(%q) = %q, want %q", c.argv, got, c.want)
		}
	}
}

func TestRankCounts(t *testing.T) {
	for _, c := range []struct {
		max  int
		want []int
	}{
		{2, []int{2}}, {3, []int{2, 3}}, {4, []int{2, 4}}, {6, []int{2, 4, 6}}, {8, []int{2, 4, 8}}, {64, []int{2, 4, 8, 16, 32, 64}},
	} {
		if diff := cmp.Diff(c.want, rankCounts(c.max)); diff != "" {
			t.Errorf("rankCounts(%d) (-want +got):\n%s", c.max, diff)
		}
	}
}

// mpiTransport is what Run records of an MPI calibration on this host.
func mpiTransport() Transport {
	return Transport{Backend: "mpi", Library: "Open MPI 4.1.4",
		Launchers: map[int]string{2: "mpirun --allow-run-as-root -n 2", 4: "mpirun --allow-run-as-root --oversubscribe -n 4"},
		Notes:     []string{"running as root: passed --allow-run-as-root"}}
}

func TestTransportDescribe(t *testing.T) {
	for _, c := range []struct {
		tr            Transport
		command, desc string
	}{
		{Transport{Backend: "goroutine"}, "perfc calibrate", "between the goroutine ranks of one process"},
		{mpiTransport(), "perfc calibrate --mpi", "through MPI (Open MPI 4.1.4), launched by mpirun --allow-run-as-root --oversubscribe -n 4"},
		{Transport{Backend: "mpi", Library: "MPICH 4.0.2", Launchers: map[int]string{2: "srun -n 2"}}, "perfc calibrate --mpi", "through MPI (MPICH 4.0.2), launched by srun -n 2"},
		{Transport{Backend: "mpi"}, "perfc calibrate --mpi", "through MPI (library not told)"},
	} {
		if got := c.tr.Command(); got != c.command {
			t.Errorf("%+v: Command %q, want %q", c.tr, got, c.command)
		}
		if got := c.tr.Describe(0); got != c.desc {
			t.Errorf("%+v: Describe %q, want %q", c.tr, got, c.desc)
		}
	}
}

// TestSectionsSayMPI: every source of an MPI calibration's sections says
// perfc calibrate --mpi, and the sections' own sources name the library
// and the launcher; the table still loads and prices as the goroutine one.
func TestSectionsSayMPI(t *testing.T) {
	r, err := Analyse(synthetic(knownFormulas()), 9, "2026-11-25")
	if err != nil {
		t.Fatal(err)
	}
	r.SetTransport(mpiTransport())
	m, body := tableOf(t, r)
	for _, src := range []string{m.Messages("f64").Source(), m.Exchange().Source()} {
		if !strings.HasPrefix(src, "perfc calibrate --mpi COMMS") {
			t.Errorf("source %q does not start with perfc calibrate --mpi", src)
		}
	}
	if src := m.Messages("f64").Source(); !strings.Contains(src, "through MPI (Open MPI 4.1.4), launched by mpirun --allow-run-as-root -n 2 (") {
		t.Errorf("messages source %q does not say MPI, the library and the launcher", src)
	}
	if src := r.Collectives().(collectivesYAML).Source; !strings.Contains(src, "collectives and SYNCH1 through MPI (Open MPI 4.1.4), launched by mpirun --allow-run-as-root --oversubscribe -n 4") {
		t.Errorf("the collectives' source %q does not say MPI", src)
	}
	for _, line := range strings.Split(body, "\n") {
		if i := strings.Index(line, "perfc calibrate"); i >= 0 && !strings.HasPrefix(line[i:], "perfc calibrate --mpi") && !strings.Contains(line, "test") {
			t.Errorf("a source does not say --mpi: %s", strings.TrimSpace(line))
		}
	}
}

// TestPlanMPI: an MPI calibration measures the same benchmarks at the
// same lengths with fewer repetitions (MPI's messages cost more on the
// host), so that --quick stays within minutes; -n sets the rank counts.
func TestPlanMPI(t *testing.T) {
	for _, mode := range []struct {
		name        string
		quick, tiny bool
		maxWorkSecs float64 // estimated seconds of benchmarks, builds left out
	}{
		{"quick", true, false, 30},
		{"full", false, false, 175}, // collectives to 32 MiB (session 14): 123 s; and after a barrier (session 21): 153 s; below the copy's step at 1 MiB (session 35): 171 s
	} {
		s := modeSizes(mode.quick, mode.tiny)
		gor := plan(s)
		s.mpi = true
		mpi := plan(s)
		if len(gor) != len(mpi) {
			t.Fatalf("%s: %d kernels through MPI, %d with goroutines", mode.name, len(mpi), len(gor))
		}
		var secs float64
		for i := range mpi {
			if len(mpi[i].benches) != len(gor[i].benches) {
				t.Fatalf("%s P=%d: %d benchmarks through MPI, %d with goroutines", mode.name, mpi[i].ranks, len(mpi[i].benches), len(gor[i].benches))
			}
			for j, b := range mpi[i].benches {
				g := gor[i].benches[j]
				if b.name != g.name || b.bytes != g.bytes || b.reps > g.reps {
					t.Errorf("%s P=%d: MPI %s %d B ×%d against goroutines %s %d B ×%d", mode.name, b.ranks, b.name, b.bytes, b.reps, g.name, g.bytes, g.reps)
				}
			}
			secs += mpi[i].seconds(s.samples)
		}
		t.Logf("%s through MPI: %.1f s of benchmarks estimated", mode.name, secs)
		if secs > mode.maxWorkSecs {
			t.Errorf("%s through MPI: %.0f s of benchmarks estimated, want at most %.0f", mode.name, secs, mode.maxWorkSecs)
		}
	}
	s := modeSizes(true, false)
	s.ranks = rankCounts(8)
	var got []int
	for _, kp := range plan(s) {
		got = append(got, kp.ranks)
	}
	if diff := cmp.Diff([]int{2, 4, 8, 2}, got); diff != "" { // the last is REQ's
		t.Errorf("kernels of -n 8 (-want +got):\n%s", diff)
	}
}

// TestPreflight: an MPI calibration that cannot run says so before any
// benchmark: a launcher not on PATH (or, without MPI, what to install).
func TestPreflight(t *testing.T) {
	if err := Preflight(Options{Quick: true}); err != nil {
		t.Errorf("goroutine preflight: %v", err)
	}
	err := Preflight(Options{Quick: true, Launch: codegen.Launch{Backend: codegen.BackendMPI, Mpirun: []string{"perfc-no-such-launcher"}}})
	if err == nil || !strings.HasPrefix(err.Error(), "calibrate --mpi: ") ||
		!strings.Contains(err.Error(), "perfc-no-such-launcher") && !strings.Contains(err.Error(), "Open MPI") {
		t.Errorf("preflight with a missing launcher: %v; want an error naming it (or, without MPI, what to install)", err)
	}
}

// TestFitFormulaOversubscribed: MPI's collectives on one host jump when
// the ranks exceed its cores (each step waits for a scheduler turn); with
// the host's cores the fit recovers a formula in max(0, P − cores), which
// the table writes and prices; without them it cannot follow the jump.
func TestFitFormulaOversubscribed(t *testing.T) {
	want := coef(map[term]float64{tConst: 0.5e-6, tBytes: 0.3e-9, tBytesLinear: 0.2e-9, tOver: 12e-6, tBytesOver: 1e-9})
	want.Cores = 2
	var pts []Point
	for _, p := range []int{2, 4, 8} {
		for _, n := range []float64{8, 512, 4 << 10, 32 << 10, 128 << 10} {
			pts = append(pts, Point{Bench: "allreduce", Bytes: n, Ranks: p, Time: want.Time(n, p)})
		}
	}
	got, err := fitFormula(pts, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	// On P ≥ 2, max(0, P − 2) is P − 1 less one: the fit may take either
	// of the equal formulas; what it must do is price every P as want.
	for _, p := range []int{2, 3, 4, 8, 16} {
		for _, n := range []float64{8, 64 << 10, 1 << 20} {
			if w, g := want.Time(n, p), got.Time(n, p); math.Abs(g-w) > 0.01*w {
				t.Errorf("%g B on %d ranks: %g s, want %g", n, p, g, w)
			}
		}
	}
	if got.RMS() > 1e-6 || got.Cores != 2 || got.Coef[tOver] == 0 {
		t.Errorf("rms %g, cores %g, over %g on exact points; want 0, 2 and an over term", got.RMS(), got.Cores, got.Coef[tOver])
	}
	if without, err := FitFormula(pts, 0); err != nil || without.RMS() < 0.2 || without.Coef[tOver] != 0 {
		t.Errorf("without the cores: rms %v, err %v; want no over term and a poor fit", without.RMS(), err)
	}
	if notOver, err := fitFormula(pts[:5], 0, 2); err != nil || notOver.Cores != 0 {
		t.Errorf("points on 2 ranks of 2 cores: cores %v, err %v; want no over terms", notOver.Cores, err)
	}
	r := &Result{colls: map[string]collFit{"allreduce": {formula: got, fits: true, points: pts}}, transport: Transport{Backend: "mpi", Cores: 2}}
	if text := formulaText(got); !strings.Contains(text, " * max(0, P - 2)") || !strings.Contains(text, " * bytes * max(0, P - 2)") {
		t.Errorf("formula %q does not write the over terms", text)
	}
	body, err := yaml.Marshal(struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
		Source      string `yaml:"source"`
		Collectives any    `yaml:"collectives"`
	}{"host-mpi", "test table", "test", r.Collectives()})
	if err != nil {
		t.Fatal(err)
	}
	m, err := machines.Parse("over.yaml", body)
	if err != nil {
		t.Fatalf("%v\n%s", err, body)
	}
	c, ok := m.Collective("allreduce", "sum", "f64")
	if !ok {
		t.Fatalf("no allreduce in\n%s", body)
	}
	for _, p := range []int{2, 3, 4, 8} {
		for _, n := range []float64{8, 64 << 10} {
			if w, g := want.Time(n, p), c.Eval(machines.Vars{Bytes: n, P: float64(p)}); math.Abs(g-w) > 0.01*w {
				t.Errorf("the table's allreduce at %g B, P=%d: %g s, want %g", n, p, g, w)
			}
		}
	}
}

// TestCoreSwitch: core_switch is fitted from COMMS3's steps at P = C and
// 2C only for an MPI calibration on one host, and only when positive.
func TestCoreSwitch(t *testing.T) {
	pts := []Point{{Bench: Comms1, Bytes: 8, Ranks: 2, Time: 1e-6}, {Bench: Comms1, Bytes: 64, Ranks: 2, Time: 1.1e-6}, {Bench: Comms1, Bytes: 512, Ranks: 2, Time: 1.5e-6}}
	with := func(t2, t4 float64) []Point {
		return append(slices.Clone(pts), Point{Bench: Comms3, Bytes: 8, Ranks: 2, Time: t2}, Point{Bench: Comms3, Bytes: 8, Ranks: 4, Time: 3 * t4})
	}
	for _, c := range []struct {
		name string
		pts  []Point
		tr   Transport
		want float64 // 0: none
	}{
		{"MPI on 2 cores", with(1e-6, 10e-6), Transport{Backend: "mpi", Cores: 2}, 4e-6},
		{"MPI over nodes", with(1e-6, 10e-6), Transport{Backend: "mpi"}, 0},
		{"goroutines", with(1e-6, 10e-6), Transport{Backend: "goroutine", Cores: 2}, 0},
		{"no gain", with(1e-6, 1.5e-6), Transport{Backend: "mpi", Cores: 2}, 0},
		{"no 2C ranks", with(1e-6, 10e-6), Transport{Backend: "mpi", Cores: 4}, 0},
	} {
		r, err := analyse(c.pts, 3, "2026-11-25", c.tr)
		if err != nil {
			t.Fatal(err)
		}
		cs, src, ok := r.CoreSwitch()
		if ok != (c.want > 0) || math.Abs(cs-c.want) > 1e-12 {
			t.Errorf("%s: core_switch %g %v, want %g", c.name, cs, ok, c.want)
		}
		if ok && !strings.Contains(src, "COMMS3") {
			t.Errorf("%s: source %q does not name COMMS3", c.name, src)
		}
	}
}
