// Package readlimit reads the files perfc takes as input (kernels, machine
// tables, standard input) with a size limit that holds before the data is
// in memory: an endless stream such as /dev/zero or a runaway pipe is cut
// at the limit instead of exhausting memory.
package readlimit

import (
	"fmt"
	"io"
	"os"
)

// Max is the largest input perfc reads, in bytes (1 MiB): far more than
// any kernel or machine table needs.
const Max = 1 << 20

// File reads the named file, refusing one over Max bytes.
func File(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Reader(f, path)
}

// Reader reads r whole, refusing more than Max bytes; name says what r is
// in the error ("<stdin>", a file name).
func Reader(r io.Reader, name string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, Max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > Max {
		return nil, tooLarge(r, name)
	}
	return data, nil
}

// tooLarge is the error for an input over Max, with its size when r is a
// regular file that knows it.
func tooLarge(r io.Reader, name string) error {
	size := "more than 1 MiB"
	if f, ok := r.(*os.File); ok {
		if info, err := f.Stat(); err == nil && info.Mode().IsRegular() {
			size = fmt.Sprintf("%d bytes", info.Size())
		}
	}
	return fmt.Errorf("%s: the input is %s; perfc reads at most 1 MiB (%d bytes) of a kernel or machine table: give it a smaller file", name, size, Max)
}
