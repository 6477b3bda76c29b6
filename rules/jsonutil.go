package rules

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

// JSONEqual compares two decoded JSON values, numbers by value.
func JSONEqual(a, b any) bool {
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

// Compact renders a value as short JSON for messages.
func Compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return Excerpt(string(b), 300)
}

// Excerpt cuts s to at most n bytes on a rune boundary, saying how long it
// was.
func Excerpt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d bytes in all)", len(s))
}

// Str returns m[k] as a string ("" when absent or not a string).
func Str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// Obj returns m[k] as an object (nil when absent or not one).
func Obj(m map[string]any, k string) map[string]any {
	o, _ := m[k].(map[string]any)
	return o
}

// Arr returns m[k] as an array (nil when absent or not one).
func Arr(m map[string]any, k string) []any {
	a, _ := m[k].([]any)
	return a
}

// Lookup reads a dotted path of a record: "meta.modified", "placedAt.id";
// "owners[].id" collects the member of every element. It returns the
// values found (none when the path is absent or null).
func LookupPath(rec map[string]any, path string) []any {
	var walk func(v any, parts []string) []any
	walk = func(v any, parts []string) []any {
		if len(parts) == 0 {
			if v == nil {
				return nil
			}
			return []any{v}
		}
		name, each := strings.CutSuffix(parts[0], "[]")
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		next, ok := m[name]
		if !ok || next == nil {
			return nil
		}
		if !each {
			return walk(next, parts[1:])
		}
		var out []any
		for _, e := range asArray(next) {
			out = append(out, walk(e, parts[1:])...)
		}
		return out
	}
	return walk(rec, strings.Split(path, "."))
}

func asArray(v any) []any {
	a, _ := v.([]any)
	return a
}
