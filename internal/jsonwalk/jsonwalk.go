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
	path, val, ok = first(reflect.ValueOf(v), "", match)
	return strings.TrimPrefix(path, "."), val, ok
}

// first is First on a reflect.Value, with the path so far.
func first(v reflect.Value, path string, match Match) (string, reflect.Value, bool) {
	if !v.IsValid() {
		return "", reflect.Value{}, false
	}
	found, enter := match(v)
	if found {
		return path, v, true
	}
	if !enter {
		return "", reflect.Value{}, false
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return first(v.Elem(), path, match)
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			if p, x, ok := first(v.Index(i), fmt.Sprintf("%s[%d]", path, i), match); ok {
				return p, x, true
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
			if p, x, ok := first(v.Field(i), path+"."+name, match); ok {
				return p, x, true
			}
		}
	}
	return "", reflect.Value{}, false
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
