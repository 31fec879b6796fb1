package main

import (
	"fmt"
	"math"
	"reflect"
	"strings"

	"perfc/analyze"
	"perfc/internal/units"
)

// countType is the type of an exact count in a report.
var countType = reflect.TypeFor[analyze.Count]()

// checkCountsForJSON refuses a count report that -o json cannot write: the
// JSON of a count carries its value as a number beside the exact text, and
// a count beyond float range (1.8e+308) has none. The error names the
// count by its JSON path and value, and says what to do, instead of the
// encoder's "unsupported value".
func checkCountsForJSON(rep *analyze.Report) error {
	path, c, ok := firstHugeCount(reflect.ValueOf(rep), "")
	if ok {
		return nil
	}
	return fmt.Errorf("the count %s is %s, beyond float range (1.8e+308), and -o json writes every count as a number too: the table output (without -o json) prints it, or make the kernel smaller with -D",
		strings.TrimPrefix(path, "."), units.ExactCount(c.Value))
}

// firstHugeCount walks structs, pointers and slices and returns the JSON
// path of the first count whose value as a float64 is infinite; ok is true
// when there is none.
func firstHugeCount(v reflect.Value, path string) (string, analyze.Count, bool) {
	if v.Type() == countType {
		c := v.Interface().(analyze.Count)
		return path, c, !math.IsInf(c.Float(), 0)
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return firstHugeCount(v.Elem(), path)
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			if p, c, ok := firstHugeCount(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); !ok {
				return p, c, false
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < v.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if p, c, ok := firstHugeCount(v.Field(i), path+"."+name); !ok {
				return p, c, false
			}
		}
	}
	return "", analyze.Count{}, true
}
