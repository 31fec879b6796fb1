package comms

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"perfc/codegen"
)

// mode chooses the size of TestRun: tiny (the default, seconds: CI), quick
// or full (perfc calibrate's, to look at the figures: -comms.mode=full -v).
var mode = flag.String("comms.mode", "tiny", "TestRun's benchmarks: tiny, quick or full")

// backend chooses what TestRun measures through: goroutine (the default)
// or mpi (perfc calibrate --mpi's, where MPI is installed; the output
// directory gets a -mpi suffix).
var backend = flag.String("comms.backend", "goroutine", "TestRun's transport: goroutine or mpi")

// TestRun builds and runs the communication benchmarks end to end, fits
// them and loads the sections as a machine table. It checks that the
// table is complete and loads, not the figures, which belong to the
// machine.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two programs")
	}
	o := Options{Tiny: *mode == "tiny", Quick: *mode == "quick", CacheDir: t.TempDir()}
	suffix := ""
	switch *backend {
	case "goroutine":
	case "mpi":
		needMPI(t)
		o.Launch, suffix = codegen.Launch{Backend: codegen.BackendMPI}, "-mpi"
	default:
		t.Fatalf("-comms.backend %q: give goroutine or mpi", *backend)
	}
	var calls int
	var last, total float64
	o.Progress = func(name string, done, tot float64) {
		calls++
		if done < last || done > tot {
			t.Errorf("progress %q: %g of %g after %g", name, done, tot, last)
		}
		last, total = done, tot
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	r, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s mode: %v", *mode, time.Since(start).Round(time.Millisecond))
	if *mode != "tiny" {
		out := filepath.Join(os.TempDir(), "comms-"+*mode+suffix)
		os.MkdirAll(out, 0o755)
		data, _ := json.MarshalIndent(r.Points(), "", " ")
		os.WriteFile(filepath.Join(out, "points.json"), data, 0o644)
	}
	if calls < 4 || last < 0.99*total {
		t.Errorf("progress: %d calls, ended at %g of %g", calls, last, total)
	}
	m, body := tableOf(t, r)
	if testing.Verbose() {
		t.Log(body)
		for _, p := range r.Points() {
			t.Logf("%-10s P=%d %10.0f B  median %10.4f us  min %10.4f us  spread %5.1f%%", p.Bench, p.Ranks, p.Bytes, p.Time*1e6, p.Min*1e6, 100*p.Spread)
		}
	}
	if m.Messages("") == nil {
		t.Fatalf("no message law:\n%s", body)
	}
	for _, kind := range CollectiveKinds() {
		if _, ok := m.Collective(kind, "", ""); !ok {
			t.Errorf("no %s entry:\n%s", kind, body)
		}
	}
	for _, want := range []string{"COMMS1", "COMMS2", "COMMS3", "SYNCH1"} {
		if !strings.Contains(body, want) {
			t.Errorf("the table does not mention %s", want)
		}
	}
	dir := t.TempDir()
	if err := r.Plot(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"comms-pingpong.png", "comms-pingpong.svg", "comms-exchange.svg", "comms-sendrecv.png", "comms-sendrecv.svg", "comms-collectives.png", "comms-collectives.svg"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("plot %s: %v", f, err)
		}
	}
	if *mode != "tiny" {
		out := filepath.Join(os.TempDir(), "comms-"+*mode+suffix)
		os.WriteFile(filepath.Join(out, "host-comms.yaml"), []byte(body), 0o644)
		r.Plot(out)
		t.Logf("wrote %s", out)
	}
}

// testWriter writes to the test's log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// pointsFile names measured points (points.json of a TestRun in quick or
// full mode) for TestAnalysePoints, to look at the fits again without
// measuring.
var pointsFile = flag.String("comms.points", "", "TestAnalysePoints: fit these points.json and print the sections")

// pointsCores refits points as an MPI calibration on one host of that many
// cores (Transport.Cores: the collective forms for oversubscribed ranks).
var pointsCores = flag.Int("comms.cores", 0, "TestAnalysePoints: refit as MPI points measured on one host of this many cores")

func TestAnalysePoints(t *testing.T) {
	if *pointsFile == "" {
		t.Skip("give -comms.points FILE")
	}
	data, err := os.ReadFile(*pointsFile)
	if err != nil {
		t.Fatal(err)
	}
	var pts []Point
	if err := json.Unmarshal(data, &pts); err != nil {
		t.Fatal(err)
	}
	tr := Transport{Backend: "goroutine"}
	if *pointsCores > 0 {
		tr = Transport{Backend: "mpi", Cores: *pointsCores}
	}
	r, err := analyse(pts, 9, "2026-11-25", tr)
	if err != nil {
		t.Fatal(err)
	}
	_, body := tableOf(t, r)
	t.Log(body)
	r.Summary(testWriter{t})
	if err := r.Plot(filepath.Dir(*pointsFile)); err != nil {
		t.Fatal(err)
	}
}
