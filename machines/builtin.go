package machines

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// builtinFS holds the built-in tables, one file per machine, each named
// after the machine.
//
//go:embed builtin/*.yaml
var builtinFS embed.FS

// BuiltinNames lists the built-in machines in alphabetical order.
func BuiltinNames() []string {
	entries, _ := fs.ReadDir(builtinFS, "builtin") // cannot fail: go:embed requires the files
	var names []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".yaml"); ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// Builtin returns a fresh copy of a built-in machine, so that overriding one
// copy leaves every other untouched. An unknown name is an error that lists
// the available names.
func Builtin(name string) (*Machine, error) {
	if !slices.Contains(BuiltinNames(), name) {
		return nil, fmt.Errorf("no built-in machine '%s'; available: %s (or give a YAML file)", name, strings.Join(BuiltinNames(), ", "))
	}
	file := name + ".yaml"
	data, err := builtinFS.ReadFile(path.Join("builtin", file))
	if err != nil {
		return nil, err
	}
	return build(file, data, nil)
}
