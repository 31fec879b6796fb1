package lang

import "reflect"

// Cloning a proc body for one expansion. Every node is new, because the
// checker's Info is keyed by node: the same expression in two calls may
// have two values. Names are renamed through a renaming; positions are
// kept, so that a message about the clone points into the proc's
// definition.
//
// The copy is made by reflection over the node structs rather than by a
// rule per kind: the AST grows (statements, payload forms, abstract work)
// in several places at once, and a hand-written copy that missed a field
// would share a node between two calls, and so give both the values of
// one, without any error. Reflection copies every field of every node it
// reaches: structs field by field, pointers to structs and slices deeply,
// interfaces by their dynamic value; everything else (positions, strings,
// numbers) by value. Nodes hold no maps, channels or functions.

// renaming is what an expansion changes in the body: names renamed (a
// parameter to the caller's name or to its binding let, a local to its
// fresh name) and parameters replaced by a peer argument.
type renaming struct {
	names map[string]string
	peers map[string]Expr // parameter → the direction, none or neighbor(…) passed for it
}

var (
	identPtrType = reflect.TypeFor[*Ident]()
	exprType     = reflect.TypeFor[Expr]()
	procCallType = reflect.TypeFor[ProcCallStmt]()
)

// cloneBlock returns a deep copy of b with names renamed.
func cloneBlock(b *Block, rename *renaming) *Block {
	return rename.clone(reflect.ValueOf(b)).Interface().(*Block)
}

// cloneExpr returns a deep copy of x with names renamed.
func cloneExpr(x Expr, rename *renaming) Expr {
	if x == nil {
		return nil
	}
	return rename.clone(reflect.ValueOf(&x).Elem()).Interface().(Expr)
}

// clone returns a deep copy of v, of v's type.
func (r *renaming) clone(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return reflect.Zero(v.Type())
		}
		elem := v.Elem()
		out := reflect.New(v.Type()).Elem()
		if id, ok := elem.Interface().(*Ident); ok && v.Type() == exprType && id != nil {
			if peer, ok := r.peers[id.Name]; ok {
				// A fresh copy at each use, at the call's position.
				out.Set(reflect.ValueOf(cloneExpr(peer, &renaming{})))
				return out
			}
		}
		out.Set(r.clone(elem))
		return out
	case reflect.Pointer:
		if v.IsNil() {
			return reflect.Zero(v.Type())
		}
		if v.Type() == identPtrType {
			return reflect.ValueOf(r.ident(v.Interface().(*Ident)))
		}
		if v.Elem().Kind() != reflect.Struct {
			return v
		}
		out := reflect.New(v.Elem().Type())
		out.Elem().Set(r.clone(v.Elem()))
		return out
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		out.Set(v) // unexported fields, if any, by value
		for i := range v.NumField() {
			f := out.Field(i)
			if !f.CanSet() {
				continue
			}
			if v.Type() == procCallType && v.Type().Field(i).Name == "Name" {
				// A proc's name is in the procs' namespace: never renamed.
				id := v.Field(i).Interface().(*Ident)
				f.Set(reflect.ValueOf(&Ident{NamePos: id.NamePos, Name: id.Name}))
				continue
			}
			f.Set(r.clone(v.Field(i)))
		}
		return out
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(r.clone(v.Index(i)))
		}
		return out
	}
	return v
}

// ident copies a name, renamed. Intrinsics (the function of a call) are
// never in the renaming: neither parameters nor locals may be called so.
func (r *renaming) ident(id *Ident) *Ident {
	name := id.Name
	if to, ok := r.names[name]; ok {
		name = to
	}
	return &Ident{NamePos: id.NamePos, Name: name}
}
