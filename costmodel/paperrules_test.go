package costmodel

import (
	"math/big"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfc/analyze"
	"perfc/lang"
	"perfc/machines"
	"perfc/parser"
)

// msg builds a message count: n messages of size bytes each.
func msg(kind, stmt string, peer int64, n, size int64) analyze.Message {
	return analyze.Message{Kind: kind, Stmt: stmt, Rank: peer,
		Count: analyze.Count{Value: big.NewRat(n, 1)}, Bytes: analyze.Count{Value: big.NewRat(n*size, 1)}}
}

func TestOverlappedReceives(t *testing.T) {
	on := paperRules{overlapExchanges: true}
	tests := []struct {
		name  string
		rules paperRules
		msgs  []analyze.Message
		want  []int // indices of the receives priced at no cost
	}{
		{"sendrecv halves", on, []analyze.Message{msg("send", "k:3:5", 1, 1, 8), msg("recv", "k:3:5", 7, 1, 8)}, []int{1}},
		{"rules off", paperRules{}, []analyze.Message{msg("send", "k:3:5", 1, 1, 8), msg("recv", "k:3:5", 7, 1, 8)}, nil},
		{"round trip, send first", on, []analyze.Message{msg("send", "k:4:9", 1, 100, 8), msg("recv", "k:5:9", 1, 100, 8)}, []int{1}},
		{"round trip, receive first", on, []analyze.Message{msg("recv", "k:7:9", 0, 100, 8), msg("send", "k:8:9", 0, 100, 8)}, []int{0}},
		{"other sizes", on, []analyze.Message{msg("send", "k:4:9", 1, 1, 8), msg("recv", "k:5:9", 1, 1, 16)}, nil},
		{"other counts", on, []analyze.Message{msg("send", "k:4:9", 1, 2, 8), msg("recv", "k:5:9", 1, 1, 8)}, nil},
		{"other peers", on, []analyze.Message{msg("send", "k:4:9", 1, 1, 8), msg("recv", "k:5:9", 2, 1, 8)}, nil},
		{"varying peer", on, []analyze.Message{msg("send", "k:4:9", -1, 1, 8), msg("recv", "k:5:9", -1, 1, 8)}, nil},
		{"one send, two receives", on, []analyze.Message{
			msg("send", "k:4:9", 1, 1, 8), msg("recv", "k:5:9", 1, 1, 8), msg("recv", "k:6:9", 1, 1, 8)}, []int{1}},
		{"sendrecv pairs before round trips", on, []analyze.Message{
			msg("recv", "k:2:9", 1, 1, 8), msg("send", "k:3:5", 1, 1, 8), msg("recv", "k:3:5", 1, 1, 8)}, []int{2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []int
			for i := range tt.msgs {
				if _, ok := tt.rules.overlappedReceives(tt.msgs)[i]; ok {
					got = append(got, i)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("overlapped receives (-want +got):\n%s", diff)
			}
		})
	}
}

// testKernel checks a small kernel for building pricers.
func testKernel(t *testing.T) *lang.Checked {
	t.Helper()
	f, err := parser.ParseFile("k.spmd", []byte("kernel k(N = 4) on P = 2 ranks {\n  array a[N]: f64\n  for i in 0..N {\n    a[i] = a[i] * 2.0\n  }\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	k, err := lang.Check(f, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestPaperRulesFor(t *testing.T) {
	k := testKernel(t)
	tests := []struct {
		machine string
		opts    Options
		want    paperRules
		note    string // a note the pricer must record; "" for none
	}{
		{"cm5-32", Options{}, paperRules{}, ""},
		{"cm5-32", Options{PaperRules: true}, paperRules{splitMadds: true, skipRegisterOps: true}, "[004] §8"},
		{"cm5-512", Options{PaperRules: true}, paperRules{splitMadds: true, skipRegisterOps: true}, "[004] §8"},
		{"sp2", Options{PaperRules: true}, paperRules{overlapExchanges: true}, "[000] §5.2.2"},
		{"t3e", Options{PaperRules: true}, paperRules{overlapExchanges: true}, "[000] §5.2.2"},
		{"origin2000", Options{PaperRules: true}, paperRules{overlapExchanges: true}, "[000] §5.2.2"},
		{"delta", Options{PaperRules: true}, paperRules{}, "prices nothing differently"},
		{"bluemountain", Options{PaperRules: true}, paperRules{}, "prices nothing differently"},
	}
	for _, tt := range tests {
		t.Run(tt.machine, func(t *testing.T) {
			m, err := machines.Builtin(tt.machine)
			if err != nil {
				t.Fatal(err)
			}
			p := newMachinePricer(m, k)
			got := p.paperRulesFor(tt.opts)
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(paperRules{})); diff != "" {
				t.Errorf("rules (-want +got):\n%s", diff)
			}
			found := false
			for n := range p.notes {
				found = found || strings.Contains(n, tt.note) && tt.note != ""
			}
			if found != (tt.note != "") {
				t.Errorf("notes %v; want one containing %q", p.notes, tt.note)
			}
		})
	}
}

func TestApplyPaperRules(t *testing.T) {
	w := &workload{
		ops: []opN{
			{analyze.OpMul, "f64", "a&b&s", 10}, {analyze.OpSub, "f64", "a&b&s", 10},
			{analyze.OpAdd, "int", "s&s&s", 3}, {analyze.OpCmp, "f64", "a&s&s", 2},
		},
		madds: []opN{{analyze.OpSub, "f64", "a&b&s", 10}, {analyze.OpAdd, "f64", "s&s&s", 1}},
	}
	tests := []struct {
		name  string
		rules paperRules
		want  *workload
	}{
		{"none", paperRules{}, w},
		{"split madds", paperRules{splitMadds: true}, &workload{ops: w.ops}},
		{"skip register ops", paperRules{skipRegisterOps: true}, &workload{
			ops:   []opN{w.ops[0], w.ops[1], w.ops[3]},
			madds: []opN{w.madds[0]},
		}},
		{"both", paperRules{splitMadds: true, skipRegisterOps: true}, &workload{ops: []opN{w.ops[0], w.ops[1], w.ops[3]}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &machinePricer{notes: map[string]bool{}, rules: tt.rules}
			got := p.applyPaperRules(w)
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(workload{}, opN{})); diff != "" {
				t.Errorf("workload (-want +got):\n%s", diff)
			}
			if len(w.ops) != 4 || len(w.madds) != 2 {
				t.Errorf("the input workload was changed: %+v", w)
			}
		})
	}
}
