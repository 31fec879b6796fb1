package lang

import "slices"

// The vocabularies of the language are defined here and in ast.go once:
// the statement keywords below, the communication kinds (commNames), the
// element types (elemNames) and the reduction operators (reduceNames). The
// parser's lexer asks IsKeyword; the tests check that the grammar's
// literals, docs/language.md and the machine tables agree with these lists.

// statementKeywords are the reserved words that are neither a
// communication kind nor an element type, in the order docs/language.md
// lists them.
var statementKeywords = [...]string{"kernel", "on", "ranks", "grid", "let", "array", "var", "for", "in",
	"step", "repeat", "if", "else", "prob", "region"}

// peerKeywords are the reserved words of communication statements' peers
// and payloads, in the order docs/language.md lists them.
var peerKeywords = [...]string{"to", "from", "with", "into", "bytes", "east", "west", "north", "south", "none"}

// requestKeywords are the reserved words that name and complete the
// requests of non-blocking messages (isend, irecv), in the order
// docs/language.md lists them.
var requestKeywords = [...]string{"as", "wait", "waitall"}

// keywords is every reserved word, for IsKeyword.
var keywords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range Keywords() {
		m[w] = true
	}
	return m
}()

// Keywords returns the reserved words of the language in the order
// docs/language.md lists them: the statement keywords, the communication
// kinds, the peer and payload words, the request words and the element
// types.
func Keywords() []string {
	out := slices.Clone(statementKeywords[:])
	out = append(out, commNames[:]...)
	out = append(out, peerKeywords[:]...)
	out = append(out, requestKeywords[:]...)
	out = append(out, ElemTypeNames()...)
	return out
}

// IsKeyword reports whether name is a reserved word of the language.
func IsKeyword(name string) bool { return keywords[name] }

// CommKindNames returns the names of the communication kinds in CommKind
// order.
func CommKindNames() []string { return slices.Clone(commNames[:]) }

// ElemTypeNames returns the names of the element types in ElemType order
// (NoElem left out).
func ElemTypeNames() []string { return slices.Clone(elemNames[NoElem+1:]) }

// ReduceOpNames returns the names of the reduction operators in ReduceOp
// order (NoReduce left out).
func ReduceOpNames() []string { return slices.Clone(reduceNames[NoReduce+1:]) }

// AssignOpNames returns the assignment operators in AssignOp order.
func AssignOpNames() []string { return slices.Clone(assignOpNames[:]) }
