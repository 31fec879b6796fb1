package spmd

import (
	"errors"
	"math"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"perfc/lang"
)

func TestIntegerArithmetic(t *testing.T) {
	tests := []struct {
		name      string
		got, want int
	}{
		{"emod(-1, 4)", emod(-1, 4), 3},
		{"emod(-5, -3)", emod(-5, -3), 1},
		{"emod(7, 3)", emod(7, 3), 1},
		{"emod(int32(-7), 3)", int(emod(int32(-7), 3)), 2},
		{"floorDiv(7, 2)", floorDiv(7, 2), 3},
		{"floorDiv(-7, 2)", floorDiv(-7, 2), -4},
		{"floorDiv(7, -2)", floorDiv(7, -2), -4},
		{"floorDiv(-8, 2)", floorDiv(-8, 2), -4},
		{"ceilDiv(7, 2)", ceilDiv(7, 2), 4},
		{"ceilDiv(-7, 2)", ceilDiv(-7, 2), -3},
		{"ceilDiv(8, 2)", ceilDiv(8, 2), 4},
		{"absInt(-3)", absInt(-3), 3},
		{"floorLog2(1)", floorLog2(1), 0},
		{"floorLog2(1023)", floorLog2(1023), 9},
		{"ceilLog2(1024)", ceilLog2(1024), 10},
		{"ceilLog2(1025)", ceilLog2(1025), 11},
		{"ratFloor((1/3 + 1) * 2)", ratFloor(ratMul(ratAdd(ratQuo(ratInt(1), ratInt(3)), ratInt(1)), ratInt(2))), 2},
		{"ratCeil(-7/2)", ratCeil(ratQuo(ratInt(-7), ratInt(2))), -3},
		{"ratFloor(ratRem(-7/2, 2))", ratFloor(ratRem(ratQuo(ratInt(-7), ratInt(2)), ratInt(2))), 0},
		{"ratFloor(max(1/2, 3/4, 2/3) * 4)", ratFloor(ratMul(ratMax(ratio{1, 2}, ratio{3, 4}, ratio{2, 3}), ratInt(4))), 3},
		{"ratFloorLog2(5/8)", ratFloorLog2(ratio{5, 8}), -1},
		{"ratFloorLog2(1/2)", ratFloorLog2(ratio{1, 2}), -1},
		{"ratCeilLog2(5/8)", ratCeilLog2(ratio{5, 8}), 0},
		{"ratCeilLog2(12)", ratCeilLog2(ratInt(12)), 4},
		{"sel", sel(false, 1, 2), 2},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %d, want %d", tt.name, tt.got, tt.want)
		}
	}
}

func TestDomainErrors(t *testing.T) {
	for name, f := range map[string]func(){
		"floorLog2(0)":    func() { floorLog2(0) },
		"ratio / 0":       func() { ratQuo(ratInt(1), ratInt(0)) },
		"ratFloorLog2(0)": func() { ratFloorLog2(ratInt(0)) },
	} {
		func() {
			defer func() {
				if _, ok := recover().(domainError); !ok {
					t.Errorf("%s did not stop with a domain error", name)
				}
			}()
			f()
		}()
	}
}

func TestFillIsDeterministicAndFinite(t *testing.T) {
	a, b := make([]float64, 4096), make([]float64, 4096)
	fillElems(unsafe.Pointer(&a[0]), elF64, len(a), seedOf(3, 1), false)
	fillElems(unsafe.Pointer(&b[0]), elF64, len(b), seedOf(3, 1), false)
	if !slicesEqual(a, b) {
		t.Error("the same seed gave different data")
	}
	fillElems(unsafe.Pointer(&b[0]), elF64, len(b), seedOf(4, 1), false)
	if slicesEqual(a, b) {
		t.Error("another rank got the same data")
	}
	logSum := 0.0
	for _, x := range a {
		if !(x > 0.77 && x < 1.29) {
			t.Fatalf("value %v outside [0.78, 1.28]", x)
		}
		logSum += math.Log(x)
	}
	if mean := logSum / float64(len(a)); math.Abs(mean) > 0.01 {
		t.Errorf("mean log %v: long products would drift", mean)
	}
	ints := make([]int32, 1000)
	fillElems(unsafe.Pointer(&ints[0]), elI32, len(ints), seedOf(0, 2), false)
	zeros := 0
	for _, x := range ints {
		if x != 0 && x != 1 {
			t.Fatalf("flag value %d", x)
		}
		if x == 0 {
			zeros++
		}
	}
	if zeros < 400 || zeros > 600 {
		t.Errorf("%d of 1000 flags are 0, want about half", zeros)
	}
	fillElems(unsafe.Pointer(&ints[0]), elI32, len(ints), seedOf(0, 2), true)
	for _, x := range ints {
		if x != 1 && x != 2 {
			t.Fatalf("divisor value %d", x)
		}
	}
}

// slicesEqual compares float slices bit for bit.
func slicesEqual(a, b []float64) bool {
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

func TestView(t *testing.T) {
	var arr [4][5]float64
	arr[2][3] = 7
	v := view(unsafe.Pointer(&arr), 160, (2*5+3)*8, 16)
	if got := asSlice[float64](v)[0]; got != 7 || len(v) != 16 {
		t.Errorf("view gave %v (%d bytes)", got, len(v))
	}
	if view(unsafe.Pointer(&arr), 160, 160, 0) != nil {
		t.Error("an empty view at the end is not empty")
	}
	defer func() {
		if e, ok := recover().(payloadError); !ok || !strings.Contains(e.Error(), "a payload of 16 B at byte 152 lies outside its array of 160 B") {
			t.Errorf("view outside the array: %v", recover())
		}
	}()
	view(unsafe.Pointer(&arr), 160, 152, 16)
}

func TestCheckMemory(t *testing.T) {
	avail := func(n int64, err error) func() (int64, error) { return func() (int64, error) { return n, err } }
	tests := []struct {
		need, limit int64
		avail       func() (int64, error)
		want        string
	}{
		{need: 100, limit: 200, want: ""},
		{need: 300, limit: 200, want: "the kernel needs 300 B of memory for its arrays and message buffers, more than the limit of 200 B"},
		{need: 900 << 20, avail: avail(1<<30, nil), want: "more than 80% of the 1.0 GiB this machine has available"},
		{need: 800 << 20, avail: avail(1<<30, nil), want: ""},
		{need: 1 << 40, avail: avail(0, errors.New("no /proc")), want: ""},
	}
	for _, tt := range tests {
		err := CheckMemory(tt.need, tt.limit, tt.avail)
		if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("CheckMemory(%d, %d) = %v, want %q", tt.need, tt.limit, err, tt.want)
		}
	}
	if n, err := MemAvailable(); err == nil && n <= 0 {
		t.Errorf("MemAvailable = %d", n)
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 3 << 20: "3.0 MiB", 5 << 40: "5.0 TiB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestExecutedCounts prices counters with a site table as the analyzer
// prices its leaves.
func TestExecutedCounts(t *testing.T) {
	k := &kernelDesc{name: "t", ranks: 2, regions: []string{"(outside regions)", "work"}, sites: []site{
		{kind: siteIter, region: 1, stmt: "t:2:3"},
		{kind: siteExec, region: 1, stmt: "t:3:5", pattern: "a&b&s", times: 2,
			ops:   []opTally{{op: "mul", typ: "f64", n: 1}, {op: "add", typ: "f64", n: 1}, {op: "add", typ: "int", n: 1}, {op: "conv", typ: "i32", n: 1}},
			madds: []opTally{{op: "add", typ: "f64", n: 1}},
			refs:  []siteRef{{array: "a", pos: "t:3:5", text: "a[i]", store: true, size: 8}, {array: "b", pos: "t:3:12", text: "b[i]", size: 4}}},
		{kind: siteCond, region: 1, stmt: "t:4:5", ops: []opTally{{op: "cmp", typ: "f64", n: 1}}, assumed: 0.5},
		{kind: siteTaken, region: 1, stmt: "t:4:5", cond: 2},
		{kind: siteSend, region: 0, stmt: "t:6:3", peer: "rank ^ 1"},
		{kind: siteColl, region: 0, stmt: "t:7:3", coll: "allreduce", redop: "max", elem: "f64"},
		{kind: siteBarrier, region: 0, stmt: "t:8:3"},
	}}
	r := rankCounters{cnt: []int64{10, 10, 10, 4, 1, 3, 2}, bytes: make([]int64, 7), peer: make([]int64, 7)}
	r.bytes[4], r.peer[4], r.bytes[5] = 64, 0, 24
	got := k.executedCounts(2, 1, r)
	work := got.Regions[1].Counts
	want := Counts{Iterations: 10, Flop: 50, IntOps: 20, MaddPairs: 20, Loads: 20, Stores: 20, LoadBytes: 80, StoreBytes: 160,
		Ops: []OpCount{{Op: "add", Type: "f64", Pattern: "a&b&s", Count: 20}, {Op: "add", Type: "int", Pattern: "a&b&s", Count: 20},
			{Op: "mul", Type: "f64", Pattern: "a&b&s", Count: 20}, {Op: "cmp", Type: "f64", Count: 10}, {Op: "conv", Type: "i32", Pattern: "a&b&s", Count: 20}},
		Madds: []OpCount{{Op: "add", Type: "f64", Pattern: "a&b&s", Count: 20}},
		Refs: []RefCount{{Array: "a", Pos: "t:3:5", Text: "a[i]", Store: true, ElemBytes: 8, Count: 20},
			{Array: "b", Pos: "t:3:12", Text: "b[i]", ElemBytes: 4, Count: 20}}}
	if diff := cmp.Diff(want, work); diff != "" {
		t.Errorf("region work (-want +got):\n%s", diff)
	}
	outside := got.Regions[0].Counts
	wantMsgs := []Message{{Kind: "send", Stmt: "t:6:3", Peer: "rank ^ 1", PeerRank: 0, Count: 1, Bytes: 64}}
	wantColls := []Collective{{Kind: "allreduce", Op: "max", Elem: "f64", Stmt: "t:7:3", Participants: 2, Count: 3, Bytes: 24}}
	if diff := cmp.Diff(wantMsgs, outside.Messages); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantColls, outside.Collectives); diff != "" {
		t.Errorf("collectives (-want +got):\n%s", diff)
	}
	if outside.Barriers != 2 || got.Total.Flop != 50 || got.Total.Barriers != 2 || len(got.Total.Messages) != 1 {
		t.Errorf("total %+v", got.Total)
	}
	wantBranch := []Branch{{Stmt: "t:4:5", Region: "work", Prob: 0.5, Evaluated: 10, Taken: 4}}
	if diff := cmp.Diff(wantBranch, got.Branches); diff != "" {
		t.Errorf("branches (-want +got):\n%s", diff)
	}
}

// TestPrintable checks the escapes of region names in the program's
// tables: those of lang.Printable, which perfc's printers use.
func TestPrintable(t *testing.T) {
	tests := []struct{ in, want string }{
		{"pivot search", "pivot search"},
		{`a\b`, `a\b`},
		{"héllo", "héllo"},
		{"a\x1b[31mred", `a\x1b[31mred`},
		{"tab\there\n", `tab\there\n`},
		{"cr\r del\x7f c1\u0085", `cr\r del\x7f c1\u0085`},
		{"line\u2028sep", `line\u2028sep`},
		{"bad\xffutf8", `bad\xffutf8`},
	}
	for _, tt := range tests {
		if got := printable(tt.in); got != tt.want {
			t.Errorf("printable(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := lang.Printable(tt.in); got != tt.want {
			t.Errorf("lang.Printable(%q) = %q, want %q (the runtime and perfc must agree)", tt.in, got, tt.want)
		}
	}
}

// TestTablesEscapeRegionNames checks that the program's tables print a
// region name's control characters as escapes.
func TestTablesEscapeRegionNames(t *testing.T) {
	var out strings.Builder
	printMeasurement(&out, Measurement{Regions: []Timing{{Name: "a\x1b[31mred\tx"}}, Total: Timing{Name: "total"}})
	printExecuted(&out, Executed{PerRank: []RankCounts{{Regions: []RegionCounts{{Name: "b\nc"}}}}})
	if strings.ContainsAny(out.String(), "\x1b\t") || !strings.Contains(out.String(), `a\x1b[31mred\tx`) || !strings.Contains(out.String(), `b\nc`) {
		t.Errorf("tables:\n%q", out.String())
	}
}
