// Package parser reads .spmd kernel files into the lang AST.
//
// Parsing runs in four passes, each of which can stop with errors:
//
//  1. scan lexes the text (lexer.go), collects comments and reports
//     lexical errors (invalid characters, unterminated strings, malformed
//     numbers);
//  2. checkNesting matches brackets (nesting.go), so that a missing '}'
//     names the place its block began, and bounds nesting before anything
//     recursive runs;
//  3. participle parses the tokens with the grammar of grammar.go; its
//     errors are reworded by messages.go;
//  4. lowering (lower.go, lower_expr.go) builds lang nodes with positions
//     and makes the checks the grammar leaves to it.
//
// Errors are a lang.ErrorList, sorted and de-duplicated, each at
// file:line:col; each pass reports at most ten. So that no input can crash
// or stall perfc, an input over 1 MiB is refused before lexing, one over
// 100000 tokens or nested deeper than 64 levels before parsing, and a
// panic inside participle becomes an error.
package parser

import (
	"fmt"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"perfc/lang"
)

// maxSourceSize is the largest input accepted, checked before anything
// else reads the text.
const maxSourceSize = 1 << 20

// maxTokens bounds the tokens of one input. participle spends some
// microseconds per token, so this keeps the worst case near a second;
// the largest example kernel has about a thousand tokens.
const maxTokens = 100_000

// maxErrors bounds the errors a pass reports, as go/parser does without
// AllErrors: a file of a million stray characters needs ten messages, not
// a million, and after ten the rest are mostly echoes of the first.
const maxErrors = 10

// The parsers are built once from the grammar and never modified; a
// participle.Parser keeps no state between calls to ParseFromLexer.
var (
	fileParser = participle.MustBuild[fileNode](participle.Lexer(lexerDef), participle.UseLookahead(0))
	exprParser = participle.MustBuild[exprRoot](participle.Lexer(lexerDef), participle.UseLookahead(0))
)

// ParseFile parses one .spmd file. On failure the error is a
// lang.ErrorList (sorted, de-duplicated), each error positioned
// file:line:col, and the returned File has no kernels and no procs. The returned File
// always has Source set (lang.NewSource(name, src)) and, once the text has
// been lexed, Comments holding every comment in source order.
func ParseFile(name string, src []byte) (*lang.File, error) {
	source := lang.NewSource(name, src)
	file := &lang.File{Source: source}
	var errs lang.ErrorList
	tree, comments := parseTree(fileParser, "FileEnd", source, &errs)
	file.Comments = comments
	if tree != nil {
		l := newLowerer(source, &errs)
		parts := lowerSafely(source, &errs, func() fileParts { return l.file(tree) })
		if len(errs) == 0 {
			file.Kernels, file.Procs = parts.kernels, parts.procs
		}
	}
	if len(errs) > 0 {
		errs.RemoveMultiples()
		return file, errs
	}
	return file, nil
}

// ParseExpr parses a single expression (used for -D NAME=VALUE values and
// tests). Positions are byte offsets into src; errors are a lang.ErrorList
// with positions line:col and no file name.
func ParseExpr(src string) (lang.Expr, error) {
	source := lang.NewSource("", []byte(src))
	var errs lang.ErrorList
	tree, _ := parseTree(exprParser, "ExprNode", source, &errs)
	var x lang.Expr
	if tree != nil {
		l := newLowerer(source, &errs)
		x = lowerSafely(source, &errs, func() lang.Expr { return l.expr(tree.X) })
	}
	if len(errs) > 0 {
		errs.RemoveMultiples()
		return nil, errs
	}
	return x, nil
}

// parseTree runs the first three passes on src and returns the participle
// tree, or nil after reporting errors into errs. The comments are returned
// whenever lexing succeeded. root names the production the whole input
// must match, for the error when nothing matches at all.
func parseTree[G any](p *participle.Parser[G], root string, src *lang.Source, errs *lang.ErrorList) (*G, []*lang.Comment) {
	if len(src.Text) > maxSourceSize {
		errs.Addf(lang.Position{Filename: src.Name}, "file is %d bytes; perfc accepts at most 1 MiB", len(src.Text))
		return nil, nil
	}
	scanned := scan(src, errs)
	if len(*errs) > 0 {
		return nil, scanned.comments
	}
	checkNesting(src, scanned.tokens, errs)
	if len(*errs) > 0 {
		return nil, scanned.comments
	}
	tree, err := runParser(p, scanned.tokens)
	if err != nil {
		*errs = append(*errs, syntaxError(src, scanned.tokens, root, err))
		return nil, scanned.comments
	}
	return tree, scanned.comments
}

// runParser feeds tokens to p. A panic inside participle is turned into an
// error as a last resort: a bad input must never crash perfc.
func runParser[G any](p *participle.Parser[G], tokens []lexer.Token) (tree *G, err error) {
	defer func() {
		if r := recover(); r != nil {
			tree, err = nil, fmt.Errorf("internal error in the parser (%v); please report the input", r)
		}
	}()
	peeking, err := lexer.Upgrade(&tokenStream{tokens: tokens})
	if err != nil {
		return nil, err
	}
	return p.ParseFromLexer(peeking)
}

// lowerSafely runs lower, turning a panic (a bug in lowering on some input
// the grammar accepted) into an error instead of a crash.
func lowerSafely[T any](src *lang.Source, errs *lang.ErrorList, lower func() T) (result T) {
	defer func() {
		if r := recover(); r != nil {
			errs.Addf(lang.Position{Filename: src.Name}, "internal error while lowering (%v); please report the input", r)
		}
	}()
	return lower()
}

// tokenStream replays the scanned tokens to participle, which thereby
// sees exactly the tokens whose brackets checkNesting matched (comments
// already removed).
type tokenStream struct {
	tokens []lexer.Token
	next   int
}

// Next returns the next token, and EOF forever after the last.
func (s *tokenStream) Next() (lexer.Token, error) {
	tok := s.tokens[s.next]
	if !tok.EOF() {
		s.next++
	}
	return tok, nil
}
