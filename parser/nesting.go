package parser

import (
	"fmt"

	"github.com/alecthomas/participle/v2/lexer"

	"perfc/lang"
)

// maxNesting bounds how deeply brackets, blocks and the `then` arms of
// conditional expressions may nest. participle parses recursively, so the
// bound is checked on the tokens before it runs: an input of a million '('
// must be an error, not a stack overflow.
const maxNesting = 64

// closerOf returns the bracket that closes open, or "" for a non-bracket.
func closerOf(open string) string {
	switch open {
	case "(":
		return ")"
	case "[":
		return "]"
	case "{":
		return "}"
	}
	return ""
}

// checkNesting matches brackets before parsing, which lets a missing '}'
// be reported with the place its block began (participle would only say
// what it found at the end of the file), and enforces maxNesting. A '?'
// counts as a level until its ':' because `a ? (b ? (c ? …` recurses in the
// grammar without any bracket.
func checkNesting(src *lang.Source, tokens []lexer.Token, errs *lang.ErrorList) {
	var stack []lexer.Token // unclosed '(', '[', '{' and '?'
	for i, tok := range tokens {
		if len(*errs) >= maxErrors {
			return
		}
		switch {
		case tok.EOF():
			reportUnclosed(src, stack, tok, errs)
			return
		case isPunct(tok, "(", "[", "{", "?"):
			stack = append(stack, tok)
			if len(stack) > maxNesting {
				errs.Addf(position(src, tok), "nesting deeper than %d levels; split the expression or the loop nest", maxNesting)
				return
			}
		case isPunct(tok, ":"):
			if n := len(stack); n > 0 && stack[n-1].Value == "?" {
				stack = stack[:n-1]
			}
		case isPunct(tok, ")", "]", "}"):
			stack = closeBracket(src, stack, tok, errs)
		case len(stack) > 0 && startsKernel(tokens, i):
			// A kernel or a proc starts only at the top level, so anything
			// still open here was left open by the one before it.
			reportUnclosed(src, stack, tok, errs)
			stack = stack[:0]
		}
	}
}

// startsKernel reports whether tokens[i] begins a kernel header
// `kernel name(` or a proc header `proc name(`; a lone `kernel` is more
// likely a misused name, which the grammar reports as a keyword.
func startsKernel(tokens []lexer.Token, i int) bool {
	return (tokens[i].Value == "kernel" || tokens[i].Value == "proc") && i+2 < len(tokens) && tokens[i+2].Value == "("
}

// closeBracket pops the opener that tok closes. Openers above it were never
// closed and are reported at tok; a closer with no opener is reported and
// skipped. Pending '?' markers are dropped silently: a '?' without ':' is a
// syntax error that the grammar reports with better context.
func closeBracket(src *lang.Source, stack []lexer.Token, tok lexer.Token, errs *lang.ErrorList) []lexer.Token {
	match := -1
	for i := len(stack) - 1; i >= 0; i-- {
		if closerOf(stack[i].Value) == tok.Value {
			match = i
			break
		}
	}
	if match < 0 {
		errs.Addf(position(src, tok), "unmatched '%s': no '%s' is open here", tok.Value, openerOf(tok.Value))
		return stack
	}
	reportUnclosed(src, stack[match+1:], tok, errs)
	return stack[:match]
}

// reportUnclosed reports every bracket in open (a '?' excepted) as missing
// its closer at the token where the closer was due.
func reportUnclosed(src *lang.Source, open []lexer.Token, at lexer.Token, errs *lang.ErrorList) {
	for i := len(open) - 1; i >= 0; i-- {
		o := open[i]
		if o.Value == "?" {
			continue
		}
		p := src.Position(lang.PosOf(o.Pos.Offset))
		what := fmt.Sprintf("the '%s' opened at %d:%d", o.Value, p.Line, p.Col)
		if o.Value == "{" {
			what = fmt.Sprintf("the block opened at %d:%d", p.Line, p.Col)
		}
		errs.Addf(position(src, at), "missing '%s' to close %s", closerOf(o.Value), what)
	}
}

// openerOf is the inverse of closerOf.
func openerOf(closer string) string {
	switch closer {
	case ")":
		return "("
	case "]":
		return "["
	case "}":
		return "{"
	}
	return ""
}

// isPunct reports whether tok is one of the given operators or brackets.
// Strings and comments never compare equal because their values keep quotes
// and slashes.
func isPunct(tok lexer.Token, values ...string) bool {
	for _, v := range values {
		if tok.Value == v {
			return true
		}
	}
	return false
}

// position resolves a token's place in src.
func position(src *lang.Source, tok lexer.Token) lang.Position {
	return src.Position(lang.PosOf(tok.Pos.Offset))
}
