package wire

import (
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// Optional says which members of an answer may be dropped: Keep lists, by
// the name of the component schema an object is declared by, the members to
// keep although the schema does not require them, and Skip says which
// objects to leave whole.
type Optional struct {
	// Keep reports whether the member of an object declared by the named
	// schemas is kept although none of them requires it.
	Keep func(schemas []string, member string) bool
	// Skip reports whether an object is left as it is, with all it holds.
	Skip func(*Object) bool
	// Asked names the member whose object holds what the request asked
	// for (each of its members is kept; what they hold is walked).
	Asked string
}

// DropOptional removes from the tree every member that its object's schema
// does not require and o does not keep, walking the tree along schema (the
// answer's schema in the contract). Members the schema does not declare,
// and what lies under oneOf and anyOf, are left as they are.
func (o Optional) DropOptional(v any, schema *openapi3.SchemaRef) any {
	o.drop(v, schema, false)
	return v
}

// ItemsOf is the schema of an array schema's items, its own or, when it
// is an allOf, the first part's that has them.
func ItemsOf(ref *openapi3.SchemaRef) *openapi3.SchemaRef {
	items := ref.Value.Items
	for _, part := range ref.Value.AllOf {
		if items == nil && part.Value != nil {
			items = part.Value.Items
		}
	}
	return items
}

func (o Optional) drop(v any, ref *openapi3.SchemaRef, asked bool) {
	if ref == nil || ref.Value == nil {
		return
	}
	switch x := v.(type) {
	case []any:
		items := ItemsOf(ref)
		for _, item := range x {
			o.drop(item, items, false)
		}
	case *Object:
		if o.Skip != nil && o.Skip(x) {
			return
		}
		names, props, required := Flatten(ref)
		x.Members = slices.DeleteFunc(x.Members, func(m Member) bool {
			_, declared := props[m.Key]
			return declared && !asked && !slices.Contains(required, m.Key) && !o.Keep(names, m.Key)
		})
		for _, m := range x.Members {
			o.drop(m.Value, props[m.Key], o.Asked != "" && m.Key == o.Asked)
		}
	}
}

// Flatten merges a schema with the parts of its allOf: the names of the
// component schemas involved, the properties and the required members.
func Flatten(ref *openapi3.SchemaRef) (names []string, props map[string]*openapi3.SchemaRef, required []string) {
	props = map[string]*openapi3.SchemaRef{}
	var add func(r *openapi3.SchemaRef)
	add = func(r *openapi3.SchemaRef) {
		if r == nil || r.Value == nil {
			return
		}
		if name, ok := strings.CutPrefix(r.Ref, "#/components/schemas/"); ok {
			names = append(names, name)
		}
		for k, p := range r.Value.Properties {
			if _, ok := props[k]; !ok {
				props[k] = p
			}
		}
		required = append(required, r.Value.Required...)
		for _, part := range r.Value.AllOf {
			add(part)
		}
	}
	add(ref)
	return names, props, required
}
