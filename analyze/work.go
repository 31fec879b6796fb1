package analyze

import (
	"reflect"

	"perfc/analyze/symbolic"
	"perfc/lang"
)

// workNote says why a kernel with abstract work has no closed forms.
const workNote = "the kernel states abstract work: its work statements are counted as loop nests built for these parameter values (docs/language.md, \"Abstract work\"), so the counts have no closed forms"

// dropWorkFormulas makes every count of a kernel with work statements a
// plain value. The checker builds each statement's loop nest for the
// parameters it was checked with (the counts, sweeps and runs of loops are
// numbers), while the arrays the nest streams through keep their symbolic
// sizes, so a closed form would mix the two and hold at these values only:
// a count of 2·N³ operations would read as a constant, the lines of a
// stream as a formula in N that no other N obeys.
func dropWorkFormulas(k *lang.Checked, rep *Report) {
	if !k.HasWork() {
		return
	}
	for _, c := range rep.Classes {
		constantCounts(reflect.ValueOf(c).Elem())
	}
	rep.Notes = append(rep.Notes, workNote)
}

// countType is the reflected type of Count.
var countType = reflect.TypeFor[Count]()

// constantCounts replaces every Count reachable from v through exported
// fields, slices, arrays, pointers and maps by its value alone.
func constantCounts(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == countType {
			if c := v.Interface().(Count); c.Value != nil && v.CanSet() {
				v.Set(reflect.ValueOf(Count{Value: c.Value, Formula: symbolic.Const(c.Value)}))
			}
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				constantCounts(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			constantCounts(v.Index(i))
		}
	case reflect.Pointer:
		if !v.IsNil() {
			constantCounts(v.Elem())
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			val := reflect.New(iter.Value().Type()).Elem()
			val.Set(iter.Value())
			constantCounts(val)
			v.SetMapIndex(iter.Key(), val)
		}
	}
}
