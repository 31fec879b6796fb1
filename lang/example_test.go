package lang_test

import (
	"errors"
	"fmt"

	"perfc/lang"
	"perfc/parser"
)

// Check binds the parameters (here N overridden as with perfc -D N=12)
// and evaluates everything static; its errors are a lang.ErrorList, which
// Format prints with the source line and a caret.
func ExampleCheck() {
	f, err := parser.ParseFile("k.spmd", []byte("kernel k(N = 8) on P = 4 ranks {\n  array a[N]: f64\n  a[N] = 1.0\n}\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	k, err := lang.Check(f, "", []lang.Override{{Name: "N", Value: "12"}})
	var list lang.ErrorList
	if errors.As(err, &list) {
		fmt.Print(list.Format(f.Source))
		return
	}
	fmt.Println(k.Kernel.Name.Name, k.NumRanks())
	// Output:
	// k.spmd:3:5: the index N = 12 is outside a, which has 12 elements (indices 0..11)
	//       a[N] = 1.0
	//         ^
}
