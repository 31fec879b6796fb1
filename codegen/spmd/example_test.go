package spmd_test

import (
	"fmt"

	"perfc/codegen/spmd"
)

// ExampleCheckMemory is the refusal a generated program makes before it
// allocates: a kernel that needs more than the limit (or, with no limit,
// than 80 % of the memory available) does not start.
func ExampleCheckMemory() {
	available := func() (int64, error) { return 8 << 30, nil } // an 8 GiB machine
	fmt.Println(spmd.CheckMemory(1<<30, 0, available))
	fmt.Println(spmd.CheckMemory(7<<30, 0, available))
	fmt.Println(spmd.FormatBytes(3 << 20))
	// Output:
	// <nil>
	// the kernel needs 7.0 GiB of memory for its arrays and message buffers, more than 80% of the 8.0 GiB this machine has available; lower the sizes or the rank count with -D
	// 3.0 MiB
}
