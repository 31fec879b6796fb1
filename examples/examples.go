// Package examples holds the acceptance set of perfc kernels: one .spmd file
// per kernel of the five source papers (Gaussian elimination on the CM-5, the
// LANL wavefront and SWEEP3D, the IMH memory and communication benchmarks, the
// PARKBENCH low-level benchmarks) plus a few perfc examples. Each file starts
// with a header comment naming its source, down to the table or figure and
// the line numbers (keys [000]…[004], docs/references.md), and what its
// parameters mean.
//
// The files are embedded so that the perfc command and the tests can use them
// without a checkout: `perfc predict gauss` needs no path.
package examples

import (
	"embed"
	"fmt"
	"path"
	"sort"
	"strings"
)

// ext is the file extension of a kernel source.
const ext = ".spmd"

// FS holds every example kernel, at the root, as NAME.spmd.
//
//go:embed *.spmd
var FS embed.FS

// Names returns the base names of the examples (file names without the
// .spmd extension), sorted.
func Names() []string {
	// Reading the root of an embed.FS cannot fail: the directory is built
	// into the binary.
	entries, _ := FS.ReadDir(".")
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ext) {
			names = append(names, strings.TrimSuffix(e.Name(), ext))
		}
	}
	sort.Strings(names)
	return names
}

// Source returns the text of the example called name (a base name such as
// "gauss"; a trailing .spmd is accepted too). An unknown name is an error that
// lists the known ones, so a command line typo gets a useful message.
func Source(name string) ([]byte, error) {
	base := strings.TrimSuffix(name, ext)
	if base == "" || base != path.Base(base) {
		return nil, fmt.Errorf("examples: %q is not an example name; known examples: %s",
			name, strings.Join(Names(), ", "))
	}
	src, err := FS.ReadFile(base + ext)
	if err != nil {
		return nil, fmt.Errorf("examples: no example named %q; known examples: %s",
			name, strings.Join(Names(), ", "))
	}
	return src, nil
}

// Summary returns the one-line description of the example called name: the
// first sentence of its header comment without the leading "name: ", as in
// "Gaussian elimination with partial pivoting, row-block distribution." It
// is what `perfc examples` lists, so the headers stay the one place that
// describes each kernel.
func Summary(name string) (string, error) {
	src, err := Source(name)
	if err != nil {
		return "", err
	}
	var words []string
	for line := range strings.Lines(string(src)) {
		text, ok := strings.CutPrefix(strings.TrimSpace(line), "//")
		text = strings.TrimSpace(text)
		if !ok || text == "" {
			break // the first paragraph of the header ends here
		}
		words = append(words, text)
		if strings.HasSuffix(text, ".") {
			break
		}
	}
	first := strings.Join(words, " ")
	if end := strings.Index(first, ". "); end >= 0 {
		first = first[:end+1]
	}
	base := strings.TrimSuffix(name, ext)
	return strings.TrimPrefix(first, base+": "), nil
}
