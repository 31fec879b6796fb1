package parser_test

import (
	"fmt"

	"perfc/parser"
)

// ParseFile turns source text into a lang.File, one lang.Kernel per
// kernel; lang.Check checks one of them.
func ExampleParseFile() {
	f, err := parser.ParseFile("two.spmd", []byte("kernel a(N = 4) on P = 2 ranks { }\nkernel b() on P = 8 ranks { barrier }\n"))
	if err != nil {
		fmt.Println(err) // a lang.ErrorList: file:line:col: message
		return
	}
	for _, k := range f.Kernels {
		fmt.Println(k.Name.Name)
	}
	// Output:
	// a
	// b
}
