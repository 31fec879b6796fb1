package costmodel

import (
	"slices"
	"testing"

	"perfc/analyze"
	"perfc/machines"
)

// TestOpVocabulary checks the operation kinds the analyzer counts against
// the operations machine tables price: tableOp maps every kind whose name
// a table may price to that operation and no other kind to any, and every
// table operation but madd (a pair of counted operations) is a kind.
func TestOpVocabulary(t *testing.T) {
	tableOps := machines.Ops()
	var names []string
	for _, k := range analyze.OpKinds() {
		names = append(names, k.String())
		want := machines.Op("")
		if slices.Contains(tableOps, machines.Op(k.String())) {
			want = machines.Op(k.String())
		}
		if got := tableOp(k); got != want {
			t.Errorf("tableOp(%s) = %q, want %q", k, got, want)
		}
	}
	for _, op := range tableOps {
		if op != machines.OpMadd && !slices.Contains(names, string(op)) {
			t.Errorf("machine tables price %s, which the analyzer never counts", op)
		}
	}
}
