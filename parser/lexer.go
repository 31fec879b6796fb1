package parser

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"

	"perfc/lang"
)

// Token type names of the lexer. The Bad* and Invalid types never reach the
// grammar: scan turns them into lexical errors with a plain message, which
// participle's "invalid input text" would not give. The grammar matches
// operators by their text, so '/' and '/=' can have a type of their own.
const (
	tokWhitespace = "whitespace" // lower case: the lexer drops it
	tokPunct      = "Punct"
	tokKeyword    = "Keyword"
	tokIdent      = "Ident"
	tokFloat      = "Float"
	tokInt        = "Int"
	tokComment    = "Comment"
	tokBadComment = "BadComment" // `/*` without `*/`: the rest of the file
	tokSlash      = "Slash"
	tokString     = "String"
	tokBadString  = "BadString" // `"` without a closing quote on its line
	tokInvalid    = "Invalid"   // any other character
)

// lexerRules returns the lexer's rules. They are tried in order and the
// first match wins, so a longer form comes before its prefix: `..` and the
// two-character operators before one-character ones, a float before an
// int, comments before '/'. A float needs a digit after its '.', which
// keeps `0..N` three tokens. Within those constraints the common tokens
// come first, because participle tries each rule's regular expression in
// turn and that dominates the lexing time. For the same reason keywords
// are lexed as identifiers and retyped by scan (an alternation of 42 words
// tried on every name was the slowest rule); the Keyword rule, which never
// matches first, only declares the token type the grammar refers to.
func lexerRules() []lexer.SimpleRule {
	return []lexer.SimpleRule{
		{Name: tokWhitespace, Pattern: `[ \t\r\n]+`},
		{Name: tokPunct, Pattern: `\.\.|<<|>>|<=|>=|==|!=|&&|\|\||\+=|-=|\*=|[-+*%&|^!<>=?:,;()\[\]{}]`},
		{Name: tokIdent, Pattern: `[A-Za-z_][A-Za-z0-9_]*`},
		{Name: tokKeyword, Pattern: `[A-Za-z_][A-Za-z0-9_]*`}, // never first: see isKeyword
		{Name: tokFloat, Pattern: `[0-9](?:_?[0-9])*(?:\.[0-9](?:_?[0-9])*(?:[eE][+-]?[0-9]+)?|[eE][+-]?[0-9]+)`},
		{Name: tokInt, Pattern: `0[xX][0-9a-fA-F](?:_?[0-9a-fA-F])*|[0-9](?:_?[0-9])*`},
		{Name: tokComment, Pattern: `//[^\n]*|/\*(?s:.*?)\*/`},
		{Name: tokBadComment, Pattern: `/\*(?s:.*)`},
		{Name: tokSlash, Pattern: `/=|/`},
		{Name: tokString, Pattern: `"(?:[^"\\\n]|\\.)*"`},
		{Name: tokBadString, Pattern: `"[^\n]*`},
		{Name: tokInvalid, Pattern: `.`},
	}
}

// byteOrderMark is U+FEFF, accepted (and ignored) at the start of a file
// as go/scanner does.
const byteOrderMark = "\uFEFF"

// isKeyword reports whether word is reserved (lang.Keywords, listed in
// docs/language.md, "Reserved keywords"). scan gives such words the Keyword
// token type, so a grammar reference to Ident never matches one;
// declaration names accept them only to report "'for' is a keyword"
// instead of a bare syntax error.
func isKeyword(word string) bool { return lang.IsKeyword(word) }

// lexerDef is the lexer shared by the file and expression grammars. It is
// built once and never modified.
var lexerDef = lexer.MustSimple(lexerRules())

// tokenKinds resolves the token type numbers of lexerDef once per parse, so
// that the scanning code can switch on them by name.
type tokenKinds struct {
	comment, badComment, float, integer, keyword, ident, str, badString, invalid lexer.TokenType
}

// kindsOf looks the rule names up in def's symbol table.
func kindsOf(def lexer.Definition) tokenKinds {
	s := def.Symbols()
	return tokenKinds{
		comment: s[tokComment], badComment: s[tokBadComment], float: s[tokFloat], integer: s[tokInt],
		keyword: s[tokKeyword], ident: s[tokIdent], str: s[tokString], badString: s[tokBadString],
		invalid: s[tokInvalid],
	}
}

// scanResult is the token stream handed to the grammar (comments removed,
// ending in EOF) and the comments taken out of it.
type scanResult struct {
	tokens   []lexer.Token
	comments []*lang.Comment
}

// scan lexes src and reports lexical errors into errs (up to maxErrors):
// invalid characters, unterminated strings and comments, bad escapes and
// malformed numbers such as `1_` or `0x`. Comments are collected with their
// positions rather than elided by participle, because perfc fmt prints
// them back.
func scan(src *lang.Source, errs *lang.ErrorList) scanResult {
	kinds := kindsOf(lexerDef)
	lx, err := lexerDef.LexString(src.Name, string(src.Text))
	if err != nil {
		errs.Add(src.Position(lang.PosOf(0)), err.Error())
		return scanResult{}
	}
	var out scanResult
	var prev *lexer.Token
	for len(*errs) < maxErrors {
		tok, err := lx.Next()
		if err != nil {
			// Unreachable with the catch-all Invalid rule; kept so that a
			// lexer change cannot turn into a panic or a silent truncation.
			errs.Add(src.Position(lang.PosOf(0)), err.Error())
			return scanResult{}
		}
		if tok.Pos.Offset == 0 && tok.Value == byteOrderMark {
			continue // written by some editors; not part of the program
		}
		if tok.Type == kinds.ident && isKeyword(tok.Value) {
			tok.Type = kinds.keyword
		}
		if tok.Type == kinds.comment {
			out.comments = append(out.comments, &lang.Comment{
				Slash: lang.PosOf(tok.Pos.Offset),
				Text:  strings.TrimSuffix(tok.Value, "\r"),
			})
			continue
		}
		if offset, msg := badTokenMessage(kinds, tok, prev); msg != "" {
			errs.Add(src.Position(lang.PosOf(offset)), msg)
		}
		out.tokens = append(out.tokens, tok)
		if tok.EOF() {
			return out
		}
		if len(out.tokens) > maxTokens {
			errs.Addf(src.Position(lang.PosOf(tok.Pos.Offset)), "file has more than %d tokens; perfc accepts at most %d, split it", maxTokens, maxTokens)
			return out
		}
		prev = &out.tokens[len(out.tokens)-1]
	}
	return out
}

// badTokenMessage returns the lexical error for tok and the byte offset it
// applies to, or "" when tok is well formed. prev is the token before it
// (nil at the start), needed to spot a number that runs into a name, as in
// `1_` or `2x`; that error points at the number.
func badTokenMessage(kinds tokenKinds, tok lexer.Token, prev *lexer.Token) (int, string) {
	if prev != nil && isNumber(kinds, *prev) && adjacent(*prev, tok) {
		switch {
		case tok.Type == kinds.ident || tok.Type == kinds.keyword || isNumber(kinds, tok):
			return prev.Pos.Offset, fmt.Sprintf("malformed number '%s%s'; write digits with single underscores between them, as in 20_000_000, 0x40 or 1.5e-3",
				prev.Value, tok.Value)
		case tok.Value == ".":
			return prev.Pos.Offset, fmt.Sprintf("malformed number '%s.'; a float needs a digit after the '.', as in %s.0", prev.Value, prev.Value)
		}
	}
	switch tok.Type {
	case kinds.badComment:
		return tok.Pos.Offset, "unterminated comment: '/*' has no closing '*/'"
	case kinds.badString:
		return tok.Pos.Offset, "unterminated string: add a closing '\"' on the same line"
	case kinds.str:
		if at, msg := badEscape(tok.Value); msg != "" {
			return tok.Pos.Offset + at, msg
		}
	case kinds.invalid:
		return tok.Pos.Offset, invalidCharMessage(tok.Value)
	}
	return 0, ""
}

// isNumber reports whether tok is an integer or float literal.
func isNumber(kinds tokenKinds, tok lexer.Token) bool {
	return tok.Type == kinds.integer || tok.Type == kinds.float
}

// adjacent reports whether b starts right where a ends.
func adjacent(a, b lexer.Token) bool { return a.Pos.Offset+len(a.Value) == b.Pos.Offset }

// badEscape checks the escapes of a quoted string: only \" and \\ exist,
// so that region names print back exactly as written. It returns the
// offset of the first bad escape within quoted and the error, or "".
func badEscape(quoted string) (int, string) {
	for i := 1; i < len(quoted)-1; i++ {
		if quoted[i] != '\\' {
			continue
		}
		if c := quoted[i+1]; c != '"' && c != '\\' {
			r, _ := utf8.DecodeRuneInString(quoted[i+1:])
			return i, fmt.Sprintf("unknown escape '\\%c' in string; only \\\" and \\\\ are allowed", r)
		}
		i++
	}
	return 0, ""
}

// invalidCharMessage describes a character no token can start with.
// Unprintable characters and stray bytes are shown by code, not raw.
func invalidCharMessage(text string) string {
	r, size := utf8.DecodeRuneInString(text)
	switch {
	case r == utf8.RuneError && size <= 1:
		return fmt.Sprintf("invalid UTF-8 byte 0x%02x", text[0])
	case r == '.':
		return "invalid character '.'; ranges are written 'lo..hi' and floats '1.0'"
	case unicode.IsPrint(r):
		return fmt.Sprintf("invalid character '%c'", r)
	}
	return fmt.Sprintf("invalid character %U", r)
}

// unquote returns the text of a string literal whose escapes were checked
// by badEscape.
func unquote(quoted string) string {
	body := quoted[1 : len(quoted)-1]
	if !strings.Contains(body, `\`) {
		return body
	}
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		if body[i] == '\\' && i+1 < len(body) {
			i++
		}
		b.WriteByte(body[i])
	}
	return b.String()
}
