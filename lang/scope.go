package lang

import (
	"slices"
	"strings"
)

// scope maps names to objects for one block; lookups walk out to the
// kernel scope and then to the universe of predeclared names. Scopes live
// only while one kernel is checked.
type scope struct {
	parent *scope
	objs   map[string]*Object
}

// newScope returns an empty scope inside parent.
func newScope(parent *scope) *scope {
	return &scope{parent: parent, objs: map[string]*Object{}}
}

// lookup returns the object name denotes here, or nil.
func (s *scope) lookup(name string) *Object {
	for ; s != nil; s = s.parent {
		if obj := s.objs[name]; obj != nil {
			return obj
		}
	}
	return nil
}

// insert declares obj in s.
func (s *scope) insert(obj *Object) { s.objs[obj.Name] = obj }

// intrinsicList names the intrinsics and conversions, written as calls.
const intrinsicList = "abs min max sqrt exp log sin cos floor ceil log2 neighbor f64 f32 i64 i32"

// isIntrinsic reports whether name is an intrinsic or a conversion.
func isIntrinsic(name string) bool {
	return slices.Contains(strings.Fields(intrinsicList), name)
}

// predeclaredMeaning explains a predeclared name of a kernel (rank, P, and
// on a grid rx ry Px Py), or returns "" when name is free to declare.
func predeclaredMeaning(name string, grid bool) string {
	switch name {
	case "rank":
		return "the rank of this process"
	case "P":
		return "the number of ranks"
	}
	if !grid {
		return ""
	}
	switch name {
	case "rx":
		return "the grid column of this rank"
	case "ry":
		return "the grid row of this rank"
	case "Px":
		return "the number of grid columns"
	case "Py":
		return "the number of grid rows"
	}
	return ""
}

// isGridName reports whether name is predeclared only on a grid.
func isGridName(name string) bool {
	return name == "rx" || name == "ry" || name == "Px" || name == "Py"
}

// newUniverse returns the scope of the names every kernel sees: rank, and
// the intrinsics. P, Px, Py, rx and ry depend on the kernel's 'on' clause
// and are declared by the checker.
func newUniverse() *scope {
	u := newScope(nil)
	u.insert(&Object{Kind: BuiltinObj, Name: "rank", Type: IntType, Dep: DepRank})
	for _, name := range strings.Fields(intrinsicList) {
		u.insert(&Object{Kind: IntrinsicObj, Name: name})
	}
	return u
}
