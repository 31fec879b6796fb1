package main

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// list100 is "1,2,…,100".
func list100() string {
	var vs []string
	for i := 1; i <= 100; i++ {
		vs = append(vs, strconv.Itoa(i))
	}
	return strings.Join(vs, ",")
}

// TestSweepMaxPoints checks that a sweep larger than --max-points is refused
// before anything is predicted, naming the flag, even when the number of
// points overflows 64 bits.
func TestSweepMaxPoints(t *testing.T) {
	six, twelve := []string{"sweep", "gauss"}, []string{"sweep", "gauss"}
	for i := range 12 {
		d := []string{"-D", "x" + strconv.Itoa(i) + "=" + list100()}
		if i < 6 {
			six = append(six, d...)
		}
		twelve = append(twelve, d...)
	}
	tests := []struct {
		name string
		args []string
		code int
		want string // the whole of stderr
	}{
		{"six lists of 100", six, 1, "perfc: the -D lists make 100 x 100 x 100 x 100 x 100 x 100 = 1000000000000 points, more than --max-points 10000; shorten the lists or raise the limit with --max-points N\n"},
		{"overflow", twelve, 1, "perfc: the -D lists make 100 x 100 x 100 x 100 x 100 x 100 x 100 x 100 x 100 x 100 x 100 x 100 points, more than 2^62, more than --max-points 10000; shorten the lists or raise the limit with --max-points N\n"},
		{"one over the limit", []string{"sweep", "gauss", "-D", "N=64,128", "-D", "P=4,8", "--max-points", "3"}, 1, "perfc: the -D lists make 2 x 2 = 4 points, more than --max-points 3; shorten the lists or raise the limit with --max-points N\n"},
		{"at the limit", []string{"sweep", "gauss", "-D", "N=64,128", "-D", "P=4,8", "--max-points", "4"}, 0, ""},
		{"a parameter twice", []string{"sweep", "gauss", "-D", "N=64", "-D", "N=128"}, 1, "perfc: -D N=128: N has a list already; give each parameter one list, e.g. -D N=64,128\n"},
		{"empty value", []string{"sweep", "gauss", "-D", "N=64,,128"}, 1, "perfc: -D N=64,,128: an empty value in the list; write -D NAME=V1,V2,... e.g. -D N=64,128,256\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, "", tt.args...)
			if code != tt.code || errOut != tt.want {
				t.Errorf("status %d, stderr %q; want %d, %q", code, errOut, tt.code, tt.want)
			}
		})
	}
}

// TestSweepSpaceIsLazy checks that the points are walked one at a time in
// order, the first list outermost: a product of 10^12 points under a large
// limit yields its first points at once, without building the product.
func TestSweepSpaceIsLazy(t *testing.T) {
	var defs []string
	for i := range 6 {
		defs = append(defs, "x"+strconv.Itoa(i)+"="+list100())
	}
	s, err := parseSweep(defs, 1<<50)
	if err != nil {
		t.Fatal(err)
	}
	if s.points != 1e12 {
		t.Errorf("points = %d, want 10^12", s.points)
	}
	stop := errors.New("enough")
	var got []string
	err = s.each(func(values []string) error {
		got = append(got, strings.Join(values, " "))
		if len(got) == 3 {
			return stop
		}
		return nil
	})
	want := []string{"1 1 1 1 1 1", "1 1 1 1 1 2", "1 1 1 1 1 3"}
	if err != stop || !cmp.Equal(got, want) {
		t.Errorf("each: %v, %q; want the first three points %q", err, got, want)
	}
	s, _ = parseSweep([]string{"a=1,2", "b=x,y,z"}, 100)
	got = nil
	s.each(func(values []string) error { got = append(got, strings.Join(values, "")); return nil })
	if want := []string{"1x", "1y", "1z", "2x", "2y", "2z"}; !cmp.Equal(got, want) {
		t.Errorf("each over 2 x 3: %q, want %q", got, want)
	}
}

// TestSweepKeepsGoing checks that a point that fails gets its error in its
// row, in every format, that the points after it are still predicted, and
// that the exit status is 1.
func TestSweepKeepsGoing(t *testing.T) {
	args := []string{"sweep", "gauss", "-D", "N=64,100,128"}
	notInteger := "examples/gauss.spmd (built in):35:12: N / P = 25/8 is not an integer (N = 100, P = 32); write floor(N / P) or ceil(N / P)"

	code, out, errOut := runCLI(t, "", args...)
	lines := strings.Split(out, "\n")
	if code != 1 || len(lines) != 6 || !strings.HasPrefix(lines[3], "100  error: "+notInteger) ||
		!strings.HasPrefix(lines[4], "128     166.7 ms") || !strings.HasSuffix(errOut, "perfc: 1 of 3 points failed\n") ||
		!strings.Contains(errOut, "point N=100:\n"+notInteger+"\n      let BS = N / P\n") {
		t.Errorf("table: status %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	code, out, _ = runCLI(t, "", append(args, "-o", "csv")...)
	if want := "100,,,,,,,,\"" + notInteger + "\"\n128,0.1667"; code != 1 || !strings.Contains(out, want) ||
		!strings.HasPrefix(out, "N,total_s,compute_s,memory_s,messages_s,collectives_s,rb_mflops,bottleneck,error\n") {
		t.Errorf("csv: status %d, stdout:\n%s", code, out)
	}

	code, out, _ = runCLI(t, "", append(args, "-o", "json")...)
	var doc struct {
		Schema  string           `json:"schema"`
		Machine string           `json:"machine"`
		Points  []map[string]any `json:"points"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 1 {
		t.Fatalf("json: status %d, %v:\n%s", code, err, out)
	}
	if doc.Schema != SweepSchema || doc.Machine != "cm5-32" || len(doc.Points) != 3 {
		t.Errorf("json: %+v", doc)
	}
	if diff := cmp.Diff(map[string]any{"params": map[string]any{"N": "100"}, "error": notInteger}, doc.Points[1]); diff != "" {
		t.Errorf("json: the failed point (-want +got):\n%s", diff)
	}
	if doc.Points[2]["total"].(float64) <= 0 {
		t.Errorf("json: the point after the failure has no prediction: %v", doc.Points[2])
	}
}
