package machines

import (
	"slices"
	"testing"

	"perfc/lang"
)

// TestLanguageVocabulary checks that a table may price every collective
// kind and reduction operator of the language, and key entries by every
// element type of it; the table's own extras (segscan, u64, u32) are the
// CM-5's.
func TestLanguageVocabulary(t *testing.T) {
	for _, n := range lang.CommKindNames() {
		if k, _ := lang.CommKindNamed(n); k.IsCollective() && !slices.Contains(collectiveKinds(), n) {
			t.Errorf("the language's collective %s is not a collective kind of machine tables", n)
		}
	}
	for _, n := range lang.ElemTypeNames() {
		if !slices.Contains(elemNames(), n) {
			t.Errorf("the language's element type %s is not an element type of machine tables", n)
		}
	}
	if !slices.Equal(reduceOps(), lang.ReduceOpNames()) {
		t.Errorf("machine tables' reduction operators %q, the language's %q", reduceOps(), lang.ReduceOpNames())
	}
}
