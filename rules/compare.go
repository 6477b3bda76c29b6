package rules

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// Tri is the answer to a question a record may leave open: yes, no, or
// cannot tell (a member the record does not show, a value that does not
// parse). Rules judge only yes and no.
type Tri int

// The answers.
const (
	Unknown Tri = iota
	Yes
	No
)

func triOf(b bool) Tri {
	if b {
		return Yes
	}
	return No
}

// SameValue compares two decoded JSON values as the wire means them:
// numbers by value, date-times by instant (any offset, any fraction of a
// second), UUIDs without regard to case, objects member by member and
// arrays element by element.
func SameValue(a, b any) bool {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && sameString(x, y)
	case json.Number, float64:
		fa, ok1 := toFloat(a)
		fb, ok2 := toFloat(b)
		return ok1 && ok2 && fa == fb
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !SameValue(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !SameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}

// sameString: equal text, the same instant, or the same UUID in another
// case.
func sameString(a, b string) bool {
	if a == b {
		return true
	}
	if strings.Contains(a, "T") && strings.Contains(b, "T") {
		ta, ok1 := Instant(a)
		tb, ok2 := Instant(b)
		if ok1 && ok2 {
			return ta.Equal(tb)
		}
	}
	return len(a) == 36 && len(b) == 36 && strings.EqualFold(a, b)
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	case string:
		f, err := strconv.ParseFloat(n, 64)
		return f, err == nil
	}
	return 0, false
}

// CompareValues orders a record's value and a parameter's text: instants
// as instants (a date-time parameter against a date-time member), dates
// as dates, numbers as numbers; other strings only for equality. It
// reports false when they do not compare.
func CompareValues(v any, param, format string) (int, bool) {
	s, isStr := v.(string)
	switch {
	case format == "date-time" || (isStr && strings.Contains(s, "T") && strings.Contains(param, "T")):
		if !isStr {
			return 0, false
		}
		a, ok1 := Instant(s)
		b, ok2 := Instant(param)
		if !ok1 || !ok2 {
			return 0, false
		}
		return a.Compare(b), true
	case format == "date" || (isStr && IsDate(s) && IsDate(param)):
		if !isStr || !IsDate(s) || !IsDate(param) {
			return 0, false
		}
		a, _ := time.Parse(time.DateOnly, s)
		b, _ := time.Parse(time.DateOnly, param)
		return a.Compare(b), true
	}
	if f, ok := toFloat(v); ok && !isStr {
		g, err := strconv.ParseFloat(param, 64)
		if err != nil {
			return 0, false
		}
		switch {
		case f < g:
			return -1, true
		case f > g:
			return 1, true
		}
		return 0, true
	}
	if isStr {
		if sameString(s, param) {
			return 0, true
		}
		return 0, false
	}
	if b, ok := v.(bool); ok {
		if strconv.FormatBool(b) == param {
			return 0, true
		}
	}
	return 0, false
}

// equalsParam reports whether a record's value equals a parameter's text.
func equalsParam(v any, param string) bool {
	if s, ok := v.(string); ok {
		return sameString(s, param)
	}
	c, ok := CompareValues(v, param, "")
	return ok && c == 0
}
