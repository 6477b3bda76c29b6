package report

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// jsonPlace says where a string value of a JSON text stands: Key is the
// member name it is the value of (for an item of an array, the array's
// member name), Outer the member name of the object or array holding it.
// In {"civicNo":{"value":"…"}} the value's Key is "value" and its Outer
// "civicNo"; in {"emails":[{"value":"…"}]} the same; in {"civicNos":["…"]}
// the item's Key is "civicNos".
type jsonPlace struct{ Outer, Key string }

// rewriteJSONStrings returns data with the string values for which f
// gives a replacement replaced, and everything else (keys, spacing, order,
// numbers) as it was. It reads cut and malformed texts as far as they go,
// so that the excerpt of a long body is rewritten too; a string cut short
// at the end counts as a whole value. It returns data itself when nothing
// was replaced.
func rewriteJSONStrings(data []byte, f func(at jsonPlace, value string) (string, bool)) []byte {
	type frame struct {
		object  bool
		under   string // the member name this container is the value of
		key     string // the current member name (objects)
		wantKey bool
	}
	stack := []frame{{}}
	current := func() string {
		top := stack[len(stack)-1]
		if top.object {
			return top.key
		}
		return top.under
	}
	var out []byte
	last := 0
	for i := 0; i < len(data); {
		top := &stack[len(stack)-1]
		switch c := data[i]; c {
		case '{', '[':
			stack = append(stack, frame{object: c == '{', under: current(), wantKey: c == '{'})
			i++
		case '}', ']':
			if len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
			i++
		case ',':
			if top.object {
				top.wantKey = true
			}
			i++
		case ':':
			top.wantKey = false
			i++
		case '"':
			end, closed := stringEnd(data, i)
			s := jsonString(data[i:end], closed)
			if top.object && top.wantKey {
				top.key = s
			} else {
				at := jsonPlace{Key: current()}
				if top.object {
					at.Outer = top.under
				} else if len(stack) > 1 {
					at.Outer = stack[len(stack)-2].under
				}
				if repl, ok := f(at, s); ok {
					quoted, _ := json.Marshal(repl)
					out = append(append(out, data[last:i]...), quoted...)
					last = end
				}
			}
			i = end
		default:
			i++
		}
	}
	if out == nil {
		return data
	}
	return append(out, data[last:]...)
}

// stringEnd returns the index after the JSON string starting at data[i]
// (a quote), and whether it was closed.
func stringEnd(data []byte, i int) (int, bool) {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return len(data), false
}

// jsonString decodes a quoted JSON string; one cut short (or malformed)
// is taken as the text after the quote.
func jsonString(raw []byte, closed bool) string {
	if closed {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	s := strings.TrimSuffix(string(raw[1:]), `"`)
	return strings.ToValidUTF8(s, string(utf8.RuneError))
}
