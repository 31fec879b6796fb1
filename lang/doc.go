// Package lang is perfc's kernel language (docs/language.md): the AST of a
// .spmd file, which package parser builds; the checker, which resolves
// names, types every expression, binds the parameters (with -D overrides)
// and evaluates everything static exactly, giving a Checked kernel; the
// evaluation of static expressions for a rank and its loop indices; the
// positioned errors with the source line they point at; the canonical
// printer behind `perfc fmt`; and the JSON form of the checked AST
// (docs/ast-json.md).
package lang
