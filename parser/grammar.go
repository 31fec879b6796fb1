package parser

import "github.com/alecthomas/participle/v2/lexer"

// The participle grammar. It follows the EBNF of docs/language.md with four
// deliberate differences, each checked again when the tree is lowered into
// the lang AST (lower.go), where the error can be worded for people:
//
//   - Declared names accept keywords (nameNode), so that `var for: f64`
//     says "'for' is a keyword" rather than "unexpected token".
//   - Every index accepts a range `[lo:hi]` (indexNode); only the last index
//     of a payload may have one.
//   - Comparisons, else clauses and kernel parameter commas are parsed
//     loosely (`a < b < c`, `else {} else {}`, `(N = 1 M = 2)`) and rejected
//     while lowering with a message that says what to write.
//   - Unary operators, binary operators, conditional arms and else-if chains
//     are repetitions, not recursion, so that a long chain cannot exhaust
//     the stack; lowering folds them into the right associativity.
//
// The parser runs with lookahead 0: once an alternative has consumed a
// token, a failure inside it is the error (participle does not try the next
// alternative). Every alternative therefore starts with a distinct token,
// and the error points at the token that is wrong.
//
// Type names matter: participle names the expected production in its
// errors (`LoopBody`, `ElemTypeNode`), and messages.go maps those names to
// plain phrases. Fields must be exported for participle to see them.

// fileNode is a whole file: kernels up to the end of the input.
type fileNode struct {
	Kernels []*kernelNode `parser:"@@*"`
	End     *fileEnd      `parser:"@@"`
}

// fileEnd matches the end of the input, so that a stray token after the
// last kernel is reported as "expected 'kernel'".
type fileEnd struct {
	EOF bool `parser:"@EOF"`
}

// exprRoot is a lone expression, for ParseExpr.
type exprRoot struct {
	X   *exprNode `parser:"@@"`
	End *exprEnd  `parser:"@@"`
}

// exprEnd matches the end of a lone expression.
type exprEnd struct {
	EOF bool `parser:"@EOF"`
}

// kernelNode is `kernel name(params) [on …] { body }`.
type kernelNode struct {
	Kernel lexer.Token `parser:"@'kernel'"`
	Name   *nameNode   `parser:"@@"`
	Params *paramList  `parser:"@@"`
	On     *onNode     `parser:"@@?"`
	Body   *kernelBody `parser:"@@"`
}

// nameNode is a declared name. It accepts keywords so that lowering can
// reject them with "'for' is a keyword; choose another name".
type nameNode struct {
	Tok lexer.Token `parser:"@(Ident | Keyword)"`
}

// paramList is the parenthesised parameter list of a kernel. Commas are
// captured per parameter and checked while lowering, which also allows a
// trailing comma.
type paramList struct {
	Lparen lexer.Token  `parser:"@'('"`
	Items  []*paramItem `parser:"@@*"`
	Rparen *paramsClose `parser:"@@"`
}

// paramItem is one parameter and the comma after it, if any.
type paramItem struct {
	Param *paramNode   `parser:"@@"`
	Comma *lexer.Token `parser:"@','?"`
}

// paramsClose is the ')' of a parameter list.
type paramsClose struct {
	Tok lexer.Token `parser:"@')'"`
}

// paramNode is `name = default`.
type paramNode struct {
	Name    *nameNode `parser:"@@"`
	Default *exprNode `parser:"'=' @@"`
}

// onNode is the rank clause: `on P = 32 ranks` or `on grid(Px = 4, Py = 4)`.
type onNode struct {
	On    lexer.Token `parser:"@'on'"`
	Grid  *gridNode   `parser:"( @@"`
	Ranks *ranksNode  `parser:"| @@ )"`
}

// gridNode is `grid(Px = 4, Py = 4)`.
type gridNode struct {
	Grid lexer.Token `parser:"@'grid'"`
	X    *paramNode  `parser:"'(' @@"`
	Y    *paramNode  `parser:"',' @@ ')'"`
}

// ranksNode is `P = 32 ranks`.
type ranksNode struct {
	Param *paramNode `parser:"@@ 'ranks'"`
}

// blockNode is `{ stmts }`. It is embedded in one type per kind of block so
// that a missing '{' is reported as "to start the loop body" and the like.
type blockNode struct {
	Lbrace lexer.Token `parser:"@'{'"`
	Stmts  []*stmtNode `parser:"@@*"`
	Rbrace *blockClose `parser:"@@"`
}

// blockClose is the '}' of a block; a token that starts no statement is
// reported as "expected a statement or '}'".
type blockClose struct {
	Tok lexer.Token `parser:"@'}'"`
}

type (
	kernelBody struct{ blockNode }
	loopBody   struct{ blockNode }
	ifBody     struct{ blockNode }
	elseBody   struct{ blockNode }
	regionBody struct{ blockNode }
)

// stmtNode is one statement and an optional ';'. Each alternative starts
// with its own keyword; an assignment starts with a name.
type stmtNode struct {
	Let      *letNode      `parser:"( @@"`
	Array    *arrayNode    `parser:"| @@"`
	Var      *varNode      `parser:"| @@"`
	For      *forNode      `parser:"| @@"`
	Repeat   *repeatNode   `parser:"| @@"`
	If       *ifNode       `parser:"| @@"`
	Region   *regionNode   `parser:"| @@"`
	To       *toNode       `parser:"| @@"`
	From     *fromNode     `parser:"| @@"`
	SendRecv *sendRecvNode `parser:"| @@"`
	Exchange *exchangeNode `parser:"| @@"`
	Reduce   *reduceNode   `parser:"| @@"`
	OpComm   *opCommNode   `parser:"| @@"`
	AllComm  *allCommNode  `parser:"| @@"`
	Post     *postNode     `parser:"| @@"`
	Wait     *waitNode     `parser:"| @@"`
	WaitAll  *lexer.Token  `parser:"| @'waitall'"`
	Barrier  *lexer.Token  `parser:"| @'barrier'"`
	Assign   *assignNode   `parser:"| @@ ) ';'?"`
}

// letNode is `let name = value`.
type letNode struct {
	Let   lexer.Token `parser:"@'let'"`
	Name  *nameNode   `parser:"@@"`
	Value *exprNode   `parser:"'=' @@"`
}

// arrayNode is `array a[N], b[N][M]: f64`.
type arrayNode struct {
	Array lexer.Token   `parser:"@'array'"`
	Specs []*arraySpec  `parser:"@@ ( ',' @@ )*"`
	Elem  *elemTypeNode `parser:"':' @@"`
}

// arraySpec is `name[d1][d2]…`.
type arraySpec struct {
	Name *nameNode  `parser:"@@"`
	Dims []*dimNode `parser:"@@+"`
}

// dimNode is one `[size]` of an array declaration.
type dimNode struct {
	Lbrack lexer.Token `parser:"@'['"`
	Size   *exprNode   `parser:"@@ ']'"`
}

// elemTypeNode is an element type.
type elemTypeNode struct {
	Tok lexer.Token `parser:"@('f64' | 'f32' | 'i64' | 'i32')"`
}

// varNode is `var s, t: f64 [= init]`.
type varNode struct {
	Var   lexer.Token   `parser:"@'var'"`
	Names []*nameNode   `parser:"@@ ( ',' @@ )*"`
	Elem  *elemTypeNode `parser:"':' @@"`
	Init  *exprNode     `parser:"( '=' @@ )?"`
}

// forNode is `for i in lo..hi [step s] { body }`.
type forNode struct {
	For  lexer.Token `parser:"@'for'"`
	Var  *nameNode   `parser:"@@"`
	Lo   *exprNode   `parser:"'in' @@"`
	Hi   *exprNode   `parser:"'..' @@"`
	Step *exprNode   `parser:"( 'step' @@ )?"`
	Body *loopBody   `parser:"@@"`
}

// repeatNode is `repeat count { body }`.
type repeatNode struct {
	Repeat lexer.Token `parser:"@'repeat'"`
	Count  *exprNode   `parser:"@@"`
	Body   *loopBody   `parser:"@@"`
}

// ifNode is `if cond [prob p] { … }` followed by any number of else
// clauses; lowering checks that only the last is a plain block.
type ifNode struct {
	If    lexer.Token `parser:"@'if'"`
	Cond  *exprNode   `parser:"@@"`
	Prob  *exprNode   `parser:"( 'prob' @@ )?"`
	Then  *ifBody     `parser:"@@"`
	Elses []*elseNode `parser:"@@*"`
}

// elseNode is `else if cond [prob p] { … }` or `else { … }`.
type elseNode struct {
	Else lexer.Token `parser:"@'else'"`
	If   *elseIfNode `parser:"( @@"`
	Body *elseBody   `parser:"| @@ )"`
}

// elseIfNode is the `if cond [prob p] { … }` after an else.
type elseIfNode struct {
	If   lexer.Token `parser:"@'if'"`
	Cond *exprNode   `parser:"@@"`
	Prob *exprNode   `parser:"( 'prob' @@ )?"`
	Then *ifBody     `parser:"@@"`
}

// regionNode is `region "name" { body }`.
type regionNode struct {
	Region lexer.Token `parser:"@'region'"`
	Name   *regionName `parser:"@@"`
	Body   *regionBody `parser:"@@"`
}

// regionName is the quoted name of a region.
type regionName struct {
	Tok lexer.Token `parser:"@String"`
}

// toNode is `send P to PEER` and `gather P to ROOT`.
type toNode struct {
	Kind    lexer.Token  `parser:"@('send' | 'gather')"`
	Payload *payloadNode `parser:"@@"`
	Peer    *exprNode    `parser:"'to' @@"`
}

// fromNode is `recv P from PEER`, `bcast P from ROOT` and
// `scatter P from ROOT`.
type fromNode struct {
	Kind    lexer.Token  `parser:"@('recv' | 'bcast' | 'scatter')"`
	Payload *payloadNode `parser:"@@"`
	Peer    *exprNode    `parser:"'from' @@"`
}

// sendRecvNode is `sendrecv P to A from B [into Q]`.
type sendRecvNode struct {
	Kind    lexer.Token  `parser:"@'sendrecv'"`
	Payload *payloadNode `parser:"@@"`
	To      *exprNode    `parser:"'to' @@"`
	From    *exprNode    `parser:"'from' @@"`
	Into    *payloadNode `parser:"( 'into' @@ )?"`
}

// exchangeNode is `exchange P with PEER`.
type exchangeNode struct {
	Kind    lexer.Token  `parser:"@'exchange'"`
	Payload *payloadNode `parser:"@@"`
	Peer    *exprNode    `parser:"'with' @@"`
}

// postNode is `isend P to PEER as REQ` and `irecv P from PEER as REQ`. The
// direction word is captured so that lowering can say "isend sends to a
// peer: write 'to'" instead of a bare syntax error.
type postNode struct {
	Kind    lexer.Token  `parser:"@('isend' | 'irecv')"`
	Payload *payloadNode `parser:"@@"`
	Dir     lexer.Token  `parser:"@('to' | 'from')"`
	Peer    *exprNode    `parser:"@@"`
	Req     *requestName `parser:"@@"`
}

// requestName is the `as NAME` that names the request a post starts.
type requestName struct {
	As   lexer.Token `parser:"@'as'"`
	Name *nameNode   `parser:"@@"`
}

// waitNode is `wait r1, r2`.
type waitNode struct {
	Wait lexer.Token `parser:"@'wait'"`
	Reqs []*nameNode `parser:"@@ ( ',' @@ )*"`
}

// reduceNode is `reduce OP P to ROOT`.
type reduceNode struct {
	Kind    lexer.Token  `parser:"@'reduce'"`
	Op      *redOpNode   `parser:"@@"`
	Payload *payloadNode `parser:"@@"`
	Root    *exprNode    `parser:"'to' @@"`
}

// opCommNode is `allreduce OP P` and `scan OP P`.
type opCommNode struct {
	Kind    lexer.Token  `parser:"@('allreduce' | 'scan')"`
	Op      *redOpNode   `parser:"@@"`
	Payload *payloadNode `parser:"@@"`
}

// allCommNode is `allgather P` and `alltoall P`.
type allCommNode struct {
	Kind    lexer.Token  `parser:"@('allgather' | 'alltoall')"`
	Payload *payloadNode `parser:"@@"`
}

// redOpNode is a reduction operator. The operators are identifiers, not
// keywords: `sum` is an ordinary variable name outside this position.
type redOpNode struct {
	Tok lexer.Token `parser:"@('sum' | 'prod' | 'max' | 'min' | 'and' | 'or' | 'xor')"`
}

// payloadNode is `SIZE bytes` or an expression that lowering checks to be a
// name with indices and an optional final range.
type payloadNode struct {
	X     *exprNode    `parser:"@@"`
	Bytes *lexer.Token `parser:"@'bytes'?"`
}

// assignNode is `lhs op rhs`.
type assignNode struct {
	Name  lexer.Token   `parser:"@Ident"`
	Index []*indexNode  `parser:"@@*"`
	Op    *assignOpNode `parser:"@@"`
	Rhs   *exprNode     `parser:"@@"`
}

// assignOpNode is an assignment operator.
type assignOpNode struct {
	Tok lexer.Token `parser:"@('=' | '+=' | '-=' | '*=' | '/=')"`
}

// exprNode is `or { ? expr : or }`: a conditional chain, right-associative
// once lowered.
type exprNode struct {
	X    *orExpr    `parser:"@@"`
	Arms []*condArm `parser:"@@*"`
}

// condArm is one `? then : else` of a conditional chain.
type condArm struct {
	Question lexer.Token `parser:"@'?'"`
	Then     *exprNode   `parser:"@@"`
	Else     *orExpr     `parser:"':' @@"`
}

// The binary levels, loosest first, as in Go: || && comparisons, then
// + - | ^, then * / % << >> &. Each is an operand and a list of tails.
type (
	orExpr struct {
		X    *andExpr  `parser:"@@"`
		Tail []*orTail `parser:"@@*"`
	}
	orTail struct {
		Op lexer.Token `parser:"@'||'"`
		Y  *andExpr    `parser:"@@"`
	}
	andExpr struct {
		X    *cmpExpr   `parser:"@@"`
		Tail []*andTail `parser:"@@*"`
	}
	andTail struct {
		Op lexer.Token `parser:"@'&&'"`
		Y  *cmpExpr    `parser:"@@"`
	}
	cmpExpr struct {
		X    *addExpr   `parser:"@@"`
		Tail []*cmpTail `parser:"@@*"`
	}
	cmpTail struct {
		Op lexer.Token `parser:"@('==' | '!=' | '<=' | '>=' | '<' | '>')"`
		Y  *addExpr    `parser:"@@"`
	}
	addExpr struct {
		X    *mulExpr   `parser:"@@"`
		Tail []*addTail `parser:"@@*"`
	}
	addTail struct {
		Op lexer.Token `parser:"@('+' | '-' | '|' | '^')"`
		Y  *mulExpr    `parser:"@@"`
	}
	mulExpr struct {
		X    *unaryExpr `parser:"@@"`
		Tail []*mulTail `parser:"@@*"`
	}
	mulTail struct {
		Op lexer.Token `parser:"@('*' | '/' | '%' | '<<' | '>>' | '&')"`
		Y  *unaryExpr  `parser:"@@"`
	}
)

// unaryExpr is any number of prefix operators and an operand. It is
// written as two alternatives rather than `unaryOp* primaryNode` so that it
// matches nothing (instead of failing) where no operand starts: the error
// then names what the enclosing production expected, a payload say.
type unaryExpr struct {
	Ops []*unaryOp   `parser:"( @@+"`
	X   *primaryNode `parser:"  @@ | @@ )"`
}

// unaryOp is one prefix '-' or '!'.
type unaryOp struct {
	Tok lexer.Token `parser:"@('-' | '!')"`
}

// primaryNode is an operand: a literal, a direction, none, a name with a
// call or indices, or a parenthesised expression.
type primaryNode struct {
	Int   *lexer.Token `parser:"  @Int"`
	Float *lexer.Token `parser:"| @Float"`
	Word  *lexer.Token `parser:"| @('none' | 'east' | 'west' | 'north' | 'south')"`
	Name  *nameRef     `parser:"| @@"`
	Paren *parenNode   `parser:"| @@"`
}

// nameRef is a name, a call `name(args)` or an element `name[i][j]`. The
// conversions f64 f32 i64 i32 are keywords that are also called.
type nameRef struct {
	Name  lexer.Token  `parser:"@(Ident | 'f64' | 'f32' | 'i64' | 'i32')"`
	Call  *callArgs    `parser:"( @@"`
	Index []*indexNode `parser:"| @@+ )?"`
}

// callArgs is the parenthesised argument list of a call.
type callArgs struct {
	Lparen lexer.Token `parser:"@'('"`
	Args   []*exprNode `parser:"( @@ ( ',' @@ )* )?"`
	Rparen lexer.Token `parser:"@')'"`
}

// indexNode is `[i]`, or `[lo:hi]` where a payload allows a range.
type indexNode struct {
	Lbrack lexer.Token  `parser:"@'['"`
	X      *exprNode    `parser:"@@"`
	Colon  *lexer.Token `parser:"( @':'"`
	Hi     *exprNode    `parser:"  @@ )?"`
	Rbrack lexer.Token  `parser:"@']'"`
}

// parenNode is `( expr )`.
type parenNode struct {
	Lparen lexer.Token `parser:"@'('"`
	X      *exprNode   `parser:"@@"`
	Rparen lexer.Token `parser:"@')'"`
}
