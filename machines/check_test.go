package machines

import (
	"strings"
	"testing"
)

// TestCostCheck checks that a cost which passes the load-time samples but
// goes negative at the values pricing meets (the collective formula
// 2000us - P*1us at P = 4096, a measured table extrapolated beyond its
// last point) is refused with the entry, its position, the variables and
// the value, and that a usable value passes.
func TestCostCheck(t *testing.T) {
	m, err := Parse("m.yaml", []byte(header+`messages:
  source: s
  model: expr
  time:
    x: bytes
    points: [[0B, 10us], [1MiB, 5us]]
collectives:
  source: s
  entries:
    - {kind: bcast, time: 2000us - P*1us}
`))
	if err != nil {
		t.Fatal(err)
	}
	bcast, ok := m.Collective("bcast", "", "f64")
	if !ok {
		t.Fatal("no bcast entry")
	}
	msg, ok := m.Messages("").TimeCost()
	if !ok {
		t.Fatal("no message time entry")
	}
	tests := []struct {
		name    string
		cost    *Cost
		v       Vars
		want    float64
		wantErr string
	}{
		{"bcast on 1024 ranks", bcast, Vars{Bytes: 8, P: 1024}, 976e-6, ""},
		{"bcast on 2000 ranks", bcast, Vars{Bytes: 8, P: 2000}, 0, ""},
		{"bcast on 4096 ranks", bcast, Vars{Bytes: 8, P: 4096}, -2096e-6,
			"m.yaml:13:27: 'time' (2000us - P*1us) is a negative time (-2.096ms) at bytes=8, P=4096: a cost must not be negative or infinite; correct the entry or the range it is measured over"},
		{"message inside the table", msg, Vars{Bytes: 1 << 19}, 7.5e-6, ""},
		{"message beyond the table", msg, Vars{Bytes: 4 << 20}, -10e-6,
			"m.yaml:8:5: 'time' (table over bytes (2 points)) is a negative time (-10us) at bytes=4.194304e+06: a cost must not be negative or infinite; correct the entry or the range it is measured over"},
	}
	for _, tt := range tests {
		got, err := tt.cost.Check(tt.v, "")
		if d := got - tt.want; d > 1e-15 || d < -1e-15 {
			t.Errorf("%s: value %g, want %g", tt.name, got, tt.want)
		}
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if gotErr != tt.wantErr {
			t.Errorf("%s: error\n%s\nwant\n%s", tt.name, gotErr, tt.wantErr)
		}
	}
	_, err = bcast.Check(Vars{P: 1e308}, "bcast at k.spmd:5:3")
	if want := "P=1e+308 (for bcast at k.spmd:5:3): a cost"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a huge P: got %v, want it to contain %q", err, want)
	}
}
