package parser

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"perfc/lang"
)

// participle reports a syntax error as `unexpected token "x" (expected R)`,
// where R is the EBNF of the rest of the production that failed, such as
// `LoopBody` or `".." ExprNode ("step" ExprNode)? LoopBody`. The grammar's
// type names make R specific enough to say what was wrong in plain words.
// In a message template, {found} is the offending token and {prev} the one
// before it.

// messageFor returns the message template for an expected-production
// string, looked up by its first items and then by its first item alone.
func messageFor(expected string) (string, bool) {
	switch {
	case strings.HasPrefix(expected, `":" OrExpr`):
		return "expected ':' in the conditional 'c ? a : b', found {found}", true
	case strings.HasPrefix(expected, `":" ElemTypeNode`):
		return "expected ':' and an element type (f64, f32, i64 or i32) after the names, found {found}", true
	case strings.HasPrefix(expected, `"=" ExprNode "ranks"`):
		return "expected '=' after {prev}, as in 'on P = 32 ranks', found {found}", true
	}
	switch firstItem(expected) {
	case "FileEnd":
		return "expected 'kernel' to start a kernel, found {found}", true
	case "ExprEnd":
		return "unexpected {found} after the expression", true
	case "ExprNode", "OrExpr", "AndExpr", "CmpExpr", "AddExpr", "MulExpr", "UnaryExpr", "PrimaryNode":
		return "expected an expression, found {found}", true
	case "NameNode":
		return "expected a name after {prev}, found {found}", true
	case "ParamList":
		return "expected '(' to start the parameter list (write '()' when there are none), found {found}", true
	case "ParamsClose":
		return "expected a parameter 'name = value' or ')', found {found}", true
	case "(GridNode | RanksNode)":
		return "expected 'P = N ranks' or 'grid(Px = X, Py = Y)' after 'on', found {found}", true
	case "KernelBody":
		return "expected '{' to start the kernel body, found {found}", true
	case "LoopBody":
		return "expected '{' to start the loop body, found {found}", true
	case "IfBody":
		return "expected '{' to start the if body, found {found}", true
	case "(ElseIfNode | ElseBody)":
		return "expected 'if' or '{' after 'else', found {found}", true
	case "RegionName":
		return "expected the region's name as a string, as in 'region \"update\" { … }', found {found}", true
	case "RegionBody":
		return "expected '{' to start the region body, found {found}", true
	case "BlockClose":
		return "expected a statement or '}', found {found}", true
	case "ArraySpec":
		return "expected an array 'name[size]' after {prev}, found {found}", true
	case "DimNode+":
		return "expected '[' and a size after the array name, as in 'array a[N]: f64', found {found}", true
	case "ElemTypeNode":
		return "expected an element type (f64, f32, i64 or i32), found {found}", true
	case "AssignOpNode":
		return "expected '=' or another assignment operator ('+=', '-=', '*=', '/=') after {prev}, found {found}", true
	case "RedOpNode":
		return "expected a reduction operator (sum, prod, max, min, and, or, xor) after {prev}, found {found}", true
	case "PayloadNode":
		return "expected a payload (an array slice such as x[0:n], a var, or 'SIZE bytes'), found {found}", true
	case "RequestName":
		return "expected 'as NAME' after the peer, naming the request that 'wait NAME' completes, found {found}", true
	case `("to" | "from")`:
		return "expected 'to' (isend) or 'from' (irecv) and a rank after the payload, found {found}", true
	case `".."`:
		return "'..' expected in range 'for i in lo..hi', found {found}", true
	case `"in"`:
		return "expected 'in' after the loop variable, as in 'for i in 0..N', found {found}", true
	case `"="`:
		return "expected '=' and a value after {prev}, found {found}", true
	case `"ranks"`:
		return "expected 'ranks' after the rank count, as in 'on P = 32 ranks', found {found}", true
	case `"to"`:
		return "expected 'to' and a rank after the payload, found {found}", true
	case `"from"`:
		return "expected 'from' and a rank after {prev}, found {found}", true
	case `"with"`:
		return "expected 'with' and the partner rank after the payload, found {found}", true
	}
	return "", false
}

// syntaxError turns an error from participle into a positioned message.
// tokens is the stream the parser saw, used to find the token before the
// offending one; root is the production the whole input must match, which
// participle leaves out when nothing matched at all.
func syntaxError(src *lang.Source, tokens []lexer.Token, root string, err error) *lang.Error {
	var unexpected *participle.UnexpectedTokenError
	if errors.As(err, &unexpected) {
		tok := unexpected.Unexpected
		expected := expectedOf(unexpected)
		if expected == "" {
			expected = root
		}
		msg := unexpectedMessage(tok, expected, previousToken(tokens, tok))
		if k := keywordMisuse(tokens, tok); k != "" && strings.HasPrefix(msg, "expected a statement") {
			msg = k
		}
		return &lang.Error{Pos: position(src, tok), Msg: msg}
	}
	var perr participle.Error
	if errors.As(err, &perr) {
		return &lang.Error{Pos: src.Position(lang.PosOf(perr.Position().Offset)), Msg: perr.Message()}
	}
	return &lang.Error{Pos: lang.Position{Filename: src.Name}, Msg: err.Error()}
}

// expectedOf extracts the expected-production string from participle's
// message, which is the only place the library exposes it.
func expectedOf(e *participle.UnexpectedTokenError) string {
	rest := strings.TrimPrefix(e.Message(), fmt.Sprintf("unexpected token %q", e.Unexpected.String()))
	if !strings.HasPrefix(rest, " (expected ") || !strings.HasSuffix(rest, ")") {
		return ""
	}
	return rest[len(" (expected ") : len(rest)-1]
}

// unexpectedMessage words a syntax error at tok.
func unexpectedMessage(tok lexer.Token, expected string, prev *lexer.Token) string {
	format, ok := messageFor(expected)
	if !ok {
		format = "unexpected {found}"
		if item := firstItem(expected); strings.HasPrefix(item, `"`) {
			format = "expected '" + strings.Trim(item, `"`) + "', found {found}"
		}
	}
	prevText := "the start of the input"
	if prev != nil {
		prevText = describe(*prev)
	}
	return strings.NewReplacer("{found}", describe(tok), "{prev}", prevText).Replace(format)
}

// firstItem returns the first item of an EBNF sequence: a quoted literal, a
// <token>, a parenthesised group with its modifier, or a production name
// with its modifier.
func firstItem(ebnf string) string {
	if ebnf == "" {
		return ""
	}
	end := len(ebnf)
	switch ebnf[0] {
	case '"':
		if i := strings.IndexByte(ebnf[1:], '"'); i >= 0 {
			end = i + 2
		}
	case '<':
		if i := strings.IndexByte(ebnf, '>'); i >= 0 {
			end = i + 1
		}
	case '(':
		end = matchingParen(ebnf)
	default:
		if i := strings.IndexByte(ebnf, ' '); i >= 0 {
			end = i
		}
		return ebnf[:end]
	}
	if end < len(ebnf) && strings.ContainsRune("?*+!", rune(ebnf[end])) {
		end++
	}
	return ebnf[:end]
}

// matchingParen returns the index just after the ')' that closes the '('
// at the start of s, skipping quoted literals.
func matchingParen(s string) int {
	depth := 0
	inQuote := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			inQuote = !inQuote
		case inQuote:
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(s)
}

// previousToken returns the token before tok in tokens, or nil.
func previousToken(tokens []lexer.Token, tok lexer.Token) *lexer.Token {
	i := sort.Search(len(tokens), func(i int) bool { return tokens[i].Pos.Offset >= tok.Pos.Offset })
	if i == 0 || i > len(tokens) {
		return nil
	}
	return &tokens[i-1]
}

// keywordMisuse recognises a keyword used as the target of an assignment
// (`step = 2`), which the grammar can only see as a token that starts no
// statement.
func keywordMisuse(tokens []lexer.Token, tok lexer.Token) string {
	if tok.Type != kindsOf(lexerDef).keyword {
		return ""
	}
	i := sort.Search(len(tokens), func(i int) bool { return tokens[i].Pos.Offset >= tok.Pos.Offset })
	if i+1 >= len(tokens) {
		return ""
	}
	switch next := tokens[i+1].Value; next {
	case "=", "+=", "-=", "*=", "/=", "[":
		return keywordMessage(tok.Value)
	}
	return ""
}

// keywordMessage is the error for a keyword used as a name.
func keywordMessage(word string) string {
	return fmt.Sprintf("'%s' is a keyword; choose another name", word)
}

// describe names a token for a message: 'x' for most, the end of the file
// for EOF, and a shortened form of long strings and names.
func describe(tok lexer.Token) string {
	if tok.EOF() {
		return "end of file"
	}
	text := tok.Value
	if r := []rune(text); len(r) > 24 {
		text = string(r[:20]) + "…"
	}
	if strings.HasPrefix(text, `"`) {
		return "string " + text
	}
	return "'" + text + "'"
}
