package lang

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestKeywordsDocumented checks that docs/language.md lists exactly the
// reserved words of Keywords, in its order.
func TestKeywordsDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "language.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)\\*\\*Reserved keywords\\*\\*: `([^`]*)`").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/language.md has no **Reserved keywords** list")
	}
	if got := strings.Fields(string(m[1])); !slices.Equal(got, Keywords()) {
		t.Errorf("docs/language.md lists the keywords\n%q\nlang.Keywords is\n%q", got, Keywords())
	}
}

// TestVocabularies checks the lists against each other: every name is
// spelled back to its kind, and no keyword repeats.
func TestVocabularies(t *testing.T) {
	kw := Keywords()
	sorted := slices.Sorted(slices.Values(kw))
	if len(slices.Compact(sorted)) != len(kw) {
		t.Errorf("a keyword is listed twice: %q", kw)
	}
	for i, n := range CommKindNames() {
		if k, ok := CommKindNamed(n); !ok || k != CommKind(i) || k.String() != n || !IsKeyword(n) {
			t.Errorf("communication kind %q does not round-trip or is not a keyword", n)
		}
	}
	for i, n := range ElemTypeNames() {
		if e := ElemTypeNamed(n); e != ElemType(i+1) || e.String() != n || !IsKeyword(n) || !isIntrinsic(n) {
			t.Errorf("element type %q does not round-trip, is not a keyword or not a conversion", n)
		}
	}
	for i, n := range ReduceOpNames() {
		if op := ReduceOpNamed(n); op != ReduceOp(i+1) || op.String() != n || IsKeyword(n) {
			t.Errorf("reduction operator %q does not round-trip or is a keyword", n)
		}
	}
}
