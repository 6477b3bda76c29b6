package register

import (
	"reflect"

	"github.com/skolkit/skolkit/model"
)

// One renderer for the references of every SS 12000 record: a field tagged
// ref:"<table>" is a reference into that table. withRefs returns a copy of
// a stored record in which every reference carries displayName (with
// expandReferenceNames) and every person reference its securityMarking; the
// stored record is never changed.

var (
	objectRefType = reflect.TypeFor[model.ObjectReference]()
	personRefType = reflect.TypeFor[model.PersonReference]()
)

// holdsRefs reports whether a type can hold a tagged reference (the
// answer is kept per API: kinds.refTypes).
func (r renderer) holdsRefs(t reflect.Type) bool {
	if v, ok := r.kinds.refTypes.Load(t); ok {
		return v.(bool)
	}
	found := false
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice:
		found = r.holdsRefs(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			if f.Tag.Get("ref") != "" || r.holdsRefs(f.Type) {
				found = true
				break
			}
		}
	}
	r.kinds.refTypes.Store(t, found)
	return found
}

// withRefs returns a copy of *rec (a pointer to a stored record) with its
// references rendered.
func (r renderer) withRefs(rec any) any {
	v := reflect.ValueOf(rec).Elem()
	out := reflect.New(v.Type()).Elem()
	out.Set(v)
	r.fill(out)
	return out.Interface()
}

// fill renders the references inside v, a settable copy whose pointers and
// slices are still shared with the store: each is copied before it is
// changed.
func (r renderer) fill(v reflect.Value) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		fv := v.Field(i)
		if table := f.Tag.Get("ref"); table != "" {
			r.fillRef(fv, table)
			continue
		}
		if r.holdsRefs(f.Type) {
			r.fillDeep(fv)
		}
	}
}

// fillDeep copies and renders a struct, pointer or slice that holds
// references.
func (r renderer) fillDeep(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		r.fill(v)
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		cp := reflect.New(v.Type().Elem())
		cp.Elem().Set(v.Elem())
		r.fillDeep(cp.Elem())
		v.Set(cp)
	case reflect.Slice:
		if v.IsNil() {
			return
		}
		cp := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		reflect.Copy(cp, v)
		for i := range cp.Len() {
			r.fillDeep(cp.Index(i))
		}
		v.Set(cp)
	}
}

// fillRef renders a reference field (a reference, a pointer to one or a
// slice of them) into table.
func (r renderer) fillRef(v reflect.Value, table string) {
	switch {
	case v.Type() == objectRefType:
		ref := v.Interface().(model.ObjectReference)
		v.Set(reflect.ValueOf(r.objRef(table, ref.ID)))
	case v.Type() == personRefType:
		ref := v.Interface().(model.PersonReference)
		v.Set(reflect.ValueOf(r.personRef(ref)))
	case v.Kind() == reflect.Pointer:
		if v.IsNil() {
			return
		}
		cp := reflect.New(v.Type().Elem())
		cp.Elem().Set(v.Elem())
		r.fillRef(cp.Elem(), table)
		v.Set(cp)
	case v.Kind() == reflect.Slice:
		if v.IsNil() {
			return
		}
		cp := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		reflect.Copy(cp, v)
		for i := range cp.Len() {
			r.fillRef(cp.Index(i), table)
		}
		v.Set(cp)
	}
}

// objRef is a reference to a record of table, with its display name when
// reference names are asked for.
func (r renderer) objRef(table, id string) model.ObjectReference {
	out := model.ObjectReference{ID: id}
	if r.names {
		out.DisplayName = r.kinds.displayName(r.sn, table, id)
	}
	return out
}
