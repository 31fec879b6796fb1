package codegen

import (
	"fmt"
	"strings"

	"perfc/lang"
)

// Names in the generated program. Every kernel object (array, var, let,
// loop index) becomes a Go identifier that no runtime name can be: k_NAME
// for the first object called NAME, kN_NAME for the N-th (names may repeat
// in sibling blocks), and kx_HEX when NAME is not a Go identifier at all
// (an AST built by a program rather than the parser). Names never reach
// the generated source any other way: reports carry them in string
// literals written with strconv.Quote.

// namer hands out the Go names of a kernel's objects.
type namer struct {
	names map[*lang.Object]string
	used  map[string]int // how many objects of each kernel name were named
}

// newNamer returns an empty namer.
func newNamer() *namer {
	return &namer{names: map[*lang.Object]string{}, used: map[string]int{}}
}

// name returns the Go name of obj, inventing it on first use.
func (n *namer) name(obj *lang.Object) string {
	if s, ok := n.names[obj]; ok {
		return s
	}
	n.used[obj.Name]++
	s := mangle(obj.Name, n.used[obj.Name])
	n.names[obj] = s
	return s
}

// mangle makes the Go name of the nth object called name.
func mangle(name string, nth int) string {
	prefix := "k_"
	if nth > 1 {
		prefix = fmt.Sprintf("k%d_", nth)
	}
	if isIdent(name) {
		return prefix + name
	}
	return strings.Replace(prefix, "k", "kx", 1) + fmt.Sprintf("%x", name)
}

// isIdent reports whether name is an ASCII identifier, the only kind the
// kernel language has.
func isIdent(name string) bool {
	if name == "" {
		return false
	}
	for i, c := range name {
		letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		digit := c >= '0' && c <= '9'
		if !letter && !(digit && i > 0) {
			return false
		}
	}
	return true
}
