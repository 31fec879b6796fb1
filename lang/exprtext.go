package lang

import "strings"

// exprText renders an expression for a diagnostic, as the author wrote it
// up to spacing: parentheses are kept where the source had them, binary
// operators get spaces, literals keep their spelling. Long expressions are
// shortened so that a message stays on one line.
func exprText(e Expr) string {
	var b strings.Builder
	writeExprText(&b, e)
	s := b.String()
	const maxLen = 60
	if len(s) > maxLen {
		s = s[:maxLen-3] + "..."
	}
	return s
}

// writeExprText appends the text of e to b.
func writeExprText(b *strings.Builder, e Expr) {
	switch e := e.(type) {
	case nil:
	case *Ident:
		b.WriteString(e.Name)
	case *IntLit:
		b.WriteString(e.Text)
	case *FloatLit:
		b.WriteString(e.Text)
	case *NoneLit:
		b.WriteString("none")
	case *DirExpr:
		b.WriteString(e.Dir.String())
	case *ParenExpr:
		b.WriteByte('(')
		writeExprText(b, e.X)
		b.WriteByte(')')
	case *UnaryExpr:
		b.WriteString(e.Op.String())
		writeExprText(b, e.X)
	case *BinaryExpr:
		writeExprText(b, e.X)
		b.WriteString(" " + e.Op.String() + " ")
		writeExprText(b, e.Y)
	case *CondExpr:
		writeExprText(b, e.Cond)
		b.WriteString(" ? ")
		writeExprText(b, e.Then)
		b.WriteString(" : ")
		writeExprText(b, e.Else)
	case *CallExpr:
		b.WriteString(e.Fun.Name)
		b.WriteByte('(')
		for i, a := range e.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			writeExprText(b, a)
		}
		b.WriteByte(')')
	case *IndexExpr:
		b.WriteString(e.Name.Name)
		for _, x := range e.Index {
			b.WriteByte('[')
			writeExprText(b, x)
			b.WriteByte(']')
		}
	default:
		b.WriteString("?")
	}
}
