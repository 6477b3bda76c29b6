package search

import (
	"math"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Record is one record as the evaluator sees it: Value returns the field's
// value, with ok=false or a nil value when the field is null or absent. See
// [Kind] for the Go types expected per kind; pointers to them are accepted
// too (a nil pointer is null), and so is time.Time for Date and DateTime.
type Record interface {
	Value(field string) (v any, ok bool)
}

// RecordFunc adapts a function to [Record].
type RecordFunc func(field string) (any, bool)

// Value calls f.
func (f RecordFunc) Value(field string) (any, bool) { return f(field) }

// MapRecord is a [Record] held in a map; a missing key is a null field.
type MapRecord map[string]any

// Value returns m[field].
func (m MapRecord) Value(field string) (any, bool) {
	v, ok := m[field]
	return v, ok
}

// deref turns the pointer types a Record may return into their values; a nil
// pointer becomes nil.
func deref(v any) any {
	switch p := v.(type) {
	case *string:
		if p != nil {
			return *p
		}
	case *bool:
		if p != nil {
			return *p
		}
	case *int:
		if p != nil {
			return *p
		}
	case *int64:
		if p != nil {
			return *p
		}
	case *int32:
		if p != nil {
			return *p
		}
	case *time.Time:
		if p != nil {
			return *p
		}
	case *[]string:
		if p != nil {
			return *p
		}
	default:
		return v
	}
	return nil
}

// recordString reads a String, Enum, UUID, Date or DateTime field as text.
func recordString(v any, k Kind) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case time.Time:
		if k == Date {
			return x.Format(time.DateOnly), true
		}
		if k == DateTime {
			return x.Format(time.RFC3339Nano), true
		}
	}
	return "", false
}

// recordInt reads an Int field.
func recordInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int64:
		return x, true
	case int32:
		return int64(x), true
	case int16:
		return int64(x), true
	case int8:
		return int64(x), true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint:
		if uint64(x) <= math.MaxInt64 {
			return int64(x), true
		}
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x), true
		}
	case float64:
		return floatInt(x)
	}
	return 0, false
}

// floatInt converts an integral float64 in int64's range.
func floatInt(f float64) (int64, bool) {
	// -2^63 is exact in float64; 2^63 is the first value out of range.
	if f != math.Trunc(f) || f < -(1<<63) || f >= 1<<63 {
		return 0, false
	}
	return int64(f), true
}

// dateKey reads "YYYY-MM-DD" as y*10000+m*100+d, validating the day of the
// month; it does not allocate.
func dateKey(s string) (int64, bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return 0, false
	}
	num := func(s string) (int, bool) {
		n := 0
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return 0, false
			}
			n = n*10 + int(s[i]-'0')
		}
		return n, true
	}
	y, ok1 := num(s[:4])
	m, ok2 := num(s[5:7])
	d, ok3 := num(s[8:])
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, false
	}
	return int64(y*10000 + m*100 + d), true
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// recordDate reads a Date field.
func recordDate(v any) (int64, bool) {
	switch x := v.(type) {
	case string:
		return dateKey(x)
	case time.Time:
		y, m, d := x.Date()
		if y < 0 || y > 9999 {
			return 0, false
		}
		return int64(y*10000 + int(m)*100 + d), true
	}
	return 0, false
}

// parseDateTime reads an RFC 3339 date-time, the rule of the contract's
// date-time format.
func parseDateTime(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// recordDateTime reads a DateTime field.
func recordDateTime(v any) (time.Time, bool) {
	switch x := v.(type) {
	case string:
		return parseDateTime(x)
	case time.Time:
		return x, true
	}
	return time.Time{}, false
}

// canonicalUUID checks the 36-character form (the contract's uuid format)
// and returns it in lower case.
func canonicalUUID(s string) (string, bool) {
	if len(s) != 36 {
		return "", false
	}
	if _, err := uuid.Parse(s); err != nil {
		return "", false
	}
	return strings.ToLower(s), true
}
