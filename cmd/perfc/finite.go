package main

import (
	"fmt"
	"math"
	"reflect"

	"perfc/analyze"
	"perfc/internal/jsonwalk"
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
	path, v, found := jsonwalk.First(rep, func(v reflect.Value) (found, enter bool) {
		if v.Type() == countType {
			return math.IsInf(v.Interface().(analyze.Count).Float(), 0), false
		}
		return false, true
	})
	if !found {
		return nil
	}
	return fmt.Errorf("the count %s is %s, beyond float range (1.8e+308), and -o json writes every count as a number too: the table output (without -o json) prints it, or make the kernel smaller with -D",
		path, units.ExactCount(v.Interface().(analyze.Count).Value))
}
