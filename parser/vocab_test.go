package parser

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"perfc/lang"
)

// TestGrammarVocabulary checks the words the participle grammar spells in
// its tags against lang's vocabularies, which the grammar cannot refer to:
// every word literal is a keyword or a reduction operator, every keyword
// is used, and the alternations of element types and reduction operators
// list lang's in order.
func TestGrammarVocabulary(t *testing.T) {
	src, err := os.ReadFile("grammar.go")
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for _, m := range regexp.MustCompile(`'([a-z][a-z0-9_]*)'`).FindAllSubmatch(src, -1) {
		used[string(m[1])] = true
	}
	reduce := lang.ReduceOpNames()
	contextual := append(slices.Clone(reduce), lang.WorkMemoryWords()...)
	for w := range used {
		if !lang.IsKeyword(w) && !slices.Contains(contextual, w) {
			t.Errorf("the grammar spells '%s', which is neither a keyword of lang nor a contextual word (a reduction operator, a work item's load or store)", w)
		}
	}
	for _, w := range append(lang.Keywords(), contextual...) {
		if !used[w] {
			t.Errorf("the grammar never spells '%s'", w)
		}
	}
	alternation := func(words []string) string {
		return "@('" + strings.Join(words, "' | '") + "')"
	}
	for _, want := range []string{alternation(lang.ElemTypeNames()), alternation(reduce)} {
		if !strings.Contains(string(src), want) {
			t.Errorf("the grammar has no alternation %s", want)
		}
	}
	for _, w := range lang.Keywords() {
		if !isKeyword(w) {
			t.Errorf("the lexer does not reserve '%s'", w)
		}
	}
}
