package parser_test

import (
	"fmt"
	"reflect"
	"strings"

	"perfc/lang"
)

// dumpAST prints a tree in the manner of go/ast.Fprint: every struct with
// its type and fields, positions as line:col, enums by name. It is the
// format of the golden files, so that any change to the tree a file parses
// into, positions included, shows up as a readable diff.
func dumpAST(src *lang.Source, root any) string {
	var b strings.Builder
	d := dumper{src: src, out: &b}
	d.value(reflect.ValueOf(root), 0)
	return b.String()
}

// dumper writes one tree.
type dumper struct {
	src *lang.Source
	out *strings.Builder
}

var (
	posType    = reflect.TypeOf(lang.Pos(0))
	sourceType = reflect.TypeOf((*lang.Source)(nil))
	stringer   = reflect.TypeOf((*fmt.Stringer)(nil)).Elem()
)

// value writes v at the given indentation (the caller has written the
// field name, if any).
func (d dumper) value(v reflect.Value, depth int) {
	switch {
	case v.Type() == posType:
		p := d.src.Position(lang.Pos(v.Int()))
		fmt.Fprintf(d.out, "%d:%d\n", p.Line, p.Col)
		return
	case v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer:
		if v.IsNil() {
			d.out.WriteString("nil\n")
			return
		}
		if v.Kind() == reflect.Interface {
			d.value(v.Elem(), depth)
			return
		}
		d.value(v.Elem(), depth)
		return
	case v.Type().Implements(stringer) && v.Kind() != reflect.Struct:
		fmt.Fprintf(d.out, "%s\n", v.Interface())
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		fmt.Fprintf(d.out, "%s {\n", v.Type().Name())
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if !f.IsExported() || f.Type == sourceType {
				continue
			}
			fmt.Fprintf(d.out, "%s%s: ", indent(depth+1), f.Name)
			d.value(v.Field(i), depth+1)
		}
		fmt.Fprintf(d.out, "%s}\n", indent(depth))
	case reflect.Slice:
		if v.Len() == 0 {
			d.out.WriteString("[]\n")
			return
		}
		d.out.WriteString("[\n")
		for i := 0; i < v.Len(); i++ {
			fmt.Fprintf(d.out, "%s%d: ", indent(depth+1), i)
			d.value(v.Index(i), depth+1)
		}
		fmt.Fprintf(d.out, "%s]\n", indent(depth))
	case reflect.String:
		fmt.Fprintf(d.out, "%q\n", v.String())
	default:
		fmt.Fprintf(d.out, "%v\n", v.Interface())
	}
}

// indent is two spaces per level.
func indent(depth int) string { return strings.Repeat("  ", depth) }
