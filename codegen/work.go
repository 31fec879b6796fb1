package codegen

import "perfc/lang"

// workInit returns the initial value of a var: init itself, or, for the
// operands, accumulators and stored values of a work statement's nest
// (lang.Checked.IsWorkVar), init of Go type typ passed through the runtime's opaque,
// which the Go compiler cannot see through. Without it the compiler would
// know the values of the nest's synthetic arithmetic (a + 1.0 from a
// constant 1.5) and could fold the operations, or the whole loop, away,
// and the timed program would not do the work the statement states.
//
// The nest's vars are also all added to the checksum at the end of the
// nest (generator.block), not stored to a slot of d.last as other vars of inner
// blocks are: a nest has many such vars, and its accumulators are summed
// into the checksum like the top-level vars, which keeps every one of them
// and the operations and loads that computed them.
func (g *generator) workInit(d *lang.VarDecl, typ, init string) string {
	if !g.k.IsWorkVar(d) {
		return init
	}
	return "opaque[" + typ + "](" + init + ")"
}
