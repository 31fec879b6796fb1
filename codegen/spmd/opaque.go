package spmd

// opaque returns x through a call the compiler does not inline, so that
// the value is unknown when the caller is compiled: the generated program
// initialises the vars of a work statement's synthetic loops with it
// (codegen/work.go), which keeps their arithmetic from being folded away.
//
//go:noinline
func opaque[T any](x T) T { return x }
