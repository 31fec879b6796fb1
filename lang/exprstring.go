package lang

import "strings"

// ExprString returns the source form of an expression, as messages and
// reports print it: parentheses where the author wrote them, spaces around
// binary operators, literals in their original spelling. Unlike the text in
// diagnostics it is never shortened, so it can name things (an atom in a
// formula, a peer in a report).
func ExprString(e Expr) string {
	var b strings.Builder
	writeExprText(&b, e)
	return b.String()
}
