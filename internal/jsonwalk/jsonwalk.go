// Package jsonwalk finds a value inside a result by the path a reader of
// perfc's -o json output would use for it ("regions[2].terms[0].time"), so
// that an error about one number of a large report can name it exactly.
package jsonwalk

import (
	"fmt"
	"math"
	"reflect"
	"strings"
)

// Match looks at one value of the walk: found says it is the value sought;
// enter says whether to look inside it when it is not (a value whose
// contents cannot match, such as an exact count that is not the one
// sought, need not be entered).
type Match func(v reflect.Value) (found, enter bool)

// First walks v depth first through pointers, interfaces, slices, arrays
// and the exported fields of structs (named as encoding/json names them;
// fields tagged "-" are left out) and returns the path and value of the
// first place where match finds what it seeks; ok is false when there is
// none. The path of v itself is "".
func First(v any, match Match) (path string, val reflect.Value, ok bool) {
	var steps []string
	val, ok = first(reflect.ValueOf(v), match, &steps)
	if !ok {
		return "", reflect.Value{}, false
	}
	// The steps were added innermost first, as the walk returned.
	var b strings.Builder
	for i := len(steps) - 1; i >= 0; i-- {
		b.WriteString(steps[i])
	}
	return strings.TrimPrefix(b.String(), "."), val, true
}

// first is First on a reflect.Value. The path is written only on the way
// back from a match, so that a walk that finds nothing (the common case:
// CheckFinite on every prediction) formats no index and joins no names.
func first(v reflect.Value, match Match, steps *[]string) (reflect.Value, bool) {
	if !v.IsValid() {
		return reflect.Value{}, false
	}
	found, enter := match(v)
	if found {
		return v, true
	}
	if !enter {
		return reflect.Value{}, false
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return first(v.Elem(), match, steps)
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			if x, ok := first(v.Index(i), match, steps); ok {
				*steps = append(*steps, fmt.Sprintf("[%d]", i))
				return x, true
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < v.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			if x, ok := first(v.Field(i), match, steps); ok {
				name, _, _ := strings.Cut(tag, ",")
				if name == "" {
					name = f.Name
				}
				*steps = append(*steps, "."+name)
				return x, true
			}
		}
	}
	return reflect.Value{}, false
}

// CheckFinite refuses a result with any float that is infinite or not a
// number, naming it by its path (regions[2].terms[0].time) in what: it is
// the last guard before a printer or the JSON encoder, which would print
// "+Inf s" or fail with "unsupported value".
func CheckFinite(what string, v any) error {
	path, x, found := First(v, func(v reflect.Value) (found, enter bool) {
		if k := v.Kind(); k == reflect.Float32 || k == reflect.Float64 {
			return math.IsNaN(v.Float()) || math.IsInf(v.Float(), 0), false
		}
		return false, true
	})
	if !found {
		return nil
	}
	return fmt.Errorf("%s has %s = %g: a time or rate beyond float range (1.8e+308); check the machine table and the -M overrides, or make the kernel smaller with -D",
		what, path, x.Float())
}
