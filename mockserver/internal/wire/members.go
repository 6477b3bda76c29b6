package wire

import "slices"

// ReverseMembers writes the members of every object of the tree in the
// reverse of their order: JSON objects are unordered (RFC 8259 §4), so a
// reader must not depend on where a member stands.
func ReverseMembers(v any) any {
	return Map(v, func(_ string, v any) any {
		if o, ok := v.(*Object); ok {
			slices.Reverse(o.Members)
		}
		return v
	})
}

// DropNullMembers removes every member whose value is null and whose name
// required does not list for that object, reading an absent member as a
// null one: the vendor's schemas mark such members nullable and not
// required. required gets the object and returns the names its schema
// requires (nil: none).
func DropNullMembers(v any, required func(*Object) []string) any {
	return Map(v, func(_ string, v any) any {
		o, ok := v.(*Object)
		if !ok {
			return v
		}
		req := required(o)
		o.Members = slices.DeleteFunc(o.Members, func(m Member) bool {
			return m.Value == nil && !slices.Contains(req, m.Key)
		})
		return v
	})
}
