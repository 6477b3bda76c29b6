package conformance

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"

	"github.com/google/uuid"
)

// Helpers to read decoded JSON (maps, slices, strings, json.Number, bools).

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}

// str returns m[k] as a string ("" when absent or not a string).
func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// obj returns m[k] as an object (nil when absent or not an object).
func obj(m map[string]any, k string) map[string]any {
	o, _ := m[k].(map[string]any)
	return o
}

// arr returns m[k] as an array (nil when absent or not an array).
func arr(m map[string]any, k string) []any {
	a, _ := m[k].([]any)
	return a
}

// refID returns the id of the reference object m[k].
func refID(m map[string]any, k string) string { return str(obj(m, k), "id") }

// intOf reads an integer JSON value.
func intOf(v any) (int64, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := strconv.ParseInt(string(n), 10, 64)
		return i, err == nil
	case float64:
		if n == float64(int64(n)) {
			return int64(n), true
		}
	}
	return 0, false
}

// objects returns the members of an array that are objects.
func objects(a []any) []map[string]any {
	out := make([]map[string]any, 0, len(a))
	for _, v := range a {
		if o, ok := v.(map[string]any); ok {
			out = append(out, o)
		}
	}
	return out
}

// jsonEqual compares two decoded JSON values, numbers by value.
func jsonEqual(a, b any) bool {
	return reflect.DeepEqual(normaliseNumbers(a), normaliseNumbers(b))
}

func normaliseNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if f, err := x.Float64(); err == nil {
			return f
		}
		return string(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, c := range x {
			out[k] = normaliseNumbers(c)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, c := range x {
			out[i] = normaliseNumbers(c)
		}
		return out
	}
	return v
}

// compact renders a value as short JSON for messages.
func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return excerpt(string(b), 300)
}

// isUUID accepts the 36-character hyphenated form only.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	_, err := uuid.Parse(s)
	return err == nil
}

// unknownID is a UUID that no server holds (version 4 form, fixed so that a
// failure is reproducible).
const unknownID = "00000000-5c01-4c17-8000-00000000dead"

// malformedID is an id that is not a UUID.
const malformedID = "not-a-uuid"
