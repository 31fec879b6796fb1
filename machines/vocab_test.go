package machines

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// TestSchemaDocumented checks that docs/machines.md documents every key of
// a table's top level and of its compute and memory sections (as `key` or
// key: in its schema), so that a key added to the loader is added to the
// normative schema too.
func TestSchemaDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "machines.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	for _, keys := range [][]string{machineKeys(), computeKeys(), memoryKeys()} {
		for _, k := range keys {
			if !strings.Contains(text, "`"+k) && !strings.Contains(text, "\n"+k+":") && !strings.Contains(text, " "+k+":") {
				t.Errorf("docs/machines.md does not document the key %s", k)
			}
		}
	}
	for _, op := range Ops() {
		if !strings.Contains(text, string(op)) {
			t.Errorf("docs/machines.md does not name the operation %s", op)
		}
	}
}
